# run 15: time the variants of gen15.py (translated by tile_cuda_translate, compiled by NVRTC with the
# CUDA runtime's own options) with CUDA events, interleaved in rounds; check each against FP64.
# usage: python3 time15.py [reps] > variants.txt
import json, sys, statistics as st
import cupy as cp, numpy as np
meta = json.load(open("meta.json"))
reps = int(sys.argv[1]) if len(sys.argv) > 1 else 15
opts = ("--std=c++17", "--ftz=false", "--prec-div=true", "--prec-sqrt=true", "--fmad=true", "-lineinfo")
shapes = {"768": (768, 6144), "1024": (1024, 4096)}
rng = np.random.default_rng(1)
bufs = {}
for k, (R, C) in shapes.items():
    bufs[k] = (cp.asarray(rng.standard_normal((R, C), dtype=np.float32) * 3),
               cp.asarray(rng.standard_normal(C, dtype=np.float32)), cp.asarray(rng.standard_normal(C, dtype=np.float32)), R, C)
import re
def kind(n): return re.match(r"(ln|rms|sm|gelu|pair|copy2|copy)", n).group(1)
kern = {n: cp.RawModule(code=open(n + ".cu").read(), options=opts).get_function(m["entry"]) for n, m in meta.items()}
prep = {}
for n in meta:
    x, g, b, R, C = bufs["1024" if "1024" in n else "768"]
    k = kind(n)
    outs = [cp.zeros_like(x) for _ in range(2 if k in ("pair", "gelu", "copy2") else 1)]
    ins = {"ln": (x, g, b), "rms": (x, g), "sm": (x,)}.get(k, (x,))
    a = tuple(ins) + tuple(outs)
    assert len(a) == meta[n]["nbuf"], (n, len(a), meta[n]["nbuf"])
    nbytes = {"ln": 2 * R * C * 4 + 2 * C * 4, "rms": 2 * R * C * 4 + C * 4, "sm": 2 * R * C * 4, "copy": 2 * R * C * 4}.get(k, 3 * R * C * 4)
    prep[n] = (a, outs, x, g, b, nbytes)
for n, (a, *_r) in prep.items():
    kern[n]((meta[n]["groups"],), (meta[n]["threads"],), a)
cp.cuda.Device().synchronize()
for n, (a, outs, x, g, b, nb) in prep.items():
    k = kind(n); xd = cp.asnumpy(x).astype(np.float64)
    if k == "ln":
        mu = xd.mean(1, keepdims=True); var = ((xd - mu) ** 2).mean(1, keepdims=True)
        ref = [(xd - mu) / np.sqrt(var + 1e-5) * cp.asnumpy(g) + cp.asnumpy(b)]
    elif k == "sm":
        e = np.exp(xd - xd.max(1, keepdims=True)); ref = [e / e.sum(1, keepdims=True)]
    elif k == "pair":
        s = 1 / (1 + np.exp(-xd)); ref = [s, s * (1 - s)]
    elif k in ("copy", "copy2"):
        ref = [xd] * len(outs)
    else:
        print(f"check {n}: (validated by the product's suite)"); continue
    err = max(float(np.max(np.abs(cp.asnumpy(o) - r))) for o, r in zip(outs, ref))
    print(f"check {n}: max abs err vs fp64 {err:.3e}")
batch = 200
ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
times = {n: [] for n in meta}
names = list(meta)
for r in range(reps):
    order = names if r % 2 == 0 else names[::-1]
    for n in order:
        a = prep[n][0]; gr = (meta[n]["groups"],); t = (meta[n]["threads"],)
        for _ in range(5): kern[n](gr, t, a)
        ev0.record()
        for _ in range(batch): kern[n](gr, t, a)
        ev1.record(); ev1.synchronize()
        times[n].append(cp.cuda.get_elapsed_time(ev0, ev1) * 1000 / batch)
src = cp.empty(1 << 28, dtype=cp.float32); dst = cp.empty_like(src)
cp.cuda.runtime.memcpy(dst.data.ptr, src.data.ptr, src.nbytes, 3)
bw = []
for _ in range(10):
    ev0.record(); cp.cuda.runtime.memcpy(dst.data.ptr, src.data.ptr, src.nbytes, 3); ev1.record(); ev1.synchronize()
    bw.append(2 * src.nbytes / (cp.cuda.get_elapsed_time(ev0, ev1) / 1000) / 1e9)
copybw = st.median(bw)
print(f"device: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; 1 GiB D2D copy {copybw:.1f} GB/s (median of 10)")
print(f"{'variant':22s} {'median us':>10s} {'min':>8s} {'max':>8s} {'frac copy':>9s}  regs")
for n in names:
    med = st.median(times[n])
    print(f"{n:22s} {med:10.2f} {min(times[n]):8.2f} {max(times[n]):8.2f} {prep[n][5] / (med * 1e-6) / 1e9 / copybw:9.3f}  {kern[n].num_regs}")
