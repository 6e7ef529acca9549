// Static bounds through loops whose extent or min depends on enclosing variables (triangular and
// banded loops, core/ir/check.ts deepBounds): TIR023 only where an iteration that runs reads or
// writes out of bounds (the oracle, evaluating every iteration, then fails on that access), and,
// where every loop runs at least once for every value of the variables outside it, every access
// the oracle finds out of bounds is TIR023. Random nests (fast-check), both engines.
import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { loadEngine, type Engine } from "../shell-node/src/engine";
import { OracleError, evaluate } from "../shell-node/src/oracle";
import { makeInputs } from "../shell-node/src/inputs";

let js: Engine;
let wasm: Engine;
beforeAll(async () => {
  js = await loadEngine("js");
  wasm = await loadEngine("wasm");
});

type Lin = [number, number, number]; // c + k1 * r + k2 * a (the variables outside the loop)
const lin = (l: Lin, outer: string[]): any => {
  let e: any = l[0];
  const terms: any[] = [];
  outer.forEach((v, i) => { if (l[i + 1] !== 0) terms.push(l[i + 1] === 1 ? v : ["mul", l[i + 1], v]); });
  for (const t of terms) e = e === 0 ? t : ["add", e, t];
  return e;
};
const val = (l: Lin, r: number, a: number) => l[0] + l[1] * r + l[2] * a;

interface Nest { R: number; N: number; minA: Lin; extA: Lin; minB: Lin; extB: Lin; idx: [number, number, number, number]; stepA: number }

function docOf(n: Nest): any {
  const [c0, kr, ka, kb] = n.idx;
  let idx: any = c0;
  for (const [k, v] of [[kr, "r"], [ka, "a"], [kb, "b"]] as const) if (k !== 0) idx = ["add", idx, k === 1 ? v : ["mul", k, v]];
  return {
    tile: 1, name: "nest", sizes: { R: n.R, N: n.N },
    params: [{ name: "X", dtype: "f32", shape: ["N"] }, { name: "Y", dtype: "f32", shape: ["R"] }],
    body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
      { for: "a", in: [lin(n.minA, ["r"]), lin(n.extA, ["r"])], kind: "serial", step: n.stepA, body: [
        { reduce: "s", combiner: "sum", over: ["b", lin(n.minB, ["r", "a"]), lin(n.extB, ["r", "a"])], value: ["load", "X", [idx]] },
        { store: "Y", at: ["r"], value: "s" }] }] }],
  };
}

/** Whether every loop runs at least once for every value of the variables outside it. */
function allRun(n: Nest): boolean {
  for (let r = 0; r < n.R; r++) {
    const ea = val(n.extA, r, 0);
    if (ea < 1) return false;
    const a0 = val(n.minA, r, 0);
    for (let t = 0; t < ea; t++) if (val(n.extB, r, a0 + t * n.stepA) < 1) return false;
  }
  return true;
}

const small = fc.integer({ min: -2, max: 2 });
const nest = fc.record({
  R: fc.integer({ min: 1, max: 6 }),
  N: fc.integer({ min: 4, max: 24 }),
  minA: fc.tuple(fc.integer({ min: -1, max: 3 }), small, fc.constant(0)),
  extA: fc.tuple(fc.integer({ min: 0, max: 4 }), small, fc.constant(0)),
  minB: fc.tuple(fc.integer({ min: -1, max: 3 }), small, small),
  extB: fc.tuple(fc.integer({ min: 0, max: 4 }), small, small),
  idx: fc.tuple(fc.integer({ min: -2, max: 8 }), small, small, fc.integer({ min: -1, max: 2 })),
  stepA: fc.integer({ min: 1, max: 3 }),
}) as fc.Arbitrary<Nest>;

function verdicts(engine: Engine, doc: any): string[] {
  const r = engine.call({ command: "validate", document: JSON.stringify(doc) });
  return (r.diagnostics ?? []).filter((d: any) => d.severity === "error").map((d: any) => d.code);
}

function oracleOutOfBounds(doc: any): boolean {
  try {
    evaluate(doc, makeInputs(doc, 1));
    return false;
  } catch (e) {
    if (e instanceof OracleError && /outside \[/.test(e.message)) return true;
    throw e;
  }
}

describe("bounds through loops whose extent depends on enclosing variables", () => {
  it("TIR023 only where the oracle meets the out-of-bounds access; every one it meets where all loops run", () => {
    let decided = 0, errors = 0;
    fc.assert(fc.property(nest, (n) => {
      const doc = docOf(n);
      const codes = verdicts(js, doc);
      expect(verdicts(wasm, doc)).toEqual(codes);
      if (codes.some((c) => c !== "TIR023")) return;
      const oob = oracleOutOfBounds(doc);
      if (codes.includes("TIR023")) {
        errors++;
        expect(oob, JSON.stringify(doc)).toBe(true);
      }
      if (allRun(n)) {
        decided++;
        expect(codes.includes("TIR023"), JSON.stringify(doc)).toBe(oob);
      }
    }), { numRuns: 600, seed: 20261202 });
    // not vacuous: both verdicts occur among the nests whose loops all run
    expect(decided).toBeGreaterThan(50);
    expect(errors).toBeGreaterThan(20);
  });

  it("a triangular reduction one element too long is TIR023 with the range it reaches; the right length is accepted", () => {
    const tri = (extra: number) => ({
      tile: 1, name: "tri", sizes: { R: 8, C: 8 },
      params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R"] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, ["add", "r", 1 + extra]], value: ["load", "X", ["r", "c"]] },
        { store: "Y", at: ["r"], value: "s" }] }],
    });
    for (const e of [js, wasm]) {
      expect(verdicts(e, tri(0))).toEqual([]);
      const r = e.call({ command: "validate", document: JSON.stringify(tri(1)) });
      const d = r.diagnostics.filter((x: any) => x.code === "TIR023");
      expect(d.length).toBe(1);
      expect(d[0].message).toContain("ranges over [0, 8]");
      expect(d[0].pointer).toBe("/body/0/body/0/value/2/1");
    }
  });
});
