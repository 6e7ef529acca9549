set -u
# run 63 (session 22): programs on lanes at P = 2 and 4 (more groups where columns are few) for the four
# column fixtures at three shapes, beside the automatic plan; the row max+min with one SIMD group per
# program (W = 32, P = 1..8), the automatic plan and --no-fuse, and the row sum; copy bandwidth
root=$(pwd)
w=$1
o=/tmp/run63$w; mkdir -p $o
L=$root/.gpu/list63.json
snap() { cp $root/.gpu/run63.sh $L $o/; tar -czf $OUT/run63$w.tgz -C /tmp run63$w; }
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
