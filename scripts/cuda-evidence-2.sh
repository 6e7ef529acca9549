#!/bin/bash
# cuda-evidence-2.sh: the second GPU call (run as: bash tile-gpu/pkg/scripts/cuda-evidence-2.sh OUTDIR).
#   controls.txt    the three negative controls under compute-sanitizer, each beside its clean twin
#   sanitize.txt    `tile suite --full --runtime cuda` under memcheck, racecheck and synccheck
#   device.txt      bench/tools/cuda-device-record.py: the H200 device record and its sources
#   torch.txt/json  bench/torch-side-by-side.py: Tile beside PyTorch, copy-bandwidth fractions
#   bench.tar.gz    `tile bench` packing and fusion protocols on CUDA, each with `tile audit`
set -u
out=${1:?usage: cuda-evidence-2.sh OUTDIR}
pack=$(cd "$(dirname "$0")/../.." && pwd)
node=$pack/bin/node
tile=$pack/tile
ev=$pack/pkg/scripts/gpu-evidence.mjs
mkdir -p "$out"
export TILE_CACHE_DIR=/tmp/tile-cache-evidence TILE_NODE=$node
step() { echo; echo "### $*"; }
sh "$pack/setup.sh" > "$out/setup.txt" 2>&1
{
  for c in "racecheck race" "synccheck divergent-barrier" "memcheck out-of-bounds"; do
    set -- $c
    for v in "" "--clean"; do
      step "compute-sanitizer --tool $1 --error-exitcode 9 node gpu-evidence.mjs control $2 $v --runtime cuda"
      timeout 120 compute-sanitizer --tool "$1" --error-exitcode 9 "$node" "$ev" control "$2" $v --runtime cuda 2>&1 | head -40
      echo "exit ${PIPESTATUS[0]}"
    done
  done
} > "$out/controls.txt" 2>&1
for t in memcheck racecheck synccheck; do
  ( step "compute-sanitizer --tool $t --error-exitcode 9 tile suite --full --runtime cuda"
    timeout 300 compute-sanitizer --tool "$t" --error-exitcode 9 "$tile" suite --full --runtime cuda 2>&1 | tail -100
    echo "exit ${PIPESTATUS[0]}" ) > "$out/sanitize-$t.txt" 2>&1 &
done
wait
cat "$out"/sanitize-*.txt > "$out/sanitize.txt"; rm -f "$out"/sanitize-*.txt
cd "$pack/pkg"
{ step "python3 bench/tools/cuda-device-record.py"; timeout 60 python3 bench/tools/cuda-device-record.py "$out/h200.json" "$out/h200.sources.json"; echo "exit $?"; } > "$out/device.txt" 2>&1
{ step "python3 bench/torch-side-by-side.py --out torch.json"; timeout 200 python3 bench/torch-side-by-side.py --out "$out/torch.json"; echo "exit $?"; } > "$out/torch.txt" 2>&1
mkdir -p /tmp/bench
for p in packing fusion; do
  { step "tile bench bench/protocols/$p.json --runtime cuda -o /tmp/bench/$p"; timeout 170 "$tile" bench "bench/protocols/$p.json" --runtime cuda -o "/tmp/bench/$p" 2>&1 | tail -40; echo "exit ${PIPESTATUS[0]}"
    step "tile audit /tmp/bench/$p"; timeout 60 "$tile" audit "/tmp/bench/$p" 2>&1 | tail -30; echo "exit ${PIPESTATUS[0]}"; } >> "$out/bench.txt" 2>&1
done
tar -czf "$out/bench.tar.gz" -C /tmp bench
cat "$out/h200.sources.json" >> "$out/device.txt"; rm -f "$out/h200.sources.json"
grep -h "^###\|^exit\|passed, \|ERROR SUMMARY\|SUMMARY" "$out"/*.txt
tail -30 "$out/torch.txt"
