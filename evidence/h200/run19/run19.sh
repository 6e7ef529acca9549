set -u
cd .gpu
sh t18/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run19; mkdir -p $o
# sweeps of the three reductions at the two large shapes (base record's ranking, 32 candidates each)
SHAPES="4096x4096 2048x8192" SKIP="setup smoke suite bench audit torch" T_SWEEP=110 BUDGET=390 \
  bash t18/pkg/scripts/cuda-evidence-3.sh $o/sweeps > $o/driver-sweeps.txt 2>&1
# the calibrated record's plans beside PyTorch at the same shapes
SHAPES="4096x4096 2048x8192" SKIP="setup smoke suite bench audit sweep" TORCH_COMPILE=0 TORCH_DEVICE=nvidia-h200-calibrated T_TORCH=150 BUDGET=150 \
  bash t18/pkg/scripts/cuda-evidence-3.sh $o/calibrated > $o/driver-calibrated.txt 2>&1
tar -czf $OUT/run19.tgz -C /tmp run19
cat $o/sweeps/steps.txt | grep -v skipped; for f in $o/sweeps/sweeps/*/sweep.txt; do grep -h "regret " "$f"; done
grep "^| [a-z_]* (auto)" $o/calibrated/torch.md | cut -c1-300
