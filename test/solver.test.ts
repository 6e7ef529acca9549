// The bounded width solver and the cost model: the formulas on every case of the validation
// matrix, exhaustive search compared with a brute-force enumeration, the private-budget
// boundary, rejection reasons, and determinism across engines.
import { describe, expect, it, beforeAll } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { loadEngine, Engine } from "../shell-node/src/engine";
import { loadMatrix } from "../shell-node/src/matrix";
import { ROOT } from "./helpers/files";

let wasm: Engine;
let js: Engine;
beforeAll(async () => {
  wasm = await loadEngine("wasm");
  js = await loadEngine("js");
});

const caseText = (name: string): string => fs.readFileSync(path.join(ROOT, "cases", name + ".json"), "utf8");
const plan = (text: string, options: object = {}): any => wasm.call({ command: "plan", document: text, options });
const emit = (text: string, options: object = {}): any => wasm.call({ command: "emit", document: text, options });
const ceilDiv = (a: number, b: number): number => Math.floor((a + b - 1) / b);

describe("formulas on the validation matrix", () => {
  it("T = 32 S P, W = 32 S, groups = ceil(rows / P), and requested widths are honoured", () => {
    const entries = loadMatrix(wasm, false).filter((e) => e.kind === "reduction");
    expect(entries).toHaveLength(48);
    for (const e of entries) {
      const p = plan(e.text, e.options);
      expect(p.ok, e.id).toBe(true);
      expect(p.realization, e.id).toBe("cooperative-reduction");
      const m = p.mapping;
      expect(m.T, e.id).toBe(32 * m.S * m.P);
      expect(m.W, e.id).toBe(32 * m.S);
      expect(m.groups, e.id).toBe(ceilDiv(m.programs, m.P));
      const o: any = e.options;
      if (o.programsPerGroup) expect(m.P, e.id).toBe(o.programsPerGroup);
      if (o.threads) expect(m.T, e.id).toBe(o.threads);
      if (o.vector) expect(m.V, e.id).toBe(o.vector);
      if (o.unroll) expect(m.U, e.id).toBe(o.unroll);
      if (o.cacheInput === false) expect(m.cached, e.id).toBe(false);
    }
  });

  it("the matrix covers the widths the issue names", () => {
    const plans = loadMatrix(wasm, false).filter((e) => e.kind === "reduction").map((e) => plan(e.text, e.options));
    const W = new Set(plans.map((p) => p.mapping.W));
    for (const w of [64, 96, 128, 416, 512]) expect(W.has(w)).toBe(true);
    const P = new Set(plans.map((p) => p.mapping.P));
    for (const x of [2, 3, 8]) expect(P.has(x)).toBe(true);
    expect(new Set(plans.map((p) => p.mapping.V))).toEqual(new Set([1, 4, 8]));
    expect(new Set(plans.map((p) => p.mapping.U))).toEqual(new Set([1, 3]));
    expect(new Set(plans.map((p) => p.mapping.cached))).toEqual(new Set([true, false]));
    expect(plans.some((p) => p.mapping.T === 1024)).toBe(true);
    expect(plans.some((p) => p.mapping.programMin !== 0)).toBe(true);
    expect(plans.some((p) => p.mapping.programs < p.mapping.P)).toBe(true);
  });
});

describe("the bounded search is exhaustive and totally ordered", () => {
  const key = (m: any): string => `${m.layout === "programs-on-lanes" ? "lanes " : ""}${m.P}/${m.S}/${m.V}/${m.U}`;

  it("automatic family: every S = 1 packing and every wider single program, every allowed V, and programs on lanes at V = 1", () => {
    const p = plan(caseText("softmax"), { candidates: true });
    const expected = new Set<string>();
    for (const V of [1, 4, 8]) {
      for (let P = 1; 32 * P <= 1024; P++) expected.add(`${P}/1/${V}/1`);
      for (let S = 2; 32 * S <= 1024; S++) expected.add(`1/${S}/${V}/1`);
    }
    // programs on lanes: P of 8, 16 or 32 neighbouring programs, every S with 32 S P within the limit
    for (const P of [8, 16, 32]) for (let S = 1; 32 * S * P <= 1024; S++) expected.add(`lanes ${P}/${S}/1/1`);
    const got = new Set<string>(p.candidates.map((c: any) => key(c.mapping)));
    expect(got).toEqual(expected);
    expect(p.candidates).toHaveLength(expected.size);
  });

  it("explicit P: every S with 32 S P within the limit", () => {
    const p = plan(caseText("sum"), { programsPerGroup: 3, candidates: true, vector: 4 });
    const got = p.candidates.map((c: any) => key(c.mapping)).sort();
    const expected: string[] = [];
    for (let S = 1; 32 * S * 3 <= 1024; S++) expected.push(`3/${S}/4/1`);
    expect(got).toEqual(expected.sort());
  });

  it("the choice is the cheapest admissible candidate, ties broken by P, S, V, U", () => {
    for (const name of ["sum", "softmax", "layernorm", "minmax", "rmsnorm", "layernorm_affine"]) {
      const p = plan(caseText(name), { candidates: true });
      const admissible = p.candidates.filter((c: any) => c.admissible);
      const best = [...admissible].sort((a: any, b: any) =>
        a.cost.total - b.cost.total || a.mapping.P - b.mapping.P || a.mapping.S - b.mapping.S || a.mapping.V - b.mapping.V || a.mapping.U - b.mapping.U)[0];
      expect(key(p.mapping), name).toBe(key(best.mapping));
      expect(p.cost.total, name).toBe(best.cost.total);
    }
  });

  it("the lazy search (rules checked in cost order) chooses what checking every candidate chooses", () => {
    const docs = [...loadMatrix(wasm, false).map((e) => [e.text, e.options] as [string, object])];
    for (const name of ["pk_inplace_tail", "pk_repeat_wrapper", "pk_no_noalias", "pk_cross_worker_read", "pk_gather", "pk_threadgroup_memory"]) {
      const text = fs.readFileSync(path.join(ROOT, "test", "fixtures", "legality", name + ".json"), "utf8");
      docs.push([text, {}], [text, { programsPerGroup: 2 }], [text, { threads: 1056 }]);
    }
    for (const [text, options] of docs) {
      const lazy = plan(text, options);
      const full = plan(text, { ...options, candidates: true });
      delete full.candidates;
      expect(lazy).toEqual(full);
    }
  });

  it("a maximum-threads cap bounds the search", () => {
    const p = plan(caseText("softmax"), { maxThreads: 128, candidates: true });
    expect(Math.max(...p.candidates.map((c: any) => c.mapping.T))).toBe(128);
    expect(p.mapping.T).toBeLessThanOrEqual(128);
  });
});

describe("cached input and the private budget", () => {
  // softmax reads X in three stages; with W = 32 and V = 1 a worker's stripe is ceil(C / 32) scalars
  it("a stripe at the budget (64 scalars) is cached; one scalar over is uncached, and says so", () => {
    const at = plan(caseText("softmax"), { programsPerGroup: 1, threads: 32, vector: 1, sizes: { C: 2048 } });
    expect(at.mapping.cached).toBe(true);
    expect(at.mapping.cacheScalars).toBe(64);
    const over = plan(caseText("softmax"), { programsPerGroup: 1, threads: 32, vector: 1, sizes: { C: 2049 } });
    expect(over.mapping.cached).toBe(false);
    expect(over.diagnostics.map((d: any) => d.code)).toContain("TPL004");
    expect(over.diagnostics.find((d: any) => d.code === "TPL004").message).toMatch(/65 scalars/);
  });

  it("--no-cache-input reads uncached; a buffer read once is never cached", () => {
    expect(plan(caseText("softmax"), { cacheInput: false }).mapping.cached).toBe(false);
    expect(plan(caseText("sum")).mapping.cached).toBe(false);
  });

  it("uncached re-reads cost bytes: the uncached plan reads more than the cached one", () => {
    const o = { programsPerGroup: 1, threads: 256, vector: 4 };
    const c = plan(caseText("softmax"), o);
    const u = plan(caseText("softmax"), { ...o, cacheInput: false });
    expect(u.cost.terms.bytesRead).toBeCloseTo(3 * c.cost.terms.bytesRead, 0);
  });
});

describe("rejection reasons", () => {
  it("T not a multiple of 32 P; a vector width the device does not allow", () => {
    expect(plan(caseText("sum"), { programsPerGroup: 2, threads: 96 }).diagnostics[0].message).toMatch(/not a multiple of 32 \* P = 64/);
    expect(plan(caseText("sum"), { vector: 3 }).diagnostics[0].message).toMatch(/vector width/);
  });

  it("a P over the device limit is reported by thread-limit and refused (TPL009), not replaced by P = 1", () => {
    const p = plan(caseText("sum"), { programsPerGroup: 33 });
    expect(p.rejections[0].failed).toContain("thread-limit");
    expect(p.ok).toBe(false);
    expect(p.realization).toBe("");
    expect(p.diagnostics[0].code).toBe("TPL009");
    expect(p.diagnostics[0].message).toMatch(/--programs-per-group 33.*thread-limit fails/);
  });
});

describe("the cost model", () => {
  it("packing does not win through the setup term alone: setup is unchanged when P doubles at fixed W", () => {
    const a = plan(caseText("softmax"), { programsPerGroup: 1, threads: 256, vector: 4, sizes: { R: 1024, C: 4096 } });
    const b = plan(caseText("softmax"), { programsPerGroup: 2, threads: 512, vector: 4, sizes: { R: 1024, C: 4096 } });
    expect(a.mapping.W).toBe(b.mapping.W);
    expect(b.cost.terms.setup).toBeCloseTo(a.cost.terms.setup, 3);
    expect(b.cost.terms.fenceCoupling).toBeGreaterThan(a.cost.terms.fenceCoupling);
  });

  it("replayed tail slots cost reads; a grid that does not fill the GPU costs concurrency", () => {
    const tail = plan(caseText("sum"), { programsPerGroup: 8, threads: 256, sizes: { R: 33 } });
    const full = plan(caseText("sum"), { programsPerGroup: 8, threads: 256, sizes: { R: 40 } });
    // 33 rows in groups of 8 run 40 slots: the same reads as 40 rows
    expect(tail.cost.terms.bytesRead).toBe(full.cost.terms.bytesRead);
    expect(tail.cost.terms.bytesWritten).toBeLessThan(full.cost.terms.bytesWritten);
    const small = plan(caseText("sum"), { sizes: { R: 2 } });
    expect(small.cost.terms.concurrency).toBeGreaterThan(0);
  });
});

describe("the cost model's odd corners (issue 17 item 5)", () => {
  const H200 = JSON.parse(fs.readFileSync(path.join(ROOT, "devices", "nvidia-h200.json"), "utf8"));
  const ln = caseText("layernorm");
  const at = (text: string, options: object): any => {
    const p = plan(text, options);
    expect(p.ok, JSON.stringify(p.diagnostics)).toBe(true);
    return p;
  };

  it("threads that hold no element of a row earn no concurrency: a 32-element row gets the same term at T = 32 and T = 1024", () => {
    for (const device of [undefined, H200]) {
      const sizes = { R: 8, C: 32 }; // every group resident at once on both devices
      const t32 = at(ln, { device, sizes, programsPerGroup: 1, threads: 32, vector: 1 });
      const t1024 = at(ln, { device, sizes, programsPerGroup: 1, threads: 1024, vector: 1 });
      expect(t32.cost.terms.concurrency).toBeGreaterThan(0);
      // 32 workers hold the 32 elements either way: the idle 992 threads of T = 1024 add nothing
      expect(t1024.cost.terms.concurrency).toBeCloseTo(t32.cost.terms.concurrency, 3);
      // V = 4: 8 workers of 32 hold elements, so less work is resident than with V = 1
      const v4 = at(ln, { device, sizes, programsPerGroup: 1, threads: 32, vector: 4 });
      expect(v4.cost.terms.concurrency).toBeGreaterThan(t32.cost.terms.concurrency);
      // replayed tail slots repeat a program: 8 rows in one group of 32 slots are 8 rows of work
      const p32 = at(ln, { device, sizes, programsPerGroup: 32, threads: 1024, vector: 1 });
      // (the term is the memory time times the missing fill; the replays' reads raise the memory time)
      const underfill = (p: any): number => p.cost.terms.concurrency / p.cost.terms.memory;
      expect(p32.cost.terms.memory).toBeGreaterThan(t32.cost.terms.memory);
      expect(Math.abs(underfill(p32) / underfill(t32) - 1)).toBeLessThan(2e-3); // terms are printed to 0.001 ns
      // and the automatic plan no longer takes wide groups of idle threads
      for (const R of [1, 8, 37, 256]) expect(at(ln, { device, sizes: { R, C: 32 } }).mapping.T, `R=${R}`).toBeLessThanOrEqual(64);
    }
  });

  it("a long row keeps every thread busy: more threads per row fill the GPU better", () => {
    const sizes = { R: 37, C: 4096 };
    const t32 = at(ln, { device: H200, sizes, programsPerGroup: 1, threads: 32, vector: 4 });
    const t1024 = at(ln, { device: H200, sizes, programsPerGroup: 1, threads: 1024, vector: 4 });
    expect(t1024.cost.terms.concurrency).toBeLessThan(t32.cost.terms.concurrency);
  });

  it("an extent that varies by program is not taken as one element: every worker counts, as before", () => {
    const tri = JSON.stringify({
      tile: 1, name: "tri", attrs: { noalias: true }, sizes: { R: 8, C: 64 },
      params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R"] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, ["add", ["mul", "r", 8], 1]], value: ["load", "X", ["r", "c"]] },
        { store: "Y", at: ["r"], value: "s" },
      ] }],
    });
    const t32 = at(tri, { programsPerGroup: 1, threads: 32, vector: 1 });
    const t1024 = at(tri, { programsPerGroup: 1, threads: 1024, vector: 1 });
    expect(t1024.cost.terms.concurrency).toBeLessThan(t32.cost.terms.concurrency);
  });

  const bytes = (text: string, R: number, C: number): number =>
    at(text, { sizes: { R, C }, programsPerGroup: 1, threads: 256, vector: 4 }).cost.terms.bytesRead;

  it("a weight vector read by every row is charged once per launch, not once per row", () => {
    for (const [name, vectors] of [["layernorm_affine", 2], ["rmsnorm", 1], ["softmax", 0]] as const) {
      const text = caseText(name);
      const one = bytes(text, 1, 1024);
      const two = bytes(text, 2, 1024);
      const many = bytes(text, 100, 1024);
      // every row adds the same bytes; what is left is the broadcast vectors, once (1024 f32 each)
      expect(many - two, name).toBeCloseTo(98 * (two - one), 3);
      expect(2 * one - two, name).toBeCloseTo(vectors * 1024 * 4, 3);
    }
  });

  it("a vector whose index depends on the row (directly, through a let, or through a loaded value) is charged per row", () => {
    const doc = (gIndex: unknown, lets: unknown[] = [], gShape = ["C"]): string => JSON.stringify({
      tile: 1, name: "t", attrs: { noalias: true }, sizes: { R: 4, C: 1024 },
      params: [
        { name: "X", dtype: "f32", shape: ["R", "C"] },
        { name: "I", dtype: "i32", shape: ["R"] },
        { name: "G", dtype: "f32", shape: gShape },
        { name: "Y", dtype: "f32", shape: ["R", "C"] },
      ],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
        ...lets,
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["load", "X", ["r", "c"]] },
        { for: "c", in: [0, "C"], kind: "parallel", body: [
          { store: "Y", at: ["r", "c"], value: ["mul", ["mul", ["load", "X", ["r", "c"]], "s"], ["load", "G", gIndex]] },
        ] },
      ] }],
    });
    const broadcastOf = (text: string): number => 2 * bytes(text, 1, 1024) - bytes(text, 2, 1024);
    expect(broadcastOf(doc(["c"]))).toBeCloseTo(4096, 3);
    expect(broadcastOf(doc(["r", "c"], [], ["R", "C"]))).toBeCloseTo(0, 3);
    expect(broadcastOf(doc(["k", "c"], [{ let: "k", value: ["sub", ["add", "r", 1], 1] }], ["R", "C"]))).toBeCloseTo(0, 3);
    expect(broadcastOf(doc(["k", "c"], [{ let: "k", value: ["load", "I", ["r"]] }], ["R", "C"]))).toBeCloseTo(0, 3);
  });
});

describe("determinism across engines", () => {
  it("byte-identical plans with candidates for every matrix entry and built-in case", () => {
    const entries = loadMatrix(wasm, false);
    for (const e of entries) {
      const req = JSON.stringify({ command: "plan", document: e.text, options: { ...e.options, candidates: true } });
      expect(js.callText(req), e.id).toBe(wasm.callText(req));
    }
  });
});

describe("the element grid", () => {
  it("is vectorized at every row length: V columns per thread, blocks of 1 x 256 threads", () => {
    const big = plan(caseText("sigmoid_pair"), { sizes: { R: 1024, C: 4096 }, candidates: true });
    expect(big.realization).toBe("fused-elementwise");
    expect(big.candidates.map((c: any) => c.mapping.V).sort()).toEqual([1, 4, 8]);
    expect(big.mapping.groups).toBe(1024 * Math.ceil(4096 / (256 * big.mapping.V)));
    // 1537 columns: every width is a candidate (a row's last vector is ragged)
    const odd = plan(caseText("sigmoid_pair"), { candidates: true });
    expect(odd.candidates.map((c: any) => c.mapping.V).sort()).toEqual([1, 4, 8]);
    expect(odd.mapping.V).toBeGreaterThan(1);
    expect(odd.mapping.groups).toBe(37 * Math.ceil(1537 / (256 * odd.mapping.V)));
  });

  it("an explicit vector width the row length is not a multiple of is honoured: the ragged last vector runs element by element", () => {
    for (const [V, cols] of [[4, 1537], [8, 1537], [8, 1540], [4, 3], [8, 1]]) {
      const p = plan(caseText("add"), { vector: V, sizes: { C: cols } });
      expect(p.ok, `V=${V} C=${cols}`).toBe(true);
      expect(p.mapping.V).toBe(V);
      const e = emit(caseText("add"), { vector: V, sizes: { C: cols } });
      expect(e.audit.ok).toBe(true);
      if (cols % 4 === 0) expect(e.msl).not.toMatch(/ragged last vector/);
      else {
        expect(e.msl).toMatch(/the row's ragged last vector, element by element/);
        expect(e.msl).toContain(`if (col + j >= ${cols}) break;`);
        expect(e.msl).toContain(`if (col <= ${cols - 4}) {`);
      }
    }
  });
});
