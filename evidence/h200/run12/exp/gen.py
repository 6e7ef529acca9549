# makes the MSL variants of the softmax experiment (run 12) from the emitted kernels
import re, sys, subprocess, json
src = {"sm1024": open("/tmp/exp/softmax.metal").read(), "sm768": open("/tmp/exp/softmax768.metal").read(),
       "rms1024": open("/tmp/exp/rmsnorm.metal").read(), "ln1024": open("/tmp/exp/layernorm_affine.metal").read()}
def reuse(s):
    s2 = re.sub(r"acc_s = acc_s \+ precise::exp\((cache_X\[[^\]]+\]) - m\);",
                r"{ const float tile_e = precise::exp(\1 - m); \1 = tile_e; acc_s = acc_s + tile_e; }", s)
    s2 = re.sub(r"precise::exp\((cache_X\[[^\]]+\]) - m\) / s;", r"\1 / s;", s2)
    assert s2 != s
    return s2
def recip(s):
    s = reuse(s)
    s = s.replace("const float s = simd_sum(", "const float s = simd_sum(", 1)
    s2 = re.sub(r"(cache_X\[[^\]]+\]) / s;", r"\1 * (1.0f / s);", s)
    assert s2 != s
    return s2
def nonan(s):
    s2 = s.replace("acc_m = tile_max(acc_m,", "acc_m = max(acc_m,")
    assert s2 != s
    return s2
def both(s): return nonan(reuse(s))
variants = {}
for k in ["sm1024", "sm768"]:
    variants[k + "_A"] = src[k]
    variants[k + "_reuse"] = reuse(src[k])
    variants[k + "_recip"] = recip(src[k])
    variants[k + "_nonan"] = nonan(src[k])
    variants[k + "_reuse_nonan"] = both(src[k])
variants["rms1024_A"] = src["rms1024"]
variants["ln1024_A"] = src["ln1024"]
copy = """#include <metal_stdlib>
using namespace metal;
// tile: copy / P=1 T=256 V=4 groups=1024 (experiment: the same access pattern, no arithmetic)
kernel void copy_k(device const float* X [[buffer(0)]], device float* Y [[buffer(1)]],
    uint tid [[thread_index_in_threadgroup]], uint group [[threadgroup_position_in_grid]])
{
  for (int k = 0; k < 4; ++k) {
    const int v0 = (k * 256 + int(tid)) * 4;
    *((device packed_float4*)(&Y[int(group) * 4096 + v0])) = *((device const packed_float4*)(&X[int(group) * 4096 + v0]));
  }
}
"""
variants["copy1024_A"] = copy
meta = {}
for name, text in variants.items():
    open(name + ".metal", "w").write(text)
    cu = subprocess.run(["/tmp/exp/translate", "../../shell-native/cuda/msl_prelude.cuh"], input=text, capture_output=True, text=True, check=True).stdout
    open(name + ".cu", "w").write(cu)
    m = re.search(r"// tile: .*?T=(\d+) .*?groups=(\d+)", text)
    entry = re.search(r'extern "C" __global__ void (\w+)\(([^)]*)\)', cu)
    meta[name] = {"threads": int(m.group(1)), "groups": int(m.group(2)), "entry": entry.group(1), "nbuf": entry.group(2).count("void *")}
json.dump(meta, open("meta.json", "w"), indent=1)
print(json.dumps(meta))
