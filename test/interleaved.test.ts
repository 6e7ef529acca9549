// Interleaved stores in the element grid (session 28; test/fixtures/interleaved/): a rotary
// embedding that writes the pair (2i, 2i + 1) of each row from one thread. The partition of an
// output among several stores (core/legality/fusion.ts checkPartition) took only images apart as
// ranges (the halves i and i + H); an index k*i + c now has the image lo + k*t, and two images
// whose steps' common divisor does not divide the distance between their starts never meet
// (apartIn). Coverage is still exact: the images' element counts must add up to the buffer's.
// Before, the interleaved rotary embedding ran one thread per row (the serial program).
// In the reduction family, two stores of one distributed loop whose indices differ by a constant
// that the coefficients' common divisor does not divide never meet (core/legality/packing.ts
// neverZero): T[r, 2c] and T[r, 2c + 1] are written by their owners, where before the kernel was
// serial.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { emitBothChecked, hostContext, validatesOnHost } from "./helpers/host";
import { FIXTURES_DIR } from "./helpers/files";

const h = hostContext();
const read = (name: string): string => fs.readFileSync(path.join(FIXTURES_DIR, "interleaved", name + ".json"), "utf8");
const ROPE = read("rope_interleaved");
const PAIRS = read("softmax_pairs");
const PAIRS_MEET = read("softmax_pairs_meet");

const rule = (plan: any, id: string): any => plan.rules.find((r: any) => r.id === id);

const passes = (doc: string, options: object): boolean => validatesOnHost(h, doc, options, 5);

describe("interleaved stores of one output", () => {
  it("a rotary embedding's pairs (2i, 2i + 1) are one fused element grid, and validate at V = 1, 4, 8 with the detector on", () => {
    const e = emitBothChecked(h, ROPE, {});
    expect(e.plan.realization).toBe("fused-elementwise");
    expect(rule(e.plan, "injective-compact-store").verdict).toBe("holds");
    expect(rule(e.plan, "injective-compact-store").reason).toContain("interleaved: 2i and 2i + 1");
    expect(rule(e.plan, "single-writer").verdict).toBe("holds");
    expect(h.runtime.detectorEnabled()).toBe(true);
    for (const options of [{}, { vector: 4 }, { vector: 8 }, { vector: 4, unroll: 2 }, { sizes: { R: 64, H: 32, D: 64 } }]) {
      expect(passes(ROPE, options), JSON.stringify(options)).toBe(true);
    }
    // four interleaved stores (4i + 0..3) in any order partition a buffer of 4H columns
    const four = JSON.parse(ROPE);
    const body = four.body[0].body[0].body;
    four.sizes.D = 4 * four.sizes.H;
    four.body[0].body[0].body = [...body.slice(0, 2), ...[0, 3, 1, 2].map((c) => ({ store: "Y", at: ["r", ["add", ["mul", 4, "i"], c]], value: ["add", "a", ["f32", c]] }))];
    const f = emitBothChecked(h, JSON.stringify(four), {});
    expect(f.plan.realization).toBe("fused-elementwise");
    expect(passes(JSON.stringify(four), { vector: 4 })).toBe(true);
  });

  it("stores that meet (2i and 2i + 2) or leave elements unwritten (3i and 3i + 1 of 3H) are not fused; the unwritten thirds run as programs", () => {
    const overlap = emitBothChecked(h, read("pairs_overlap"), {});
    expect(overlap.plan.realization).toBe("serial-program");
    expect(rule(overlap.plan, "injective-compact-store").verdict).toBe("unknown");
    expect(rule(overlap.plan, "injective-compact-store").reason).toContain("meet in every dimension");
    // the grid's rules are in the fused rejection; each row is then a program whose workers write
    // its own elements (session 29: programs before the serial program)
    const thirds = emitBothChecked(h, read("thirds_uncovered"), {});
    expect(thirds.plan.realization).toBe("cooperative-reduction");
    expect(thirds.plan.rejections[0].realization).toBe("fused-elementwise");
    expect(thirds.plan.rejections[0].failed).toContain("injective-compact-store");
    expect(thirds.plan.rejections[0].message).toContain("part of the buffer is never written");
    expect(passes(read("thirds_uncovered"), { vector: 4, threads: 32 })).toBe(true);
    expect(passes(read("pairs_overlap"), {})).toBe(true);
    expect(passes(read("thirds_uncovered"), {})).toBe(true);
  });
});

describe("even and odd elements stored by one distributed loop (reduction family)", () => {
  it("T[r, 2c] and T[r, 2c + 1] are written by their owners: cooperative, validated with the detector on", () => {
    const e = emitBothChecked(h, PAIRS, {});
    expect(e.plan.realization).toBe("cooperative-reduction");
    expect(rule(e.plan, "independent-store").verdict).toBe("holds");
    for (const options of [{}, { vector: 4 }, { vector: 8, unroll: 2 }, { cacheInput: false, vector: 4, unroll: 3 }, { layout: "programs-on-lanes" }]) {
      expect(passes(PAIRS, options), JSON.stringify(options)).toBe(true);
    }
  });

  it("T[r, 2c] and T[r, 2c + 2] meet (2c' = 2c + 2): not proven, and the serial program runs it", () => {
    const e = emitBothChecked(h, PAIRS_MEET, {});
    expect(e.plan.realization).toBe("serial-program");
    expect(rule(e.plan, "independent-store").verdict).toBe("unknown");
    expect(passes(PAIRS_MEET, {})).toBe(true);
  });
});

describe("a flat column-major output (reduction family)", () => {
  const FLAT = read("max_shift_flat_transposed");
  const SHORT = read("max_shift_flat_short");

  it("F[c * R + r] over programs r in [0, R): the multiples of R move farther than the programs reach, so programs write apart", () => {
    const e = emitBothChecked(h, FLAT, {});
    expect(e.plan.realization).toBe("cooperative-reduction");
    expect(rule(e.plan, "independent-store").verdict).toBe("holds");
    for (const options of [{}, { vector: 4 }, { layout: "workers-on-lanes", threads: 64, vector: 4, unroll: 2 }, { layout: "programs-on-lanes", programsPerGroup: 16, threads: 512 }]) {
      expect(passes(FLAT, options), JSON.stringify(options)).toBe(true);
    }
  });

  it("F[c * (R - 1) + r] collides (c = 1, r = 0 and c = 0, r = R - 1): not proven, and the programs run in order", () => {
    const e = emitBothChecked(h, SHORT, {});
    expect(e.plan.realization).toBe("serial-program");
    expect(rule(e.plan, "independent-store").verdict).toBe("unknown");
    expect(passes(SHORT, {})).toBe(true);
  });
});

describe("even and odd elements of a flat column-major output (reduction family)", () => {
  it("F[2 * (c * R + r)] and F[2 * (c * R + r) + 1] never meet in any two programs: cooperative, validated", () => {
    const FP = read("flat_pairs");
    const e = emitBothChecked(h, FP, {});
    expect(e.plan.realization).toBe("cooperative-reduction");
    expect(rule(e.plan, "independent-store").verdict).toBe("holds");
    for (const options of [{}, { vector: 4 }, { layout: "programs-on-lanes", programsPerGroup: 8, threads: 256 }]) {
      expect(passes(FP, options), JSON.stringify(options)).toBe(true);
    }
    // 2 * (c * R + r) + 2 is the even element of the next program's column: serial
    const meet = JSON.parse(FP);
    meet.body[0].body[1].body[1].at[0][2] = 2;
    meet.sizes.N += 2;
    expect(emitBothChecked(h, JSON.stringify(meet), {}).plan.realization).toBe("serial-program");
  });
});
