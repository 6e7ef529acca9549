// The CUDA runtime's source generation (shell-native/cuda/translate.cpp + msl_prelude.cuh), in CI
// with no GPU: the translator is built with g++ into a temporary folder (translate_main.cpp) and
//   - its rewrites and generated __global__ entries are checked as text;
//   - every golden kernel's whole unit (prelude + rewritten MSL + entry) is type-checked by g++
//     against a host stand-in for CUDA's device vocabulary (test/fixtures/cuda/host-stub.h);
//   - where nvcc exists, a few units (f32, half and bfloat) are compiled to sm_90 machine code,
//     and a broken one fails;
//   - libtile_cuda.so, where built, fails to open with a clear message when no driver exists and
//     `auto` then falls back to the host runtime.
import { describe, it, expect, beforeAll } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { nativeLibraryPath, openRuntime } from "../shell-node/src/native";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, "..");
const prelude = path.join(root, "shell-native", "cuda", "msl_prelude.cuh");
const stub = path.join(here, "fixtures", "cuda", "host-stub.h");
const goldens = path.join(here, "fixtures", "msl-pipeline");
let tmp = "";
let tool = "";

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tile-cuda-test-"));
  tool = path.join(tmp, "tile_cuda_translate");
  execFileSync("g++", ["-std=c++17", "-O0", "-o", tool, ...["cuda/translate_main.cpp", "cuda/translate.cpp", "common/msl_signature.cpp"]
    .map((f) => path.join(root, "shell-native", f))]);
}, 120_000);

function translate(msl: string, mode = ""): string {
  const r = spawnSync(tool, mode ? [prelude, mode] : [prelude], { input: msl, encoding: "utf8" });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

/** The syntax check of whole CUDA units (prelude + rewritten MSL + entries) against the host
 *  stand-in, `g++ -fsyntax-only -include host-stub.h`. All units go through one g++ call (a
 *  separate call per unit cost about 0.4 CPU-seconds each, mostly parsing <cmath> again): each
 *  unit's text, unchanged, inside a namespace of its own, with the prelude's include guard reset so
 *  that every unit parses its own copy of the prelude in its namespace (a unit that redefines a
 *  prelude name fails as it does alone). Only when that call fails are the units checked one by
 *  one, so that each failure is named and has its own log. Returns "name: log" per failing unit;
 *  a batch failure no single unit reproduces is reported as such. */
function checkUnits(units: { name: string; text: string }[]): string[] {
  const check = (file: string) =>
    spawnSync("g++", ["-std=c++17", "-fsyntax-only", "-x", "c++", "-include", stub, file], { encoding: "utf8" });
  const batch = path.join(tmp, `batch-${units.length}-${process.hrtime.bigint()}.cu`);
  fs.writeFileSync(batch, units.map((u, i) => `#undef TILE_MSL_PRELUDE\nnamespace tile_unit_${i} {\n${u.text}\n}\n`).join(""));
  const all = check(batch);
  if (all.status === 0) return [];
  const failures: string[] = [];
  for (const u of units) {
    const unit = path.join(tmp, u.name.replace(/\.metal$/, ".cu"));
    fs.writeFileSync(unit, u.text);
    const r = check(unit);
    if (r.status !== 0) failures.push(`${u.name}: ${r.stderr.slice(0, 600)}`);
  }
  return failures.length > 0 ? failures : [`the batch of ${units.length} units (no unit fails alone): ${all.stderr.slice(0, 600)}`];
}

const golden = (name: string): string => fs.readFileSync(path.join(goldens, name), "utf8");

describe("MSL -> CUDA rewrites", () => {
  it("suffixes floating literals with f and leaves integers, suffixed, hex-integer and identifier digits alone", () => {
    const src = "float a = 1.5 + 2e-3 + .25 + 1.0f + 3 + 0x10 + 0x1p3 + 7u + x1e5;\n";
    expect(translate(src, "--rewrite")).toBe("float a = 1.5f + 2e-3f + .25f + 1.0f + 3 + 0x10 + 0x1p3f + 7u + x1e5;\n");
  });

  it("blanks address spaces (constant becomes const) with the same lengths, and keeps threadgroup_barrier", () => {
    const src = "void f(device float* a, constant float& b, thread int* c) { threadgroup_barrier(mem_flags::mem_threadgroup); }\n";
    const out = translate(src, "--rewrite");
    expect(out).toContain("const    float& b");
    expect(out).not.toMatch(/\bdevice\b|\bthread\b|\bconstant\b/);
    expect(out).toContain("threadgroup_barrier(mem_flags::mem_threadgroup)");
  });

  it("turns a threadgroup array in a body into __shared__, but not a threadgroup pointer", () => {
    const src = "kernel void k(device float* y [[buffer(0)]]) {\n  threadgroup float tg0[16];\n  threadgroup float* p = tg0;\n  y[0] = p[0];\n}\n";
    const out = translate(src, "--rewrite");
    expect(out).toContain("__shared__  float tg0[16];");
    expect(out).toMatch(/^ {14}float\* p = tg0;$/m);
    expect(out).not.toContain("[[");
  });

  it("marks every file-scope function definition __device__ (helpers and kernels), not calls or declarations", () => {
    const src = golden("../msl/wrapped_i32__serial.metal");
    const out = translate(src, "--rewrite");
    expect(out).toMatch(/^__device__ static inline int tile_mod\(int a, int b\) \{$/m);
    expect(out).toMatch(/^__device__ {8}void wrapped_i32_serial_program\($/m);
    // one per definition: the file-scope helpers and the kernel, nothing else
    const definitions = src.match(/^(static inline [^\n]*\)\s*\{|kernel void \w+\()/gm)!.length;
    expect(definitions).toBeGreaterThanOrEqual(3);
    expect(out.match(/__device__/g)!.length).toBe(definitions);
    expect(out).not.toContain("#include <metal_stdlib>");
  });
});

describe("generated __global__ entries", () => {
  it("maps buffers to pointer arguments and derives the four Metal indices from CUDA's", () => {
    const msl = "kernel void k(device const float* X [[buffer(0)]], device float* Y [[buffer(2)]],\n" +
      "  uint tid [[thread_index_in_threadgroup]], uint g [[threadgroup_position_in_grid]],\n" +
      "  uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]) { Y[tid] = X[g]; }\n";
    const linear = "(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))";
    expect(translate(msl, "--entries")).toBe(
      'extern "C" __global__ void tile_entry_k(void *__tile_b0, void *__tile_b2) {\n' +
      "  k(\n    (const float*)(__tile_b0),\n    (float*)(__tile_b2),\n" +
      `    (uint)(${linear}),\n    (uint)(blockIdx.x),\n    (uint)((${linear} & 31u)),\n    (uint)((${linear} >> 5)));\n}\n`);
  });

  it("makes threadgroup parameters slices of dynamic shared memory at offsets passed at launch", () => {
    const msl = "kernel void k(device float* Y [[buffer(0)]], threadgroup float* a [[threadgroup(0)]], threadgroup int* b [[threadgroup(1)]]) { }\n";
    const out = translate(msl, "--entries");
    expect(out).toContain("tile_entry_k(void *__tile_b0, unsigned __tile_tg0, unsigned __tile_tg1)");
    expect(out).toContain("extern __shared__ __align__(16) unsigned char __tile_smem[];");
    expect(out).toContain("(float*)((__tile_smem + __tile_tg0))");
    expect(out).toContain("(int*)((__tile_smem + __tile_tg1))");
  });

  it("passes reference buffers by dereference and vector positions with make_uint3", () => {
    const msl = "struct P { int n; };\nkernel void k(constant P& p [[buffer(1)]], uint3 gid [[thread_position_in_grid]]) { }\n";
    const out = translate(msl, "--entries");
    expect(out).toContain("*(const P*)(__tile_b1)");
    expect(out).toContain("make_uint3((blockIdx.x * blockDim.x + threadIdx.x), (blockIdx.y * blockDim.y + threadIdx.y), (blockIdx.z * blockDim.z + threadIdx.z))");
  });

  it("rejects what it cannot map, with the MSL line", () => {
    const r = spawnSync(tool, [prelude], { input: "kernel void k(device float* y [[buffer(0)]],\n float t [[thread_index_in_threadgroup]]) { }\n", encoding: "utf8" });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("kernel.metal:2: error:");
    expect(r.stderr).toContain("must be uint");
  });
});

describe("whole units", () => {
  const files = fs.readdirSync(goldens).filter((f) => f.endsWith(".metal")).sort();

  it("type-check with g++ against a host stand-in for CUDA, for every golden kernel", () => {
    expect(files.length).toBeGreaterThan(20);
    const units = files.map((f) => ({ name: f, text: translate(golden(f)) }));
    for (const u of units) expect(u.text, u.name).toContain(fs.readFileSync(prelude, "utf8")); // each unit carries the whole prelude
    expect(checkUnits(units)).toEqual([]);
  }, 300_000);

  it("a unit that fails the type-check is named, with its own g++ log, and one that redefines a prelude name fails", () => {
    // one g++ call checks every unit; when it fails, each unit is checked alone so that the report
    // names the culprits. The prelude sits inside each unit's namespace (not once at file scope),
    // so a unit that redefines a prelude name fails in the batch as it does alone.
    const good = { name: files[0], text: translate(golden(files[0])) };
    const bad = { name: "broken.metal", text: translate(golden("softmax__p2-t512-v4.metal")).replace(/\bsimd_max\(x\)/, "simd_maximum(x)") };
    const clash = { name: "clash.metal", text: good.text.replace(/\n#line 1 "kernel\.metal"\n/, '\n#line 1 "kernel.metal"\nstruct half { int x; };\n') };
    expect(bad.text).toContain("simd_maximum(x)");
    expect(clash.text).toContain("struct half { int x; };");
    const failures = checkUnits([good, bad, clash]);
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatch(/^broken\.metal: [^]*simd_maximum/);
    expect(failures[1]).toMatch(/^clash\.metal: [^]*half/);
  }, 120_000);

  it("the host type-check fails when the prelude lacks a collective the kernel uses", () => {
    const unit = path.join(tmp, "broken.cu");
    fs.writeFileSync(unit, translate(golden("softmax__p2-t512-v4.metal")).replace(/\bsimd_max\(x\)/, "simd_maximum(x)"));
    const r = spawnSync("g++", ["-std=c++17", "-fsyntax-only", "-x", "c++", "-include", stub, unit], { encoding: "utf8" });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("simd_maximum");
  });

  it("packed vectors: a copy from memory and an assignment to memory give the same values at 16-byte and 4-byte aligned addresses", () => {
    // the prelude built for the host with the stand-in: the 16-byte path and the element path
    // must agree bit for bit (float, int, and the float NaN payload), in both directions
    const prog = path.join(tmp, "packed.cpp");
    fs.writeFileSync(prog, `#include <cstdio>
#include <cstring>
#include "${prelude}"
int main() {
  alignas(16) unsigned bits[12];
  for (unsigned i = 0; i < 12; ++i) bits[i] = 0x3f800000u + i * 0x00123457u;
  bits[5] = 0x7fc00123u; // a NaN with a payload
  int bad = 0;
  for (int off = 0; off < 4; ++off) { // off 0: 16-byte aligned; 1-3: 4-byte aligned only
    const packed_float4 *pf = (const packed_float4 *)(bits + off + 4);
    packed_float4 f = *pf;
    const packed_int4 *pi = (const packed_int4 *)(bits + off + 4);
    packed_int4 n = *pi;
    alignas(16) unsigned dst[12] = {0};
    *(packed_float4 *)(dst + off + 4) = f;
    for (int j = 0; j < 4; ++j) {
      unsigned u; std::memcpy(&u, &f[j], 4);
      bad += u != bits[off + 4 + j];
      bad += (unsigned)n[j] != bits[off + 4 + j];
      bad += dst[off + 4 + j] != bits[off + 4 + j];
    }
    bad += dst[off + 3] != 0 || dst[off + 8] != 0; // nothing written around the vector
  }
  std::printf("%d\\n", bad);
  return 0;
}
`);
    execFileSync("g++", ["-std=c++17", "-O1", "-include", stub, "-o", prog + ".bin", prog]);
    expect(execFileSync(prog + ".bin", { encoding: "utf8" }).trim()).toBe("0");
  }, 120_000);

  const nvcc = spawnSync("nvcc", ["--version"]).status === 0;
  it.skipIf(!nvcc)("nvcc makes the packed loads and stores of an emitted kernel 16-byte accesses (with an element fallback)", () => {
    const unit = path.join(tmp, "vec.nv.cu");
    fs.writeFileSync(unit, translate(golden("softmax__p1-t256-v4.metal")));
    const r = spawnSync("nvcc", ["-std=c++17", "-ptx", "-arch=sm_90", "-o", unit + ".ptx", unit], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const ptx = fs.readFileSync(unit + ".ptx", "utf8");
    expect(ptx).toMatch(/ld\.global(\.nc)?\.v4\.(u32|b32|f32)/);
    expect(ptx).toMatch(/st\.global\.v4\.(u32|b32|f32)/);
    expect(ptx).not.toMatch(/\.local/);
  }, 300_000);

  it.skipIf(!nvcc)("compile to sm_90 with nvcc where it exists (a cooperative kernel, a helper function, half and bfloat kernels); a wrong unit fails", () => {
    const out: string[] = [];
    for (const [name, text] of [["softmax", golden("softmax__p2-t512-v4.metal")], ["wrapped", golden("../msl/wrapped_i32__serial.metal")],
      // 16-bit buffers: packed_half4 stripes (V = 8), packed_bfloat4 (V = 4), bfloat uncached
      ["softmax_f16", golden("softmax_f16__p8-t256-v8-r36.metal")], ["layernorm_bf16", golden("layernorm_bf16__p1-t256-v4.metal")],
      ["rmsnorm_bf16", golden("rmsnorm_bf16__p3-v1-u3-uncached.metal")],
      ["broken", golden("rmsnorm__p1-t256-v4.metal").replace("precise::rsqrt", "precise::rsqrtt")]] as const) {
      const unit = path.join(tmp, `${name}.nv.cu`);
      fs.writeFileSync(unit, translate(text));
      const r = spawnSync("nvcc", ["-cubin", "-arch=sm_90", "-o", unit + ".cubin", unit], { encoding: "utf8" });
      out.push(`${name}: ${r.status === 0 ? "ok" : "failed"}`);
    }
    expect(out).toEqual(["softmax: ok", "wrapped: ok", "softmax_f16: ok", "layernorm_bf16: ok", "rmsnorm_bf16: ok", "broken: failed"]);
  }, 300_000);
});

describe("libtile_cuda without a GPU", () => {
  const built = fs.existsSync(nativeLibraryPath("cuda"));
  const driver = ["/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1"].some((p) => fs.existsSync(p));
  it.skipIf(!built || driver)("fails to open with the reason, and auto falls back to the host runtime", () => {
    expect(() => openRuntime("cuda")).toThrow(/cannot open the cuda runtime.*no NVIDIA driver: cannot load libcuda\.so\.1/);
    const rt = openRuntime("auto");
    expect(rt.kind).toBe("host");
    rt.close();
  });
});
