set -u
# run 65 (session 22): a sibling run's buffer counts one read per member for caching (the row and
# column max+min cache X where the stripe fits). The suite on CUDA; the lanes fixtures and the row
# minmax validated on CUDA (automatic, forced mappings, --no-fuse); every programs-on-lanes P/T of
# the column max+min at five shapes, cached where it fits and uncached, and the row minmax's
# automatic plans; the copy bandwidth in the same run
root=$(pwd)
o=/tmp/run65; mkdir -p $o
L=$root/.gpu/list65.json
snap() { cp $root/.gpu/run65.sh $L $o/; tar -czf $OUT/run65.tgz -C /tmp run65; }
date > $o/progress.txt; snap
cd .gpu
if [ ! -x tile-gpu/bin/node ] || [ ! -d tile-gpu/pkg/build/native ]; then
  ( time sh tile-gpu/setup.sh ) > $o/setup.txt 2>&1 || { tail -5 $o/setup.txt; snap; exit 1; }
fi
echo "setup done $(date)" >> $o/progress.txt; snap
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-65
D=$root/devices/nvidia-h200-calibrated.json
( timeout 150 $T suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $?" >> $o/suite.txt )
echo "suite done $(date)" >> $o/progress.txt; snap
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
  for opt in "" "--size R=1024 --size C=4096" "--size R=1024 --size C=4096 --no-fuse" "--size R=203 --size C=37 --layout programs-on-lanes --programs-per-group 8 --threads 256" "--size R=97 --size C=13 --layout programs-on-lanes --programs-per-group 4 --threads 256 --unroll 2" "--size R=61 --size C=10 --layout programs-on-lanes --programs-per-group 3 --threads 96"; do
    echo "$n [$opt] $(one $f --device $D $opt)"
  done
done
f=$root/.gpu/docs61/minmax.json
for opt in "" "--no-fuse" "--vector 4 --threads 256" "--vector 8 --unroll 3 --programs-per-group 2 --threads 512" "--size R=1024 --size C=4096" "--size R=1024 --size C=4096 --threads 128 --programs-per-group 1" "--size R=5 --size C=1023 --vector 4 --threads 64" "--size R=33 --size C=4099 --threads 64 --programs-per-group 1"; do
  echo "minmax [$opt] $(one $f --device $D $opt)"
done
} > $o/fixtures.txt 2>&1
echo "fixtures done $(date)" >> $o/progress.txt; snap
{
timeout 60 python3 -c "
import torch
a = torch.empty(1 << 28, device='cuda'); b = torch.empty_like(a)
for _ in range(5): b.copy_(a)
torch.cuda.synchronize(); s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
ts = []
for _ in range(7):
    s.record()
    for _ in range(20): b.copy_(a)
    e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e) * 1000 / 20)
ts.sort(); print(f'copy 1 GiB: median {ts[3]:.1f} us; {2 * a.numel() * 4 / ts[3] / 1e3:.1f} GB/s (read + write)')
"
timeout 300 $T time $L --runtime cuda --device $D --rounds 2 --samples 3 -o $o/sweep-colmax.json 2>&1
} > $o/timing.txt 2>&1
echo "all done $(date)" >> $o/progress.txt
snap
