// Semantics of values (docs/tile-ir.md): NaN-propagating min/max at every level of every
// realization, infinities, the saturating f32 -> i32 cast and the i32 corner cases (wrap, x div 0,
// INT_MIN div -1), run on the host runtime against the FP64 oracle; negative controls show that
// the host runtime models Metal's non-propagating built-ins; the validator's comparison (same
// infinity, exact i32, sentinels by bits); the emitter writes helpers only where they are used.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { compare, runAndValidate, sentinelBits } from "../shell-node/src/validate-run";
import { ROOT } from "./helpers/files";
import { hostContext } from "./helpers/host";

const h = hostContext();

const L = ["load", "X", ["r", "c"]];
const NAN = ["log", ["f32", -1]]; // computed at run time: literals must be finite
const INF = ["div", ["f32", 1], ["f32", 0]];

/** Row reductions whose rows hold a NaN, +inf or -inf at row-dependent columns (some rows none). */
function reductionDoc(noalias: boolean, C = 100): string {
  return JSON.stringify({
    tile: 1, name: "nan_inf_rows", attrs: { noalias }, sizes: { R: 9, C },
    params: [
      { name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "MX", dtype: "f32", shape: ["R"] },
      { name: "MN", dtype: "f32", shape: ["R"] }, { name: "S", dtype: "f32", shape: ["R"] },
      { name: "IM", dtype: "i32", shape: ["R"] },
    ],
    body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
      { let: "nan", value: NAN }, { let: "inf", value: INF },
      // rows 0..7: a NaN at column 13 r (r = 0..7 <= 99); row 8: none; +inf in rows 1, 3, 5, ...
      { reduce: "mx", combiner: "max", over: ["c", 0, "C"], value: ["select", ["and", ["eq", "c", ["mul", "r", 13]], ["lt", "r", 8]], "nan",
        ["select", ["eq", "c", ["add", ["mul", "r", 7], 3]], "inf", L]] },
      { reduce: "mn", combiner: "min", over: ["c", 0, "C"], value: ["select", ["eq", "c", ["add", ["mul", "r", 17], 200]], "nan",
        ["select", ["eq", "c", ["add", "r", 50]], ["neg", "inf"], L]] },
      { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["select", ["eq", "c", ["mul", "r", 11]], "inf", L] },
      // i32 max over a saturating cast: +inf -> INT_MAX, NaN -> 0, huge -> saturated
      { reduce: "im", combiner: "max", over: ["c", 0, "C"], value: ["cast", "i32", ["mul", L, ["f32", 1e10]]] },
      { store: "MX", at: ["r"], value: "mx" }, { store: "MN", at: ["r"], value: "mn" },
      { store: "S", at: ["r"], value: "s" }, { store: "IM", at: ["r"], value: "im" }]}],
  });
}

/** The fused element grid: f32 min/max with NaN and infinities, casts, i32 corner cases. */
function elementDoc(): string {
  const x = ["load", "X", ["r", "c"]];
  const q = ["cast", "i32", ["mul", x, ["f32", 2147483648]]]; // exact in f32 (a power of two); saturates for |x| >= 1
  return JSON.stringify({
    tile: 1, name: "nan_inf_grid", attrs: { noalias: true }, sizes: { R: 5, C: 40 },
    params: [
      { name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "MX", dtype: "f32", shape: ["R", "C"] },
      { name: "MN", dtype: "f32", shape: ["R", "C"] }, { name: "CI", dtype: "i32", shape: ["R", "C"] },
      { name: "W", dtype: "i32", shape: ["R", "C"] }, { name: "D", dtype: "i32", shape: ["R", "C"] },
      { name: "M", dtype: "i32", shape: ["R", "C"] },
    ],
    body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [{ for: "c", in: [0, "C"], kind: "parallel", body: [
      { let: "v", value: ["select", ["eq", ["mod", "c", 7], 0], NAN, ["select", ["eq", ["mod", "c", 5], 1], INF, ["select", ["eq", ["mod", "c", 5], 2], ["neg", INF], x]]] },
      { store: "MX", at: ["r", "c"], value: ["max", "v", ["f32", 0.5]] },
      { store: "MN", at: ["r", "c"], value: ["min", ["f32", 0.5], "v"] },
      { store: "CI", at: ["r", "c"], value: ["cast", "i32", ["mul", "v", ["f32", 2147483648]]] },
      // q + q wraps (both saturated: INT_MAX + INT_MAX = -2), and abs/neg of INT_MIN stay INT_MIN
      { store: "W", at: ["r", "c"], value: ["add", ["add", q, q], ["sub", ["abs", q], ["neg", q]]] },
      // divisor 0 for c = r, -1 for c = r + 1; the dividend is often INT_MIN
      { store: "D", at: ["r", "c"], value: ["div", q, ["sub", "r", ["min", "c", ["add", "r", 1]]]] },
      { store: "M", at: ["r", "c"], value: ["mod", q, ["sub", "r", ["min", "c", ["add", "r", 1]]]] },
    ] }] }],
  });
}

function run(text: string, options: object, mslOverride?: (m: string) => string) {
  return runAndValidate({ engine: h.wasm, runtime: h.runtime, text, options: { sizes: {}, ...options }, seed: 3, mslOverride });
}

function why(r: any): string {
  return (r.error ?? "") + " " + JSON.stringify(r.outputs.map((o: any) => [o.name, o.mismatches, o.examples])) + " " + r.guards;
}

describe("NaN and infinities through every realization (host runtime)", () => {
  const variants: [string, object][] = [
    ["cooperative P=1 V=1 U=1", { programsPerGroup: 1, vector: 1, unroll: 1 }],
    ["cooperative P=2 V=4 U=3", { programsPerGroup: 2, vector: 4, unroll: 3 }],
    ["cooperative P=3 V=8 U=2 uncached", { programsPerGroup: 3, vector: 8, unroll: 2, cacheInput: false }],
    ["cooperative P=1 S=4 V=4 (T=128)", { programsPerGroup: 1, threads: 128, vector: 4 }],
    ["automatic", {}],
  ];
  for (const [label, options] of variants) {
    it(label, () => {
      const r = run(reductionDoc(true), options);
      expect(r.plan.realization).toBe("cooperative-reduction");
      expect(r.passed, why(r)).toBe(true);
      // the reference really has NaN, +inf and -inf rows, and the kernel matched each
      const o = Object.fromEntries(r.outputs.map((x) => [x.name, x]));
      expect(o.MX.written).toBe(9);
      expect(o.IM.mismatches).toBe(0);
    });
  }

  it("serial program (no noalias)", () => {
    const r = run(reductionDoc(false), {});
    expect(r.plan.realization).toBe("serial-program");
    expect(r.passed, why(r)).toBe(true);
  });

  it("fused element grid, V = 1 and the automatic V", () => {
    for (const options of [{ vector: 1 }, {}]) {
      const r = run(elementDoc(), options);
      expect(r.plan.realization).toBe("fused-elementwise");
      expect(r.passed, why(r)).toBe(true);
    }
  });

  it("the element grid's i32 corner cases need their helpers (no trap, wrapped values)", () => {
    const msl = h.wasm.call({ command: "emit", document: elementDoc(), options: {} }).msl as string;
    for (const h of ["tile_max", "tile_min", "tile_f32_to_i32", "tile_add_wrap", "tile_div", "tile_mod", "tile_neg_wrap", "tile_abs_wrap"]) {
      expect(msl, h).toContain(h + "(");
    }
  });
});

describe("negative controls: the host runtime models Metal's real built-ins", () => {
  it("with the NaN test removed, max/min and simd_max/simd_min drop the NaN and the run fails", () => {
    const r = run(reductionDoc(true), { programsPerGroup: 2, vector: 4 },
      (m) => m.replace("return (as_type<uint>(x) & 0x7fffffffu) > 0x7f800000u;", "return false;"));
    expect(r.passed).toBe(false);
    const mx = r.outputs.find((o) => o.name === "MX")!;
    expect(mx.mismatches).toBe(8); // the eight rows whose max is NaN
    expect(mx.nonFinite).toBe(8);
  });

  it("the per-worker partial's deferred NaN flag is what carries a NaN element: without it the run fails", () => {
    for (const unroll of [1, 3]) {
      const r = run(reductionDoc(true), { programsPerGroup: 2, vector: 4, unroll }, (m) => {
        const flagged = m.replace(/if \(tile_nan_mx(_\d)? > 0x7f800000u\) \{ acc_mx(_\d)? = NAN; \}/g, "");
        expect(flagged).not.toBe(m); // the stripe defers the NaN test (three operations per element)
        if (unroll === 3) expect(m).toContain("uint tile_nan_mx_2 = 0u;"); // one flag per unrolled partial
        return flagged;
      });
      expect(r.passed).toBe(false);
      expect(r.outputs.find((o) => o.name === "MX")!.mismatches).toBe(8);
    }
  });

  it("only the SIMD level made plain (simd_max) is caught too", () => {
    const r = run(reductionDoc(true), { programsPerGroup: 1, vector: 1 },
      (m) => m.replace(/tile_simd_max\(acc_mx\)/, "simd_max(acc_mx)"));
    expect(r.passed).toBe(false);
    expect(r.outputs.find((o) => o.name === "MX")!.mismatches).toBeGreaterThan(0);
  });

  it("a plain int(x) cast is not the saturating cast on the host either", () => {
    const r = run(elementDoc(), { vector: 1 }, (m) => m.replace("store_placeholder", "").replace(/CI\[([^\]]+)\] = tile_f32_to_i32\(/, "CI[$1] = int("));
    expect(r.passed).toBe(false);
    expect(r.outputs.find((o) => o.name === "CI")!.mismatches).toBeGreaterThan(0);
  });
});

describe("validation compares every value", () => {
  const f32 = (xs: number[]) => new Float32Array(xs);
  const bitsOf = (a: Float32Array | Int32Array) => new Uint32Array(a.buffer);
  const all = (n: number) => new Uint8Array(n).fill(1);

  it("the same infinity is correct; a different one, NaN for a number, or a number for NaN is not", () => {
    const got = f32([Infinity, -Infinity, NaN, 1, Infinity, NaN]);
    const ref = new Float64Array([Infinity, -Infinity, NaN, 1, -Infinity, 2]);
    const c = compare("Y", "f32", got, ref, all(6), null, bitsOf(got), false);
    expect(c.mismatches).toBe(2);
    expect(c.nonFinite).toBe(2);
    expect(c.maxAbsError).toBe(0);
    expect(c.examples.map((e) => e.index)).toEqual([4, 5]);
    // JSON: NaN and infinities are null; text prints them as such
    expect(JSON.parse(JSON.stringify(c.examples[0]))).toMatchObject({ got: null, ref: null });
    expect(`${c.examples[0].got} ${c.examples[0].ref}`).toBe("Infinity -Infinity");
  });

  it("i32 outputs are compared exactly (an off-by-one at 10^6 is inside the f32 tolerance)", () => {
    const got = new Int32Array([1000001, -5]);
    const c = compare("I", "i32", got, new Int32Array([1000000, -5]), all(2), null, bitsOf(got), false);
    expect(c.mismatches).toBe(1);
    expect(c.maxAbsError).toBe(1);
  });

  it("an i32 output cast from f32 is compared within 1 + the f32 tolerance, and says so; others stay exact", () => {
    const got = new Int32Array([135762014, 7, 8, 1000]);
    // 135762000 * 2e-5 = 2715: 14 off is inside; 7 vs 6 is the truncation's one; 8 vs 6 is not
    const ref = new Int32Array([135762000, 6, 6, 1002]);
    const c = compare("Q", "i32", got, ref, all(4), null, bitsOf(got), false, true);
    expect(c.castFromF32).toBe(true);
    expect(c.examples.map((e) => [e.index, e.why])).toEqual([[2, "outside the tolerance of a value cast from f32"], [3, "outside the tolerance of a value cast from f32"]]);
    const exact = compare("Q", "i32", got, ref, all(4), null, bitsOf(got), false);
    expect(exact.castFromF32).toBeUndefined();
    expect(exact.mismatches).toBe(4);
  });

  it("an f32 output is compared with the reference rounded to f32: past the f32 range it is the infinity", () => {
    const got = f32([Infinity, -Infinity, 3.4028234663852886e38, Infinity]);
    // FP64 keeps 6e38 and -9e38; 3.4028235e38 rounds to FLT_MAX, not to infinity; 1e38 is finite
    const ref = new Float64Array([6e38, -9e38, 3.4028235e38, 1e38]);
    const c = compare("Y", "f32", got, ref, all(4), null, bitsOf(got), false);
    expect(c.examples.map((e) => e.index)).toEqual([3]);
  });

  it("an element the reference writes that still holds its sentinel is not written, even when the reference is NaN", () => {
    const init = new Uint32Array([sentinelBits(0, 0, true), sentinelBits(0, 1, true)]);
    const got = new Float32Array(init.buffer.slice(0));
    const c = compare("Y", "f32", got, new Float64Array([NaN, 1]), all(2), init, bitsOf(got), true);
    expect(c.mismatches).toBe(2);
    expect(c.examples[0].why).toBe("not written");
  });

  it("a stray write of a NaN carrying the old fixed sentinel payload is found by its bits", () => {
    const init = new Uint32Array([sentinelBits(1, 0, true), sentinelBits(1, 1, true)]);
    const after = new Uint32Array([0x7fc0dead, init[1]]);
    const got = new Float32Array(after.buffer);
    const c = compare("Y", "f32", got, new Float64Array(2), new Uint8Array(2), init, after, true);
    expect(c.mismatches).toBe(1);
    expect(c.examples[0].index).toBe(0);
  });

  it("sentinels are quiet NaNs that arithmetic does not produce, different per position and buffer", () => {
    const seen = new Set<number>();
    for (let b = 0; b < 4; b++) for (let i = 0; i < 1000; i++) {
      const s = sentinelBits(b, i, true);
      expect((s & 0x7fc00000) >>> 0).toBe(0x7fc00000);
      expect(s === 0x7fc00000 || s === 0xffc00000 || s === 0x7fc0dead).toBe(false);
      seen.add(s);
    }
    expect(seen.size).toBeGreaterThan(3990);
  });

  it("an out-of-bounds store of a sentinel-payload NaN into a guard region fails the run", () => {
    const text = fs.readFileSync(path.join(ROOT, "cases", "sum.json"), "utf8");
    const r = run(text, { programsPerGroup: 1 }, (m) =>
      m.replace(/if \(live && worker == 0\) \{ Y\[r\] = (\w+); \}/, "if (live && worker == 0) { Y[r] = $1; if (r == 36) { Y[r + 1] = as_type<float>(0x7fc0deadu); } }"));
    expect(r.passed).toBe(false);
    expect(r.guards).toMatch(/Y: 1 guard element/);
  });
});

describe("the emitter writes helpers only where they are used", () => {
  const emit = (name: string) => h.wasm.call({ command: "emit", document: fs.readFileSync(path.join(ROOT, "cases", name + ".json"), "utf8"), options: {} }).msl as string;

  it("a sum, LayerNorm or an element graph without min/max has no NaN helper and plain index arithmetic", () => {
    for (const name of ["sum", "layernorm", "rmsnorm", "add"]) {
      const msl = emit(name);
      expect(msl, name).not.toContain("tile_is_nan");
      expect(msl, name).not.toContain("_wrap(");
    }
  });

  it("softmax's max uses tile_max and tile_simd_max; its sum stays simd_sum", () => {
    const msl = emit("softmax");
    expect(msl).toContain("static inline bool tile_is_nan(float x)");
    expect(msl).toContain("tile_simd_max(");
    expect(msl).toContain("simd_sum(");
    expect(msl).not.toContain("tile_simd_min");
    expect(msl).not.toContain("tile_add_wrap");
  });

  it("i32 arithmetic on loaded data wraps through helpers; on loop variables it stays plain", () => {
    const doc = JSON.stringify({ tile: 1, name: "ints", attrs: { noalias: true }, sizes: { N: 64 },
      params: [{ name: "A", dtype: "i32", shape: ["N"] }, { name: "B", dtype: "i32", shape: ["N"] }],
      body: [{ for: "i", in: [0, "N"], kind: "parallel", body: [
        { store: "B", at: [["sub", 63, "i"]], value: ["add", ["mul", ["load", "A", ["i"]], 3], ["mul", "i", 2]] }] }] });
    const msl = h.wasm.call({ command: "emit", document: doc, options: {} }).msl as string;
    // the loaded value may be anything: wrap; i * 2 and 63 - i stay inside [−126, 126]: plain
    expect(msl).toMatch(/tile_add_wrap\(tile_mul_wrap\(A\[(\w+)\], 3\), \(?\1 \* 2\)?\)/);
    expect(msl).toMatch(/B\[\(?63 - \w+\)?\]/);
    expect(msl).not.toContain("tile_sub_wrap");
  });
});

describe("the core never traps and both engines agree byte for byte", () => {
  const sum = fs.readFileSync(path.join(ROOT, "cases", "sum.json"), "utf8");
  const withExtent = (ext: unknown) => {
    const d = JSON.parse(sum);
    d.body[0].in = [0, ext];
    return JSON.stringify(d);
  };
  const many = (() => {
    const body: any[] = [{ reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["load", "X", ["r", "c"]] }];
    for (let i = 0; i < 4000; i++) body.push({ store: "Y", at: ["r", i], value: "s" });
    return JSON.stringify({ tile: 1, name: "many", attrs: { noalias: true }, sizes: { R: 4, C: 64 },
      params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R", 4000] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body }] });
  })();
  const cases: [string, string, string, object, string | null][] = [
    ["extent min(R, 4)", "plan", withExtent(["min", "R", 4]), {}, null],
    ["extent div(R, 2)", "plan", withExtent(["div", "R", 2]), {}, null],
    ["extent 0", "plan", withExtent(0), {}, "TPL006"],
    ["extent -3", "plan", withExtent(-3), {}, "TPL006"],
    ["extent div(R, 0)", "plan", withExtent(["div", "R", 0]), {}, "TPL006"],
    ["programsPerGroup 2^26", "plan", sum, { programsPerGroup: 67108864 }, "TPL002"],
    ["P 2^27 with threads 64", "plan", sum, { programsPerGroup: 134217728, threads: 64 }, "TPL002"],
    ["unroll 100000", "emit", sum, { unroll: 100000 }, "TPL002"],
    ["unroll 64", "emit", sum, { unroll: 64 }, null],
    ["4,000 program-level stores", "plan", many, {}, null],
  ];
  for (const [label, command, document, options, code] of cases) {
    it(label, () => {
      const a = h.wasm.call({ command, document, options });
      const b = h.js.call({ command, document, options });
      expect(JSON.stringify(a)).toBe(JSON.stringify(b));
      const codes = (a.diagnostics ?? []).map((d: any) => d.code);
      if (code) {
        expect(a.ok).toBe(false);
        expect(codes).toContain(code);
      } else {
        expect(a.ok, JSON.stringify(a.diagnostics)).toBe(true);
        expect(JSON.stringify(a)).not.toMatch(/Infinity|NaN/);
      }
    });
  }

  it("32 parameters are more buffer arguments than Metal accepts (TPL007); 31 plan", () => {
    const doc = (n: number) => {
      const params: any[] = [];
      for (let i = 0; i < n - 1; i++) params.push({ name: "X" + i, dtype: "f32", shape: ["N"] });
      params.push({ name: "Y", dtype: "f32", shape: ["N"] });
      let v: any = ["load", "X0", ["i"]];
      for (let i = 1; i < n - 1; i++) v = ["add", v, ["load", "X" + i, ["i"]]];
      return JSON.stringify({ tile: 1, name: "wide", attrs: { noalias: true }, sizes: { N: 64 }, params,
        body: [{ for: "i", in: [0, "N"], kind: "parallel", body: [{ store: "Y", at: ["i"], value: v }] }] });
    };
    const over = h.wasm.call({ command: "plan", document: doc(32), options: {} });
    expect(over.ok).toBe(false);
    expect(over.diagnostics.map((d: any) => d.code)).toEqual(["TPL007"]);
    expect(JSON.stringify(h.js.call({ command: "plan", document: doc(32), options: {} }))).toBe(JSON.stringify(over));
    expect(h.wasm.call({ command: "plan", document: doc(31), options: {} }).ok).toBe(true);
    // the limit is device data
    const small = h.wasm.call({ command: "plan", document: doc(31), options: { device: { maxBufferArguments: 8 } } });
    expect(small.diagnostics.map((d: any) => d.code)).toEqual(["TPL007"]);
  });
});

describe("an i32 has no negative zero (red team, session 23)", () => {
  // a negative f32 above -1 truncates to the i32 0; cast back to f32 it is +0, so 1 / it is +inf.
  // The JS build erased `<i32>` casts, so the folder kept a JS -0 (JS emitted "1.0f / (-0.0f)",
  // WebAssembly "1.0f / 0.0f"), and the oracle's Math.trunc kept -0 too (-inf expected of a
  // correct kernel, and the JS build's wrong kernel passed)
  const doc = (v: unknown) => JSON.stringify({
    tile: 1, name: "negz", attrs: { noalias: true }, sizes: { R: 2, C: 8 },
    params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R", "C"] }],
    body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [{ for: "c", in: [0, "C"], kind: "parallel", body: [
      { store: "Y", at: ["r", "c"], value: ["div", ["f32", 1], ["cast", "f32", ["cast", "i32", v]]] }] }] }],
  });
  it("folded constants: both engines emit 1 / +0, and the kernel passes against the oracle", () => {
    for (const v of [["f32", -0.0], ["f32", -0.25], ["neg", ["f32", 0.5]]]) {
      const text = doc(v);
      const a = h.wasm.call({ command: "emit", document: text, options: {} });
      const b = h.js.call({ command: "emit", document: text, options: {} });
      expect(b.msl).toBe(a.msl);
      expect(a.msl).not.toContain("-0.0f");
      const r = runAndValidate({ engine: h.js, runtime: h.runtime, text, options: {}, seed: 3 });
      expect(r.passed, JSON.stringify(v)).toBe(true);
    }
  });
  it("loaded values: 1 / f32(i32(x * 0.25)) is +inf where x * 0.25 lies in (-1, 0), in the oracle and on the host runtime", () => {
    const text = doc(["mul", ["load", "X", ["r", "c"]], ["f32", 0.25]]);
    for (const engine of [h.wasm, h.js]) {
      const r = runAndValidate({ engine, runtime: h.runtime, text, options: {}, seed: 3 });
      expect(r.passed).toBe(true);
    }
    // inputs on [-2, 2): some elements truncate from (-1, 0); the oracle gives +inf for them all
    const e = h.wasm.call({ command: "emit", document: text, options: {} });
    const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text, options: {}, seed: 3, emitted: e });
    expect(JSON.stringify(r)).not.toContain("-Infinity");
  });
});
