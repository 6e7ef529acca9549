// Verdicts at the edges of f32 arithmetic (test/fixtures/verdicts/, found by a red team of the
// numeric semantics): kernels that compute exactly what IEEE binary32 gives in program order were
// judged wrong, and the semantics of min/max at signed zeros were left open. Each case runs on
// the host runtime with the inputs that reach the edge, and a deliberately wrong kernel (the
// emitted MSL edited) still fails:
//   cmp_round_i32          an i32 output decided by an f32 comparison: 3 * 0.1f >= 0.3f holds in
//                          f32, not in FP64 (0.30000000447 < 0.3f); the kernel's 1 was "differs"
//   overflow_edge_sum(_f16) FLT_MAX + B + B (each add stays at FLT_MAX in f32) against an FP64
//                          value that rounds to infinity; 65519.996 + 0.0019 + 0.0019 is 65504 in
//                          f16 from the kernel's f32 sum, infinity from the FP64 value's rounding
//   cast_readback          T = cast(X * 10) stored and read back into Y: T was compared as a
//                          value cast from f32, Y (the same values) exactly
//   sum_cancel             cases/sum at 64 x 4000, seed 2: a row that cancels to -0.1002; the
//                          cooperative sum (another order) was 4.8e-6 off, four times closer to
//                          FP64 than the left-to-right f32 sum, but not within the tolerance of it
//   if_f32_compare, scatter_f32_index, i32_gather_cast_index
//                          stores under an if on 0.1 * 3 >= 0.3, at the index cast(0.7 * 10), and
//                          a load at that index: the kernel (f32) writes or reads another element
//                          than the FP64 reference; they were "written, but the reference never
//                          writes it" / "not written" / "differs"
//   negzero_minop          1 / min(-0, +0) and 1 / max(+0, -0): the oracle's Math.min said -0,
//                          the kernel's Metal min either zero (docs/tile-ir.md, "Signed zeros")
//   softmax_backward_input_y  d = sum(Y * dY), then Y * (dY - d), at 37 x 1537, seed 1: where dY - d
//                          cancels, the cooperative sum's rounding (another order than left to
//                          right) put 523 elements outside the tolerance, 416 of them where the
//                          left-to-right f32 sum happens to meet it: FAIL for a correct kernel
//   maxbw_no_estimate, fakequant_div_no_estimate  DX = select(X == max, DY, 0) and a cast to i32
//                          and back (a red team's mutants of session 10): where the estimate
//                          has none (a comparison or a cast the errors could decide), wrong
//                          kernels passed as if it were unlimited
//   relu_mask_const_row    select(X - mean > 0, DY, 0) on rows of equal values: the cooperative
//                          mean is an ulp off X where the left-to-right one is exact, so the
//                          kernel takes the other operand at every element of the row
//   l2_normalize_overflow  X / max(sqrt(sum(X * X)), 1e-12) at inputs near 1e20 (a user's
//                          session): X * X overflows in f32, every output is 0 against FP64's
//                          0.04; plain f32 gives 0 too, so all passed as "ill-conditioned"
//   sum_edge_f16           an f16 row sum whose exact value 65519.998 lies 0.002 below the f16
//                          rounding boundary: the pairwise f32 sum 65520 rounds to infinity, the
//                          reference to 65504 (a red team of session 27: "got Infinity ref 65504")
//   nan_payload_sentinel   a copy of input NaNs whose payloads are the outputs' sentinels (a red
//                          team of session 11): the written NaNs were "not written" (a bf16 NaN
//                          has 63 payloads, so about 1 in 64 NaNs with a payload hit one)
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { GUARD_ROWS, runAndValidate, sentinelBits, sentinelBits16 } from "../shell-node/src/validate-run";
import { ROOT } from "./helpers/files";
import { evaluate } from "../shell-node/src/oracle";
import { hostContext } from "./helpers/host";

const DIR = path.join(ROOT, "test", "fixtures", "verdicts");
const text = (name: string): string => fs.readFileSync(path.join(DIR, name + ".json"), "utf8");
const f32 = (...v: number[]): Float64Array => Float64Array.from(v.map((x) => Math.fround(x)));

const h = hostContext();

function run(name: string, inputs: [string, Float64Array][], mslOverride?: (msl: string) => string) {
  return runAndValidate({ engine: h.wasm, runtime: h.runtime, text: text(name), options: {}, seed: 1, inputs: new Map(inputs), mslOverride });
}

describe("verdicts at the edges of f32 arithmetic", () => {
  it("an i32 output decided by an f32 comparison passes where it equals plain f32, and says so", () => {
    const r = run("cmp_round_i32", [["X", f32(3, 3, 3, 1)]]);
    expect(r.error).toBeUndefined();
    expect(r.passed).toBe(true);
    const y = r.outputs[0];
    expect(y.decidedByF32).toBe(true);
    expect(y.decidedAgreesWithF32).toBe(3);
    // the tolerance recorded is the one applied: an i32 output is compared exactly
    expect(y.tolerance).toEqual({ abs: 0, rel: 0, dtype: "i32" });
    expect(y.castFromF32).toBeUndefined();
    // a kernel that answers 1 everywhere: the three decided elements pass, the fourth (0 in f32 and
    // FP64) fails
    const wrong = run("cmp_round_i32", [["X", f32(3, 3, 3, 1)]], (msl) => msl.replace("? 1 : 0", "? 1 : 1"));
    expect(wrong.passed).toBe(false);
    expect(wrong.outputs[0].mismatches).toBe(1);
  });

  it("an f32 result at FLT_MAX passes against an FP64 value that rounds to infinity; a wrong sign fails", () => {
    const a = f32(3.4028234663852886e38), b = f32(0.9 * 2 ** 103);
    const r = run("overflow_edge_sum", [["A", a], ["B", b]]);
    expect(r.passed).toBe(true);
    expect(r.outputs[0].nonFiniteRefs).toBe(1);
    const wrong = run("overflow_edge_sum", [["A", a], ["B", b]], (msl) => msl.replace(/Y\[v_i\] = /, "Y[v_i] = -"));
    expect(wrong.passed).toBe(false);
  });

  it("an f16 result at 65504 passes against a reference rounded to infinity at the range's edge; a wrong value fails", () => {
    const a = f32(65519.996), b = f32(0.0019);
    const r = run("overflow_edge_sum_f16", [["A", a], ["B", b]]);
    expect(r.passed).toBe(true);
    expect(r.outputs[0].rangeEdge).toBe(1);
    // the largest f16 of the other sign fails
    const wrong = run("overflow_edge_sum_f16", [["A", a], ["B", b]], (msl) => msl.replace("Y[v_i] = half(", "Y[v_i] = -half("));
    expect(wrong.passed).toBe(false);
    // and a finite value below the largest: not the edge
    const low = run("overflow_edge_sum_f16", [["A", a], ["B", b]], (msl) => msl.replace("Y[v_i] = half(", "Y[v_i] = half(-64.0f + "));
    expect(low.passed).toBe(false);
  });

  it("an f16 sum at the range's edge passes on either side of it where f32 values within the tolerance round to both (red team, session 27); a wrong sum fails", () => {
    // the exact sum 65519.99768 is 65504 in f16; the kernel's pairwise f32 sum gives 65520.0,
    // infinity in f16 (and the second set the other way round)
    const up = f32(1.2218952e-4, 32752, 32768, -0.0024414062);
    const down = f32(32752, -0.0029296875, 0.00146484375, 32768);
    for (const x of [up, down]) {
      const r = run("sum_edge_f16", [["X", x]]);
      expect(r.error).toBeUndefined();
      expect(r.passed, JSON.stringify(r.outputs[0])).toBe(true);
      expect(r.outputs[0].rangeEdge).toBe(1);
    }
    // far from the edge (an exact sum of 60000), a kernel that gives infinity fails
    const mid = f32(30000, 30000, 0, 0);
    expect(run("sum_edge_f16", [["X", mid]]).passed).toBe(true);
    expect(run("sum_edge_f16", [["X", mid]], (msl) => msl.replace("S[r] = half(s)", "S[r] = half(s * 2.0f)")).passed).toBe(false);
    // at the edge, the infinity of the other sign fails
    expect(run("sum_edge_f16", [["X", up]], (msl) => msl.replace("S[r] = half(s)", "S[r] = half(-s)")).passed).toBe(false);
  });

  it("an i32 value cast from f32, stored and read back, is compared as one cast from f32", () => {
    const r = run("cast_readback", [["X", f32(0.7, 0.7, 1.3, -0.7)]]);
    expect(r.passed).toBe(true);
    expect(r.outputs.find((o) => o.name === "Y")!.castFromF32).toBe(true);
    // within one more than the f32 tolerance, as recorded (red team, session 27: it said 2e-6)
    expect(r.outputs.find((o) => o.name === "Y")!.tolerance).toEqual({ abs: 1 + 2e-6, rel: 2e-5, dtype: "i32" });
    const wrong = run("cast_readback", [["X", f32(0.7, 0.7, 1.3, -0.7)]], (msl) => msl.replace("Y[v_i] = T[v_i];", "Y[v_i] = T[v_i] + 2;"));
    expect(wrong.passed).toBe(false);
  });

  it("min and max order -0 below +0, in the oracle and the kernel", () => {
    const r = run("negzero_minop", [["A", f32(-0, 0)], ["B", f32(0, -0)]]);
    expect(r.passed).toBe(true);
    const mn = r.outputs.find((o) => o.name === "MN")!, mx = r.outputs.find((o) => o.name === "MX")!;
    expect(mn.worst?.ref).toBe(-Infinity);
    expect(mx.worst?.ref).toBe(Infinity);
    // Metal's min and max in place of the helpers return one operand of two zeros: wrong for one of
    // the two orders
    const plain = run("negzero_minop", [["A", f32(-0, 0)], ["B", f32(0, -0)]], (msl) => msl.replace("/ tile_min(", "/ min(").replace("/ tile_max(", "/ max("));
    expect(plain.passed).toBe(false);
  });

  it("a cancelling row sum passes where the kernel is closer to FP64 than the plain f32 sum; a wrong one fails", () => {
    const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text: text("sum_cancel"), options: {}, seed: 2 });
    expect(r.plan.realization).toBe("cooperative-reduction");
    expect(r.passed).toBe(true);
    expect(r.outputs[0].illConditioned).toBeGreaterThan(0);
    // a kernel that adds a small bias to every row sum is further from FP64 than plain f32 there
    const wrong = runAndValidate({ engine: h.wasm, runtime: h.runtime, text: text("sum_cancel"), options: {}, seed: 2, mslOverride: (msl) => msl.replace(/(Y\[[^\]]+\] = )([^;]+);/, "$1($2) + 0.0001f;") });
    expect(wrong.passed).toBe(false);
  });

  it("stores and loads placed by f32 decisions pass where they are the plain f32 evaluation's; wrong ones fail", () => {
    const one = (name: string, override?: (msl: string) => string) => runAndValidate({ engine: h.wasm, runtime: h.runtime, text: text(name), options: {}, seed: 1, mslOverride: override });
    const a = one("if_f32_compare");
    expect(a.passed).toBe(true);
    expect(a.outputs[0].flowAgreesWithF32).toBe(4);
    expect(one("if_f32_compare", (m) => m.replace("Y[v_i] = X[v_i];", "Y[v_i] = X[v_i] + 1.0f;")).passed).toBe(false);
    const b = one("scatter_f32_index");
    expect(b.passed).toBe(true);
    expect(b.outputs[0].flowAgreesWithF32).toBe(2);
    expect(one("scatter_f32_index", (m) => m.replace("Y[7] = X[v_i];", "Y[5] = X[v_i];")).passed).toBe(false);
    const c = one("i32_gather_cast_index");
    expect(c.passed).toBe(true);
    expect(c.outputs[0].decidedAgreesWithF32).toBe(4);
    expect(one("i32_gather_cast_index", (m) => m.replace("Q[v_i] = T[7];", "Q[v_i] = T[7] + 100;")).passed).toBe(false);
  });

  it("a reduction whose rounding a cancelling element step amplifies passes within the estimate of f32's rounding; wrong ones fail", () => {
    const one = (seed: number, override?: (msl: string) => string, options: Record<string, unknown> = {}) =>
      runAndValidate({ engine: h.wasm, runtime: h.runtime, text: text("softmax_backward_input_y"), options, seed, mslOverride: override });
    const r = one(1);
    expect(r.plan.realization).toBe("cooperative-reduction");
    expect(r.passed).toBe(true);
    expect(r.outputs[0].withinRoundingBound).toBeGreaterThan(100);
    for (const options of [{ vector: 4 }, { threads: 32 }, { programsPerGroup: 2 }, { unroll: 2 }]) expect(one(1, undefined, options).passed, JSON.stringify(options)).toBe(true);
    // d off by 1e-4 (about 25 ulps of |d| ~ 50), a term left out, products rounded to half: FAIL
    const d = "const float d = simd_sum(lane < 32u ? tg0[partial_base + int(lane)] : 0.0f);";
    const bias = one(1, (m) => { expect(m).toContain(d); return m.replace(d, d.replace(");", ") + 1e-4f;")); });
    expect(bias.passed).toBe(false);
    expect(bias.outputs[0].mismatches).toBeGreaterThan(1000);
    const missing = one(1, (m) => { expect(m).toContain("if (c < 1537) {\n      acc_d"); return m.replace("if (c < 1537) {\n      acc_d", "if (c < 1536) {\n      acc_d"); });
    expect(missing.passed).toBe(false);
    const half = one(1, (m) => m.replace("acc_d = acc_d + (cache_Yv[k] * cache_DY[k]);", "acc_d = acc_d + float(half(cache_Yv[k] * cache_DY[k]));"));
    expect(half.passed).toBe(false);
  });

  it("an element without an estimate (a comparison or a cast to i32 the errors could decide) is not excused by it", () => {
    const one = (name: string, override?: (msl: string) => string) =>
      runAndValidate({ engine: h.wasm, runtime: h.runtime, text: text(name), options: {}, seed: 1, mslOverride: override });
    expect(one("maxbw_no_estimate").passed).toBe(true);
    const grad = "? DY[r] : 0.0f;";
    for (const wrong of ["? 0.0f : 0.0f;", "? -DY[r] : 0.0f;", "? 1000.0f : 0.0f;"]) {
      const r = one("maxbw_no_estimate", (m) => { expect(m).toContain(grad); return m.split(grad).join(wrong); });
      expect(r.passed, wrong).toBe(false);
      expect(r.outputs[0].withinRoundingBound ?? 0).toBe(0);
    }
    expect(one("fakequant_div_no_estimate").passed).toBe(true);
    const q = "Y[v_i] = float(tile_f32_to_i32(X[v_i] * 8.0f)) / 8.0f;";
    for (const wrong of ["Y[v_i] = X[v_i];", "Y[v_i] = 0.0f;", "Y[v_i] = float(tile_f32_to_i32(X[v_i] * 8.0f + 0.5f)) / 8.0f;"]) {
      const r = one("fakequant_div_no_estimate", (m) => { expect(m).toContain(q); return m.replace(q, wrong); });
      expect(r.passed, wrong).toBe(false);
    }
  });

  it("a select whose condition the rounding could decide either way passes with either operand, not with a third value", () => {
    const R = 4, C = 1537;
    const x = new Float64Array(R * C);
    // 0.7: the cooperative mean of 1537 equal values is not 0.7f on this runtime (0.1, 0.3, 1.7 are)
    for (let r = 0; r < R; r++) x.fill(Math.fround([0.7, 0.1, 0.7, 0.7][r]), r * C, (r + 1) * C);
    const dy = Float64Array.from({ length: R * C }, (_, i) => Math.fround(((i * 7919) % 1000) / 500 - 1));
    const one = (override?: (msl: string) => string) => run("relu_mask_const_row", [["X", x], ["DY", dy]], override);
    const r = one();
    expect(r.passed).toBe(true);
    expect(r.outputs[0].withinRoundingBound).toBeGreaterThan(0);
    const pick = /\? (cache_DY\[k\]|DY\[[^\]]+\]) : 0\.0f/g;
    const wrong = one((m) => { expect(m).toMatch(pick); return m.replace(pick, "? 2.0f * $1 : 0.0f"); });
    expect(wrong.passed).toBe(false);
  });

  it("an element computed through a value past the f32 range fails, with the count, where plain f32 overflows too", () => {
    const big = runAndValidate({ engine: h.wasm, runtime: h.runtime, text: text("l2_normalize_overflow"), options: {}, seed: 1, inputRange: [-1e20, 1e20] });
    expect(big.passed).toBe(false);
    const y = big.outputs[0];
    expect(y.f32Overflow).toBeGreaterThan(49000);
    expect(y.illConditioned ?? 0).toBe(0);
    expect(y.withinRoundingBound ?? 0).toBe(0);
    // at inputs that stay in range the same document passes
    expect(runAndValidate({ engine: h.wasm, runtime: h.runtime, text: text("l2_normalize_overflow"), options: {}, seed: 1, inputRange: [-1e15, 1e15] }).passed).toBe(true);
  });

  it("a written NaN that carries its position's sentinel bits is told from an unwritten element by a second run", () => {
    // X[j] is the sentinel of Y (bf16, buffer 1) at even j and of F (f32, buffer 2) at odd j
    const C = 64;
    const guard = GUARD_ROWS * Math.max(16, C);
    const bits = new Uint32Array(C);
    for (let j = 0; j < C; j++) bits[j] = j % 2 === 0 ? sentinelBits16(1, guard + j, "bf16") << 16 : sentinelBits(2, guard + j, true);
    const x = Float64Array.from(new Float32Array(bits.buffer));
    const go = (override?: (msl: string) => string) => runAndValidate({ engine: h.wasm, runtime: h.runtime, text: text("nan_payload_sentinel"), options: { vector: 1 }, seed: 1, inputs: new Map([["X", x]]), mslOverride: override });
    const r = go();
    expect(r.passed, JSON.stringify(r.outputs.map((o) => o.examples))).toBe(true);
    const [y, f] = r.outputs;
    expect(y.sentinelRechecked).toBeGreaterThanOrEqual(C / 2);
    expect(f.sentinelRechecked).toBeGreaterThanOrEqual(C / 2);
    expect(y.mismatches + f.mismatches).toBe(0);
    // a kernel that leaves Y's even elements unwritten: they hold their sentinel in both runs
    const store = /(\n\s*)(Y\[[^\]]+\] = [^;]+;)/;
    const wrong = go((m) => { expect(m).toMatch(store); return m.replace(store, "$1if ((c & 1) != 0) $2"); });
    expect(wrong.passed).toBe(false);
    expect(wrong.outputs[0].mismatches).toBe(C / 2);
    expect(wrong.outputs[0].examples[0].why).toBe("not written");
    expect(wrong.outputs[1].mismatches).toBe(0);
    // inputs without such NaNs need no second run
    expect(runAndValidate({ engine: h.wasm, runtime: h.runtime, text: text("nan_payload_sentinel"), options: {}, seed: 1 }).outputs[0].sentinelRechecked).toBeUndefined();
  });

  it("an i32 output whose correct value equals its sentinel is written, not 'not written'; an unwritten one still fails", () => {
    const text = JSON.stringify({ tile: 1, name: "i32copy", attrs: { noalias: true }, sizes: { N: 40 },
      params: [{ name: "X", dtype: "i32", shape: ["N"] }, { name: "Y", dtype: "i32", shape: ["N"] }],
      body: [{ for: "i", in: [0, "N"], kind: "parallel", body: [{ store: "Y", at: ["i"], value: ["load", "X", ["i"]] }] }] });
    const guard = GUARD_ROWS * Math.max(16, 40);
    const x = Int32Array.from({ length: 40 }, (_, i) => (i < 6 ? sentinelBits(1, guard + i, false) | 0 : i));
    const go = (override?: (msl: string) => string) => runAndValidate({ engine: h.wasm, runtime: h.runtime, text, options: {}, seed: 1, inputs: new Map([["X", x]]), mslOverride: override });
    const r = go();
    expect(r.passed, JSON.stringify(r.outputs[0].examples)).toBe(true);
    expect(r.outputs[0].sentinelRechecked).toBe(6);
    // a kernel that writes only i >= 3: elements 0-2 hold their sentinel after both runs
    const wrong = go((m) => m.replace(/(\n\s*)(Y\[[^\]]+\] = [^;]+;)/, "$1if (v_i >= 3) $2"));
    expect(wrong.passed).toBe(false);
    expect(wrong.outputs[0].mismatches).toBe(3);
  });
});

describe("a value past the f32 range stored and read back (session 22's red team)", () => {
  // Y = X * 3e38 leaves the f32 range for |X| > 1.13; the buffer holds binary32 values, so Y holds
  // the infinity of its sign there, and Z = Y * 1e-30 read back from it is that infinity too, in
  // the kernel and in the reference (the oracle stored the double before, and Z failed)
  const doc = JSON.stringify({ tile: 1, name: "ovfread", attrs: { noalias: true }, sizes: { R: 4, C: 40 },
    params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R", "C"] }, { name: "Z", dtype: "f32", shape: ["R", "C"] }],
    body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [{ for: "c", in: [0, "C"], kind: "parallel", body: [
      { store: "Y", at: ["r", "c"], value: ["mul", ["load", "X", ["r", "c"]], ["f32", 3e38]] },
      { store: "Z", at: ["r", "c"], value: ["mul", ["load", "Y", ["r", "c"]], ["f32", 1e-30]] }] }] }] });

  it("reads back the infinity the store made: the element kernel passes, Z's reference is infinite where Y's is", () => {
    const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text: doc, options: {}, seed: 1 });
    expect(r.passed, JSON.stringify(r.outputs.map((o) => o.examples))).toBe(true);
    const z = r.outputs.find((o) => o.name === "Z")!;
    expect(z.mismatches).toBe(0);
  });

  it("a value that stays in range keeps its double (no rounding at the store); a kernel that skips the stored infinity fails", () => {
    // |X| < 1: Y stays finite and the reference Z is X * 3e38 * 1e-30 in double, Y not rounded
    const x = Float64Array.from({ length: 160 }, (_, i) => Math.fround((i % 2 ? 1 : -1) * (0.01 + i / 200)));
    const out = evaluate(JSON.parse(doc), new Map<string, Float64Array | Int32Array>([["X", x], ["Y", new Float64Array(160)], ["Z", new Float64Array(160)]])).buffers;
    const a = Math.fround(3e38), b = Math.fround(1e-30);
    for (let k = 0; k < 160; k++) expect(out.get("Z")![k]).toBe(x[k] * a * b);
    // |X| up to 2: Y overflows at |X| > 1.13; a kernel computing Z from X directly (finite there) fails
    const big = new Map<string, Float64Array>([["X", Float64Array.from({ length: 160 }, (_, i) => Math.fround((i % 2 ? 1 : -1) * (0.5 + i / 100)))]]);
    expect(runAndValidate({ engine: h.wasm, runtime: h.runtime, text: doc, options: {}, seed: 1, inputs: big }).passed).toBe(true);
    const bad = runAndValidate({ engine: h.wasm, runtime: h.runtime, text: doc, options: {}, seed: 1, inputs: big,
      mslOverride: (m) => m.replace("Y[r * 40 + c] * 1.0e-30f", "X[r * 40 + c] * 3.0e+8f") });
    expect(bad.passed).toBe(false);
  });
});
