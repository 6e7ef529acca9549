set -u
# run 31 (session 7): the structural fuzz (with this session's select-pad and minmax-extent
# shapes) and the generator fuzz on CUDA; memcheck and racecheck on the held-out fixtures
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup1.txt 2>&1 || { cat /tmp/setup1.txt; exit 1; }
o=/tmp/run31; mkdir -p $o
N=$root/.gpu/tile-gpu/bin/node; EV=$root/.gpu/tile-gpu/pkg/scripts/gpu-evidence.mjs; T=$root/.gpu/tile-gpu/tile
export TILE_CACHE_DIR=/tmp/tile-cache-31 TILE_NODE=$N
( ( cd tile-gpu/pkg && timeout 200 $N $EV admitted --docs 100 --seed 20261207 --runtime cuda ) > $o/admitted.txt 2>&1; echo "admitted exit $?" >> $o/admitted.txt
( cd tile-gpu/pkg && timeout 120 $N $EV fuzz --count 700 --seed 20261207 --runtime cuda ) > $o/fuzz.txt 2>&1; echo "fuzz exit $?" >> $o/fuzz.txt ) &
{
for n in shift_zero_pad conv1d_zero_pad row_window_pad elem_extent_zero_coef elem_min_extent_3d names_punctuation count_positive nest_partial_extent; do
  for tool in memcheck racecheck; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $T run $root/test/fixtures/heldout/$n.json --runtime cuda > /tmp/s-$n-$tool.txt 2>&1
    echo "$n $tool exit $? | $(grep -h 'verdict' /tmp/s-$n-$tool.txt | tr -d '\n') | $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' /tmp/s-$n-$tool.txt | tr '\n' ' ')"
  done
done
} > $o/sanitize.txt 2>&1
wait
cp $0 $o/
tar -czf $OUT/run31.tgz -C /tmp run31
tail -3 $o/admitted.txt; tail -3 $o/fuzz.txt; cat $o/sanitize.txt
