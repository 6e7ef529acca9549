set -u
# run 41 (session 11): the element grid's ragged last vector on CUDA: suite, held-out and verdict
# fixtures (default and --vector 4), the pairs at row lengths that are not multiples of 4 (validated
# and timed at V = 1, 4, 8), and this session's red-team documents
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run41; mkdir -p $o
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-41
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
  echo "$n [--vector 4] $(one $f --vector 4)"
done
for c in sigmoid_pair gelu_pair gelu_exact_pair gelu_add add; do
  for s in "R=37 C=1537" "R=64 C=4097" "R=5 C=3" "R=3 C=7"; do
    set -- $s
    for v in 4 8; do echo "$c [$s --vector $v] $(one $root/cases/$c.json --size $1 --size $2 --vector $v)"; done
    echo "$c [$s --vector 8 --unroll 2] $(one $root/cases/$c.json --size $1 --size $2 --vector 8 --unroll 2)"
  done
done
} > $o/fixtures.txt 2>&1
echo "fixtures $(( $(date +%s) - t0 )) s" >> $o/suite.txt
( cd tile-gpu/pkg && timeout 200 $T time $root/.gpu/list41.json --runtime cuda --rounds 4 -o $o/time41.json ) > $o/time41.txt 2>&1
echo "time exit $? $(( $(date +%s) - t0 )) s" >> $o/suite.txt
for f in $root/.gpu/docs41/*.json; do
  [ -f "$f" ] || continue
  [ $(( $(date +%s) - t0 )) -gt 540 ] && { echo "stopped at the time guard"; break; }
  echo "$(basename $f .json) [] $(one $f --seed 1)"
done > $o/docs.txt 2>&1
echo "docs $(( $(date +%s) - t0 )) s" >> $o/suite.txt
cp $root/.gpu/run41.sh $root/.gpu/list41.json $o/
tar -czf $OUT/run41.tgz -C /tmp run41
tail -5 $o/suite.txt
echo "fixtures: $(grep -c '\] pass' $o/fixtures.txt) pass of $(grep -c '' $o/fixtures.txt)"; grep -v '\] pass' $o/fixtures.txt
echo "docs: $(grep -c '\] pass' $o/docs.txt) pass of $(grep -c '' $o/docs.txt)"; grep -v '\] pass' $o/docs.txt | head -30
tail -40 $o/time41.txt
