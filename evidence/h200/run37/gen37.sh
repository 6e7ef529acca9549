#!/bin/sh
# gen37.sh: softmax and minmax candidates as emitted (min/max with the sign word that orders -0
# below +0) and the same units without it (the emitted text of c44e3a9's parent: the stripe's
# tile_zs lines and the SIMD helpers' zero test removed), translated to the CUDA units the runtime
# compiles; manifest.json for time37.py.
set -eu
T=/work/main/shell-node/bin/tile.mjs
PRE=/work/main/shell-native/cuda/msl_prelude.cuh
emit() { # name case R C P threads vector
  node $T emit /work/main/cases/$2.json --size R=$3 --size C=$4 --device nvidia-h200-calibrated --programs-per-group $5 --threads $6 --vector $7 > $1.metal
  /tmp/tct $PRE < $1.metal > $1.cu
}
emit sm1k_T128V8 softmax 1024 4096 1 128 8
emit sm768_T192V8 softmax 768 6144 1 192 8
emit sm2k_T288V8 softmax 2048 8192 1 288 8
python3 variants37.py
