set -u
cd .gpu
o=/tmp/run15; mkdir -p $o/exp
( cd exp15 && timeout -k 2 300 python3 time15.py 15 > $o/exp/variants.txt 2>&1; echo "exit $?" >> $o/exp/variants.txt; cp gen15.py time15.py meta.json *.metal $o/exp/ )
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $o/exp/gpu.txt 2>&1
tar -czf $OUT/run15.tgz -C /tmp run15
cat $o/exp/variants.txt
