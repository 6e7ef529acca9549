// The host runtime's race and bounds detector (shell-native/host/detector.cpp): negative controls
// that must be reported with the buffer, the element, both threads and the MSL line, positive
// controls that must not be, and kernels whose private arrays outgrow a default fiber stack.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { openRuntime, type Runtime, type DeviceBuffer } from "../shell-node/src/native";
import { loadEngine, type Engine } from "../shell-node/src/engine";
import { runAndValidate } from "../shell-node/src/validate-run";
import { ROOT } from "./helpers/files";
import { bf16ToNumber, f16ToNumber } from "../shell-node/src/f16";
import { ensureHostLibrary } from "./helpers/host";

let rt: Runtime;
let wasm: Engine;

beforeAll(async () => {
  ensureHostLibrary();
  rt = openRuntime("host");
  wasm = await loadEngine("wasm");
});
afterAll(() => rt?.close());

/** 1-based line of the first line of src containing marker. */
function lineOf(src: string, marker: string): number {
  const i = src.split("\n").findIndex((l) => l.includes(marker));
  if (i < 0) throw new Error(`marker not found: ${marker}`);
  return i + 1;
}

const HEAD = "#include <metal_stdlib>\nusing namespace metal;\n";

function compileWith(detect: boolean, src: string, entry: string) {
  rt.setDetector(detect);
  try {
    return rt.pipeline(rt.compile(src), entry);
  } finally {
    rt.setDetector(true);
  }
}

function floats(values: number[]): DeviceBuffer {
  const b = rt.buffer(values.length * 4);
  rt.write(b, Float32Array.from(values));
  return b;
}

function ints(values: number[]): DeviceBuffer {
  const b = rt.buffer(values.length * 4);
  rt.write(b, Int32Array.from(values));
  return b;
}

const f32 = (b: DeviceBuffer): number[] => Array.from(new Float32Array(rt.read(b)));

/** The message of the dispatch's error ("" when it succeeded). */
function dispatchError(run: () => void): string {
  try {
    run();
    return "";
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

describe("detector: it is on by default and can be turned off", () => {
  it("the host runtime starts with the detector on; setDetector switches later compiles", () => {
    expect(rt.detectorEnabled()).toBe(true);
    rt.setDetector(false);
    expect(rt.detectorEnabled()).toBe(false);
    rt.setDetector(true);
    expect(rt.detectorEnabled()).toBe(true);
  });
});

describe("detector: negative controls (each is reported, never a crash)", () => {
  it("an emitted cooperative reduction with its barriers removed: a race on threadgroup memory", () => {
    const text = fs.readFileSync(path.join(ROOT, "cases", "softmax.json"), "utf8");
    const options = { sizes: { R: 5, C: 300 }, programsPerGroup: 1, threads: 64, vector: 1, unroll: 1 };
    // the unmodified kernel passes with the detector on
    const good = runAndValidate({ engine: wasm, runtime: rt, text, options, seed: 3 });
    expect(good.error).toBeUndefined();
    expect(good.passed).toBe(true);
    let msl = "";
    const bad = runAndValidate({
      engine: wasm, runtime: rt, text, options, seed: 3,
      mslOverride: (m) => (msl = m.replace(/^\s*threadgroup_barrier\(.*\);\s*$/gm, "")),
    });
    expect(msl).not.toContain("threadgroup_barrier");
    expect(bad.passed).toBe(false);
    // thread 32 (lane 0 of SIMD group 1) stores its partial after thread 1 has read that slot
    const store = lineOf(msl, "tg0[sg] = ");
    const load = lineOf(msl, "tg0[partial_base + int(lane)]");
    expect(bad.error).toContain(
      `data race on threadgroup array 'tg0' element 1: thread 32 of threadgroup (0,0,0) writes it at MSL line ${store}, ` +
        `thread 1 of threadgroup (0,0,0) read it at line ${load}; no threadgroup_barrier lies between them`,
    );
  });

  const broadcast = (barrier: string): string =>
    HEAD +
    "kernel void broadcast(device float* Y [[buffer(0)]], device float* Z [[buffer(1)]],\n" +
    "    uint tid [[thread_index_in_threadgroup]]) {\n" +
    "  if (tid == 0u) { Y[0] = 42.0f; }   // the store\n" +
    `  ${barrier}\n` +
    "  Z[tid] = Y[0];                      // the loads\n" +
    "}\n";

  it("a kernel that is right only because fibers run in order (no barrier) fails", () => {
    const src = broadcast("");
    // without the detector the threads run one after another and the result happens to be right
    const plain = compileWith(false, src, "broadcast");
    const Y = floats([0]);
    const Z = floats(new Array(64).fill(0));
    rt.dispatch(plain, [Y, Z], [], [1, 1, 1], [64, 1, 1]);
    expect(f32(Z)).toEqual(new Array(64).fill(42));
    // with it: thread 1 reads what thread 0 wrote, unordered
    const checked = rt.pipeline(rt.compile(src), "broadcast");
    const msg = dispatchError(() => rt.dispatch(checked, [floats([0]), Z], [], [1, 1, 1], [64, 1, 1]));
    expect(msg).toMatch(/\(status 10\)/);
    expect(msg).toContain(
      `kernel 'broadcast': data race on [[buffer(0)]] 'Y' element 0: thread 1 of threadgroup (0,0,0) reads it at MSL line ${lineOf(src, "the loads")}, ` +
        `thread 0 of threadgroup (0,0,0) wrote it at line ${lineOf(src, "the store")}; no threadgroup_barrier lies between them`,
    );
  });

  it("a barrier without mem_device does not order device memory; with it the kernel passes", () => {
    const tgOnly = broadcast("threadgroup_barrier(mem_flags::mem_threadgroup);");
    const msg = dispatchError(() => rt.dispatch(rt.pipeline(rt.compile(tgOnly), "broadcast"), [floats([0]), floats(new Array(64).fill(0))], [], [1, 1, 1], [64, 1, 1]));
    expect(msg).toContain("data race on [[buffer(0)]] 'Y' element 0: thread 1 of threadgroup (0,0,0) reads it");
    expect(msg).toContain("the threadgroup_barrier between them does not include mem_flags::mem_device");
    const device = broadcast("threadgroup_barrier(mem_flags::mem_device);");
    const Z = floats(new Array(64).fill(0));
    rt.dispatch(rt.pipeline(rt.compile(device), "broadcast"), [floats([0]), Z], [], [1, 1, 1], [64, 1, 1]);
    expect(f32(Z)).toEqual(new Array(64).fill(42));
  });

  it("two workers writing one element", () => {
    const src = HEAD + "kernel void pairs(device float* Y [[buffer(0)]], uint tid [[thread_index_in_threadgroup]]) {\n" +
      "  Y[tid / 2u] = float(tid);   // two threads per element\n}\n";
    const msg = dispatchError(() => rt.dispatch(rt.pipeline(rt.compile(src), "pairs"), [floats(new Array(32).fill(0))], [], [1, 1, 1], [64, 1, 1]));
    const line = lineOf(src, "two threads per element");
    expect(msg).toContain(
      `data race on [[buffer(0)]] 'Y' element 0: thread 1 of threadgroup (0,0,0) writes it at MSL line ${line}, ` +
        `thread 0 of threadgroup (0,0,0) wrote it at line ${line}; no threadgroup_barrier lies between them`,
    );
  });

  it("two threadgroups writing one element (a barrier does not help across groups)", () => {
    const src = HEAD + "kernel void groups(device float* Y [[buffer(0)]], uint tid [[thread_index_in_threadgroup]],\n" +
      "    uint group [[threadgroup_position_in_grid]]) {\n" +
      "  threadgroup_barrier(mem_flags::mem_device);\n" +
      "  Y[tid] = float(group);   // every group writes Y[0..64)\n}\n";
    const msg = dispatchError(() => rt.dispatch(rt.pipeline(rt.compile(src), "groups"), [floats(new Array(64).fill(0))], [], [2, 1, 1], [64, 1, 1]));
    expect(msg).toContain(
      `data race on [[buffer(0)]] 'Y' element 0: thread 0 of threadgroup (1,0,0) writes it at MSL line ${lineOf(src, "every group")}, ` +
        "thread 0 of threadgroup (0,0,0) wrote it at line 6; threads of different threadgroups are never ordered within a dispatch",
    );
  });

  it("16-bit elements: neighbours written by two threads are no race, one element written by two is", () => {
    // half and bfloat elements share a 4-byte word in pairs; GPU stores are byte-granular
    const src = HEAD + "kernel void h(device half* Y [[buffer(0)]], device bfloat* B [[buffer(1)]],\n" +
      "    threadgroup half* tg [[threadgroup(0)]], uint tid [[thread_index_in_threadgroup]]) {\n" +
      "  tg[tid] = half(float(tid));\n" +
      "  threadgroup_barrier(mem_flags::mem_threadgroup);\n" +
      "  Y[tid] = half(float(tg[63u - tid]));\n" +
      "  B[tid] = bfloat(float(tid) + 0.5f);\n}\n";
    const pipe = rt.pipeline(rt.compile(src), "h");
    // Y first serves a float kernel (a 4-byte granule), then the half kernel (a 2-byte one)
    const Y = floats(new Array(32).fill(0)), B = rt.buffer(64 * 2);
    const fill = HEAD + "kernel void fill(device float* Y [[buffer(0)]], uint tid [[thread_index_in_threadgroup]]) { Y[tid] = 1.0f; }\n";
    rt.dispatch(rt.pipeline(rt.compile(fill), "fill"), [Y], [], [1, 1, 1], [32, 1, 1]);
    rt.dispatch(pipe, [Y, B], [64 * 2], [1, 1, 1], [64, 1, 1]);
    expect(Array.from(new Uint16Array(rt.read(Y)), f16ToNumber)).toEqual(Array.from({ length: 64 }, (_, t) => 63 - t));
    expect(Array.from(new Uint16Array(rt.read(B)), bf16ToNumber)).toEqual(Array.from({ length: 64 }, (_, t) => t + 0.5));
    const racy = HEAD + "kernel void pairs16(device half* Y [[buffer(0)]], uint tid [[thread_index_in_threadgroup]]) {\n" +
      "  Y[tid / 2u] = half(float(tid));   // two threads per 16-bit element\n}\n";
    const msg = dispatchError(() => rt.dispatch(rt.pipeline(rt.compile(racy), "pairs16"), [Y], [], [1, 1, 1], [64, 1, 1]));
    const line = lineOf(racy, "two threads per 16-bit element");
    expect(msg).toContain(
      `data race on [[buffer(0)]] 'Y' element 0: thread 1 of threadgroup (0,0,0) writes it at MSL line ${line}, ` +
        `thread 0 of threadgroup (0,0,0) wrote it at line ${line}; no threadgroup_barrier lies between them`,
    );
  });

  it("a write racing with an earlier read, by another group or by another thread that also read", () => {
    const src = HEAD + "kernel void rw(device float* Y [[buffer(0)]], device float* Z [[buffer(1)]],\n" +
      "    uint tid [[thread_index_in_threadgroup]], uint group [[threadgroup_position_in_grid]]) {\n" +
      "  Z[group * 64u + tid] = Y[0];                 // everyone reads\n" +
      "  if (group == 1u && tid == 5u) { Y[0] = 1.0f; } // one writes\n}\n";
    const pipe = rt.pipeline(rt.compile(src), "rw");
    // two groups: group 1's thread 5 writes what group 0 (and its own group) read
    const two = dispatchError(() => rt.dispatch(pipe, [floats([0]), floats(new Array(128).fill(0))], [], [2, 1, 1], [64, 1, 1]));
    expect(two).toMatch(/data race on \[\[buffer\(0\)\]\] 'Y' element 0: thread 5 of threadgroup \(1,0,0\) writes it at MSL line 6, thread \d+ of threadgroup \((0|1),0,0\) read it at line 5/);
    // one group reading Y[0] in threads 0..63, thread 5 of it never writes: no finding
    rt.dispatch(pipe, [floats([0]), floats(new Array(128).fill(0))], [], [1, 1, 1], [64, 1, 1]);
    // threads 0 and 1 read, then thread 1 writes: the write races with thread 0's read, not its own
    const own = HEAD + "kernel void own(device float* Y [[buffer(0)]], uint tid [[thread_index_in_threadgroup]]) {\n" +
      "  float v = Y[0];            // read by 0 and 1\n" +
      "  if (tid == 1u) { Y[0] = v + 1.0f; }   // written by 1\n}\n";
    const msg = dispatchError(() => rt.dispatch(rt.pipeline(rt.compile(own), "own"), [floats([0])], [], [1, 1, 1], [2, 1, 1]));
    expect(msg).toContain("data race on [[buffer(0)]] 'Y' element 0: thread 1 of threadgroup (0,0,0) writes it at MSL line 5, thread 0 of threadgroup (0,0,0) read it at line 4");
  });

  it("a read one element past a buffer, and one before an offset binding", () => {
    const src = HEAD + "kernel void shift(device const float* X [[buffer(0)]], device float* Y [[buffer(1)]],\n" +
      "    uint i [[thread_position_in_grid]]) {\n" +
      "  Y[i] = X[i + 1u];   // one past the end for the last thread\n}\n";
    const pipe = rt.pipeline(rt.compile(src), "shift");
    const Y = floats(new Array(40).fill(0));
    const msg = dispatchError(() => rt.dispatch(pipe, [floats(new Array(40).fill(1)), Y], [], [2, 1, 1], [20, 1, 1]));
    expect(msg).toMatch(/\(status 8\)/);
    expect(msg).toContain(
      `kernel 'shift': out-of-bounds read of [[buffer(0)]] 'X' at element 40 (the binding holds 40 elements of 4 bytes): thread 19 of threadgroup (1,0,0), MSL line ${lineOf(src, "one past")}`,
    );
    // the bound range, not the allocation: X holds 44 floats bound from the 4th; X[-1] is outside
    const back = HEAD + "kernel void back(device const float* X [[buffer(0)]], device float* Y [[buffer(1)]],\n" +
      "    uint i [[thread_position_in_grid]]) {\n" +
      "  Y[i] = X[int(i) - 1];   // X[-1] for thread 0\n}\n";
    const X = floats(new Array(44).fill(2));
    rt.bindOffset(X, 16);
    const m2 = dispatchError(() => rt.dispatch(rt.pipeline(rt.compile(back), "back"), [X, floats(new Array(40).fill(0))], [], [1, 1, 1], [40, 1, 1]));
    expect(m2).toContain("out-of-bounds read of [[buffer(0)]] 'X' at element -1 (the binding holds 40 elements of 4 bytes): thread 0 of threadgroup (0,0,0), MSL line 5");
  });

  it("a data-dependent out-of-bounds read (a gather through an i32 index buffer), even far away", () => {
    const src = HEAD + "kernel void gather(device const int* I [[buffer(0)]], device const float* X [[buffer(1)]],\n" +
      "    device float* Y [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n" +
      "  Y[i] = X[I[i]];   // the gather\n}\n";
    const pipe = rt.pipeline(rt.compile(src), "gather");
    const X = floats(Array.from({ length: 64 }, (_, k) => k));
    for (const [bad, element] of [[1000, "1000"], [-3, "-3"], [2147483647, "2147483647"], [-2147483648, "-2147483648"]] as [number, string][]) {
      const idx = Array.from({ length: 64 }, (_, k) => 63 - k);
      idx[37] = bad;
      const Y = floats(new Array(64).fill(-1));
      const msg = dispatchError(() => rt.dispatch(pipe, [ints(idx), X, Y], [], [2, 1, 1], [32, 1, 1]));
      expect(msg).toContain(
        `out-of-bounds read of [[buffer(1)]] 'X' at element ${element} (the binding holds 64 elements of 4 bytes): thread 5 of threadgroup (1,0,0), MSL line ${lineOf(src, "the gather")}`,
      );
      // the read was not performed: the other threads' results are intact, the bad one reads 0
      const y = f32(Y);
      expect(y[37]).toBe(0);
      expect(y[36]).toBe(63 - 36);
    }
    // a valid permutation passes
    const Y = floats(new Array(64).fill(-1));
    rt.dispatch(pipe, [ints(Array.from({ length: 64 }, (_, k) => 63 - k)), X, Y], [], [2, 1, 1], [32, 1, 1]);
    expect(f32(Y)).toEqual(Array.from({ length: 64 }, (_, k) => 63 - k));
  });

  it("an out-of-bounds write is reported and not performed (the next element keeps its value)", () => {
    const src = HEAD + "kernel void over(device float* Y [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n" +
      "  Y[i] = 7.0f;   // 33 threads, 32 elements bound\n}\n";
    // an exact-size buffer: without the detector the store would land in the host's redzone
    const exact = floats(new Array(32).fill(-5));
    const msg = dispatchError(() => rt.dispatch(rt.pipeline(rt.compile(src), "over"), [exact], [], [1, 1, 1], [33, 1, 1]));
    expect(msg).toContain("out-of-bounds write to [[buffer(0)]] 'Y' at element 32 (the binding holds 32 elements of 4 bytes): thread 32 of threadgroup (0,0,0), MSL line 4");
    expect(msg).not.toContain("wrote past the end"); // the redzone stayed untouched
  });
});

describe("detector: positive controls (no finding)", () => {
  it("shared reads, private writes, in-place updates over repeats, barrier-ordered exchanges", () => {
    const src = HEAD +
      "kernel void ok(device const float* X [[buffer(0)]], device float* Y [[buffer(1)]], device float* Z [[buffer(2)]],\n" +
      "    threadgroup float* tg [[threadgroup(0)]], uint tid [[thread_index_in_threadgroup]],\n" +
      "    uint group [[threadgroup_position_in_grid]], uint n [[threads_per_threadgroup]]) {\n" +
      "  const uint g = group * n + tid;\n" +
      "  Y[g] = Y[g] * 2.0f + X[0];            // everyone reads X[0]; each thread its own Y\n" +
      "  tg[tid] = X[g];\n" +
      "  threadgroup_barrier(mem_flags::mem_threadgroup | mem_flags::mem_device);\n" +
      "  Z[g] = tg[n - 1u - tid] + Y[group * n + (tid + 1u) % n];   // after the barrier\n" +
      "  threadgroup_barrier(mem_flags::mem_device);\n" +
      "  if (tid == 0u) { Y[group * n + 1u] = 0.0f; }   // read above by thread 0, ordered\n" +
      "}\n";
    const pipe = rt.pipeline(rt.compile(src), "ok");
    const n = 32, groups = 3;
    const X = floats(Array.from({ length: n * groups }, (_, k) => k));
    const Y = floats(new Array(n * groups).fill(1));
    const Z = floats(new Array(n * groups).fill(0));
    rt.dispatch(pipe, [X, Y, Z], [n * 4], [groups, 1, 1], [n, 1, 1], 3);
    const y = f32(Y);
    expect(y[2]).toBe(((1 * 2 + 0) * 2 + 0) * 2 + 0);
  });

  it("each emitted realization of the built-in cases passes with the detector on", () => {
    // the suite and run.test.ts cover every case and the matrix; here a few shapes that use
    // both barriers, packed loads, P > 1 with a replayed tail, and the serial fallback
    const cases: [string, object][] = [
      ["softmax", { sizes: { R: 7, C: 131 }, programsPerGroup: 3, threads: 96, vector: 4, unroll: 3 }],
      ["layernorm", { sizes: { R: 5, C: 77 }, programsPerGroup: 2, threads: 64, vector: 8, unroll: 1 }],
      ["sum", { sizes: { R: 9, C: 40 } }],
      ["add", { sizes: { R: 3, C: 300 } }],
    ];
    for (const [name, options] of cases) {
      const text = fs.readFileSync(path.join(ROOT, "cases", name + ".json"), "utf8");
      const r = runAndValidate({ engine: wasm, runtime: rt, text, options, seed: 11 });
      expect(r.error, name).toBeUndefined();
      expect(r.passed, name).toBe(true);
    }
  });
});

describe("detector: private arrays larger than a default fiber stack (class 9)", () => {
  const big = (n: number, barrier: boolean): string =>
    HEAD + "kernel void big(device const float* X [[buffer(0)]], device float* Y [[buffer(1)]],\n" +
    "    uint tid [[thread_index_in_threadgroup]]) {\n" +
    `  float a[${n}];\n` +
    `  for (int k = 0; k < ${n}; ++k) a[k] = X[k % 64] + float(tid);\n` +
    (barrier ? "  threadgroup_barrier(mem_flags::mem_none);\n" : "") +
    "  float s = 0.0f;\n" +
    `  for (int k = 0; k < ${n}; k += 997) s += a[(k * 7) % ${n}];\n` +
    "  Y[tid] = s;\n}\n";

  it("a 1 MB private array runs, with and without a barrier (stacks sized from the kernel)", () => {
    const n = 250000;
    const X = floats(Array.from({ length: 64 }, (_, k) => k % 5));
    let ref = 0;
    const refs: number[] = [];
    for (let t = 0; t < 4; t++) {
      ref = 0;
      for (let k = 0; k < n; k += 997) ref += Math.fround(((k * 7) % n) % 64 % 5 + t);
      refs.push(ref);
    }
    for (const barrier of [false, true]) {
      const Y = floats([0, 0, 0, 0]);
      rt.dispatch(rt.pipeline(rt.compile(big(n, barrier)), "big"), [X, Y], [], [1, 1, 1], [4, 1, 1]);
      const y = f32(Y);
      for (let t = 0; t < 4; t++) expect(Math.abs(y[t] - refs[t]) / refs[t]).toBeLessThan(1e-5);
    }
  });

  it("a private array beyond the runtime's stack limit is a failed dispatch naming the need", () => {
    const msg = dispatchError(() => rt.dispatch(rt.pipeline(rt.compile(big(20000000, true)), "big"), [floats(new Array(64).fill(1)), floats([0, 0])], [], [1, 1, 1], [2, 1, 1]));
    expect(msg).toMatch(/\(status 11\)/);
    expect(msg).toMatch(/kernel 'big' needs 781\d\d KiB of stack per thread \(private arrays such as register stripes\); the host runtime gives at most 64 MiB per thread/);
  });

  it("a planned register stripe over a large private budget runs (was a fiber stack overflow)", () => {
    const text = fs.readFileSync(path.join(ROOT, "cases", "softmax.json"), "utf8");
    // 1,100,000 columns over 32 workers: a cached stripe of 34,375 floats (137 KB) per thread
    const options = { sizes: { R: 1, C: 1100000 }, programsPerGroup: 1, threads: 32, device: { privateBudget: 2000000 } };
    const r = runAndValidate({ engine: wasm, runtime: rt, text, options, seed: 5 });
    expect(r.plan?.mapping?.cached).toBe(true);
    expect(r.error).toBeUndefined();
    expect(r.passed).toBe(true);
  });
});

describe("detector: the command line", () => {
  const BIN = path.join(ROOT, "shell-node", "bin", "tile.mjs");
  const tile = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: "utf8", timeout: 120000 });

  it("tile run says the detector is on; --no-detect turns it off; both documented in --help", () => {
    const on = tile("run", "cases/sum.json", "--runtime", "host", "--size", "R=3", "--size", "C=50");
    expect(on.status).toBe(0);
    expect(on.stdout).toContain("race and bounds detector on");
    const off = tile("run", "cases/sum.json", "--runtime", "host", "--size", "R=3", "--size", "C=50", "--no-detect", "--json");
    expect(off.status).toBe(0);
    expect(JSON.parse(off.stdout).detector).toBe(false);
    for (const cmd of ["run", "suite"]) expect(tile(cmd, "--help").stdout).toContain("--no-detect");
  });
});
