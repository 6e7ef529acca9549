set -u
# run 52 (session 18): the column softmax over every programs-on-lanes P/S at three shapes, to see
# how far the automatic plan of d357a95 is from the best (run 51: P=32 S=1 at 4096x4096 took 108.80 us
# where run 50's P=16 S=2 took 94.92)
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run52; mkdir -p $o
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-52
D=$root/devices/nvidia-h200-calibrated.json
{
timeout 60 python3 $root/.gpu/col_torch.py copy 2>&1 | tail -1
for s in "4096 4096" "8192 1024" "16384 512"; do
  set -- $s
  for pt in "8 256" "8 512" "8 768" "8 1024" "16 512" "16 1024" "32 1024"; do
    timeout 30 $T time $root/.gpu/docs50/colsoftmax.json --runtime cuda --device $D --size R=$1 --size C=$2 --layout programs-on-lanes --programs-per-group ${pt% *} --threads ${pt#* } -o $o/t-$1x$2-${pt% *}-${pt#* }.json 2>&1 | tail -1
  done
  timeout 30 $T time $root/.gpu/docs50/colsoftmax.json --runtime cuda --device $D --size R=$1 --size C=$2 -o $o/t-$1x$2-auto.json 2>&1 | tail -1
done
} > $o/colsoftmax.txt 2>&1
cp $root/.gpu/run52.sh $o/
tar -czf $OUT/run52.tgz -C /tmp run52
