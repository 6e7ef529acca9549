set -u
# run 45 (session 13): a read of the thread's own write fused (scratch buffers), the validation of
# in-place documents after the first dispatch too; suite, held-out and verdict fixtures, the red
# team's documents (s14) and the scratch-buffer documents at several widths, on the CUDA runtime
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run45; mkdir -p $o
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-45
t0=$(date +%s)
( cd tile-gpu/pkg && timeout 90 $T suite --runtime cuda ) > $o/suite.txt 2>&1; echo "suite exit $? $(( $(date +%s) - t0 )) s" >> $o/suite.txt
one() { # file, options...: "verdict realization V checkedAfter error"
  f=$1; shift
  timeout 60 $T run $f --runtime cuda "$@" --json 2>/dev/null | python3 -c "import json,sys
try:
  d=json.load(sys.stdin); m=d.get('plan',{}).get('mapping',{}) or {}
  print('pass' if d.get('passed') else 'FAIL', d.get('plan',{}).get('realization',''), 'V=%s' % m.get('V'), d.get('checkedAfter') or '', (d.get('error') or '')[:100])
except Exception as e: print('no-json', e)"
}
{
for f in $root/test/fixtures/heldout/*.json $root/test/fixtures/verdicts/*.json; do
  n=$(basename $f .json)
  [ $n = f16_store_edge ] && continue
  echo "$n [] $(one $f)"
done
for v in 1 4 8; do for f in $root/.gpu/docs45/t_scratch.json $root/.gpu/docs45/t_softmax_via_output.json $root/.gpu/docs45/inplace_softmax.json $root/.gpu/docs45/inplace_elem.json; do echo "$(basename $f .json) [--vector $v] $(one $f --vector $v)"; done; done
} > $o/fixtures.txt 2>&1
echo "fixtures $(( $(date +%s) - t0 )) s" >> $o/suite.txt
for f in $root/.gpu/docs45/*.json; do
  [ $(( $(date +%s) - t0 )) -gt 540 ] && { echo "stopped at the time guard"; break; }
  echo "$(basename $f .json) [] $(one $f --seed 1)"
done > $o/docs.txt 2>&1
echo "docs $(( $(date +%s) - t0 )) s" >> $o/suite.txt
cp $root/.gpu/run45.sh $o/
tar -czf $OUT/run45.tgz -C /tmp run45
