// Loops and reduces whose ranges vary by program (session 28; test/fixtures/ragged/): a causal
// softmax over [0, r + 1), a band [r, C - 2r) stored and read back. The emitter's stripes give
// iteration v of a distributed loop to the worker that v - min decides, whatever the extent
// (core/emit/cooperative.ts emitStripe), so two distributed loops with one minimum that is the
// same in every worker of a program (a constant, or one form of the program variable) share
// their owners (core/legality/packing.ts sameOwners): the store is owner-local and the
// cooperative realization is proven. Before, only identical constant ranges counted, and a causal
// softmax ran one thread per row. Loops with other minimums still do not share owners: a band
// read back from 0 stays serial. The cost model counts such a stage by its mean extent over the
// programs (core/cost/work.ts meanExtent), not as one element. Session 29: a buffer read in two
// stages over one such range (a causal row [0, r + 1), a window [r, r + K), a band [r, C - r))
// is kept in registers, the stripe sized for the longest range (core/legality/packing.ts
// stripeRange).
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { emitBothChecked, hostContext, prefetchKernels, validatesOnHost } from "./helpers/host";
import { FIXTURES_DIR, ROOT } from "./helpers/files";

const h = hostContext();
const read = (name: string): string => fs.readFileSync(path.join(FIXTURES_DIR, "ragged", name + ".json"), "utf8");
const CAUSAL = read("causal_softmax");
const BAND = read("band_scale");
const BAND_FROM_ZERO = read("band_read_from_zero");
const WINDOW = read("window_softmax");
const UPPER = read("upper_softmax");
const ZEROS = read("causal_softmax_zeros");
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
      const widths: object[] = [
        {},
        { vector: 4, threads: 64 },
        { vector: 8, unroll: 2, threads: 32, sizes: { R: 37, C: 301 } },
        { unroll: 3, programsPerGroup: 2, threads: 64 },
        { layout: "programs-on-lanes", programsPerGroup: 8, threads: 256, sizes: lanes8 },
        { layout: "programs-on-lanes", programsPerGroup: 4, threads: 256, unroll: 2, sizes: { R: 64, C: 300 } },
      ];
      // these kernels compiled in one g++ run first; each run still compiles its own (cached)
      prefetchKernels(h.runtime, h.wasm, widths.map((options) => ({ doc, options })));
      for (const options of widths) expect(passes(doc, options), JSON.stringify(options)).toBe(true);
    }
    // a causal softmax with a tail group that replays a program (nothing is read back)
    expect(passes(CAUSAL, { programsPerGroup: 4, threads: 128, sizes: { R: 37, C: 40 } })).toBe(true);
  });

  it("a causal row is kept in registers: the stripe is sized for the longest row, its fill and stages guarded by the row's own end", () => {
    // private-ownership (core/legality/packing.ts stripeRange): a constant minimum and one extent
    // affine in the program variable in every read; the emitter sizes cache_X for the largest
    // extent over the programs and runs every stage reading it over that many chunks (constant
    // indices into the registers), each element guarded by the program's own end
    for (const device of [undefined, H200]) {
      const options: any = device ? { device, sizes: { R: 4096, C: 4096 } } : {};
      const e = emitBothChecked(h, CAUSAL, options);
      expect(e.plan.realization).toBe("cooperative-reduction");
      expect(e.plan.mapping.cached).toBe(true);
      expect(e.plan.mapping.cacheBuffers).toEqual(["X"]);
      expect(verdict(e.plan, "private-ownership")).toBe("holds");
      expect(e.plan.rules.find((r: any) => r.id === "private-ownership").reason).toContain("one identical range per program");
    }
    const m = { threads: 64, vector: 4, sizes: { R: 300, C: 300 } };
    const e = emitBothChecked(h, CAUSAL, m);
    expect(e.plan.mapping.cached).toBe(true);
    // 300 elements at most per row over W * V = 256: 2 chunks, 8 slots per worker
    expect(e.msl).toContain("float cache_X[8];");
    expect(e.msl).toContain("if (tile_v0 + 4 <= (r + 1)) {");
    expect(e.msl).not.toMatch(/chunks_\d/);
    expect(passes(CAUSAL, m)).toBe(true);
    // the same rows read at another extent in one stage (the max over the whole row): not the same
    // stripe in every stage, so nothing is cached, and the kernel is still right
    const mixed = JSON.parse(CAUSAL);
    mixed.body[0].body[0].over[2] = "C";
    const mixedDoc = JSON.stringify(mixed);
    const em = emitBothChecked(h, mixedDoc, {});
    expect(em.plan.realization).toBe("cooperative-reduction");
    expect(em.plan.mapping.cached).toBe(false);
    expect(passes(mixedDoc, { vector: 4, threads: 32 })).toBe(true);
    // uncached, on request, as before
    const u = emitBothChecked(h, CAUSAL, { cacheInput: false });
    expect(u.plan.mapping.cached).toBe(false);
    expect(passes(CAUSAL, { cacheInput: false, vector: 8, unroll: 2, threads: 32, sizes: { R: 37, C: 301 } })).toBe(true);
  });

  it("a varying range that is empty for some programs, or starts past 0, is kept in registers and validates", () => {
    // [3, 3 + (r - 2)): no element for r <= 2; [0, C - r): the longest row is the first
    const offset = JSON.parse(CAUSAL);
    const anti = JSON.parse(CAUSAL);
    for (const st of offset.body[0].body) {
      if (st.over) { st.over[1] = 3; st.over[2] = ["sub", "r", 2]; } else { st.in[0] = 3; st.in[1] = ["sub", "r", 2]; }
    }
    for (const st of anti.body[0].body) {
      if (st.over) st.over[2] = ["sub", "C", "r"]; else st.in[1] = ["sub", "C", "r"];
    }
    for (const doc of [JSON.stringify(offset), JSON.stringify(anti)]) {
      expect(emitBothChecked(h, doc, {}).plan.mapping.cached).toBe(true);
      for (const options of [{}, { vector: 4, threads: 32 }, { vector: 8, unroll: 2, threads: 32, sizes: { R: 37, C: 301 } }, { layout: "programs-on-lanes", programsPerGroup: 4, threads: 128 }]) {
        expect(passes(doc, options), JSON.stringify(options)).toBe(true);
      }
    }
  });

  it("a window [r, r + K), an upper-triangular row [r, C - r) and a band [r, C - 2r) (minimums that vary by program) are kept in registers", () => {
    const e = emitBothChecked(h, WINDOW, {});
    expect(e.plan.realization).toBe("cooperative-reduction");
    expect(e.plan.mapping.cached).toBe(true);
    expect(verdict(e.plan, "private-ownership")).toBe("holds");
    for (const options of [{}, { vector: 4, threads: 32 }, { vector: 8, unroll: 2, threads: 32 }, { layout: "programs-on-lanes", programsPerGroup: 4, threads: 128 }, { vector: 4, threads: 64, sizes: { K: 300, CK: 344 } }, { sizes: { K: 1, CK: 45 } }]) {
      expect(passes(WINDOW, options), JSON.stringify(options)).toBe(true);
    }
    // the sum over [r + 1, r + 1 + K): another minimum, so another stripe: nothing cached, still right
    const shifted = JSON.parse(WINDOW);
    shifted.body[0].body[1].over[1] = ["add", "r", 1];
    shifted.sizes.CK = 82;
    const shiftedDoc = JSON.stringify(shifted);
    const es = emitBothChecked(h, shiftedDoc, {});
    expect(es.plan.realization).toBe("cooperative-reduction");
    expect(es.plan.mapping.cached).toBe(false);
    expect(passes(shiftedDoc, { vector: 4, threads: 32 })).toBe(true);
    // a minimum and an extent that both vary: the stripe's last value is one affine form
    // (min + extent - 1), so [r, C - r) is proven inside the row (the two ranges added would reach
    // R - 1 + C - 1); every stage over the same range reads the registers
    for (const doc of [UPPER, BAND]) {
      const eb = emitBothChecked(h, doc, {});
      expect(eb.plan.mapping.cached).toBe(true);
      expect(verdict(eb.plan, "private-ownership")).toBe("holds");
      for (const options of [{}, { vector: 4, threads: 32 }, { vector: 8, unroll: 2, threads: 32, sizes: { R: 37, C: 301 } }, { layout: "programs-on-lanes", programsPerGroup: 4, threads: 128, sizes: { R: 48, C: 130 } }, { sizes: { R: 1, C: 1 } }]) {
        expect(passes(doc, options), JSON.stringify(options)).toBe(true);
      }
    }
  });

  it("a causal row and the zeros after it are written apart within a program: cooperative (and cached); an overlap at c = r is not", () => {
    // the stores Y[r, c] for c in [0, r + 1) and for c in [r + 1, C - r - 1): the first ends at r,
    // the second starts at r + 1 in every program (core/legality/packing.ts apartInProgram, on
    // each index's least and greatest value as forms of r)
    const e = emitBothChecked(h, ZEROS, {});
    expect(e.plan.realization).toBe("cooperative-reduction");
    expect(verdict(e.plan, "independent-store")).toBe("holds");
    expect(e.plan.mapping.cached).toBe(true);
    for (const options of [{}, { vector: 4, threads: 32 }, { vector: 8, unroll: 2, threads: 32 }, { layout: "programs-on-lanes", programsPerGroup: 4, threads: 128 }, { sizes: { R: 33, C: 300 } }, { sizes: { R: 1, C: 1 } }]) {
      expect(passes(ZEROS, options), JSON.stringify(options)).toBe(true);
    }
    // the zeros from r: both loops write Y[r, r], by different workers: not proven
    const overlap = JSON.parse(ZEROS);
    overlap.body[0].body[3].in = ["r", ["sub", "C", "r"]];
    const od = JSON.stringify(overlap);
    const o = emitBothChecked(h, od, {});
    expect(o.plan.realization).toBe("serial-program");
    expect(passes(od, {})).toBe(true);
  });

  it("a plan claims a register stripe only where the kernel holds one, and only where its 32-bit element arithmetic cannot wrap", () => {
    // (red team of session 29) X[r, c + 2] read in three stages: the emitter serves a load from
    // the stripe only where its index is the variable itself, so the plan keeps X in memory too
    // (before, it said `cached` and the kernel read memory)
    const offset = JSON.parse(CAUSAL);
    offset.sizes = { R: 40, C: 100 };
    for (const st of offset.body[0].body) {
      if (st.over) { st.over[2] = 30; st.value = JSON.parse(JSON.stringify(st.value).replace('["r","c"]', '["r",["add","c",2]]')); }
      else { st.in[1] = 30; st.body[0].value = JSON.parse(JSON.stringify(st.body[0].value).replace('["r","c"]', '["r",["add","c",2]]')); }
    }
    const od = JSON.stringify(offset);
    expect(od).toContain('["add","c",2]');
    const o = emitBothChecked(h, od, { threads: 32, vector: 8 });
    expect(o.plan.mapping.cached).toBe(false);
    expect(o.msl).not.toContain("cache_X");
    expect(passes(od, { threads: 32, vector: 8 })).toBe(true);
    // a band whose minimum rises while its extent falls, near 2^31: the fill runs the largest
    // extent's chunks from each program's own minimum, past the end of the 32-bit integers; not
    // cached (the bound is the largest minimum plus the largest extent)
    const band = JSON.stringify({
      tile: 1, name: "ovf_band", attrs: { noalias: true }, sizes: { R: 40, C: 2147475455 },
      params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R", "C"] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "m", combiner: "max", over: ["c", ["add", 2147475355, ["mul", 210, "r"]], ["sub", 100, ["mul", 420, "r"]]], value: ["load", "X", ["r", "c"]] },
        { for: "c", in: [["add", 2147475355, ["mul", 210, "r"]], ["sub", 100, ["mul", 420, "r"]]], kind: "parallel", body: [{ store: "Y", at: ["r", "c"], value: ["sub", ["load", "X", ["r", "c"]], "m"] }] },
      ] }],
    });
    const b = emitBothChecked(h, band, { threads: 32, vector: 8 });
    expect(b.plan.realization).toBe("cooperative-reduction");
    expect(b.plan.mapping.cached).toBe(false);
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
