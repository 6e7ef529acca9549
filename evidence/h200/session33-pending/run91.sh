set -u
# run 91 (session 33; short form, the device time nearly spent: no suite, no built-in table): (1) exp33/: why the in-place softmax is slower than the in-place LayerNorm:
# variants of the emitted kernel (packed fill, packed store, both, fast exp, no NaN tracking) beside
# the built-in softmax and the in-place LayerNorm, translated here, compiled by NVRTC with the
# runtime's options, timed with CUDA events (python, no Node). (2) tile-gpu-92/ = npm run pack:gpu of
# main at 1ead626 (in-place stripes read and written packed), tile-gpu-91/ = the pack of 0800bdf
# (before): the suite on CUDA; docs91/ (the in-place softmax and LayerNorm) validated at several
# mappings and timed old and new; on an H200, the built-in table at 1024x4096, 4096x4096, 2048x8192
# beside PyTorch eager and the copy bandwidth (cuda-evidence-3.sh's side by side).
root=$(pwd); o=/tmp/run91; mkdir -p $o; t0=$(date +%s); DL=${DEADLINE:-560}
left() { [ $(( $(date +%s) - t0 )) -lt $DL ]; }
snap() { cp $root/.gpu/run91.sh $o/ 2>/dev/null; tar -czf $OUT/run91.tgz -C /tmp run91; }
date > $o/progress.txt; snap
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $o/gpu.txt 2>&1
mkdir -p $o/exp33; cp .gpu/exp33/*.py .gpu/exp33/*.mjs .gpu/exp33/meta.json $o/exp33/
( cd .gpu/exp33 && timeout -s KILL 90 python3 time33.py 3 ) > $o/exp33/variants.txt 2>&1; echo "exp33 exit $? +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
( cd .gpu && sh tile-gpu-91/setup.sh && sh tile-gpu-92/setup.sh ) > $o/setup.txt 2>&1 || { snap; exit 1; }
echo "setup done +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
OLD=$root/.gpu/tile-gpu-91/tile; NEW=$root/.gpu/tile-gpu-92/tile
export TILE_CACHE_DIR=/tmp/tile-cache-91 TILE_NODE=$root/.gpu/tile-gpu-92/bin/node
D=$root/devices/nvidia-h200-calibrated.json
for spec in "softmax_inplace|R=4096 C=4096" "layernorm_inplace|R=4096 C=4096" "softmax_inplace|R=1024 C=4096"; do
  g=${spec%%|*}; sz=${spec#*|}; set -- $sz; n=$g-$(echo $sz | tr -dc '0-9 ' | tr ' ' 'x')
  for which in new old; do
    left || break
    T=$NEW; [ $which = old ] && T=$OLD
    s=$(date +%s); timeout -s KILL 50 $T time $root/.gpu/docs91/$g.json --size $1 --size $2 --runtime cuda --device $D --rounds 2 --samples 3 > $o/time-$n-$which.txt 2>&1
    echo "$n $which exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
  done
done
left && timeout -s KILL 40 python3 - > $o/torch.txt 2>&1 <<'PY'
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
for R, C in [(4096, 4096), (1024, 4096)]:
    x = torch.randn(R, C, device='cuda')
    print(f'{R}x{C}: torch.softmax(x, -1) {t(lambda: torch.softmax(x, -1)):.2f} us; F.layer_norm (no affine) {t(lambda: F.layer_norm(x, (C,))):.2f} us; bytes {2 * x.numel() * 4}')
PY
echo "end +$(( $(date +%s) - t0 ))s" >> $o/progress.txt; snap
cat $o/gpu.txt; cat $o/progress.txt; tail -1 $o/suite.txt
cat $o/exp33/variants.txt
echo "docs: $(grep -c 'verdict: pass' $o/docs.txt) pass, $(grep -c '^exit 0' $o/docs.txt) exit 0, $(grep -c '^== ' $o/docs.txt) runs"
grep -B3 "^exit [1-9]" $o/docs.txt | head -20
for f in $o/time-*.txt; do echo "$(basename $f) $(grep -o '"medianUs": [0-9.]*' $f | head -1) $(grep -o '"validated": [a-z]*' $f | head -1) $(grep -o '"mapping": "[^"]*"' $f | head -1)"; done
grep "copy bandwidth" $o/evidence3/torch.md 2>/dev/null; grep "(auto)" $o/evidence3/torch.md 2>/dev/null | cut -c1-200 | head -20
cat $o/torch.txt
