set -u
# run 90 (session 32): an in-place row keeps its stripe in registers (112fc58: x = f(x) after the
# reduces; softmax and LayerNorm in place). tile-gpu-90/ = npm run pack:gpu of main at 112fc58 (its core;
# packed from the working tree just before that commit); tile-gpu-88/ = the pack of f0b3db4 (before).
# docs90/: the red team's softmax_inplace and layernorm_inplace, and run 89's cross_entropy_gather.json
# (validated again with this pack). The suite on CUDA; the documents validated on CUDA at several mappings
# and sizes; then old and new timed beside PyTorch's softmax and layer_norm and the copy bandwidth.
root=$(pwd); o=/tmp/run90; mkdir -p $o; t0=$(date +%s); DL=${DEADLINE:-420}
left() { [ $(( $(date +%s) - t0 )) -lt $DL ]; }
snap() { cp $root/.gpu/run90.sh $o/ 2>/dev/null; tar -czf $OUT/run90.tgz -C /tmp run90; }
date > $o/progress.txt; snap
( cd .gpu && sh tile-gpu-88/setup.sh && sh tile-gpu-90/setup.sh ) > $o/setup.txt 2>&1 || { snap; exit 1; }
echo "setup done +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
OLD=$root/.gpu/tile-gpu-88/tile; NEW=$root/.gpu/tile-gpu-90/tile
export TILE_CACHE_DIR=/tmp/tile-cache-90 TILE_NODE=$root/.gpu/tile-gpu-90/bin/node
D=$root/devices/nvidia-h200-calibrated.json
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $o/gpu.txt 2>&1
timeout -s KILL 60 $NEW suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $? +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
F=$root/.gpu/docs90/cross_entropy_gather.json
for opts in "" "--vector 4" "--size R=33 --size C=1537"; do
  echo "== cross_entropy_gather $opts" >> $o/docs.txt
  timeout -s KILL 30 $NEW run $F --runtime cuda $opts >> $o/docs.txt 2>&1; echo "exit $?" >> $o/docs.txt
done
for g in softmax_inplace layernorm_inplace; do
  for opts in "" "--vector 4" "--threads 64" "--size R=33 --size C=1537" "--size R=64 --size C=4096 --device $D"; do
    echo "== $g $opts" >> $o/docs.txt
    timeout -s KILL 30 $NEW run $root/.gpu/docs90/$g.json --runtime cuda $opts >> $o/docs.txt 2>&1; echo "exit $?" >> $o/docs.txt
  done
done
echo "docs done +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
for spec in "softmax_inplace|R=4096 C=4096" "layernorm_inplace|R=4096 C=4096" "softmax_inplace|R=1024 C=4096"; do
  g=${spec%%|*}; sz=${spec#*|}; set -- $sz; n=$g-$(echo $sz | tr -dc '0-9 ' | tr ' ' 'x')
  for which in new old; do
    left || break
    T=$NEW; [ $which = old ] && T=$OLD
    s=$(date +%s); timeout -s KILL 60 $T time $root/.gpu/docs90/$g.json --size $1 --size $2 --runtime cuda --device $D --rounds 2 --samples 3 > $o/time-$n-$which.txt 2>&1
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
for R, C in [(4096, 4096), (1024, 4096)]:
    x = torch.randn(R, C, device='cuda')
    print(f'softmax {R}x{C}: torch.softmax(x, -1) {t(lambda: torch.softmax(x, -1)):.2f} us; F.layer_norm (no affine) {t(lambda: F.layer_norm(x, (C,))):.2f} us; bytes {2 * x.numel() * 4}')
PY
echo "end +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
cat $o/gpu.txt; cat $o/progress.txt; tail -1 $o/suite.txt
echo "docs: $(grep -c 'verdict: pass' $o/docs.txt) pass, $(grep -c '^exit 0' $o/docs.txt) exit 0, $(grep -c '^== ' $o/docs.txt) runs"
grep -B3 "^exit [1-9]" $o/docs.txt | head -20
for f in $o/time-*.txt; do echo "$(basename $f) $(grep -o '"medianUs": [0-9.]*' $f | head -1) $(grep -o '"validated": [a-z]*' $f | head -1) $(grep -o '"mapping": "[^"]*"' $f | head -1)"; done
cat $o/torch.txt
