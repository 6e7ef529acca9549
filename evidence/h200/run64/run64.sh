set -u
# run 64 (session 22): the row max+min in one pass with its stripe of X cached (a fill, then one
# loop over the registers) at P = 1, T 64..512, V 4/8, three shapes, beside --no-fuse (cached, two
# loops) and the row sum, from an experimental build (cacheCandidates counts a run member as a read)
root=$(pwd)
w=$1
o=/tmp/run64$w; mkdir -p $o
L=$root/.gpu/list64.json
snap() { cp $root/.gpu/run64.sh $L $o/; tar -czf $OUT/run64$w.tgz -C /tmp run64$w; }
date > $o/progress.txt; snap
cd .gpu
if [ ! -x tile-gpu/bin/node ] || [ ! -d tile-gpu/pkg/build/native ]; then
  ( time sh tile-gpu/setup.sh ) > $o/setup.txt 2>&1 || { tail -5 $o/setup.txt; snap; exit 1; }
fi
echo "setup done $(date)" >> $o/progress.txt; snap
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-62
D=$root/devices/nvidia-h200-calibrated.json
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
timeout 540 $T time $L --runtime cuda --device $D --rounds 2 --samples 3 -o $o/sweep-$w.json 2>&1
} > $o/timing.txt 2>&1
echo "all done $(date)" >> $o/progress.txt
snap
