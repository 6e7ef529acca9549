set -u
# run 77 (session 27): the suite on CUDA; this session's fused sibling reduces with another axis name
# and the f16 range-edge document validated on CUDA; the built-in reductions and pairs at
# 1024x4096, 4096x4096, 2048x8192 beside PyTorch eager and the copy bandwidth (cuda-evidence-3.sh's
# side by side, calibrated H200 record); the row max+min and row sum timed alone (one entry per call).
root=$(pwd); o=/tmp/run77; mkdir -p $o
snap() { cp $root/.gpu/run77.sh $o/ 2>/dev/null; tar -czf $OUT/run77.tgz -C /tmp run77; }
date > $o/progress.txt; snap
cd .gpu; ( sh tile-gpu/setup.sh ) > $o/setup.txt 2>&1 || { snap; exit 1; }
echo "setup done $(date)" >> $o/progress.txt; snap
T=$root/.gpu/tile-gpu/tile; export TILE_CACHE_DIR=/tmp/tile-cache-77 TILE_NODE=$root/.gpu/tile-gpu/bin/node
D=$root/devices/nvidia-h200-calibrated.json
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $o/gpu.txt 2>&1
timeout -s KILL 60 $T suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $?" >> $o/progress.txt; snap
for f in alpha_c alpha_d q_guarded_red sum_edge_f16; do
  for opts in "" "--threads 64" "--layout programs-on-lanes --programs-per-group 8" "--no-fuse"; do
    echo "== $f $opts" >> $o/docs.txt
    timeout -s KILL 30 $T run $root/.gpu/docs77/$f.json --runtime cuda $opts >> $o/docs.txt 2>&1; echo "exit $?" >> $o/docs.txt
  done
done
echo "docs done $(date)" >> $o/progress.txt; snap
cd tile-gpu/pkg
SHAPES="1024x4096 4096x4096 2048x8192" SKIP="smoke suite bench audit sweep" TORCH_COMPILE=0 TORCH_DEVICE=nvidia-h200-calibrated T_TORCH=260 BUDGET=300 \
  timeout -s KILL 310 bash scripts/cuda-evidence-3.sh $o/evidence3 > $o/driver.txt 2>&1
gzip -9n $o/evidence3/tile-times.json 2>/dev/null
echo "side by side done $(date)" >> $o/progress.txt; snap
for spec in "minmax 1024 4096" "minmax 4096 4096" "minmax 2048 8192" "sum 4096 4096"; do
  set -- $spec
  s=$(date +%s); timeout -s KILL 40 $T time $1 --size R=$2 --size C=$3 --runtime cuda --device $D --rounds 2 --samples 3 > $o/time-$1-$2x$3.txt 2>&1
  echo "$spec exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
done
timeout -s KILL 60 python3 - > $o/torch-minmax.txt 2>&1 <<'PY'
import torch
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
for R, C in [(1024, 4096), (4096, 4096), (2048, 8192)]:
    x = torch.randn(R, C, device='cuda')
    m = t(lambda: torch.aminmax(x, dim=1)); print(f'torch aminmax(x, dim=1) {R}x{C}: {m:.2f} us')
    s = t(lambda: torch.sum(x, 1)); print(f'torch sum(x, 1) {R}x{C}: {s:.2f} us')
PY
echo "torch done $(date)" >> $o/progress.txt; snap
cat $o/progress.txt; tail -3 $o/suite.txt; grep -c "verdict: pass" $o/docs.txt; grep -c "^exit 0" $o/docs.txt
grep "copy bandwidth" $o/evidence3/torch.md; grep "^| [a-z_]* (auto)\|(auto)" $o/evidence3/torch.md | cut -c1-200 | head -20
grep -h "median\|µs\|us" $o/time-*.txt | head -20; cat $o/torch-minmax.txt
