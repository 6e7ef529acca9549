set -u
cd .gpu
sh tile-gpu/setup.sh > /tmp/setup0.txt 2>&1 || { cat /tmp/setup0.txt; exit 1; }
t=tile-gpu/tile; c=tile-gpu/pkg/cases; o=$OUT/run28; mkdir -p $o
export TILE_CACHE_DIR=/tmp/c28
D="--device nvidia-h200-calibrated --runtime cuda"
# the eleven plans whose compiled registers exceed their plan's limit (nvcc 13.0 here), the two
# others of issue 16's LayerNorm shapes, and two the limit leaves alone
L="layernorm_affine:768:6144 layernorm:2048:8192 layernorm_bf16:2048:8192 layernorm_f16:2048:8192 minmax:2048:8192 softmax:2048:8192 softmax_bf16:1024:4096 softmax_bf16:768:6144 softmax_bf16:2048:8192 softmax_f16:2048:8192 sum:2048:8192 layernorm_affine:2048:8192 layernorm_affine:4096:4096 rmsnorm:768:6144 softmax:768:6144"
{ for x in $L; do IFS=: read n R C <<EOT
$x
EOT
  echo "== $n $R x $C"; timeout 60 $t run $c/$n.json --size R=$R --size C=$C $D 2>&1 | grep -E "verdict|max abs|plan:|error" | head -4; done; } > $o/validate.txt 2>&1
grep -c "verdict: pass" $o/validate.txt; grep -B3 "verdict: fail" $o/validate.txt | head
for f in /tmp/c28/cuda/*.cubin; do cuobjdump --dump-resource-usage $f | grep -o "Function [a-zA-Z0-9_]*\|REG:[0-9]*\|STACK:[0-9]*" | paste - - -; done > $o/cubins.txt
# paired, alternated: limit on, off, on, off per plan (tile time, 4 rounds x 5 samples)
for x in $L; do IFS=: read n R C <<EOT
$x
EOT
  for k in 1 2; do
    timeout 40 $t time $c/$n.json --size R=$R --size C=$C $D --rounds 4 -o $o/on-$n-$R-$k.json > /dev/null 2>&1
    TILE_REGISTER_LIMIT=0 timeout 40 $t time $c/$n.json --size R=$R --size C=$C $D --rounds 4 -o $o/off-$n-$R-$k.json > /dev/null 2>&1
  done
done
python3 - $o <<'PY'
import json, sys, glob, statistics as st
o = sys.argv[1]; rows = {}
for f in sorted(glob.glob(o + "/o*-*.json")):
    side = f.split("/")[-1].split("-")[0]; key = "-".join(f.split("/")[-1].split("-")[1:3])
    j = json.load(open(f)); e = j["entries"][0]
    rows.setdefault(key, {}).setdefault(side, []).append((e.get("medianUs"), e.get("registerLimit"), e.get("pipelineMaxThreads")))
print("| plan | limit | on us (2 runs) | off us (2 runs) | off / on |")
for k, v in rows.items():
    on = [x[0] for x in v.get("on", []) if x[0]]; off = [x[0] for x in v.get("off", []) if x[0]]
    lim = v.get("on", [(0, None, 0)])[0][1]
    r = (st.mean(off) / st.mean(on)) if on and off else float("nan")
    print(f"| {k} | {lim} | {', '.join('%.2f' % x for x in on)} | {', '.join('%.2f' % x for x in off)} | {r:.3f} |")
PY
