set -u
# run 53 (session 18, commit ceb5c7f): a stripe loop that stores no longer overlaps the memory time:
# the lanes fixtures validated at the new automatic plans, the column softmax and column centring
# timed at their automatic plans at five shapes, and the column softmax over every P/S at the two
# shapes run 52 did not sweep
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run53; mkdir -p $o
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-53
D=$root/devices/nvidia-h200-calibrated.json
one() {
  f=$1; shift
  timeout 60 $T run $f --runtime cuda "$@" --json 2>/dev/null | python3 -c "import json,sys
try:
  d=json.load(sys.stdin); m=d.get('plan',{}).get('mapping',{}) or {}
  print('pass' if d.get('passed') else 'FAIL', d.get('plan',{}).get('realization',''), m.get('layout',''), 'P=%s S=%s T=%s V=%s' % (m.get('P'), m.get('S'), m.get('T'), m.get('V')), (d.get('error') or '')[:100])
except Exception as e: print('no-json', e)"
}
{
for f in $root/.gpu/docs50/colsoftmax.json $root/.gpu/docs50/colmean_scale.json; do
  n=$(basename $f .json)
  for opt in "" "--size R=4096 --size C=4096" "--size R=1024 --size C=4096" "--size R=8192 --size C=1024" "--size R=16384 --size C=512" "--size R=2048 --size C=8192"; do
    echo "$n [$opt] $(one $f --device $D $opt)"
  done
done
} > $o/fixtures.txt 2>&1
{
timeout 60 python3 $root/.gpu/col_torch.py copy 2>&1 | tail -1
for s in "1024 4096" "4096 4096" "8192 1024" "2048 8192" "16384 512"; do
  set -- $s
  for k in colsoftmax colmean_scale; do
    timeout 60 $T time $root/.gpu/docs50/$k.json --runtime cuda --device $D --size R=$1 --size C=$2 -o $o/time-$k-auto-$1x$2.json 2>&1 | tail -1
  done
done
for s in "1024 4096" "2048 8192"; do
  set -- $s
  for pt in "8 256" "8 512" "8 768" "8 1024" "16 512" "16 1024" "32 1024"; do
    timeout 30 $T time $root/.gpu/docs50/colsoftmax.json --runtime cuda --device $D --size R=$1 --size C=$2 --layout programs-on-lanes --programs-per-group ${pt% *} --threads ${pt#* } -o $o/t-$1x$2-${pt% *}-${pt#* }.json 2>&1 | tail -1
  done
done
timeout 60 python3 $root/.gpu/col_torch.py copy 2>&1 | tail -1
} > $o/timing.txt 2>&1
cp $root/.gpu/run53.sh $o/
tar -czf $OUT/run53.tgz -C /tmp run53
