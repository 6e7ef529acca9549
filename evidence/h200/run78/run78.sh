set -u
# run 78 (session 28): the suite on CUDA; ranges that vary by program (test/fixtures/ragged) validated
# on CUDA at several mappings; the causal softmax timed at its automatic (cooperative) plan, at a
# forced wider mapping, and as the serial program (the same kernel with a non-affine extent
# min(r + 1, C), the plan every causal softmax got before session 28), beside PyTorch eager's
# masked_fill + softmax and the copy bandwidth.
root=$(pwd); o=/tmp/run78; mkdir -p $o
snap() { cp $root/.gpu/run78.sh $o/ 2>/dev/null; tar -czf $OUT/run78.tgz -C /tmp run78; }
date > $o/progress.txt; snap
cd .gpu; ( sh tile-gpu/setup.sh ) > $o/setup.txt 2>&1 || { snap; exit 1; }
echo "setup done $(date)" >> $o/progress.txt; snap
T=$root/.gpu/tile-gpu/tile; export TILE_CACHE_DIR=/tmp/tile-cache-78 TILE_NODE=$root/.gpu/tile-gpu/bin/node
D=$root/devices/nvidia-h200-calibrated.json
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $o/gpu.txt 2>&1
timeout -s KILL 60 $T suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $?" >> $o/progress.txt; snap
G=$root/.gpu/docs78
for f in causal_softmax band_scale band_read_from_zero; do
  for opts in "" "--vector 4 --threads 64" "--vector 8 --unroll 2 --threads 32" "--layout programs-on-lanes --programs-per-group 8 --threads 256 --size R=48 --size C=130" "--device $D --size R=1024 --size C=4096"; do
    echo "== $f $opts" >> $o/docs.txt
    timeout -s KILL 30 $T run $G/$f.json --runtime cuda $opts >> $o/docs.txt 2>&1; echo "exit $?" >> $o/docs.txt
  done
done
echo "docs done $(date)" >> $o/progress.txt; snap
for spec in "causal_softmax 1024 4096" "causal_softmax 4096 4096" "causal_softmax 2048 8192" "causal_softmax_min 1024 4096" "causal_softmax_min 4096 4096"; do
  set -- $spec
  s=$(date +%s); timeout -s KILL 60 $T time $G/$1.json --size R=$2 --size C=$3 --runtime cuda --device $D --rounds 2 --samples 3 > $o/time-$1-$2x$3.txt 2>&1
  echo "$spec exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
done
for spec in "4096 4096 --threads 256 --vector 4" "4096 4096 --threads 1024 --vector 4" "2048 8192 --threads 256 --vector 4"; do
  set -- $spec; R=$1; C=$2; shift 2
  s=$(date +%s); timeout -s KILL 60 $T time $G/causal_softmax.json --size R=$R --size C=$C --runtime cuda --device $D --rounds 2 --samples 3 "$@" > "$o/time-forced-${R}x${C}$(echo "$@" | tr -d ' -').txt" 2>&1
  echo "forced $spec exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
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
    x = torch.randn(R, C, device='cuda')
    keep = torch.ones(R, C, dtype=torch.bool, device='cuda').tril()
    m = t(lambda: torch.softmax(x.masked_fill(~keep, float('-inf')), dim=1))
    f = t(lambda: torch.softmax(x, dim=1))
    # the causal rows' bytes (read r + 1 elements of X, write r + 1 of Y), as Tile's kernel moves them
    causal_bytes = 2 * 4 * sum(min(r + 1, C) for r in range(R))
    print(f'{R}x{C}: torch masked_fill(~tril) + softmax(dim=1) {m:.2f} us; full softmax(dim=1) {f:.2f} us; causal bytes {causal_bytes}')
PY
echo "torch done $(date)" >> $o/progress.txt; snap
cat $o/progress.txt; tail -3 $o/suite.txt; grep -c "verdict: pass" $o/docs.txt; grep -c "^exit 0" $o/docs.txt; grep "^  [a-z-]*  \|serial-program\|cooperative" $o/docs.txt | sort | uniq -c | head
for f in $o/time-*.txt; do echo "$f"; grep "\"mapping\"\|medianUs\|\"validated\"\|\"realization\"" $f | head -4; done | head -80
cat $o/torch-causal.txt
