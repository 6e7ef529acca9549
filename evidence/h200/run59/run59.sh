set -u
# run 59 (session 20): what run 58 did not reach (its PyTorch column softmax took the time): the
# column sum's P/T sweep and unrolled uncached loops, with main's emitter of run 58 (unchanged),
# the copy bandwidth in the same run
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run59; mkdir -p $o
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-59
D=$root/devices/nvidia-h200-calibrated.json
snap() { cp $root/.gpu/run59.sh $root/.gpu/list58-unroll.json $root/.gpu/list57-colsum.json $o/; tar -czf $OUT/run59.tgz -C /tmp run59; }
{
timeout 60 python3 $root/.gpu/col_torch.py copy 2>&1 | tail -1
timeout 200 $T time $root/.gpu/list57-colsum.json --runtime cuda --device $D --rounds 2 --samples 3 -o $o/sweep-colsum.json 2>&1 | tail -2
snap
timeout 150 $T time $root/.gpu/list58-unroll.json --runtime cuda --device $D --rounds 2 --samples 3 -o $o/unroll.json 2>&1 | tail -2
timeout 60 python3 $root/.gpu/col_torch.py copy 2>&1 | tail -1
} > $o/timing.txt 2>&1
snap
