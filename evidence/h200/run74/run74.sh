set -u
# run 74 (session 25): the shortest check left to this session's device time: the suite on CUDA,
# then session 24's middle-axis documents (docs71/midsum.json, midsoftmax.json) at the automatic
# plan and two forced mappings, its held-out documents (docs71/heldout/) and this session's flat
# nest outputs (docs73/: Y[(a * B + b) * C + c], X[(a * B + b) * R + r], scaled, from the loops'
# mins), each validated on CUDA against the FP64 oracle.
root=$(pwd)
o=/tmp/run74; mkdir -p $o
snap() { cp $root/.gpu/run74.sh $o/ 2>/dev/null; tar -czf $OUT/run74.tgz -C /tmp run74; }
date > $o/progress.txt; snap
cd .gpu
( time sh tile-gpu/setup.sh ) > $o/setup.txt 2>&1 || { tail -5 $o/setup.txt; snap; exit 1; }
echo "setup done $(date)" >> $o/progress.txt; snap
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-74
( timeout 60 $T suite --runtime cuda > $o/suite.txt 2>&1; echo "suite exit $?" >> $o/suite.txt )
echo "suite done $(date)" >> $o/progress.txt; snap
for f in $root/.gpu/docs73/*.json $root/.gpu/docs71/midsum.json $root/.gpu/docs71/midsoftmax.json $root/.gpu/docs71/heldout/*.json; do
  for opt in "" "--layout programs-on-lanes --programs-per-group 8 --threads 256"; do
    echo "$(basename $f) [$opt] $(timeout 30 $T run $f --runtime cuda $opt 2>&1 | grep -E 'cooperative|serial|fused|verdict|error' | tr '\n' ' ')" >> $o/fixtures.txt
    snap
  done
done
echo "all done $(date)" >> $o/progress.txt; snap
