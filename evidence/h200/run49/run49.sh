set -u
# run 49 (session 17): programs on lanes, the column sum at two shapes over P, T and U (unroll:
# independent accumulators per worker), to see what the automatic plan leaves on the table
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run49; mkdir -p $o
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-49
D=$root/devices/nvidia-h200-calibrated.json
f=$root/.gpu/docs48/colsum.json
{
timeout 60 python3 $root/.gpu/col_torch.py copy 2>&1 | tail -1
for s in "4096 4096" "1024 4096"; do
  set -- $s
  for pt in "8 256" "8 512" "8 1024" "16 512" "16 1024" "32 1024"; do
    for u in 1 2 4; do
      timeout 30 $T time $f --runtime cuda --device $D --size R=$1 --size C=$2 --layout programs-on-lanes --programs-per-group ${pt% *} --threads ${pt#* } --unroll $u -o $o/t-$1x$2-${pt% *}-${pt#* }-$u.json 2>&1 | tail -1
    done
  done
  timeout 30 $T time $f --runtime cuda --device $D --size R=$1 --size C=$2 -o $o/t-$1x$2-auto.json 2>&1 | tail -1
done
} > $o/unroll.txt 2>&1
cp $root/.gpu/run49.sh $o/
tar -czf $OUT/run49.tgz -C /tmp run49
