# cuda-evidence-final.sh: the last GPU call of session 2 (evidence/h200/run11), run from the repository root
# with .gpu/ (npm run pack:gpu) carried: bash scripts/cuda-evidence-final.sh (writes $OUT/final.tgz).
set -u
cd .gpu
o=/tmp/final; mkdir -p $o/run-15 $o/run-17
sh tile-gpu/setup.sh > $o/setup.txt 2>&1
node=$(pwd)/tile-gpu/bin/node
( cd tile-gpu/pkg && TILE_CACHE_DIR=/tmp/tc-exports timeout -k 2 150 $node scripts/gpu-evidence.mjs exports --runtime cuda > $o/run-15/exports.txt 2>&1; echo "exit $?" >> $o/run-15/exports.txt ) &
timeout -k 5 200 bash tile-gpu/pkg/scripts/cuda-evidence-15.sh $o/run-15 > $o/run-15/driver.txt 2>&1
wait
( cd tile-gpu/pkg && timeout -k 2 60 $node bench/tools/threadgroup-forms.mjs --runtime cuda --rounds 9 > $o/run-15/threadgroup-forms.txt 2>&1; echo "exit $?" >> $o/run-15/threadgroup-forms.txt )
( cd tile-gpu/pkg && tile=../tile; timeout -k 2 45 $tile bench bench/protocols/packing-16bit.json --runtime cuda -o $o/run-15/bench-packing-16bit --rounds 3 --samples 5 --batch-window-ms 2 --warmup 3 --metrics gpuBatch > $o/run-15/bench-16bit.txt 2>&1; echo "exit $?" >> $o/run-15/bench-16bit.txt; timeout -k 2 20 $tile audit $o/run-15/bench-packing-16bit --root . > $o/run-15/bench-packing-16bit-audit.txt 2>&1; echo "exit $?" >> $o/run-15/bench-packing-16bit-audit.txt )
BUDGET=${BUDGET3:-230} bash tile-gpu/pkg/scripts/cuda-evidence-3.sh $o/run-17 > $o/run-17/driver.txt 2>&1
tar -czf $OUT/final.tgz -C /tmp final
grep -h "passed, \|SUMMARY\|admitted structural\|exports on\|^exit" $o/run-15/*.txt | head -40
tail -42 $o/run-17/driver.txt
