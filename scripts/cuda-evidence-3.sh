#!/bin/bash
# cuda-evidence-3.sh: issue 17's measurements on a CUDA GPU, unattended, from a `npm run pack:gpu`
# folder (Node carried in it, no npm). Run as:
#     sh tile-gpu/setup.sh && bash tile-gpu/pkg/scripts/cuda-evidence-3.sh OUTDIR [--quick]
# Every step has its own time limit (`timeout`), so one hang does not lose the rest, and writes
# its files under OUTDIR (each command's output beside its results):
#   env.txt                  nvidia-smi, node, the runtime's device name; setup.txt: the native build
#   smoke.txt                tile run cases/softmax.json --runtime cuda (does the runtime work at all?)
#   suite.txt                tile suite --runtime cuda
#   bench-packing/, bench-fusion/   tile bench (bounded by --rounds/--samples/--batch-window-ms/
#                            --metrics, recorded in results.json) + audit.txt (tile audit's receipt)
#   sweeps/<case>-<R>x<C>/   tile sweep --device nvidia-h200 (sweep.json, sweep.md, sweep.txt)
#   torch.json, torch.md, torch.txt   bench/torch-side-by-side.py (Tile via `tile time` in Node,
#                            PyTorch eager and torch.compile, copy bandwidth, fractions)
#   steps.txt                every step: its command, exit status and seconds
# --quick: small settings for a first look (one shape per sweep case, no torch.compile).
# SKIP="suite bench audit" skips the steps whose name starts with one of those words (setup,
# smoke, suite, bench, audit, torch, sweep). For testing this script elsewhere: RUNTIME=host
# SHAPES="8x512" BUDGET=120 (host times are CPU wall clock and are labelled so in every file).
# EXTRA_SWEEPS="layernorm_affine:16384x32" adds single sweeps (case:RxC) after the shapes.
# TORCH_DEVICE=nvidia-h200-calibrated: the device record Tile plans with in the PyTorch side by side.
set -u
out=${1:?usage: cuda-evidence-3.sh OUTDIR [--quick]}
quick=${2:-}
pack=$(cd "$(dirname "$0")/../.." && pwd)
pkg=$pack/pkg
node=$pack/bin/node
tile=$pack/tile
mkdir -p "$out" "$out/sweeps"
out=$(cd "$out" && pwd)
export TILE_CACHE_DIR=/tmp/tile-cache-evidence-3 TILE_NODE=$node
start=$(date +%s)

# The whole script stays inside BUDGET seconds (default 560: one device call is 600 s): each step
# runs under min(its own limit, the time left); a step with under 5 s left is skipped. Order =
# priority: setup, smoke, suite, bench (+ audits), the PyTorch side by side, then the sweeps,
# shape by shape (every case at one shape before the next shape), taking whatever is left.
budget=${BUDGET:-560}
deadline=$(( start + budget ))
T_SETUP=150 T_SMOKE=30 T_SUITE=60 T_BENCH_PACK=100 T_BENCH_FUSION=45 T_AUDIT=20
T_TORCH=${T_TORCH:-150} T_SWEEP=${T_SWEEP:-40}   # T_TORCH, T_SWEEP: longer limits for large shapes or many candidates
shapes=${SHAPES:-"1024x4096 256x3072 768x6144 37x1537"}
[ "$quick" = "--quick" ] && shapes=${SHAPES:-"1024x4096"}
rt=${RUNTIME:-cuda}
sweep_cases="softmax rmsnorm layernorm_affine"
n_sweeps=$(( $(echo $sweep_cases | wc -w) * $(echo $shapes | wc -w) ))
{
  echo "cuda-evidence-3.sh $(date -u +%FT%TZ) from $pack"
  echo "time budget: estimate ~6 min (setup ~60 s, smoke 5 s, suite 15 s, bench packing ~60 s + fusion ~20 s, audits ~5 s, torch side by side ~90 s, $n_sweeps sweeps ~10 s each);"
  echo "             hard limit $budget s in all (BUDGET); per step: setup $T_SETUP, smoke $T_SMOKE, suite $T_SUITE, bench $T_BENCH_PACK + $T_BENCH_FUSION, audits $T_AUDIT each, torch $T_TORCH, each sweep $T_SWEEP"
} | tee "$out/steps.txt"

# step NAME LIMIT FILE CMD...: runs CMD under min(LIMIT, time left), output to FILE, one line in steps.txt
step() {
  local name=$1 limit=$2 file=$3; shift 3
  local now=$(date +%s)
  local left=$(( deadline - now ))
  mkdir -p "$(dirname "$file")"
  case " ${SKIP:-} " in *" ${name%% *} "*)
    echo "skipped: SKIP=${SKIP}" > "$file"; printf '%-34s skipped (SKIP)\n' "$name" | tee -a "$out/steps.txt"; return 124;;
  esac
  if [ "$left" -lt 5 ]; then
    echo "skipped: the $budget s budget is spent" > "$file"
    printf '%-34s skipped (budget spent)\n' "$name" | tee -a "$out/steps.txt"
    return 124
  fi
  [ "$left" -lt "$limit" ] && limit=$left
  { echo "\$ $*"; echo; } > "$file"
  timeout -k 3 "$limit" "$@" >> "$file" 2>&1
  local rc=$?
  local dt=$(( $(date +%s) - now ))
  echo "exit $rc after ${dt} s (limit ${limit} s)" >> "$file"
  printf '%-34s exit %-3s %4s s (limit %s s, at +%s s)\n' "$name" "$rc" "$dt" "$limit" "$(( $(date +%s) - start ))" | tee -a "$out/steps.txt"
  return $rc
}

step setup "$T_SETUP" "$out/setup.txt" sh "$pack/setup.sh"
{ nvidia-smi 2>&1 | head -20; "$node" --version; uname -a; } > "$out/env.txt" 2>&1
cd "$pkg"
step "smoke: tile run softmax" "$T_SMOKE" "$out/smoke.txt" "$tile" run cases/softmax.json --runtime "$rt"
step "suite" "$T_SUITE" "$out/suite.txt" "$tile" suite --runtime "$rt"

# bench: the protocols as written, bounded on the command line (recorded in results.json and
# applied by the audit): 4 rounds, 5 samples, 2 ms batch window, the two GPU metrics
metrics=gpuBatch,gpuSingle
[ "$rt" = host ] && metrics=hostBatch
bounds="--rounds 4 --samples 5 --batch-window-ms 2 --warmup 3 --metrics $metrics"
step "bench packing" "$T_BENCH_PACK" "$out/bench-packing.txt" "$tile" bench bench/protocols/packing.json --runtime "$rt" -o "$out/bench-packing" $bounds
step "audit packing" "$T_AUDIT" "$out/bench-packing/audit.txt" "$tile" audit "$out/bench-packing" --root "$pkg"
step "bench fusion" "$T_BENCH_FUSION" "$out/bench-fusion.txt" "$tile" bench bench/protocols/fusion.json --runtime "$rt" -o "$out/bench-fusion" $bounds
step "audit fusion" "$T_AUDIT" "$out/bench-fusion/audit.txt" "$tile" audit "$out/bench-fusion" --root "$pkg"

# PyTorch beside Tile (Tile timed by `tile time` in Node, a subprocess of the script)
compile="--compile --compile-budget-s 50"
[ "$quick" = "--quick" ] && compile=""
[ "${TORCH_COMPILE:-1}" = 0 ] && compile=""   # TORCH_COMPILE=0: eager only (torch.compile's calls measure host overhead)
step "torch side by side" "$T_TORCH" "$out/torch.txt" python3 -X faulthandler bench/torch-side-by-side.py --runtime "$rt" \
  --out "$out/torch.json" --md "$out/torch.md" --tile-times-out "$out/tile-times.json" --tile-timeout "$(( T_TORCH > 100 ? T_TORCH - 20 : 80 ))" --device "${TORCH_DEVICE:-nvidia-h200}" --shapes "$(echo $shapes | tr ' ' ',')" $compile

# sweeps: every admissible candidate (at most 32: the model's pick and an even spread of the
# predicted ranking), predictions with the H200 device record (devices/nvidia-h200.json)
for s in $shapes; do
  for c in $sweep_cases; do
    r=${s%x*}; k=${s#*x}
    d="$out/sweeps/$c-$s"
    step "sweep $c $s" "$T_SWEEP" "$d/sweep.txt" "$tile" sweep "$c" --size "R=$r" --size "C=$k" --runtime "$rt" --device nvidia-h200 \
      --max-candidates "${MAX_CANDIDATES:-32}" --rounds 2 --samples 5 --batch-window-ms 2 -o "$d"
  done
done

# EXTRA_SWEEPS="case:RxC ...": further sweeps after the shapes above (odd corners, other operators)
# (case:RxC:DEVICE sweeps with another device record's predictions, e.g. nvidia-h200-calibrated)
for cs in ${EXTRA_SWEEPS:-}; do
  c=${cs%%:*}; s=${cs#*:}; dev=nvidia-h200
  case "$s" in *:*) dev=${s#*:}; s=${s%%:*};; esac
  r=${s%x*}; k=${s#*x}
  d="$out/sweeps/$c-$s"; [ "$dev" != nvidia-h200 ] && d="$d-$dev"
  step "sweep $c $s $dev" "$T_SWEEP" "$d/sweep.txt" "$tile" sweep "$c" --size "R=$r" --size "C=$k" --runtime "$rt" --device "$dev" \
    --max-candidates "${MAX_CANDIDATES:-32}" --rounds 2 --samples 5 --batch-window-ms 2 -o "$d"
done

echo "total $(( $(date +%s) - start )) s" | tee -a "$out/steps.txt"
grep -h "passed, \|failed" "$out/suite.txt" | tail -3
for b in packing fusion; do grep -h '"verdict"' "$out/bench-$b/audit.txt" 2>/dev/null | sed "s/^/audit $b: /"; done
for f in "$out"/sweeps/*/sweep.txt; do grep -h " regret " "$f" 2>/dev/null; done
[ -f "$out/torch.md" ] && cat "$out/torch.md"
exit 0
