set -u
t=/tmp/tg; mkdir -p $t && tar -xJf .gpu/c16/pkg.txz -C $t && cp .gpu/c16/node.xz $t/ && touch $t/node.stamp
o=/tmp/run16; mkdir -p $o
# 1: setup, smoke, suite, PyTorch side by side with the calibrated record, sweeps of the new picks
SHAPES="1024x4096 768x6144 256x3072 37x1537" SKIP="bench audit sweep" TORCH_COMPILE=0 TORCH_DEVICE=nvidia-h200-calibrated BUDGET=300 \
  bash $t/pkg/scripts/cuda-evidence-3.sh $o/calibrated > $o/driver-calibrated.txt 2>&1
# 2: the same side by side with the base record, in the same session
SHAPES="1024x4096 768x6144 256x3072 37x1537" SKIP="setup smoke suite bench audit sweep" TORCH_COMPILE=0 TORCH_DEVICE=nvidia-h200 BUDGET=150 \
  bash $t/pkg/scripts/cuda-evidence-3.sh $o/base > $o/driver-base.txt 2>&1
# 3: sweeps where the calibrated pick was never timed or changed
SHAPES=" " SKIP="setup smoke suite bench audit torch" BUDGET=130 \
  EXTRA_SWEEPS="layernorm_affine:4096x1024:nvidia-h200-calibrated layernorm_affine:768x6144:nvidia-h200-calibrated softmax:768x6144:nvidia-h200-calibrated" \
  bash $t/pkg/scripts/cuda-evidence-3.sh $o/sweeps > $o/driver-sweeps.txt 2>&1
tar -czf $OUT/run16.tgz -C /tmp run16
cat $o/calibrated/steps.txt; grep -h "passed, \|failed" $o/calibrated/suite.txt | tail -2
cat $o/calibrated/torch.md; cat $o/base/torch.md
for f in $o/sweeps/sweeps/*/sweep.txt; do grep -h " regret " "$f"; done
