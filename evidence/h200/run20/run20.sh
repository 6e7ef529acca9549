set -u
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run20; mkdir -p $o/run-15 $o/evidence3
# correctness on CUDA: suite, the full matrix under the three sanitizers, controls, structural fuzz
ADMITTED_SEED=20261205 timeout -k 5 230 bash tile-gpu/pkg/scripts/cuda-evidence-15.sh $o/run-15 > $o/run-15/driver.txt 2>&1
# the calibrated record's automatic plans beside PyTorch at six shapes, in one session
SHAPES="1024x4096 768x6144 4096x4096 2048x8192 256x3072 37x1537" SKIP="setup smoke suite bench audit sweep" TORCH_COMPILE=0 \
  TORCH_DEVICE=nvidia-h200-calibrated T_TORCH=300 BUDGET=310 bash tile-gpu/pkg/scripts/cuda-evidence-3.sh $o/evidence3 > $o/driver.txt 2>&1
tar -czf $OUT/run20.tgz -C /tmp run20
grep -h "^###\|^exit\|passed, \|ERROR SUMMARY\|SUMMARY\|admitted structural" $o/run-15/*.txt | head -60
cat $o/evidence3/steps.txt | grep -v skipped
grep "^| [a-z_]* (auto)" $o/evidence3/torch.md | cut -c1-260
