// Column stripes in registers (issue 16, session 19): a column reduction's stripe (a worker's rows
// of one column, X[r, c] with r distributed and c the program) is owned by its worker exactly as a
// row stripe is, so `private-ownership` now proves it and the cooperative realization keeps it in
// registers: the column softmax read X three times (max, sum of exp, the store loop) and the column
// max and min twice; cached, each reads it once. The fill of a column stripe reads element by
// element (the elements of a stripe vector are a column's, not neighbours in memory); a row
// stripe's fill stays packed. A buffer read as a row in one stage and as a column in another is
// not cached (another worker owns the elements), and the rule says where.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { runAndValidate } from "../shell-node/src/validate-run";
import { emitBothChecked, hostContext, prefetchKernels } from "./helpers/host";
import { ROOT } from "./helpers/files";

const h = hostContext();
const DIR = path.join(ROOT, "test", "fixtures", "lanes");
const text = (f: string): string => fs.readFileSync(path.join(DIR, f), "utf8");
const H200 = JSON.parse(fs.readFileSync(path.join(ROOT, "devices", "nvidia-h200-calibrated.json"), "utf8"));

const emitBoth = (doc: string, options: object): any => emitBothChecked(h, doc, options);

function validate(doc: string, options: object, seed = 5): any {
  const emitted = emitBoth(doc, options);
  const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text: doc, options, seed, emitted });
  expect(r.passed && r.guards === "intact", `${JSON.stringify(options)} ${r.error ?? ""} ${JSON.stringify(r.outputs.map((o: any) => o.firstMismatch ?? ""))}`).toBe(true);
  return emitted;
}

/** Reads of device buffer `b` in the MSL (its register copy `cache_b[...]` not counted). */
function deviceReads(msl: string, b: string): number {
  return (msl.match(new RegExp(`(?<![A-Za-z0-9_])${b}\\[`, "g")) ?? []).length;
}

/** The kernel from its first stage on (after the register fill, when there is one). */
function afterFill(msl: string): string {
  const at = msl.indexOf("// stage 1");
  expect(at).toBeGreaterThan(0);
  return msl.slice(at);
}

/** The fixture with every f32 buffer of another dtype (casts untouched). */
function withDtype(doc: string, dtype: string): string {
  const j = JSON.parse(doc);
  for (const p of j.params) if (p.dtype === "f32") p.dtype = dtype;
  j.name = j.name + "_" + dtype;
  return JSON.stringify(j);
}

describe("column stripes in registers", () => {
  // (the column max+min reads X once without a cache: its two reduces share one pass, test/siblings.test.ts)
  for (const f of ["colsoftmax.json", "colmean_scale.json"]) {
    it(`${f}: at 1024 x 4096 the automatic plan keeps X's column stripe in registers and reads X once, element by element`, () => {
      for (const device of [undefined, H200]) {
        const options: any = { sizes: { R: 1024, C: 4096 } };
        if (device !== undefined) options.device = device;
        const e = emitBoth(text(f), options);
        expect(e.plan.mapping.cached, f).toBe(true);
        expect(e.plan.mapping.cacheBuffers).toContain("X");
        expect(e.msl).toContain("// stage 0: this worker's stripe of X in registers");
        // the fill is the only stage that reads X from memory, and it reads a column element-wise
        expect(deviceReads(e.msl, "X"), e.msl).toBe(1);
        expect(e.msl).not.toMatch(/packed_float4\*\)\(&X\[/);
        const rules = e.plan.rules.filter((r: any) => r.id === "private-ownership");
        expect(rules.length).toBe(1);
        expect(rules[0].verdict).toBe("holds");
      }
    });
  }

  it("uncached (--no-cache-input) the column softmax reads X in all three stages: the cache is what removes two", () => {
    const e = emitBoth(text("colsoftmax.json"), { sizes: { R: 1024, C: 4096 }, cacheInput: false });
    expect(e.plan.mapping.cached).toBe(false);
    expect(deviceReads(e.msl, "X")).toBe(3);
  });

  for (const dtype of ["f32", "f16", "bf16"]) {
    it(`${dtype}: cached column stripes validate on the host runtime in both layouts, ragged and unrolled, V > 1 filled element by element`, () => {
      const mappings: any[] = [
        {},
        { layout: "programs-on-lanes", programsPerGroup: 8, threads: 256, sizes: { R: 203, C: 37 } },
        { layout: "programs-on-lanes", programsPerGroup: 4, threads: 256, unroll: 2, sizes: { R: 97, C: 13 } },
        { layout: "workers-on-lanes", vector: 4, threads: 64, sizes: { R: 203, C: 7 } },
        { layout: "workers-on-lanes", vector: 8, unroll: 2, threads: 32, sizes: { R: 300, C: 5 } },
      ];
      const docs = ["colsoftmax.json", "colmean_scale.json"].map((f) => ({ f, doc: dtype === "f32" ? text(f) : withDtype(text(f), dtype) }));
      // this test's kernels compiled in one g++ run first; each validate still compiles its own (cached)
      prefetchKernels(h.runtime, h.wasm, docs.flatMap(({ doc }) => mappings.map((options) => ({ doc, options }))));
      for (const { f, doc } of docs) {
        for (const options of mappings) {
          const e = validate(doc, options);
          expect(e.plan.mapping.cached, `${f} ${JSON.stringify(options)}`).toBe(true);
          expect(deviceReads(afterFill(e.msl), "X"), `${f} ${JSON.stringify(options)}`).toBe(0);
          // no packed access of X anywhere: its stripes are columns
          expect(e.msl).not.toMatch(/packed_[a-z]+4\*\)\(&X\[/);
        }
      }
    });
  }

  it("a row stripe's fill stays packed (the row softmax at V = 4)", () => {
    const doc = JSON.stringify({
      tile: 1, name: "rowsoftmax", attrs: { noalias: true }, sizes: { R: 6, C: 1000 },
      params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R", "C"] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "m", combiner: "max", over: ["c", 0, "C"], value: ["load", "X", ["r", "c"]] },
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["exp", ["sub", ["load", "X", ["r", "c"]], "m"]] },
        { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: ["r", "c"], value: ["div", ["exp", ["sub", ["load", "X", ["r", "c"]], "m"]], "s"] }] },
      ] }],
    });
    const e = validate(doc, { vector: 4, threads: 64 });
    expect(e.plan.mapping.cached).toBe(true);
    expect(e.msl).toMatch(/packed_float4\*\)\(&X\[/);
  });

  it("a buffer read as a column in one stage and as a row in another is not cached", () => {
    const doc = JSON.stringify({
      tile: 1, name: "rowcol", attrs: { noalias: true }, sizes: { N: 67 },
      params: [{ name: "X", dtype: "f32", shape: ["N", "N"] }, { name: "Y", dtype: "f32", shape: ["N"] }],
      body: [{ for: "c", in: [0, "N"], kind: "parallel", body: [
        { reduce: "a", combiner: "sum", over: ["r", 0, "N"], value: ["load", "X", ["r", "c"]] },
        // b reads a, so the two reduces are not siblings (one pass, test/siblings.test.ts): X is
        // read in two stages, and caching it is what the rule decides
        { reduce: "b", combiner: "max", over: ["r", 0, "N"], value: ["sub", ["load", "X", ["c", "r"]], "a"] },
        { store: "Y", at: ["c"], value: ["add", "a", "b"] },
      ] }],
    });
    // (the rule's verdict and pointer for this document: test/legality.test.ts, pk_cached_row_and_column)
    const e = validate(doc, { threads: 64 });
    expect(e.plan.mapping.cached).toBe(false);
    expect(deviceReads(afterFill(e.msl), "X")).toBeGreaterThanOrEqual(2);
    // with the stripe in the same dimension in both reads, the same document is cached
    const same = doc.replace('["load","X",["c","r"]]', '["load","X",["r","c"]]');
    expect(same).not.toBe(doc);
    const e2 = validate(same, { threads: 64 });
    expect(e2.plan.mapping.cached).toBe(true);
    expect(deviceReads(afterFill(e2.msl), "X")).toBe(0);
  });

  it("the diagonal X[r, r] is not a stripe: one variable in two indices is never cached", () => {
    const doc = JSON.stringify({
      tile: 1, name: "diag", attrs: { noalias: true }, sizes: { N: 40, M: 3 },
      params: [{ name: "X", dtype: "f32", shape: ["N", "N"] }, { name: "B", dtype: "f32", shape: ["M"] }, { name: "Y", dtype: "f32", shape: ["M"] }],
      body: [{ for: "p", in: [0, "M"], kind: "parallel", body: [
        { reduce: "a", combiner: "sum", over: ["r", 0, "N"], value: ["mul", ["load", "X", ["r", "r"]], ["load", "B", ["p"]]] },
        { reduce: "b", combiner: "max", over: ["r", 0, "N"], value: ["sub", ["load", "X", ["r", "r"]], "a"] },
        { store: "Y", at: ["p"], value: ["add", "a", "b"] },
      ] }],
    });
    const e = validate(doc, { threads: 64 });
    expect(e.plan.mapping.cached).toBe(false);
  });
});
