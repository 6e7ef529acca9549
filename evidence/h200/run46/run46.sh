set -u
# run 46 (session 13): a program's stored scalar read back (S[r] = s, then X - S[r]) forwarded to
# the stored value: the held-out and verdict fixtures again, and the forwarded documents at several
# widths, on the CUDA runtime
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run46; mkdir -p $o
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-46
t0=$(date +%s)
one() { # file, options...: "verdict realization V error"
  f=$1; shift
  timeout 60 $T run $f --runtime cuda "$@" --json 2>/dev/null | python3 -c "import json,sys
try:
  d=json.load(sys.stdin); m=d.get('plan',{}).get('mapping',{}) or {}
  print('pass' if d.get('passed') else 'FAIL', d.get('plan',{}).get('realization',''), 'P=%s V=%s' % (m.get('P'), m.get('V')), d.get('checkedAfter') or '', (d.get('error') or '')[:100])
except Exception as e: print('no-json', e)"
}
{
for f in $root/test/fixtures/heldout/*.json $root/test/fixtures/verdicts/*.json; do
  n=$(basename $f .json)
  [ $n = f16_store_edge ] && continue
  echo "$n [] $(one $f)"
done
for f in $root/.gpu/docs46/*.json; do
  for opt in "" "--vector 1" "--vector 4" "--vector 8" "--programs-per-group 4" "--no-cache-input"; do echo "$(basename $f .json) [$opt] $(one $f $opt)"; done
done
} > $o/fixtures.txt 2>&1
echo "fixtures $(( $(date +%s) - t0 )) s" > $o/summary.txt
cp $root/.gpu/run46.sh $o/; cp -r $root/.gpu/docs46 $o/
tar -czf $OUT/run46.tgz -C /tmp run46
