set -u
# run 76 (session 26; written as run75.sh, the folder it wrote is /tmp/run75): tile time one entry per call (each under its own SIGKILL limit, so a slow or
# stuck entry costs only its own time), the middle-axis sum and softmax at their automatic plans
# (calibrated H200 record) beside PyTorch's sum(x, 1) and softmax(x, 1) and the copy bandwidth.
root=$(pwd); o=/tmp/run75; mkdir -p $o
snap() { cp $root/.gpu/run75.sh $o/ 2>/dev/null; tar -czf $OUT/run75.tgz -C /tmp run75; }
date > $o/progress.txt; snap
cd .gpu; ( sh tile-gpu/setup.sh ) > $o/setup.txt 2>&1 || { snap; exit 1; }
echo "setup done $(date)" >> $o/progress.txt; snap
T=$root/.gpu/tile-gpu/tile; export TILE_CACHE_DIR=/tmp/tile-cache-75
D=$root/devices/nvidia-h200-calibrated.json
for spec in "midsum B=8 R=1024 C=4096" "midsoftmax B=8 R=1024 C=4096" "midsum B=8 R=16384 C=512" "midsoftmax B=8 R=16384 C=512"; do
  set -- $spec; f=$1; shift; args=""; for kv in "$@"; do args="$args --size $kv"; done
  s=$(date +%s); timeout -s KILL 45 $T time $root/.gpu/docs71/$f.json $args --runtime cuda --device $D --rounds 2 --samples 3 > $o/time-$f-$(echo $@ | tr ' =' '_-').txt 2>&1
  echo "$spec exit $? $(( $(date +%s) - s )) s" >> $o/progress.txt; snap
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
for B, R, C in [(8, 1024, 4096), (8, 16384, 512)]:
    x = torch.randn(B, R, C, device='cuda'); y = torch.empty(B, C, device='cuda')
    m = t(lambda: torch.sum(x, 1, out=y)); print(f'torch sum(x, 1) {B}x{R}x{C}: {m:.2f} us; {x.numel() * 4 / m / 1e3:.1f} GB/s read')
    m2 = t(lambda: torch.softmax(x, 1)); print(f'torch softmax(x, 1) {B}x{R}x{C}: {m2:.2f} us; {2 * x.numel() * 4 / m2 / 1e3:.1f} GB/s read + write')
PY
echo "torch done $(date)" >> $o/progress.txt; snap
