// The pipeline collects a document's access facts once for the write-conflict check and hands
// them to the solver's legality context (core/pipeline.ts, stage 4). The context takes them only
// when they were collected for its document, program loop and roles (LegalityContext.useFacts):
// for a reduction (its program loop) or a document without a program loop. This checks, for every
// legality fixture and built-in case, that the facts it takes equal the ones it would collect, and
// that it refuses them where they differ (an element document with a program loop).
import { describe, expect, it, vi } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

vi.mock("../core/glue/wasm", async () => await import("../core/glue/js"));

import { loadDocument } from "../core/ir/load";
import { recognize } from "../core/analysis/structure";
import { Device } from "../core/device/device";
import { LegalityContext } from "../core/legality/index";
import { Facts, collectFacts } from "../core/legality/facts";
import { buildCase, caseNames } from "../core/builders/index";

function summary(f: Facts): unknown {
  const site = (s: any) => [s.kind, s.buffer, s.ptr, s.guarded, s.inProgram, s.runs, s.dist === null ? "" : s.dist.name, s.loops.map((l: any) => l.name)];
  return { loads: f.loads.map(site), stores: f.stores.map(site), impure: f.impure, impureOps: f.impureOps, loops: f.loops.map((l: any) => [l.name, l.stmt.kind]) };
}

const DIR = join(__dirname, "fixtures", "legality");
const texts: [string, string][] = [
  ...readdirSync(DIR).filter((f) => f.endsWith(".json") && !f.endsWith(".expect.json")).map((f) => [f, readFileSync(join(DIR, f), "utf8")] as [string, string]),
  ...caseNames().map((n) => [n, buildCase(n)] as [string, string]),
];

describe("facts shared by the write-conflict check and the solver", () => {
  it("equal the legality context's own wherever the pipeline reuses them", () => {
    let reused = 0;
    let refused = 0;
    let families = new Set<string>();
    for (const [name, text] of texts) {
      const loaded = loadDocument(text, [], []);
      if (!loaded.ok) continue;
      const st = recognize(loaded.doc);
      families.add(st.family);
      const pl = st.programLoop;
      const pipeline = collectFacts(loaded.doc, pl, st.distribution);
      const taker = new LegalityContext(loaded.doc, st, new Device());
      const taken = taker.useFacts(pipeline);
      expect(taken, name).toBe(st.family === "reduction" || pl === null);
      if (!taken) {
        refused++;
        continue;
      }
      expect(taker.facts(), name).toBe(pipeline);
      const own = new LegalityContext(loaded.doc, st, new Device()).facts();
      expect(summary(pipeline), name).toEqual(summary(own));
      // facts of another document (the same text read again) are never taken
      const again = loadDocument(text, [], []);
      expect(taker.useFacts(collectFacts(again.doc, pl, st.distribution)), name).toBe(false);
      reused++;
    }
    expect(reused).toBeGreaterThan(20);
    expect(refused).toBeGreaterThan(0);
    expect([...families]).toEqual(expect.arrayContaining(["reduction", "element"]));
  });
});
