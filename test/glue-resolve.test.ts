// Tests that import core sources get the JS glue for every importer (vitest.config.mjs), as the
// JS build does: a core module reached without a vi.mock of the glue (here the glue itself and
// core/util/num, imported plainly) runs, whatever file ran before it in the same worker.
import { describe, expect, it } from "vitest";
import { f64FromParts, f32Bits } from "../core/glue/wasm";
import * as js from "../core/glue/js";
import { parseDecimalToF32 } from "../core/util/num";

describe("the glue under vitest", () => {
  it("is the JS glue for a test's own import of core/glue/wasm", () => {
    expect(f64FromParts).toBe(js.f64FromParts);
    expect(f64FromParts(0x3ff00000, 0)).toBe(1);
    expect(f32Bits(1)).toBe(0x3f800000);
  });

  it("is the JS glue for a core module's import of it (core/util/num)", () => {
    expect(parseDecimalToF32("0.1")).toBe(Math.fround(0.1));
    expect(parseDecimalToF32("3e-45")).toBe(Math.fround(3e-45));
  });
});
