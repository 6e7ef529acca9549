#!/bin/bash
# cuda-evidence-15.sh: issue 15's correctness evidence on an NVIDIA GPU, from the folder
# `npm run pack:gpu` writes (run as: sh tile-gpu/setup.sh && bash tile-gpu/pkg/scripts/cuda-evidence-15.sh OUTDIR).
#   suite.txt      `tile suite --runtime cuda` (what `npm start` runs) and `tile run` of softmax
#   controls.txt   negative controls under compute-sanitizer, each beside its clean twin
#   sanitize.txt   `tile suite --full --runtime cuda` under memcheck, racecheck and synccheck
#   admitted.txt   the structural fuzz of issue 12: every admitted candidate against the oracle
# Every step has a time limit (a hung kernel must not hold the call) and writes to files.
set -u
out=${1:?usage: cuda-evidence-15.sh OUTDIR}
pack=$(cd "$(dirname "$0")/../.." && pwd)
node=$pack/bin/node
tile=$pack/tile
ev=$pack/pkg/scripts/gpu-evidence.mjs
mkdir -p "$out"
export TILE_CACHE_DIR=/tmp/tile-cache-evidence TILE_NODE=$node
step() { echo; echo "### $*"; }
sh "$pack/setup.sh" > "$out/setup.txt" 2>&1
cd "$pack/pkg"
{ nvidia-smi; nvcc --version; compute-sanitizer --version; } > "$out/env.txt" 2>&1
{ step "tile suite --runtime cuda"; timeout -k 2 120 "$tile" suite --runtime cuda; echo "exit $?"
  step "tile run cases/softmax.json --runtime cuda"; timeout -k 2 60 "$tile" run cases/softmax.json --runtime cuda; echo "exit $?"; } > "$out/suite.txt" 2>&1
{
  for c in "racecheck race" "synccheck divergent-simd-barrier" "synccheck exited-simd-barrier" "synccheck exited-barrier" "memcheck out-of-bounds"; do
    set -- $c
    for v in "" "--clean"; do
      step "compute-sanitizer --tool $1 --error-exitcode 9 node gpu-evidence.mjs control $2 $v --runtime cuda"
      timeout -k 5 45 compute-sanitizer --tool "$1" --error-exitcode 9 timeout -k 2 30 "$node" "$ev" control "$2" $v --runtime cuda > /tmp/ctl.txt 2>&1
      echo "exit $?"; grep -v "^=========     \(at\|by\) " /tmp/ctl.txt | head -30
    done
  done
} > "$out/controls.txt" 2>&1 &
for t in memcheck racecheck synccheck; do
  ( step "compute-sanitizer --tool $t --error-exitcode 9 tile suite --full --runtime cuda"
    timeout -k 5 170 compute-sanitizer --tool "$t" --error-exitcode 9 timeout -k 2 160 "$tile" suite --full --runtime cuda > /tmp/san-$t.txt 2>&1
    echo "exit $?"; tail -80 /tmp/san-$t.txt ) > "$out/sanitize-$t.txt" 2>&1 &
done
{ step "node gpu-evidence.mjs admitted --docs ${ADMITTED_DOCS:-60} --seed ${ADMITTED_SEED:-20261201} --runtime cuda"
  timeout -k 2 200 "$node" "$ev" admitted --docs "${ADMITTED_DOCS:-60}" --seed "${ADMITTED_SEED:-20261201}" --runtime cuda; echo "exit $?"; } > "$out/admitted.txt" 2>&1 &
wait
cat "$out"/sanitize-*.txt > "$out/sanitize.txt"; rm -f "$out"/sanitize-*.txt
grep -h "^###\|^exit\|passed, \|ERROR SUMMARY\|SUMMARY\|admitted structural" "$out"/*.txt
