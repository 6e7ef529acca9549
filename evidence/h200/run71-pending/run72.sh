set -u
# run 72 (session 25): programs on lanes at P = 4 with U = 1, 4, 8 (values first) for the column
# softmax and scaled mean at 16384x512, 8192x1024, 4096x4096, beside the automatic plan and P = 8
# T = 1024 U = 4/8, calibrated record (list72.json). Run after run71.sh on the same machine (its setup).
root=$(pwd)
o=/tmp/run72; mkdir -p $o
snap() { cp $root/.gpu/run72.sh $root/.gpu/list72.json $o/ 2>/dev/null; tar -czf $OUT/run72.tgz -C /tmp run72; }
date > $o/progress.txt; snap
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-72
cd .gpu
timeout ${1:-200} $T time $root/.gpu/list72.json --runtime cuda --device $root/devices/nvidia-h200-calibrated.json --rounds 2 --samples 3 -o $o/time72.json > $o/timing.txt 2>&1
echo "time exit $? $(date)" >> $o/progress.txt; snap
