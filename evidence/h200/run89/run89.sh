set -u
# run 89 (session 32): a cached buffer also read outside every distributed loop (a6afd3d): the
# cross-entropy Loss[r] = m + log(s) - X[r, Lab[r]] keeps X in registers. tile-gpu-89/ = npm run pack:gpu
# of main at a6afd3d; tile-gpu-88/ = the pack of f0b3db4 (before: X read from memory in both reductions).
# docs89/cross_entropy_gather.json = test/fixtures/ragged/cross_entropy_gather.json. The suite on CUDA; the
# document validated on CUDA at several mappings and sizes; then old, new and new --no-cache-input timed
# beside PyTorch's F.cross_entropy(reduction='none') and the copy bandwidth.
root=$(pwd); o=/tmp/run89; mkdir -p $o; t0=$(date +%s); DL=${DEADLINE:-420}
left() { [ $(( $(date +%s) - t0 )) -lt $DL ]; }
snap() { cp $root/.gpu/run89.sh $o/ 2>/dev/null; tar -czf $OUT/run89.tgz -C /tmp run89; }
date > $o/progress.txt; snap
( cd .gpu && sh tile-gpu-88/setup.sh && sh tile-gpu-89/setup.sh ) > $o/setup.txt 2>&1 || { snap; exit 1; }
echo "setup done +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
OLD=$root/.gpu/tile-gpu-88/tile; NEW=$root/.gpu/tile-gpu-89/tile
export TILE_CACHE_DIR=/tmp/tile-cache-89 TILE_NODE=$root/.gpu/tile-gpu-89/bin/node
D=$root/devices/nvidia-h200-calibrated.json
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $o/gpu.txt 2>&1
timeout -s KILL 60 $NEW suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $? +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
F=$root/.gpu/docs89/cross_entropy_gather.json
for opts in "" "--vector 4" "--vector 8 --unroll 2" "--threads 64" "--programs-per-group 4" "--no-cache-input" "--device $D" "--size R=33 --size C=1537" "--size R=7 --size C=32000 --device $D"; do
  echo "== cross_entropy_gather $opts" >> $o/docs.txt
  timeout -s KILL 30 $NEW run $F --runtime cuda $opts >> $o/docs.txt 2>&1; echo "exit $?" >> $o/docs.txt
done
echo "docs done +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
for sz in "R=16384 C=4096" "R=8192 C=2048" "R=4096 C=32000"; do
  set -- $sz; n=$(echo $sz | tr -dc '0-9x ' | tr ' ' 'x')
  for which in new old nocache; do
    left || break
    T=$NEW; X=""; [ $which = old ] && T=$OLD; [ $which = nocache ] && X="--no-cache-input"
    s=$(date +%s); timeout -s KILL 60 $T time $F --size $1 --size $2 $X --runtime cuda --device $D --rounds 2 --samples 3 > $o/time-$n-$which.txt 2>&1
    echo "$n $which exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
  done
done
left && timeout -s KILL 90 python3 - > $o/torch.txt 2>&1 <<'PY'
import torch
import torch.nn.functional as F
def t(f, n=20):
    for _ in range(5): f()
    torch.cuda.synchronize(); s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True); ts = []
    for _ in range(7):
        s.record()
        for _ in range(n): f()
        e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e) * 1000 / n)
    ts.sort(); return ts[3]
print(torch.cuda.get_device_name())
a = torch.empty(1 << 28, device='cuda'); b = torch.empty_like(a)
c = t(lambda: b.copy_(a)); print(f'copy 1 GiB: median {c:.1f} us; {2 * a.numel() * 4 / c / 1e3:.1f} GB/s (read + write)')
for R, C in [(16384, 4096), (8192, 2048), (4096, 32000)]:
    x = torch.randn(R, C, device='cuda'); lab = torch.randint(0, C, (R,), device='cuda')
    def eager():
        m = x.max(1, keepdim=True).values; return (m.squeeze(1) + torch.log(torch.exp(x - m).sum(1))) - x.gather(1, lab[:, None]).squeeze(1)
    print(f'cross entropy {R}x{C}: F.cross_entropy(reduction=none) {t(lambda: F.cross_entropy(x, lab, reduction="none")):.2f} us; eager max/exp/sum/gather {t(eager):.2f} us; bytes {x.numel() * 4 + R * 8}')
PY
echo "end +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
cat $o/gpu.txt; cat $o/progress.txt; tail -1 $o/suite.txt
echo "docs: $(grep -c 'verdict: pass' $o/docs.txt) pass, $(grep -c '^exit 0' $o/docs.txt) exit 0, $(grep -c '^== ' $o/docs.txt) runs"
grep -B3 "^exit [1-9]" $o/docs.txt | head -20
for f in $o/time-*.txt; do echo "$(basename $f) $(grep -o '"medianUs": [0-9.]*' $f | head -1) $(grep -o '"validated": [a-z]*' $f | head -1) $(grep -o '"mapping": "[^"]*"' $f | head -1)"; done
cat $o/torch.txt
