set -u
# run 30 (session 7): this session's fixes on CUDA, then the calibrated record beside PyTorch
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run30; mkdir -p $o/evidence3 $o/heldout
T=$root/.gpu/tile-gpu/tile
# 1. every held-out fixture of test/fixtures/heldout on the CUDA runtime (default plan and V=4
#    where the row allows), each validated against the FP64 oracle with guards
python3 -c "import numpy as np; np.save('$o/X_edge.npy', np.array([[65519.992,1,2,3]],dtype=np.float32))"
{
for f in $root/test/fixtures/heldout/*.json; do
  n=$(basename $f .json)
  extra=""; [ $n = f16_store_edge ] && extra="--input X=$o/X_edge.npy"
  for opt in "" "--vector 4"; do
    v=$(timeout 60 $T run $f --runtime cuda $opt $extra --json 2>/dev/null | python3 -c "import json,sys
try:
  d=json.load(sys.stdin); print('pass' if d.get('passed') else 'FAIL', d.get('plan',{}).get('realization',''), d.get('device',''), (d.get('error') or '')[:120])
except Exception as e: print('no-json', e)")
    echo "$n [$opt] $v"
  done
done
} > $o/heldout/heldout.txt 2>&1
# 2. the suite on CUDA, then the automatic plans beside PyTorch at six shapes (as run 29)
SHAPES="1024x4096 768x6144 4096x4096 2048x8192 256x3072 37x1537" SKIP="smoke bench audit sweep" TORCH_COMPILE=0 \
  TORCH_DEVICE=nvidia-h200-calibrated T_TORCH=230 BUDGET=320 bash tile-gpu/pkg/scripts/cuda-evidence-3.sh $o/evidence3 > $o/driver.txt 2>&1
gzip -9n $o/evidence3/tile-times.json 2>/dev/null
cp $0 $o/ 2>/dev/null
tar -czf $OUT/run30.tgz -C /tmp run30
cat $o/heldout/heldout.txt | awk '{print $NF=="" ? $0 : $0}' | grep -c " pass "
grep -v " pass " $o/heldout/heldout.txt
cat $o/evidence3/steps.txt | grep -v skipped
grep -h "passed" $o/evidence3/suite.txt | tail -2
grep "copy bandwidth" $o/evidence3/torch.md; grep "^| [a-z_]* (auto)" $o/evidence3/torch.md | cut -c1-200
