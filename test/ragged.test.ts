// Loops and reduces whose ranges vary by program (session 28; test/fixtures/ragged/): a causal
// softmax over [0, r + 1), a band [r, C - 2r) stored and read back. The emitter's stripes give
// iteration v of a distributed loop to the worker that v - min decides, whatever the extent
// (core/emit/cooperative.ts emitStripe), so two distributed loops with one minimum that is the
// same in every worker of a program (a constant, or one form of the program variable) share
// their owners (core/legality/packing.ts sameOwners): the store is owner-local and the
// cooperative realization is proven. Before, only identical constant ranges counted, and a causal
// softmax ran one thread per row. Loops with other minimums still do not share owners: a band
// read back from 0 stays serial. The cost model counts such a stage by its mean extent over the
// programs (core/cost/work.ts meanExtent), not as one element.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { emitBothChecked, hostContext, validatesOnHost } from "./helpers/host";
import { FIXTURES_DIR, ROOT } from "./helpers/files";

const h = hostContext();
const read = (name: string): string => fs.readFileSync(path.join(FIXTURES_DIR, "ragged", name + ".json"), "utf8");
const CAUSAL = read("causal_softmax");
const BAND = read("band_scale");
const BAND_FROM_ZERO = read("band_read_from_zero");
const H200 = JSON.parse(fs.readFileSync(path.join(ROOT, "devices", "nvidia-h200-calibrated.json"), "utf8"));

const verdict = (plan: any, rule: string): string => plan.rules.find((r: any) => r.id === rule)?.verdict;

const passes = (doc: string, options: object): boolean => validatesOnHost(h, doc, options, 3);

describe("ranges that vary by program", () => {
  it("a causal softmax and a band read back over the same range are cooperative: the stores are owner-local", () => {
    for (const doc of [CAUSAL, BAND]) {
      for (const device of [undefined, H200]) {
        const options: any = device ? { device } : {};
        const e = emitBothChecked(h, doc, options);
        expect(e.plan.realization).toBe("cooperative-reduction");
        expect(verdict(e.plan, "independent-store")).toBe("holds");
        expect(verdict(e.plan, "pure-expression")).toBe("holds");
        expect((e.diagnostics ?? []).map((d: any) => d.code)).not.toContain("TPL008");
      }
    }
  });

  it("a band read back from another minimum has other owners: not proven, and the serial program runs it", () => {
    const e = emitBothChecked(h, BAND_FROM_ZERO, {});
    expect(e.plan.realization).toBe("serial-program");
    // the rules checked for the rejected cooperative realization
    const rule = e.plan.rules.find((r: any) => r.id === "pure-expression");
    expect(rule.verdict).toBe("unknown");
    expect(rule.pointer).toBe("/body/0/body/2/body/0/value/1");
    expect(passes(BAND_FROM_ZERO, {})).toBe(true);
  });

  it("validate on the host runtime (race and bounds detector on) at every layout, vector, unroll and a replayed tail", () => {
    expect(h.runtime.detectorEnabled()).toBe(true);
    for (const doc of [CAUSAL, BAND]) {
      // (a causal row needs R <= C; a band read back needs whole groups: no replayed program reads Y)
      const lanes8 = { R: 48, C: doc === CAUSAL ? 48 : 130 };
      for (const options of [
        {},
        { vector: 4, threads: 64 },
        { vector: 8, unroll: 2, threads: 32, sizes: { R: 37, C: 301 } },
        { unroll: 3, programsPerGroup: 2, threads: 64 },
        { layout: "programs-on-lanes", programsPerGroup: 8, threads: 256, sizes: lanes8 },
        { layout: "programs-on-lanes", programsPerGroup: 4, threads: 256, unroll: 2, sizes: { R: 64, C: 300 } },
      ]) expect(passes(doc, options), JSON.stringify(options)).toBe(true);
    }
    // a causal softmax with a tail group that replays a program (nothing is read back)
    expect(passes(CAUSAL, { programsPerGroup: 4, threads: 128, sizes: { R: 37, C: 40 } })).toBe(true);
  });

  it("the cost model counts a varying stage by its mean extent over the programs", () => {
    // a causal row of 4096 programs has about 2048 elements on average: the same mapping costs
    // about what it costs with the constant extent 2048, and far more than one element per stage
    const fixed = CAUSAL.replace(/\[\s*"add",\s*"r",\s*1\s*\]/g, "2048");
    expect(fixed).not.toBe(CAUSAL);
    const mapping = { sizes: { R: 4096, C: 4096 }, device: H200, programsPerGroup: 1, threads: 256, vector: 4, unroll: 1, cacheInput: false };
    const causal = h.js.call({ command: "plan", document: CAUSAL, options: mapping });
    const constant = h.js.call({ command: "plan", document: fixed, options: mapping });
    const one = h.js.call({ command: "plan", document: CAUSAL.replace(/\[\s*"add",\s*"r",\s*1\s*\]/g, "1"), options: mapping });
    expect(causal.realization).toBe("cooperative-reduction");
    expect(causal.cost.total / constant.cost.total).toBeGreaterThan(0.95);
    expect(causal.cost.total / constant.cost.total).toBeLessThan(1.05);
    expect(causal.cost.terms.bytesRead / constant.cost.terms.bytesRead).toBeGreaterThan(0.95);
    expect(causal.cost.terms.bytesRead / constant.cost.terms.bytesRead).toBeLessThan(1.05);
    expect(causal.cost.terms.bytesRead).toBeGreaterThan(500 * one.cost.terms.bytesRead);
    expect(causal.cost.total).toBeGreaterThan(2 * one.cost.total);
    // the automatic plan at this size spreads a row over more than one SIMD group
    const auto = h.wasm.call({ command: "plan", document: CAUSAL, options: { sizes: { R: 4096, C: 4096 }, device: H200 } });
    expect(auto.realization).toBe("cooperative-reduction");
    expect(auto.mapping.W).toBeGreaterThan(32);
  });
});
