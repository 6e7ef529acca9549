#!/bin/bash
# cuda-confirm-calibration.sh OUTDIR: re-times, in one `tile time` run on the GPU, the automatic
# plan under the calibrated record (devices/nvidia-h200-calibrated.json), under the uncalibrated
# one (devices/nvidia-h200.json) and each sweep's measured best, for the 12 swept cases and shapes
# (bench/confirm-calibration.json, made by scripts/confirm-calibration.mjs list). Run from a
# `npm run pack:gpu` folder: sh tile-gpu/setup.sh && bash tile-gpu/pkg/scripts/cuda-confirm-calibration.sh OUT
# Bounded: 150 s for the timing (36 kernels, each validated; 4 rounds x 5 samples, 2 ms batches).
set -u
out=${1:?usage: cuda-confirm-calibration.sh OUTDIR}
pack=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"; out=$(cd "$out" && pwd)
export TILE_CACHE_DIR=/tmp/tile-cache-confirm
[ -x "$pack/bin/node" ] && [ -f "$pack/pkg/build/native/libtile_cuda.so" ] || timeout 150 sh "$pack/setup.sh" > "$out/setup.txt" 2>&1
cd "$pack/pkg"
t0=$(date +%s)
timeout -k 3 150 "$pack/tile" time bench/confirm-calibration.json --runtime "${RUNTIME:-cuda}" --rounds 4 --samples 5 --batch-window-ms 2 -o "$out/confirm.json" > "$out/confirm.txt" 2>&1
echo "tile time: exit $? after $(( $(date +%s) - t0 )) s" | tee -a "$out/confirm.txt"
[ -f "$out/confirm.json" ] && "$pack/bin/node" scripts/confirm-calibration.mjs report "$out/confirm.json" | tee "$out/confirm.md"
exit 0
