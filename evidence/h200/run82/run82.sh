set -u
# run 82 (session 30): npm run pack:gpu of main at 4692b8e (code f3a22d6), docs79/ docs80/ docs81/ from
# evidence/h200/session29-pending/. Run 81 (suite; session 29's ragged and programs documents on CUDA at three
# mappings; causal softmax cached vs --no-cache-input; triangular scale; PyTorch beside), then run 80's
# extra documents (commuted, strict, anti, offset, mixed, band) and session 28's run-79 documents, then the
# window softmax and 1024x4096 causal timing, each step skipped once DEADLINE seconds have passed.
root=$(pwd); o=/tmp/run82; mkdir -p $o; t0=$(date +%s); DL=${DEADLINE:-540}
left() { [ $(( $(date +%s) - t0 )) -lt $DL ]; }
snap() { cp $root/.gpu/run82.sh $o/ 2>/dev/null; tar -czf $OUT/run82.tgz -C /tmp run82; }
date > $o/progress.txt; snap
cd .gpu; ( sh tile-gpu/setup.sh ) > $o/setup.txt 2>&1 || { snap; exit 1; }
echo "setup done $(date) +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
T=$root/.gpu/tile-gpu/tile; export TILE_CACHE_DIR=/tmp/tile-cache-82 TILE_NODE=$root/.gpu/tile-gpu/bin/node
D=$root/devices/nvidia-h200-calibrated.json
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $o/gpu.txt 2>&1
timeout -s KILL 60 $T suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $? +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
G=$root/.gpu/docs81
for f in causal_softmax causal_softmax_zeros window_softmax upper_softmax tri_scale kv_append relu_if row_diff_next; do
  for opts in "" "--vector 8 --unroll 2 --threads 32" "--layout programs-on-lanes --programs-per-group 4 --threads 128"; do
    echo "== $f $opts" >> $o/docs.txt
    timeout -s KILL 30 $T run $G/$f.json --runtime cuda $opts >> $o/docs.txt 2>&1; echo "exit $?" >> $o/docs.txt
  done
done
echo "docs done $(date) +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
for spec in "causal_softmax 4096 4096|" "causal_softmax 4096 4096|--no-cache-input" "causal_softmax 2048 8192|" "causal_softmax 2048 8192|--no-cache-input" "tri_scale 4096 4096|"; do
  left || break
  a=${spec%%|*}; opts=${spec#*|}; set -- $a
  n=$1-$2x$3$(echo "$opts" | tr -d ' -')
  s=$(date +%s); timeout -s KILL 50 $T time $G/$1.json --size R=$2 --size C=$3 --runtime cuda --device $D --rounds 2 --samples 3 $opts > $o/time-$n.txt 2>&1
  echo "$n exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
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
for R, C in [(1024, 4096), (4096, 4096), (2048, 8192)]:
    x = torch.randn(R, C, device='cuda'); tril = torch.ones(R, C, dtype=torch.bool, device='cuda').tril()
    print(f'{R}x{C}: torch masked softmax {t(lambda: torch.softmax(x.masked_fill(~tril, float("-inf")), dim=1)):.2f} us; causal bytes {sum(2 * min(r + 1, C) for r in range(R)) * 4}')
    if R == C: print(f'{R}x{C}: torch tril(x) * 0.5 {t(lambda: torch.tril(x) * 0.5):.2f} us')
PY
echo "torch done $(date) +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
G=$root/.gpu/docs80
for f in commuted strict anti offset mixed band_scale band_read_from_zero; do
  left || break
  for opts in "" "--vector 8 --unroll 2 --threads 32" "--device $D --size R=1024 --size C=4096"; do
    echo "== $f $opts" >> $o/docs80.txt
    timeout -s KILL 30 $T run $G/$f.json --runtime cuda $opts >> $o/docs80.txt 2>&1; echo "exit $?" >> $o/docs80.txt
  done
done
echo "docs80 done $(date) +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
for spec in "rope_interleaved|" "rope_interleaved|--vector 4" "rope_interleaved|--vector 8 --unroll 2" "rope_interleaved|--device $D --size R=1024 --size H=2048 --size D=4096" \
  "pairs_overlap|" "thirds_uncovered|" "softmax_pairs|" "softmax_pairs|--vector 4" "softmax_pairs|--layout programs-on-lanes" "softmax_pairs|--device $D --size R=1024 --size C=2048 --size D=4096" "softmax_pairs_meet|" \
  "max_shift_flat_transposed|" "max_shift_flat_transposed|--vector 4" "max_shift_flat_transposed|--layout programs-on-lanes --programs-per-group 16 --threads 512" "max_shift_flat_short|" "causal_select|"; do
  left || break
  f=${spec%%|*}; opts=${spec#*|}
  echo "== $f $opts" >> $o/docs79.txt
  timeout -s KILL 30 $T run $G/$f.json --runtime cuda $opts >> $o/docs79.txt 2>&1; echo "exit $?" >> $o/docs79.txt
done
echo "docs79 done $(date) +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
for spec in "causal_softmax R=1024 C=4096|" "causal_softmax R=1024 C=4096|--no-cache-input" "window_softmax R=4096 K=2048 CK=6143|" "window_softmax R=4096 K=2048 CK=6143|--no-cache-input"; do
  left || break
  a=${spec%%|*}; opts=${spec#*|}; set -- $a; f=$1; shift
  sz=""; for kv in "$@"; do sz="$sz --size $kv"; done
  n=$f-$(echo "$*$opts" | tr -d ' =-')
  s=$(date +%s); timeout -s KILL 50 $T time $G/$f.json $sz --runtime cuda --device $D --rounds 2 --samples 3 $opts > $o/time-$n.txt 2>&1
  echo "$n exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
done
echo "end $(date) +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
cat $o/progress.txt; tail -2 $o/suite.txt
for f in docs docs80 docs79; do echo "$f: $(grep -c 'verdict: pass' $o/$f.txt 2>/dev/null) pass, $(grep -c '^exit 0' $o/$f.txt 2>/dev/null) exit 0, $(grep -c '^== ' $o/$f.txt 2>/dev/null) runs"; done
grep -B1 "^exit [1-9]" $o/docs*.txt | head -20
for f in $o/time-*.txt; do echo "$f $(grep -o '"medianUs": [0-9.]*' $f | head -1) $(grep -o '"validated": [a-z]*' $f | head -1)"; done
cat $o/torch.txt
