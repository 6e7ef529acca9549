set -u
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
export TILE_CACHE_DIR=/tmp/c26
for s in "768 6144" "2048 8192"; do set -- $s
  tile-gpu/tile run tile-gpu/pkg/cases/layernorm_affine.json --size R=$1 --size C=$2 --runtime cuda --device nvidia-h200-calibrated 2>&1 | tail -3
done
mkdir -p $OUT/c26; cp /tmp/c26/cuda/*.cu /tmp/c26/cuda/*.metal $OUT/c26/ 2>/dev/null
for f in /tmp/c26/cuda/*.cubin; do echo "== $f"; cuobjdump --dump-resource-usage $f | grep -o "Function [a-zA-Z_]*\|REG:[0-9]*\|STACK:[0-9]*"; done
cd exp25 && cp /tmp/c26/cuda/*.cu . && for f in /tmp/c26/cuda/*.cu; do b=$(basename $f); sed -n 1,3p $b | head -2; done
python3 regs26.py 2>&1 | tee $OUT/regs26.txt
