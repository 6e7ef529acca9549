set -u
# run 48 (session 17): programs on lanes for column reductions (issue 16): the suite on CUDA, the
# lanes fixtures and held-out documents validated, their exports, racecheck on the lanes kernels,
# column sum / softmax timed beside PyTorch and the copy bandwidth, and a sweep at 4096x4096
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run48; mkdir -p $o
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-48
t0=$(date +%s)
( cd tile-gpu/pkg && timeout 90 $T suite --runtime cuda ) > $o/suite.txt 2>&1; echo "suite exit $? $(( $(date +%s) - t0 )) s" >> $o/suite.txt
one() {
  f=$1; shift
  timeout 60 $T run $f --runtime cuda "$@" --json 2>/dev/null | python3 -c "import json,sys
try:
  d=json.load(sys.stdin); m=d.get('plan',{}).get('mapping',{}) or {}
  print('pass' if d.get('passed') else 'FAIL', d.get('plan',{}).get('realization',''), m.get('layout',''), 'P=%s T=%s V=%s' % (m.get('P'), m.get('T'), m.get('V')), (d.get('error') or '')[:100])
except Exception as e: print('no-json', e)"
}
{
for f in $root/.gpu/docs48/*.json; do
  n=$(basename $f .json)
  for opt in "" "--layout programs-on-lanes --programs-per-group 3 --threads 96" "--layout programs-on-lanes --programs-per-group 32 --threads 1024 --unroll 2" "--layout workers-on-lanes" "--size R=4096 --size C=4096"; do
    echo "$n [$opt] $(one $f $opt)"
  done
done
for f in $root/test/fixtures/heldout/*.json $root/evidence/h200/run47/docs47/*.json; do
  n=$(basename $f .json)
  [ $n = f16_store_edge ] && continue
  echo "$n [] $(one $f)"
done
} > $o/fixtures.txt 2>&1
echo "fixtures $(( $(date +%s) - t0 )) s" >> $o/suite.txt
( cd tile-gpu/pkg && timeout 90 $N scripts/gpu-evidence.mjs exports --runtime cuda --docs $root/.gpu/docs48 ) > $o/exports.txt 2>&1; echo "exports exit $? $(( $(date +%s) - t0 )) s" >> $o/suite.txt
{
for f in $root/.gpu/docs48/*.json; do
  echo "== $(basename $f) racecheck"; timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $T run $f --runtime cuda 2>&1 | tail -3; echo "exit $?"
done
f=$root/.gpu/docs48/colsoftmax.json
echo "== colsoftmax memcheck"; timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $T run $f --runtime cuda 2>&1 | tail -3
echo "== colsoftmax synccheck"; timeout 60 compute-sanitizer --tool synccheck --error-exitcode 9 $T run $f --runtime cuda 2>&1 | tail -3
} > $o/sanitize.txt 2>&1
echo "sanitize $(( $(date +%s) - t0 )) s" >> $o/suite.txt
D=$root/devices/nvidia-h200-calibrated.json
{
timeout 60 python3 $root/.gpu/col_torch.py copy 2>&1 | tail -1
for s in "1024 4096" "4096 4096" "8192 1024" "2048 8192" "16384 512"; do
  set -- $s
  f=$root/.gpu/docs48/colsum.json
  timeout 60 $T time $f --runtime cuda --device $D --size R=$1 --size C=$2 -o $o/time-colsum-auto-$1x$2.json 2>&1 | tail -1
  timeout 60 $T time $f --runtime cuda --device $D --size R=$1 --size C=$2 --layout workers-on-lanes -o $o/time-colsum-workers-$1x$2.json 2>&1 | tail -1
  timeout 60 python3 $root/.gpu/col_torch.py sum $1 $2 2>&1 | tail -1
  f=$root/.gpu/docs48/colsoftmax.json
  timeout 60 $T time $f --runtime cuda --device $D --size R=$1 --size C=$2 -o $o/time-colsoftmax-auto-$1x$2.json 2>&1 | tail -1
  timeout 60 $T time $f --runtime cuda --device $D --size R=$1 --size C=$2 --layout workers-on-lanes -o $o/time-colsoftmax-workers-$1x$2.json 2>&1 | tail -1
  timeout 60 python3 $root/.gpu/col_torch.py softmax $1 $2 2>&1 | tail -1
done
timeout 60 python3 $root/.gpu/col_torch.py copy 2>&1 | tail -1
} > $o/colsum.txt 2>&1
echo "colsum $(( $(date +%s) - t0 )) s" >> $o/suite.txt
( cd tile-gpu/pkg && timeout 120 $T sweep $root/.gpu/docs48/colsum.json --runtime cuda --device $D --size R=4096 --size C=4096 --max-candidates 16 -o $o/sweep-colsum-4096 ) > $o/sweep.txt 2>&1; echo "sweep exit $? $(( $(date +%s) - t0 )) s" >> $o/suite.txt
gzip -9n $o/sweep-colsum-4096/sweep.json 2>/dev/null
cp $root/.gpu/run48.sh $root/.gpu/col_torch.py $o/; cp -r $root/.gpu/docs48 $o/
tar -czf $OUT/run48.tgz -C /tmp run48
