// Fuzz, through both builds of the core: for generated valid Tile IR (test/fuzz/gen.ts), the
// core never throws or traps, the WebAssembly and JS engines answer validate, plan and emit with
// identical bytes, every emitted kernel passes the audit, and every rejection names its failing
// rules. A failure prints the seed and the shrunk document and saves it under
// test/fixtures/fuzz-regressions/, which the replay below runs through every property.
// FUZZ_SEED and FUZZ_COUNT override the CI seed and count (scripts/fuzz-long.mjs sets them).
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import fc from "fast-check";
import { loadEngine, type Engine, type WasmEngine } from "../shell-node/src/engine";
import { openRuntime, type Runtime } from "../shell-node/src/native";
import { caseArb, type Case } from "./fuzz/gen";
import { checkProperty, engineProblems, HostBatch, REGRESSIONS } from "./fuzz/props";

const SEED = Number(process.env.FUZZ_SEED ?? 20240611);
const COUNT = Number(process.env.FUZZ_COUNT ?? 10_000);

let wasm: WasmEngine;
let js: Engine;

beforeAll(async () => {
  wasm = (await loadEngine("wasm")) as WasmEngine;
  js = await loadEngine("js");
  wasm.callText(JSON.stringify({ command: "version" }));
});

describe("the generator", () => {
  test("gives valid documents by construction, both families, every realization", () => {
    const cases = fc.sample(caseArb, { seed: SEED, numRuns: 1000 });
    let valid = 0;
    const seen = new Map<string, number>();
    for (const c of cases) {
      const v = js.call({ command: "validate", document: JSON.stringify(c.doc), options: {} });
      if (v.ok) valid++;
      const p = js.call({ command: "plan", document: JSON.stringify(c.doc), options: c.options });
      const key = `${c.family}:${p.ok ? p.realization : "rejected"}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    expect(valid).toBe(cases.length);
    for (const key of ["reduction:cooperative-reduction", "reduction:serial-program", "element:fused-elementwise", "element:serial-program"]) {
      expect(seen.get(key) ?? 0, key).toBeGreaterThan(50);
    }
  });

  test("draws the shapes the brief lists", () => {
    const docs = fc.sample(caseArb, { seed: SEED, numRuns: 2000 }).map((c) => JSON.stringify(c.doc));
    const has = (re: RegExp): number => docs.filter((d) => re.test(d)).length;
    expect(has(/"combiner":"sum"/)).toBeGreaterThan(100);
    expect(has(/"combiner":"max"/)).toBeGreaterThan(100);
    expect(has(/"kind":"serial"/)).toBeGreaterThan(50); // wrappers
    expect(has(/"in":\["r",1\]/)).toBeGreaterThan(10); // row-varying wrapper
    expect(has(/"in":\[[1-9],"R"\]/)).toBeGreaterThan(50); // row origins
    expect(has(/\["load","I",/)).toBeGreaterThan(50); // gathers
    expect(has(/"store":"X"/)).toBeGreaterThan(50); // in place
    expect(has(/"if":/)).toBeGreaterThan(50); // conditionals
    expect(has(/"shape":\["C","R"\]/)).toBeGreaterThan(50); // permuted maps
  });
});

describe("fuzz through both engines", () => {
  test(`${COUNT} generated documents (seed ${SEED}): no trap, identical bytes, audit clean, rejections named`, () => {
    const t0 = performance.now();
    checkProperty("engines", caseArb, SEED, COUNT, (c: Case) => engineProblems(c, wasm, js));
    expect(wasm.instances).toBe(1);
    console.log(`engine fuzz: ${COUNT} documents in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }, 600_000);

  test("a shrunk failure names the seed and saves a fixture (negative control)", () => {
    let message = "";
    try {
      checkProperty("control", caseArb, 7, 200, (c: Case) => (c.family === "reduction" && c.doc.sizes.C > 40 ? ["C is over 40"] : []));
    } catch (err) {
      message = String(err);
    }
    expect(message).toMatch(/seed 7/);
    expect(message).toMatch(/C is over 40/);
    const file = /saved as (\S+\.json)/.exec(message)?.[1] ?? "";
    try {
      expect(path.dirname(file)).toBe(REGRESSIONS);
      const saved = JSON.parse(fs.readFileSync(file, "utf8"));
      // shrunk: still failing, with one reduce and no wrapper
      expect(saved.seed).toBe(7);
      expect(saved.doc.sizes.C).toBeGreaterThan(40);
      expect(JSON.stringify(saved.doc).match(/"reduce":/g)!.length).toBe(1);
      expect(JSON.stringify(saved.doc)).not.toMatch(/"kind":"serial"/);
    } finally {
      if (file) fs.rmSync(file, { force: true });
    }
  });
});

describe("fuzz regressions", () => {
  const files = fs.existsSync(REGRESSIONS) ? fs.readdirSync(REGRESSIONS).filter((f) => f.endsWith(".json")).sort() : [];
  let runtime: Runtime;
  beforeAll(() => {
    runtime = openRuntime("host");
  });
  afterAll(() => runtime?.close());

  test("the folder holds fixtures", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  for (const f of files) {
    test(f, () => {
      const fx = JSON.parse(fs.readFileSync(path.join(REGRESSIONS, f), "utf8"));
      const c: Case = { doc: fx.doc, options: fx.options, family: fx.family };
      expect(engineProblems(c, wasm, js)).toEqual([]);
      const o = new HostBatch(runtime, js, 1).outcome(c);
      expect(o.problems).toEqual([]);
    });
  }
});

