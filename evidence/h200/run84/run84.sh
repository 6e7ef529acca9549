set -u
# run 84 (session 30): the final code. tile-gpu-new/ = npm run pack:gpu of main at 0cb3937; docs84/ =
# test/fixtures/programs/*.json and test/fixtures/ragged/*.json. The suite on CUDA; every document on CUDA at
# the automatic plan, V = 4 T = 32, and with the calibrated H200 record; then two width questions the
# session left open: the KV append per head at P = 2 V = 4 (the model's cheapest, which fewerPrograms passed
# over) against the automatic P = 1 V = 1, and the causal softmax at 2048x8192 cached at T = 128 against
# the automatic cached T = 64 and --no-cache-input.
root=$(pwd); o=/tmp/run84; mkdir -p $o; t0=$(date +%s); DL=${DEADLINE:-300}
left() { [ $(( $(date +%s) - t0 )) -lt $DL ]; }
snap() { cp $root/.gpu/run84.sh $o/ 2>/dev/null; tar -czf $OUT/run84.tgz -C /tmp run84; }
date > $o/progress.txt; snap
( cd .gpu && sh tile-gpu-new/setup.sh ) > $o/setup.txt 2>&1 || { snap; exit 1; }
echo "setup done +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
T=$root/.gpu/tile-gpu-new/tile
export TILE_CACHE_DIR=/tmp/tile-cache-84 TILE_NODE=$root/.gpu/tile-gpu-new/bin/node
D=$root/devices/nvidia-h200-calibrated.json
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $o/gpu.txt 2>&1
timeout -s KILL 60 $T suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $? +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
G=$root/.gpu/docs84
for f in $G/*.json; do
  for opts in "" "--vector 4 --threads 32" "--device $D"; do
    echo "== $(basename $f .json) $opts" >> $o/docs.txt
    timeout -s KILL 30 $T run $f --runtime cuda $opts >> $o/docs.txt 2>&1; echo "exit $?" >> $o/docs.txt
  done
done
echo "docs done +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
KV="--size H=32 --size T=4096 --size N=512 --size POS=1024 --size D=128"
CS="--size R=2048 --size C=8192"
for spec in "kv_append_heads|auto|$KV" "kv_append_heads|p2v4|$KV --programs-per-group 2 --threads 64 --vector 4" \
  "causal_softmax|auto|$CS" "causal_softmax|t128|$CS --threads 128" "causal_softmax|uncached|$CS --no-cache-input" "causal_softmax|t256|$CS --threads 256"; do
  left || break
  f=${spec%%|*}; rest=${spec#*|}; n=${rest%%|*}; opts=${rest#*|}
  s=$(date +%s); timeout -s KILL 50 $T time $G/$f.json $opts --runtime cuda --device $D --rounds 2 --samples 3 > $o/time-$f-$n.txt 2>&1
  echo "$f $n exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
done
left && timeout -s KILL 40 python3 - > $o/torch.txt 2>&1 <<'PY'
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
k = torch.randn(32, 4096, 128, device='cuda'); nw = torch.randn(32, 512, 128, device='cuda')
def app(): k[:, 1024:1536, :] = nw
print(f'32x512x128 append: torch k[:, 1024:1536] = new {t(app):.2f} us; bytes {2 * 32 * 512 * 128 * 4}')
PY
echo "end +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
cat $o/progress.txt; tail -1 $o/suite.txt
echo "docs: $(grep -c 'verdict: pass' $o/docs.txt) pass, $(grep -c '^exit 0' $o/docs.txt) exit 0, $(grep -c '^== ' $o/docs.txt) runs"
grep -B1 "^exit [1-9]" $o/docs.txt | head
for f in $o/time-*.txt; do echo "$(basename $f) $(grep -o '"medianUs": [0-9.]*' $f | head -1) $(grep -o '"validated": [a-z]*' $f | head -1) $(grep -o '"mapping": "[^"]*"' $f | head -1)"; done
cat $o/torch.txt
