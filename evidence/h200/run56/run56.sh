set -u
# run 56 (session 19): run 55's sweep again with the calibrated record (run 55 gave a record with its
# register fields 0, which a device record refuses): every programs-on-lanes P/T of the column
# softmax and column max+min at five shapes, cached (where the register file holds the stripe: the
# register-fit guard of this session) and uncached
root=$(pwd)
cd .gpu
[ -x tile-gpu/bin/node ] || sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run56; mkdir -p $o
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-56
{
for k in colsoftmax colmax; do timeout 200 $T time $root/.gpu/list54-$k.json --runtime cuda --device $root/devices/nvidia-h200-calibrated.json --rounds 2 --samples 3 -o $o/sweep-$k.json 2>&1 | tail -3; done
} > $o/timing.txt 2>&1
cp $root/.gpu/run56.sh $o/
tar -czf $OUT/run56.tgz -C /tmp run56
