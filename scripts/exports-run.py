"""Runs Tile's exported modules on the frameworks that are installed (scripts/exports-check.mjs
writes the manifest, the inputs and reads the outputs back).

    python3 scripts/exports-run.py MANIFEST.json

MANIFEST: {"targets": {"mlx": [...], "torch-mps": [...]}} where each entry is
  {"module": path, "args": [{"file", "dtype", "shape"}], "results": [{"file", "dtype"}]}.
Prints one JSON line: {"mlx": "ran" | "skipped: ...", "torch-mps": ...}. Needs no numpy.
"""
import array
import importlib.util
import json
import sys


def flatten(x):
    if isinstance(x, list):
        out = []
        for v in x:
            out.extend(flatten(v))
        return out
    return [x]


def read(path, dtype):
    a = array.array("i" if dtype == "i32" else "f")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    return a


def write(path, values, dtype):
    a = array.array("i" if dtype == "i32" else "f", values)
    with open(path, "wb") as f:
        f.write(a.tobytes())


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, module.__all__[0])


def run_mlx(entries):
    import mlx.core as mx
    for i, e in enumerate(entries):
        fn = load(e["module"], "tile_mlx_%d" % i)
        args = [mx.array(read(a["file"], a["dtype"]).tolist(), dtype=mx.int32 if a["dtype"] == "i32" else mx.float32).reshape(a["shape"])
                for a in e["args"]]
        out = fn(*args)
        out = out if isinstance(out, tuple) else (out,)
        mx.eval(*out)
        for r, y in zip(e["results"], out):
            write(r["file"], flatten(y.tolist()), r["dtype"])


def run_torch(entries):
    import torch
    if not torch.backends.mps.is_available():
        raise RuntimeError("torch is installed but the mps device is not available")
    for i, e in enumerate(entries):
        fn = load(e["module"], "tile_torch_%d" % i)
        args = []
        for a in e["args"]:
            t = torch.tensor(read(a["file"], a["dtype"]).tolist(), dtype=torch.int32 if a["dtype"] == "i32" else torch.float32)
            t = t.reshape(a["shape"])
            args.append(t.to("mps") if a.get("inPlace") else t)
        out = fn(*args)
        out = out if isinstance(out, tuple) else (out,)
        torch.mps.synchronize()
        for r, y in zip(e["results"], out):
            write(r["file"], y.cpu().reshape(-1).tolist(), r["dtype"])


def main():
    manifest = json.load(open(sys.argv[1]))
    status = {}
    for target, runner, module in (("mlx", run_mlx, "mlx.core"), ("torch-mps", run_torch, "torch")):
        if importlib.util.find_spec(module.split(".")[0]) is None:
            status[target] = "skipped: %s is not installed" % module.split(".")[0]
            continue
        try:
            runner(manifest["targets"][target])
            status[target] = "ran"
        except Exception as err:  # reported, and the check fails
            status[target] = "error: %s: %s" % (type(err).__name__, err)
    print(json.dumps(status))


main()
