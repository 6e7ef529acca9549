set -u
# run 35 (session 8): the final build on CUDA: suite, held-out fixtures, the element grid with --unroll,
# the structural fuzz (with the i32-reuse shape), element-grid --unroll variants, and a second
# PyTorch side by side at the two shapes with cells near 0.8
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run35; mkdir -p $o/heldout $o/evidence3
N=$root/.gpu/tile-gpu/bin/node; EV=$root/.gpu/tile-gpu/pkg/scripts/gpu-evidence.mjs; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-35
( cd tile-gpu/pkg && timeout 60 $T suite --runtime cuda ) > $o/suite.txt 2>&1; echo "suite exit $?" >> $o/suite.txt
python3 -c "import numpy as np; np.save('$o/X_edge.npy', np.array([[65519.992,1,2,3]],dtype=np.float32))"
{
for f in $root/test/fixtures/heldout/*.json $root/test/fixtures/extreme/grid_col_overflow.json; do
  n=$(basename $f .json)
  extra=""; [ $n = f16_store_edge ] && extra="--input X=$o/X_edge.npy"
  for opt in "" "--vector 4"; do
    v=$(timeout 60 $T run $f --runtime cuda $opt $extra --json 2>/dev/null | python3 -c "import json,sys
try:
  d=json.load(sys.stdin); print('pass' if d.get('passed') else 'FAIL', d.get('plan',{}).get('realization',''), (d.get('error') or '')[:120])
except Exception as e: print('no-json', e)")
    echo "$n [$opt] $v"
  done
done
for opt in "--unroll 3 --vector 1" "--unroll 2 --vector 4 --size C=1536" "--unroll 4 --vector 8 --size C=6144 --size R=64" "--unroll 5 --vector 4 --size C=100 --threads 32"; do
  for c in sigmoid_pair gelu_pair; do
    v=$(cd tile-gpu/pkg && timeout 60 $T run cases/$c.json --runtime cuda $opt 2>&1 | grep -E "verdict" | tr -d '\n')
    echo "$c [$opt] $v"
  done
done
} > $o/heldout/heldout.txt 2>&1
( cd tile-gpu/pkg && timeout 150 $N $EV admitted --docs 60 --seed 20261209 --runtime cuda ) > $o/admitted.txt 2>&1; echo "admitted exit $?" >> $o/admitted.txt
cp $root/.gpu/run35.sh $o/
tar -czf $OUT/run35.tgz -C /tmp run35
tail -2 $o/suite.txt
grep -c " pass " $o/heldout/heldout.txt; grep -v " pass " $o/heldout/heldout.txt
tail -4 $o/admitted.txt
