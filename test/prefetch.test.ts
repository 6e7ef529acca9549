// Runtime.prefetch (tile_prefetch, shell-native/host/compile.cpp): several kernels compiled in one
// g++ run, each then served from the kernel cache by compile(). Tests use it to compile a file's
// kernels together (test/helpers/host.ts prefetchKernels); here: a prefetched kernel runs to the
// same bytes as the same kernel compiled alone, compile() runs no compiler for it, and what the
// runtime must not batch (preprocessor lines, a name the shim declares, a batch that fails) is
// left to compile() as before.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./helpers/files";
import { ensureHostLibrary } from "./helpers/host";
import { loadEngine, type Engine } from "../shell-node/src/engine";
import { openRuntime, type Runtime } from "../shell-node/src/native";
import { makeInputs, shapeOf } from "../shell-node/src/inputs";
import { elements, runKernel } from "./export/check";

let js: Engine;
const dirs: string[] = [];
const runtimes: Runtime[] = [];

/** A host runtime with a kernel cache of its own (so that every kernel is compiled by it). */
function fresh(): Runtime {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tile-prefetch-"));
  dirs.push(dir);
  const saved = process.env.TILE_CACHE_DIR;
  process.env.TILE_CACHE_DIR = dir;
  try {
    const rt = openRuntime("host");
    runtimes.push(rt);
    return rt;
  } finally {
    if (saved === undefined) delete process.env.TILE_CACHE_DIR;
    else process.env.TILE_CACHE_DIR = saved;
  }
}

beforeAll(async () => {
  ensureHostLibrary();
  js = await loadEngine("js");
});
afterAll(() => {
  for (const rt of runtimes) rt.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const NAMES = ["softmax", "layernorm_f16", "rmsnorm_bf16", "minmax", "gelu_pair", "sum"];

/** The built-in case's emitted kernel and a runner for it (every output's bytes). */
function kernel(name: string): { msl: string; run: (rt: Runtime) => Uint8Array[] } {
  const doc = JSON.parse(fs.readFileSync(path.join(ROOT, "cases", name + ".json"), "utf8"));
  const e = js.call({ command: "emit", document: JSON.stringify(doc), options: {} });
  expect(e.ok).toBe(true);
  const inputs = makeInputs(doc, 9);
  const fill = e.plan.bindings.map((b: any) => ({
    data: b.access === "write" ? null : inputs.get(b.name)!,
    dtype: doc.params.find((p: any) => p.name === b.name).dtype,
    n: elements(shapeOf(doc, b.name)),
  }));
  return { msl: e.msl, run: (rt) => runKernel(rt, e.msl, e.plan.kernel, fill, e.plan.dispatch.groups, e.plan.dispatch.threads) };
}

describe("Runtime.prefetch on the host runtime", () => {
  it("compiles the kernels in one compiler run; compile() then runs none, and each kernel gives the bytes it gives compiled alone", () => {
    const kernels = NAMES.map(kernel);
    const batched = fresh();
    const alone = fresh();
    expect(batched.prefetch!(kernels.map((k) => k.msl))).toBe(NAMES.length);
    expect(batched.compilerInvocations()).toBe(1);
    // already cached (by the batch): nothing to compile
    expect(batched.prefetch!(kernels.map((k) => k.msl))).toBe(0);
    expect(batched.compilerInvocations()).toBe(1);
    kernels.forEach((k, i) => {
      const a = k.run(alone);
      const b = k.run(batched);
      expect(alone.compilerInvocations()).toBe(i + 1);
      expect(batched.compilerInvocations(), NAMES[i]).toBe(1);
      expect(b.length).toBe(a.length);
      a.forEach((bytes, j) => expect(Buffer.from(b[j]).equals(Buffer.from(bytes)), `${NAMES[i]} output ${j}`).toBe(true));
    });
  });

  it("leaves out a source with preprocessor lines or a file-scope name the shim declares, and a batch that fails: compile() compiles those as before", () => {
    const rt = fresh();
    const { msl } = kernel("sum");
    const withDefine = "#define TWO 2.0f\n" + kernel("softmax").msl;
    // a helper named like a shim function: in a namespace it would hide the shim's overloads
    const shimName = kernel("minmax").msl.replace("kernel void", "static inline float fmax(float a, int b) { return a; }\nkernel void");
    expect(rt.prefetch!([withDefine, shimName])).toBe(0);
    expect(rt.compilerInvocations()).toBe(0);
    rt.compile(withDefine);
    expect(rt.compilerInvocations()).toBe(1);
    // a source that passes the runtime's checks but not the compiler fails the whole batch
    const broken = msl.replace(/kernel void (\w+)\(/, "kernel void $1_broken(").replace("{", "{ undeclared_name = 1;");
    expect(rt.prefetch!([msl, broken])).toBe(0);
    expect(rt.compilerInvocations()).toBe(2);
    rt.compile(msl);
    expect(rt.compilerInvocations()).toBe(3);
    expect(() => rt.compile(broken)).toThrow(/undeclared_name/);
  });
});
