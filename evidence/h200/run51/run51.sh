set -u
# run 51 (session 18): the stripe-overlap term (run 50's narrow shapes): the lanes fixtures
# validated on CUDA at the H200 record's automatic plans, and the column sum's and column
# softmax's automatic plans timed at five shapes
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run51; mkdir -p $o
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-51
D=$root/devices/nvidia-h200-calibrated.json
t0=$(date +%s)
( cd tile-gpu/pkg && timeout 120 $T suite --runtime cuda ) > $o/suite.txt 2>&1; echo "suite exit $? $(( $(date +%s) - t0 )) s" >> $o/log.txt
one() {
  f=$1; shift
  timeout 60 $T run $f --runtime cuda "$@" --json 2>/dev/null | python3 -c "import json,sys
try:
  d=json.load(sys.stdin); m=d.get('plan',{}).get('mapping',{}) or {}
  print('pass' if d.get('passed') else 'FAIL', d.get('plan',{}).get('realization',''), m.get('layout',''), 'P=%s S=%s T=%s V=%s' % (m.get('P'), m.get('S'), m.get('T'), m.get('V')), (d.get('error') or '')[:100])
except Exception as e: print('no-json', e)"
}
{
for f in $root/.gpu/docs50/*.json; do
  n=$(basename $f .json)
  for opt in "" "--size R=4096 --size C=4096" "--size R=1024 --size C=4096" "--size R=8192 --size C=1024" "--size R=16384 --size C=512"; do
    echo "$n [$opt] $(one $f --device $D $opt)"
  done
done
} > $o/fixtures.txt 2>&1
echo "fixtures $(( $(date +%s) - t0 )) s" >> $o/log.txt
{
timeout 60 python3 $root/.gpu/col_torch.py copy 2>&1 | tail -1
for s in "1024 4096" "4096 4096" "8192 1024" "2048 8192" "16384 512"; do
  set -- $s
  timeout 60 $T time $root/.gpu/docs50/colsum.json --runtime cuda --device $D --size R=$1 --size C=$2 -o $o/time-colsum-auto-$1x$2.json 2>&1 | tail -1
  timeout 60 python3 $root/.gpu/col_torch.py sum $1 $2 2>&1 | tail -1
  timeout 60 $T time $root/.gpu/docs50/colsoftmax.json --runtime cuda --device $D --size R=$1 --size C=$2 -o $o/time-colsoftmax-auto-$1x$2.json 2>&1 | tail -1
  for k in colmax colmean_scale; do
    timeout 60 $T time $root/.gpu/docs50/$k.json --runtime cuda --device $D --size R=$1 --size C=$2 -o $o/time-$k-auto-$1x$2.json 2>&1 | tail -1
  done
done
timeout 60 python3 $root/.gpu/col_torch.py copy 2>&1 | tail -1
} > $o/colsum.txt 2>&1
echo "timing $(( $(date +%s) - t0 )) s" >> $o/log.txt
cp $root/.gpu/run51.sh $root/.gpu/col_torch.py $o/
tar -czf $OUT/run51.tgz -C /tmp run51
