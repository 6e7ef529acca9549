# variants37.py: each emitted unit, and the same without the signed-zero handling (the old text)
import json, re
man = []
def add(name, cu, case, R, C):
    src = open(cu).read()
    T = int(re.search(r"T=(\d+)", src).group(1)); groups = int(re.search(r"groups=(\d+)", src).group(1))
    entry = re.search(r"(tile_entry_\w+)", src).group(1)
    man.append(dict(name=name, cu=cu, entry=entry, case=case, R=R, C=C, T=T, groups=groups, cap=0))
def old(src):
    out = re.sub(r"\n *uint tile_zs_\w+ = 0x[0-9a-f]+u;", "", src)
    out = re.sub(r"\n *tile_zs_\w+ [&|]= as_type<uint>\([^)]*\);", "", out)
    out = re.sub(r"\n *if \(acc_\w+ == 0\.0f\) \{ acc_\w+ = as_type<float>\(tile_zs_\w+ & 0x80000000u\); \}", "", out)
    out = re.sub(r"\n *const uint zero = simd_any\([^;]*;", "", out)
    out = re.sub(r"return any_nan \? NAN : \(\(as_type<uint>\(m\) & 0x7fffffffu\) == 0u \? as_type<float>\(zero\) : m\);", "return any_nan ? NAN : m;", out)
    assert "tile_zs" not in out and "const uint zero" not in out and "as_type<float>(zero)" not in out, "left"
    return out
for name, case, R, C in [("sm1k_T128V8", "softmax", 1024, 4096), ("sm768_T192V8", "softmax", 768, 6144), ("sm2k_T288V8", "softmax", 2048, 8192)]:
    add(name, name + ".cu", case, R, C)
    src = open(name + ".cu").read(); o = old(src); assert o != src
    open(name + "_old.cu", "w").write(o)
    add(name + "_old", name + "_old.cu", case, R, C)
json.dump(man, open("manifest.json", "w"), indent=0)
print(len(man), "variants")
