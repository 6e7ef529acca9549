#!/bin/sh
# gen22.sh: emit the listed candidates (tile emit), translate each to the CUDA unit the CUDA
# runtime compiles (tile_cuda_translate), and write manifest.json for time22.py.
set -eu
T=/work/main/shell-node/bin/tile.mjs
PRE=/work/main/shell-native/cuda/msl_prelude.cuh
echo "[" > manifest.json
first=1
add() { # name case R C threads vector caps...
  name=$1; c=$2; R=$3; C=$4; th=$5; v=$6; shift 6
  node $T emit /work/main/cases/$c.json --size R=$R --size C=$C --device nvidia-h200-calibrated --threads $th --vector $v --programs-per-group 1 > $name.metal
  /tmp/tct $PRE < $name.metal > $name.cu
  groups=$(grep -o "groups=[0-9]*" $name.metal | head -1 | cut -d= -f2)
  entry=$(grep -o "tile_entry_[a-z_0-9]*" $name.cu | head -1)
  for cap in "$@"; do
    [ $first = 1 ] || echo "," >> manifest.json; first=0
    printf '{"name":"%s_cap%s","cu":"%s.cu","entry":"%s","case":"%s","R":%s,"C":%s,"T":%s,"groups":%s,"cap":%s}' $name $cap $name $entry $c $R $C $th $groups $cap >> manifest.json
  done
}
add ln768_T192V8 layernorm_affine 768 6144 192 8 0 56
add ln768_T128V8 layernorm_affine 768 6144 128 8 0 80
add ln768_T256V8 layernorm_affine 768 6144 256 8 0
add ln768_T288V8 layernorm_affine 768 6144 288 8 0
add ln768_T320V4 layernorm_affine 768 6144 320 4 0
add ln768_T512V4 layernorm_affine 768 6144 512 4 0
add rms768_T192V8 rmsnorm 768 6144 192 8 0
add sm768_T192V8 softmax 768 6144 192 8 0
add ln2k_T288V8 layernorm_affine 2048 8192 288 8 0 56
add ln2k_T256V8 layernorm_affine 2048 8192 256 8 0 48 40
add ln2k_T384V8 layernorm_affine 2048 8192 384 8 0 40
add ln2k_T512V4 layernorm_affine 2048 8192 512 4 0 40
add rms2k_T256V8 rmsnorm 2048 8192 256 8 0 48
add sm2k_T288V8 softmax 2048 8192 288 8 0 48
add sm2k_T256V8 softmax 2048 8192 256 8 0 48
add ln4k_T128V8 layernorm_affine 4096 4096 128 8 0 64
add ln4k_T256V8 layernorm_affine 4096 4096 256 8 0 40
echo "]" >> manifest.json
