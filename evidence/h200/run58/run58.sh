set -u
# run 58 (session 20): main with the SIMD-group combine for programs on lanes and the cost model's
# loads-in-flight term for cached stripes: the lanes fixtures validated on CUDA (automatic and
# forced mappings: the shuffle path and P = 3), the suite on CUDA, the automatic plans of the
# column fixtures, the column sum's P/T sweep (lost in run 57), unrolled uncached loops, PyTorch's
# column reductions and the copy bandwidth in the same run
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run58; mkdir -p $o
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-58
D=$root/devices/nvidia-h200-calibrated.json
snap() { cp $root/.gpu/run58.sh $root/.gpu/list58-unroll.json $o/; tar -czf $OUT/run58.tgz -C /tmp run58; }
one() {
  f=$1; shift
  timeout 60 $T run $f --runtime cuda "$@" --json 2>/dev/null | python3 -c "import json,sys
try:
  d=json.load(sys.stdin); m=d.get('plan',{}).get('mapping',{}) or {}
  print('pass' if d.get('passed') else 'FAIL', d.get('plan',{}).get('realization',''), m.get('layout',''), 'P=%s S=%s T=%s V=%s cached=%s' % (m.get('P'), m.get('S'), m.get('T'), m.get('V'), m.get('cached')), (d.get('error') or '')[:100])
except Exception as e: print('no-json', e)"
}
{
for f in $root/.gpu/docs50/*.json; do
  n=$(basename $f .json)
  for opt in "" "--size R=1024 --size C=4096" "--size R=203 --size C=37 --layout programs-on-lanes --programs-per-group 8 --threads 256" "--size R=97 --size C=13 --layout programs-on-lanes --programs-per-group 4 --threads 256 --unroll 2" "--size R=61 --size C=10 --layout programs-on-lanes --programs-per-group 3 --threads 96"; do
    echo "$n [$opt] $(one $f --device $D $opt)"
  done
done
} > $o/fixtures.txt 2>&1
snap
( timeout 150 $T suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $?" >> $o/suite.txt )
snap
{
timeout 60 python3 $root/.gpu/col_torch.py copy 2>&1 | tail -1
timeout 100 $T time $root/.gpu/list54auto.json --runtime cuda --device $D -o $o/auto.json 2>&1 | tail -25
snap
for op in sum aminmax softmax; do for s in "1024 4096" "4096 4096" "8192 1024" "2048 8192" "16384 512"; do timeout 30 python3 $root/.gpu/col_torch.py $op $s 2>&1 | tail -1; done; done
snap
timeout 120 $T time $root/.gpu/list57-colsum.json --runtime cuda --device $D --rounds 2 --samples 3 -o $o/sweep-colsum.json 2>&1 | tail -2
snap
timeout 90 $T time $root/.gpu/list58-unroll.json --runtime cuda --device $D --rounds 2 --samples 3 -o $o/unroll.json 2>&1 | tail -2
timeout 60 python3 $root/.gpu/col_torch.py copy 2>&1 | tail -1
} > $o/timing.txt 2>&1
snap
