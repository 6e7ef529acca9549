set -u
# run 54 (session 19): column stripes kept in registers (private-ownership proves [v, c] stripes):
# the lanes fixtures validated on CUDA at the automatic plans and at cached ragged mappings; every
# programs-on-lanes P/T of the column softmax and column max+min at five shapes, cached and
# uncached, with the calibrated record's register fields at 0 (so a stripe past the register file
# is cached and spills: what the session's register-fit guard declines); the automatic plans of
# the four column fixtures timed; PyTorch and the copy bandwidth in the same run
root=$(pwd)
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
o=$OUT/run54; mkdir -p $o
N=$root/.gpu/tile-gpu/bin/node; T=$root/.gpu/tile-gpu/tile
export TILE_NODE=$N TILE_CACHE_DIR=/tmp/tile-cache-54
D=$root/devices/nvidia-h200-calibrated.json
one() {
  f=$1; shift
  timeout 60 $T run $f --runtime cuda "$@" --json 2>/dev/null | python3 -c "import json,sys
try:
  d=json.load(sys.stdin); m=d.get('plan',{}).get('mapping',{}) or {}
  print('pass' if d.get('passed') else 'FAIL', d.get('plan',{}).get('realization',''), m.get('layout',''), 'P=%s S=%s T=%s V=%s cached=%s' % (m.get('P'), m.get('S'), m.get('T'), m.get('V'), m.get('cached')), (d.get('error') or '')[:100])
except Exception as e: print('no-json', e)"
}
{
for f in $root/.gpu/docs50/*.json; do
  n=$(basename $f .json)
  for opt in "" "--size R=1024 --size C=4096" "--size R=203 --size C=37 --layout programs-on-lanes --programs-per-group 8 --threads 256" "--size R=97 --size C=13 --layout programs-on-lanes --programs-per-group 4 --threads 256 --unroll 2" "--size R=203 --size C=7 --layout workers-on-lanes --vector 4 --threads 64"; do
    echo "$n [$opt] $(one $f --device $D $opt)"
  done
done
} > $o/fixtures.txt 2>&1
{
timeout 60 python3 $root/.gpu/col_torch.py copy 2>&1 | tail -1
for s in "1024 4096" "4096 4096" "8192 1024" "2048 8192" "16384 512"; do
  set -- $s
  for op in softmax aminmax sum; do timeout 60 python3 $root/.gpu/col_torch.py $op $1 $2 2>&1 | tail -1; done
done
timeout 150 $T time $root/.gpu/list54auto.json --runtime cuda --device $D -o $o/auto.json 2>&1 | tail -3
for k in colsoftmax colmax; do timeout 165 $T time $root/.gpu/list54-$k.json --runtime cuda --device $root/.gpu/nobase.json --rounds 2 --samples 3 -o $o/sweep-$k.json 2>&1 | tail -3; done
timeout 60 python3 $root/.gpu/col_torch.py copy 2>&1 | tail -1
} > $o/timing.txt 2>&1
cp $root/.gpu/run54.sh $root/.gpu/list54-*.json $root/.gpu/list54auto.json $root/.gpu/nobase.json $root/.gpu/col_torch.py $o/
ls $o > /dev/null
