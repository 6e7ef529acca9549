set -u
cd .gpu
o=/tmp/run14b; mkdir -p $o/evidence3
SKIP="bench audit" TORCH_COMPILE=0 BUDGET=470 EXTRA_SWEEPS="layernorm_affine:16384x32 softmax:16384x32 softmax:2048x2048 rmsnorm:512x8192 layernorm_affine:4096x1024 softmax:2048x2048:nvidia-h200-calibrated rmsnorm:512x8192:nvidia-h200-calibrated layernorm_affine:4096x1024:nvidia-h200-calibrated" bash tile-gpu/pkg/scripts/cuda-evidence-3.sh $o/evidence3 > $o/driver.txt 2>&1
tar -czf $OUT/run14b.tgz -C /tmp run14b
tail -45 $o/driver.txt | grep -v "^| .*(P[12]/T"
