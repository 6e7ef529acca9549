// Threadgroup arrays declared in a kernel body (`threadgroup T a[N];`, the form Tile emits) on
// the host runtime: shared by the group, filled with 0xFF bytes for every group and every
// dispatch (as [[threadgroup(j)]] allocations are), counted against the 32 KiB limit, and
// compiler messages still point at the right line.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openRuntime, nativeLibraryPath, type Runtime } from "../shell-node/src/native";

const here = path.dirname(fileURLToPath(import.meta.url));
let rt: Runtime;

beforeAll(() => {
  if (!fs.existsSync(nativeLibraryPath("host"))) {
    execFileSync(process.execPath, [path.join(here, "..", "shell-native", "build.mjs")], { stdio: "inherit" });
  }
  rt = openRuntime("host");
});
afterAll(() => rt?.close());

const HEAD = "#include <metal_stdlib>\nusing namespace metal;\n";

function run(src: string, entry: string, outWords: number, groups: number, threads: number, repeat = 1, tg: number[] = []): { f: Float32Array; i: Int32Array } {
  const pipe = rt.pipeline(rt.compile(HEAD + src), entry);
  const Y = rt.buffer(outWords * 4);
  rt.dispatch(pipe, [Y], tg, [groups, 1, 1], [threads, 1, 1], repeat);
  const bytes = rt.read(Y);
  return { f: new Float32Array(bytes), i: new Int32Array(bytes) };
}

describe("host runtime: threadgroup arrays declared in the kernel body", () => {
  it("are fresh (NaN) in every group, not left over from the previous group", () => {
    const src = `
kernel void k(device float* Y [[buffer(0)]], uint tid [[thread_index_in_threadgroup]], uint group [[threadgroup_position_in_grid]])
{
  threadgroup float sh[32];
  if (group == 0u) { sh[tid] = 1.0f + float(tid); }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  Y[group * 32u + tid] = sh[31u - tid];
}`;
    const { f } = run(src, "k", 96, 3, 32);
    expect(Array.from(f.subarray(0, 32))).toEqual(Array.from({ length: 32 }, (_, t) => 32 - t));
    expect(Array.from(f.subarray(32)).every(Number.isNaN)).toBe(true);
  });

  it("are fresh in every dispatch of a repeated grid, and int arrays read -1", () => {
    const src = `
kernel void k(device int* Y [[buffer(0)]], uint tid [[thread_index_in_threadgroup]])
{
  threadgroup int a[16], b[16];
  Y[tid] = a[tid];
  Y[16u + tid] = b[tid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  a[tid] = 5;
  b[tid] = 7;
}`;
    const { i } = run(src, "k", 32, 1, 16, 3);
    expect(Array.from(i)).toEqual(new Array(32).fill(-1));
  });

  it("a kernel without barriers (threads as plain calls) also sees a fresh array per group", () => {
    const src = `
kernel void k(device float* Y [[buffer(0)]], uint tid [[thread_index_in_threadgroup]], uint group [[threadgroup_position_in_grid]])
{
  threadgroup float one[1];
  if (tid == 0u) { Y[group] = one[0]; one[0] = 3.0f; }
}`;
    const { f } = run(src, "k", 4, 4, 8);
    expect(Array.from(f).every(Number.isNaN)).toBe(true);
  });

  it("count against the 32 KiB limit, together with bound allocations", () => {
    const decl = (n: number) => `
kernel void k(device float* Y [[buffer(0)]], threadgroup float* t [[threadgroup(0)]], uint tid [[thread_index_in_threadgroup]])
{
  threadgroup float big[${n}];
  big[tid] = 2.0f;
  t[tid] = 1.0f;
  Y[tid] = big[tid] + t[tid];
}`;
    expect(run(decl(8188), "k", 4, 1, 4, 1, [16]).f[0]).toBe(3);
    expect(() => run(decl(8189), "k", 4, 1, 4, 1, [16])).toThrow(/32768 bytes of threadgroup memory declared in the kernel \(the last at line 6\) and 16 bound at dispatch exceed the limit of 32768/);
    expect(() => run(decl(8193), "k", 4, 1, 4, 1, [16])).toThrow(/32784 bytes of threadgroup memory declared in the kernel/);
  });

  it("compiler messages keep the line of the source, and the column of text before a declaration's end", () => {
    const before = `
kernel void k(device float* Y [[buffer(0)]], uint tid [[thread_index_in_threadgroup]])
{
  Y[tid] = undeclared_name; threadgroup float a[4];
  a[0] = 1.0f;
}`;
    expect(() => rt.compile(HEAD + before)).toThrow(/:6:12: error: .undeclared_name. was not declared/);
    const after = `
kernel void k(device float* Y [[buffer(0)]], uint tid [[thread_index_in_threadgroup]])
{
  threadgroup float a[4];
  Y[tid] = a[0] + undeclared_name;
}`;
    expect(() => rt.compile(HEAD + after)).toThrow(/:7:19: error: .undeclared_name. was not declared/);
  });
});
