// Running the emitted MSL through koffi on the host runtime: the whole validation matrix and the
// built-in cases against the FP64 oracle with guard regions, plus negative controls that a
// wrong kernel is caught (oracle, guards, compiler log, divergent barrier).
import { describe, expect, it, beforeAll, afterAll } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { loadEngine, Engine } from "../shell-node/src/engine";
import { openRuntime, Runtime } from "../shell-node/src/native";
import { builtinEntries, loadMatrix } from "../shell-node/src/matrix";
import { f32ProgramOrder, illConditioned, runAndValidate } from "../shell-node/src/validate-run";
import { evaluate } from "../shell-node/src/oracle";
import { ROOT } from "./helpers/files";
import { ensureHostLibrary, prefetchKernels } from "./helpers/host";

let wasm: Engine;
let runtime: Runtime;
beforeAll(async () => {
  ensureHostLibrary();
  wasm = await loadEngine("wasm");
  runtime = openRuntime("host");
});
afterAll(() => runtime?.close());

const caseText = (name: string): string => fs.readFileSync(path.join(ROOT, "cases", name + ".json"), "utf8");

describe("the validation matrix on the host runtime (through koffi)", () => {
  it("every matrix entry and built-in case passes: oracle tolerance, guards intact", () => {
    const entries = [...builtinEntries(wasm), ...loadMatrix(wasm, false)];
    // every entry's kernel compiled in one g++ run first; runAndValidate still compiles each (cached)
    prefetchKernels(runtime, wasm, entries.map((e) => ({ doc: e.text, options: e.options })));
    expect(entries.filter((e) => e.kind === "reduction")).toHaveLength(48);
    expect(entries.filter((e) => e.kind === "element")).toHaveLength(8);
    const failures: string[] = [];
    for (const e of entries) {
      const r = runAndValidate({ engine: wasm, runtime, text: e.text, options: e.options, seed: 7 });
      if (!r.passed) failures.push(`${e.id}: ${r.error ?? ""} ${r.guards} ${JSON.stringify(r.outputs.map((o) => [o.name, o.mismatches]))}`);
      else {
        expect(r.guards).toBe("intact");
        expect(r.runtime).toBe("host");
        expect(r.timesAreGpu).toBe(false);
        for (const o of r.outputs) expect(o.written, e.id).toBeGreaterThan(0);
      }
    }
    expect(failures).toEqual([]);
  }, 900000); // 48 reductions, 8 elements and 17 built-in cases on a shared CPU: more than the default 120 s
});

describe("negative controls", () => {
  const options = { programsPerGroup: 2, threads: 64, sizes: { R: 5, C: 70 } };

  it("a wrong store index is caught by the oracle", () => {
    // element by element (V = 1): every element stored, each at the mirrored column
    const r = runAndValidate({ engine: wasm, runtime, text: caseText("softmax"), options: { ...options, vector: 1 }, seed: 1,
      mslOverride: (msl) => msl.split("Y[r * 70 + c] =").join("Y[r * 70 + (69 - c)] =") });
    expect(r.msl).toContain("Y[r * 70 + (69 - c)] =");
    expect(r.msl).not.toContain("Y[r * 70 + c] =");
    expect(r.passed).toBe(false);
    expect(r.outputs[0].mismatches).toBeGreaterThan(0);
    expect(r.guards).toBe("intact");
    // a packed store (V = 4): each vector's elements stored in mirrored order
    const p = runAndValidate({ engine: wasm, runtime, text: caseText("softmax"), options: { ...options, vector: 4 }, seed: 1,
      mslOverride: (msl) => msl.replace(/(tile_y\d+)\[j\] =/, "$1[3 - j] =") });
    expect(p.msl).toContain("[3 - j] =");
    expect(p.passed).toBe(false);
    expect(p.outputs[0].mismatches).toBeGreaterThan(0);
    expect(p.guards).toBe("intact");
  });

  it("a kernel writing one element past its row is caught by the guards", () => {
    const text = caseText("sum");
    const r = runAndValidate({ engine: wasm, runtime, text, options: { programsPerGroup: 1, threads: 32, sizes: { R: 3, C: 40 } }, seed: 1,
      mslOverride: (msl) => msl.replace(/if \(live && worker == 0\) \{ Y\[r\] = (\w+); \}/, "if (live && worker == 0) { Y[r] = $1; if (r == 2) { Y[r + 1] = $1; } }") });
    expect(r.passed).toBe(false);
    expect(r.guards).toMatch(/Y: 1 guard element/);
  });

  it("an MSL syntax error comes back as the compiler log", () => {
    const r = runAndValidate({ engine: wasm, runtime, text: caseText("add"), options: {}, seed: 1,
      mslOverride: (msl) => msl.replace("const int row", "const int row = = ") });
    expect(r.passed).toBe(false);
    expect(r.error).toMatch(/compile failed/);
    expect(r.error).toMatch(/error/);
  });

  it("a barrier under a divergent condition is reported, not hung", () => {
    const r = runAndValidate({ engine: wasm, runtime, text: caseText("sum"), options, seed: 1,
      mslOverride: (msl) => msl.replace("  threadgroup_barrier(mem_flags::mem_threadgroup);", "  if (live) { threadgroup_barrier(mem_flags::mem_threadgroup); }") });
    expect(r.passed).toBe(false);
    expect(r.error).toMatch(/barrier/);
  });
});

describe("the pipeline's real thread limit", () => {
  it("a plan wider than the compiled pipeline allows is planned again under that limit", () => {
    // Metal reports a pipeline's maxTotalThreadsPerThreadgroup after compiling (it depends on
    // register use); the host runtime always allows 1024, so this wraps it to report 256
    const limited: Runtime = Object.create(runtime);
    limited.pipeline = (lib, entry) => ({ ...runtime.pipeline(lib, entry), maxThreads: 256 });
    const r = runAndValidate({ engine: wasm, runtime: limited, text: caseText("softmax"), options: {}, seed: 3 });
    expect(r.replanned).toMatch(/allows 256 threads per group, the plan had 512/);
    expect(r.plan.mapping.T).toBeLessThanOrEqual(256);
    expect(r.passed).toBe(true);
  });
});

describe("tile run", () => {
  const CLI = path.join(ROOT, "shell-node", "bin", "tile.mjs");
  it("--json gives {passed, outputs, guards, runtime, plan}; --dump writes .npy files and a manifest", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tile-dump-"));
    const r = spawnSync(process.execPath, [CLI, "run", "cases/minmax.json", "--runtime", "host", "--size", "R=4", "--json", "--dump", dir], { encoding: "utf8", cwd: ROOT });
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.passed).toBe(true);
    expect(j.guards).toBe("intact");
    expect(j.runtime).toBe("host");
    expect(j.outputs.map((o: any) => o.name)).toEqual(["MN", "MX"]);
    for (const o of j.outputs) for (const k of ["maxAbsError", "maxRelError", "mismatches"]) expect(o).toHaveProperty(k);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
    const x = manifest.files.find((f: any) => f.buffer === "X" && f.which === "initial");
    const mx = manifest.files.find((f: any) => f.buffer === "MX" && f.which === "final");
    // an independent check of the dumped numbers: the row maxima of X equal MX
    // (.npy: a 10-byte preamble whose last two bytes are the header length, then the header)
    const f32 = (file: string): Float32Array => {
      const b = fs.readFileSync(path.join(dir, file));
      return new Float32Array(Uint8Array.from(b.subarray(10 + b.readUInt16LE(8))).buffer);
    };
    const X = f32(x.file);
    const MX = f32(mx.file);
    const C = 1537;
    for (let r0 = 0; r0 < 4; r0++) {
      let m = -Infinity;
      for (let c = 0; c < C; c++) m = Math.max(m, X[r0 * C + c]);
      expect(MX[r0]).toBe(m);
    }
  });

  it.skipIf(process.platform === "darwin")("asking for the Metal runtime where there is none is a usage error (exit 2), not a crash", () => {
    const r = spawnSync(process.execPath, [CLI, "run", "cases/sum.json", "--runtime", "metal"], { encoding: "utf8", cwd: ROOT });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^tile: metal runtime library not found/);
  });

  it("an ill-conditioned output: plain f32 in program order misses the same elements, the kernel is no further from FP64, it passes with a note", () => {
    // dX = Y * (dY - sum(Y * dY)): with 1,537 terms the sum is large beside most dY - sum, so
    // rounding the sum to f32 alone moves dX by more than the FP64 tolerance at some elements
    const doc = JSON.stringify({ tile: 1, name: "softmax_backward", attrs: { noalias: true }, sizes: { R: 6, C: 1537 },
      params: [{ name: "Yv", dtype: "f32", shape: ["R", "C"] }, { name: "dY", dtype: "f32", shape: ["R", "C"] }, { name: "dX", dtype: "f32", shape: ["R", "C"] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "d", combiner: "sum", over: ["c", 0, "C"], value: ["mul", ["load", "Yv", ["r", "c"]], ["load", "dY", ["r", "c"]]] },
        { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "dX", at: ["r", "c"], value: ["mul", ["load", "Yv", ["r", "c"]], ["sub", ["load", "dY", ["r", "c"]], "d"]] }] }] }] });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tile-cond-")), "bwd.json");
    fs.writeFileSync(file, doc);
    const r = spawnSync(process.execPath, [CLI, "run", file, "--runtime", "host", "--json"], { encoding: "utf8", cwd: ROOT });
    expect(r.status).toBe(0);
    const o = JSON.parse(r.stdout).outputs[0];
    expect(o.mismatches).toBe(0);
    expect(o.f32ProgramOrder.outside).toBeGreaterThan(0);
    expect(o.f32ProgramOrder.alsoOutside).toBe(o.f32ProgramOrder.outside);
    expect(o.illConditioned).toBe(o.f32ProgramOrder.outside);
    expect(o.f32ProgramOrder.maxAbsError).toBeGreaterThan(2e-6);
    const t = spawnSync(process.execPath, [CLI, "run", file, "--runtime", "host"], { encoding: "utf8", cwd: ROOT });
    expect(t.stdout).toMatch(/note: dX: \d+ element\(s\) outside the tolerance are outside it in a plain f32 evaluation of the document in program order too, and the kernel is within the tolerance of that f32 value or closer to the reference than it/);
    expect(t.stdout).toMatch(/verdict: pass/);
    // a passing run carries no such field
    const ok = spawnSync(process.execPath, [CLI, "run", "cases/softmax.json", "--runtime", "host", "--size", "R=2", "--json"], { encoding: "utf8", cwd: ROOT });
    expect(JSON.parse(ok.stdout).outputs[0].f32ProgramOrder).toBeUndefined();
  });

  it("f32ProgramOrder counts the finite elements outside the tolerance and which of them the f32 evaluation misses too", () => {
    const ref = Float64Array.from([1, 1, 1, 0, NaN]);
    const got = Float64Array.from([1, 1.001, 1.001, 0.5, NaN]);
    const f32 = Float64Array.from([1.5, 1.001, 1, 0, NaN]);
    const mask = Uint8Array.from([1, 1, 1, 0, 1]);
    // element 1: got and f32 outside; element 2: only got; element 3 unwritten; 4 non-finite
    expect(f32ProgramOrder("f32", got, ref, mask, f32)).toEqual({ outside: 2, alsoOutside: 1, maxAbsError: expect.closeTo(0.001, 9), nonFinite: 0, alsoNonFinite: 0 });
    // the kernel's infinity for a finite reference: counted apart, with whether plain f32 overflows too
    const ref2 = Float64Array.from([95.6, 95.6, 1]);
    const got2 = Float64Array.from([Infinity, NaN, 1]);
    const f322 = Float64Array.from([Infinity, 95.6, 1]);
    expect(f32ProgramOrder("f32", got2, ref2, Uint8Array.from([1, 1, 1]), f322)).toEqual({ outside: 0, alsoOutside: 0, maxAbsError: 0, nonFinite: 2, alsoNonFinite: 1 });
  });

  it("illConditioned passes finite elements outside the tolerance only where plain f32 misses too and the kernel is within the tolerance of it", () => {
    const mk = (): any => ({ name: "Y", elements: 4, written: 4, maxAbsError: 0, maxRelError: 0, mismatches: 3, nonFinite: 0, examples: [], worst: null, nonFiniteRefs: 0, tolerance: { abs: 2e-6, rel: 2e-5, dtype: "f32" } });
    const ref = Float64Array.from([-0.1370506, -0.1370506, -0.1370506, 1]);
    const f32 = Float64Array.from([-0.13705993, -0.13705993, -0.1370506, 1]);
    // 0: the kernel equals plain f32 (both outside): passes; 1: the kernel is far from both: stays;
    // 2: plain f32 meets the reference, the kernel does not: stays
    const got = Float64Array.from([-0.13705993, -0.1371, -0.1371, 1]);
    const o = mk();
    illConditioned(o, "f32", got, ref, Uint8Array.from([1, 1, 1, 1]), f32);
    expect(o.illConditioned).toBe(1);
    expect(o.mismatches).toBe(2);
    // the kernel outside the tolerance of the plain f32 value but closer to the reference than it
    // (a sum in another order): passes; further from the reference than plain f32: stays
    const closer = mk();
    closer.mismatches = 2;
    illConditioned(closer, "f32", Float64Array.from([-0.1370444, -0.1370706, -0.1370506, 1]), ref, Uint8Array.from([1, 1, 1, 1]), Float64Array.from([-0.13705993, -0.13705993, -0.1370506, 1]));
    expect(closer.illConditioned).toBe(1);
    expect(closer.mismatches).toBe(1);
    const none = mk();
    illConditioned(none, "f32", Float64Array.from([-0.1371, -0.1371, -0.1371, 1]), ref, Uint8Array.from([1, 1, 1, 1]), f32);
    expect(none.illConditioned).toBeUndefined();
    expect(none.mismatches).toBe(3);
  });

  it("the oracle's f32 mode rounds every operation and reduction step to f32; the default stays FP64", () => {
    const doc = { tile: 1, name: "t", sizes: { N: 3 }, params: [{ name: "X", dtype: "f32", shape: ["N"] }, { name: "Y", dtype: "f32", shape: [2] }],
      body: [{ for: "i", in: [0, 1], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["k", 0, "N"], value: ["load", "X", ["k"]] },
        { store: "Y", at: [0], value: "s" },
        { store: "Y", at: [1], value: ["add", ["load", "X", [1]], ["f32", 0.1]] }] }] };
    const inputs = () => new Map<string, Float64Array>([["X", Float64Array.from([1e8, 1, -1e8])], ["Y", new Float64Array(2)]]);
    const exact = evaluate(doc, inputs()).buffers.get("Y")!;
    const f32 = evaluate(doc, inputs(), "f32").buffers.get("Y")!;
    expect(exact[0]).toBe(1); // 1e8 + 1 - 1e8 in doubles
    expect(f32[0]).toBe(0); // 1e8 + 1 rounds to 1e8 in f32
    expect(exact[1]).toBe(1 + Math.fround(0.1));
    expect(f32[1]).toBe(Math.fround(1 + Math.fround(0.1)));
  });

  it("a failing run exits 1; an invalid document exits 2", () => {
    const bad = path.join(ROOT, "test", "fixtures", "validate");
    const invalid = fs.readdirSync(bad).find((f) => f.startsWith("TIR010") && !f.includes("expect"))!;
    const r = spawnSync(process.execPath, [CLI, "run", path.join(bad, invalid), "--runtime", "host"], { encoding: "utf8", cwd: ROOT });
    expect(r.status).toBe(2);
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
  });
});
