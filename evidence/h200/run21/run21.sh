set -u
cd .gpu
o=/tmp/run21; mkdir -p $o/exp
( cd exp21 && timeout -k 2 400 python3 time21.py 15 > $o/exp/variants.txt 2>&1; echo "exit $?" >> $o/exp/variants.txt; cp time21.py meta.json *.metal $o/exp/ )
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $o/exp/gpu.txt 2>&1
tar -czf $OUT/run21.tgz -C /tmp run21
cat $o/exp/variants.txt
