#!/bin/sh
# gen27.sh: the calibrated record's automatic plans (and a few alternatives), emitted, translated as
# the CUDA runtime does, compiled to cubins by nvcc 13.0 with the runtime's options (the same
# register counts as the runtime's NVRTC: LayerNorm 768x6144 T=128 V=8 gives 81 with both), once
# as they are and once with --maxrregcount set to the most registers that keep the plan's
# groups per SM: floor8(65536 / (ceil32(T) * groupsPerCore)).
set -eu
T=/work/main/shell-node/bin/tile.mjs
PRE=/work/main/shell-native/cuda/msl_prelude.cuh
NV="nvcc -cubin -arch=sm_90 -std=c++17 -ftz=false -prec-div=true -prec-sqrt=true -fmad=true -lineinfo"
echo "[" > manifest.json; first=1
one() { # name case R C [extra tile options]
  name=$1; c=$2; R=$3; C=$4; shift 4
  node $T emit /work/main/cases/$c.json --size R=$R --size C=$C --device nvidia-h200-calibrated "$@" > $name.metal
  gpc=$(node $T plan /work/main/cases/$c.json --size R=$R --size C=$C --device nvidia-h200-calibrated "$@" --json | node -e 'const j=JSON.parse(require("fs").readFileSync(0,"utf8"));const p=j.plans?j.plans[0]:j;console.log(p.cost.terms.groupsPerCore)')
  /tmp/tct $PRE < $name.metal > $name.cu
  th=$(grep -o " T=[0-9]*" $name.metal | head -1 | cut -d= -f2); groups=$(grep -o "groups=[0-9]*" $name.metal | head -1 | cut -d= -f2)
  cap=$(( 65536 / (((th + 31) / 32) * 32 * gpc) / 8 * 8 )); [ $cap -gt 255 ] && cap=255
  nat=$($NV -o $name.cubin $name.cu --resource-usage 2>&1 | grep -o "Used [0-9]* registers" | grep -o "[0-9]*")
  entry=$(grep -o "tile_entry_[a-z_0-9]*" $name.cu | head -1)
  [ $first = 1 ] || echo "," >> manifest.json; first=0
  printf '{"name":"%s","cubin":"%s.cubin","entry":"%s","case":"%s","R":%s,"C":%s,"T":%s,"groups":%s,"gpc":%s,"cap":0,"regs":%s}' $name $name $entry $c $R $C $th $groups $gpc $nat >> manifest.json
  if [ $nat -gt $cap ]; then
    capped=$($NV -maxrregcount=$cap -o ${name}_cap.cubin $name.cu --resource-usage 2>&1 | grep -o "Used [0-9]* registers\|[0-9]* bytes spill stores" | tr '\n' ' ')
    printf ',\n{"name":"%s_cap%s","cubin":"%s_cap.cubin","entry":"%s","case":"%s","R":%s,"C":%s,"T":%s,"groups":%s,"gpc":%s,"cap":%s,"regs":"%s"}' $name $cap $name $entry $c $R $C $th $groups $gpc $cap "$capped" >> manifest.json
  fi
  echo "$name T=$th gpc=$gpc natural=$nat cap=$cap ${capped:-}"; capped=""
}
for s in 1024x4096 768x6144 4096x4096 2048x8192; do R=${s%x*}; C=${s#*x}
  for c in layernorm_affine rmsnorm softmax layernorm; do one ${c}_$s $c $R $C; done
done
one softmax_2048x8192_T256V8 softmax 2048 8192 --programs-per-group 1 --threads 256 --vector 8
one layernorm_768x6144_T256V8 layernorm_affine 768 6144 --programs-per-group 1 --threads 256 --vector 8
one layernorm_768x6144_T320V4 layernorm_affine 768 6144 --programs-per-group 1 --threads 320 --vector 4
echo "]" >> manifest.json
