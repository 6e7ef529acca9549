# variants.py: hand variants of emitted LayerNorm units, and manifest.json
import json, re, glob
man = []
def add(name, cu, case, R, C):
    src = open(cu).read()
    T = int(re.search(r"T=(\d+)", src).group(1)); groups = int(re.search(r"groups=(\d+)", src).group(1))
    entry = re.search(r"(tile_entry_\w+)", src).group(1)
    man.append(dict(name=name, cu=cu, entry=entry, case=case, R=R, C=C, T=T, groups=groups, cap=0))
def variant(base, suffix, fn):
    src = open(base + ".cu").read(); out = fn(src)
    assert out != src, (base, suffix)
    open(base + "_" + suffix + ".cu", "w").write(out)
    return base + "_" + suffix + ".cu"
def centre(src):
    # the variance pass keeps x - mean in the cache; the output reads it (the same f32 values)
    src = re.sub(r"acc_q = acc_q \+ \(\((cache_X\[[^\]]+\]) - mean\) \* \(cache_X\[[^\]]+\] - mean\)\);",
                 r"{ const float d_ = \1 - mean; \1 = d_; acc_q = acc_q + d_ * d_; }", src)
    return re.sub(r"\(\((cache_X\[[^\]]+\]) - mean\) \* inv\)", r"(\1 * inv)", src)
def nob(src): return re.sub(r"\) \+ tile_x1\[j\];", ");", src)
def noweights(src): return re.sub(r"\* tile_x0\[j\]\) \+ tile_x1\[j\];", ");", src)
for name, case, R, C in [("ln2k_T256V8", "layernorm_affine", 2048, 8192), ("ln2k_T384V8", "layernorm_affine", 2048, 8192),
                         ("ln2k_T512V4", "layernorm_affine", 2048, 8192), ("ln2k_T512V8", "layernorm_affine", 2048, 8192),
                         ("ln2k_T1024V8", "layernorm_affine", 2048, 8192), ("ln2k_P2T512V8", "layernorm_affine", 2048, 8192),
                         ("ln768_T128V8", "layernorm_affine", 768, 6144), ("rms2k_T256V8", "rmsnorm", 2048, 8192), ("sm2k_T256V8", "softmax", 2048, 8192)]:
    add(name, name + ".cu", case, R, C)
    if case == "layernorm_affine" and name in ("ln2k_T256V8", "ln2k_T384V8", "ln768_T128V8"):
        add(name + "_centre", variant(name, "centre", centre), case, R, C)
    if name == "ln2k_T256V8":
        add(name + "_noB(wrong)", variant(name, "nob", nob), "skip", R, C)
        add(name + "_noGB(wrong)", variant(name, "nogb", noweights), "skip", R, C)
json.dump(man, open("manifest.json", "w"), indent=0)
print(len(man), "variants")
