// An in-place row (x = f(x) after the reduces over x: an in-place softmax, LayerNorm or RMSNorm) keeps
// its stripe in registers (red team, session 32: it was never cached, about 2 times the model's
// cost). private-ownership (core/legality/packing.ts inPlaceStripe) admits a cached buffer that the
// program writes where every store is unconditional, in a distributed loop, at the stripe element
// of its own iteration, and every read comes before the first store or is part of a store's value
// at that store's element. The registers then hold what memory holds wherever they are read.
// Each refused form below would read a value the registers do not hold.
import { beforeAll, describe, expect, it } from "vitest";
import { runAndValidate } from "../shell-node/src/validate-run";
import { emitBothChecked, hostContext, prefetchKernels } from "./helpers/host";

const h = hostContext();
const X = (...i: unknown[]) => ["load", "X", i];
const val = ["div", ["exp", ["sub", X("r", "c"), "m"]], "s"];
const loop = (body: unknown[], range: unknown[] = [0, "C"]) => ({ for: "c", in: range, kind: "parallel", body });
const store = (b: string, at: unknown[], value: unknown) => ({ store: b, at, value });
const fillY = loop([store("Y", ["r", "c"], ["f32", 1])]);

/** A softmax over X's row (max, sum of exp) followed by `rest`. */
function doc(rest: unknown[]): string {
  return JSON.stringify({
    tile: 1, name: "inplace", attrs: { noalias: true }, sizes: { R: 7, C: 100 },
    params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R", "C"] }],
    body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
      { reduce: "m", combiner: "max", over: ["c", 0, "C"], value: X("r", "c") },
      { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["exp", ["sub", X("r", "c"), "m"]] },
      ...rest] }],
  });
}

const CASES: Record<string, { rest: unknown[]; cached: boolean }> = {
  "the softmax in place": { rest: [loop([store("X", ["r", "c"], val)])], cached: true },
  "a let before the store, stored elsewhere after it": { rest: [loop([{ let: "o", value: X("r", "c") }, store("X", ["r", "c"], val), store("Y", ["r", "c"], "o")])], cached: true },
  "two stores, each at its own element": { rest: [loop([store("X", ["r", "c"], val)]), loop([store("X", ["r", "c"], ["f32", 2])]), fillY], cached: true },
  "a reduce over X after the store": { rest: [loop([store("X", ["r", "c"], val)]), { reduce: "t", combiner: "sum", over: ["c", 0, "C"], value: X("r", "c") }, loop([store("Y", ["r", "c"], "t")])], cached: false },
  "a store under an if": { rest: [loop([{ if: ["lt", X("r", "c"), "m"], then: [store("X", ["r", "c"], val)] }]), fillY], cached: false },
  "a store at the reversed element": { rest: [loop([store("X", ["r", ["sub", ["sub", "C", 1], "c"]], val)]), fillY], cached: false },
  "a read of the stored element after the store": { rest: [loop([store("X", ["r", "c"], val), store("Y", ["r", "c"], X("r", "c"))])], cached: false },
  // (red team, session 32: a second in-place loop read what the first wrote; the registers held X)
  "a second in-place loop reading the first's result": { rest: [loop([store("X", ["r", "c"], val)]), loop([store("X", ["r", "c"], ["mul", X("r", "c"), ["f32", 2]])]), fillY], cached: false },
  "two stores in one iteration, the second reading the first's": { rest: [loop([store("X", ["r", "c"], val), store("X", ["r", "c"], ["add", X("r", "c"), ["f32", 1]])]), fillY], cached: false },
  "a store at the next element": { rest: [loop([store("X", ["r", ["add", "c", 1]], val)], [0, ["sub", "C", 1]]), fillY], cached: false },
};

const WIDTHS = [{}, { vector: 4 }, { threads: 32 }, { sizes: { C: 33 }, vector: 4 }, { programsPerGroup: 7 }, { vector: 8, unroll: 2 }];

describe("an in-place row keeps its stripe in registers where the registers hold what memory holds", () => {
  // every case's kernels compiled in one g++ run first; each test still compiles its own (cached)
  beforeAll(() => {
    prefetchKernels(h.runtime, h.wasm, Object.values(CASES).flatMap((c) => WIDTHS.map((options) => ({ doc: doc(c.rest), options }))));
  });

  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: ${c.cached ? "cached" : "not cached"}, and it runs as the oracle says`, () => {
      const text = doc(c.rest);
      const p = h.wasm.call({ command: "plan", document: text, options: {} });
      expect(p.ok, JSON.stringify(p.diagnostics)).toBe(true);
      expect((p.mapping.cacheBuffers ?? []).includes("X")).toBe(c.cached);
      const own = p.rules.find((r: any) => r.id === "private-ownership");
      if (c.cached) expect(own.reason).toContain("A cached buffer that the program also writes");
      for (const options of WIDTHS) {
        const emitted = emitBothChecked(h, text, options);
        const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text, options, seed: 4, emitted });
        expect(r.passed && r.guards === "intact", `${JSON.stringify(options)} ${r.error ?? ""}`).toBe(true);
      }
    });
  }

  it("a serial wrapper that repeats the reduce and the in-place loop: not cached (its second pass reads the first's stores)", () => {
    const text = JSON.stringify({
      tile: 1, name: "repeat", attrs: { noalias: true }, sizes: { R: 5, C: 70 },
      params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R"] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
        { for: "t", in: [0, 3], kind: "serial", body: [
          { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: X("r", "c") },
          loop([store("X", ["r", "c"], ["mul", ["sub", X("r", "c"), ["div", "s", ["f32", 70]]], ["f32", 0.5]])])] },
        { reduce: "q", combiner: "max", over: ["c", 0, "C"], value: X("r", "c") },
        { store: "Y", at: ["r"], value: "q" }] }],
    });
    const p = h.wasm.call({ command: "plan", document: text, options: {} });
    expect(p.ok, JSON.stringify(p.diagnostics)).toBe(true);
    expect(p.mapping.cacheBuffers ?? []).not.toContain("X");
    for (const options of [{}, { vector: 4 }, { threads: 32 }]) {
      const emitted = emitBothChecked(h, text, options);
      const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text, options, seed: 4, emitted });
      expect(r.passed && r.guards === "intact", `${JSON.stringify(options)} ${r.error ?? ""}`).toBe(true);
    }
  });

  it("the refused forms say which store or read keeps the buffer out of registers", () => {
    const p = h.wasm.call({ command: "plan", document: doc(CASES["a read of the stored element after the store"].rest), options: {} });
    const text = JSON.stringify(p.notes);
    expect(text).toContain("\\\"X\\\" is read in 3 stages but is not kept in registers (private-ownership)");
    expect(text).toContain("comes after a store to it and is not the element the first store writes, read by that store itself");
    const q = JSON.stringify(h.wasm.call({ command: "plan", document: doc(CASES["a store at the reversed element"].rest), options: {} }).notes);
    expect(q).toContain("at the element of the stripe that the writing worker holds");
  });

  it("a cached in-place row is filled and stored packed (read through a pointer to const, stored under `live`)", () => {
    const e = emitBothChecked(h, doc(CASES["the softmax in place"].rest), { vector: 4 });
    expect(e.plan.mapping.cacheBuffers).toEqual(["X"]);
    expect(e.msl).toContain("*((device const packed_float4*)(&X[");
    expect(e.msl).toMatch(/if \(live\) \{ \*\(\(device packed_float4\*\)\(&X\[[^\]]*\]\)\) = tile_y\d+; \}/);
    // no scalar store of X is left
    expect(e.msl).not.toMatch(/ X\[[^\]]*\] = /);
    expect(e.audit.ok).toBe(true);
    // uncached, the store stays scalar: X is read from memory after the store's own vector
    const u = emitBothChecked(h, doc(CASES["the softmax in place"].rest), { vector: 4, cacheInput: false });
    expect(u.plan.mapping.cacheBuffers ?? []).toEqual([]);
    expect(u.msl).not.toContain("packed_float4*)(&X[");
  });
});
