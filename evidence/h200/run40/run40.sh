set -u
# run 40 (session 10): the final validation of the session on CUDA (no excuse from an infinite estimate, select spanning both operands): suite, held-out and verdict fixtures,
# softmax backward at several seeds and plans, and the red team's 107 model documents
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run40; mkdir -p $o
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-40
t0=$(date +%s)
( cd tile-gpu/pkg && timeout 90 $T suite --runtime cuda ) > $o/suite.txt 2>&1; echo "suite exit $? $(( $(date +%s) - t0 )) s" >> $o/suite.txt
one() { # file, options...: "name [options] verdict realization notes"
  f=$1; shift
  timeout 60 $T run $f --runtime cuda "$@" --json 2>/dev/null | python3 -c "import json,sys
try:
  d=json.load(sys.stdin); o=d.get('outputs') or []
  b=sum(x.get('withinRoundingBound',0) or 0 for x in o); i=sum(x.get('illConditioned',0) or 0 for x in o)
  print('pass' if d.get('passed') else 'FAIL', d.get('plan',{}).get('realization',''), 'bound=%d ill=%d' % (b, i), (d.get('error') or '')[:100])
except Exception as e: print('no-json', e)"
}
{
for f in $root/test/fixtures/heldout/*.json $root/test/fixtures/verdicts/*.json; do
  n=$(basename $f .json)
  [ $n = f16_store_edge ] && continue
  echo "$n [] $(one $f)"
done
F=$root/test/fixtures/verdicts/softmax_backward_input_y.json
for s in 1 2 3 4 5 6 7 8; do echo "softmax_backward_input_y [seed $s] $(one $F --seed $s)"; done
for opt in "--vector 4" "--threads 32" "--programs-per-group 2" "--unroll 2" "--no-cache-input" "--threads 64 --vector 8"; do
  echo "softmax_backward_input_y [$opt] $(one $F --seed 1 $opt)"
done
echo "softmax_backward_input_y [R=64 C=4096] $(one $F --seed 1 --size R=64 --size C=4096)"
echo "softmax_backward_input_y [R=512 C=8192] $(one $F --seed 1 --size R=512 --size C=8192)"
} > $o/fixtures.txt 2>&1
echo "fixtures $(( $(date +%s) - t0 )) s" >> $o/suite.txt
for f in $root/.gpu/models39/*.json; do
  [ $(( $(date +%s) - t0 )) -gt 420 ] && { echo "stopped at the time guard"; break; }
  echo "$(basename $f .json) [] $(one $f --seed 1)"
done > $o/models.txt 2>&1
echo "models $(( $(date +%s) - t0 )) s" >> $o/suite.txt
for f in $root/.gpu/cancel40/*.json; do
  [ $(( $(date +%s) - t0 )) -gt 540 ] && { echo "stopped at the time guard"; break; }
  echo "$(basename $f .json) [] $(one $f --seed 1)"
done > $o/cancel.txt 2>&1
echo "cancel $(( $(date +%s) - t0 )) s" >> $o/suite.txt
cp $root/.gpu/run40.sh $o/
tar -czf $OUT/run40.tgz -C /tmp run40
tail -4 $o/suite.txt
echo "fixtures: $(grep -c '\] pass' $o/fixtures.txt) pass"; grep -v '\] pass' $o/fixtures.txt
echo "models: $(grep -c '\] pass' $o/models.txt) pass"; grep -v '\] pass' $o/models.txt
echo "cancel: $(grep -c '\] pass' $o/cancel.txt) pass of $(grep -c '' $o/cancel.txt)"; grep -v '\] pass' $o/cancel.txt
grep -c 'bound=[1-9]' $o/fixtures.txt $o/models.txt $o/cancel.txt
