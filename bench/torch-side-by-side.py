#!/usr/bin/env python3
"""Tile's kernels beside PyTorch's eager kernels on one CUDA GPU, in one process.

Issue 17, items 6 (the ratio per case) and 7 (the physical limit). For each case and shape:
  - Tile: the MSL of `tile emit CASE --size R=.. --size C=.. --json` (the automatic plan, and for
    the reductions also P1/T256 and P2/T512), compiled and dispatched through the CUDA runtime's
    C ABI (build/native/libtile_cuda.so, loaded here with ctypes); its GPU time is the CUDA-event
    time of `tile_dispatch(..., repeat=REPS)` over REPS;
  - PyTorch: the eager kernels with preallocated outputs where an out= form exists (softmax,
    layer_norm, sigmoid and its backward, gelu and its backward; rms_norm allocates), timed with
    torch.cuda.Event around REPS calls;
  - both outputs are checked against a float64 reference (|err| <= 2e-6 + 2e-5 |ref|);
  - minimum bytes = each input read once + each output written once; over the time it is a
    bandwidth, reported as a fraction of the device-to-device copy bandwidth measured first.
With --tile-times FILE (written by `node scripts/gpu-evidence.mjs time-kernels --out FILE` on
the same GPU just before), Tile's times and validation come from that file instead of ctypes
(loading libtile_cuda into the PyTorch process crashed in tile_compile on the H200, cause not
found). Times are the median of TRIALS batches. Run from the repository (or a `npm run pack:gpu`
folder): python3 bench/torch-side-by-side.py [--out FILE.json]. Needs torch with CUDA and the
CUDA runtime built (npm run build:native on the GPU machine).
"""
import ctypes
import json
import os
import shutil
import statistics
import subprocess
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPS, TRIALS = 50, 7
SHAPES = [(37, 1537), (256, 3072), (768, 6144), (1024, 4096)]
CASES = ["softmax", "layernorm_affine", "rmsnorm", "sigmoid_pair", "gelu_pair"]
REDUCTIONS = {"softmax", "layernorm_affine", "rmsnorm"}
VARIANTS = {"auto": [], "P1/T256": ["--programs-per-group", "1", "--threads", "256"],
            "P2/T512": ["--programs-per-group", "2", "--threads", "512"]}


def node():
    for cand in [os.environ.get("TILE_NODE"), shutil.which("node"), os.path.join(ROOT, "..", "bin", "node")]:
        if cand and os.path.exists(cand):
            return cand
    sys.exit("no node: set TILE_NODE")


def emit(case, r, c, extra):
    cmd = [node(), os.path.join(ROOT, "shell-node", "bin", "tile.mjs"), "emit", os.path.join(ROOT, "cases", case + ".json"),
           "--size", f"R={r}", "--size", f"C={c}", "--json", *extra]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


class Tile:
    """The tile_native.h ABI of libtile_cuda.so through ctypes."""

    def __init__(self):
        lib = ctypes.CDLL(os.path.join(ROOT, "build", "native", "libtile_cuda.so"))
        P, I, S = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
        self.lib = lib
        sig = {
            "tile_open": ([ctypes.POINTER(P)], I), "tile_last_error": ([P], ctypes.c_char_p),
            "tile_device_name": ([P], ctypes.c_char_p),
            "tile_compile": ([P, ctypes.c_char_p, ctypes.POINTER(P)], I),
            "tile_pipeline": ([P, ctypes.c_char_p, ctypes.POINTER(P), ctypes.POINTER(I)], I),
            "tile_buffer_new": ([P, S, ctypes.POINTER(P)], I), "tile_buffer_write": ([P, S, P, S], I),
            "tile_buffer_read": ([P, S, P, S], I), "tile_buffer_free": ([P], None),
            "tile_pipeline_free": ([P], None), "tile_library_free": ([P], None),
            "tile_dispatch": ([P, ctypes.POINTER(P), I, ctypes.POINTER(I), I, I, I, I, I, I, I, I], I),
            "tile_last_times": ([P, ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double)], I),
        }
        for name, (args, res) in sig.items():
            f = getattr(lib, name)
            f.argtypes, f.restype = args, res
        self.dev = P()
        if lib.tile_open(ctypes.byref(self.dev)) != 0:
            sys.exit("tile_open failed: " + lib.tile_last_error(None).decode())
        self.name = lib.tile_device_name(self.dev).decode()

    def check(self, rc, what):
        if rc != 0:
            raise RuntimeError(f"{what}: {self.lib.tile_last_error(self.dev).decode()}")

    def kernel(self, msl, entry):
        lib, pipe, mt = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_int()
        self.check(self.lib.tile_compile(self.dev, msl.encode(), ctypes.byref(lib)), "compile")
        self.check(self.lib.tile_pipeline(lib, entry.encode(), ctypes.byref(pipe), ctypes.byref(mt)), "pipeline")
        return lib, pipe, mt.value

    def buffer(self, t):
        b = ctypes.c_void_p()
        n = t.numel() * 4
        self.check(self.lib.tile_buffer_new(self.dev, n, ctypes.byref(b)), "buffer")
        host = t.detach().float().contiguous().cpu().numpy()
        self.check(self.lib.tile_buffer_write(b, 0, host.ctypes.data, n), "write")
        return b

    def read(self, b, shape):
        out = torch.empty(shape, dtype=torch.float32)
        self.check(self.lib.tile_buffer_read(b, 0, out.data_ptr(), out.numel() * 4), "read")
        return out

    def dispatch(self, pipe, bufs, groups, threads, repeat):
        arr = (ctypes.c_void_p * len(bufs))(*[b.value for b in bufs])
        self.check(self.lib.tile_dispatch(pipe, arr, len(bufs), None, 0, groups, 1, 1, threads, 1, 1, repeat), "dispatch")
        s, e = ctypes.c_double(), ctypes.c_double()
        self.lib.tile_last_times(self.dev, ctypes.byref(s), ctypes.byref(e))
        return (e.value - s.value) * 1e6 / repeat  # µs per dispatch


def reference(case, X, G, B, C):
    Xd = X.double()
    if case == "softmax":
        return [torch.softmax(Xd, -1)]
    if case == "rmsnorm":
        return [Xd * torch.rsqrt((Xd * Xd).mean(-1, keepdim=True) + 1e-5) * G.double()]
    if case == "layernorm_affine":
        return [torch.nn.functional.layer_norm(Xd, (C,), G.double(), B.double(), 1e-5)]
    if case == "sigmoid_pair":
        s = torch.sigmoid(Xd)
        return [s, s * (1 - s)]
    if case == "gelu_pair":
        k = 0.7978845608028654
        t = torch.tanh(k * (Xd + 0.044715 * Xd ** 3))
        return [0.5 * Xd * (1 + t), 0.5 * (1 + t) + 0.5 * Xd * (1 - t * t) * k * (1 + 3 * 0.044715 * Xd * Xd)]


def torch_fn(case, X, G, B, C, outs):
    """PyTorch's eager kernels for the case, writing into preallocated outputs where possible."""
    aten = torch.ops.aten
    if case == "softmax":
        return lambda: aten._softmax.out(X, -1, False, out=outs[0])
    if case == "layernorm_affine":
        R = X.shape[0]
        mean, rstd = torch.empty(R, 1, device="cuda"), torch.empty(R, 1, device="cuda")
        return lambda: aten.native_layer_norm.out(X, [C], G, B, 1e-5, out0=outs[0], out1=mean, out2=rstd)
    if case == "rmsnorm":
        return lambda: torch.nn.functional.rms_norm(X, (C,), G, 1e-5)
    ones = torch.ones_like(X)
    if case == "sigmoid_pair":
        def f():
            aten.sigmoid.out(X, out=outs[0])
            aten.sigmoid_backward.grad_input(ones, outs[0], grad_input=outs[1])
        return f
    if case == "gelu_pair":
        def f():
            aten.gelu.out(X, approximate="tanh", out=outs[0])
            aten.gelu_backward.grad_input(ones, X, approximate="tanh", grad_input=outs[1])
        return f


def torch_time(fn):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(TRIALS):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(REPS):
            fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1000 / REPS)
    return statistics.median(times)


def excess(outs, refs):
    return max(float(((o.double().cpu() - r.cpu()).abs() - (2e-6 + 2e-5 * r.cpu().abs())).max()) for o, r in zip(outs, refs))


def main_with_tile_times(tile_file, out_file):
    """Tile's times from `gpu-evidence.mjs time-kernels` (Node, run just before on the same GPU);
    PyTorch's and the copy bandwidth measured here."""
    tile = json.load(open(tile_file))
    torch.manual_seed(0)
    big = torch.empty(1 << 28, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(big)
    copy_us = torch_time(lambda: dst.copy_(big))
    copy_gbs = 2 * big.numel() * 4 / copy_us / 1e3
    del big, dst
    head = {"device": torch.cuda.get_device_name(0), "tile_device": tile["device"], "torch": torch.__version__,
            "copy_GBps": round(copy_gbs, 1), "reps": REPS, "trials": TRIALS, "tile_times": "gpu-evidence.mjs time-kernels (Node), same machine, just before"}
    print(json.dumps(head), flush=True)
    rows, torch_cache = [], {}
    for t in tile["rows"]:
        if "error" in t:
            continue
        case, (R, C) = t["case"], t["shape"]
        if (case, R, C) not in torch_cache:
            X = (torch.rand(R, C, device="cuda") * 4 - 2).float()
            G = (torch.rand(C, device="cuda") + 0.5).float()
            B = (torch.rand(C, device="cuda") - 0.5).float()
            refs = reference(case, X, G, B, C)
            touts = [torch.empty_like(X) for _ in refs]
            tf = torch_fn(case, X, G, B, C, touts)
            t_torch = torch_time(tf)
            tres = tf()
            if case == "rmsnorm":
                touts = [tres]
            elif case == "layernorm_affine":
                touts = [touts[0]]
            torch.cuda.synchronize()
            torch_cache[(case, R, C)] = (t_torch, excess(touts, refs), len(refs))
        t_torch, torch_err, n_out = torch_cache[(case, R, C)]
        nbytes = (n_out + 1) * R * C * 4 + (2 * C * 4 if case == "layernorm_affine" else C * 4 if case == "rmsnorm" else 0)
        row = {**t, "torch_us": round(t_torch, 2), "torch_excess_err": torch_err, "tile_over_torch": round(t["tile_us"] / t_torch, 3),
               "min_bytes": nbytes, "bw_frac_tile": round(nbytes / t["tile_us"] / 1e3 / copy_gbs, 3),
               "bw_frac_torch": round(nbytes / t_torch / 1e3 / copy_gbs, 3)}
        rows.append(row)
    print(f"{'case':18} {'shape':>10} {'variant':8} {'mapping':24} {'tile µs':>9} {'torch µs':>9} {'tile/torch':>10} {'bw tile':>8} {'bw torch':>8} valid")
    for r in rows:
        print(f"{r['case']:18} {r['shape'][0]:>4}x{r['shape'][1]:<5} {r['variant']:8} {r['mapping']:24} {r['tile_us']:9.2f} {r['torch_us']:9.2f} {r['tile_over_torch']:10.3f} {r['bw_frac_tile']:8.3f} {r['bw_frac_torch']:8.3f} {r['validated']} {r['torch_excess_err'] <= 0}")
    if out_file:
        with open(out_file, "w") as f:
            json.dump({**head, "rows": rows}, f, indent=1)


def main():
    out_file = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    if "--tile-times" in sys.argv:
        return main_with_tile_times(sys.argv[sys.argv.index("--tile-times") + 1], out_file)
    torch.manual_seed(0)
    torch.cuda.init()
    big = torch.empty(1 << 28, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(big)
    copy_us = torch_time(lambda: dst.copy_(big))
    copy_gbs = 2 * big.numel() * 4 / copy_us / 1e3
    del big, dst
    tile = Tile()
    head = {"device": torch.cuda.get_device_name(0), "tile_device": tile.name, "torch": torch.__version__,
            "copy_GBps": round(copy_gbs, 1), "reps": REPS, "trials": TRIALS}
    print(json.dumps(head), flush=True)
    rows = []
    for case in CASES:
        for (R, C) in SHAPES:
            X = (torch.rand(R, C, device="cuda") * 4 - 2).float()
            G = (torch.rand(C, device="cuda") + 0.5).float()
            B = (torch.rand(C, device="cuda") - 0.5).float()
            refs = reference(case, X, G, B, C)
            touts = [torch.empty_like(X) for _ in refs]
            tf = torch_fn(case, X, G, B, C, touts)
            t_torch = torch_time(tf)
            tres = tf()
            if case in ("rmsnorm",):
                touts = [tres]
            elif case == "layernorm_affine":
                touts = [touts[0]]
            torch.cuda.synchronize()
            torch_err = excess(touts, refs)
            n_out = len(refs)
            nbytes = (n_out + 1) * R * C * 4 + (2 * C * 4 if case == "layernorm_affine" else C * 4 if case == "rmsnorm" else 0)
            for vname, extra in VARIANTS.items():
                if vname != "auto" and case not in REDUCTIONS:
                    continue
                e = emit(case, R, C, extra)
                if not e.get("msl"):
                    print(json.dumps({"case": case, "shape": [R, C], "variant": vname, "error": "not planned"}), flush=True)
                    continue
                plan = e["plan"]
                lib, pipe, max_threads = tile.kernel(e["msl"], plan["kernel"])
                bufs, outs = [], []
                for bnd in sorted([b for b in plan["bindings"] if b["kind"] == "buffer"], key=lambda b: b["index"]):
                    src = {"X": X, "G": G, "B": B}.get(bnd["name"])
                    if bnd["access"] == "read":
                        bufs.append(tile.buffer(src))
                    else:
                        bufs.append(tile.buffer(torch.full((R, C), float("nan"))))
                        outs.append(bufs[-1])
                d = plan["dispatch"]
                tile.dispatch(pipe, bufs, d["groups"], d["threads"], 1)
                err = excess([tile.read(b, (R, C)) for b in outs], refs)
                tile.dispatch(pipe, bufs, d["groups"], d["threads"], 3)  # warm
                t_tile = statistics.median(tile.dispatch(pipe, bufs, d["groups"], d["threads"], REPS) for _ in range(TRIALS))
                m = plan.get("mapping", {})
                row = {"case": case, "shape": [R, C], "variant": vname, "realization": plan["realization"],
                       "mapping": {k: m[k] for k in ("P", "T", "V", "U", "cached") if k in m} or {k: m.get(k) for k in ("T", "V")},
                       "ok": err <= 0 and torch_err <= 0, "tile_excess_err": err, "torch_excess_err": torch_err,
                       "tile_us": round(t_tile, 2), "torch_us": round(t_torch, 2), "tile_over_torch": round(t_tile / t_torch, 3),
                       "min_bytes": nbytes, "bw_frac_tile": round(nbytes / t_tile / 1e3 / copy_gbs, 3),
                       "bw_frac_torch": round(nbytes / t_torch / 1e3 / copy_gbs, 3), "model_cost": plan.get("cost", {}).get("total"),
                       "pipeline_max_threads": max_threads}
                rows.append(row)
                print(json.dumps(row), flush=True)
                for b in bufs:
                    tile.lib.tile_buffer_free(b)
                tile.lib.tile_pipeline_free(pipe)
                tile.lib.tile_library_free(lib)
    print()
    print(f"{'case':18} {'shape':>10} {'variant':8} {'tile µs':>9} {'torch µs':>9} {'tile/torch':>10} {'bw tile':>8} {'bw torch':>8} ok")
    for r in rows:
        print(f"{r['case']:18} {r['shape'][0]:>4}x{r['shape'][1]:<5} {r['variant']:8} {r['tile_us']:9.2f} {r['torch_us']:9.2f} {r['tile_over_torch']:10.3f} {r['bw_frac_tile']:8.3f} {r['bw_frac_torch']:8.3f} {r['ok']}")
    if out_file:
        with open(out_file, "w") as f:
            json.dump({**head, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
