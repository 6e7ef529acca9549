set -u
cd .gpu
o=/tmp/run13; mkdir -p $o/exp
( cd exp13 && timeout -k 2 120 python3 time_variants.py 15 > $o/exp/variants.txt 2>&1; echo "exit $?" >> $o/exp/variants.txt; cp gen13.py time_variants.py meta.json *.metal $o/exp/ )
cat $o/exp/variants.txt
TORCH_COMPILE=0 BUDGET=420 bash tile-gpu/pkg/scripts/cuda-evidence-3.sh $o/evidence3 > $o/driver.txt 2>&1
tar -czf $OUT/run13.tgz -C /tmp run13
tail -32 $o/driver.txt
