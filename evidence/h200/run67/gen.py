# experiment 67: the column kernels' final (storing) loop, as emitted (U = 1 and U = 4), with the
# U chunks' values computed before any store ("hoist", U = 4 and 8), and with __restrict__.
import re, subprocess, json, sys, os
translate, prelude = sys.argv[1], sys.argv[2]
meta = {}
def hoist(src):
    # the last "for (int k = 0; ...) {" loop of the kernel: sub-blocks { const int r = E; if (live) { Y[I] = V; } }
    i = src.rindex("  for (int k = 0;")
    j = src.index("\n  }\n", i) + 4
    loop = src[i:j]
    blocks = re.findall(r"\{\n\s+const int r = ([^;]+);\n\s+if \(live\) \{ (\w+)\[([^\]]+)\] = (.+); \}\n\s+\}", loop)
    assert blocks, loop
    head = loop.split("\n")[0]
    body = []
    for n, (e, buf, idx, val) in enumerate(blocks):
        sub = lambda s: re.sub(r"\br\b", f"r_{n}", s)
        body.append(f"    const int r_{n} = {e};")
        body.append(f"    const float v_{n} = {sub(val)};")
    for n, (e, buf, idx, val) in enumerate(blocks):
        ix = re.sub(r"\br\b", "r_%d" % n, idx)
        body.append("    if (live) { %s[%s] = v_%d; }" % (buf, ix, n))
    return src[:i] + head + "\n" + "\n".join(body) + "\n  }\n" + src[j:]
for f in sorted(os.listdir(".")):
    if not f.endswith(".metal"): continue
    n = f[:-6]
    src = open(f).read()
    variants = {n: src}
    if "_U4" in n or "_U8" in n: variants[n + "_H"] = hoist(src)
    for v, s in variants.items():
        cu = subprocess.run([translate, prelude], input=s, capture_output=True, text=True, check=True).stdout
        open(v + ".cu", "w").write(cu)
        if v.endswith("_H"): open(v + ".metal.txt", "w").write(s)
        hdr = [l for l in s.split("\n") if l.startswith("// tile:")][0]
        T = int(re.search(r" T=(\d+)", hdr).group(1)); groups = int(re.search(r"groups=(\d+)", hdr).group(1))
        entry = re.search(r"__global__ void (tile_entry_\w+)\(", cu).group(1)
        meta[v] = {"threads": T, "groups": groups, "entry": entry}
        if v == n and "_U1" in n:
            r, cnt = re.subn(r"^(\s+(?:const )?float\* )(\w+)(\s+[,)])", lambda m: m.group(1) + "__restrict__ " + m.group(2) + m.group(3), cu, flags=re.M)
            assert cnt >= 2, (v, cnt)
            open(v + "_R.cu", "w").write(r); meta[v + "_R"] = dict(meta[v])
json.dump(meta, open("meta.json", "w"), indent=1)
print(len(meta), "units")
