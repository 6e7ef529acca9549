// The cost model's coalescing test (core/cost/work.ts strided, core/analysis/vectors.ts) on index
// forms users write by hand (session 24, a review of plans for users' kernels): a flat index
// X[r * C + c], a stripe decoded by a size (X[n, c, k / W, k % W]) and a gather whose index is the
// same for a run of programs (E[I[b, k], d]) were charged as strided, 8 times their bytes, so a
// row sum over a flat buffer took programs on lanes (neighbouring lanes 16 KiB apart) and an
// instance norm's statistics cost 7 times their literal twin. Each is compared with the twin the
// model already costed right.
import { describe, expect, it } from "vitest";
import { emitBothChecked, hostContext } from "./helpers/host";
import { runAndValidate } from "../shell-node/src/validate-run";

const h = hostContext();

type J = unknown;
function doc(name: string, sizes: Record<string, number>, params: [string, (string | number)[], string?][], body: J[]): string {
  return JSON.stringify({ tile: 1, name, attrs: { noalias: true }, sizes, params: params.map(([n, shape, dtype]) => ({ name: n, dtype: dtype ?? "f32", shape })), body });
}
const plan = (text: string, options: object = {}): any => {
  const a = h.wasm.call({ command: "plan", document: text, options });
  expect(JSON.stringify(h.js.call({ command: "plan", document: text, options }))).toBe(JSON.stringify(a));
  return a;
};
const rowsum = (index: J[], shape: (string | number)[], sizes: Record<string, number>): string => doc("rs", sizes, [["X", shape], ["Y", ["R"]]], [
  { for: "r", in: [0, "R"], kind: "parallel", body: [
    { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["load", "X", index] },
    { store: "Y", at: ["r"], value: "s" }] }]);

describe("coalescing of hand-written index forms", () => {
  it("a flat X[r * C + c] row sum is costed as the 2-D X[r, c] one (workers on lanes, nothing strided)", () => {
    const sizes = { R: 4096, C: 4096, N: 4096 * 4096 };
    const flat = plan(rowsum([["add", ["mul", "r", "C"], "c"]], ["N"], sizes));
    const twoD = plan(rowsum(["r", "c"], ["R", "C"], { R: 4096, C: 4096 }));
    expect(flat.mapping.layout).toBe("workers-on-lanes");
    expect(flat.cost.terms.uncoalescedBytes).toBeUndefined();
    expect(flat.cost.terms.bytesRead).toBe(twoD.cost.terms.bytesRead);
    // programs on lanes read it 16 KiB apart: charged
    const lanes = plan(rowsum([["add", ["mul", "r", "C"], "c"]], ["N"], sizes), { layout: "programs-on-lanes" });
    expect(lanes.cost.terms.uncoalescedBytes).toBeGreaterThan(0);
    // the flat column sum is the other way round
    const col = doc("cs", { R: 4096, C: 4096, N: 4096 * 4096 }, [["X", ["N"]], ["Y", ["C"]]], [
      { for: "c", in: [0, "C"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["r", 0, "R"], value: ["load", "X", [["add", ["mul", "r", "C"], "c"]]] },
        { store: "Y", at: ["c"], value: "s" }] }]);
    expect(plan(col).mapping.layout).toBe("programs-on-lanes");
    expect(plan(col).cost.terms.uncoalescedBytes ?? 0).toBeLessThan(plan(col).cost.terms.bytesRead);
    // a subtracted or doubled stripe variable is still strided
    const twice = plan(rowsum([["add", ["mul", "r", "C"], ["mul", "c", 2]]], ["N"], { R: 64, C: 64, N: 64 * 64 * 2 }), { layout: "workers-on-lanes" });
    expect(twice.cost.terms.uncoalescedBytes).toBeGreaterThan(0);
  });

  it("a stripe decoded by a size (k / W, k % W) costs what the literal decoding costs", () => {
    const stats = (w: J): string => doc("hw", { N: 8, C: 64, H: 128, W: 128 }, [["X", ["N", "C", "H", "W"]], ["Y", ["N", "C"]]], [
      { for: "n", in: [0, "N"], kind: "parallel", body: [{ for: "c", in: [0, "C"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["k", 0, ["mul", "H", "W"]], value: ["load", "X", ["n", "c", ["div", "k", w], ["mod", "k", w]]] },
        { store: "Y", at: ["n", "c"], value: "s" }] }] }]);
    const bySize = plan(stats("W"));
    const byLiteral = plan(stats(128));
    expect(bySize.mapping).toEqual(byLiteral.mapping);
    expect(bySize.cost.total).toBe(byLiteral.cost.total);
    expect(bySize.mapping.layout).toBe("workers-on-lanes");
    expect(bySize.cost.terms.uncoalescedBytes).toBeUndefined();
  });

  it("a gather whose index is the same for a row of programs (E[I[b, k], d]) is not charged as strided with programs on lanes", () => {
    const text = doc("bag", { B: 256, K: 8, V: 1000, D: 1024 }, [["E", ["V", "D"]], ["I", ["B", "K"], "i32"], ["Y", ["B", "D"]]], [
      { for: "b", in: [0, "B"], kind: "parallel", body: [{ for: "d", in: [0, "D"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["k", 0, "K"], value: ["load", "E", [["load", "I", ["b", "k"]], "d"]] },
        { store: "Y", at: ["b", "d"], value: "s" }] }] }]);
    const p = plan(text);
    expect(p.mapping.layout).toBe("programs-on-lanes");
    const w = plan(text, { layout: "workers-on-lanes" });
    expect(p.cost.total).toBeLessThan(w.cost.total);
    // and it runs right (a small size: the gathered rows drawn in [0, V))
    const small = { sizes: { B: 5, D: 70 } };
    const e = emitBothChecked(h, text, small);
    const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text, options: small, seed: 2, emitted: e });
    expect(r.passed && r.guards === "intact", r.error ?? "").toBe(true);
  });
});
