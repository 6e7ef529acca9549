// Sibling reduces in one pass (issue 16, session 21; core/analysis/siblings.ts): neighbouring reduces
// over one range (with one axis variable, or renamed to one: session 27), none reading another's result, share one pass of the
// stripe, so a max and a min of X read X once (run 61 on an H200: the column max+min at 4096x4096
// 24.14 us against 37.50 us for the two-pass plan, PyTorch's aminmax 32.63 us). `--no-fuse`
// (options.fuse = false) keeps one pass per reduce. The cost model charges a run as one stage. A
// buffer the run's k members read counts k reads for caching (session 22, run 64: the row max+min
// at 1024x4096 cached, 5.56 us, against 6.51 uncached).
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { emitBothChecked, hostContext, validatesOnHost } from "./helpers/host";
import { ROOT } from "./helpers/files";

const h = hostContext();
const COLMAX = fs.readFileSync(path.join(ROOT, "test", "fixtures", "lanes", "colmax.json"), "utf8");
const MINMAX = fs.readFileSync(path.join(ROOT, "cases", "minmax.json"), "utf8");
const H200 = JSON.parse(fs.readFileSync(path.join(ROOT, "devices", "nvidia-h200-calibrated.json"), "utf8"));
const ONE_PASS = "reduces over the same range, in one pass";

const emitBoth = (doc: string, options: object): any => emitBothChecked(h, doc, options);

const passes = (doc: string, options: object, mslOverride?: (m: string) => string, inputs?: Map<string, Float64Array>): boolean =>
  validatesOnHost(h, doc, options, 7, mslOverride, inputs);

/** Stripe loops over chunks (`for (int k = 0;`): one per pass over a range. */
const stripeLoops = (msl: string): number => (msl.match(/for \(int k = 0;/g) ?? []).length;

/** A one-program-loop reduction over rows with `reduces` (each [name, combiner, axis, min, value];
 *  the range [min, C)). */
function rowDoc(reduces: Array<[string, string, string, any, any]>, store: any): string {
  return JSON.stringify({
    tile: 1, name: "sib", attrs: { noalias: true }, sizes: { R: 9, C: 301 },
    params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R"] }],
    body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
      ...reduces.map(([n, comb, ax, min, value]) => ({ reduce: n, combiner: comb, over: [ax, min, min === 0 ? "C" : ["sub", "C", min]], value })),
      { store: "Y", at: ["r"], value: store },
    ] }],
  });
}

describe("sibling reduces in one pass", () => {
  for (const [name, doc] of [["colmax", COLMAX], ["minmax", MINMAX]] as const) {
    it(`${name}: the max and the min share one pass and read X once (a cached row stripe: one fill); --no-fuse keeps two passes`, () => {
      for (const device of [undefined, H200]) {
        for (const sizes of [{}, { R: 1024, C: 4096 }, { R: 4096, C: 4096 }]) {
          const options: any = { sizes };
          if (device) options.device = device;
          const e = emitBoth(doc, options);
          expect(e.msl).toContain("stage 1 of 2 " + ONE_PASS);
          // X is read by both members: it is a cache candidate (a run's k members count k reads);
          // where the stripe fits, the fill reads X once and the pass combines registers
          // programs on lanes cache only what two stages read (run 65: a cached column stripe is slower)
          if (e.plan.mapping.layout === "programs-on-lanes") expect(e.plan.mapping.cached).toBe(false);
          if (name === "minmax" && (sizes as any).R === 1024 && device) expect(e.plan.mapping.cached).toBe(true);
          if (e.plan.mapping.cached) {
            expect(e.plan.mapping.cacheBuffers).toEqual(["X"]);
            expect((e.msl.match(/= \*\(\(device const packed_float4\*\)\(&X\[|= X\[/g) ?? []).length).toBeGreaterThan(0);
            expect(e.msl.indexOf("// fill:")).toBeLessThan(e.msl.indexOf(ONE_PASS));
            expect(e.msl.slice(e.msl.indexOf(ONE_PASS))).not.toMatch(/(?<![\w])X\[/);
          }
          expect(e.plan.notes.join(" ")).toContain("each run is computed in one pass of the stripe");
          const two = emitBoth(doc, { ...options, fuse: false });
          expect(two.msl).not.toContain(ONE_PASS);
          expect(two.plan.notes.join(" ")).toContain("with --no-fuse each is computed in its own pass");
          expect((two.diagnostics ?? []).map((d: any) => d.code)).not.toContain("TPL011");
          // the same mapping both ways: the fused kernel has half the stripe loops
          const same = { ...options, layout: e.plan.mapping.layout, programsPerGroup: e.plan.mapping.P, threads: e.plan.mapping.T, vector: e.plan.mapping.V, unroll: e.plan.mapping.U, cacheInput: false };
          const a = emitBoth(doc, same);
          const b = emitBoth(doc, { ...same, fuse: false });
          expect(stripeLoops(b.msl)).toBe(2 * stripeLoops(a.msl));
          // the cost model reads X once in the fused plan, twice in the other
          // (per program slot: a replayed tail slot reads its program again)
          const X = 4 * ((sizes as any).R ?? JSON.parse(doc).sizes.R) * ((sizes as any).C ?? JSON.parse(doc).sizes.C);
          expect(a.plan.cost.terms.bytesRead).toBeGreaterThanOrEqual(X);
          expect(a.plan.cost.terms.bytesRead).toBeLessThan(1.1 * X);
          expect(b.plan.cost.terms.bytesRead).toBe(2 * a.plan.cost.terms.bytesRead);
        }
      }
    });
  }

  it("packed vectors are shared: the row max+min at V = 4 reads each vector of X once", () => {
    const a = emitBoth(MINMAX, { vector: 4, threads: 256, cacheInput: false });
    const b = emitBoth(MINMAX, { vector: 4, threads: 256, cacheInput: false, fuse: false });
    const packed = (m: string) => (m.match(/packed_float4\*\)\(&X\[/g) ?? []).length;
    expect(packed(a.msl)).toBeGreaterThan(0);
    expect(packed(b.msl)).toBe(2 * packed(a.msl));
  });

  it("one-pass kernels validate on the host runtime: layouts, ragged stripes, unrolled, packed, f16, tail replay", () => {
    for (const options of [
      {},
      { layout: "programs-on-lanes", programsPerGroup: 8, threads: 256, sizes: { R: 203, C: 37 } },
      { layout: "programs-on-lanes", programsPerGroup: 3, threads: 96, unroll: 2, sizes: { R: 61, C: 10 } },
      { layout: "workers-on-lanes", vector: 4, threads: 64, sizes: { R: 203, C: 7 } },
    ]) expect(passes(COLMAX, options), JSON.stringify(options)).toBe(true);
    for (const options of [
      {},
      { vector: 4, threads: 64, sizes: { R: 5, C: 1023 } },
      { vector: 8, unroll: 3, programsPerGroup: 2, threads: 512 },
      { vector: 4, unroll: 2, threads: 32, sizes: { R: 3, C: 4097 } },
    ]) expect(passes(MINMAX, options), JSON.stringify(options)).toBe(true);
    const f16 = JSON.parse(MINMAX);
    for (const p of f16.params) p.dtype = "f16";
    expect(passes(JSON.stringify(f16), { vector: 8, threads: 128 })).toBe(true);
  });

  it("NaN, -0 and +0 in one pass give the oracle's max and min", () => {
    const { R, C } = JSON.parse(MINMAX).sizes;
    const x = new Float64Array(R * C);
    for (let r = 0; r < R; r++) for (let c = 0; c < C; c++) {
      const i = r * C + c;
      if (r % 4 === 0) x[i] = c === (r * 37) % C ? NaN : Math.cos(i);
      else if (r % 4 === 1) x[i] = c % 2 === 0 ? -0 : 0;
      else if (r % 4 === 2) x[i] = -0;
      else x[i] = Math.sin(i) * 3;
    }
    for (const options of [{}, { vector: 4, threads: 128 }, { vector: 8, unroll: 2, threads: 64 }]) {
      expect(passes(MINMAX, options, undefined, new Map([["X", x]])), JSON.stringify(options)).toBe(true);
    }
  });

  it("the validation sees both accumulators of the pass: dropping the second one's combine fails", () => {
    const e = emitBoth(MINMAX, { vector: 1, threads: 256 });
    const line = e.msl.split("\n").find((l: string) => /^\s*acc_hi = max\(acc_hi, tile_e\d+\);$/.test(l));
    expect(line).toBeDefined();
    expect(passes(MINMAX, { vector: 1, threads: 256 }, (m) => m)).toBe(true);
    expect(passes(MINMAX, { vector: 1, threads: 256 }, (m) => m.split(line + "\n").join(""))).toBe(false);
  });

  it("another axis name is the same structure: siblings, the same plan and kernel as with one name (red team, session 27)", () => {
    const X = ["load", "X", ["r", "c"]];
    const Xk = ["load", "X", ["r", "k"]];
    const one = rowDoc([["a", "max", "c", 0, X], ["b", "min", "c", 0, X]], ["add", "a", "b"]);
    const two = rowDoc([["a", "max", "c", 0, X], ["b", "min", "k", 0, Xk]], ["add", "a", "b"]);
    for (const options of [{}, { threads: 64 }, { vector: 4 }, { fuse: false }, { device: H200, sizes: { R: 1024, C: 4096 } }]) {
      const a = emitBoth(one, options), b = emitBoth(two, options);
      expect(b.plan, JSON.stringify(options)).toEqual(a.plan);
      expect(b.msl, JSON.stringify(options)).toBe(a.msl);
    }
    expect(emitBoth(two, { threads: 64 }).msl).toContain(ONE_PASS);
    expect(passes(two, { threads: 64 })).toBe(true);
    expect(h.wasm.call({ command: "plan", document: two, options: { fuse: false } }).diagnostics.map((d: any) => d.code)).not.toContain("TPL011");
  });

  it("not siblings: a reduce that reads an earlier result, another range", () => {
    const X = ["load", "X", ["r", "c"]];
    // (a renamed axis cannot capture a name: the IR forbids a binding that shadows one in scope,
    // TIR016, so the later reduce's value cannot mention the earlier axis's name)
    const cases: Array<[string, string]> = [
      ["reads the earlier result (softmax's sum of exp(x - m))", rowDoc([["m", "max", "c", 0, X], ["s", "sum", "c", 0, ["exp", ["sub", X, "m"]]]], ["div", "m", "s"])],
      ["another range", rowDoc([["a", "max", "c", 0, X], ["b", "min", "c", 1, X]], ["add", "a", "b"])],
    ];
    for (const [why, doc] of cases) {
      const e = emitBoth(doc, { threads: 64 });
      expect(e.msl, why).not.toContain(ONE_PASS);
      expect(e.plan.notes.join(" "), why).not.toContain("one pass of the stripe");
      expect(passes(doc, { threads: 64 }), why).toBe(true);
      // --no-fuse has nothing to keep apart here
      const n = h.wasm.call({ command: "plan", document: doc, options: { fuse: false } });
      expect(n.diagnostics.map((d: any) => d.code), why).toContain("TPL011");
    }
    // three siblings in one run, an i32 sum among them, and a store of all three
    const three = JSON.stringify({
      tile: 1, name: "three", attrs: { noalias: true }, sizes: { R: 7, C: 333 },
      params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "N", dtype: "i32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R"] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "a", combiner: "max", over: ["c", 0, "C"], value: X },
        { reduce: "b", combiner: "sum", over: ["c", 0, "C"], value: ["load", "N", ["r", "c"]] },
        { reduce: "d", combiner: "sum", over: ["c", 0, "C"], value: ["mul", X, X] },
        { store: "Y", at: ["r"], value: ["add", ["add", "a", ["cast", "f32", "b"]], "d"] },
      ] }],
    });
    const e = emitBoth(three, { threads: 64 });
    expect(e.msl).toContain("stage 1 of 3 " + ONE_PASS);
    expect(e.plan.notes.join(" ")).toContain("The reduces a, b and d walk the same range");
    for (const options of [{ threads: 64 }, { vector: 4, threads: 32 }, { layout: "programs-on-lanes", programsPerGroup: 4, threads: 128 }]) {
      expect(passes(three, options), JSON.stringify(options)).toBe(true);
    }
  });

  it("a run of 300 siblings is one pass in both engines, and validates (the run is found in one pass over the list)", () => {
    const n = 300;
    const tree = (a: number, b: number): any => (b - a === 1 ? `m${a}` : ["add", tree(a, (a + b) >> 1), tree((a + b) >> 1, b)]);
    const doc = JSON.stringify({
      tile: 1, name: "many", attrs: { noalias: true }, sizes: { R: 4, C: 64 },
      params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R"] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
        ...Array.from({ length: n }, (_, i) => ({ reduce: `m${i}`, combiner: i % 2 ? "min" : "max", over: ["c", 0, "C"], value: ["load", "X", ["r", "c"]] })),
        { store: "Y", at: ["r"], value: tree(0, n) },
      ] }],
    });
    const e = emitBoth(doc, {});
    expect(e.msl).toContain(`stage 1 of ${n} ${ONE_PASS}`);
    expect(passes(doc, {})).toBe(true);
  });
});
