// The built-in cases (core/builders) and the FP64 oracle (shell-node/src/oracle.ts):
// hand-computed values, agreement with plain loops, semantics spot checks, input generation.
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildCase, caseNames } from "../core/builders/index";
import { evaluate, OracleError } from "../shell-node/src/oracle";
import { describeInputs, makeInputs, shapeOf, sizesOf } from "../shell-node/src/inputs";
import { writeCases } from "./tools/write-cases";

const CASES_DIR = join(__dirname, "..", "cases");
if (process.env.TILE_WRITE_CASES === "1") writeCases(CASES_DIR);

const EPS = Math.fround(1e-5);
const K0 = Math.fround(Math.sqrt(2 / Math.PI));
const CUBIC = Math.fround(0.044715);

type Buf = Float64Array | Int32Array;

/** A built-in case parsed, with its sizes replaced. */
function caseAt(name: string, R: number, C: number): any {
  const doc = JSON.parse(buildCase(name));
  doc.sizes = { R, C };
  return doc;
}

/** Runs `doc` with the given f32 inputs; every other param starts as NaN. */
function run(doc: any, given: Record<string, number[]>): Map<string, Buf> {
  const inputs = new Map<string, Buf>();
  for (const p of doc.params) {
    const n = shapeOf(doc, p.name).reduce((a, b) => a * b, 1);
    const v = given[p.name];
    if (p.dtype === "i32") inputs.set(p.name, Int32Array.from(v ?? new Array(n).fill(0)));
    else inputs.set(p.name, v ? Float64Array.from(v) : new Float64Array(n).fill(NaN));
  }
  return evaluate(doc, inputs).buffers;
}

function expectClose(got: ArrayLike<number>, want: ArrayLike<number>, rel = 1e-12): void {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    const d = Math.abs(got[i] - want[i]);
    if (!(d <= rel * Math.abs(want[i]) + 1e-15)) {
      throw new Error("element " + i + ": got " + got[i] + ", want " + want[i]);
    }
  }
}

// ---- the builders ---------------------------------------------------------------------------

/** Buffers read (loaded) and written (stored) by a document, sorted. */
function accesses(doc: any): { reads: string[]; writes: string[] } {
  const reads = new Set<string>(), writes = new Set<string>();
  const walk = (n: any): void => {
    if (Array.isArray(n)) {
      if (n[0] === "load") reads.add(n[1]);
      n.forEach(walk);
    } else if (n && typeof n === "object") {
      if (typeof n.store === "string") writes.add(n.store);
      Object.values(n).forEach(walk);
    }
  };
  walk(doc.body);
  return { reads: [...reads].sort(), writes: [...writes].sort() };
}

const EXPECTED_ACCESSES: Record<string, [string[], string[]]> = {
  add: [["A", "B"], ["Z"]],
  gelu_add: [["A", "B"], ["G"]],
  gelu_exact_pair: [["X"], ["D", "G"]],
  gelu_pair: [["X"], ["D", "G"]],
  layernorm: [["X"], ["Y"]],
  layernorm_affine: [["B", "G", "X"], ["Y"]],
  layernorm_bf16: [["X"], ["Y"]],
  layernorm_f16: [["X"], ["Y"]],
  minmax: [["X"], ["MN", "MX"]],
  rmsnorm: [["G", "X"], ["Y"]],
  rmsnorm_bf16: [["G", "X"], ["Y"]],
  rmsnorm_f16: [["G", "X"], ["Y"]],
  sigmoid_pair: [["X"], ["D", "S"]],
  softmax: [["X"], ["Y"]],
  softmax_bf16: [["X"], ["Y"]],
  softmax_f16: [["X"], ["Y"]],
  sum: [["X"], ["Y"]],
};

describe("builders", () => {
  it("lists the cases sorted, and builds nothing for an unknown name", () => {
    const names = caseNames();
    expect(names).toEqual(Object.keys(EXPECTED_ACCESSES));
    expect([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(names);
    expect(buildCase("nope")).toBe("");
    expect(buildCase("")).toBe("");
  });

  it("builds valid version-1 documents at the default sizes with the documented buffers", () => {
    for (const name of caseNames()) {
      const doc = JSON.parse(buildCase(name));
      expect(doc.tile).toBe(1);
      expect(doc.name).toBe(name);
      expect(doc.attrs).toEqual({ noalias: true });
      expect(doc.sizes).toEqual({ R: 37, C: 1537 });
      const { reads, writes } = accesses(doc);
      expect([reads, writes]).toEqual(EXPECTED_ACCESSES[name]);
      expect(doc.params.map((p: any) => p.name).sort()).toEqual([...new Set([...reads, ...writes])].sort());
      // 16-bit variants (softmax_f16, rmsnorm_bf16, ...) declare every buffer in their dtype
      const dt = name.endsWith("_bf16") ? "bf16" : name.endsWith("_f16") ? "f16" : "f32";
      for (const p of doc.params) expect(p.dtype).toBe(dt);
    }
  });

  // The reference is in the repository (docs/tile-ir.md), so this runs in every clone.
  const specPath = join(__dirname, "..", "docs", "tile-ir.md");
  it("builds softmax exactly as the example of docs/tile-ir.md", () => {
    expect(existsSync(specPath)).toBe(true);
    const m = /```json\n([\s\S]*?)```/.exec(readFileSync(specPath, "utf8"));
    expect(m).not.toBeNull();
    expect(JSON.parse(buildCase("softmax"))).toEqual(JSON.parse(m![1]));
  });

  // cases/*.json hold the builders' documents in canonical form: checked in test/plan.test.ts.

  it("shapes follow the sizes", () => {
    const doc = caseAt("layernorm_affine", 3, 5);
    expect(sizesOf(doc)).toEqual({ R: 3, C: 5 });
    expect(shapeOf(doc, "X")).toEqual([3, 5]);
    expect(shapeOf(doc, "G")).toEqual([5]);
  });
});

// ---- hand-computed values -------------------------------------------------------------------

describe("oracle on every case, by hand", () => {
  it("sum", () => {
    const out = run(caseAt("sum", 2, 3), { X: [1, 2, 3, 4, 5, -16] });
    expect([...out.get("Y")!]).toEqual([6, -7]);
  });

  it("minmax", () => {
    const out = run(caseAt("minmax", 2, 3), { X: [3, -1, 2, 0, 5, -4] });
    expect([...out.get("MN")!]).toEqual([-1, -4]);
    expect([...out.get("MX")!]).toEqual([3, 5]);
  });

  it("softmax", () => {
    // rows [0, ln 3, ln 4] -> [1, 3, 4] / 8; [7, 7, 7] -> 1/3 each
    const out = run(caseAt("softmax", 2, 3), { X: [0, Math.log(3), Math.log(4), 7, 7, 7] });
    expectClose(out.get("Y")!, [0.125, 0.375, 0.5, 1 / 3, 1 / 3, 1 / 3], 1e-14);
  });

  it("layernorm", () => {
    // [1, 3]: mean 2, var 1;  [-2, 6]: mean 2, var 16
    const out = run(caseAt("layernorm", 2, 2), { X: [1, 3, -2, 6] });
    const a = 1 / Math.sqrt(1 + EPS), b = 4 / Math.sqrt(16 + EPS);
    expectClose(out.get("Y")!, [-a, a, -b, b], 1e-14);
    expect(a).toBeCloseTo(0.999995, 6);
  });

  it("layernorm_affine", () => {
    const out = run(caseAt("layernorm_affine", 1, 2), { X: [1, 3], G: [2, 0.5], B: [10, -1] });
    const a = 1 / Math.sqrt(1 + EPS);
    expectClose(out.get("Y")!, [10 - 2 * a, -1 + 0.5 * a], 1e-14);
  });

  it("rmsnorm", () => {
    // [3, 4]: mean square 12.5
    const out = run(caseAt("rmsnorm", 1, 2), { X: [3, 4], G: [2, -1] });
    const inv = 1 / Math.sqrt(12.5 + EPS);
    expectClose(out.get("Y")!, [6 * inv, -4 * inv], 1e-14);
  });

  it("sigmoid_pair", () => {
    const out = run(caseAt("sigmoid_pair", 1, 3), { X: [0, Math.log(3), -Math.log(3)] });
    expectClose(out.get("S")!, [0.5, 0.75, 0.25], 1e-14);
    expectClose(out.get("D")!, [0.25, 0.1875, 0.1875], 1e-14);
  });

  it("gelu_pair", () => {
    // x = 0: G 0, D 1/2; x = 10: tanh(43.6) is 1 in double, G 10, D 1; x = -10: G 0, D 0
    const out = run(caseAt("gelu_pair", 1, 3), { X: [0, 10, -10] });
    expectClose(out.get("G")!, [0, 10, 0], 1e-14);
    expectClose(out.get("D")!, [0.5, 1, 0], 1e-14);
    // x = 1: u = k0 (1 + c), G = (1 + tanh u) / 2 with the f32-rounded k0 and c; ~0.8411920
    const one = run(caseAt("gelu_pair", 1, 1), { X: [1] });
    expect(one.get("G")![0]).toBe(0.5 * 1 * (1 + Math.tanh(K0 * (1 + CUBIC * (1 * (1 * 1))))));
    expect(one.get("G")![0]).toBeCloseTo(0.841192, 6);
    // D is the derivative of G: compare with a central difference of the oracle's own G
    const h = 1e-5, xs = [-1.7, -0.3, 0.4, 1.9];
    const lo = run(caseAt("gelu_pair", 1, 4), { X: xs.map((x) => x - h) }).get("G")!;
    const hi = run(caseAt("gelu_pair", 1, 4), { X: xs.map((x) => x + h) }).get("G")!;
    const mid = run(caseAt("gelu_pair", 1, 4), { X: xs }).get("D")!;
    for (let i = 0; i < xs.length; i++) expect(Math.abs((hi[i] - lo[i]) / (2 * h) - mid[i])).toBeLessThan(1e-9);
  });

  it("add", () => {
    const out = run(caseAt("add", 2, 2), { A: [1, 2, 3, 4], B: [0.5, -2, 10, -8] });
    expect([...out.get("Z")!]).toEqual([1.5, 0, 13, -4]);
  });

  it("gelu_add", () => {
    const out = run(caseAt("gelu_add", 1, 3), { A: [1, 4, -6], B: [-1, 6, -4] });
    expectClose(out.get("G")!, [0, 10, 0], 1e-14);
  });
});

// ---- FP64 agreement with plain loops --------------------------------------------------------

function gelu(x: number): number {
  const t = Math.tanh(K0 * (x + CUBIC * x * x * x));
  return 0.5 * x * (1 + t);
}

/** erf from its Maclaurin series, 2/sqrt(pi) sum (-1)^n x^(2n+1) / (n! (2n+1)); for |x| <= 2. */
function erfSeries(x: number): number {
  let term = x;
  let sum = x;
  for (let n = 1; n < 80; n++) {
    term *= (-x * x) / n;
    sum += term / (2 * n + 1);
  }
  return (2 / Math.sqrt(Math.PI)) * sum;
}

function geluDerivative(x: number): number {
  const t = Math.tanh(K0 * (x + CUBIC * x * x * x));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * K0 * (1 + 3 * CUBIC * x * x);
}

/** Plain-loop references: inputs by name to expected outputs by name. */
const REFERENCE: Record<string, (R: number, C: number, i: Map<string, Buf>) => Record<string, number[]>> = {
  sum(R, C, i) {
    const X = i.get("X")!, Y: number[] = [];
    for (let r = 0; r < R; r++) {
      let s = 0;
      for (let c = 0; c < C; c++) s += X[r * C + c];
      Y.push(s);
    }
    return { Y };
  },
  minmax(R, C, i) {
    const X = i.get("X")!, MN: number[] = [], MX: number[] = [];
    for (let r = 0; r < R; r++) {
      const row = Array.from(X.subarray(r * C, r * C + C));
      MN.push(Math.min(...row));
      MX.push(Math.max(...row));
    }
    return { MN, MX };
  },
  softmax(R, C, i) {
    const X = i.get("X")!, Y: number[] = [];
    for (let r = 0; r < R; r++) {
      let m = -Infinity, s = 0;
      for (let c = 0; c < C; c++) m = Math.max(m, X[r * C + c]);
      for (let c = 0; c < C; c++) s += Math.exp(X[r * C + c] - m);
      for (let c = 0; c < C; c++) Y.push(Math.exp(X[r * C + c] - m) / s);
    }
    return { Y };
  },
  layernorm(R, C, i) {
    return { Y: norm(R, C, i.get("X")!, null, null) };
  },
  layernorm_affine(R, C, i) {
    return { Y: norm(R, C, i.get("X")!, i.get("G")!, i.get("B")!) };
  },
  rmsnorm(R, C, i) {
    const X = i.get("X")!, G = i.get("G")!, Y: number[] = [];
    for (let r = 0; r < R; r++) {
      let ss = 0;
      for (let c = 0; c < C; c++) ss += X[r * C + c] ** 2;
      const inv = 1 / Math.sqrt(ss / C + EPS);
      for (let c = 0; c < C; c++) Y.push(X[r * C + c] * inv * G[c]);
    }
    return { Y };
  },
  sigmoid_pair(R, C, i) {
    const S = Array.from(i.get("X")!, (x) => 1 / (1 + Math.exp(-x)));
    return { S, D: S.map((s) => s * (1 - s)) };
  },
  gelu_exact_pair(R, C, i) {
    // G = x Phi(x), D = Phi(x) + x phi(x), with erf from its Taylor series (|x| <= 2 here)
    const X = Array.from(i.get("X")!);
    const phi = (x: number): number => 0.5 * (1 + erfSeries(x * Math.fround(Math.SQRT1_2)));
    const density = (x: number): number => Math.fround(1 / Math.sqrt(2 * Math.PI)) * Math.exp(-0.5 * x * x);
    return { G: X.map((x) => x * phi(x)), D: X.map((x) => phi(x) + x * density(x)) };
  },
  gelu_pair(R, C, i) {
    const X = Array.from(i.get("X")!);
    return { G: X.map(gelu), D: X.map(geluDerivative) };
  },
  add(R, C, i) {
    const A = i.get("A")!, B = i.get("B")!;
    return { Z: Array.from(A, (a, k) => a + B[k]) };
  },
  gelu_add(R, C, i) {
    const A = i.get("A")!, B = i.get("B")!;
    return { G: Array.from(A, (a, k) => gelu(a + B[k])) };
  },
};

function norm(R: number, C: number, X: Buf, G: Buf | null, B: Buf | null): number[] {
  const Y: number[] = [];
  for (let r = 0; r < R; r++) {
    let s = 0;
    for (let c = 0; c < C; c++) s += X[r * C + c];
    const mean = s / C;
    let q = 0;
    for (let c = 0; c < C; c++) q += (X[r * C + c] - mean) ** 2;
    const inv = 1 / Math.sqrt(q / C + EPS);
    for (let c = 0; c < C; c++) {
      const y = (X[r * C + c] - mean) * inv;
      Y.push(G && B ? y * G[c] + B[c] : y);
    }
  }
  return Y;
}

describe("oracle against plain loops, FP64", () => {
  for (const name of Object.keys(REFERENCE)) {
    for (const [R, C] of [[5, 33], [3, 1537], [1, 1]]) {
      it(name + " at " + R + "x" + C, () => {
        const doc = caseAt(name, R, C);
        const inputs = makeInputs(doc, 1234 + R);
        const result = evaluate(doc, inputs);
        const want = REFERENCE[name](R, C, inputs);
        const outputs = Object.keys(want);
        expect(outputs.length).toBeGreaterThan(0);
        for (const out of outputs) {
          expectClose(result.buffers.get(out)!, want[out]);
          expect(result.written.get(out)!.every((w) => w === 1)).toBe(true);
        }
        // inputs are read, never written, and come back unchanged
        for (const p of doc.params) {
          if (outputs.includes(p.name)) continue;
          expect(result.written.get(p.name)!.every((w) => w === 0)).toBe(true);
          expect(result.buffers.get(p.name)).toEqual(inputs.get(p.name));
        }
      });
    }
  }

  // A correctness check at full size (no wall-clock assertion: tests never time).
  it("evaluates a 1024x4096 element case", () => {
    const doc = caseAt("gelu_pair", 1024, 4096);
    const inputs = makeInputs(doc, 7);
    const result = evaluate(doc, inputs);
    const X = inputs.get("X")!, G = result.buffers.get("G")!;
    for (const k of [0, 12345, 4194303]) expect(G[k]).toBeCloseTo(gelu(X[k]), 12);
  });
});

// ---- semantics spot checks ------------------------------------------------------------------

function doc1(sizes: Record<string, number>, params: any[], body: any[]): any {
  return { tile: 1, name: "t", sizes, params, body };
}

describe("oracle semantics", () => {
  it("i32 div truncates toward zero, mod is floor modulo, add and mul wrap", () => {
    const doc = doc1({ N: 6 }, [
      { name: "A", dtype: "i32", shape: ["N"] }, { name: "B", dtype: "i32", shape: ["N"] },
      { name: "Q", dtype: "i32", shape: ["N"] }, { name: "M", dtype: "i32", shape: ["N"] },
      { name: "S", dtype: "i32", shape: ["N"] }, { name: "P", dtype: "i32", shape: ["N"] },
    ], [{ for: "i", in: [0, "N"], kind: "parallel", body: [
      { let: "a", value: ["load", "A", ["i"]] }, { let: "b", value: ["load", "B", ["i"]] },
      { store: "Q", at: ["i"], value: ["div", "a", "b"] },
      { store: "M", at: ["i"], value: ["mod", "a", "b"] },
      { store: "S", at: ["i"], value: ["add", "a", "b"] },
      { store: "P", at: ["i"], value: ["mul", "a", "b"] } ] }]);
    const out = run(doc, { A: [7, -7, 7, -7, 2147483647, 65536], B: [2, 2, -2, -2, 1, 65536] });
    expect([...out.get("Q")!]).toEqual([3, -3, -3, 3, 2147483647, 1]);
    expect([...out.get("M")!]).toEqual([1, 1, -1, -1, 0, 0]);
    expect([...out.get("S")!]).toEqual([9, -5, 5, -9, -2147483648, 131072]);
    expect([...out.get("P")!]).toEqual([14, -14, -14, 14, 2147483647, 0]);
    // the corner cases never throw (docs/tile-ir.md): x div 0 = 0, x mod 0 = 0,
    // INT_MIN div -1 = INT_MIN, INT_MIN mod -1 = 0, abs/neg of INT_MIN = INT_MIN
    const corner = run(doc, { A: [5, -5, -2147483648, -2147483648, 0, -2147483648], B: [0, 0, -1, 0, 0, 1] });
    expect([...corner.get("Q")!]).toEqual([0, 0, -2147483648, 0, 0, -2147483648]);
    expect([...corner.get("M")!]).toEqual([0, 0, 0, 0, 0, 0]);
    expect(Object.is(corner.get("M")![2], 0)).toBe(true);
    expect([...corner.get("S")!]).toEqual([5, -5, 2147483647, -2147483648, 0, -2147483647]);
    expect([...corner.get("P")!]).toEqual([0, 0, -2147483648, 0, 0, -2147483648]);
  });

  it("select, cast and comparisons", () => {
    const doc = doc1({ N: 4 }, [
      { name: "X", dtype: "f32", shape: ["N"] }, { name: "Y", dtype: "f32", shape: ["N"] },
      { name: "I", dtype: "i32", shape: ["N"] }, { name: "F", dtype: "f32", shape: ["N"] },
    ], [{ for: "i", in: [0, "N"], kind: "parallel", body: [
      { let: "x", value: ["load", "X", ["i"]] },
      { store: "Y", at: ["i"], value: ["select", ["and", ["lt", "x", ["f32", 0]], ["ne", "i", 3]], ["neg", "x"], "x"] },
      { store: "I", at: ["i"], value: ["cast", "i32", "x"] },
      { store: "F", at: ["i"], value: ["mul", ["cast", "f32", ["sub", "i", 2]], ["f32", 0.1]] } ] }]);
    const out = run(doc, { X: [-1.5, 2.75, -0.5, -3.25] });
    expect([...out.get("Y")!]).toEqual([1.5, 2.75, 0.5, -3.25]);
    expect([...out.get("I")!]).toEqual([-1, 2, 0, -3]);
    const tenth = Math.fround(0.1); // an f32 literal is rounded to f32, then exact
    expect([...out.get("F")!]).toEqual([-2 * tenth, -tenth, 0, tenth]);
  });

  it("serial loop with step 2 and an expression min, nested in a parallel loop", () => {
    const doc = doc1({ R: 2, C: 8 }, [{ name: "Y", dtype: "f32", shape: ["R", "C"] }],
      [{ for: "r", in: [0, "R"], kind: "parallel", body: [
        { for: "j", in: [["add", "r", 1], 3], kind: "serial", step: 2, body: [
          { store: "Y", at: ["r", "j"], value: ["cast", "f32", ["add", ["mul", "r", 10], "j"]] } ] } ] }]);
    const result = evaluate(doc, new Map([["Y", new Float64Array(16)]]));
    expect([...result.written.get("Y")!]).toEqual([0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0]);
    expect([...result.buffers.get("Y")!]).toEqual([0, 1, 0, 3, 0, 5, 0, 0, 0, 0, 12, 0, 14, 0, 16, 0]);
  });

  it("reductions over an empty range give their identities; ranges may depend on loop variables", () => {
    const doc = doc1({ N: 4 }, [
      { name: "X", dtype: "f32", shape: ["N"] }, { name: "E", dtype: "f32", shape: [3] },
      { name: "P", dtype: "f32", shape: ["N"] }, { name: "K", dtype: "i32", shape: [2] },
    ], [{ for: "i", in: [0, 1], kind: "parallel", body: [
      { reduce: "mx", combiner: "max", over: ["c", 0, ["sub", "N", "N"]], value: ["load", "X", ["c"]] },
      { reduce: "mn", combiner: "min", over: ["c", 0, ["sub", "N", "N"]], value: ["load", "X", ["c"]] },
      { reduce: "sm", combiner: "sum", over: ["c", 2, ["sub", "N", "N"]], value: ["load", "X", ["c"]] },
      { store: "E", at: [0], value: "mx" }, { store: "E", at: [1], value: "mn" }, { store: "E", at: [2], value: "sm" },
      { reduce: "kmax", combiner: "max", over: ["c", 0, 0], value: "c" },
      { reduce: "ksum", combiner: "sum", over: ["c", 1, 4], value: ["mul", "c", "c"] },
      { store: "K", at: [0], value: "kmax" }, { store: "K", at: [1], value: "ksum" },
      { for: "r", in: [0, "N"], kind: "parallel", body: [
        { reduce: "pre", combiner: "sum", over: ["c", 0, ["add", "r", 1]], value: ["load", "X", ["c"]] },
        { store: "P", at: ["r"], value: "pre" } ] } ] }]);
    const out = run(doc, { X: [1, 10, 100, 1000] });
    expect([...out.get("E")!]).toEqual([-Infinity, Infinity, 0]);
    expect([...out.get("K")!]).toEqual([-2147483648, 1 + 4 + 9 + 16]);
    expect([...out.get("P")!]).toEqual([1, 11, 111, 1111]);
  });

  it("if with and without else", () => {
    const doc = doc1({ N: 5 }, [{ name: "Y", dtype: "f32", shape: ["N"] }, { name: "Z", dtype: "f32", shape: ["N"] }],
      [{ for: "i", in: [0, "N"], kind: "parallel", body: [
        { if: ["lt", "i", 2], then: [{ store: "Y", at: ["i"], value: ["f32", 1] }],
          else: [{ let: "h", value: ["f32", 2] }, { store: "Y", at: ["i"], value: "h" }] },
        { if: ["eq", ["mod", "i", 2], 0], then: [{ store: "Z", at: ["i"], value: ["f32", 7] }] } ] }]);
    const result = evaluate(doc, new Map([["Y", new Float64Array(5)], ["Z", new Float64Array(5).fill(-1)]]));
    expect([...result.buffers.get("Y")!]).toEqual([1, 1, 2, 2, 2]);
    expect([...result.buffers.get("Z")!]).toEqual([7, -1, 7, -1, 7]);
    expect([...result.written.get("Z")!]).toEqual([1, 0, 1, 0, 1]);
  });

  it("a store is seen by later loads; float division and rsqrt in double", () => {
    const doc = doc1({ N: 2 }, [{ name: "Y", dtype: "f32", shape: ["N"] }], [
      { for: "i", in: [0, 1], kind: "parallel", body: [
        { store: "Y", at: [0], value: ["div", ["f32", 1], ["f32", 3]] },
        { store: "Y", at: [1], value: ["rsqrt", ["load", "Y", [0]]] } ] }]);
    const out = run(doc, { Y: [0, 0] });
    expect(out.get("Y")![0]).toBe(1 / 3);
    expect(out.get("Y")![1]).toBe(1 / Math.sqrt(1 / 3));
  });

  it("throws clear errors for out-of-bounds accesses and invalid documents", () => {
    const oob = doc1({ N: 4 }, [{ name: "X", dtype: "f32", shape: ["N"] }, { name: "Y", dtype: "f32", shape: ["N"] }],
      [{ for: "i", in: [0, "N"], kind: "parallel", body: [
        { store: "Y", at: ["i"], value: ["load", "X", [["add", "i", 1]]] } ] }]);
    expect(() => run(oob, { X: [1, 2, 3, 4] })).toThrow("/body/0/body/0/value/2/0: load X: index 0 is 4, outside [0, 4)");
    const bad = (body: any[]): (() => unknown) => () => run(doc1({ N: 2 }, [{ name: "Y", dtype: "f32", shape: ["N"] }],
      [{ for: "i", in: [0, "N"], kind: "parallel", body }]), { Y: [0, 0] });
    expect(bad([{ store: "Y", at: ["i"], value: "nope" }])).toThrow(/unknown name nope/);
    expect(bad([{ store: "Y", at: ["i"], value: 1 }])).toThrow(/stores a i32 value into f32 buffer Y/);
    expect(bad([{ store: "Y", at: ["i"], value: ["add", ["f32", 1], 1] }])).toThrow(/mixes f32 and i32/);
    expect(bad([{ store: "Y", at: ["i", 0], value: ["f32", 1] }])).toThrow(/has 1 dimensions, indexed with 2/);
    expect(bad([{ let: "i", value: 1 }])).toThrow(/shadows/);
    expect(bad([{ let: "N", value: 1 }])).toThrow(/shadows/);
    expect(bad([{ if: ["lt", "i", 1], then: [{ let: "a", value: 1 }] }, { let: "a", value: 2 }])).toThrow(/bound twice/);
    expect(bad([{ for: "j", in: [0, 2], kind: "parallel", step: 2, body: [] }])).toThrow(/step 1/);
    expect(bad([{ store: "Y", at: ["i"], value: ["exp", 1] }])).toThrow(/f32 only/);
    expect(bad([{ store: "Y", at: ["i"], value: ["mod", ["f32", 1], ["f32", 1]] }])).toThrow(/i32 only/);
    expect(bad([{ store: "Y", at: ["i"], value: ["frob", 1] }])).toThrow(OracleError);
    expect(() => evaluate({ ...doc1({ N: 2 }, [], []), tile: 2 }, new Map())).toThrow(/version/);
    expect(() => evaluate(doc1({ N: 2 }, [{ name: "Y", dtype: "f32", shape: ["N"] }], []), new Map())).toThrow(/no input/);
  });
});

// ---- inputs ---------------------------------------------------------------------------------

describe("makeInputs", () => {
  it("is deterministic, seed-dependent, f32-exact and within [-2, 2)", () => {
    const doc = caseAt("layernorm_affine", 7, 129);
    const a = makeInputs(doc, 42), b = makeInputs(doc, 42), c = makeInputs(doc, 43);
    for (const name of ["X", "G", "B", "Y"]) {
      const x = a.get(name)!;
      expect(Buffer.from(x.buffer).equals(Buffer.from(b.get(name)!.buffer))).toBe(true);
      expect(Buffer.from(x.buffer).equals(Buffer.from(c.get(name)!.buffer))).toBe(false);
      for (const v of x) {
        expect(v).toBe(Math.fround(v));
        expect(v >= -2 && v < 2).toBe(true);
      }
    }
    expect(a.get("X")!.length).toBe(7 * 129);
    expect(a.get("G")!.length).toBe(129);
    const X = a.get("X")!;
    const mean = Array.from(X).reduce((s, v) => s + v, 0) / X.length;
    expect(Math.abs(mean)).toBeLessThan(0.15);
    expect(Math.min(...X)).toBeLessThan(-1.9);
    expect(Math.max(...X)).toBeGreaterThan(1.9);
  });

  it("draws a length compared with a loop variable on [0, extent], every length from none to all; an index use stays first", () => {
    // masked mean: s = sum over c of select(c < len, X[r, c], 0), len = L[r]; M is compared with c
    // and also indexes X's rows, so its index bound (R = 4) wins
    const doc = doc1({ R: 4, C: 777 }, [
      { name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "L", dtype: "i32", shape: [400] },
      { name: "M", dtype: "i32", shape: [400] }, { name: "Y", dtype: "f32", shape: ["R"] },
    ], [{ for: "r", in: [0, "R"], kind: "parallel", body: [
      { let: "len", value: ["load", "L", ["r"]] },
      { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["select", ["lt", "c", "len"], ["load", "X", [["load", "M", ["r"]], "c"]], ["select", ["ge", ["load", "M", ["r"]], "c"], ["f32", 1], ["f32", 0]]] },
      { store: "Y", at: ["r"], value: "s" }] }]);
    const inputs = makeInputs(doc, 5);
    const l = Array.from(inputs.get("L")!), m = Array.from(inputs.get("M")!);
    expect(Math.min(...l)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...l)).toBeLessThanOrEqual(777);
    expect(Math.max(...l)).toBeGreaterThan(700);
    expect(Math.max(...m)).toBeLessThan(4);
    expect(describeInputs(5)).toContain("compared with a loop variable: [0, its extent]");
  });

  it("fills index buffers with in-range indices, so gathers stay in bounds", () => {
    const doc = doc1({ R: 6, C: 40, N: 5 }, [
      { name: "X", dtype: "f32", shape: ["N", "C"] }, { name: "IDX", dtype: "i32", shape: ["R"] },
      { name: "J", dtype: "i32", shape: ["C"] }, { name: "K", dtype: "i32", shape: [3] },
      { name: "T", dtype: "i32", shape: ["R"] }, { name: "Y", dtype: "f32", shape: ["R", "C"] },
    ], [{ for: "r", in: [0, "R"], kind: "parallel", body: [
      { for: "c", in: [0, "C"], kind: "parallel", body: [
        // IDX indexes X's rows (5) and, nested, Y's rows (6): bound 5. J indexes X's columns: 40
        // and the target of a store's index: Y's columns (40). K, used only in a value: [0, 8).
        // T's load sits in a sub-expression of an index of Y rows (6) and of X rows (5).
        { store: "Y", at: [["load", "IDX", ["r"]], ["load", "J", ["c"]]],
          value: ["add", ["load", "X", [["min", ["load", "T", ["r"]], ["load", "IDX", ["r"]]], "c"]],
            ["cast", "f32", ["load", "K", [0]]]] } ] } ] }]);
    const inputs = makeInputs(doc, 9);
    const range = (name: string): [number, number] => {
      const v = Array.from(inputs.get(name)!);
      return [Math.min(...v), Math.max(...v)];
    };
    expect(inputs.get("IDX")).toBeInstanceOf(Int32Array);
    expect(range("IDX")[0]).toBeGreaterThanOrEqual(0);
    expect(range("IDX")[1]).toBeLessThan(5);
    expect(range("J")[1]).toBeLessThan(40);
    expect(range("J")[1]).toBeGreaterThan(30);
    expect(range("T")[1]).toBeLessThan(5);
    expect(range("K")[1]).toBeLessThan(8);
    // IDX reaches its top value somewhere in a larger draw
    const big = makeInputs({ ...doc, sizes: { R: 200, C: 40, N: 5 } }, 9);
    expect(Math.max(...big.get("IDX")!)).toBe(4);
    const result = evaluate(doc, inputs);
    expect(result.written.get("Y")!.some((w) => w === 1)).toBe(true);
  });
});
