set -u
# run 73 = run 71 reordered (correctness first, then timings), then run 72 with the time left; run 71 (session 24): a reduction over the middle axis of a 3-D buffer (test/fixtures/lanes/midsum.json,
# Y[b, c] = sum over r of X[b, r, c]) planned before and after the cost model's decoded-index
# contiguity, timed on CUDA in one run with both H200 records, beside PyTorch's x.sum(dim=1); the
# midsum and midsoftmax (a softmax over the middle axis, now cooperative) kernels validated on CUDA at the new plans and forced mappings; the suite on CUDA.
root=$(pwd)
o=/tmp/run71; mkdir -p $o
snap() { cp $root/.gpu/run71.sh $root/.gpu/run73.sh $root/.gpu/list71-*.json $o/ 2>/dev/null; tar -czf $OUT/run71.tgz -C /tmp run71; }
date > $o/progress.txt; snap
cd .gpu
( time sh tile-gpu/setup.sh ) > $o/setup.txt 2>&1 || { tail -5 $o/setup.txt; snap; exit 1; }
echo "setup done $(date)" >> $o/progress.txt; snap
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-71
D0=$(date +%s); left() { echo $(( ${DEADLINE:-480} - ($(date +%s) - D0) )); }
( timeout 100 $T suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $?" >> $o/suite.txt )
echo "suite done $(date)" >> $o/progress.txt; snap
{
for f in $root/.gpu/docs71/midsum.json $root/.gpu/docs71/midsoftmax.json; do
for opt in "" "--size B=8 --size R=1024 --size C=4096 --device $root/devices/nvidia-h200-calibrated.json" "--size B=8 --size R=16384 --size C=512 --device $root/devices/nvidia-h200.json" "--size B=3 --size R=37 --size C=70 --layout programs-on-lanes --programs-per-group 32 --threads 1024" "--size B=7 --size R=100 --size C=64 --layout programs-on-lanes --programs-per-group 16 --threads 512 --unroll 4" "--size B=7 --size R=100 --size C=64 --layout workers-on-lanes --vector 4"; do
  echo "$(basename $f) [$opt] $(timeout 60 $T run $f --runtime cuda $opt 2>&1 | grep -E 'cooperative|serial|verdict|error' | tr '\n' ' ')"
done
done
for f in $root/.gpu/docs71/heldout/*.json $root/.gpu/docs73/*.json; do
  echo "$(basename $f) $(timeout 60 $T run $f --runtime cuda 2>&1 | grep -E 'cooperative|serial|fused|verdict|error' | tr '\n' ' ')"
done
} > $o/fixtures.txt 2>&1
echo "fixtures done $(date)" >> $o/progress.txt; snap
for d in nvidia-h200-calibrated nvidia-h200; do
  timeout 120 $T time $root/.gpu/list71-$d.json --runtime cuda --device $root/devices/$d.json --rounds 2 --samples 3 -o $o/time71-$d.json > $o/timing-$d.txt 2>&1
  echo "time $d exit $? $(date)" >> $o/progress.txt; snap
done
timeout 90 python3 - > $o/torch.txt 2>&1 <<'PY'
import torch
def t(f, n=20):
    for _ in range(5): f()
    torch.cuda.synchronize(); s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True); ts = []
    for _ in range(7):
        s.record()
        for _ in range(n): f()
        e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e) * 1000 / n)
    ts.sort(); return ts[3]
a = torch.empty(1 << 28, device='cuda'); b = torch.empty_like(a)
c = t(lambda: b.copy_(a)); print(f'copy 1 GiB: median {c:.1f} us; {2 * a.numel() * 4 / c / 1e3:.1f} GB/s (read + write)')
for B, R, C in [(8, 1024, 4096), (8, 4096, 1024), (8, 16384, 512), (32, 512, 1024), (64, 512, 256)]:
    x = torch.randn(B, R, C, device='cuda'); y = torch.empty(B, C, device='cuda')
    m = t(lambda: torch.sum(x, 1, out=y)); print(f'torch sum(x, 1) {B}x{R}x{C}: {m:.2f} us; {x.numel() * 4 / m / 1e3:.1f} GB/s read')
    m2 = t(lambda: torch.softmax(x, 1))
    print(f'torch softmax(x, 1) {B}x{R}x{C}: {m2:.2f} us; {2 * x.numel() * 4 / m2 / 1e3:.1f} GB/s read + write')
PY
echo "torch done $(date)" >> $o/progress.txt; snap
r=$(left); echo "left for run72: $r s" >> $o/progress.txt; snap
[ $r -gt 40 ] && (cd $root && sh .gpu/run72.sh $((r-10)))
echo "all done $(date)" >> $o/progress.txt; snap
