set -u
# run 50 (session 18): the programs-on-lanes cost terms of run 49 (partial lines, the combine's
# threadgroup reads): the lanes fixtures validated on CUDA at the H200 record's new automatic plans,
# the column sum's automatic plan at five shapes beside torch.sum(x, 0), the column softmax's, and
# at the two narrow shapes every P/S the solver scores for programs on lanes
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run50; mkdir -p $o
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-50
D=$root/devices/nvidia-h200-calibrated.json
t0=$(date +%s)
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
done
for s in "8192 1024" "16384 512"; do
  set -- $s
  for pt in "8 256" "8 512" "8 768" "8 1024" "16 512" "16 1024" "32 1024"; do
    timeout 30 $T time $root/.gpu/docs50/colsum.json --runtime cuda --device $D --size R=$1 --size C=$2 --layout programs-on-lanes --programs-per-group ${pt% *} --threads ${pt#* } -o $o/t-$1x$2-${pt% *}-${pt#* }.json 2>&1 | tail -1
  done
done
timeout 60 python3 $root/.gpu/col_torch.py copy 2>&1 | tail -1
} > $o/colsum.txt 2>&1
echo "timing $(( $(date +%s) - t0 )) s" >> $o/log.txt
cp $root/.gpu/run50.sh $root/.gpu/col_torch.py $o/
tar -czf $OUT/run50.tgz -C /tmp run50
