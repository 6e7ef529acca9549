set -u
# run 79 (session 28): the suite on CUDA; interleaved stores (test/fixtures/interleaved) validated
# on CUDA; the interleaved rotary embedding timed fused, as the serial program (the same kernel
# with its odd index written max(2i + 1, 0), which no proof takes: the plan it had before session
# 28) and in its halves form, beside PyTorch eager; the softmax with pairs T[r, 2c], T[r, 2c + 1];
# the flat column-major output on CUDA; the causal softmax written with select over whole rows
# (cached) beside the ragged form (run 78) in the same run.
root=$(pwd); o=/tmp/run79; mkdir -p $o
snap() { cp $root/.gpu/run79.sh $o/ 2>/dev/null; tar -czf $OUT/run79.tgz -C /tmp run79; }
date > $o/progress.txt; snap
cd .gpu; ( sh tile-gpu/setup.sh ) > $o/setup.txt 2>&1 || { snap; exit 1; }
echo "setup done $(date)" >> $o/progress.txt; snap
T=$root/.gpu/tile-gpu/tile; export TILE_CACHE_DIR=/tmp/tile-cache-79 TILE_NODE=$root/.gpu/tile-gpu/bin/node
D=$root/devices/nvidia-h200-calibrated.json
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $o/gpu.txt 2>&1
timeout -s KILL 60 $T suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $?" >> $o/progress.txt; snap
G=$root/.gpu/docs79
for spec in "rope_interleaved|" "rope_interleaved|--vector 4" "rope_interleaved|--vector 8 --unroll 2" "rope_interleaved|--device $D --size R=1024 --size H=2048 --size D=4096" \
  "pairs_overlap|" "thirds_uncovered|" "softmax_pairs|" "softmax_pairs|--vector 4" "softmax_pairs|--layout programs-on-lanes" "softmax_pairs|--device $D --size R=1024 --size C=2048 --size D=4096" "softmax_pairs_meet|" \
  "max_shift_flat_transposed|" "max_shift_flat_transposed|--vector 4" "max_shift_flat_transposed|--layout programs-on-lanes --programs-per-group 16 --threads 512" "max_shift_flat_short|" "causal_select|" "causal_select|--device $D --size R=1024 --size C=4096"; do
  f=${spec%%|*}; opts=${spec#*|}
  echo "== $f $opts" >> $o/docs.txt
  timeout -s KILL 30 $T run $G/$f.json --runtime cuda $opts >> $o/docs.txt 2>&1; echo "exit $?" >> $o/docs.txt
done
echo "docs done $(date)" >> $o/progress.txt; snap
for spec in "rope_interleaved 1024" "rope_interleaved 4096" "rope_halves 1024" "rope_halves 4096" "rope_interleaved_unproven 1024" "rope_interleaved_unproven 4096"; do
  set -- $spec
  s=$(date +%s); timeout -s KILL 60 $T time $G/$1.json --size R=$2 --size H=2048 --size D=4096 --runtime cuda --device $D --rounds 2 --samples 3 > $o/time-$1-$2.txt 2>&1
  echo "$spec exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
done
for R in 1024 4096; do
  s=$(date +%s); timeout -s KILL 60 $T time $G/softmax_pairs.json --size R=$R --size C=2048 --size D=4096 --runtime cuda --device $D --rounds 2 --samples 3 > $o/time-softmax_pairs-$R.txt 2>&1
  echo "softmax_pairs $R exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
done
for spec in "causal_select 4096 4096" "causal_softmax 4096 4096"; do
  set -- $spec
  s=$(date +%s); timeout -s KILL 60 $T time $G/$1.json --size R=$2 --size C=$3 --runtime cuda --device $D --rounds 2 --samples 3 > $o/time-$1-$2x$3.txt 2>&1
  echo "$spec exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
done
timeout -s KILL 90 python3 - > $o/torch-rope.txt 2>&1 <<'PY'
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
H, D = 2048, 4096
for R in [1024, 4096]:
    x = torch.randn(R, D, device='cuda'); cs = torch.randn(R, H, device='cuda'); sn = torch.randn(R, H, device='cuda')
    def inter():
        p = x.view(R, H, 2); a, b = p[..., 0], p[..., 1]
        return torch.stack([a * cs - b * sn, a * sn + b * cs], -1).view(R, D)
    def halves():
        a, b = x[:, :H], x[:, H:]
        return torch.cat([a * cs - b * sn, a * sn + b * cs], 1)
    print(f'{R}x{D} (H {H}): torch interleaved {t(inter):.2f} us; halves {t(halves):.2f} us; bytes {(2 * R * D + 2 * R * H) * 4}')
    y = torch.randn(R, 2048, device='cuda')
    def pairs():
        m = y.max(1, keepdim=True).values; e = torch.exp(y - m); sm = e / e.sum(1, keepdim=True)
        return torch.stack([sm, y - m], -1).view(R, 4096)
    print(f'{R}x2048 softmax pairs: torch {t(pairs):.2f} us; bytes {(R * 2048 + R * 4096) * 4}')
PY
echo "torch done $(date)" >> $o/progress.txt; snap
cat $o/progress.txt; tail -2 $o/suite.txt; grep -c "verdict: pass" $o/docs.txt; grep -c "^exit 0" $o/docs.txt; grep "^  [a-z-]*  .*groups\|serial-program  one" $o/docs.txt | cut -c1-90
for f in $o/time-*.txt; do echo "$f"; grep "\"mapping\"\|medianUs\|\"validated\"\|\"realization\"" $f | head -4; done | head -80
cat $o/torch-rope.txt
