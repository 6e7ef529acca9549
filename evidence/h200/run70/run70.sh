set -u
# run 70 (session 23): tile sweep of the column scaled mean and softmax at 4096x4096 and
# 2048x8192 with the calibrated record (40 candidates spread over the predicted ranking, the
# pick always): where run 68 found the automatic uncached U = 8 plan 1.12-1.17 times a cached one
root=$(pwd)
o=/tmp/run70; mkdir -p $o
snap() { cp $root/.gpu/run70.sh $o/; tar -czf $OUT/run70.tgz -C /tmp run70; }
date > $o/progress.txt; snap
cd .gpu
( time sh tile-gpu/setup.sh ) > $o/setup.txt 2>&1 || { tail -5 $o/setup.txt; snap; exit 1; }
echo "setup done $(date)" >> $o/progress.txt; snap
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_CACHE_DIR=/tmp/tile-cache-70 TILE_NODE=$N
D=$root/devices/nvidia-h200-calibrated.json
for k in colmean_scale colsoftmax; do for s in "4096 4096" "2048 8192"; do set -- $s
  timeout 130 $T sweep $root/.gpu/docs68/$k.json --size R=$1 --size C=$2 --runtime cuda --device $D --max-candidates 40 --rounds 2 --samples 3 -o $o/sweep-$k-$1x$2 > $o/sweep-$k-$1x$2.txt 2>&1
  echo "$k $1x$2 exit $? $(date)" >> $o/progress.txt; snap
done; done
echo "all done $(date)" >> $o/progress.txt
snap
