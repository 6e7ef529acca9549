// Issue 16: V-wide packed loads and stores in every stage, neighbouring threads on neighbouring
// vectors. Which accesses are packed (core/analysis/vectors.ts), the emitted access shapes, the
// cost model's instruction counts (core/cost/model.ts), the audit of packed stores, and the
// kernels run on the host runtime (race and bounds detector on) against the FP64 oracle.
import { describe, expect, it, beforeAll, afterAll, vi } from "vitest";
import fs from "node:fs";
import path from "node:path";

vi.mock("../core/glue/wasm", async () => await import("../core/glue/js"));

import { loadDocument } from "../core/ir/load";
import { Doc, Expr, Stmt } from "../core/ir/ast";
import { packWidth, vectorAccessesOfGrid, vectorAccessesOfList, vectorAccessesOfReduce } from "../core/analysis/vectors";
import { reductionWork } from "../core/cost/work";
import { chunkIssues, elementIssues } from "../core/cost/model";
import { elementWork } from "../core/cost/work";
import { auditMsl } from "../core/audit/audit";
import { loadEngine, Engine } from "../shell-node/src/engine";
import { openRuntime, Runtime } from "../shell-node/src/native";
import { runAndValidate } from "../shell-node/src/validate-run";
import { ROOT } from "./helpers/files";
import { ensureHostLibrary, prefetchKernels } from "./helpers/host";

const caseText = (name: string): string => fs.readFileSync(path.join(ROOT, "cases", name + ".json"), "utf8");

function load(text: string): Doc {
  const l = loadDocument(text, [], []);
  if (!l.ok) throw new Error(l.diags.map((d) => d.message).join("; "));
  return l.doc;
}

/** A reduction-family document over X[R, C] (plus G[C], I[R, C] and XT[C, R]) with `body` as
 *  the program loop's body. */
function rowDoc(body: unknown[], extraParams: unknown[] = []): string {
  return JSON.stringify({
    tile: 1, name: "t", attrs: { noalias: true }, sizes: { R: 3, C: 40 },
    params: [
      { name: "X", dtype: "f32", shape: ["R", "C"] },
      { name: "G", dtype: "f32", shape: ["C"] },
      { name: "I", dtype: "i32", shape: ["R", "C"] },
      { name: "XT", dtype: "f32", shape: ["C", "R"] },
      { name: "Y", dtype: "f32", shape: ["R", "C"] },
      { name: "Z", dtype: "f32", shape: ["R", "C"] },
      ...extraParams,
    ],
    body: [{ for: "r", in: [0, "R"], kind: "parallel", body }],
  });
}

const X = ["load", "X", ["r", "c"]];
const sumOver = (value: unknown) => ({ reduce: "s", combiner: "sum", over: ["c", 0, "C"], value });
const loopOver = (body: unknown[], extent: unknown = "C") => ({ for: "c", in: [0, extent], kind: "parallel", body });

function programBody(doc: Doc): Stmt[] {
  return doc.body[0].body;
}

/** The buffers (with their index text) of the packed loads of the first program statement. */
function packedLoads(text: string): string[] {
  const doc = load(text);
  const s = programBody(doc)[0];
  const acc = s.kind === "reduce" ? vectorAccessesOfReduce(doc, s) : vectorAccessesOfList(doc, s.name, s.body);
  return acc.loads.map((e: Expr) => e.name + "@" + e.ptr);
}

function packedStores(text: string): string[] {
  const doc = load(text);
  const s = programBody(doc)[0];
  return vectorAccessesOfList(doc, s.name, s.body).stores.map((st: Stmt) => st.name);
}

describe("which accesses are packed (core/analysis/vectors.ts)", () => {
  it("packs contiguous loads of read-only buffers that every value evaluates", () => {
    // select's arms, and/or's right operand: evaluated only sometimes, so never packed
    const r = packedLoads(rowDoc([sumOver(["add", X, ["select", ["gt", ["load", "G", ["c"]], ["f32", 0]], X, ["f32", 0]]])]));
    expect(r).toEqual(["X@/body/0/body/0/value/1", "G@/body/0/body/0/value/2/1/1"]);
    const l = packedLoads(rowDoc([loopOver([
      { let: "a", value: ["mul", X, ["load", "G", ["c"]]] },
      { store: "Y", at: ["r", "c"], value: ["add", "a", ["cast", "f32", ["load", "I", ["r", "c"]]]] },
      { if: ["gt", "a", ["f32", 0]], then: [{ store: "Z", at: ["r", "c"], value: X }] },
    ])]));
    // the load under the if is not packed; the if's condition holds no load
    expect(l).toEqual(["X@/body/0/body/0/body/0/value/1", "G@/body/0/body/0/body/0/value/2", "I@/body/0/body/0/body/1/value/2/2"]);
  });

  it("the address must be v, v + g or v - g with g constant, and v in the last index only", () => {
    const one = (idx: unknown, extent: unknown = "C") =>
      packedLoads(rowDoc([loopOver([{ store: "Y", at: ["r", "c"], value: ["load", "X", idx] }], extent)])).filter((l) => l.startsWith("X@"));
    expect(one(["r", ["add", "c", 1]], ["sub", "C", 1])).toHaveLength(1);
    expect(one(["r", ["add", 2, "c"]], ["sub", "C", 2])).toHaveLength(1);
    expect(one(["r", ["sub", "c", 0]])).toHaveLength(1);
    expect(one(["r", ["add", "c", ["sub", "C", 40]]])).toHaveLength(1); // a size in the offset
    expect(one(["r", ["sub", ["sub", "C", 1], "c"]])).toHaveLength(0); // reversed: coefficient -1
    expect(one(["r", ["mul", 2, "c"]], 20)).toHaveLength(0); // stride 2
    expect(one(["c", "r"], 3)).toHaveLength(0); // v in the first index (X[c, r])
    expect(one(["r", ["add", "c", "r"]], 37)).toHaveLength(0); // offset not constant
    expect(one([["load", "I", ["r", 0]], "c"])).toHaveLength(1); // a gathered row: the same for every c
    expect(one([["load", "I", ["r", "c"]], "c"])).toHaveLength(0); // ... but not one that varies with c
  });

  it("never packs a load of a buffer the kernel stores, nor a store to a buffer it loads", () => {
    // in place: Y is read and written
    const inPlace = rowDoc([sumOver(X), loopOver([{ store: "Y", at: ["r", "c"], value: ["div", ["load", "Y", ["r", "c"]], "s"] }])]);
    const doc = load(inPlace);
    const loop = programBody(doc)[1];
    const acc = vectorAccessesOfList(doc, "c", loop.body);
    expect(acc.loads).toHaveLength(0);
    expect(acc.stores).toHaveLength(0);
    // Z is read somewhere else in the kernel: its store is not packed (Y's is)
    const zRead = rowDoc([loopOver([{ store: "Z", at: ["r", "c"], value: X }, { store: "Y", at: ["r", "c"], value: ["load", "Z", ["r", "c"]] }])]);
    expect(packedStores(zRead)).toEqual(["Y"]);
    expect(packedLoads(zRead).filter((l) => l.startsWith("Z@"))).toEqual([]);
  });

  it("packs a store only when it is the site's one unconditional store to its buffer", () => {
    expect(packedStores(rowDoc([loopOver([{ store: "Y", at: ["r", "c"], value: X }, { store: "Z", at: ["r", "c"], value: X }])]))).toEqual(["Y", "Z"]);
    // two stores to Y in the site (the second under an if): neither Y store is packed
    expect(packedStores(rowDoc([loopOver([
      { store: "Y", at: ["r", "c"], value: X },
      { if: ["gt", X, ["f32", 0]], then: [{ store: "Y", at: ["r", "c"], value: ["f32", 0] }] },
    ])]))).toEqual([]);
    // a store in a nested loop is not at the top of the site
    expect(packedStores(rowDoc([loopOver([{ for: "q", in: [0, 1], kind: "serial", body: [{ store: "Y", at: ["r", "c"], value: X }] }])]))).toEqual([]);
  });

  it("the element grid packs an update in place: one store, every load at its index, none after it", () => {
    const grid = (body: unknown[]): Doc => load(JSON.stringify({
      tile: 1, name: "g", attrs: { noalias: true }, sizes: { R: 3, C: 40 },
      params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R", "C"] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [{ for: "c", in: [0, "C"], kind: "parallel", body }] }],
    }));
    const packed = (doc: Doc): string[] => {
      const inner = doc.body[0].body[0];
      const a = vectorAccessesOfGrid(doc, inner.name, inner.body);
      return [...a.loads.map((e: Expr) => "load " + e.name), ...a.stores.map((st: Stmt) => "store " + st.name)];
    };
    // X = 2 X, and a let before the store: packed both ways
    expect(packed(grid([{ store: "X", at: ["r", "c"], value: ["mul", X, ["f32", 2]] }]))).toEqual(["load X", "store X"]);
    expect(packed(grid([{ let: "v", value: X }, { store: "Y", at: ["r", "c"], value: "v" }, { store: "X", at: ["r", "c"], value: ["add", "v", ["f32", 1]] }]))).toEqual(["load X", "store Y", "store X"]);
    // a load after the store, or at another index: neither X access packed
    expect(packed(grid([{ store: "X", at: ["r", "c"], value: ["f32", 1] }, { store: "Y", at: ["r", "c"], value: X }]))).toEqual(["store Y"]);
    expect(packed(grid([{ store: "X", at: ["r", "c"], value: ["load", "X", ["r", ["sub", ["sub", "C", 1], "c"]]] }]))).toEqual([]);
    // the reduction family's sites keep the rule of before (vectorAccessesOfList)
    const doc = grid([{ store: "X", at: ["r", "c"], value: ["mul", X, ["f32", 2]] }]);
    const inner = doc.body[0].body[0];
    expect(vectorAccessesOfList(doc, inner.name, inner.body).loads).toHaveLength(0);
  });

  it("the packed width: 4 where it divides V, else no packing", () => {
    expect([1, 2, 4, 8, 12, 16].map(packWidth)).toEqual([1, 2, 4, 4, 4, 4]);
  });
});

describe("the cost model counts the memory instructions that are emitted", () => {
  const softmax = load(caseText("softmax"));
  const w = reductionWork(softmax, programBody(softmax), "r", true);
  const none: string[] = [];

  it("a packed access is one instruction per 4 elements; a scalar one per element", () => {
    // stages: max (X), sum (X), loop (X and Y)
    expect(w.stages.map((s) => chunkIssues(s, 1, none, []))).toEqual([1, 1, 2]);
    expect(w.stages.map((s) => chunkIssues(s, 4, none, []))).toEqual([1, 1, 2]);
    expect(w.stages.map((s) => chunkIssues(s, 8, none, []))).toEqual([2, 2, 4]);
  });

  it("a cached buffer is read once, by the stage that fills it", () => {
    const filled: string[] = [];
    expect(w.stages.map((s) => chunkIssues(s, 8, ["X"], filled))).toEqual([2, 0, 2]);
    const filled1: string[] = [];
    expect(w.stages.map((s) => chunkIssues(s, 1, ["X"], filled1))).toEqual([1, 0, 1]);
  });

  it("an access that cannot be packed costs V instructions per chunk", () => {
    // X[r, C-1-c] is consecutive in memory but walks backwards: not packed
    const rev = load(rowDoc([sumOver(["load", "X", ["r", ["sub", ["sub", "C", 1], "c"]]])]));
    const st = reductionWork(rev, programBody(rev), "r", true).stages[0];
    expect([1, 4, 8].map((V) => chunkIssues(st, V, none, []))).toEqual([1, 4, 8]);
  });

  it("packed loads of one address share one instruction and one read, as emitted", () => {
    // layernorm: sum (X), q = sum (X - mean) * (X - mean) (X twice, one address), loop (X and Y)
    const ln = load(caseText("layernorm"));
    const lw = reductionWork(ln, programBody(ln), "r", true);
    expect(lw.stages.filter((s) => s.kind !== "scalar").map((s) => chunkIssues(s, 4, none, []))).toEqual([1, 1, 2]);
    expect(lw.stages.filter((s) => s.kind !== "scalar").map((s) => chunkIssues(s, 8, none, []))).toEqual([2, 2, 4]);
    // the scalar form (V = 1) loads X twice in the source
    expect(lw.stages.filter((s) => s.kind !== "scalar").map((s) => chunkIssues(s, 1, none, []))).toEqual([1, 2, 2]);
    // bytes: each stage reads X once per element
    expect(lw.stages.filter((s) => s.kind !== "scalar").map((s) => s.loadBytes)).toEqual([4, 4, 4]);
  });

  it("the element grid: packed loads and stores per thread vector", () => {
    const doc = load(caseText("sigmoid_pair"));
    const st = elementWork(doc, doc.body[0]).stages[0];
    // one load of X, stores to S and D
    expect([1, 4, 8].map((V) => elementIssues(st, V))).toEqual([3, 3, 6]);
  });
});

describe("emitted access shapes", () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await loadEngine("wasm");
  });
  const emit = (name: string, options: object): string => {
    const r = engine.call({ command: "emit", document: caseText(name), options });
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    expect(r.audit.ok).toBe(true);
    return r.msl as string;
  };

  it("every stage of a whole row reads and writes 4-wide; no scalar access and no guard remain", () => {
    const msl = emit("layernorm_affine", { programsPerGroup: 1, threads: 256, vector: 4, sizes: { R: 8, C: 4096 } });
    expect(msl).toContain("const packed_float4 w0 = *((device const packed_float4*)(&X[r * 4096 + tile_v0]));");
    // the broadcast weights, and the output
    expect(msl).toContain("*((device const packed_float4*)(&G[tile_v0]))");
    expect(msl).toContain("*((device const packed_float4*)(&B[tile_v0]))");
    expect(msl).toMatch(/if \(live\) \{ \*\(\(device packed_float4\*\)\(&Y\[r \* 4096 \+ tile_v0\]\)\) = tile_y\d+; \}/);
    expect(msl).not.toMatch(/[XGBY]\[[^\]]*\bc\]/);
    expect(msl).not.toContain("< 4096");
    expect(msl).not.toContain("<= 4096");
  });

  it("a stage that reads one address twice emits one packed read (what the cost model charges)", () => {
    const msl = emit("layernorm", { programsPerGroup: 1, threads: 256, vector: 8, sizes: { R: 8, C: 1024 }, cacheInput: false });
    // three stages (sum, the variance's (X - mean) * (X - mean), the output loop): one packed read of X each
    expect(msl.match(/packed_float4\*\)\(&X\[/g)?.length).toBe(3);
  });

  it("V = 8: a worker's two vectors of 4 lie W vectors apart (neighbouring workers, neighbouring vectors)", () => {
    const msl = emit("softmax", { programsPerGroup: 1, threads: 128, vector: 8, sizes: { R: 4, C: 4096 }, cacheInput: false });
    expect(msl).toContain("for (int tile_h = 0; tile_h < 2; ++tile_h) {");
    expect(msl).toContain("const int tile_v0 = ((k * 2 + tile_h) * 128 + worker) * 4;");
    expect(msl).not.toContain("* 8 + j");
  });

  it("the element grid: a thread's vectors of 4 columns, neighbouring threads on neighbouring vectors", () => {
    const v8 = emit("gelu_pair", { vector: 8, sizes: { R: 4, C: 4096 } });
    expect(v8).toContain("const int col0 = (int(group) % 2) * 2048;");
    expect(v8).toContain("const int col = col0 + (tile_h * 256 + int(tid)) * 4;");
    expect(v8).toContain("*((device const packed_float4*)(&X[r * 4096 + col]))");
    expect(v8).toContain("*((device packed_float4*)(&G[r * 4096 + col])) = ");
    expect(v8).toContain("*((device packed_float4*)(&D[r * 4096 + col])) = ");
    const v4 = emit("sigmoid_pair", { vector: 4, sizes: { R: 4, C: 4096 } });
    expect(v4).toContain("const int col = col0 + int(tid) * 4;");
    expect(v4).not.toContain("tile_h");
  });

  it("a ragged row keeps the scalar form for its last vector, guarded as before", () => {
    const msl = emit("softmax", { programsPerGroup: 2, threads: 64, vector: 4, sizes: { R: 5, C: 70 }, cacheInput: false });
    expect(msl).toContain("if (tile_v0 + 4 <= 70) {");
    expect(msl).toContain("// the ragged last vector, element by element");
    expect(msl).toContain("if (c < 70) {");
    expect(msl).toContain("if (live) { Y[r * 70 + c] = ");
  });

  it("in place: neither the load nor the store of the updated buffer is packed", () => {
    const doc = rowDoc([sumOver(X), loopOver([{ store: "Y", at: ["r", "c"], value: ["div", ["load", "Y", ["r", "c"]], "s"] }])]);
    const r = engine.call({ command: "emit", document: doc, options: { programsPerGroup: 1, threads: 32, vector: 4 } });
    expect(r.ok).toBe(true);
    const last = (r.msl as string).split("// parallel loop over c")[1];
    expect(last).not.toContain("packed");
    expect(last).toContain("if (live) { Y[r * 40 + c] = Y[r * 40 + c] / s; }");
  });
});

describe("the audit sees packed stores", () => {
  const kernel = (store: string) => `#include <metal_stdlib>
using namespace metal;
kernel void k(device const float* X [[buffer(0)]], device float* Y [[buffer(1)]], uint tid [[thread_index_in_threadgroup]], uint group [[threadgroup_position_in_grid]]) {
  const bool live = group < 3u;
  const packed_float4 tile_x0 = *((device const packed_float4*)(&X[tid * 4]));
  ${store}
}
`;
  it("a predicated packed store passes, an unpredicated one is a replay-store finding", () => {
    const good = auditMsl(kernel("if (live) { *((device packed_float4*)(&Y[tid * 4])) = tile_x0; }"), "cooperative-reduction", 0);
    expect([good.ok, good.deviceStores, good.predicatedStores]).toEqual([true, 1, 1]);
    const bad = auditMsl(kernel("*((device packed_float4*)(&Y[tid * 4])) = tile_x0;"), "cooperative-reduction", 0);
    expect(bad.ok).toBe(false);
    expect(bad.findings.map((f) => f.check)).toEqual(["unpredicated-replay-store"]);
  });
});

describe("packed kernels on the host runtime (detector on) against the FP64 oracle", () => {
  let engine: Engine;
  let runtime: Runtime;
  beforeAll(async () => {
    ensureHostLibrary();
    engine = await loadEngine("wasm");
    runtime = openRuntime("host");
  });
  afterAll(() => runtime?.close());

  const run = (text: string, options: object, mslOverride?: (m: string) => string) =>
    runAndValidate({ engine, runtime, text, options, seed: 3, mslOverride });

  it("reductions at V = 4 and 8: ragged rows, a replayed tail, cached and uncached, unrolled", () => {
    const failures: string[] = [];
    const runs: { name: string; doc: string; options: object }[] = [];
    for (const name of ["softmax", "layernorm_affine", "rmsnorm", "minmax"]) {
      for (const V of [4, 8]) {
        for (const [C, cacheInput, U] of [[1539, true, 1], [1539, false, 2], [512, false, 1], [37, true, 3]] as const) {
          runs.push({ name, doc: caseText(name), options: { programsPerGroup: 3, vector: V, unroll: U, cacheInput, sizes: { R: 7, C } } });
        }
      }
    }
    // every kernel below compiled in one g++ run first; each run still compiles its own (cached)
    prefetchKernels(runtime, engine, runs);
    for (const { name, doc, options } of runs) {
      const r = run(doc, options);
      if (!r.passed) failures.push(`${name} ${JSON.stringify(options)}: ${r.error ?? ""} ${r.guards}`);
      else expect(r.msl).toContain("packed_float4");
    }
    expect(failures).toEqual([]);
  });

  it("element grids at V = 4 and 8", () => {
    for (const name of ["sigmoid_pair", "gelu_pair", "gelu_exact_pair", "add"]) {
      for (const V of [4, 8]) {
        const r = run(caseText(name), { vector: V, threads: 64, sizes: { R: 3, C: 1536 } });
        expect(r.passed, `${name} V${V}: ${r.error ?? ""}`).toBe(true);
        expect(r.guards).toBe("intact");
      }
    }
  });

  it("an offset row, a shifted read, an i32 buffer and a broadcast vector", () => {
    const doc = rowDoc([
      { reduce: "s", combiner: "sum", over: ["c", 1, ["sub", "C", 2]], value: ["mul", ["load", "X", ["r", ["add", "c", 1]]], ["load", "G", ["c"]]] },
      loopOver([{ store: "Y", at: ["r", "c"], value: ["add", ["mul", ["load", "X", ["r", "c"]], "s"], ["cast", "f32", ["load", "I", ["r", "c"]]]] }]),
    ]);
    for (const V of [4, 8]) {
      const r = run(doc, { programsPerGroup: 2, threads: 64, vector: V, sizes: { R: 5, C: 203 } });
      expect(r.passed, r.error).toBe(true);
      expect(r.msl).toContain("packed_int4");
    }
  });

  it("negative control: a packed store one element off is caught", () => {
    const r = run(caseText("softmax"), { programsPerGroup: 1, threads: 64, vector: 4, sizes: { R: 3, C: 512 } },
      (m) => m.replace("(&Y[r * 512 + tile_v0]))", "(&Y[r * 512 + tile_v0 + 1]))"));
    expect(r.passed).toBe(false);
  });

  it("negative control: a stage that walks another layout than the fill is caught", () => {
    const r = run(caseText("softmax"), { programsPerGroup: 1, threads: 64, vector: 8, sizes: { R: 3, C: 1024 } },
      (m) => m.replace("const int tile_v0 = ((k * 2 + tile_h) * 64 + worker) * 4;\n      const packed_float4 w0", "const int tile_v0 = (k * 128 + worker * 2 + tile_h) * 4;\n      const packed_float4 w0"));
    expect(r.msl).toContain("(k * 128 + worker * 2 + tile_h) * 4");
    expect(r.passed).toBe(false);
  });
});
