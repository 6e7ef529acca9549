# regs25.py: registers NVRTC gives the same units with the CUDA runtime's options, with and
# without -lineinfo (CuPy RawModule, cubin), and the time of each
import cupy as cp, numpy as np, glob, re
BASE = ('--std=c++17', '--ftz=false', '--prec-div=true', '--prec-sqrt=true', '--fmad=true')
print("nvrtc", cp.cuda.nvrtc.getVersion(), "driver", cp.cuda.runtime.driverGetVersion())
for f in sorted(glob.glob("*.cu")):
    src = open(f).read(); entry = re.search(r"(tile_entry_\w+)", src).group(1)
    T = int(re.search(r"T=(\d+)", src).group(1)); groups = int(re.search(r"groups=(\d+)", src).group(1))
    R = groups; C = 6144 if "768" in f else 8192
    X = cp.random.standard_normal((R, C), dtype=cp.float32); G = cp.ones(C, cp.float32); B = cp.zeros(C, cp.float32); Y = cp.empty_like(X)
    for opts in (BASE, BASE + ('-lineinfo',)):
        k = cp.RawModule(code=src, options=opts).get_function(entry)
        s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
        for r in range(7):
            s.record()
            for j in range(200): k((groups,), (T,), (X, G, B, Y))
            e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e) * 1000 / 200)
        print(f, "-lineinfo" if len(opts) > len(BASE) else "plain", "registers", k.attributes['num_regs'], "median us %.2f" % np.median(ts))
