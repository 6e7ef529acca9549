set -u
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run24; mkdir -p $o/evidence3
# the suite on CUDA, then the calibrated record's automatic plans beside PyTorch at six shapes
SHAPES="1024x4096 768x6144 4096x4096 2048x8192 256x3072 37x1537" SKIP="bench audit sweep" TORCH_COMPILE=0 \
  TORCH_DEVICE=nvidia-h200-calibrated T_TORCH=330 BUDGET=480 bash tile-gpu/pkg/scripts/cuda-evidence-3.sh $o/evidence3 > $o/driver.txt 2>&1
tar -czf $OUT/run24.tgz -C /tmp run24
cat $o/evidence3/steps.txt | grep -v skipped
grep -h "passed" $o/evidence3/suite.txt | tail -2
grep "copy bandwidth" $o/evidence3/torch.md; grep "^| [a-z_]* (auto)" $o/evidence3/torch.md | cut -c1-260
