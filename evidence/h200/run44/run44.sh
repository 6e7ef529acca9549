set -u
# run 44 (session 11): the update in place read and written packed (vectorAccessesOfGrid), after the
# partitioned stores): suite, held-out and verdict fixtures, the red team's documents and the
# partitioned outputs (a rotary embedding's halves) at several widths
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run44; mkdir -p $o
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-44
t0=$(date +%s)
( cd tile-gpu/pkg && timeout 90 $T suite --runtime cuda ) > $o/suite.txt 2>&1; echo "suite exit $? $(( $(date +%s) - t0 )) s" >> $o/suite.txt
one() { # file, options...: "verdict realization V notes"
  f=$1; shift
  timeout 60 $T run $f --runtime cuda "$@" --json 2>/dev/null | python3 -c "import json,sys
try:
  d=json.load(sys.stdin); o=d.get('outputs') or []
  b=sum(x.get('withinRoundingBound',0) or 0 for x in o); i=sum(x.get('illConditioned',0) or 0 for x in o)
  m=d.get('plan',{}).get('mapping',{}) or {}
  print('pass' if d.get('passed') else 'FAIL', d.get('plan',{}).get('realization',''), 'V=%s' % m.get('V'), 'bound=%d ill=%d' % (b, i), (d.get('error') or '')[:100])
except Exception as e: print('no-json', e)"
}
{
for f in $root/test/fixtures/heldout/*.json $root/test/fixtures/verdicts/*.json; do
  n=$(basename $f .json)
  [ $n = f16_store_edge ] && continue
  echo "$n [] $(one $f)"
done
for v in 1 4 8; do for f in $root/.gpu/docs43/s3_rope_two_stores.json $root/.gpu/docs43/s3_split_two_halves.json $root/.gpu/inplace42.json; do echo "$(basename $f .json) [--vector $v] $(one $f --vector $v)"; done; done
} > $o/fixtures.txt 2>&1
echo "fixtures $(( $(date +%s) - t0 )) s" >> $o/suite.txt
for f in $root/.gpu/docs43/*.json; do
  [ $(( $(date +%s) - t0 )) -gt 540 ] && { echo "stopped at the time guard"; break; }
  echo "$(basename $f .json) [] $(one $f --seed 1)"
done > $o/docs.txt 2>&1
echo "docs $(( $(date +%s) - t0 )) s" >> $o/suite.txt
( cd tile-gpu/pkg && timeout 120 $T time $root/.gpu/list42.json --runtime cuda --rounds 4 -o $o/time44.json ) > $o/time44.txt 2>&1
echo "time exit $? $(( $(date +%s) - t0 )) s" >> $o/suite.txt
cp $root/.gpu/run44.sh $root/.gpu/list42.json $root/.gpu/inplace42.json $o/
tar -czf $OUT/run44.tgz -C /tmp run44
tail -5 $o/suite.txt
echo "fixtures: $(grep -c '\] pass' $o/fixtures.txt) pass of $(grep -c '' $o/fixtures.txt)"; grep -v '\] pass' $o/fixtures.txt
echo "docs: $(grep -c '\] pass' $o/docs.txt) pass of $(grep -c '' $o/docs.txt)"; grep -v '\] pass' $o/docs.txt | head -30
cat $o/time44.txt | tail -12
