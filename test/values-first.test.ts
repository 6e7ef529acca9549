// A distributed loop that loads and stores computes its U chunks' values before storing any of
// them (issue 16, session 23; core/analysis/hoist.ts, core/emit/cooperative.ts emitValuesFirst):
// the compiler keeps each load below the stores before it, so chunk by chunk a worker waits for
// every load in turn. Run 67 on an H200 (evidence/h200/run67/variants.txt): the column softmax at
// 16384x512 took 87.29 us at U = 1, 91.69 at U = 4 as emitted before, 73.60 at U = 4 and 62.66 at
// U = 8 with the values first. The H200 record charges storeChainNs per waiting iteration, and the
// automatic search scores an uncached U = 8 twin of each programs-on-lanes candidate there.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { runAndValidate } from "../shell-node/src/validate-run";
import { emitBothChecked, hostContext, prefetchKernels } from "./helpers/host";
import { ROOT } from "./helpers/files";

const h = hostContext();
const lanesDoc = (name: string) => fs.readFileSync(path.join(ROOT, "test", "fixtures", "lanes", name + ".json"), "utf8");
const COLSOFTMAX = lanesDoc("colsoftmax");
const COLMEAN = lanesDoc("colmean_scale");
const COLSUM = lanesDoc("colsum");
const H200 = JSON.parse(fs.readFileSync(path.join(ROOT, "devices", "nvidia-h200-calibrated.json"), "utf8"));
const MARK = "chunks' values first, then their stores";

const emitBoth = (doc: string, options: object): any => emitBothChecked(h, doc, options);

function passes(doc: string, options: object): { passed: boolean; msl: string } {
  const emitted = emitBoth(doc, options);
  const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text: doc, options, seed: 11, emitted });
  return { passed: r.passed && r.guards === "intact", msl: emitted.msl };
}

/** The column scaled mean with its store loop's body replaced. */
function colDoc(storeBody: unknown[]): string {
  const d = JSON.parse(COLMEAN);
  d.body[0].body[2].body = storeBody;
  return JSON.stringify(d);
}

describe("values first in loops that store", () => {
  it("emits every chunk's value before the first store where the body is only stores reading nothing they store", () => {
    const lanes = { layout: "programs-on-lanes", programsPerGroup: 8, threads: 256, unroll: 4, cacheInput: false, sizes: { R: 512, C: 64 } };
    const e = emitBoth(COLMEAN, lanes);
    expect(e.msl).toContain("the 4 " + MARK);
    const loop = e.msl.slice(e.msl.indexOf("parallel loop over r"));
    // four values, then four stores: no store before the last value
    const lastValue = loop.lastIndexOf("tile_hv");
    expect(loop.indexOf("Y[")).toBeGreaterThan(loop.indexOf("= (X["));
    expect((loop.slice(0, loop.indexOf("Y[")).match(/X\[/g) ?? []).length).toBe(4);
    expect(lastValue).toBeGreaterThan(loop.indexOf("Y["));
    // U = 1, and workers on lanes with packed vectors, are emitted as before
    expect(emitBoth(COLMEAN, { ...lanes, unroll: 1 }).msl).not.toContain(MARK);
    expect(emitBoth(lanesDoc("colsoftmax"), { vector: 4, unroll: 2, threads: 64, layout: "workers-on-lanes", sizes: { R: 64, C: 64 } }).msl).not.toContain(MARK);
  });

  it("keeps the order where a value reads what the loop stores, or the body holds more than stores", () => {
    const opts = { layout: "programs-on-lanes", programsPerGroup: 8, threads: 256, unroll: 4, cacheInput: false, sizes: { R: 512, C: 64 } };
    // in place: Y[r, c] = X[r, c] then Y[r, c] = Y[r, c] * W[c] (the second reads the first's buffer)
    const inPlace = colDoc([
      { store: "Y", at: ["r", "c"], value: ["sub", ["load", "X", ["r", "c"]], "mu"] },
      { store: "Y", at: ["r", "c"], value: ["mul", ["load", "Y", ["r", "c"]], ["load", "W", ["c"]]] },
    ]);
    const a = passes(inPlace, opts);
    expect(a.msl).not.toContain(MARK);
    expect(a.passed).toBe(true);
    // a let in the body
    const withLet = colDoc([
      { let: "t", value: ["sub", ["load", "X", ["r", "c"]], "mu"] },
      { store: "Y", at: ["r", "c"], value: ["mul", "t", ["load", "W", ["c"]]] },
    ]);
    const b = passes(withLet, opts);
    expect(b.msl).not.toContain(MARK);
    expect(b.passed).toBe(true);
    // two stores to two buffers, neither read: values first, and it validates
    const d = JSON.parse(colDoc([
      { store: "Y", at: ["r", "c"], value: ["sub", ["load", "X", ["r", "c"]], "mu"] },
      { store: "Z", at: ["r", "c"], value: ["mul", ["load", "X", ["r", "c"]], ["load", "W", ["c"]]] },
    ]));
    d.params.push({ name: "Z", dtype: "f16", shape: ["R", "C"] });
    const c = passes(JSON.stringify(d), opts);
    expect(c.msl).toContain("the 4 " + MARK);
    expect(c.msl).toMatch(/Z\[[^\]]+\] = half\(tile_hv\d+\);/);
    expect(c.passed).toBe(true);
  });

  it("validates on the host runtime: ragged and whole stripes, U = 2, 3, 8, cached and uncached, tail replay, row kernels at V = 1", () => {
    const runs: { doc: string; options: object }[] = [];
    for (const doc of [COLSOFTMAX, COLMEAN]) {
      for (const [R, C] of [[512, 64], [100, 37], [1000, 9], [64, 300]]) {
        for (const unroll of [2, 3, 8]) {
          for (const cacheInput of [true, false]) {
            runs.push({ doc, options: { layout: "programs-on-lanes", programsPerGroup: 8, threads: 256, unroll, cacheInput, sizes: { R, C } } });
          }
        }
      }
    }
    const rows = ["softmax", "layernorm_affine", "rmsnorm_f16"].map((name) => ({ name, doc: fs.readFileSync(path.join(ROOT, "cases", name + ".json"), "utf8"), options: { vector: 1, unroll: 3, threads: 64, cacheInput: false } }));
    // every kernel below compiled in one g++ run first; each run still compiles its own (cached)
    prefetchKernels(h.runtime, h.wasm, [...runs, ...rows]);
    for (const { doc, options: o } of runs) expect(passes(doc, o).passed, JSON.stringify(o)).toBe(true);
    for (const { name, doc, options } of rows) {
      const r = passes(doc, options);
      expect(r.msl).toContain("the 3 " + MARK);
      expect(r.passed, name).toBe(true);
    }
  });

  it("the H200 record scores U = 8 uncached beside U = 1 where a storing loop loads, and picks it where run 67 measured it faster", () => {
    const ms = fs.readFileSync(path.join(ROOT, "evidence", "h200", "run67", "variants.txt"), "utf8");
    const us = (name: string) => Number(new RegExp("^" + name + "\\s+([\\d.]+)", "m").exec(ms)![1]);
    // the uncached automatic plans that run 67 timed at U = 1 and at U = 8 with the values first
    for (const [doc, k, R, C] of [[COLSOFTMAX, "colsoftmax", 16384, 512], [COLSOFTMAX, "colsoftmax", 8192, 1024],
      [COLMEAN, "colmean_scale", 16384, 512], [COLMEAN, "colmean_scale", 8192, 1024], [COLMEAN, "colmean_scale", 4096, 4096]] as const) {
      const auto = emitBoth(doc, { sizes: { R, C }, device: H200 });
      expect(us(`${k}_${R}x${C}_U8_H`)).toBeLessThan(us(`${k}_${R}x${C}_U1`));
      // the widths run 67 timed (the header of the kernel it emitted, the automatic plan then)
      const header = fs.readFileSync(path.join(ROOT, "evidence", "h200", "run67", "exp", `${k}_${R}x${C}_U8.metal`), "utf8").split("\n").find((l) => l.startsWith("// tile:"))!;
      const [P, T] = [Number(/ P=(\d+)/.exec(header)![1]), Number(/ T=(\d+)/.exec(header)![1])];
      expect(auto.plan.mapping.U).toBe(8);
      expect(auto.plan.mapping.cached).toBe(false);
      expect([auto.plan.mapping.P, auto.plan.mapping.T]).toEqual([P, T]);
      const one = emitBoth(doc, { sizes: { R, C }, device: H200, layout: "programs-on-lanes", programsPerGroup: P, threads: T, unroll: 1, cacheInput: false });
      expect(auto.plan.notes.join(" ")).toContain("U = 8 (the automatic unroll)");
      expect(auto.msl).toContain("the 8 " + MARK);
      // the model's U = 1 / U = 8 ratio is on the measured side of 1
      expect(one.plan.cost.total).toBeGreaterThan(auto.plan.cost.total);
    }
    // the column softmax at 4096x4096 keeps its cached U = 1 plan (its store loop reads registers)
    const cached = emitBoth(COLSOFTMAX, { sizes: { R: 4096, C: 4096 }, device: H200 });
    expect([cached.plan.mapping.U, cached.plan.mapping.cached]).toEqual([1, true]);
    // a kernel without a storing loop (the column sum) has no U = 8 candidates
    const sum = emitBoth(COLSUM, { sizes: { R: 16384, C: 512 }, device: H200, candidates: true });
    expect(sum.plan.candidates.every((c: any) => c.mapping.U === 1)).toBe(true);
  });

  it("the waits are storeChainNs per iteration, once per U chunks with the values first; no charge and no U = 8 candidates where the device gives none", () => {
    const sizes = { R: 16384, C: 512 };
    const lanes = { layout: "programs-on-lanes", programsPerGroup: 8, threads: 1024, cacheInput: false, sizes };
    const withChain = (v: number) => ({ ...H200, costModel: { ...H200.costModel, storeChainNs: v } });
    const lat = (u: number, v: number) => emitBoth(COLMEAN, { ...lanes, unroll: u, device: withChain(v) }).plan.cost.terms.latency;
    // W = 128 workers, 16384 rows: 128 chunks; one wave
    expect(lat(1, 100) - lat(1, 0)).toBeCloseTo(128 * 100, 3);
    expect(lat(8, 100) - lat(8, 0)).toBeCloseTo(16 * 100, 3);
    // 16384 rows at W = 128 and U = 3: 42 whole iterations of 3, then 2 guarded chunks one by one
    expect(lat(3, 100) - lat(3, 0)).toBeCloseTo(44 * 100, 3);
    // the default (Apple) record has no storeChainNs: U stays 1 and no U = 8 candidate is scored
    const m1 = emitBoth(COLMEAN, { sizes, candidates: true });
    expect(m1.plan.mapping.U).toBe(1);
    expect(m1.plan.candidates.every((c: any) => c.mapping.U === 1)).toBe(true);
  });
});
