# run 15 variants (issue 16, 768x6144): the emitted kernels beside hand-written forms that test
# (a) loads issued before any store (the element grid and LayerNorm's weight loads), (b) two rows
# per threadgroup sharing barriers and weight loads, and copy kernels of the same traffic.
# usage: python3 gen15.py TRANSLATE PRELUDE   (writes *.cu and meta.json next to the *.metal)
import re, subprocess, json, sys
translate, prelude = sys.argv[1], sys.argv[2]
HEAD = "#include <metal_stdlib>\nusing namespace metal;\n\n"
SIG = "uint tid [[thread_index_in_threadgroup]], uint group [[threadgroup_position_in_grid]]"
SIGR = SIG + ", uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]"

def ln(R, C, T, rows, hoist):
    K = C // (4 * T); S = T // 32
    assert K * 4 * T == C and R % rows == 0 and S <= 32
    L = [HEAD + f"// tile: hand ln rows={rows} hoist={hoist} T={T} groups={R // rows}",
         "kernel void ln_hand(device const float* X [[buffer(0)]], device const float* G [[buffer(1)]], device const float* B [[buffer(2)]], device float* Y [[buffer(3)]], " + SIGR + ")", "{"]
    L.append(f"  threadgroup float tg0[{rows * S}]; threadgroup float tg1[{rows * S}];")
    L.append("  const int worker = int(tid);")
    for i in range(rows):
        L.append(f"  const int r{i} = int(group) * {rows} + {i};")
        L.append(f"  float c{i}[{K * 4}];")
    L.append(f"  for (int k = 0; k < {K}; ++k) {{ const int v0 = (k * {T} + worker) * 4;")
    for i in range(rows):
        L.append(f"    const packed_float4 w{i} = *((device const packed_float4*)(&X[r{i} * {C} + v0]));")
        L.append(f"    for (int j = 0; j < 4; ++j) c{i}[k * 4 + j] = w{i}[j];")
    L.append("  }")
    for i in range(rows):
        L.append(f"  float a{i} = 0.0f; for (int t = 0; t < {K * 4}; ++t) a{i} = a{i} + c{i}[t];")
        L.append(f"  const float p{i} = simd_sum(a{i});")
    L.append("  if (lane == 0u) { " + " ".join(f"tg0[{i * S} + int(sg)] = p{i};" for i in range(rows)) + " }")
    L.append("  threadgroup_barrier(mem_flags::mem_threadgroup);")
    for i in range(rows):
        L.append(f"  const float mean{i} = simd_sum(lane < {S}u ? tg0[{i * S} + int(lane)] : 0.0f) / {C}.0f;")
        L.append(f"  float q{i} = 0.0f; for (int t = 0; t < {K * 4}; ++t) q{i} = q{i} + ((c{i}[t] - mean{i}) * (c{i}[t] - mean{i}));")
        L.append(f"  const float pq{i} = simd_sum(q{i});")
    L.append("  if (lane == 0u) { " + " ".join(f"tg1[{i * S} + int(sg)] = pq{i};" for i in range(rows)) + " }")
    L.append("  threadgroup_barrier(mem_flags::mem_threadgroup);")
    for i in range(rows):
        L.append(f"  const float inv{i} = precise::rsqrt(simd_sum(lane < {S}u ? tg1[{i * S} + int(lane)] : 0.0f) / {C}.0f + 0.00001f);")
    if hoist:
        L.append(f"  packed_float4 g[{K}]; packed_float4 b[{K}];")
        L.append(f"  for (int k = 0; k < {K}; ++k) {{ const int v0 = (k * {T} + worker) * 4; g[k] = *((device const packed_float4*)(&G[v0])); b[k] = *((device const packed_float4*)(&B[v0])); }}")
    L.append(f"  for (int k = 0; k < {K}; ++k) {{ const int v0 = (k * {T} + worker) * 4;")
    if hoist:
        L.append("    const packed_float4 gk = g[k]; const packed_float4 bk = b[k];")
    else:
        L.append("    const packed_float4 gk = *((device const packed_float4*)(&G[v0])); const packed_float4 bk = *((device const packed_float4*)(&B[v0]));")
    for i in range(rows):
        L.append(f"    packed_float4 y{i}; for (int j = 0; j < 4; ++j) y{i}[j] = (((c{i}[k * 4 + j] - mean{i}) * inv{i}) * gk[j]) + bk[j];")
        L.append(f"    *((device packed_float4*)(&Y[r{i} * {C} + v0])) = y{i};")
    L.append("  }")
    L.append("}")
    return "\n".join(L) + "\n", T, R // rows

def pair(R, C, T, H, loads_first, outs=2, op="sigmoid"):
    per = T * H * 4; bpr = C // per; assert bpr * per == C
    names = ["S", "D"][:outs]
    L = [HEAD + f"// tile: hand pair/copy outs={outs} op={op} T={T} H={H} loads_first={loads_first} groups={R * bpr}",
         "kernel void pair_hand(device const float* X [[buffer(0)]], " + ", ".join(f"device float* {n} [[buffer({i + 1})]]" for i, n in enumerate(names)) + ", " + SIG + ")", "{"]
    L.append(f"  const int row = int(group) / {bpr}; const int col0 = (int(group) % {bpr}) * {per};")
    def body(x):
        if op == "sigmoid":
            return [f"      const float s = 1.0f / (1.0f + precise::exp(-{x}));", "      ys[j] = s;", "      yd[j] = s * (1.0f - s);"]
        return [f"      ys[j] = {x};"] + (["      yd[j] = " + x + ";"] if outs == 2 else [])
    if loads_first:
        L.append(f"  packed_float4 x[{H}];")
        L.append(f"  for (int h = 0; h < {H}; ++h) x[h] = *((device const packed_float4*)(&X[row * {C} + col0 + (h * {T} + int(tid)) * 4]));")
        L.append(f"  for (int h = 0; h < {H}; ++h) {{ const int col = col0 + (h * {T} + int(tid)) * 4; const packed_float4 xh = x[h];")
    else:
        L.append(f"  for (int h = 0; h < {H}; ++h) {{ const int col = col0 + (h * {T} + int(tid)) * 4;")
        L.append(f"    const packed_float4 xh = *((device const packed_float4*)(&X[row * {C} + col]));")
    L.append("    packed_float4 ys; packed_float4 yd;" if outs == 2 else "    packed_float4 ys;")
    L.append("    for (int j = 0; j < 4; ++j) {")
    L += body("xh[j]")
    L.append("    }")
    L.append(f"    *((device packed_float4*)(&S[row * {C} + col])) = ys;")
    if outs == 2: L.append(f"    *((device packed_float4*)(&D[row * {C} + col])) = yd;")
    L.append("  }")
    L.append("}")
    return "\n".join(L) + "\n", T, R * bpr

variants = {}
def emitted(name, file):
    t = open(file).read()
    m = re.search(r"// tile: .*? T=(\d+) .*?groups=(\d+)", t)
    variants[name] = (t, int(m.group(1)), int(m.group(2)))
for f in ["ln768_A", "ln768_T288V8", "ln1024_A", "rms768_A", "sm768_A", "sm768_T192V8", "gelu768_A",
          "pair768_T256V8", "pair768_T256V4", "pair768_T512V8", "pair768_T512V4", "pair768_T1024V4", "pair768_T128V8"]:
    emitted(f, f + ".metal")
variants["ln768_h1"] = ln(768, 6144, 512, 1, 0)
variants["ln768_h1_hoist"] = ln(768, 6144, 512, 1, 1)
variants["ln768_2row"] = ln(768, 6144, 512, 2, 0)
variants["ln768_2row_hoist"] = ln(768, 6144, 512, 2, 1)
variants["ln768_2row_T256"] = ln(768, 6144, 256, 2, 1)
variants["ln768_2row_T384"] = ln(768, 6144, 384, 2, 1)
variants["ln1024_2row_hoist"] = ln(1024, 4096, 256, 2, 1)
variants["ln1024_h1_hoist"] = ln(1024, 4096, 256, 1, 1)
variants["pair768_lf_T256H2"] = pair(768, 6144, 256, 2, 1)
variants["pair768_lf_T256H3"] = pair(768, 6144, 256, 3, 1)
variants["pair768_lf_T128H4"] = pair(768, 6144, 128, 4, 1)
variants["pair768_lf_T256H6"] = pair(768, 6144, 256, 6, 1)
variants["pair768_lf_T512H3"] = pair(768, 6144, 512, 3, 1)
variants["pair768_nolf_T256H2"] = pair(768, 6144, 256, 2, 0)
variants["copy768_T256H2"] = pair(768, 6144, 256, 2, 1, outs=1, op="copy")
variants["copy2_768_T256H2"] = pair(768, 6144, 256, 2, 1, outs=2, op="copy")
variants["copy2_768_T256H6"] = pair(768, 6144, 256, 6, 1, outs=2, op="copy")
meta = {}
for name, (text, T, groups) in variants.items():
    open(name + ".metal", "w").write(text)
    cu = subprocess.run([translate, prelude], input=text, capture_output=True, text=True, check=True).stdout
    open(name + ".cu", "w").write(cu)
    entry = re.search(r'extern "C" __global__ void (\w+)\(([^)]*)\)', cu)
    meta[name] = {"threads": T, "groups": groups, "entry": entry.group(1), "nbuf": entry.group(2).count("void *")}
json.dump(meta, open("meta.json", "w"), indent=1)
print(len(meta), "variants")
