set -u
# pack: npm run pack:gpu of main at 5865a0b (the working tree then, committed as 088372e..5865a0b)
# run 81 (session 29), short: the pack of main's working tree after session 29's changes (cached
# ragged rows, element documents as programs, causal rows with their zeros). The suite on CUDA;
# docs81/ (test/fixtures/ragged causal/window/upper/zeros, test/fixtures/programs) validated on
# CUDA; the causal softmax cached (automatic) against --no-cache-input at 4096x4096 and 2048x8192,
# and the triangular scale as programs at 4096x4096, beside PyTorch and a copy in the same call.
root=$(pwd); o=/tmp/run81; mkdir -p $o
snap() { cp $root/.gpu/run81.sh $o/ 2>/dev/null; tar -czf $OUT/run81.tgz -C /tmp run81; }
date > $o/progress.txt; snap
cd .gpu; ( sh tile-gpu/setup.sh ) > $o/setup.txt 2>&1 || { snap; exit 1; }
echo "setup done $(date)" >> $o/progress.txt; snap
T=$root/.gpu/tile-gpu/tile; export TILE_CACHE_DIR=/tmp/tile-cache-81 TILE_NODE=$root/.gpu/tile-gpu/bin/node
D=$root/devices/nvidia-h200-calibrated.json
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $o/gpu.txt 2>&1
timeout -s KILL 60 $T suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $?" >> $o/progress.txt; snap
G=$root/.gpu/docs81
for f in causal_softmax causal_softmax_zeros window_softmax upper_softmax tri_scale kv_append relu_if row_diff_next; do
  for opts in "" "--vector 8 --unroll 2 --threads 32" "--layout programs-on-lanes --programs-per-group 4 --threads 128"; do
    echo "== $f $opts" >> $o/docs.txt
    timeout -s KILL 30 $T run $G/$f.json --runtime cuda $opts >> $o/docs.txt 2>&1; echo "exit $?" >> $o/docs.txt
  done
done
echo "docs done $(date)" >> $o/progress.txt; snap
for spec in "causal_softmax 4096 4096|" "causal_softmax 4096 4096|--no-cache-input" "causal_softmax 2048 8192|" "causal_softmax 2048 8192|--no-cache-input" "tri_scale 4096 4096|"; do
  a=${spec%%|*}; opts=${spec#*|}; set -- $a
  n=$1-$2x$3$(echo "$opts" | tr -d ' -')
  s=$(date +%s); timeout -s KILL 50 $T time $G/$1.json --size R=$2 --size C=$3 --runtime cuda --device $D --rounds 2 --samples 3 $opts > $o/time-$n.txt 2>&1
  echo "$n exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
done
timeout -s KILL 60 python3 - > $o/torch.txt 2>&1 <<'PY'
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
for R, C in [(4096, 4096), (2048, 8192)]:
    x = torch.randn(R, C, device='cuda'); tril = torch.ones(R, C, dtype=torch.bool, device='cuda').tril()
    print(f'{R}x{C}: torch masked softmax {t(lambda: torch.softmax(x.masked_fill(~tril, float("-inf")), dim=1)):.2f} us; causal bytes {sum(2 * min(r + 1, C) for r in range(R)) * 4}')
    if R == C: print(f'{R}x{C}: torch tril(x) * 0.5 {t(lambda: torch.tril(x) * 0.5):.2f} us')
PY
echo "torch done $(date)" >> $o/progress.txt; snap
cat $o/progress.txt; tail -2 $o/suite.txt; grep -c "verdict: pass" $o/docs.txt; grep -c "^exit 0" $o/docs.txt
grep "^  [a-z-]*  " $o/docs.txt | cut -c1-90 | sort | uniq -c
for f in $o/time-*.txt; do echo "$f $(grep -o '"medianUs": [0-9.]*' $f | head -1) $(grep -o '"validated": [a-z]*' $f | head -1)"; done
cat $o/torch.txt
