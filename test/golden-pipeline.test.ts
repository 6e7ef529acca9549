// Process replay: the MSL the full pipeline (plan + solver + emitter) produces for every built-in
// case under several option sets, compared byte for byte with test/fixtures/msl-pipeline/.
// A change that should not touch a kernel must leave these files unchanged. Regenerate only on
// purpose with TILE_UPDATE_GOLDEN=1 and review the diff.
import { describe, expect, it, beforeAll } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { loadEngine, Engine } from "../shell-node/src/engine";
import { ROOT } from "./helpers/files";

const DIR = path.join(ROOT, "test", "fixtures", "msl-pipeline");
const UPDATE = process.env.TILE_UPDATE_GOLDEN === "1";

const REDUCTION_OPTIONS: Record<string, object> = {
  auto: {},
  "p1-t256-v4": { programsPerGroup: 1, threads: 256, vector: 4 },
  "p2-t512-v4": { programsPerGroup: 2, threads: 512, vector: 4 },
  "p3-v1-u3-uncached": { programsPerGroup: 3, vector: 1, unroll: 3, cacheInput: false },
  "p8-t256-v8-r36": { programsPerGroup: 8, threads: 256, vector: 8, sizes: { R: 36 } },
};
const ELEMENT_OPTIONS: Record<string, object> = {
  auto: {},
  "64x4096": { sizes: { R: 64, C: 4096 } },
  "v4-c1536": { vector: 4, sizes: { C: 1536 } },
  "no-fuse": { fuse: false },
};

let wasm: Engine;
beforeAll(async () => {
  wasm = await loadEngine("wasm");
});

describe("MSL through the whole pipeline, byte for byte", () => {
  const cases = fs.readdirSync(path.join(ROOT, "cases")).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5)).sort((a, b) => (a < b ? -1 : 1));
  for (const name of cases) {
    it(name, () => {
      const text = fs.readFileSync(path.join(ROOT, "cases", name + ".json"), "utf8");
      const family = wasm.call({ command: "plan", document: text }).family;
      const sets = family === "reduction" ? REDUCTION_OPTIONS : ELEMENT_OPTIONS;
      for (const [label, options] of Object.entries(sets)) {
        const r = wasm.call({ command: "emit", document: text, options });
        expect(r.ok, `${name} ${label}`).toBe(true);
        expect(r.audit.ok, `${name} ${label}`).toBe(true);
        const file = path.join(DIR, `${name}__${label}.metal`);
        if (UPDATE) {
          fs.mkdirSync(DIR, { recursive: true });
          fs.writeFileSync(file, r.msl);
          continue;
        }
        expect(fs.existsSync(file), `${file} is missing (TILE_UPDATE_GOLDEN=1 writes it)`).toBe(true);
        expect(r.msl, `${name} ${label}`).toBe(fs.readFileSync(file, "utf8"));
      }
    });
  }

  it("has no stale golden files", () => {
    if (UPDATE) return;
    const expected = new Set<string>();
    for (const f of fs.readdirSync(path.join(ROOT, "cases")).filter((x) => x.endsWith(".json"))) {
      const name = f.slice(0, -5);
      const family = wasm.call({ command: "plan", document: fs.readFileSync(path.join(ROOT, "cases", f), "utf8") }).family;
      for (const label of Object.keys(family === "reduction" ? REDUCTION_OPTIONS : ELEMENT_OPTIONS)) expected.add(`${name}__${label}.metal`);
    }
    expect(fs.readdirSync(DIR).sort()).toEqual([...expected].sort());
  });
});
