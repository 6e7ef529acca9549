set -u
# run 33 (session 8): the suite, then the calibrated record's automatic plans (the pairs now V = 4)
# beside PyTorch eager at six shapes, then a sweep of LayerNorm (affine) at 2048x8192
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=/tmp/run33; mkdir -p $o/evidence3
T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$root/.gpu/tile-gpu/bin/node
SHAPES="1024x4096 768x6144 4096x4096 2048x8192 256x3072 37x1537" SKIP="smoke bench audit sweep" TORCH_COMPILE=0 \
  TORCH_DEVICE=nvidia-h200-calibrated T_TORCH=230 BUDGET=320 bash tile-gpu/pkg/scripts/cuda-evidence-3.sh $o/evidence3 > $o/driver.txt 2>&1
gzip -9n $o/evidence3/tile-times.json 2>/dev/null
export TILE_CACHE_DIR=/tmp/tile-cache-33
cd tile-gpu/pkg
t0=$(date +%s)
timeout 200 $T sweep layernorm_affine --size R=2048 --size C=8192 --runtime cuda --device nvidia-h200-calibrated --max-candidates 24 --rounds 2 --samples 5 --batch-window-ms 2 -o $o/sweep-ln-2048x8192 > $o/sweep-ln.txt 2>&1
echo "sweep exit $? $(( $(date +%s) - t0 )) s" >> $o/sweep-ln.txt
gzip -9n $o/sweep-ln-2048x8192/sweep.json 2>/dev/null
cp $root/.gpu/run33.sh $o/
tar -czf $OUT/run33.tgz -C /tmp run33
cat $o/evidence3/steps.txt | grep -v skipped
grep -h "passed" $o/evidence3/suite.txt | tail -2
grep "copy bandwidth" $o/evidence3/torch.md; grep "^| [a-z_]* (auto)" $o/evidence3/torch.md | cut -c1-220
tail -2 $o/sweep-ln.txt; grep -E "^\| (P=|R=)" $o/sweep-ln-2048x8192/sweep.md | cut -c1-120 | head -30
