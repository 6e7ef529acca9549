// A distributed reduce's per-element value kept in its input's register cache for the later stages
// that compute it again (core/emit/reuse.ts): where it applies (softmax's exp(x - m)), where it
// must not (the buffer read outside that value later, another range, no cache), and that the kept
// kernels still match the FP64 oracle on the host runtime at several realizations.
import { describe, expect, it, beforeAll, afterAll } from "vitest";
import { loadEngine, Engine } from "../shell-node/src/engine";
import { openRuntime, Runtime } from "../shell-node/src/native";
import { runAndValidate } from "../shell-node/src/validate-run";
import { ensureHostLibrary } from "./helpers/host";

let wasm: Engine;
let runtime: Runtime;
beforeAll(async () => {
  ensureHostLibrary();
  wasm = await loadEngine("wasm");
  runtime = openRuntime("host");
});
afterAll(() => runtime?.close());

const X = ["load", "X", ["r", "c"]];
const E = ["exp", ["sub", X, "m"]];

/** softmax with the output's value and the output loop's range given. */
function softmax(out: unknown, outRange: unknown[] = [0, "C"], C = 1537) {
  return JSON.stringify({
    tile: 1, name: "softmax_like", attrs: { noalias: true }, sizes: { R: 7, C },
    params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R", "C"] }],
    body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
      { reduce: "m", combiner: "max", over: ["c", 0, "C"], value: X },
      { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: E },
      { for: "c", in: outRange, kind: "parallel", body: [{ store: "Y", at: ["r", "c"], value: out }] },
    ] }],
  });
}

function run(text: string, options: object) {
  const r = runAndValidate({ engine: wasm, runtime, text, options: { sizes: {}, ...options }, seed: 5 });
  if (r.msl === undefined) throw new Error("no MSL was emitted");
  return { ...r, msl: r.msl };
}

const KEPT = "goes into cache_X";

describe("a reduce's per-element value reused by later stages", () => {
  it("softmax: the sum stage keeps exp(x - m) in cache_X and the output reads it back (no second exp)", () => {
    for (const options of [{ programsPerGroup: 1, vector: 4, unroll: 1 }, { programsPerGroup: 2, vector: 4, unroll: 3 }, { programsPerGroup: 1, vector: 1, unroll: 1 }, { programsPerGroup: 3, vector: 8, unroll: 1 }]) {
      const r = run(softmax(["div", E, "s"]), options);
      expect(r.passed, JSON.stringify(options)).toBe(true);
      expect(r.plan.realization).toBe("cooperative-reduction");
      expect(r.msl).toContain(KEPT);
      const out = r.msl.slice(r.msl.indexOf("parallel loop over c"));
      expect(out).not.toContain("precise::exp");
      expect(out).toMatch(/= cache_X\[[^\]]+\] \/ s;/);
      // the sum stage writes each value into the slot it read
      expect(r.msl).toMatch(/const float (tile_e\d+) = precise::exp\(cache_X\[([^\]]+)\] - m\);\s*cache_X\[\2\] = \1;/);
    }
  });

  it("is not applied when a later stage also reads the buffer outside that value", () => {
    const r = run(softmax(["add", ["div", E, "s"], X]), { programsPerGroup: 1, vector: 4 });
    expect(r.passed).toBe(true);
    expect(r.msl).not.toContain(KEPT);
    expect(r.msl.slice(r.msl.indexOf("parallel loop over c"))).toContain("precise::exp");
  });

  it("is not applied when the later stage runs over another range", () => {
    const r = run(softmax(["div", E, "s"], [0, ["sub", "C", 1]]), { programsPerGroup: 1, vector: 4 });
    expect(r.passed).toBe(true);
    expect(r.msl).not.toContain(KEPT);
  });

  it("is not applied without a register cache (uncached input)", () => {
    const r = run(softmax(["div", E, "s"]), { programsPerGroup: 1, vector: 4, cacheInput: false });
    expect(r.passed).toBe(true);
    expect(r.msl).not.toContain("cache_X");
  });

  it("a value used twice in the output is read back twice", () => {
    const r = run(softmax(["add", ["div", E, "s"], ["mul", E, "m"]]), { programsPerGroup: 2, vector: 4 });
    expect(r.passed).toBe(true);
    expect(r.msl).toContain(KEPT);
    const out = r.msl.slice(r.msl.indexOf("parallel loop over c"));
    expect(out).not.toContain("precise::exp");
    expect(out).toMatch(/\(cache_X\[[^\]]+\] \/ s\) \+ \(cache_X\[[^\]]+\] \* m\)/);
  });

  it("exp(x - s) is not exp(x - m): X read outside the kept value refuses it", () => {
    const r = run(softmax(["add", ["div", E, "s"], ["exp", ["sub", X, "s"]]]), { programsPerGroup: 2, vector: 4 });
    expect(r.passed).toBe(true);
    expect(r.msl).not.toContain(KEPT);
  });
});
