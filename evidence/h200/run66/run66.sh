set -u
# run 66 (session 22): the final build on CUDA: the suite; the row and column max+min at the
# automatic plan and forced mappings; the read-back of a stored f32 infinity (ovfread.json: the
# oracle now stores a value past the f32 range as its infinity)
root=$(pwd)
o=/tmp/run66; mkdir -p $o
snap() { cp $root/.gpu/run66.sh $root/.gpu/docs61/ovfread.json $o/; tar -czf $OUT/run66.tgz -C /tmp run66; }
date > $o/progress.txt; snap
cd .gpu
( time sh tile-gpu/setup.sh ) > $o/setup.txt 2>&1 || { tail -5 $o/setup.txt; snap; exit 1; }
echo "setup done $(date)" >> $o/progress.txt; snap
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-66
D=$root/devices/nvidia-h200-calibrated.json
( timeout 150 $T suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $?" >> $o/suite.txt )
echo "suite done $(date)" >> $o/progress.txt; snap
{
for f in $root/.gpu/docs61/minmax.json $root/.gpu/docs61/colmax.json; do
  for opt in "" "--size R=1024 --size C=4096" "--size R=4096 --size C=4096" "--size R=2048 --size C=8192 --threads 256 --programs-per-group 1" "--size R=33 --size C=4099 --threads 128 --programs-per-group 1" "--no-fuse"; do
    echo "$(basename $f) [$opt] $(timeout 60 $T run $f --runtime cuda --device $D $opt 2>&1 | grep -E 'verdict|error' | tr '\n' ' ')"
  done
done
for opt in "" "--input-range -0.5,0.5"; do echo "ovfread [$opt] $(timeout 60 $T run $root/.gpu/docs61/ovfread.json --runtime cuda $opt 2>&1 | grep -E 'verdict|error|Z ' | tr '\n' ' ')"; done
} > $o/fixtures.txt 2>&1
echo "all done $(date)" >> $o/progress.txt
snap
