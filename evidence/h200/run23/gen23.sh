#!/bin/sh
# gen23.sh: LayerNorm (affine) 2048x8192 and 768x6144 candidates as emitted, and hand variants of
# them (variants.py), translated to the CUDA units the runtime compiles; manifest.json for time23.py.
set -eu
T=/work/main/shell-node/bin/tile.mjs
PRE=/work/main/shell-native/cuda/msl_prelude.cuh
emit() { # name case R C P threads vector
  node $T emit /work/main/cases/$2.json --size R=$3 --size C=$4 --device nvidia-h200-calibrated --programs-per-group $5 --threads $6 --vector $7 > $1.metal
  /tmp/tct $PRE < $1.metal > $1.cu
}
emit ln2k_T256V8 layernorm_affine 2048 8192 1 256 8
emit ln2k_T384V8 layernorm_affine 2048 8192 1 384 8
emit ln2k_T512V4 layernorm_affine 2048 8192 1 512 4
emit ln2k_T512V8 layernorm_affine 2048 8192 1 512 8
emit ln2k_T1024V8 layernorm_affine 2048 8192 1 1024 8
emit ln2k_P2T512V8 layernorm_affine 2048 8192 2 512 8
emit ln768_T128V8 layernorm_affine 768 6144 1 128 8
emit rms2k_T256V8 rmsnorm 2048 8192 1 256 8
emit sm2k_T256V8 softmax 2048 8192 1 256 8
python3 variants.py
