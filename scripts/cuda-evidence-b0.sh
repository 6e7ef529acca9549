#!/bin/bash
# cuda-evidence-b0.sh: the kernels BEFORE issue 16 timed beside PyTorch in one run, issue 20's
# exports on CUDA, the remaining sanitizer controls, compile times and the re-planning path
# (run as: sh tile-gpu/setup.sh && bash tile-gpu/pkg/scripts/cuda-evidence-b0.sh OUTDIR, from `npm run pack:gpu`'s folder).
set -u
out=${1:?usage: cuda-evidence-b0.sh OUTDIR}
pack=$(cd "$(dirname "$0")/../.." && pwd)
node=$pack/bin/node
tile=$pack/tile
ev=$pack/pkg/scripts/gpu-evidence.mjs
mkdir -p "$out"
export TILE_CACHE_DIR=/tmp/tile-cache-evidence TILE_NODE=$node
step() { echo; echo "### $*"; }
sh "$pack/setup.sh" > "$out/setup.txt" 2>&1
cd "$pack/pkg"
{ step "node gpu-evidence.mjs time-kernels --out tile-times.json --runtime cuda"
  timeout -k 2 150 "$node" "$ev" time-kernels --out "$out/tile-times.json" --runtime cuda > /tmp/tk.txt 2>&1; echo "exit $?"; tail -5 /tmp/tk.txt
  step "python3 bench/torch-side-by-side.py --tile-times tile-times.json --out torch.json"
  timeout -k 2 150 python3 bench/torch-side-by-side.py --tile-times "$out/tile-times.json" --out "$out/torch.json"; echo "exit $?"; } > "$out/speed.txt" 2>&1
{ step "node gpu-evidence.mjs exports --runtime cuda"; timeout -k 2 150 "$node" "$ev" exports --runtime cuda; echo "exit $?"; } > "$out/exports.txt" 2>&1 &
{
  for c in "synccheck exited-simd-barrier" "synccheck exited-barrier"; do
    set -- $c
    for v in "" "--clean"; do
      step "compute-sanitizer --tool $1 --error-exitcode 9 node gpu-evidence.mjs control $2 $v --runtime cuda"
      timeout -k 5 45 compute-sanitizer --tool "$1" --error-exitcode 9 timeout -k 2 30 "$node" "$ev" control "$2" $v --runtime cuda > /tmp/ctl.txt 2>&1
      echo "exit $?"; grep -v "^=========     \(at\|by\) " /tmp/ctl.txt | head -30
    done
  done
} > "$out/controls.txt" 2>&1 &
{ step "node gpu-evidence.mjs compile-times --runtime cuda"; timeout -k 2 120 "$node" "$ev" compile-times --runtime cuda; echo "exit $?"
  for v in "--vector 1" "--vector 4" "--vector 8" "--vector 8 --unroll 4"; do
    step "tile run cases/layernorm_affine.json --threads 1024 $v --size R=64 --size C=8192 --runtime cuda --json (re-planning path)"
    timeout -k 2 60 "$tile" run cases/layernorm_affine.json --threads 1024 $v --size R=64 --size C=8192 --runtime cuda --json > /tmp/rp.json 2>&1; echo "exit $?"; grep -E '"(replanned|passed|error|pipelineMaxThreads)"' /tmp/rp.json | head -5
  done; } > "$out/compile.txt" 2>&1 &
wait
grep -h "^###\|^exit\|exports on\|distinct kernels\|SUMMARY\|replan\|re-plan" "$out"/*.txt
tail -40 "$out/speed.txt"
