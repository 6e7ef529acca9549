#!/usr/bin/env python3
"""Tile's kernels beside PyTorch's on one CUDA GPU, in one run (issue 17, items 6 and 7).

1. Tile: this script writes a `tile-time-list/1` file (every case x shape; the automatic plan,
   and for the reductions also P1/T256 and P2/T512) and runs `tile time LIST --runtime cuda
   -o tile-times.json` as a subprocess (Node; loading libtile_cuda into the PyTorch process with
   ctypes crashed in tile_compile on the H200, so Tile never runs inside this process). Every
   Tile kernel is validated against the FP64 oracle there and timed with the GPU batch metric
   (CUDA events around one call of a calibrated batch of launches; rounds in forward/backward
   pairs; the median of the round medians, in µs per launch).
2. PyTorch, in this process: the eager kernels with preallocated outputs where an out= form
   exists (softmax, native_layer_norm, sigmoid + sigmoid_backward, gelu + gelu_backward; rms_norm
   allocates), timed with CUDA events around REPS calls (median of TRIALS), each output checked
   against a float64 reference (|err| <= 2e-6 + 2e-5 |ref|); with --compile also torch.compile
   of the same functions, within --compile-budget-s seconds (what did not fit is recorded).
3. The physical limit: the device-to-device copy bandwidth (torch copy_ of 1 GiB), measured
   first; per kernel the minimum bytes it must move (each input read once, each output written
   once, weight vectors once) over its time, as a fraction of that bandwidth.

Writes --out FILE.json (every row) and --md FILE.md (the table). Without torch or CUDA, or with
--dry, the PyTorch part is skipped and said so; Tile's times then come from whatever runtime
--runtime names (on the host runtime they are CPU wall-clock times and are marked as such: no
ratio and no bandwidth fraction is computed from them).

Run from the repository or a `npm run pack:gpu` folder (pkg/):
  python3 bench/torch-side-by-side.py --out torch.json --md torch.md [--compile]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPS, TRIALS = 50, 7
SHAPES = [(37, 1537), (256, 3072), (768, 6144), (1024, 4096)]
CASES = ["softmax", "layernorm_affine", "rmsnorm", "sigmoid_pair", "gelu_pair"]
REDUCTIONS = {"softmax", "layernorm_affine", "rmsnorm"}
VARIANTS = {"auto": {}, "P1/T256": {"programsPerGroup": 1, "threads": 256}, "P2/T512": {"programsPerGroup": 2, "threads": 512}}
OUTPUTS = {"softmax": 1, "layernorm_affine": 1, "rmsnorm": 1, "sigmoid_pair": 2, "gelu_pair": 2}


def min_bytes(case, r, c):
    """Each input read once, each output written once, weight vectors (length C) once; f32."""
    vectors = {"layernorm_affine": 2, "rmsnorm": 1}.get(case, 0)
    return (1 + OUTPUTS[case]) * r * c * 4 + vectors * c * 4


def node_binary():
    for cand in [os.environ.get("TILE_NODE"), os.path.join(ROOT, "..", "bin", "node"), shutil.which("node")]:
        if cand and os.path.exists(cand):
            return cand
    sys.exit("no node: set TILE_NODE to the Node binary (a pack:gpu folder has it in bin/node)")


def read_device(arg):
    """--device NAME (a preset in devices/) or FILE: the description every plan is made with."""
    if not arg:
        return None
    path = arg if os.path.exists(arg) else os.path.join(ROOT, "devices", arg + ".json")
    with open(path) as f:
        return json.load(f)


def time_list(shapes, cases, device=None):
    entries = []
    for case in cases:
        for (r, c) in shapes:
            for vname, opts in VARIANTS.items():
                if vname != "auto" and case not in REDUCTIONS:
                    continue
                o = dict(opts, device=device) if device is not None else opts
                entries.append({"id": f"{case} {r}x{c} {vname}", "case": case, "sizes": {"R": r, "C": c}, "options": o})
    return {"format": "tile-time-list/1", "entries": entries}


def tile_times(args, shapes, cases, work):
    """Runs `tile time` in a subprocess; returns its tile-times/1 JSON (or exits with its output)."""
    lst = os.path.join(work, "tile-time-list.json")
    out = args.tile_times_out or os.path.join(work, "tile-times.json")
    with open(lst, "w") as f:
        json.dump(time_list(shapes, cases, read_device(args.device)), f, indent=1)
    cmd = [node_binary(), os.path.join(ROOT, "shell-node", "bin", "tile.mjs"), "time", lst, "--runtime", args.runtime, "-o", out,
           "--rounds", str(args.rounds), "--samples", str(args.samples), "--batch-window-ms", str(args.batch_window_ms)]
    print("$ " + " ".join(cmd), flush=True)
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.tile_timeout)
    except subprocess.TimeoutExpired as e:
        tail = lambda b: (b.decode(errors="replace") if isinstance(b, bytes) else (b or ""))[-4000:]  # noqa: E731
        print(tail(e.stdout), tail(e.stderr), sep="\n", flush=True)
        sys.exit(f"tile time did not finish within --tile-timeout {args.tile_timeout} s; nothing to compare")
    print(p.stdout[-4000:], p.stderr[-4000:], f"tile time: exit {p.returncode} in {time.time() - t0:.1f} s", sep="\n", flush=True)
    if not os.path.exists(out):
        sys.exit(f"tile time wrote no {out} (exit {p.returncode})")
    with open(out) as f:
        return json.load(f), " ".join(cmd)


# ---------------------------------------------------------------- PyTorch (imported lazily)

def reference(torch, case, X, G, B, C):
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


def eager_fn(torch, case, X, G, B, C, outs):
    """PyTorch's eager kernels, writing into preallocated outputs where an out= form exists.
    Returns (fn, outputs-after-call getter, kernels per call)."""
    aten = torch.ops.aten
    if case == "softmax":
        return (lambda: aten._softmax.out(X, -1, False, out=outs[0])), (lambda r: [outs[0]]), 1
    if case == "layernorm_affine":
        R = X.shape[0]
        mean, rstd = torch.empty(R, 1, device="cuda"), torch.empty(R, 1, device="cuda")
        return (lambda: aten.native_layer_norm.out(X, [C], G, B, 1e-5, out0=outs[0], out1=mean, out2=rstd)), (lambda r: [outs[0]]), 1
    if case == "rmsnorm":
        return (lambda: torch.nn.functional.rms_norm(X, (C,), G, 1e-5)), (lambda r: [r]), 1
    ones = torch.ones_like(X)
    if case == "sigmoid_pair":
        def f():
            aten.sigmoid.out(X, out=outs[0])
            aten.sigmoid_backward.grad_input(ones, outs[0], grad_input=outs[1])
        return f, (lambda r: outs), 2
    if case == "gelu_pair":
        def f():
            aten.gelu.out(X, approximate="tanh", out=outs[0])
            aten.gelu_backward.grad_input(ones, X, approximate="tanh", grad_input=outs[1])
        return f, (lambda r: outs), 2


def compiled_fn(torch, case, X, G, B, C):
    """The same computation for torch.compile (functional form; outputs allocated by the graph)."""
    F = torch.nn.functional
    if case == "softmax":
        f = lambda x: torch.softmax(x, -1)
        return torch.compile(f), (X,)
    if case == "layernorm_affine":
        return torch.compile(lambda x, g, b: F.layer_norm(x, (C,), g, b, 1e-5)), (X, G, B)
    if case == "rmsnorm":
        return torch.compile(lambda x, g: F.rms_norm(x, (C,), g, 1e-5)), (X, G)
    if case == "sigmoid_pair":
        def f(x):
            s = torch.sigmoid(x)
            return s, s * (1 - s)
        return torch.compile(f), (X,)
    if case == "gelu_pair":
        def f(x):
            k = 0.7978845608028654
            t = torch.tanh(k * (x + 0.044715 * x * x * x))
            return 0.5 * x * (1 + t), 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x)
        return torch.compile(f), (X,)


def cuda_time(torch, fn):
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
    """Largest |err| - (2e-6 + 2e-5 |ref|) over the outputs (<= 0: within the tolerance)."""
    return max(float(((o.double().cpu() - r.cpu()).abs() - (2e-6 + 2e-5 * r.cpu().abs())).max()) for o, r in zip(outs, refs))


def torch_side(args, shapes, cases):
    """PyTorch's times per (case, R, C), the copy bandwidth, and why anything is missing."""
    if args.dry:
        return None, "--dry: PyTorch not run"
    try:
        import torch
    except Exception as e:  # noqa: BLE001
        return None, f"torch not importable ({e})"
    if not torch.cuda.is_available():
        return None, "torch has no CUDA device"
    torch.manual_seed(0)
    big = torch.empty(1 << 28, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(big)
    copy_us = cuda_time(torch, lambda: dst.copy_(big))
    copy_gbs = 2 * big.numel() * 4 / copy_us / 1e3
    del big, dst
    head = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "copy_GBps": round(copy_gbs, 1),
            "copy": "torch Tensor.copy_ of 2^28 float32 (1 GiB) device to device; bytes read + written over the CUDA-event time"}
    print(json.dumps(head), flush=True)
    compile_deadline = time.time() + args.compile_budget_s
    per = {}
    for case in cases:
        for (R, C) in shapes:
            X = (torch.rand(R, C, device="cuda") * 4 - 2).float()
            G = (torch.rand(C, device="cuda") + 0.5).float()
            B = (torch.rand(C, device="cuda") - 0.5).float()
            refs = reference(torch, case, X, G, B, C)
            outs = [torch.empty_like(X) for _ in refs]
            fn, got, kernels = eager_fn(torch, case, X, G, B, C, outs)
            t_eager = cuda_time(torch, fn)
            res = fn()
            torch.cuda.synchronize()
            row = {"torch_us": round(t_eager, 3), "torch_kernels": kernels, "torch_excess_err": excess(got(res), refs),
                   "compile_us": None, "compile_excess_err": None, "compile_note": "not asked (--compile)"}
            if args.compile:
                if time.time() > compile_deadline:
                    row["compile_note"] = f"not tried: the --compile-budget-s {args.compile_budget_s} s was spent"
                else:
                    try:
                        cf, cargs = compiled_fn(torch, case, X, G, B, C)
                        t0 = time.time()
                        r = cf(*cargs)
                        torch.cuda.synchronize()
                        row["compile_first_call_s"] = round(time.time() - t0, 1)
                        row["compile_us"] = round(cuda_time(torch, lambda: cf(*cargs)), 3)
                        row["compile_excess_err"] = excess(list(r) if isinstance(r, tuple) else [r], refs)
                        row["compile_note"] = "torch.compile (default mode), outputs allocated by the graph"
                    except Exception as e:  # noqa: BLE001
                        row["compile_note"] = f"torch.compile failed: {type(e).__name__}: {str(e)[:200]}"
            per[(case, R, C)] = row
            print(json.dumps({"case": case, "shape": [R, C], **row}), flush=True)
    return {"head": head, "per": per}, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="write every row as JSON here")
    ap.add_argument("--md", help="write the table as markdown here")
    ap.add_argument("--runtime", default="cuda", help="Tile's runtime (cuda on the GPU machine; host only to test this script)")
    ap.add_argument("--shapes", help="RxC,RxC,... (default: 37x1537,256x3072,768x6144,1024x4096)")
    ap.add_argument("--cases", help="comma-separated subset of " + ",".join(CASES))
    ap.add_argument("--device", help="device description for Tile's plans: a preset name (devices/NAME.json) or a file (default: the built-in M1 Max)")
    ap.add_argument("--dry", action="store_true", help="skip PyTorch (Tile's part still runs)")
    ap.add_argument("--compile", action="store_true", help="also time torch.compile of each case")
    ap.add_argument("--compile-budget-s", type=float, default=120.0, help="stop trying torch.compile after this many seconds")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--batch-window-ms", type=float, default=2.0)
    ap.add_argument("--tile-timeout", type=float, default=300.0, help="seconds allowed for `tile time`")
    ap.add_argument("--tile-times-out", help="keep tile time's JSON here")
    args = ap.parse_args()
    shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")] if args.shapes else SHAPES
    cases = args.cases.split(",") if args.cases else CASES
    for c in cases:
        if c not in CASES:
            sys.exit(f"unknown case {c} (one of {', '.join(CASES)})")

    with tempfile.TemporaryDirectory() as work:
        tile, tile_cmd = tile_times(args, shapes, cases, work)
    tile_gpu = bool(tile.get("timesAreGpu"))
    ts, why_no_torch = torch_side(args, shapes, cases)
    copy_gbs = ts["head"]["copy_GBps"] if ts else None
    rows = []
    for e in tile["entries"]:
        R, C = e["sizes"]["R"], e["sizes"]["C"]
        case = e["case"]
        nbytes = min_bytes(case, R, C)
        t = ts["per"].get((case, R, C)) if ts else None
        tile_us = e["medianUs"] if e["timed"] else None
        usable = tile_us is not None and tile_gpu
        row = {"id": e["id"], "case": case, "shape": [R, C], "variant": e["id"].split(" ")[-1], "realization": e["realization"], "mapping": e["mapping"],
               "tile_validated": e["validated"], "tile_error": e["error"], "tile_us": tile_us, "tile_times_are_gpu": tile_gpu, "tile_metric": tile["metric"],
               "min_bytes": nbytes, "copy_GBps": copy_gbs}
        if t:
            row.update(t)
        row["tile_over_torch"] = round(tile_us / t["torch_us"], 3) if usable and t else None
        row["tile_over_compile"] = round(tile_us / t["compile_us"], 3) if usable and t and t.get("compile_us") else None
        frac = lambda us: round(nbytes / us / 1e3 / copy_gbs, 3) if us and copy_gbs else None  # noqa: E731
        row["bw_frac_tile"] = frac(tile_us) if usable else None
        row["bw_frac_torch"] = frac(t["torch_us"]) if t else None
        row["bw_frac_compile"] = frac(t.get("compile_us")) if t else None
        rows.append(row)

    head = {"format": "tile-torch-side-by-side/1", "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "tile_command": tile_cmd, "tile_device": args.device or "built-in default (Apple M1 Max)", "tile_runtime": tile["runtime"], "tile_metric": tile["metric"], "tile_times_are_gpu": tile_gpu,
            "tile_settings": tile["settings"], "torch": ts["head"] if ts else None, "torch_missing": why_no_torch, "reps": REPS, "trials": TRIALS}
    fmt = lambda x, d=2: "n/a" if x is None else f"{x:.{d}f}"  # noqa: E731
    lines = ["# Tile beside PyTorch", "",
             f"- Tile: `{tile_cmd}` on {tile['runtime']['kind']} ({tile['runtime']['deviceName']}), plans for the device record {args.device or 'built-in default (Apple M1 Max)'}, metric `{tile['metric']}`"
             + ("" if tile_gpu else " (**host wall clock: not GPU times; no ratio or bandwidth fraction is computed from them**)"),
             f"- PyTorch: {('torch ' + ts['head']['torch'] + ' on ' + ts['head']['device'] + f', eager with preallocated outputs, CUDA events, median of {TRIALS} x {REPS} calls') if ts else why_no_torch}",
             f"- copy bandwidth (device to device, same run): {fmt(copy_gbs, 1)} GB/s; fraction = minimum bytes / time / copy bandwidth",
             "", "| kernel | shape | Tile plan | Tile µs | PyTorch eager µs (kernels) | Tile / eager | compile µs | Tile / compile | fraction Tile | fraction eager | fraction compile | valid |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        valid = ("Tile ok" if r["tile_validated"] else "Tile FAILED") + ("" if "torch_excess_err" not in r else (", eager ok" if r["torch_excess_err"] <= 0 else ", eager out of tolerance"))
        lines.append(f"| {r['case']} ({r['variant']}) | {r['shape'][0]}x{r['shape'][1]} | {r['mapping']} | {fmt(r['tile_us'])} | {fmt(r.get('torch_us'))} ({r.get('torch_kernels', '-')}) | {fmt(r['tile_over_torch'], 3)} | "
                     f"{fmt(r.get('compile_us'))} | {fmt(r['tile_over_compile'], 3)} | {fmt(r['bw_frac_tile'], 3)} | {fmt(r['bw_frac_torch'], 3)} | {fmt(r['bw_frac_compile'], 3)} | {valid} |")
    md = "\n".join(lines) + "\n"
    print(md, flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({**head, "rows": rows}, f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(md)
    return 0 if all(r["tile_validated"] and r["tile_us"] is not None for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
