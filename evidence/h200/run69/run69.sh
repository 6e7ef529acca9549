set -u
# run 69 (session 23): the session's final build on CUDA: the suite; the structural fuzz (every
# admitted candidate: widths P 1-3, V 1/4, U 1/2, so the values-first loops at V = 1, U = 2) and
# the generator fuzz; the values-first column kernels under racecheck and memcheck; the red team's
# negative-zero document
root=$(pwd)
o=/tmp/run69; mkdir -p $o
snap() { cp $root/.gpu/run69.sh $o/; tar -czf $OUT/run69.tgz -C /tmp run69; }
date > $o/progress.txt; snap
cd .gpu
( time sh tile-gpu/setup.sh ) > $o/setup.txt 2>&1 || { tail -5 $o/setup.txt; snap; exit 1; }
echo "setup done $(date)" >> $o/progress.txt; snap
N=$root/.gpu/tile-gpu/bin/node; EV=$root/.gpu/tile-gpu/pkg/scripts/gpu-evidence.mjs; T=$root/.gpu/tile-gpu/tile
export TILE_CACHE_DIR=/tmp/tile-cache-69 TILE_NODE=$N
D=$root/devices/nvidia-h200-calibrated.json
( timeout 150 $T suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $?" >> $o/suite.txt )
echo "suite done $(date)" >> $o/progress.txt; snap
( cd tile-gpu/pkg && timeout 200 $N $EV admitted --docs 100 --seed 20261208 --runtime cuda ) > $o/admitted.txt 2>&1; echo "admitted exit $?" >> $o/admitted.txt
echo "admitted done $(date)" >> $o/progress.txt; snap
( cd tile-gpu/pkg && timeout 100 $N $EV fuzz --count 700 --seed 20261208 --runtime cuda ) > $o/fuzz.txt 2>&1; echo "fuzz exit $?" >> $o/fuzz.txt
echo "fuzz done $(date)" >> $o/progress.txt; snap
{
for k in colsoftmax colmean_scale; do
  for opt in "--size R=8192 --size C=1024 --device $D" "--size R=517 --size C=64 --layout programs-on-lanes --programs-per-group 16 --threads 512 --unroll 8 --no-cache-input"; do
    for tool in memcheck racecheck; do
      timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $T run $root/.gpu/docs68/$k.json --runtime cuda $opt > /tmp/s69.txt 2>&1
      echo "$k [$opt] $tool exit $? | $(grep -h 'U=\|verdict' /tmp/s69.txt | tr -s ' ' | tr '\n' ' ') | $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' /tmp/s69.txt | tr '\n' ' ')"
    done
  done
done
echo "negz $(timeout 60 $T run $root/.gpu/negz.json --runtime cuda 2>&1 | grep -E 'verdict|error' | tr '\n' ' ')"
} > $o/sanitize.txt 2>&1
echo "all done $(date)" >> $o/progress.txt
snap
