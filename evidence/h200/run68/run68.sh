set -u
# run 68 (session 23): the values-first storing loops on CUDA. The automatic plans of the column
# softmax and scaled mean at five shapes beside the previous automatic plans (explicit widths,
# U = 1: the same kernels as before), U = 4, and the picks the search now makes at --unroll 1;
# the suite; the lanes fixtures validated at the new plans and at forced unrolled mappings.
root=$(pwd)
o=/tmp/run68; mkdir -p $o
L=$root/.gpu/list68.json
snap() { cp $root/.gpu/run68.sh $L $o/; tar -czf $OUT/run68.tgz -C /tmp run68; }
date > $o/progress.txt; snap
cd .gpu
( time sh tile-gpu/setup.sh ) > $o/setup.txt 2>&1 || { tail -5 $o/setup.txt; snap; exit 1; }
echo "setup done $(date)" >> $o/progress.txt; snap
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-68
D=$root/devices/nvidia-h200-calibrated.json
{
timeout 60 python3 -c "
import torch
a = torch.empty(1 << 28, device='cuda'); b = torch.empty_like(a)
for _ in range(5): b.copy_(a)
torch.cuda.synchronize(); s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
ts = []
for _ in range(7):
    s.record()
    for _ in range(20): b.copy_(a)
    e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e) * 1000 / 20)
ts.sort(); print(f'copy 1 GiB: median {ts[3]:.1f} us; {2 * a.numel() * 4 / ts[3] / 1e3:.1f} GB/s (read + write)')
"
timeout 240 $T time $L --runtime cuda --device $D --rounds 2 --samples 3 -o $o/time68.json 2>&1
} > $o/timing.txt 2>&1
echo "timing done $(date)" >> $o/progress.txt; snap
( timeout 150 $T suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $?" >> $o/suite.txt )
echo "suite done $(date)" >> $o/progress.txt; snap
{
for k in colsoftmax colmean_scale; do
  f=$root/.gpu/docs68/$k.json
  for opt in "--size R=16384 --size C=512" "--size R=8192 --size C=1024" "--size R=4096 --size C=4096" "--size R=2048 --size C=8192" "--size R=1000 --size C=37 --layout programs-on-lanes --programs-per-group 8 --threads 256 --unroll 3 --no-cache-input" "--size R=517 --size C=64 --layout programs-on-lanes --programs-per-group 16 --threads 512 --unroll 8 --no-cache-input" "--size R=512 --size C=100 --layout programs-on-lanes --programs-per-group 3 --threads 96 --unroll 2"; do
    echo "$k [$opt] $(timeout 60 $T run $f --runtime cuda --device $D $opt 2>&1 | grep -E 'cooperative|verdict|error' | tr '\n' ' ')"
  done
done
for c in softmax layernorm_affine rmsnorm_f16; do echo "$c [V1 U3 uncached] $(timeout 60 $T run $root/cases/$c.json --runtime cuda --vector 1 --unroll 3 --threads 64 --no-cache-input 2>&1 | grep -E 'verdict|error' | tr '\n' ' ')"; done
} > $o/fixtures.txt 2>&1
echo "all done $(date)" >> $o/progress.txt
snap
