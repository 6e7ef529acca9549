// A buffer kept in registers may also be read outside every distributed loop and reduce (red team,
// session 32): the cross-entropy `Loss[r] = m + log(s) - X[r, Lab[r]]` gathers one element of X at
// program level after its two reductions over X. That read kept X out of registers (about 1.6 times
// the model's cost at 64x8000); the emitter serves only loads inside a stripe from the registers
// (core/emit/expr.ts cacheSlot), so the gather reads memory, which holds the same values where X is
// never written. A written buffer, or one with no read inside a stripe, is still not cached.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { runAndValidate } from "../shell-node/src/validate-run";
import { emitBothChecked, hostContext } from "./helpers/host";
import { ROOT } from "./helpers/files";

const h = hostContext();
const doc = fs.readFileSync(path.join(ROOT, "test", "fixtures", "ragged", "cross_entropy_gather.json"), "utf8");

function validate(text: string, options: object, seed = 3): any {
  const emitted = emitBothChecked(h, text, options);
  const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text, options, seed, emitted });
  expect(r.passed && r.guards === "intact", `${JSON.stringify(options)} ${r.error ?? ""}`).toBe(true);
  return emitted;
}

describe("a cached buffer read at program level (a gathered element) reads memory there", () => {
  it("the cross-entropy keeps X in registers, and the gather reads X from memory once", () => {
    const p = h.wasm.call({ command: "plan", document: doc, options: { sizes: { R: 64, C: 8000 } } });
    expect(p.realization).toBe("cooperative-reduction");
    expect(p.mapping.cacheBuffers).toEqual(["X"]);
    const own = p.rules.find((r: any) => r.id === "private-ownership");
    expect(own.verdict).toBe("holds");
    expect(own.reason).toContain("reads outside every distributed loop and reduce");
    const uncached = h.wasm.call({ command: "plan", document: doc, options: { sizes: { R: 64, C: 8000 }, cacheInput: false } });
    expect(p.cost.total).toBeLessThan(uncached.cost.total);
    const e = emitBothChecked(h, doc, {});
    // the fill, and the gather at program level: no other read of X in memory
    expect(e.msl).toMatch(/cache_X\[[^\]]*\] = X\[/);
    expect(e.msl).toMatch(/- X\[r \* 70 \+ t\]/);
  });

  it("validates on the host runtime at every mapping family, ragged rows and vectors included", () => {
    for (const options of [{}, { vector: 4 }, { vector: 8, unroll: 2 }, { threads: 32 }, { programsPerGroup: 4 }, { layout: "programs-on-lanes" },
      { sizes: { R: 5, C: 1537 } }, { sizes: { R: 3, C: 33 }, vector: 4 }, { sizes: { R: 7, C: 1 } }]) {
      const e = validate(doc, options);
      if (!(options as any).layout) expect(e.plan.mapping.cacheBuffers, JSON.stringify(options)).toEqual(["X"]);
    }
  });

  it("is still refused where the buffer is written", () => {
    // the gather at program level, and X written: stale registers
    const d = JSON.parse(doc);
    d.body[0].body.push({ store: "X", at: ["r", 0], value: ["f32", 0] });
    const p = h.wasm.call({ command: "plan", document: JSON.stringify(d), options: { cacheInput: true } });
    expect(p.mapping.cacheBuffers ?? []).toEqual([]);
    validate(JSON.stringify(d), {});
  });
});
