set -u
# run 47 (session 15): this session's changes on CUDA (MLX export of scratch buffers, bounds through
# dependent loop extents), held-out style documents, and column reductions timed (cooperative
# plan, serial program, PyTorch)
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run47; mkdir -p $o
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-47
t0=$(date +%s)
( cd tile-gpu/pkg && timeout 90 $T suite --runtime cuda ) > $o/suite.txt 2>&1; echo "suite exit $? $(( $(date +%s) - t0 )) s" >> $o/suite.txt
one() {
  f=$1; shift
  timeout 60 $T run $f --runtime cuda "$@" --json 2>/dev/null | python3 -c "import json,sys
try:
  d=json.load(sys.stdin); m=d.get('plan',{}).get('mapping',{}) or {}
  print('pass' if d.get('passed') else 'FAIL', d.get('plan',{}).get('realization',''), 'V=%s' % m.get('V'), d.get('checkedAfter') or '', (d.get('error') or '')[:100])
except Exception as e: print('no-json', e)"
}
{
for f in $root/test/fixtures/heldout/*.json $root/test/fixtures/verdicts/*.json $root/test/fixtures/export/*_*.json $root/.gpu/docs47/*.json; do
  n=$(basename $f .json)
  [ $n = f16_store_edge ] && continue
  echo "$n [] $(one $f)"
done
} > $o/fixtures.txt 2>&1
echo "fixtures $(( $(date +%s) - t0 )) s" >> $o/suite.txt
( cd tile-gpu/pkg && timeout 120 $N scripts/gpu-evidence.mjs exports --runtime cuda --docs $root/test/fixtures/export ) > $o/exports.txt 2>&1; echo "exports exit $? $(( $(date +%s) - t0 )) s" >> $o/suite.txt
D=$root/devices/nvidia-h200-calibrated.json
{
for s in "1024 4096" "4096 4096" "8192 1024"; do
  set -- $s
  for f in $root/.gpu/colsum.json $root/.gpu/colsum_serial.json; do
    timeout 60 $T time $f --runtime cuda --device $D --size R=$1 --size C=$2 -o $o/time-$(basename $f .json)-$1x$2.json 2>&1 | tail -1
  done
  timeout 60 python3 $root/.gpu/colsum_torch.py $1 $2 2>&1 | tail -1
done
} > $o/colsum.txt 2>&1
echo "colsum $(( $(date +%s) - t0 )) s" >> $o/suite.txt
( cd tile-gpu/pkg && timeout 150 $T sweep $root/.gpu/colsum.json --runtime cuda --device $D --size R=4096 --size C=4096 --max-candidates 16 -o $o/sweep-colsum-4096 ) > $o/sweep.txt 2>&1; echo "sweep exit $? $(( $(date +%s) - t0 )) s" >> $o/suite.txt
gzip -9n $o/sweep-colsum-4096/sweep.json 2>/dev/null
cp $root/.gpu/run47.sh $root/.gpu/colsum*.json $root/.gpu/colsum_torch.py $o/; cp -r $root/.gpu/docs47 $o/
tar -czf $OUT/run47.tgz -C /tmp run47
