#!/bin/bash
# cuda-evidence-2.sh: the second GPU measurements (run as: sh tile-gpu/setup.sh && bash tile-gpu/pkg/scripts/cuda-evidence-2.sh OUTDIR).
#   controls.txt    the three negative controls under compute-sanitizer, each beside its clean twin
#   sanitize.txt    `tile suite --full --runtime cuda` under memcheck, racecheck and synccheck
#   device.txt      bench/tools/cuda-device-record.py: the H200 device record and its sources
#   torch.txt/json  bench/torch-side-by-side.py: Tile beside PyTorch, copy-bandwidth fractions
#   bench.txt/.tgz  `tile bench` packing and fusion protocols on CUDA, each with `tile audit`
# Every step has a time limit, also on the sanitized program itself (a hung kernel must not
# hold the pipe), and writes to files, not pipes.
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
cd "$pack/pkg"
{ step "python3 bench/tools/cuda-device-record.py"; timeout 60 python3 bench/tools/cuda-device-record.py "$out/h200.json" "$out/h200.sources.json"; echo "exit $?"; } > "$out/device.txt" 2>&1
{ step "python3 bench/torch-side-by-side.py --out torch.json"; timeout 150 python3 bench/torch-side-by-side.py --out "$out/torch.json"; echo "exit $?"; } > "$out/torch.txt" 2>&1
{
  for c in "racecheck race" "synccheck divergent-barrier" "memcheck out-of-bounds"; do
    set -- $c
    for v in "" "--clean"; do
      step "compute-sanitizer --tool $1 --error-exitcode 9 node gpu-evidence.mjs control $2 $v --runtime cuda"
      timeout -k 5 45 compute-sanitizer --tool "$1" --error-exitcode 9 timeout -k 2 30 "$node" "$ev" control "$2" $v --runtime cuda > /tmp/ctl.txt 2>&1
      echo "exit $?"; grep -v "^=========     \(at\|by\) " /tmp/ctl.txt | head -30
    done
  done
} > "$out/controls.txt" 2>&1
for t in memcheck racecheck synccheck; do
  ( step "compute-sanitizer --tool $t --error-exitcode 9 tile suite --full --runtime cuda"
    timeout -k 5 120 compute-sanitizer --tool "$t" --error-exitcode 9 timeout -k 2 110 "$tile" suite --full --runtime cuda > /tmp/san-$t.txt 2>&1
    echo "exit $?"; tail -80 /tmp/san-$t.txt ) > "$out/sanitize-$t.txt" 2>&1 &
done
wait
cat "$out"/sanitize-*.txt > "$out/sanitize.txt"; rm -f "$out"/sanitize-*.txt
mkdir -p /tmp/bench
for p in packing fusion; do
  { step "tile bench bench/protocols/$p.json --runtime cuda -o /tmp/bench/$p"; timeout -k 2 130 "$tile" bench "bench/protocols/$p.json" --runtime cuda -o "/tmp/bench/$p" > /tmp/b.txt 2>&1; echo "exit $?"; tail -40 /tmp/b.txt
    step "tile audit /tmp/bench/$p"; timeout -k 2 30 "$tile" audit "/tmp/bench/$p" > /tmp/a.txt 2>&1; echo "exit $?"; tail -30 /tmp/a.txt; } >> "$out/bench.txt" 2>&1
done
tar -czf "$out/bench.tgz" -C /tmp bench
cat "$out/h200.sources.json" >> "$out/device.txt" 2>/dev/null; rm -f "$out/h200.sources.json"
grep -h "^###\|^exit\|passed, \|ERROR SUMMARY\|SUMMARY" "$out"/*.txt
tail -30 "$out/torch.txt"
