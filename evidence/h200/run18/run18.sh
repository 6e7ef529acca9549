set -u
cd .gpu
sh t18/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run18; mkdir -p $o
# the five kernels beside PyTorch at two shapes whose traffic the L2 cannot hold (base record)
SHAPES="4096x4096 2048x8192" SKIP="suite bench audit sweep" TORCH_COMPILE=0 T_TORCH=420 BUDGET=540 \
  bash t18/pkg/scripts/cuda-evidence-3.sh $o/large > $o/driver-large.txt 2>&1
tar -czf $OUT/run18.tgz -C /tmp run18
cat $o/large/steps.txt; cat $o/large/torch.md | grep -v "^| --- " | cut -c1-400
