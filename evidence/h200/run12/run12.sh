set -u
cd .gpu
o=/tmp/run12; mkdir -p $o/exp
( cd exp && timeout -k 2 150 python3 time_variants.py 15 > $o/exp/variants.txt 2>&1; echo "exit $?" >> $o/exp/variants.txt; cp gen.py time_variants.py meta.json *.metal $o/exp/ )
cat $o/exp/variants.txt
SKIP="bench audit torch" SHAPES="256x3072 37x1537" EXTRA_SWEEPS="layernorm_affine:16384x32 softmax:16384x32" BUDGET=330 bash tile-gpu/pkg/scripts/cuda-evidence-3.sh $o/run-17 > $o/driver.txt 2>&1
tar -czf $OUT/run12.tgz -C /tmp run12
tail -30 $o/driver.txt
