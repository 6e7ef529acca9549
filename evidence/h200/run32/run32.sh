set -u
# run 32 (session 8): sweeps of the pointwise pairs with U (chunks of V per thread) in the element
# grid: every candidate, predictions of the calibrated record, 4 rounds
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup1.txt 2>&1 || { cat /tmp/setup1.txt; exit 1; }
o=/tmp/run32; mkdir -p $o/sweeps
T=$root/.gpu/tile-gpu/tile
export TILE_CACHE_DIR=/tmp/tile-cache-32 TILE_NODE=$root/.gpu/tile-gpu/bin/node
cd tile-gpu/pkg
start=$(date +%s)
timeout 30 $T run cases/sigmoid_pair.json --runtime cuda --unroll 3 > $o/smoke.txt 2>&1; echo "smoke exit $?" >> $o/smoke.txt
for s in 768x6144 1024x4096 2048x8192 4096x4096 256x3072; do
  for c in sigmoid_pair gelu_pair; do
    [ $(( $(date +%s) - start )) -gt 520 ] && { echo "budget: skipped $c $s" >> $o/steps.txt; continue; }
    r=${s%x*}; k=${s#*x}; d=$o/sweeps/$c-$s
    t0=$(date +%s)
    timeout 100 $T sweep $c --size R=$r --size C=$k --runtime cuda --device nvidia-h200-calibrated --max-candidates 0 --rounds 4 --samples 5 --batch-window-ms 2 -o $d > $o/sweeps/$c-$s.txt 2>&1
    echo "$c $s exit $? $(( $(date +%s) - t0 )) s" >> $o/steps.txt
  done
done
t0=$(date +%s); timeout 200 $T time $root/.gpu/list32.json --runtime cuda --device nvidia-h200-calibrated --rounds 4 --samples 5 -o $o/threads.json > $o/threads.txt 2>&1; echo "time list exit $? $(( $(date +%s) - t0 )) s" >> $o/steps.txt
cp $root/.gpu/run32.sh $root/.gpu/list32.json $o/
tar -czf $OUT/run32.tgz -C /tmp run32
cat $o/steps.txt; tail -3 $o/smoke.txt
for f in $o/sweeps/*/sweep.md; do echo "== $f"; grep -E "^. block" $f | cut -c1-50; done
python3 -c "import json; d=json.load(open('$o/threads.json')); [print(e['id'], e['mapping'], round(e['medianUs'] or 0,2), e['validated']) for e in d['entries']]"
