#!/bin/bash
# cuda-evidence.sh: issue 15's measurements on an NVIDIA GPU machine, from a folder packed by
# `npm run pack:gpu` (run it as: sh tile-gpu/pkg/scripts/cuda-evidence.sh OUTDIR).
# Writes OUTDIR/{env,suite,compile-times,controls,sanitize,fuzz}.txt; each step has a time limit.
# Steps: setup (unpack Node, build the native runtimes there), a smoke run, `tile suite --runtime
# cuda` (the whole validation matrix and the pointwise pairs), compile time per kernel on an
# empty cache, the three negative controls under compute-sanitizer (each beside its clean
# twin), the suite under memcheck, racecheck and synccheck, and the structural fuzz.
set -u
out=${1:?usage: cuda-evidence.sh OUTDIR}
pack=$(cd "$(dirname "$0")/../.." && pwd)
node=$pack/bin/node
tile=$pack/tile
ev=$pack/pkg/scripts/gpu-evidence.mjs
mkdir -p "$out"
export TILE_CACHE_DIR=/tmp/tile-cache-evidence
# NVRTC: the toolkit's, else the one a Python package brings (the runtime falls back to nvcc)
if ! ls /usr/local/cuda/lib64/libnvrtc.so* >/dev/null 2>&1; then
  lib=$(find /usr/local /opt /usr/lib -name 'libnvrtc.so*' ! -name '*builtins*' 2>/dev/null | sort | head -1)
  [ -n "$lib" ] && export TILE_NVRTC=$lib
fi
step() { echo; echo "### $*"; }
{
  step date; date -u
  step nvidia-smi; nvidia-smi
  step nvcc; nvcc --version
  step compute-sanitizer; compute-sanitizer --version
  step nvrtc; ls /usr/local/cuda/lib64/ | grep -i nvrtc; echo "TILE_NVRTC=${TILE_NVRTC:-}"
  step setup; sh "$pack/setup.sh"
  step "tile run cases/softmax.json --runtime cuda"; "$tile" run "$pack/pkg/cases/softmax.json" --runtime cuda
  step "tile run cases/softmax.json --runtime cuda --json (device)"; "$tile" run "$pack/pkg/cases/softmax.json" --runtime cuda --json | head -c 400
} > "$out/env.txt" 2>&1

{ step "tile suite --runtime cuda"; time timeout 300 "$tile" suite --runtime cuda; echo "exit $?"; } > "$out/suite.txt" 2>&1
{ step "gpu-evidence.mjs compile-times --runtime cuda"; timeout 200 "$node" "$ev" compile-times --runtime cuda; echo "exit $?"; } > "$out/compile-times.txt" 2>&1

# negative controls: each must be reported (exit 9), its clean twin must not (exit 0)
{
  for c in "racecheck race" "synccheck divergent-barrier" "memcheck out-of-bounds"; do
    set -- $c
    for v in "" "--clean"; do
      step "compute-sanitizer --tool $1 --error-exitcode 9 node gpu-evidence.mjs control $2 $v --runtime cuda"
      timeout 120 compute-sanitizer --tool "$1" --error-exitcode 9 "$node" "$ev" control "$2" $v --runtime cuda 2>&1 | head -60
      echo "exit ${PIPESTATUS[0]}"
    done
  done
} > "$out/controls.txt" 2>&1

# the suite under each sanitizer and the fuzz, side by side (correctness only, no timing)
for t in memcheck racecheck synccheck; do
  ( step "compute-sanitizer --tool $t --error-exitcode 9 tile suite --runtime cuda"
    timeout 420 compute-sanitizer --tool "$t" --error-exitcode 9 "$tile" suite --runtime cuda 2>&1 | tail -120
    echo "exit ${PIPESTATUS[0]}" ) > "$out/sanitize-$t.txt" 2>&1 &
done
( step "gpu-evidence.mjs fuzz --count 700 --seed 20261130 --runtime cuda"
  timeout 420 "$node" "$ev" fuzz --count 700 --seed 20261130 --runtime cuda; echo "exit $?" ) > "$out/fuzz.txt" 2>&1 &
wait
cat "$out"/sanitize-*.txt > "$out/sanitize.txt" && rm -f "$out"/sanitize-*.txt
grep -h "^###\|^exit\|passed, \|ERROR SUMMARY\|fuzz on\|distinct kernels" "$out"/*.txt
