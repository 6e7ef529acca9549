# run 13 variants: the emitted softmax before (run 12's _A) and after the deferred NaN test (_flag),
# and each with exp(x - m) kept from the sum stage in the register cache (_reuse: bit-identical)
import re, subprocess, json, sys, os
prelude = sys.argv[1]; translate = sys.argv[2]
def reuse(s):
    s2 = re.sub(r"acc_s = acc_s \+ precise::exp\((cache_X\[[^\]]+\]) - m\);",
                r"{ const float tile_e = precise::exp(\1 - m); \1 = tile_e; acc_s = acc_s + tile_e; }", s)
    s2 = re.sub(r"precise::exp\((cache_X\[[^\]]+\]) - m\) / s;", r"\1 / s;", s2)
    assert s2 != s
    return s2
variants = {}
for base in ["sm1024_A", "sm1024_flag", "sm768_A", "sm768_flag"]:
    t = open(base + ".metal").read()
    variants[base] = t
    variants[base + "_reuse"] = reuse(t)
variants["rms768_A"] = open("rms768.metal").read()
variants["ln768_A"] = open("lay768.metal").read()
meta = {}
for name, text in variants.items():
    open(name + ".metal", "w").write(text)
    cu = subprocess.run([translate, prelude], input=text, capture_output=True, text=True, check=True).stdout
    open(name + ".cu", "w").write(cu)
    m = re.search(r"// tile: .*?T=(\d+) .*?groups=(\d+)", text)
    entry = re.search(r'extern "C" __global__ void (\w+)\(([^)]*)\)', cu)
    meta[name] = {"threads": int(m.group(1)), "groups": int(m.group(2)), "entry": entry.group(1), "nbuf": entry.group(2).count("void *")}
json.dump(meta, open("meta.json", "w"), indent=1)
print(json.dumps(meta))
