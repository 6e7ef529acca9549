set -u
# pack: npm run pack:gpu of main at 885edf6; docs80/ = test/fixtures/ragged/*.json, five causal variants and session 28 run 79 documents
# run 80 (session 29): a causal row kept in registers (private-ownership over a range that varies
# by program). The suite on CUDA; the ragged fixtures and five variants (docs80/) validated on CUDA
# at several mappings, cached; the causal softmax timed cached (automatic) against
# --no-cache-input (session 28's kernel) at three shapes, beside PyTorch's masked softmax and a copy.
root=$(pwd); o=/tmp/run80; mkdir -p $o
snap() { cp $root/.gpu/run80.sh $o/ 2>/dev/null; tar -czf $OUT/run80.tgz -C /tmp run80; }
date > $o/progress.txt; snap
cd .gpu; ( sh tile-gpu/setup.sh ) > $o/setup.txt 2>&1 || { snap; exit 1; }
echo "setup done $(date)" >> $o/progress.txt; snap
T=$root/.gpu/tile-gpu/tile; export TILE_CACHE_DIR=/tmp/tile-cache-80 TILE_NODE=$root/.gpu/tile-gpu/bin/node
D=$root/devices/nvidia-h200-calibrated.json
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $o/gpu.txt 2>&1
timeout -s KILL 60 $T suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $?" >> $o/progress.txt; snap
G=$root/.gpu/docs80
for f in causal_softmax window_softmax commuted strict anti offset mixed band_scale band_read_from_zero; do
  BIG="--size R=1024 --size C=4096"; [ $f = window_softmax ] && BIG="--size R=1024 --size K=2048 --size CK=3071"
  for opts in "" "--vector 8 --unroll 2 --threads 32" "--layout programs-on-lanes --programs-per-group 4 --threads 128" "--device $D $BIG"; do
    echo "== $f $opts" >> $o/docs.txt
    timeout -s KILL 30 $T run $G/$f.json --runtime cuda $opts >> $o/docs.txt 2>&1; echo "exit $?" >> $o/docs.txt
  done
done
echo "docs done $(date)" >> $o/progress.txt; snap
# session 28's documents (run 79, never run): interleaved stores, even/odd pairs, flat transposed outputs
for spec in "rope_interleaved|" "rope_interleaved|--vector 4" "rope_interleaved|--vector 8 --unroll 2" "rope_interleaved|--device $D --size R=1024 --size H=2048 --size D=4096" \
  "pairs_overlap|" "thirds_uncovered|" "softmax_pairs|" "softmax_pairs|--vector 4" "softmax_pairs|--layout programs-on-lanes" "softmax_pairs|--device $D --size R=1024 --size C=2048 --size D=4096" "softmax_pairs_meet|" \
  "max_shift_flat_transposed|" "max_shift_flat_transposed|--vector 4" "max_shift_flat_transposed|--layout programs-on-lanes --programs-per-group 16 --threads 512" "max_shift_flat_short|" "causal_select|"; do
  f=${spec%%|*}; opts=${spec#*|}
  echo "== $f $opts" >> $o/docs79.txt
  timeout -s KILL 30 $T run $G/$f.json --runtime cuda $opts >> $o/docs79.txt 2>&1; echo "exit $?" >> $o/docs79.txt
done
echo "docs79 done $(date)" >> $o/progress.txt; snap
for spec in "1024 4096" "4096 4096" "2048 8192"; do
  set -- $spec
  for v in "auto|" "uncached|--no-cache-input" "t256v4|--threads 256 --vector 4" "t128v8|--threads 128 --vector 8"; do
    n=${v%%|*}; opts=${v#*|}
    s=$(date +%s); timeout -s KILL 60 $T time $G/causal_softmax.json --size R=$1 --size C=$2 --runtime cuda --device $D --rounds 2 --samples 3 $opts > $o/time-$n-$1x$2.txt 2>&1
    echo "$n $spec exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
  done
done
for v in "auto|" "uncached|--no-cache-input"; do
  n=${v%%|*}; opts=${v#*|}
  s=$(date +%s); timeout -s KILL 60 $T time $G/window_softmax.json --size R=4096 --size K=2048 --size CK=6143 --runtime cuda --device $D --rounds 2 --samples 3 $opts > $o/time-window-$n.txt 2>&1
  echo "window $n exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
done
timeout -s KILL 90 python3 - > $o/torch-causal.txt 2>&1 <<'PY'
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
    print(f'{R}x{C}: torch masked softmax {t(lambda: torch.softmax(x.masked_fill(~tril, float("-inf")), dim=1)):.2f} us; causal bytes {sum(2 * (r + 1) for r in range(R)) * 4}')
PY
echo "torch done $(date)" >> $o/progress.txt; snap
cat $o/progress.txt; tail -2 $o/suite.txt; grep -c "verdict: pass" $o/docs.txt; grep -c "^exit 0" $o/docs.txt; grep -c "verdict: pass" $o/docs79.txt; grep -c "^exit 0" $o/docs79.txt; grep "^  [a-z-]*  .*groups\|serial-program  one" $o/docs.txt | cut -c1-100 | sort | uniq -c | head -30
for f in $o/time-*.txt; do echo "$f $(grep -o '"medianUs": [0-9.]*' $f | head -1) $(grep -o '"validated": [a-z]*' $f | head -1)"; done
cat $o/torch-causal.txt
