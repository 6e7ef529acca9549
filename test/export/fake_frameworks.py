"""Runs generated export modules against stand-ins for MLX and PyTorch that follow their
documented Python interfaces and record every call, so that a machine without a Mac can check
what a module would hand to the framework.

    python3 fake_frameworks.py MANIFEST.json   ->  prints one JSON record per module

MANIFEST: [{"path": module file, "target": "mlx" | "torch-mps",
            "args": [{"tag": parameter name, "dtype": "f32" | "i32" | "f16" | "bf16", "shape": [...]}]}]
Arrays and tensors carry a tag (the document parameter they hold) instead of data; the records
say which tag went to which argument, flattened or padded how.
"""
import importlib.util
import json
import sys
import types


class Dtype:
    def __init__(self, prefix, name):
        self.prefix, self.name = prefix, name

    def __repr__(self):
        return self.prefix + self.name


# ---- mlx.core: array, dtypes, zeros, concatenate, fast.metal_kernel
mx = types.ModuleType("mlx.core")
mx.float32, mx.int32 = Dtype("mlx.core.", "float32"), Dtype("mlx.core.", "int32")
mx.float16, mx.bfloat16 = Dtype("mlx.core.", "float16"), Dtype("mlx.core.", "bfloat16")
MLX_LOG = []


class MxArray:
    def __init__(self, tag, shape, dtype, flat=False, pad=0):
        self.tag, self.shape, self.dtype, self.flat, self.pad = tag, tuple(shape), dtype, flat, pad

    @property
    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def reshape(self, *shape):
        assert shape == (-1,), shape
        return MxArray(self.tag, (self.size,), self.dtype, True, self.pad)

    def record(self):
        return {"tag": self.tag, "shape": list(self.shape), "dtype": self.dtype.name, "flat": self.flat, "pad": self.pad}


def mx_zeros(shape, dtype):
    return MxArray("zeros", shape, dtype)


def mx_concatenate(parts):
    a, z = parts
    assert z.tag == "zeros" and z.dtype is a.dtype and len(a.shape) == 1 and len(z.shape) == 1
    return MxArray(a.tag, (a.size + z.size,), a.dtype, a.flat, a.pad + z.size)


def metal_kernel(*, name, input_names, output_names, source, header="", ensure_row_contiguous=True, atomic_outputs=False):
    built = {"name": name, "input_names": list(input_names), "output_names": list(output_names), "source": source,
             "header": header, "ensure_row_contiguous": ensure_row_contiguous, "atomic_outputs": atomic_outputs}

    def call(*, inputs, output_shapes, output_dtypes, grid, threadgroup, template=None, init_value=None, verbose=False, stream=None):
        assert len(inputs) == len(input_names) and len(output_shapes) == len(output_names) == len(output_dtypes)
        MLX_LOG.append({"kernel": built, "inputs": [x.record() for x in inputs], "output_shapes": [list(s) for s in output_shapes],
                        "output_dtypes": [d.name for d in output_dtypes], "grid": list(grid), "threadgroup": list(threadgroup),
                        "template": template, "init_value": init_value})
        return [MxArray("out%d" % i, s, d) for i, (s, d) in enumerate(zip(output_shapes, output_dtypes))]

    return call


mx.array = MxArray
mx.zeros = mx_zeros
mx.concatenate = mx_concatenate
mx.fast = types.SimpleNamespace(metal_kernel=metal_kernel)
mlx = types.ModuleType("mlx")
mlx.core = mx
sys.modules["mlx"], sys.modules["mlx.core"] = mlx, mx

# ---- torch: Tensor, dtypes, zeros, mps.compile_shader
torch = types.ModuleType("torch")
torch.float32, torch.int32 = Dtype("torch.", "float32"), Dtype("torch.", "int32")
torch.float16, torch.bfloat16 = Dtype("torch.", "float16"), Dtype("torch.", "bfloat16")
TORCH_LOG = []


class Tensor:
    def __init__(self, tag, shape, dtype, device="cpu", contiguous=True, moved=False):
        self.tag, self.shape, self.dtype = tag, tuple(shape), dtype
        self.device = types.SimpleNamespace(type=device)
        self._contiguous, self.moved = contiguous, moved

    def to(self, device):
        return self if self.device.type == device else Tensor(self.tag, self.shape, self.dtype, device, self._contiguous, True)

    def contiguous(self):
        return self if self._contiguous else Tensor(self.tag, self.shape, self.dtype, self.device.type, True, self.moved)

    def is_contiguous(self):
        return self._contiguous

    def record(self):
        return {"tag": self.tag, "shape": list(self.shape), "dtype": self.dtype.name, "device": self.device.type,
                "contiguous": self._contiguous}


ZEROS = [0]


def torch_zeros(shape, dtype, device):
    ZEROS[0] += 1
    return Tensor("zeros%d" % ZEROS[0], shape, dtype, device)


class Kernel:
    max_threads_per_threadgroup = 1024

    def __init__(self, library, name):
        self.library, self.name = library, name

    def __call__(self, *args, threads=None, group_size=None, arg_casts=None):
        TORCH_LOG.append({"source": self.library.source, "entry": self.name, "args": [a.record() for a in args],
                          "threads": threads, "group_size": group_size})


class Library:
    def __init__(self, source):
        self.source = source

    def __getattr__(self, name):
        return Kernel(self, name)


torch.Tensor = Tensor
torch.zeros = torch_zeros
torch.mps = types.SimpleNamespace(compile_shader=Library)
sys.modules["torch"] = torch


def tags(result):
    items = result if isinstance(result, tuple) else (result,)
    return [x.tag for x in items]


def main():
    out = []
    for i, m in enumerate(json.load(open(sys.argv[1]))):
        spec = importlib.util.spec_from_file_location("tile_export_%d" % i, m["path"])
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        fn = getattr(module, module.__all__[0])
        mlx_target = m["target"] == "mlx"
        args = []
        for a in m["args"]:
            names = {"i32": "int32", "f32": "float32", "f16": "float16", "bf16": "bfloat16"}
            dtype = getattr(mx if mlx_target else torch, names[a["dtype"]])
            # torch inputs arrive on the CPU unless they are updated in place
            args.append(MxArray(a["tag"], a["shape"], dtype) if mlx_target else
                        Tensor(a["tag"], a["shape"], dtype, "mps" if a.get("inPlace") else "cpu"))
        del MLX_LOG[:], TORCH_LOG[:]
        result = fn(*args)
        log = MLX_LOG if mlx_target else TORCH_LOG
        out.append({"path": m["path"], "function": fn.__name__, "docstring": module.__doc__, "calls": list(log),
                    "returned": tags(result) if result is not None else []})
    print(json.dumps(out))


main()
