set -u
# run 43 (session 11): after the second red team's fixes (in-place indices by loop level,
# partitioned stores): suite, held-out and verdict fixtures, the red team's documents and the
# partitioned outputs (a rotary embedding's halves) at several widths
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run43; mkdir -p $o
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-43
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
cp $root/.gpu/run43.sh $o/
tar -czf $OUT/run43.tgz -C /tmp run43
tail -5 $o/suite.txt
echo "fixtures: $(grep -c '\] pass' $o/fixtures.txt) pass of $(grep -c '' $o/fixtures.txt)"; grep -v '\] pass' $o/fixtures.txt
echo "docs: $(grep -c '\] pass' $o/docs.txt) pass of $(grep -c '' $o/docs.txt)"; grep -v '\] pass' $o/docs.txt | head -30
