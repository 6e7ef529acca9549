set -u
# run 60 (session 20): the column sum's P/T sweep with main's emitter (commit 188c00c: the SIMD-group
# combine), which runs 57-59 did not bring back; the copy bandwidth in the same run
root=$(pwd)
o=/tmp/run60; mkdir -p $o
snap() { cp $root/.gpu/run60.sh $root/.gpu/list57-colsum.json $o/; tar -czf $OUT/run60.tgz -C /tmp run60; }
date > $o/progress.txt; snap
cd .gpu
( time sh tile-gpu/setup.sh ) > $o/setup.txt 2>&1 || { tail -5 $o/setup.txt; snap; exit 1; }
echo "setup done $(date)" >> $o/progress.txt; snap
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-60
D=$root/devices/nvidia-h200-calibrated.json
{
timeout -s KILL 60 python3 $root/.gpu/col_torch.py copy 2>&1 | tail -1
echo "copy done $(date)" >> $o/progress.txt
timeout -s KILL 300 $T time $root/.gpu/list57-colsum.json --runtime cuda --device $D --rounds 2 --samples 3 -o $o/sweep-colsum.json 2>&1 | tail -2
echo "sweep done $(date)" >> $o/progress.txt
} > $o/timing.txt 2>&1
snap
