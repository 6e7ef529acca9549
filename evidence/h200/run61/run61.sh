set -u
# run 61 (session 21): sibling reduces in one pass (core/analysis/siblings.ts): the column and row
# max+min read X once. The lanes fixtures and the row minmax validated on CUDA (automatic, forced
# mappings, --no-fuse), the suite on CUDA, the automatic plans of the column fixtures and of the row
# minmax, fused and --no-fuse in the same run, PyTorch's aminmax (both dims) and sum, and the copy
# bandwidth in the same run
root=$(pwd)
o=/tmp/run61; mkdir -p $o
snap() { cp $root/.gpu/run61.sh $root/.gpu/list61auto.json $root/.gpu/t61.py $o/; tar -czf $OUT/run61.tgz -C /tmp run61; }
date > $o/progress.txt; snap
cd .gpu
( time sh tile-gpu/setup.sh ) > $o/setup.txt 2>&1 || { tail -5 $o/setup.txt; snap; exit 1; }
echo "setup done $(date)" >> $o/progress.txt
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-61
D=$root/devices/nvidia-h200-calibrated.json
one() {
  f=$1; shift
  timeout 60 $T run $f --runtime cuda "$@" --json 2>/dev/null | python3 -c "import json,sys
try:
  d=json.load(sys.stdin); m=d.get('plan',{}).get('mapping',{}) or {}
  print('pass' if d.get('passed') else 'FAIL', d.get('plan',{}).get('realization',''), m.get('layout',''), 'P=%s S=%s T=%s V=%s cached=%s' % (m.get('P'), m.get('S'), m.get('T'), m.get('V'), m.get('cached')), (d.get('error') or '')[:100])
except Exception as e: print('no-json', e)"
}
{
for f in $root/.gpu/docs61/col*.json; do
  n=$(basename $f .json)
  for opt in "" "--size R=1024 --size C=4096" "--size R=1024 --size C=4096 --no-fuse" "--size R=203 --size C=37 --layout programs-on-lanes --programs-per-group 8 --threads 256" "--size R=97 --size C=13 --layout programs-on-lanes --programs-per-group 4 --threads 256 --unroll 2" "--size R=61 --size C=10 --layout programs-on-lanes --programs-per-group 3 --threads 96" "--size R=203 --size C=7 --layout workers-on-lanes --vector 4 --threads 64"; do
    echo "$n [$opt] $(one $f --device $D $opt)"
  done
done
f=$root/.gpu/docs61/minmax.json
for opt in "" "--no-fuse" "--vector 4 --threads 256" "--vector 8 --unroll 3 --programs-per-group 2 --threads 512" "--size R=1024 --size C=4096" "--size R=5 --size C=1023 --vector 4 --threads 64"; do
  echo "minmax [$opt] $(one $f --device $D $opt)"
done
} > $o/fixtures.txt 2>&1
echo "fixtures done $(date)" >> $o/progress.txt; snap
( timeout 150 $T suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $?" >> $o/suite.txt )
echo "suite done $(date)" >> $o/progress.txt; snap
{
timeout 140 $T time $root/.gpu/list61auto.json --runtime cuda --device $D -o $o/auto.json 2>&1 | tail -32
echo "auto done $(date)" >> $o/progress.txt; snap
timeout 120 python3 $root/.gpu/t61.py aminmax:0 aminmax:1 sum:0 2>&1 | tail -16
} > $o/timing.txt 2>&1
echo "all done $(date)" >> $o/progress.txt
snap
