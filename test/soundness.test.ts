// Soundness (issue 12): one test per class of the red-team report, each with the document, the
// plan it gets, and a run of every realization the plan admits on the host runtime against the
// FP64 oracle. A class is fixed when no admitted kernel computes a wrong value, reads or writes
// outside a buffer, or crashes; a rejected realization must be reported as unknown (not proven)
// unless a violation is actually proven.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEngine, type Engine } from "../shell-node/src/engine";
import { openRuntime, type Runtime } from "../shell-node/src/native";
import { runAndValidate } from "../shell-node/src/validate-run";
import { prefetchKernels } from "./helpers/host";

let wasm: Engine;
let js: Engine;
let runtime: Runtime;
beforeAll(async () => {
  wasm = await loadEngine("wasm");
  js = await loadEngine("js");
  runtime = openRuntime("host");
});
afterAll(() => runtime?.close());

type J = unknown;
const load = (b: string, ...idx: J[]): J => ["load", b, idx];
const f = (v: number): J => ["f32", v];

function doc(sizes: Record<string, number>, params: [string, (string | number)[], string?][], body: J[], noalias = true): string {
  return JSON.stringify({
    tile: 1, name: "t", attrs: { noalias }, sizes,
    params: params.map(([name, shape, dtype]) => ({ name, dtype: dtype ?? "f32", shape })),
    body,
  });
}

function plan(text: string, options: object = {}): any {
  const p = wasm.call({ command: "plan", document: text, options });
  const q = js.call({ command: "plan", document: text, options });
  expect(JSON.stringify(q)).toBe(JSON.stringify(p));
  return p;
}

function verdicts(p: any): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of p.rules ?? []) out[r.id] = r.verdict;
  return out;
}

function run(text: string, options: object = {}): { passed: boolean; realization: string; error: string } {
  const r = runAndValidate({ engine: wasm, runtime, text, options, seed: 3 });
  const why = r.error ?? JSON.stringify(r.outputs.map((o) => [o.name, o.mismatches, o.examples])) + " guards " + r.guards;
  return { passed: r.passed, realization: r.plan?.realization ?? "", error: r.passed ? "" : why };
}

/** Runs the document under each option set; every run must pass. Returns the realizations. */
function runAll(text: string, sets: object[]): string[] {
  const seen: string[] = [];
  // the sets' kernels compiled in one g++ run first; each run below still compiles its own (cached)
  prefetchKernels(runtime, wasm, sets.map((options) => ({ doc: text, options })));
  for (const o of sets) {
    // explicit widths that are impossible for this document (a width rule such as
    // tail-read-write fails) are refused with TPL009 rather than replaced (issue 21)
    const refused = wasm.call({ command: "plan", document: text, options: o });
    if (!refused.ok && refused.diagnostics.length === 1 && refused.diagnostics[0].code === "TPL009") {
      expect(refused.diagnostics[0].message, JSON.stringify(o)).toMatch(/(tail-read-write|thread-limit|threadgroup-memory) fails/);
      continue;
    }
    const r = run(text, o);
    expect(r.error, JSON.stringify(o)).toBe("");
    expect(r.passed).toBe(true);
    seen.push(r.realization);
  }
  return seen;
}

const WIDTHS = [{}, { programsPerGroup: 1 }, { programsPerGroup: 2, vector: 1 }, { programsPerGroup: 3, vector: 4 }, { programsPerGroup: 1, vector: 8, unroll: 3 }, { cacheInput: false }];

// ---------------------------------------------------------------------------------------------
describe("class 1: statements run where the rules assumed (one Distribution for rules and emitter)", () => {
  const sum = (name: string, b: string): J => ({ reduce: name, combiner: "sum", over: ["c", 0, "C"], value: load(b, "r", "c") });

  it("an overwrite by a parallel loop under a program-level if is not admitted as distributed", () => {
    const text = doc({ R: 5, C: 70 }, [["X", ["R", "C"]], ["Y", ["R", "C"]]], [
      { for: "r", in: [0, "R"], kind: "parallel", body: [
        sum("s", "X"),
        { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: ["r", "c"], value: load("X", "r", "c") }] },
        { if: ["gt", "s", f(-1000)], then: [
          { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: ["r", "c"], value: ["add", "s", load("X", "r", "c")] }] },
        ] },
      ] },
    ]);
    const p = plan(text, { programsPerGroup: 1 });
    // the guarded loop runs on worker 0; the first loop's stores are spread over the workers
    expect(p.realization).toBe("serial-program");
    expect(verdicts(p)["independent-store"]).not.toBe("holds");
    expect(runAll(text, WIDTHS)).toEqual(Array(WIDTHS.length).fill("serial-program"));
  });

  it("an in-place update under a program-level if runs on worker 0 and is admitted", () => {
    const text = doc({ R: 6, C: 70 }, [["A", ["R", "C"]], ["X", ["R", "C"]], ["Y", ["R"]]], [
      { for: "r", in: [0, "R"], kind: "parallel", body: [
        sum("s", "A"),
        { store: "Y", at: ["r"], value: "s" },
        { if: ["gt", "s", f(-1000)], then: [
          { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "X", at: ["r", "c"], value: ["mul", f(2), load("X", "r", "c")] }] },
        ], else: [
          { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "X", at: ["r", "c"], value: f(0) }] },
        ] },
      ] },
    ]);
    const p = plan(text, { programsPerGroup: 2 });
    expect(p.realization).toBe("cooperative-reduction");
    expect(Object.values(verdicts(p)).every((v) => v === "holds")).toBe(true);
    const emitted = wasm.call({ command: "emit", document: text, options: { programsPerGroup: 2 } });
    expect(emitted.msl).toMatch(/if \(worker == 0\) \{\n\s*if \(/);
    const seen = runAll(text, [...WIDTHS, { programsPerGroup: 2 }, { programsPerGroup: 3 }]);
    expect(seen).toContain("cooperative-reduction");
  });

  it("a reduce-free program-level serial loop around a parallel loop runs on worker 0", () => {
    const text = doc({ R: 4, C: 45 }, [["A", ["R", "C"]], ["X", ["R", "C"]], ["Y", ["R"]]], [
      { for: "r", in: [0, "R"], kind: "parallel", body: [
        sum("s", "A"),
        { store: "Y", at: ["r"], value: "s" },
        { for: "t", in: [0, 3], kind: "serial", body: [
          { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "X", at: ["r", "c"], value: ["add", f(1), ["mul", f(0.5), load("X", "r", "c")]] }] },
        ] },
      ] },
    ]);
    const p = plan(text, { programsPerGroup: 1 });
    expect(p.realization).toBe("cooperative-reduction");
    const seen = runAll(text, WIDTHS);
    expect(seen).toContain("cooperative-reduction");
  });
});

// ---------------------------------------------------------------------------------------------
describe("class 2: a program loop whose minimum is negative or computed", () => {
  for (const [label, min, shift] of [["negative", -3, 3], ["computed (mod 7 4)", ["mod", 7, 4], -3], ["computed negative", ["sub", 2, "R"], 0]] as [string, J, number][]) {
    it(`${label}: the program index is exact in the cooperative and the serial kernels`, () => {
      // ["sub", 2, "R"] starts at 2 - R; the rows are then r + R - 2
      const row: J = label === "computed negative" ? ["add", "r", ["sub", "R", 2]] : ["add", "r", shift];
      const body = (noalias: boolean): string => doc({ R: 7, C: 40 }, [["X", ["R", "C"]], ["Y", ["R"]]], [
        { for: "r", in: [min, "R"], kind: "parallel", body: [
          { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["load", "X", [row, "c"]] },
          { store: "Y", at: [row], value: "s" },
        ] },
      ], noalias);
      const p = plan(body(true), { programsPerGroup: 2 });
      expect(p.realization).toBe("cooperative-reduction");
      const first = label === "negative" ? -3 : label === "computed negative" ? -5 : 3;
      expect(p.mapping.programMin).toBe(first);
      expect(runAll(body(true), WIDTHS)).toContain("cooperative-reduction");
      // without noalias nothing is proven: the serial fallback, with the same exact index
      const q = plan(body(false));
      expect(q.realization).toBe("serial-program");
      expect(q.mapping.programMin).toBe(first);
      expect(runAll(body(false), [{}])).toEqual(["serial-program"]);
    });
  }
});

// ---------------------------------------------------------------------------------------------
describe("class 3: a serial loop's end is exact (64-bit where it leaves i32)", () => {
  it("min 0, extent 3, step 1e9: the loop runs three times", () => {
    const text = doc({ R: 6, C: 40 }, [["X", ["R", "C"]], ["Y", ["R"]], ["Z", ["R"]]], [
      { for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: load("X", "r", "c") },
        { store: "Y", at: ["r"], value: "s" },
        { for: "t", in: [0, 3], kind: "serial", step: 1000000000, body: [
          { store: "Z", at: ["r"], value: ["add", load("Z", "r"), ["cast", "f32", ["div", "t", 1000000000]]] },
        ] },
      ] },
    ]);
    const emitted = wasm.call({ command: "emit", document: text, options: { programsPerGroup: 2 } });
    expect(emitted.plan.realization).toBe("cooperative-reduction");
    expect(emitted.msl).toContain("long(0) + long(3) * long(1000000000)");
    const seen = runAll(text, [{ programsPerGroup: 1 }, { programsPerGroup: 2 }, { programsPerGroup: 3, vector: 4 }]);
    expect(seen).toContain("cooperative-reduction");
    // the serial program too (no noalias: nothing proven)
    const serial = text.replace('"noalias":true', '"noalias":false');
    expect(runAll(serial, [{}])).toEqual(["serial-program"]);
  });
});

describe("class 4: flattened offsets of buffers of 2^31 elements or more are 64-bit", () => {
  it("70000 x 70000: planned with exact byte counts, emitted with long offsets (plan and emit only)", () => {
    const text = doc({ R: 70000, C: 70000 }, [["X", ["R", "C"]], ["Y", ["R", "C"]], ["S", ["R"]]], [
      { for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: load("X", "r", "c") },
        { store: "S", at: ["r"], value: "s" },
        { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: ["r", "c"], value: ["mul", "s", load("X", "r", "c")] }] },
      ] },
    ]);
    for (const o of [{}, { programsPerGroup: 1, vector: 1 }]) {
      const e = wasm.call({ command: "emit", document: text, options: o });
      expect(JSON.stringify(js.call({ command: "emit", document: text, options: o }))).toBe(JSON.stringify(e));
      expect(e.ok).toBe(true);
      expect(e.plan.bindings[0].bytes).toBe(70000 * 70000 * 4);
      expect(e.plan.bindings[2].bytes).toBe(70000 * 4);
      // element by element (long(c)) or a packed vector at its first column (long(tile_vN))
      expect(e.msl).toMatch(/X\[long\(r\) \* 70000 \+ long\((c|tile_v\d+)\)\]/);
      expect(e.msl).toMatch(/Y\[long\(r\) \* 70000 \+ long\((c|tile_v\d+)\)\]/);
      expect(e.msl).not.toMatch(/[XY]\[\(?r \* 70000/); // never a 32-bit flattened offset
      expect(e.msl).toMatch(/S\[r\]/); // a small buffer keeps 32-bit offsets
      expect(e.audit.ok).toBe(true);
    }
  });

  it("a small document keeps its 32-bit text (most kernels are unchanged)", () => {
    const e = wasm.call({ command: "emit", document: doc({ R: 5, C: 70 }, [["X", ["R", "C"]], ["Y", ["R"]]], [
      { for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: load("X", "r", "c") },
        { store: "Y", at: ["r"], value: "s" }] }]), options: {} });
    expect(e.msl).not.toContain("long");
  });
});

describe("class 5: no exact-integer proof over an i32 index that may wrap", () => {
  it("c * 2^30 over c in [0, 8) is not taken as injective (c = 0 and c = 4 wrap to one element)", () => {
    const text = doc({ R: 4, C: 8 }, [["X", ["R", "C"]], ["Y", ["R", "C"]], ["S", ["R"]]], [
      { for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: load("X", "r", "c") },
        { store: "S", at: ["r"], value: "s" },
        { for: "c", in: [0, "C"], kind: "parallel", body: [
          { if: ["lt", "c", 0], then: [{ store: "Y", at: ["r", ["mul", "c", 1073741824]], value: "s" }] },
        ] },
      ] },
    ]);
    const p = plan(text, { programsPerGroup: 1 });
    expect(verdicts(p)["independent-store"]).toBe("unknown");
    expect(p.realization).toBe("serial-program");
    expect(runAll(text, [{}])).toEqual(["serial-program"]);
    // the same shape without wrap-around (c * 2^20 stays inside i32) is proven
    const fine = text.replace("1073741824", "1048576");
    expect(verdicts(plan(fine, { programsPerGroup: 1 }))["independent-store"]).toBe("holds");
  });
});

describe("class 6: the register fill does not hoist a guarded load", () => {
  it("X[r, c] read only under c < C in loops over [0, 4C) is not cached", () => {
    const text = doc({ R: 4, C: 40 }, [["A", ["R", "C"]], ["X", ["R", "C"]], ["Y", ["R", "C"]], ["Z", ["R", "C"]], ["S", ["R"]]], [
      { for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: load("A", "r", "c") },
        { store: "S", at: ["r"], value: "s" },
        { for: "c", in: [0, ["mul", 4, "C"]], kind: "parallel", body: [
          { if: ["lt", "c", "C"], then: [{ store: "Y", at: ["r", "c"], value: ["mul", "s", load("X", "r", "c")] }] }] },
        { for: "c", in: [0, ["mul", 4, "C"]], kind: "parallel", body: [
          { if: ["lt", "c", "C"], then: [{ store: "Z", at: ["r", "c"], value: ["add", "s", load("X", "r", "c")] }] }] },
      ] },
    ]);
    const p = plan(text, {});
    expect(p.realization).toBe("cooperative-reduction");
    expect(p.mapping.cacheBuffers).not.toContain("X");
    const cached = plan(text, { programsPerGroup: 1 });
    expect(cached.mapping.cacheBuffers).not.toContain("X");
    expect(runAll(text, WIDTHS)).toContain("cooperative-reduction");
  });
});

describe("class 7: generated names never collide; Metal macros and keywords are reserved", () => {
  it("reduces s and s_0 unrolled, and names FLT_MAX, M_PI_F, INFINITY, ray_data, object_data, threadgroup_imageblock", () => {
    const names = ["FLT_MAX", "M_PI_F", "INFINITY", "ray_data", "object_data", "threadgroup_imageblock", "float4", "HALF_MAX"];
    const text = JSON.stringify({
      tile: 1, name: "names", attrs: { noalias: true }, sizes: { R: 5, C: 70 },
      params: [{ name: "ray_data", dtype: "f32", shape: ["R", "C"] }, { name: "object_data", dtype: "f32", shape: ["R"] }],
      body: [{ for: "threadgroup_imageblock", in: [0, "R"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: load("ray_data", "threadgroup_imageblock", "c") },
        { reduce: "s_0", combiner: "max", over: ["M_PI_F", 0, "C"], value: load("ray_data", "threadgroup_imageblock", "M_PI_F") },
        { let: "FLT_MAX", value: ["add", "s", "s_0"] },
        { let: "INFINITY", value: ["mul", "FLT_MAX", f(0.5)] },
        { let: "float4", value: ["add", "INFINITY", f(1)] },
        { let: "HALF_MAX", value: ["sub", "float4", f(1)] },
        { store: "object_data", at: ["threadgroup_imageblock"], value: "HALF_MAX" },
      ] }],
    });
    for (const o of [{ programsPerGroup: 1, unroll: 2 }, { programsPerGroup: 2, unroll: 3, vector: 4 }, { programsPerGroup: 1, unroll: 1 }]) {
      const e = wasm.call({ command: "emit", document: text, options: o });
      expect(e.plan.realization).toBe("cooperative-reduction");
      const decls = [...e.msl.matchAll(/(?:float|int|bool|long) (\w+)(?: =|\[)/g)].map((m: RegExpMatchArray) => m[1]);
      const loopVars = new Set(["k", "j", "c", "M_PI_F"]);
      // loop variables and the packed-vector column tile_vN are block-scoped: declared once per loop
      const dup = decls.filter((d, i) => decls.indexOf(d) !== i && !loopVars.has(d) && !/^v_M_PI_F/.test(d) && !/^tile_v\d+$/.test(d));
      expect(dup).toEqual([]);
      // never declared, bound or indexed under its own name (INFINITY still appears as the identity of max)
      for (const n of names) {
        expect(e.msl, n).not.toMatch(new RegExp(`(?:float|int|bool|long|\\*) ${n}(?![\\w])`));
        expect(e.msl, n).not.toMatch(new RegExp(`(?<![\\w])${n}\\[`));
      }
      expect(e.msl).toContain("v_FLT_MAX");
      expect(e.msl).toContain("v_ray_data");
    }
    expect(runAll(text, [{ programsPerGroup: 1, unroll: 2 }, { programsPerGroup: 2, unroll: 3, vector: 4 }, { cacheInput: false }])).toContain("cooperative-reduction");
  });
});

// ---------------------------------------------------------------------------------------------
describe("the serial fallback relies on no `parallel` claim (a correct serial program is always available)", () => {
  /** The plan, the run on the host runtime (detector on) against the oracle, and the dispatch. */
  function serialRun(text: string, options: object = {}): { p: any; threads: number; groups: number } {
    const p = plan(text, options);
    expect(p.realization).toBe("serial-program");
    const r = run(text, options);
    expect(r.error).toBe("");
    expect(r.passed).toBe(true);
    return { p, threads: p.dispatch.threads, groups: p.dispatch.groups };
  }

  it("programs proven independent keep one thread per program", () => {
    // falls back (reduction-loop-shape: a serial loop of extent 2 around the reduce), but every
    // store is indexed by r and nothing written is read: the programs may run concurrently
    const text = doc({ R: 70, C: 33 }, [["X", ["R", "C"]], ["Y", ["R"]]], [
      { for: "r", in: [0, "R"], kind: "parallel", body: [
        { for: "t", in: [0, 2], kind: "serial", body: [
          { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: load("X", "r", "c") },
          { store: "Y", at: ["r"], value: ["add", "s", ["cast", "f32", "t"]] },
        ] },
      ] },
    ]);
    const { p, threads, groups } = serialRun(text);
    expect([groups, threads]).toEqual([2, 64]);
    expect(p.notes.join(" ")).toMatch(/runs one thread per program: Distinct programs touch distinct elements/);
    expect(p.diagnostics.find((d: any) => d.code === "TPL008").message).toContain("one thread per logical program");
    const e = wasm.call({ command: "emit", document: text, options: {} });
    expect(e.msl).toContain("const int i = int(group) * 64 + int(tid);");
  });

  it("4,000 program-level stores reading their own row: proven apart in linear time; one row further: in order", () => {
    // one store per column, each reading the next column of its own row: every access is
    // Y[r, const], so one linear test over all stores and loads proves programs apart (the
    // pairwise proof would pass its documented limit of pairs and say unknown)
    const many = (shift: number): string => {
      const inner: J[] = [{ reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: load("X", "r", "c") }];
      for (let i = 0; i < 4000; i++) inner.push({ store: "Y", at: ["r", i], value: ["add", "s", load("Y", i === 3999 ? ["add", "r", shift] : "r", (i + 1) % 4000)] });
      return doc({ R: 4, C: 64 }, [["X", ["R", "C"]], ["Y", [5, 4000]]], [
        { for: "r", in: [0, "R"], kind: "parallel", body: [{ for: "t", in: [0, 2], kind: "serial", body: inner }] },
      ]);
    };
    const apart = plan(many(0));
    expect(apart.realization).toBe("serial-program");
    expect([apart.dispatch.groups, apart.dispatch.threads]).toEqual([1, 64]);
    const ordered = plan(many(1));
    expect([ordered.dispatch.groups, ordered.dispatch.threads]).toEqual([1, 1]);
    // the linear test fails on the shifted load, and pair by pair the limit is reached: unproven
    expect(ordered.notes.join(" ")).toContain("because distinct programs are not proven independent");
  });

  const cases: [string, string][] = [
    // a prefix over rows: program r reads the row program r - 1 writes (serial family)
    ["a running sum over rows (program r reads row r - 1)", doc({ R: 9, C: 5 }, [["X", ["R", "C"]], ["Y", ["R", "C"]]], [
      { for: "r", in: [1, ["sub", "R", 1]], kind: "parallel", body: [
        { for: "c", in: [0, "C"], kind: "serial", body: [
          { store: "Y", at: ["r", "c"], value: ["add", load("Y", ["sub", "r", 1], "c"), load("X", "r", "c")] },
        ] },
      ] },
    ])],
    // element family, in place and shifted: fusion is not proven, nor are the programs apart
    ["an in-place shift Y[r, c] = 2 * Y[r + 1, c] (element family)", doc({ R: 8, C: 7 }, [["Y", ["R", "C"]]], [
      { for: "r", in: [0, ["sub", "R", 1]], kind: "parallel", body: [
        { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: ["r", "c"], value: ["mul", f(2), load("Y", ["add", "r", 1], "c")] }] },
      ] },
    ])],
    // a store through an index loaded from memory: not affine, so not proven apart
    ["a scatter Y[I[r]] += X[r] (index from memory)", doc({ R: 12 }, [["I", ["R"], "i32"], ["X", ["R"]], ["Y", ["R"]]], [
      { for: "r", in: [0, "R"], kind: "parallel", body: [
        { store: "Y", at: [load("I", "r")], value: ["add", load("Y", load("I", "r")), load("X", "r")] },
      ] },
    ])],
    // no noalias: two parameters may be one allocation, so nothing is proven apart
    ["no attrs.noalias", doc({ R: 70, C: 33 }, [["X", ["R", "C"]], ["Y", ["R"]]], [
      { for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: load("X", "r", "c") },
        { store: "Y", at: ["r"], value: "s" },
      ] },
    ], false)],
  ];
  for (const [label, text] of cases) {
    it(`${label}: one thread runs every program in order, race-free and right`, () => {
      expect(runtime.detectorEnabled()).toBe(true);
      const { p, threads, groups } = serialRun(text);
      expect([groups, threads]).toEqual([1, 1]);
      expect(p.notes.join(" ")).toMatch(/runs every program in one thread, in order \(the oracle's order\), because distinct programs are not proven independent/);
      expect(p.diagnostics.find((d: any) => d.code === "TPL008").message).toContain("one thread runs every logical program in order");
      const e = wasm.call({ command: "emit", document: text, options: {} });
      expect(e.msl).toMatch(/if \(group != 0u \|\| tid != 0u\) return;\n  for \(int i = 0; i < \d+; \+\+i\) \{/);
    });
  }
});

describe("class 8: a program reading a row another program writes is not admitted", () => {
  const class8 = doc({ R: 6, C: 40 }, [["X", ["R", "C"]], ["Y", ["R", "C"]], ["S", ["R"]]], [
    { for: "r", in: [0, ["sub", "R", 1]], kind: "parallel", body: [
      { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: load("X", "r", "c") },
      { store: "S", at: ["r"], value: "s" },
      { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: ["r", "c"], value: ["mul", "s", load("X", "r", "c")] }] },
      { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "X", at: ["r", "c"], value: load("Y", ["add", "r", 1], "c") }] },
    ] },
  ]);

  it("Y[r + 1, c] read after Y[r, c] is written: unknown at P = 1 and P >= 2, and the kernel that runs is right", () => {
    expect(runtime.detectorEnabled()).toBe(true);
    for (const P of [1, 2, 3]) {
      const p = plan(class8, { programsPerGroup: P });
      expect(p.realization, `P=${P}`).toBe("serial-program");
      expect(p.rules.find((r: any) => r.id === "independent-store").verdict).toBe("unknown");
      // the programs are not proven independent: one thread runs them all, in the oracle's order
      expect([p.dispatch.groups, p.dispatch.threads]).toEqual([1, 1]);
      // run on the host runtime with the race and bounds detector on, against the FP64 oracle
      const r = run(class8, { programsPerGroup: P });
      expect(r.error, `P=${P}`).toBe("");
      expect(r.passed).toBe(true);
    }
    // the default widths too
    expect(runAll(class8, [{}])).toEqual(["serial-program"]);
  });

  it("negative control: the same program run one thread per program is reported as a race", () => {
    // the former fallback (programs run concurrently, one thread each): rebuilt from the emitted
    // kernel by giving each thread one program; the detector must see Y[r + 1] read and written
    // by two threads, and the run must fail
    const e = wasm.call({ command: "emit", document: class8, options: {} });
    const ordered = "if (group != 0u || tid != 0u) return;\n  for (int i = 0; i < 5; ++i) {";
    expect(e.msl).toContain(ordered);
    const apart = e.msl.replace(ordered, "const int i = int(group) * 64 + int(tid);\n  if (i >= 5) return;\n  {");
    const emitted = { ...e, msl: apart, plan: { ...e.plan, dispatch: { ...e.plan.dispatch, groups: 1, threads: 64 } } };
    const r = runAndValidate({ engine: wasm, runtime, text: class8, options: {}, seed: 3, emitted });
    expect(r.passed).toBe(false);
    expect(r.error).toMatch(/data race on \[\[buffer\(1\)\]\] 'Y'/);
  });

  it("deliverable 5: stores to O[r] and O[r + R] are proven disjoint by their ranges", () => {
    const text = doc({ R: 6, C: 40 }, [["X", ["R", "C"]], ["O", [12]]], [
      { for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: load("X", "r", "c") },
        { store: "O", at: ["r"], value: "s" },
        { store: "O", at: [["add", "r", "R"]], value: ["mul", f(2), "s"] },
      ] },
    ]);
    const p = plan(text, { programsPerGroup: 2 });
    expect(verdicts(p)["independent-store"]).toBe("holds");
    expect(p.realization).toBe("cooperative-reduction");
    expect(runAll(text, WIDTHS)).toContain("cooperative-reduction");
  });

  it("deliverable 5: what a rule merely cannot prove is unknown, a proven hand-off still fails", () => {
    // a distributed store over a row-varying range: not provable, not a proven violation
    const rowVarying = doc({ R: 6, C: 40 }, [["X", ["R", "C"]], ["Y", ["R", "C"]], ["S", ["R"]]], [
      { for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: load("X", "r", "c") },
        { store: "S", at: ["r"], value: "s" },
        { for: "c", in: [0, ["add", "r", 1]], kind: "parallel", body: [{ store: "Y", at: ["r", ["sub", "C", ["add", "c", 1]]], value: "s" }] },
        { store: "Y", at: ["r", 0], value: "s" },
      ] },
    ]);
    // (since session 29 this one is proven: within a program the row-varying store's indices
    // C - 1 - r .. C - 1 stay above 0, apartInProgram)
    expect(verdicts(plan(rowVarying, { programsPerGroup: 1 }))["independent-store"]).toBe("holds");
    // the same with the index c * c (not affine): not provable, not a proven violation
    const nonAffine = rowVarying.replace('["sub","C",["add","c",1]]', '["mul","c","c"]');
    expect(nonAffine).not.toBe(rowVarying);
    const v = verdicts(plan(nonAffine, { programsPerGroup: 1 }));
    expect(v["independent-store"]).toBe("unknown");
    const handoff = doc({ R: 6, C: 40 }, [["X", ["R", "C"]], ["M", ["R"]], ["Y", ["R"]]], [
      { for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "m", combiner: "max", over: ["c", 0, "C"], value: load("X", "r", "c") },
        // an expression stored (not a scalar's name, which the load would take instead of memory:
        // core/analysis/forward.ts), so the load stays a read of worker 0's store
        { store: "M", at: ["r"], value: ["mul", "m", ["f32", 2]] },
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["sub", load("X", "r", "c"), load("M", "r")] },
        { store: "Y", at: ["r"], value: "s" },
      ] },
    ]);
    expect(verdicts(plan(handoff, { programsPerGroup: 1 }))["pure-expression"]).toBe("fails");
  });
});
