// The estimate of f32's rounding error (shell-node/src/bounds.ts): it covers what f32 arithmetic
// gives in the orders a kernel uses, it is not vacuous beside the tolerance, and it gives no
// estimate where the errors can change a decision.
import { describe, expect, it } from "vitest";
import { roundingBounds } from "../shell-node/src/bounds";
import { evaluate } from "../shell-node/src/oracle";
import { makeInputs } from "../shell-node/src/inputs";

const rowSum = (R: number, C: number) => ({
  tile: 1, name: "s", sizes: { R, C },
  params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R"] }],
  body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
    { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["load", "X", ["r", "c"]] },
    { store: "Y", at: ["r"], value: "s" }] }],
});

/** Row sums of X in f32, worker stripes of `workers` (vector 1) then a pairwise tree. */
function stripedF32(x: Float64Array, R: number, C: number, workers: number): number[] {
  const out: number[] = [];
  for (let r = 0; r < R; r++) {
    const part = new Float32Array(workers);
    for (let c = 0; c < C; c++) part[c % workers] = Math.fround(part[c % workers] + x[r * C + c]);
    for (let s = 1; s < workers; s *= 2) for (let i = 0; i + s < workers; i += 2 * s) part[i] = Math.fround(part[i] + part[i + s]);
    out.push(part[0]);
  }
  return out;
}

describe("the estimate of f32's rounding error", () => {
  it("covers the left-to-right and the striped f32 sums, and stays below the tolerance's scale for these rows", () => {
    const R = 64, C = 4000;
    const doc = rowSum(R, C);
    const inputs = makeInputs(doc, 2);
    const ref = evaluate(doc, inputs).buffers.get("Y")!;
    const plain = evaluate(doc, inputs, "f32").buffers.get("Y")!;
    const serial = roundingBounds(doc, inputs, null).bounds.get("Y")!;
    const coop = roundingBounds(doc, inputs, { workers: 256, vector: 1 }).bounds.get("Y")!;
    const striped = stripedF32(inputs.get("X") as Float64Array, R, C, 256);
    let worstSerial = 0, worstCoop = 0;
    for (let r = 0; r < R; r++) {
      expect(Math.abs(plain[r] - ref[r])).toBeLessThanOrEqual(serial[r]);
      expect(Math.abs(striped[r] - ref[r])).toBeLessThanOrEqual(coop[r]);
      // the striped order's partial sums are shorter: a tighter estimate
      expect(coop[r]).toBeLessThan(serial[r]);
      worstSerial = Math.max(worstSerial, Math.abs(plain[r] - ref[r]) / serial[r]);
      worstCoop = Math.max(worstCoop, Math.abs(striped[r] - ref[r]) / coop[r]);
      // a sum of 4000 terms on [-2, 2): within a few ulps of the terms' scale, not vacuous
      expect(coop[r]).toBeLessThan(2e-4);
    }
    // not vacuous: the actual errors reach a sizeable part of the estimate
    expect(worstSerial).toBeGreaterThan(0.05);
    expect(worstCoop).toBeGreaterThan(0.05);
  });

  it("carries a reduction's error into a cancelling step; a select on a comparison the errors can flip spans both operands; a cast to i32 has none", () => {
    const doc = {
      tile: 1, name: "c", sizes: { C: 1000 },
      params: [{ name: "X", dtype: "f32", shape: ["C"] }, { name: "Y", dtype: "f32", shape: ["C"] }, { name: "Z", dtype: "f32", shape: [2] }, { name: "S", dtype: "f32", shape: [2] }, { name: "T", dtype: "f32", shape: [1] }],
      body: [
        { reduce: "s", combiner: "sum", over: ["k", 0, "C"], value: ["load", "X", ["k"]] },
        { store: "S", at: [0], value: "s" },
        { store: "S", at: [1], value: ["cast", "f32", ["cast", "i32", "s"]] },
        { store: "Z", at: [0], value: ["select", ["lt", ["load", "T", [0]], "s"], ["f32", 1], ["f32", 0]] },
        { store: "Z", at: [1], value: ["select", ["lt", ["add", ["load", "T", [0]], ["f32", 100]], "s"], ["f32", 1], ["f32", 0]] },
        { for: "c", in: [0, "C"], kind: "parallel", body: [
          { store: "Y", at: ["c"], value: ["sub", ["load", "X", ["c"]], "s"] }] }],
    };
    const inputs = makeInputs(doc, 1);
    // T is the sum rounded to f32: whether T < s is the rounding's call; T + 100 < s is not
    const x = inputs.get("X") as Float64Array;
    (inputs.get("T") as Float64Array)[0] = Math.fround(x.reduce((a, b) => a + b, 0));
    const b = roundingBounds(doc, inputs, null).bounds;
    // every X[c] - s carries the sum's error (and its own rounding)
    const sumBound = b.get("S")![0];
    expect(sumBound).toBeGreaterThan(0);
    for (let c = 0; c < 1000; c++) expect(b.get("Y")![c]).toBeGreaterThanOrEqual(sumBound);
    // a select on it may take either operand: the estimate spans both (|1 - 0|)
    expect(b.get("Z")![0]).toBe(1);
    expect(b.get("Z")![1]).toBe(0);
    // a cast to i32 of an f32 value has none
    expect(b.get("S")![1]).toBe(Infinity);
  });
});
