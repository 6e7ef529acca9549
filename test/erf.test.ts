// `erf`: the oracle's double erf (Cody) against 20-digit references, the f32 helper the emitter
// writes (its error on a sample of every binade, special values), and where the helper appears.
import { describe, expect, it, beforeAll } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { erf64 } from "../shell-node/src/erf64";
import { loadEngine, Engine } from "../shell-node/src/engine";
import { ROOT } from "./helpers/files";

// erf at 40 digits (mpmath 1.3.0, mp.dps = 40), printed to 20 significant digits.
const REFERENCE: Array<[number, number]> = [
  [0, 0.0], [1e-300, 1.1283791670955126022e-300], [1e-10, 1.128379167095512615e-10],
  [0.1, 0.1124629160182848984], [0.3, 0.32862675945912741619], [0.46875, 0.49261347321793799159],
  [0.46875000000000006, 0.49261347321793804187], [0.5, 0.52049987781304653768],
  [0.75, 0.7111556336535151316], [1, 0.84270079294971486934], [1.5, 0.96610514647531072707],
  [2, 0.99532226501895273416], [2.5, 0.99959304798255504106], [3, 0.99997790950300141456],
  [3.5, 0.99999925690162765859], [3.9999999, 0.99999998458272940148], [4, 0.99999998458274209972],
  [4.0000001, 0.99999998458275479795], [4.5, 0.99999999980338395585], [5, 0.99999999999846254021],
  [5.8, 0.99999999999999976444], [-0.2, -0.22270258921047846618], [-1.25, -0.92290012825645823014],
  [-3.3, -0.99999694229020356183], [-4.7, -0.99999999997004740214],
];

describe("the oracle's erf (Cody's rational approximations, double)", () => {
  it("is within 2 ulp of a double of 40-digit references on every range", () => {
    for (const [x, want] of REFERENCE) {
      const got = erf64(x);
      const tol = want === 0 ? 0 : 2 * 2 ** -52 * Math.abs(want);
      expect(Math.abs(got - want), String(x)).toBeLessThanOrEqual(tol);
    }
  });
  it("is odd, saturates and propagates NaN", () => {
    expect(Object.is(erf64(-0), -0)).toBe(true);
    expect(erf64(30)).toBe(1);
    expect(erf64(-Infinity)).toBe(-1);
    expect(erf64(Infinity)).toBe(1);
    expect(erf64(NaN)).toBeNaN();
    for (const x of [0.3, 0.9, 2.2, 4.4]) expect(erf64(-x)).toBe(-erf64(x));
  });
});

let engine: Engine;
beforeAll(async () => {
  engine = await loadEngine("wasm");
});
const caseText = (name: string): string => fs.readFileSync(path.join(ROOT, "cases", name + ".json"), "utf8");
const count = (s: string, sub: string): number => s.split(sub).length - 1;

describe("the emitted tile_erf helper", () => {
  it("is written once, before the kernel, exactly where erf is used, in every realization", () => {
    for (const options of [{}, { fuse: false }]) {
      const r = engine.call({ command: "emit", document: caseText("gelu_exact_pair"), options });
      expect(r.ok).toBe(true);
      expect(count(r.msl, "static inline float tile_erf(float x)")).toBe(1);
      expect(r.msl.indexOf("tile_erf(float x)")).toBeLessThan(r.msl.indexOf("kernel void"));
      // the definition and the one call (two where the row's ragged last vector has its own copy of the body)
      expect(count(r.msl, "tile_erf(")).toBe(r.msl.includes("ragged last vector, element by element") ? 3 : 2);
      expect(r.audit.ok).toBe(true);
      expect(r.audit.findings).toEqual([]);
    }
    for (const name of ["gelu_pair", "softmax", "sigmoid_pair"]) {
      expect(engine.call({ command: "emit", document: caseText(name), options: {} }).msl).not.toContain("tile_erf");
    }
  });

  it("is within the documented 1.1 ulp on a sample of every binade, with exact special values", () => {
    // every 65,537-th bit pattern (a prime stride: all exponents and both signs); the full
    // 2^32 sweep is `node scripts/erf/erf-exhaustive.mjs` (see README)
    const p = spawnSync(process.execPath, [path.join(ROOT, "scripts/erf/erf-exhaustive.mjs"), "--stride", "65537", "--json"], { encoding: "utf8" });
    expect(p.status, p.stderr).toBe(0);
    const r = JSON.parse(p.stdout);
    expect(r.tested).toBeGreaterThan(60000);
    expect(r.maxUlp).toBeGreaterThan(0.1); // it is an approximation; a broken probe would give 0
    expect(r.maxUlp).toBeLessThanOrEqual(1.0987);
    expect(r.nan).toBe(true);
    expect([r.plusInf, r.minusInf]).toEqual([1, -1]);
    expect([r.plusZeroBits, r.minusZeroBits]).toEqual([0, 0x80000000]);
  });
});
