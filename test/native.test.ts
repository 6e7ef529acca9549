// The native runtime ABI through the koffi binding, on the host CPU runtime (any OS).
// Kernels are hand-written MSL in test/native/*.metal, checked against JS references.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openRuntime, nativeLibraryPath, type Runtime, type DeviceBuffer } from "../shell-node/src/native";

const here = path.dirname(fileURLToPath(import.meta.url));
const kernel = (name: string): string => fs.readFileSync(path.join(here, "native", name), "utf8");

let rt: Runtime;

beforeAll(() => {
  if (!fs.existsSync(nativeLibraryPath("host"))) {
    execFileSync(process.execPath, [path.join(here, "..", "shell-native", "build.mjs")], { stdio: "inherit" });
  }
  rt = openRuntime("host");
});

afterAll(() => rt?.close());

const close = (got: number, ref: number): boolean => Math.abs(got - ref) <= 2e-6 + 2e-5 * Math.abs(ref);

function expectClose(got: ArrayLike<number>, ref: ArrayLike<number>): void {
  expect(got.length).toBe(ref.length);
  const bad: string[] = [];
  for (let i = 0; i < ref.length; i++) if (!close(got[i], ref[i])) bad.push(`[${i}] got ${got[i]} want ${ref[i]}`);
  expect(bad.slice(0, 5)).toEqual([]);
}

/** Deterministic pseudo-random floats in [-2, 2). */
function data(n: number, seed = 1): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32) * 4 - 2;
  }
  return out;
}

/** Compiles with the race and bounds detector off (the runtime's default is on). */
function uncheckedCompile(src: string) {
  rt.setDetector(false);
  try {
    return rt.compile(src);
  } finally {
    rt.setDetector(true);
  }
}

function f32(buf: DeviceBuffer): Float32Array {
  return new Float32Array(rt.read(buf));
}

function rowSums(x: Float32Array, rows: number, cols: number): number[] {
  const out: number[] = [];
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let c = 0; c < cols; c++) s += x[r * cols + c];
    out.push(s);
  }
  return out;
}

describe("host runtime: device", () => {
  it("identifies itself as host with host times", () => {
    expect(rt.kind).toBe("host");
    expect(rt.deviceName).toMatch(/^host-cpu \(/);
  });

  it.skipIf(process.platform === "darwin")("auto falls back to host where Metal does not exist", () => {
    const auto = openRuntime("auto");
    expect(auto.kind).toBe("host");
    auto.close();
    expect(() => openRuntime("metal")).toThrow(/metal runtime library not found .*only on macOS/);
  });

  it("handles outlive close() and are freed afterwards", () => {
    const other = openRuntime("host");
    const lib = other.compile(kernel("repeat_add.metal"));
    const pipe = other.pipeline(lib, "repeat_add");
    const buf = other.buffer(64);
    other.close();
    expect(() => other.buffer(4)).toThrow(/closed/);
    other.freePipeline(pipe);
    other.freeLibrary(lib);
    other.freeBuffer(buf);
  });
});

describe("host runtime: kernels against references", () => {
  it("row sum: two-stage simd_sum with a barrier and threadgroup memory", () => {
    const lib = rt.compile(kernel("row_sum.metal"));
    const pipe = rt.pipeline(lib, "row_sum");
    expect(pipe.maxThreads).toBe(1024);
    const rows = 5, cols = 1000;
    const x = data(rows * cols);
    const X = rt.buffer(x.byteLength), Y = rt.buffer(rows * 4);
    rt.write(X, x);
    rt.dispatch(pipe, [X, Y], [64], [rows, 1, 1], [64, 1, 1], 3);
    expectClose(f32(Y), rowSums(x, rows, cols));
    const t = rt.lastTimes();
    expect(t.gpu).toBe(false);
    expect(t.end).toBeGreaterThanOrEqual(t.start);
    for (const b of [X, Y]) rt.freeBuffer(b);
    rt.freePipeline(pipe);
    rt.freeLibrary(lib);
  });

  it("P=2 packed row sum with tail replay stores only live rows", () => {
    const lib = rt.compile(kernel("row_sum_p2.metal"));
    const pipe = rt.pipeline(lib, "row_sum_p2");
    const rows = 5, cols = 77, guard = 3;
    const x = data(rows * cols, 7);
    const X = rt.buffer(x.byteLength);
    // Y has guard slots after the 5 rows: the replayed slot (row 4 again) must not write there.
    const Y = rt.buffer((rows + guard) * 4);
    rt.write(Y, new Float32Array(rows + guard).fill(-777));
    rt.write(X, x);
    rt.dispatch(pipe, [X, Y], [32], [Math.ceil(rows / 2), 1, 1], [64, 1, 1], 3);
    const y = f32(Y);
    expectClose(y.subarray(0, rows), rowSums(x, rows, cols));
    expect(Array.from(y.subarray(rows))).toEqual([-777, -777, -777]);
    rt.freeLibrary(lib);
    rt.freePipeline(pipe);
  });

  it("softmax: two barriers, simd_max and simd_sum, 1024 rows x 256 threads", () => {
    const lib = rt.compile(kernel("softmax.metal"));
    const pipe = rt.pipeline(lib, "softmax_rows");
    const rows = 1024, cols = 700;
    const x = data(rows * cols, 3);
    const X = rt.buffer(x.byteLength), Y = rt.buffer(x.byteLength);
    rt.write(X, x);
    rt.dispatch(pipe, [X, Y], [32, 32], [rows, 1, 1], [256, 1, 1], 1);
    const y = f32(Y);
    for (const r of [0, 1, 511, 1023]) {
      const row = Array.from(x.subarray(r * cols, (r + 1) * cols));
      const m = Math.max(...row);
      const s = row.reduce((a, v) => a + Math.exp(v - m), 0);
      expectClose(y.subarray(r * cols, (r + 1) * cols), row.map((v) => Math.exp(v - m) / s));
    }
  });

  it("elementwise kernel with two outputs, ragged last block", () => {
    const lib = rt.compile(kernel("elementwise2.metal"));
    const pipe = rt.pipeline(lib, "ew2");
    const n = 1000;
    const x = data(n, 11);
    const X = rt.buffer(n * 4), Y = rt.buffer(n * 4), Z = rt.buffer(n * 4);
    rt.write(X, x);
    rt.dispatch(pipe, [X, Y, Z], [], [Math.ceil(n / 256), 1, 1], [256, 1, 1]);
    expectClose(f32(Y), Array.from(x, (v) => Math.exp(v) - 1));
    expectClose(f32(Z), Array.from(x, (v) => v * 2 + 1));
  });

  it("a 1024x4096 elementwise grid (4M threads) runs", () => {
    const lib = rt.compile(kernel("elementwise2.metal"));
    const pipe = rt.pipeline(lib, "ew_big");
    const n = 1024 * 4096;
    const x = data(n, 5);
    const X = rt.buffer(n * 4), Y = rt.buffer(n * 4);
    rt.write(X, x);
    rt.dispatch(pipe, [X, Y], [], [n / 256, 1, 1], [256, 1, 1]);
    const y = f32(Y);
    for (const i of [0, 1, 4095, 4096, n / 2 + 3, n - 1]) expect(close(y[i], x[i] * 0.5 + 1)).toBe(true);
  });

  it("float4 vectors: loads, constructors, componentwise ops, dot", () => {
    const lib = rt.compile(kernel("vec4.metal"));
    const pipe = rt.pipeline(lib, "vec4_scale");
    const n = 64;
    const x = data(n * 4, 2);
    const X = rt.buffer(x.byteLength), Y = rt.buffer(x.byteLength), D = rt.buffer(n * 4);
    rt.write(X, x);
    rt.dispatch(pipe, [X, Y, D], [], [2, 1, 1], [32, 1, 1]);
    const y: number[] = [], d: number[] = [];
    for (let i = 0; i < n; i++) {
      const [a, b, c, e] = x.subarray(i * 4, i * 4 + 4);
      const lo = [a, b, a, b];
      const v = [a, b, c, e].map((xv, k) => xv * (k + 1) + 0.5 - lo[k] / 2);
      v[3] = Math.max(v[3], 0);
      y.push(...v);
      d.push(a + 2 * b + 3 * c + 4 * e + (a + b + c + e));
    }
    expectClose(f32(Y), y);
    expectClose(f32(D), d);
  });

  it("dialect: helpers, #define, constants, select, as_type, collectives, fast/precise", () => {
    const lib = rt.compile(kernel("dialect.metal"));
    const pipe = rt.pipeline(lib, "dialect");
    const groups = 2, threads = 64, n = groups * threads;
    const x = data(n, 9);
    const X = rt.buffer(n * 4), F = rt.buffer(n * 8 * 4), I = rt.buffer(n * 4 * 4);
    rt.write(X, x);
    rt.dispatch(pipe, [X, F, I], [], [groups, 1, 1], [threads, 1, 1]);
    const f = f32(F), iv = new Int32Array(rt.read(I));
    const fr: number[] = [], ir: number[] = [];
    for (let g = 0; g < n; g++) {
      const tid = g % threads, lane = tid % 32, sg = Math.floor(tid / 32);
      const simd = Array.from(x.subarray(g - lane, g - lane + 32));
      const v = x[g];
      fr.push(v / 2 + 1, v > 0 ? v : -1, Math.max(...simd), Math.min(...simd), simd[3], lane < 31 ? simd[lane + 1] : v,
        Math.min(Math.max(Math.exp(v), 0.5), 2) + Math.sqrt(Math.abs(v)) + 0.5,
        Math.floor(Math.fround(v * 10)) + Math.tanh(v) + Math.log(2) + Math.abs(v));
      ir.push(1488, sg * 32 + 31, (lane & 1 ? 9 : 7) + Math.min(sg, 5) + 2, 0x3f800000);
    }
    expectClose(f, fr);
    expect(Array.from(iv)).toEqual(ir);
    // a second entry point of the same library
    const other = rt.pipeline(lib, "other_entry");
    const O = rt.buffer(32 * 4);
    rt.dispatch(other, [O], [], [1, 1, 1], [32, 1, 1]);
    expect(Array.from(new Int32Array(rt.read(O)))).toEqual(Array.from({ length: 32 }, (_, i) => i * 7));
  });

  it("repeat runs the grid that many times in one call", () => {
    const lib = rt.compile(kernel("repeat_add.metal"));
    const pipe = rt.pipeline(lib, "repeat_add");
    const Y = rt.buffer(96 * 4);
    rt.dispatch(pipe, [Y], [], [3, 1, 1], [32, 1, 1], 3);
    expect(Array.from(f32(Y))).toEqual(new Array(96).fill(3));
  });

  it("2-D grids with uint3 positions", () => {
    const lib = rt.compile(kernel("repeat_add.metal"));
    const pipe = rt.pipeline(lib, "grid2d");
    const W = 16, H = 12;
    const Y = rt.buffer(W * H * 4);
    rt.dispatch(pipe, [Y], [], [2, 3, 1], [8, 4, 1]);
    const ref = Array.from({ length: W * H }, (_, i) => (i % W) * 1000 + Math.floor(i / W) * 10);
    expect(Array.from(new Uint32Array(rt.read(Y)))).toEqual(ref);
  });

  it("threadgroup arrays declared in a kernel body are shared by the group", () => {
    const lib = rt.compile(kernel("repeat_add.metal"));
    const pipe = rt.pipeline(lib, "tg_local_reverse");
    const x = data(128, 4);
    const X = rt.buffer(x.byteLength), Y = rt.buffer(x.byteLength);
    rt.write(X, x);
    rt.dispatch(pipe, [X, Y], [], [2, 1, 1], [64, 1, 1]);
    const ref = Array.from(x, (_, i) => x[Math.floor(i / 64) * 64 + 63 - (i % 64)]);
    expect(Array.from(f32(Y))).toEqual(ref);
  });

  it("uninitialized threadgroup memory reads as NaN", () => {
    const lib = rt.compile(kernel("repeat_add.metal"));
    const pipe = rt.pipeline(lib, "uninit_read");
    const Y = rt.buffer(4);
    rt.dispatch(pipe, [Y], [128], [1, 1, 1], [64, 1, 1]);
    expect(Number.isNaN(f32(Y)[0])).toBe(true);
  });
});

describe("host runtime: compile cache", () => {
  it("a second compile of the same text does not run the compiler", () => {
    const src = kernel("repeat_add.metal") + `\n// nonce ${process.pid}-${Date.now()}-${Math.random()}\n`;
    const before = rt.compilerInvocations();
    const a = rt.compile(src);
    expect(rt.compilerInvocations()).toBe(before + 1);
    const b = rt.compile(src);
    expect(rt.compilerInvocations()).toBe(before + 1);
    const pipe = rt.pipeline(b, "repeat_add");
    const Y = rt.buffer(32 * 4);
    rt.dispatch(pipe, [Y], [], [1, 1, 1], [32, 1, 1], 2);
    expect(f32(Y)[31]).toBe(2);
    rt.freePipeline(pipe);
    rt.freeLibrary(a);
    rt.freeLibrary(b);
  });
});

describe("host runtime: negative controls", () => {
  it("a syntax error returns the compiler log with the MSL line", () => {
    expect(() => rt.compile(kernel("bad_syntax.metal"))).toThrow(/\.metal:6:\d+: error: expected/);
  });

  it("double is rejected with a clear message, comments are not", () => {
    let msg = "";
    try {
      rt.compile(kernel("bad_double.metal"));
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toMatch(/\.metal:7: error: 'double' is not supported in Metal/);
    expect(msg).not.toMatch(/\.metal:4:/);
  });

  it("recursion (direct or through another function) is rejected, as Metal does; plain calls are not", () => {
    const head = "#include <metal_stdlib>\nusing namespace metal;\n";
    const kern = "kernel void k(device float* Y [[buffer(0)]], uint i [[thread_position_in_grid]]) { Y[i] = f(float(i)); }\n";
    const direct = `${head}static float f(float x) {\n  return x < 1.0f ? x : f(x - 1.0f);\n}\n${kern}`;
    expect(() => rt.compile(direct)).toThrow(/:4: error: recursion: 'f' calls 'f'/);
    const mutual = `${head}static float g(float x);\nstatic float f(float x) { return x < 1.0f ? x : g(x); }\nstatic float g(float x) {\n  return f(x - 1.0f);\n}\n${kern}`;
    expect(() => rt.compile(mutual)).toThrow(/error: recursion: '(f|g)' calls '(f|g)'/);
    const plain = `${head}static float h(float x) { return x * 2.0f; }\nstatic float f(float x) { return h(x) + h(1.0f); }\n${kern}`;
    const lib = rt.compile(plain);
    rt.freeLibrary(lib);
  });

  it("in a unit of many kernels, a rejection, a recursion and a bad parameter late in the text are named at their own lines", () => {
    // the checks index the text's lines once and search each function's body only (not to the end)
    const head = "#include <metal_stdlib>\nusing namespace metal;\n";
    const many = Array.from({ length: 50 }, (_, i) => `kernel void k${i}(device float* Y [[buffer(0)]], uint i [[thread_position_in_grid]]) { Y[i] = ${i}.0f; }\n`).join("");
    const at = (line: number, err: string) => new RegExp(`\\.metal:${line}: error: ${err}`);
    expect(() => rt.compile(`${head}${many}kernel void z(device float* Y [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n  double d = 1.0;\n  Y[i] = float(d);\n}\n`))
      .toThrow(at(54, "'double' is not supported in Metal"));
    expect(() => rt.compile(`${head}static float f(float x) { return x * 2.0f; }\n${many}static float g(float x) {\n  return x < 1.0f ? x : g(x - 1.0f);\n}\n`))
      .toThrow(at(55, "recursion: 'g' calls 'g'"));
    expect(() => rt.compile(`${head}${many}kernel void z(device float* Y [[buffer(0)]],\n  uint i) { Y[i] = 1.0f; }\n`))
      .toThrow(at(54, "parameter 'uint i' of kernel 'z' has no \\[\\[attribute\\]\\]"));
  });

  it("kernel heads, std:: and #include are read as their patterns say (spacing, the [[kernel]] form, the order of messages)", () => {
    const head = "#include <metal_stdlib>\nusing namespace metal;\n";
    const lib = rt.compile(`${head}[[kernel]]  void a(device float* Y [[buffer(0)]], uint i [[thread_position_in_grid]]) { Y[i] = 1.0f; }\n` +
      `kernel\n void\tb_kernel2 (device float* Y [[buffer(0)]], uint i [[thread_position_in_grid]]) { Y[i] = 2.0f; }\n` +
      `static float kernel_of(float x) { return x; }\nkernel void kernel_c(device float* Y [[buffer(0)]], uint i [[thread_position_in_grid]]) { Y[i] = kernel_of(3.0f); }\n`);
    for (const name of ["a", "b_kernel2", "kernel_c"]) rt.freePipeline(rt.pipeline(lib, name));
    expect(() => rt.pipeline(lib, "kernel_of")).toThrow();
    rt.freeLibrary(lib);
    let msg = "";
    try {
      rt.compile(`#  include <x.h>\n${head}kernel void k(device float* Y [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n  double d = std ::\n exp(1.0);\n  Y[i] = float(d);\n}\n# include <metal_stdlib>\n#include <y.h\n`);
    } catch (e) {
      msg = (e as Error).message;
    }
    const lines = msg.split("\n").filter((l) => / error: /.test(l)).map((l) => l.replace(/^.*\.metal:/, ""));
    expect(lines).toEqual([
      "5: error: 'double' is not supported in Metal",
      "5: error: the C++ standard library (std::) is not available in Metal",
      "1: error: only #include <metal_stdlib> is supported (got <x.h>)",
    ]);
  });

  it("includes other than <metal_stdlib>, std::, printf, malloc and new are rejected", () => {
    const head = "#include <metal_stdlib>\nusing namespace metal;\n";
    const body = (s: string) => `${head}kernel void k(device float* Y [[buffer(0)]], uint i [[thread_position_in_grid]]) { ${s} }\n`;
    expect(() => rt.compile(`#include <stdio.h>\n${body("Y[i] = 1.0f;")}`)).toThrow(/only #include <metal_stdlib>/);
    expect(() => rt.compile(body("Y[i] = std::exp(1.0f);"))).toThrow(/std::/);
    expect(() => rt.compile(body('printf("x");'))).toThrow(/printf/);
    expect(() => rt.compile(body("float* p = (float*)malloc(4);"))).toThrow(/dynamic allocation/);
    expect(() => rt.compile(body("float* p = new float[4];"))).toThrow(/new\/delete/);
  });

  it("an unknown parameter attribute is a compile error", () => {
    const src = "#include <metal_stdlib>\nusing namespace metal;\n" +
      "kernel void k(device float* Y [[buffer(0)]], uint q [[quad_lane_id]]) { Y[q] = 1.0f; }\n";
    expect(() => rt.compile(src)).toThrow(/unsupported attribute \[\[quad_lane_id\]\] on parameter 'q'/);
  });

  it("a missing entry point, an unbound buffer and too many threads are errors", () => {
    const lib = rt.compile(kernel("elementwise2.metal"));
    expect(() => rt.pipeline(lib, "nope")).toThrow(/no kernel named 'nope' \(have: ew2, ew_big\)/);
    const pipe = rt.pipeline(lib, "ew2");
    const X = rt.buffer(4000);
    expect(() => rt.dispatch(pipe, [X], [], [1, 1, 1], [32, 1, 1])).toThrow(/\[\[buffer\(1\)\]\] \(Y\) is not bound/);
    expect(() => rt.dispatch(pipe, [X, X, X], [], [1, 1, 1], [1056, 1, 1])).toThrow(/1056 threads per group exceed/);
    expect(() => rt.read(X, 8, 3996)).toThrow(/outside buffer of 4000 bytes/);
    const sum = rt.pipeline(rt.compile(kernel("row_sum.metal")), "row_sum");
    expect(() => rt.dispatch(sum, [X, X], [20000, 20000], [1, 1, 1], [64, 1, 1])).toThrow(
      /40000 bytes of threadgroup memory exceed the limit of 32768/,
    );
    expect(() => rt.dispatch(sum, [X, X], [], [1, 1, 1], [64, 1, 1])).toThrow(/\[\[threadgroup\(0\)\]\] \(tg0\) has no memory/);
  });

  it("a barrier under a divergent condition is reported, not a hang", () => {
    // the kernel also races (thread 32 reads what thread 31 wrote before its barrier): with the
    // detector that is found first; without it, the divergence
    const checked = rt.pipeline(rt.compile(kernel("divergent_barrier.metal")), "divergent_barrier");
    expect(() => rt.dispatch(checked, [rt.buffer(64 * 4)], [256], [2, 1, 1], [64, 1, 1])).toThrow(/data race on \[\[threadgroup\(0\)\]\] 'tg0'/);
    const lib = uncheckedCompile(kernel("divergent_barrier.metal"));
    const pipe = rt.pipeline(lib, "divergent_barrier");
    const Y = rt.buffer(64 * 4);
    expect(() => rt.dispatch(pipe, [Y], [256], [2, 1, 1], [64, 1, 1])).toThrow(
      /kernel 'divergent_barrier', group \(0,0,0\): threadgroup_barrier not reached by every thread: threads 0-31 wait at threadgroup_barrier \(line 12\); threads 32-63 finished/,
    );
    // the runtime is still usable afterwards
    const ok = rt.pipeline(rt.compile(kernel("repeat_add.metal")), "repeat_add");
    rt.dispatch(ok, [Y], [], [1, 1, 1], [64, 1, 1]);
    expect(f32(Y)[63]).toBe(1);
  });

  it("a collective reached by half the lanes of a SIMD group is reported", () => {
    const lib = rt.compile(kernel("half_collective.metal"));
    const pipe = rt.pipeline(lib, "half_collective");
    const Y = rt.buffer(64 * 4);
    expect(() => rt.dispatch(pipe, [Y], [], [1, 1, 1], [64, 1, 1])).toThrow(
      /SIMD group 0 diverged at a collective: threads 0-15 wait at simd_sum \(line 12\); threads 16-31 finished/,
    );
  });

  it("a write one past the end shows in the caller's sentinels and in the host redzone", () => {
    const lib = rt.compile(kernel("off_by_one.metal"));
    const pipe = rt.pipeline(lib, "off_by_one");
    const n = 40, guard = 8;
    // Caller-side check: a bigger buffer whose tail holds sentinels.
    const Y = rt.buffer((n + guard) * 4);
    rt.write(Y, new Float32Array(n + guard).fill(-5));
    rt.dispatch(pipe, [Y], [], [2, 1, 1], [32, 1, 1]);
    const y = f32(Y);
    expect(Array.from(y.subarray(0, n))).toEqual(new Array(n).fill(1));
    const changed = Array.from(y.subarray(n)).flatMap((v, i) => (v === -5 ? [] : [n + i]));
    expect(changed).toEqual([n]);
    // Host-only: with an exact-size buffer the write lands in the redzone and fails the dispatch
    // (without the detector; with it, the write is reported and not performed).
    const exact = rt.buffer(n * 4);
    const unchecked = rt.pipeline(uncheckedCompile(kernel("off_by_one.metal")), "off_by_one");
    expect(() => rt.dispatch(unchecked, [exact], [], [2, 1, 1], [32, 1, 1])).toThrow(
      /kernel 'off_by_one' wrote past the end of \[\[buffer\(0\)\]\] \(160 bytes\)/,
    );
    expect(() => rt.dispatch(pipe, [exact], [], [2, 1, 1], [32, 1, 1])).toThrow(
      /out-of-bounds write to \[\[buffer\(0\)\]\] 'Y' at element 40 \(the binding holds 40 elements of 4 bytes\): thread 8 of threadgroup \(1,0,0\), MSL line 9/,
    );
  });
});
