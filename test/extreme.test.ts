// Plans at the i32 limits (held-out red team, session 8): documents whose real sizes are too
// large to run here are planned and emitted at those sizes (both engines byte-identical); what
// can run at small sizes runs. What each one found:
//   grid_groups_wrap, grid_rows_wrap3d  the element grid's rows * blocks per row wrapped in i32:
//                                a plan with groups = -2^31 (or 0, a NaN cost and exit 3 in the
//                                text plan), or too few groups reaching 6% of the rows
//   grid_col_overflow            --threads 992 over a row of 2^31 - 1: the last group's column
//                                index passed 2^31 and wrapped negative past the edge test
//   coop_tail_logical_overflow   P = 3 over 2^31 - 1 programs: the slot index group * 3 + slot
//                                passed 2^31, wrapped, and a replay slot stored out of bounds
//   min_outer_wrap               a serial loop whose min reaches 2^31 - 1 at one row only: its
//                                variable passed i32 there (the checker cannot decide it); the
//                                oracle now refuses it naming TIR030, as the checker does elsewhere
//   cost_ext_wrapped             an extent 65536 * 65536 + 4096 (4096 in i32) was costed as 1
//   serial_sum_cancel            a serial row sum of 257 that cancels to -0.137: the kernel's exact
//                                left-to-right f32 sum failed the FP64 tolerance at the default
//                                seed (as plain f32 does); it passes now, counted as ill-conditioned
//   cast_sum_i32                 an i32 sum of cast_i32(X * 10) over X = 0.7: 7 in f32, 6.99999988 in
//                                FP64, so the correct kernel's 700 failed against 600 (not an
//                                extreme size: the validation of i32 values cast from f32)
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { runAndValidate } from "../shell-node/src/validate-run";
import { ROOT } from "./helpers/files";
import { hostContext } from "./helpers/host";

const DIR = path.join(ROOT, "test", "fixtures", "extreme");
const text = (name: string): string => fs.readFileSync(path.join(DIR, name + ".json"), "utf8");

const h = hostContext();

function both(name: string, options: object): any {
  const a = h.wasm.call({ command: "emit", document: text(name), options });
  const b = h.js.call({ command: "emit", document: text(name), options });
  expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  return a;
}

describe("plans at the i32 limits", () => {
  it("an element grid whose groups or columns would pass 2^31 - 1 is not used; the programs' or the serial program's figures are finite", () => {
    // (since session 29 an element document whose grid is not used runs as programs, one per row,
    // where the cooperative rules hold: every program slot then fits an int)
    for (const [name, options, realization] of [
      ["grid_groups_wrap", { sizes: { R: 1073741824 }, vector: 1 }, "cooperative-reduction"],
      ["grid_groups_wrap", { sizes: { R: 2147483647, C: 4097 } }, "cooperative-reduction"],
      ["grid_rows_wrap3d", {}, "cooperative-reduction"],
      ["grid_col_overflow", { threads: 992 }, "serial-program"],
    ] as Array<[string, object, string]>) {
      const e = both(name, options);
      expect(e.ok, name + JSON.stringify(options)).toBe(true);
      expect(e.plan.realization, name).toBe(realization);
      if (realization === "cooperative-reduction") expect(e.plan.mapping.groups * e.plan.mapping.P).toBeLessThanOrEqual(2 ** 31);
      expect(e.plan.rejections.map((r: any) => r.message).join(" "), name).toMatch(/does not fit/);
      expect(Number.isFinite(e.plan.cost.total), name).toBe(true);
      expect(e.plan.dispatch.groups, name).toBeGreaterThan(0);
    }
    // wider vectors fit where V = 1 does not: 2^30 rows of one vector group each
    const wide = both("grid_groups_wrap", { sizes: { R: 1073741824 } });
    expect(wide.plan.realization).toBe("fused-elementwise");
    expect(wide.plan.mapping.V).toBeGreaterThan(1);
    expect(wide.plan.dispatch.groups).toBeLessThanOrEqual(2147483647);
    // a row of a few vectors: whole rows per group, the row index group * rows + tid / rowThreads an int
    const wm = wide.plan.mapping;
    expect(wm.rowsPerGroup).toBeGreaterThan(1);
    expect(wide.plan.dispatch.groups).toBe(Math.ceil(1073741824 / wm.rowsPerGroup));
    expect(wide.plan.dispatch.groups * wm.rowsPerGroup).toBeLessThanOrEqual(2 ** 31);
    // a row of 2^31 - 1 columns needs far more than half a block: its thread count is never doubled
    // (2 * rowThreads wrapped in i32, passed the test and divided by zero: the hostile fuzz, session 31)
    for (const rows of [2, 37]) {
      const pair = h.wasm.call({ command: "plan", document: fs.readFileSync(path.join(ROOT, "cases", "sigmoid_pair.json"), "utf8"), options: { sizes: { R: rows, C: 2147483647 } } });
      expect(pair.ok, JSON.stringify(pair.diagnostics)).toBe(true);
      if (pair.realization === "fused-elementwise") expect(pair.mapping.rowsPerGroup).toBe(1);
    }
    // at sizes that fit, the same documents are element grids, and they run
    const small = both("grid_col_overflow", { sizes: { N: 5000 }, threads: 992 });
    expect(small.plan.realization).toBe("fused-elementwise");
    const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text: text("grid_col_overflow"), options: { sizes: { N: 5000 }, threads: 992 }, seed: 1 });
    expect(r.passed, r.error ?? "").toBe(true);
  });

  it("P slots past 2^31 are never planned: an explicit P is TPL009, the solver picks one that fits", () => {
    const p3 = h.wasm.call({ command: "plan", document: text("coop_tail_logical_overflow"), options: { programsPerGroup: 3 } });
    expect(p3.ok).toBe(false);
    expect(p3.diagnostics.map((d: any) => d.code)).toEqual(["TPL009"]);
    const auto = both("coop_tail_logical_overflow", {});
    expect(auto.plan.realization).toBe("cooperative-reduction");
    const m = auto.plan.mapping;
    expect(m.groups * m.P).toBeLessThanOrEqual(2 ** 31);
  });

  it("a loop variable past i32 at some rows only: the run says so (TIR030) instead of comparing numbers", () => {
    expect(h.wasm.call({ command: "validate", document: text("min_outer_wrap"), options: {} }).ok).toBe(true);
    const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text: text("min_outer_wrap"), options: {}, seed: 1 });
    expect(r.passed).toBe(false);
    expect(r.error).toMatch(/past the i32 range.*TIR030/);
  });

  it("a wrapped constant extent is costed at its i32 value", () => {
    const a = h.wasm.call({ command: "plan", document: text("cost_ext_wrapped"), options: {} });
    const b = h.wasm.call({ command: "plan", document: text("cost_ext_plain"), options: {} });
    expect(a.mapping).toEqual(b.mapping);
    expect(a.cost.total).toBe(b.cost.total);
  });
});

describe("i32 values cast from f32", () => {
  const X = (): Map<string, Float64Array> => new Map([["X", new Float64Array(200).fill(Math.fround(0.7))]]);

  it("elements equal to the plain f32 evaluation in program order pass, and say so; a wrong kernel still fails", () => {
    const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text: text("cast_sum_i32"), options: {}, seed: 1, inputs: X() });
    expect(r.passed, JSON.stringify(r.outputs[0])).toBe(true);
    expect(r.outputs[0].castAgreesWithF32).toBe(2);
    expect(r.outputs[0].mismatches).toBe(0);
    // the same kernel multiplying by 20: 1400 against 600 and against plain f32's 700
    const bad = runAndValidate({ engine: h.wasm, runtime: h.runtime, text: text("cast_sum_i32"), options: {}, seed: 1, inputs: X(),
      mslOverride: (msl) => msl.replace("* 10.0f", "* 20.0f") });
    expect(bad.passed).toBe(false);
    expect(bad.outputs[0].mismatches).toBe(2);
    expect(bad.outputs[0].castAgreesWithF32).toBeUndefined();
  });
});

describe("ill-conditioned elements", () => {
  it("a serial sum that cancels passes where the kernel is the f32 evaluation; the count is reported", () => {
    const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text: text("serial_sum_cancel"), options: {}, seed: 1 });
    expect(r.passed, JSON.stringify(r.outputs[0].examples)).toBe(true);
    expect(r.outputs[0].illConditioned).toBeGreaterThanOrEqual(1);
    // a kernel off by 0.01 everywhere is not excused
    const bad = runAndValidate({ engine: h.wasm, runtime: h.runtime, text: text("serial_sum_cancel"), options: {}, seed: 1,
      mslOverride: (msl) => msl.replace(/(Y\[[^\]]+\] = )([^;]+);/, "$1($2) + 0.01f;") });
    expect(bad.passed).toBe(false);
  });
});

