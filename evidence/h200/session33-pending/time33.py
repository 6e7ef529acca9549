# time the variants of gen.mjs (translated by tile_cuda_translate, compiled by NVRTC with the CUDA runtime's
# options) with CUDA events, interleaved rounds; every output checked against FP64 first.
import json, sys, statistics as st
import cupy as cp, numpy as np
meta = json.load(open("meta.json"))
reps = int(sys.argv[1]) if len(sys.argv) > 1 else 9
opts = ("--std=c++17", "--ftz=false", "--prec-div=true", "--prec-sqrt=true", "--fmad=true", "-lineinfo")
rng = np.random.default_rng(1)
kern = {n: cp.RawModule(code=open(n + ".cu").read(), options=opts).get_function(m["entry"]) for n, m in meta.items()}
def ref(kind, xd):
    if kind in ("sm", "smi"):
        e = np.exp(xd - xd.max(1, keepdims=True)); return e / e.sum(1, keepdims=True)
    mu = xd.mean(1, keepdims=True); var = ((xd - mu) ** 2).mean(1, keepdims=True)
    return (xd - mu) / np.sqrt(var + 1e-5)
prep = {}
for n, m in meta.items():
    R, C = m["R"], m["C"]
    x0 = rng.standard_normal((R, C), dtype=np.float32) * 3
    x = cp.asarray(x0)
    args = (x,) if m["nbuf"] == 1 else (x, cp.zeros_like(x))
    kern[n]((m["groups"],), (m["threads"],), args); cp.cuda.Device().synchronize()
    out = args[-1]
    err = float(np.max(np.abs(cp.asnumpy(out).astype(np.float64) - ref(m["kind"], x0.astype(np.float64)))))
    print(f"check {n}: max abs err vs fp64 {err:.3e}", flush=True)
    prep[n] = (args, 2 * R * C * 4)
batch = 100
ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
times = {n: [] for n in meta}
names = list(meta)
for r in range(reps):
    for n in (names if r % 2 == 0 else names[::-1]):
        a = prep[n][0]; m = meta[n]; gr = (m["groups"],); t = (m["threads"],)
        for _ in range(3): kern[n](gr, t, a)
        ev0.record()
        for _ in range(batch): kern[n](gr, t, a)
        ev1.record(); ev1.synchronize()
        times[n].append(cp.cuda.get_elapsed_time(ev0, ev1) * 1000 / batch)
src = cp.empty(1 << 28, dtype=cp.float32); dst = cp.empty_like(src)
bw = []
for _ in range(10):
    ev0.record(); cp.cuda.runtime.memcpy(dst.data.ptr, src.data.ptr, src.nbytes, 3); ev1.record(); ev1.synchronize()
    bw.append(2 * src.nbytes / (cp.cuda.get_elapsed_time(ev0, ev1) / 1000) / 1e9)
copybw = st.median(bw)
print(f"device: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; 1 GiB D2D copy {copybw:.1f} GB/s (median of 10)")
print(f"{'variant':18s} {'median us':>10s} {'min':>8s} {'max':>8s} {'frac copy':>9s}  regs local")
for n in names:
    med = st.median(times[n])
    print(f"{n:18s} {med:10.2f} {min(times[n]):8.2f} {max(times[n]):8.2f} {prep[n][1] / (med * 1e-6) / 1e9 / copybw:9.3f}  {kern[n].num_regs} {kern[n].local_size_bytes}")
