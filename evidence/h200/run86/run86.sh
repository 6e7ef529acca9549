set -u
# run 86 (session 31): main at e169d83 (tile-gpu-new/ = npm run pack:gpu), tile-gpu/ = the pack of 4692b8e
# (session 30's start). The suite on CUDA; run 85's documents (docs85/: heldout group_norm_cols and
# nest_scaled_store, the red team's qk_norm_heads) at four mappings; the group norm and per-head RMSNorm
# timed (new; old for the per-head norm) beside PyTorch; the built-in table at 1024x4096, 4096x4096,
# 2048x8192 beside PyTorch eager and the copy bandwidth (cuda-evidence-3.sh's side by side); row max+min
# and row sum timed alone.
root=$(pwd); o=/tmp/run86; mkdir -p $o; t0=$(date +%s); DL=${DEADLINE:-540}
left() { [ $(( $(date +%s) - t0 )) -lt $DL ]; }
snap() { cp $root/.gpu/run86.sh $o/ 2>/dev/null; tar -czf $OUT/run86.tgz -C /tmp run86; }
date > $o/progress.txt; snap
( cd .gpu && sh tile-gpu/setup.sh && sh tile-gpu-new/setup.sh ) > $o/setup.txt 2>&1 || { snap; exit 1; }
echo "setup done +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
OLD=$root/.gpu/tile-gpu/tile; NEW=$root/.gpu/tile-gpu-new/tile
export TILE_CACHE_DIR=/tmp/tile-cache-86 TILE_NODE=$root/.gpu/tile-gpu-new/bin/node
D=$root/devices/nvidia-h200-calibrated.json
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $o/gpu.txt 2>&1
timeout -s KILL 60 $NEW suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $? +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
G=$root/.gpu/docs85
for f in group_norm_cols qk_norm_heads nest_scaled_store; do
  for opts in "" "--vector 4 --threads 32" "--layout programs-on-lanes --programs-per-group 4 --threads 128" "--device $D"; do
    echo "== $f $opts" >> $o/docs.txt
    timeout -s KILL 30 $NEW run $G/$f.json --runtime cuda $opts >> $o/docs.txt 2>&1; echo "exit $?" >> $o/docs.txt
  done
done
echo "docs done +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
for spec in "qk_norm_heads|new|--size T=4096 --size H=32 --size D=128 --size HD=4096" "qk_norm_heads|old|--size T=4096 --size H=32 --size D=128 --size HD=4096" "group_norm_cols|new|--size N=32 --size G=32 --size K=16384 --size GK=524288"; do
  left || break
  f=${spec%%|*}; rest=${spec#*|}; which=${rest%%|*}; sz=${rest#*|}
  T=$NEW; [ $which = old ] && T=$OLD
  s=$(date +%s); timeout -s KILL 60 $T time $G/$f.json $sz --runtime cuda --device $D --rounds 2 --samples 3 > $o/time-$f-$which.txt 2>&1
  echo "$f $which exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
  timeout -s KILL 30 $T plan $G/$f.json $sz --device $D > $o/plan-$f-$which.txt 2>&1
done
if left; then
  ( cd .gpu/tile-gpu-new/pkg && SHAPES="1024x4096 4096x4096 2048x8192" SKIP="smoke suite bench audit sweep" TORCH_COMPILE=0 TORCH_DEVICE=nvidia-h200-calibrated T_TORCH=240 BUDGET=260 \
    timeout -s KILL 270 bash scripts/cuda-evidence-3.sh $o/evidence3 > $o/driver.txt 2>&1 )
  gzip -9n $o/evidence3/tile-times.json 2>/dev/null
  echo "side by side done +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
fi
for spec in "minmax 1024 4096" "minmax 4096 4096" "minmax 2048 8192" "sum 4096 4096"; do
  left || break
  set -- $spec
  s=$(date +%s); timeout -s KILL 40 $NEW time $1 --size R=$2 --size C=$3 --runtime cuda --device $D --rounds 2 --samples 3 > $o/time-$1-$2x$3.txt 2>&1
  echo "$spec exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
done
left && timeout -s KILL 60 python3 - > $o/torch.txt 2>&1 <<'PY'
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
x = torch.randn(32, 32 * 16384, device='cuda')
print(f'group norm 32 x (32 groups of 16384): F.group_norm(x.view(32, 32, 16384), 32) {t(lambda: F.group_norm(x.view(32, 32, 16384), 32)):.2f} us; bytes {2 * x.numel() * 4}')
q = torch.randn(4096, 32 * 128, device='cuda')
def rms(): v = q.view(4096, 32, 128); return (v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + 1e-6)).view(4096, 4096)
print(f'qk rmsnorm 4096 x (32 heads of 128): eager {t(rms):.2f} us; F.rms_norm {t(lambda: F.rms_norm(q.view(4096, 32, 128), (128,), eps=1e-6)):.2f} us; bytes {2 * q.numel() * 4}')
for R, C in [(1024, 4096), (4096, 4096), (2048, 8192)]:
    x = torch.randn(R, C, device='cuda')
    m = t(lambda: torch.aminmax(x, dim=1)); print(f'torch aminmax(x, dim=1) {R}x{C}: {m:.2f} us')
    s = t(lambda: torch.sum(x, 1)); print(f'torch sum(x, 1) {R}x{C}: {s:.2f} us')
PY
echo "end +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
cat $o/gpu.txt; cat $o/progress.txt; tail -1 $o/suite.txt
echo "docs: $(grep -c 'verdict: pass' $o/docs.txt) pass, $(grep -c '^exit 0' $o/docs.txt) exit 0, $(grep -c '^== ' $o/docs.txt) runs"
grep -B1 "^exit [1-9]" $o/docs.txt | head
for f in $o/time-*.txt; do echo "$(basename $f) $(grep -o '"medianUs": [0-9.]*' $f | head -1) $(grep -o '"validated": [a-z]*' $f | head -1) $(grep -o '"mapping": "[^"]*"' $f | head -1)"; done
grep "copy bandwidth" $o/evidence3/torch.md; grep "(auto)" $o/evidence3/torch.md | cut -c1-200 | head -20
cat $o/torch.txt
