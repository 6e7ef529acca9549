set -u
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run17; mkdir -p $o/run-15 $o/evidence3
ADMITTED_SEED=20261204 timeout -k 5 215 bash tile-gpu/pkg/scripts/cuda-evidence-15.sh $o/run-15 > $o/run-15/driver.txt 2>&1
SKIP="sweep" TORCH_COMPILE=0 BUDGET=300 bash tile-gpu/pkg/scripts/cuda-evidence-3.sh $o/evidence3 > $o/driver.txt 2>&1
tar -czf $OUT/run17.tgz -C /tmp run17
grep -h "^###\|^exit\|passed, \|ERROR SUMMARY\|SUMMARY\|admitted structural" $o/run-15/*.txt | head -60
tail -40 $o/driver.txt
