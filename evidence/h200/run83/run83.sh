set -u
# run 83 (session 30): element nests flattened into programs (pipeline 5b, flattenProgramNest(doc, true),
# exprRange). tile-gpu/ = npm run pack:gpu of main at 4692b8e (session start), tile-gpu-new/ = the pack of
# the working tree with this session's change; docs83/ = test/fixtures/programs/{batched_tri_scale,
# kv_append_heads,causal_scale_4d,tri_scale}.json. The suite on CUDA (new), the documents on CUDA at three
# mappings (new), then each nest document timed old vs new at a large shape, beside PyTorch and a copy.
root=$(pwd); o=/tmp/run83; mkdir -p $o; t0=$(date +%s); DL=${DEADLINE:-400}
left() { [ $(( $(date +%s) - t0 )) -lt $DL ]; }
snap() { cp $root/.gpu/run83.sh $o/ 2>/dev/null; tar -czf $OUT/run83.tgz -C /tmp run83; }
date > $o/progress.txt; snap
( cd .gpu && sh tile-gpu/setup.sh && sh tile-gpu-new/setup.sh ) > $o/setup.txt 2>&1 || { snap; exit 1; }
echo "setup done +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
OLD=$root/.gpu/tile-gpu/tile; NEW=$root/.gpu/tile-gpu-new/tile
export TILE_CACHE_DIR=/tmp/tile-cache-83 TILE_NODE=$root/.gpu/tile-gpu-new/bin/node
D=$root/devices/nvidia-h200-calibrated.json
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $o/gpu.txt 2>&1
timeout -s KILL 60 $NEW suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $? +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
G=$root/.gpu/docs83
for f in batched_tri_scale kv_append_heads causal_scale_4d tri_scale; do
  for opts in "" "--vector 4 --threads 32" "--layout programs-on-lanes --programs-per-group 4 --threads 128" "--device $D"; do
    echo "== $f $opts" >> $o/docs.txt
    timeout -s KILL 30 $NEW run $G/$f.json --runtime cuda $opts >> $o/docs.txt 2>&1; echo "exit $?" >> $o/docs.txt
  done
done
echo "docs done +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
for spec in "batched_tri_scale B=8 R=2048 C=2048" "causal_scale_4d B=4 H=8 S=1024" "kv_append_heads H=32 T=4096 N=512 POS=1024 D=128"; do
  set -- $spec; f=$1; shift
  sz=""; for kv in "$@"; do sz="$sz --size $kv"; done
  for which in new old; do
    left || break
    T=$NEW; [ $which = old ] && T=$OLD
    s=$(date +%s); timeout -s KILL 60 $T time $G/$f.json $sz --runtime cuda --device $D --rounds 2 --samples 3 > $o/time-$f-$which.txt 2>&1
    echo "$f $which exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
    timeout -s KILL 30 $T plan $G/$f.json $sz --device $D > $o/plan-$f-$which.txt 2>&1
  done
done
left && timeout -s KILL 60 python3 - > $o/torch.txt 2>&1 <<'PY'
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
x = torch.randn(8, 2048, 2048, device='cuda'); print(f'8x2048x2048: torch tril(x) * 0.5 {t(lambda: torch.tril(x) * 0.5):.2f} us; triangle bytes {8 * sum(2 * (r + 1) for r in range(2048)) * 4}')
x = torch.randn(4, 8, 1024, 1024, device='cuda'); print(f'4x8x1024x1024: torch tril(x, -1)[..., 1:1023, :] * 0.125 {t(lambda: torch.tril(x, -1)[:, :, 1:1023, :] * 0.125):.2f} us; triangle bytes {32 * sum(2 * i for i in range(1, 1023)) * 4}')
k = torch.randn(32, 4096, 128, device='cuda'); nw = torch.randn(32, 512, 128, device='cuda')
def app(): k[:, 1024:1536, :] = nw
print(f'32x512x128 append: torch k[:, 1024:1536] = new {t(app):.2f} us; bytes {2 * 32 * 512 * 128 * 4}')
PY
echo "end +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
cat $o/progress.txt; tail -2 $o/suite.txt
echo "docs: $(grep -c 'verdict: pass' $o/docs.txt) pass, $(grep -c '^exit 0' $o/docs.txt) exit 0, $(grep -c '^== ' $o/docs.txt) runs"
grep -B1 "^exit [1-9]" $o/docs.txt | head
for f in $o/time-*.txt; do echo "$(basename $f) $(grep -o '"medianUs": [0-9.]*' $f | head -1) $(grep -o '"validated": [a-z]*' $f | head -1)"; done
for f in $o/plan-*.txt; do echo "$(basename $f): $(head -1 $f | cut -c1-160)"; done
cat $o/torch.txt
