// A device description may not ask for more threads per group than the emitter can combine: a
// cooperative program reduces its SIMD groups' partials with one 32-lane SIMD reduction, so 32
// SIMD groups of 32 (1024 threads) is the most. Before, 2048 planned S = 64 and the kernel dropped
// half of every row's partials (red team s15), and 17,039,360 trapped the WebAssembly core.
import { beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { loadEngine, type Engine } from "../shell-node/src/engine";
import { ROOT } from "./helpers/files";

let engines: Engine[] = [];
beforeAll(async () => {
  engines = [await loadEngine("js"), await loadEngine("wasm")];
});

const sum = fs.readFileSync(path.join(ROOT, "cases", "sum.json"), "utf8");

describe("maxThreadsPerGroup above 1024 is a bad device (TPL005)", () => {
  it("2048 and 17039360 are refused with the field's pointer, in both engines; 1024 plans", () => {
    for (const e of engines) {
      for (const n of [1025, 2048, 17039360, 2147483647]) {
        const r = e.call({ command: "plan", document: sum, options: { device: { maxThreadsPerGroup: n } } });
        expect(r.ok, String(n)).toBe(false);
        const d = r.diagnostics.filter((x: any) => x.code === "TPL005");
        expect(d.length).toBe(1);
        expect(d[0].pointer).toBe("/options/device/maxThreadsPerGroup");
        expect(d[0].message).toContain("at most 1024 threads");
      }
      const ok = e.call({ command: "plan", document: sum, options: { device: { maxThreadsPerGroup: 1024 }, threads: 1024 } });
      expect(ok.ok).toBe(true);
      expect(ok.mapping.S).toBe(32);
    }
  });
});
