set -u
# run 38 (session 9): the final build of session 9 on CUDA: suite, held-out fixtures, fuzz, PyTorch side by side
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run38; mkdir -p $o/heldout $o/evidence3
N=$root/.gpu/tile-gpu/bin/node; EV=$root/.gpu/tile-gpu/pkg/scripts/gpu-evidence.mjs; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-38
t0=$(date +%s)
( cd tile-gpu/pkg && timeout 60 $T suite --runtime cuda ) > $o/suite.txt 2>&1; echo "suite exit $? $(( $(date +%s) - t0 )) s" >> $o/suite.txt
python3 -c "import numpy as np; np.save('$o/X_edge.npy', np.array([[65519.992,1,2,3]],dtype=np.float32))"
{
for f in $root/test/fixtures/heldout/*.json; do
  n=$(basename $f .json)
  extra=""; [ $n = f16_store_edge ] && extra="--input X=$o/X_edge.npy"
  opts='"" "--vector 4"'
  for opt in "" "--vector 4"; do
    v=$(timeout 60 $T run $f --runtime cuda $opt $extra --json 2>/dev/null | python3 -c "import json,sys
try:
  d=json.load(sys.stdin); print('pass' if d.get('passed') else 'FAIL', d.get('plan',{}).get('realization',''), (d.get('error') or '')[:120])
except Exception as e: print('no-json', e)")
    echo "$n [$opt] $v"
  done
done
for opt in "--vector 8 --programs-per-group 2" "--no-cache-input" "--programs-per-group 1 --threads 32" "--programs-per-group 3" "--unroll 2" "--size C=4099 --size R=64"; do
  v=$(timeout 60 $T run $root/test/fixtures/heldout/signed_zero_minmax.json --runtime cuda $opt 2>&1 | grep -E "verdict" | tr -d '\n')
  echo "signed_zero_minmax [$opt] $v"
done
for c in minmax softmax softmax_f16; do
  v=$(cd tile-gpu/pkg && timeout 60 $T run cases/$c.json --runtime cuda --size R=64 --size C=4096 2>&1 | grep -E "verdict" | tr -d '\n')
  echo "$c [R=64 C=4096] $v"
done
} > $o/heldout/heldout.txt 2>&1
echo "heldout $(( $(date +%s) - t0 )) s" >> $o/suite.txt
( cd tile-gpu/pkg && timeout 120 $N $EV admitted --docs 40 --seed 20261213 --runtime cuda ) > $o/admitted.txt 2>&1; echo "admitted exit $?" >> $o/admitted.txt
echo "admitted $(( $(date +%s) - t0 )) s" >> $o/suite.txt
SHAPES="1024x4096 768x6144 2048x8192" SKIP="smoke bench audit sweep suite" TORCH_COMPILE=0 \
  TORCH_DEVICE=nvidia-h200-calibrated T_TORCH=200 BUDGET=240 bash tile-gpu/pkg/scripts/cuda-evidence-3.sh $o/evidence3 > $o/driver.txt 2>&1
gzip -9n $o/evidence3/tile-times.json 2>/dev/null
echo "evidence $(( $(date +%s) - t0 )) s" >> $o/suite.txt
cp $root/.gpu/run38.sh $o/
tar -czf $OUT/run38.tgz -C /tmp run38
tail -3 $o/suite.txt
grep -c " pass \|verdict: pass" $o/heldout/heldout.txt; grep -v " pass \|verdict: pass" $o/heldout/heldout.txt
tail -4 $o/admitted.txt
grep "copy bandwidth" $o/evidence3/torch.md; grep "^| [a-z_]* (auto)" $o/evidence3/torch.md | cut -c1-220
