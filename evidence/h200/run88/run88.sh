set -u
# run 88 (session 32): run 87 of session 31, never run (refused eight times), now on main at f0b3db4:
# the element grid's short rows (7fba6b3, 84ba8b5: whole rows per group where a row needs at most half a
# block). tile-gpu-88/ = npm run pack:gpu of main at f0b3db4; tile-gpu-new/ = the pack of e169d83 (before). docs87/: the red team's silu value+derivative (3 columns), a causal mask-and-scale in
# f16 (77 columns), the interleaved rotary embedding (33 pairs). The suite on CUDA; every document and the
# built-in pairs at short-row shapes validated on CUDA; then old against new timed, beside PyTorch.
root=$(pwd); o=/tmp/run88; mkdir -p $o; t0=$(date +%s); DL=${DEADLINE:-420}
left() { [ $(( $(date +%s) - t0 )) -lt $DL ]; }
snap() { cp $root/.gpu/run88.sh $o/ 2>/dev/null; tar -czf $OUT/run88.tgz -C /tmp run88; }
date > $o/progress.txt; snap
( cd .gpu && sh tile-gpu-new/setup.sh && sh tile-gpu-88/setup.sh ) > $o/setup.txt 2>&1 || { snap; exit 1; }
echo "setup done +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
OLD=$root/.gpu/tile-gpu-new/tile; NEW=$root/.gpu/tile-gpu-88/tile
export TILE_CACHE_DIR=/tmp/tile-cache-88 TILE_NODE=$root/.gpu/tile-gpu-88/bin/node
D=$root/devices/nvidia-h200-calibrated.json
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $o/gpu.txt 2>&1
timeout -s KILL 60 $NEW suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $? +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
G=$root/.gpu/docs87  # the documents of run 87, unchanged
for f in $G/*.json; do
  for opts in "" "--vector 4" "--vector 8 --unroll 2" "--threads 64" "--device $D"; do
    echo "== $(basename $f .json) $opts" >> $o/docs.txt
    timeout -s KILL 30 $NEW run $f --runtime cuda $opts >> $o/docs.txt 2>&1; echo "exit $?" >> $o/docs.txt
  done
done
for c in sigmoid_pair gelu_pair; do
  for sz in "--size R=1537 --size C=3" "--size R=4099 --size C=32" "--size R=1000 --size C=77 --vector 4" "--size R=333 --size C=100 --vector 8 --unroll 2" "--size R=9 --size C=5 --threads 32"; do
    echo "== $c $sz" >> $o/docs.txt
    timeout -s KILL 30 $NEW run $root/cases/$c.json $sz --runtime cuda >> $o/docs.txt 2>&1; echo "exit $?" >> $o/docs.txt
  done
done
echo "docs done +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
for spec in "sigmoid_pair|--size R=1048576 --size C=16" "sigmoid_pair|--size R=262144 --size C=64" "gelu_pair|--size R=524288 --size C=32" "sigmoid_pair|--size R=65536 --size C=3" "$G/causal_mask_scale_f16.json|--size B=64 --size H=12 --size S=77" "$G/rope_interleaved.json|--size R=65536 --size H=32 --size D=64"; do
  f=${spec%%|*}; sz=${spec#*|}; n=$(basename $f .json)-$(echo $sz | tr -dc '0-9x' | cut -c1-24)
  for which in new old; do
    left || break
    T=$NEW; [ $which = old ] && T=$OLD
    s=$(date +%s); timeout -s KILL 50 $T time $f $sz --runtime cuda --device $D --rounds 2 --samples 3 > $o/time-$n-$which.txt 2>&1
    echo "$n $which exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
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
for R, C in [(1048576, 16), (262144, 64), (65536, 3)]:
    x = torch.randn(R, C, device='cuda'); y = torch.empty_like(x); d = torch.empty_like(x)
    def sp():
        torch.sigmoid(x, out=y); torch.mul(y, 1 - y, out=d)
    print(f'sigmoid pair {R}x{C}: eager {t(sp):.2f} us; bytes {3 * x.numel() * 4}')
PY
rest=$(( 585 - ($(date +%s) - t0) ))
if grep -q H200 $o/gpu.txt && [ $rest -gt 150 ]; then
  ( cd .gpu/tile-gpu-88/pkg && SHAPES="1024x4096 4096x4096 2048x8192" SKIP="smoke suite bench audit sweep" TORCH_COMPILE=0 TORCH_DEVICE=nvidia-h200-calibrated T_TORCH=$(( rest - 30 )) BUDGET=$(( rest - 10 )) \
    timeout -s KILL $rest bash scripts/cuda-evidence-3.sh $o/evidence3 > $o/driver.txt 2>&1 )
  gzip -9n $o/evidence3/tile-times.json 2>/dev/null
  echo "side by side done +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
else echo "built-in table skipped (not an H200, run 86 has it on an H100; or $rest s left)" >> $o/progress.txt; fi
echo "end +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
cat $o/gpu.txt; cat $o/progress.txt; tail -1 $o/suite.txt
echo "docs: $(grep -c 'verdict: pass' $o/docs.txt) pass, $(grep -c '^exit 0' $o/docs.txt) exit 0, $(grep -c '^== ' $o/docs.txt) runs"
grep -B3 "^exit [1-9]" $o/docs.txt | head -20
for f in $o/time-*.txt; do echo "$(basename $f) $(grep -o '"medianUs": [0-9.]*' $f | head -1) $(grep -o '"validated": [a-z]*' $f | head -1) $(grep -o '"mapping": "[^"]*"' $f | head -1)"; done
grep "copy bandwidth" $o/evidence3/torch.md 2>/dev/null; grep "(auto)" $o/evidence3/torch.md 2>/dev/null | cut -c1-200 | head -20
cat $o/torch.txt
