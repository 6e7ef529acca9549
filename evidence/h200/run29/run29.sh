set -u
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run29; mkdir -p $o/evidence3
# the suite on CUDA, then the calibrated record's automatic plans beside PyTorch at six shapes
# (the register limit on: run 24 is the same without it)
SHAPES="1024x4096 768x6144 4096x4096 2048x8192 256x3072 37x1537" SKIP="smoke bench audit sweep" TORCH_COMPILE=0 \
  TORCH_DEVICE=nvidia-h200-calibrated T_TORCH=230 BUDGET=300 bash tile-gpu/pkg/scripts/cuda-evidence-3.sh $o/evidence3 > $o/driver.txt 2>&1
gzip -9n $o/evidence3/tile-times.json
tar -czf $OUT/run29.tgz -C /tmp run29
cat $o/evidence3/steps.txt | grep -v skipped
grep -h "passed" $o/evidence3/suite.txt | tail -2
grep "copy bandwidth" $o/evidence3/torch.md; grep "^| [a-z_]* (auto)" $o/evidence3/torch.md | cut -c1-200
