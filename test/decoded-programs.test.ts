// Programs of a flattened nest told apart by their decoded indices (core/legality/packing.ts
// decodedApart). A softmax over the middle axis of [B, R, C] (test/fixtures/lanes/midsoftmax.json)
// stores Y[b, r, c]: flattened (core/analysis/nest.ts), the store index is [p / C, r, p % C],
// which the affine proofs cannot separate, so the document fell back to the serial program (one
// thread per b: 3 threads for the whole kernel). The dimensions that hold the same div and mod of
// the program variable in both accesses now separate programs when together they determine it,
// for a program variable that is never negative. These tests hold both halves: what is now
// proven validates at every mapping on the host runtime (race and bounds detector on), and what
// does not determine the program, or could be negative, is still not admitted.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { runAndValidate } from "../shell-node/src/validate-run";
import { emitBothChecked, hostContext, prefetchKernels } from "./helpers/host";
import { ROOT } from "./helpers/files";

const h = hostContext();
const MIDSOFTMAX = fs.readFileSync(path.join(ROOT, "test", "fixtures", "lanes", "midsoftmax.json"), "utf8");

type J = unknown;
function doc(sizes: Record<string, number>, params: [string, (string | number)[]][], body: J[]): string {
  return JSON.stringify({ tile: 1, name: "d", attrs: { noalias: true }, sizes, params: params.map(([name, shape]) => ({ name, dtype: "f32", shape })), body });
}

function rule(p: any, id: string): string {
  return p.rules.find((r: any) => r.id === id)?.verdict ?? "absent";
}

function validate(text: string, options: object): any {
  const emitted = emitBothChecked(h, text, options);
  const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text, options, seed: 7, emitted });
  expect(r.passed && r.guards === "intact", `${JSON.stringify(options)} ${r.error ?? ""} ${JSON.stringify(r.outputs.map((o: any) => o.firstMismatch ?? ""))}`).toBe(true);
  return emitted;
}

describe("programs told apart by decoded indices", () => {
  it("a softmax over the middle axis is one cooperative program per (b, c), and validates at every mapping", () => {
    const p = h.wasm.call({ command: "plan", document: MIDSOFTMAX, options: {} });
    expect(p.realization).toBe("cooperative-reduction");
    expect(p.mapping.programs).toBe(3 * 70);
    expect(rule(p, "independent-store")).toBe("holds");
    expect(p.notes.join(" ")).toMatch(/one program per index tuple/);
    for (const options of [
      {},
      { layout: "programs-on-lanes", programsPerGroup: 3, threads: 96 },
      { layout: "programs-on-lanes", programsPerGroup: 8, threads: 256, unroll: 3, cacheInput: false },
      { layout: "workers-on-lanes", vector: 4, sizes: { R: 41 } },
      { programsPerGroup: 4, sizes: { B: 5, C: 9 } },
    ]) {
      const e = validate(MIDSOFTMAX, options);
      expect(e.plan.realization).toBe("cooperative-reduction");
    }
  });

  it("a three-level nest ([B, H, S, D], a reduction over S stored back per element) is proven and validates", () => {
    const x = (...i: J[]): J => ["load", "X", i];
    const text = doc({ B: 2, H: 3, S: 19, D: 40 }, [["X", ["B", "S", "H", "D"]], ["Y", ["B", "H", "S", "D"]]], [
      { for: "b", in: [0, "B"], kind: "parallel", body: [{ for: "h", in: [0, "H"], kind: "parallel", body: [{ for: "d", in: [0, "D"], kind: "parallel", body: [
        { reduce: "m", combiner: "sum", over: ["s", 0, "S"], value: x("b", "s", "h", "d") },
        { for: "s", in: [0, "S"], kind: "parallel", body: [{ store: "Y", at: ["b", "h", "s", "d"], value: ["sub", x("b", "s", "h", "d"), "m"] }] },
      ] }] }] },
    ]);
    const p = h.wasm.call({ command: "plan", document: text, options: {} });
    expect(p.realization).toBe("cooperative-reduction");
    expect(p.mapping.programs).toBe(2 * 3 * 40);
    validate(text, {});
    validate(text, { layout: "programs-on-lanes", programsPerGroup: 16, threads: 512 });
  });

  it("a nest that stores its scalar and reads it back (M[b, c], or M[c, b] decoded) forwards the value, as a single program loop does", () => {
    // red team, session 24: the forwarding (core/analysis/forward.ts) ran before the nest was
    // flattened only, where M's store sits in the inner loop, so the read-back was a cross-worker
    // hand-off and the document fell back to the serial program
    const x = (...i: J[]): J => ["load", "X", i];
    for (const at of [["b", "c"], ["c", "b"]]) {
      const text = doc({ B: 3, R: 40, C: 5 }, [["X", ["B", "R", "C"]], ["M", at[0] === "b" ? ["B", "C"] : ["C", "B"]], ["Y", ["B", "R", "C"]]], [
        { for: "b", in: [0, "B"], kind: "parallel", body: [{ for: "c", in: [0, "C"], kind: "parallel", body: [
          { reduce: "m", combiner: "max", over: ["r", 0, "R"], value: x("b", "r", "c") },
          { store: "M", at, value: "m" },
          { for: "r", in: [0, "R"], kind: "parallel", body: [{ store: "Y", at: ["b", "r", "c"], value: ["sub", x("b", "r", "c"), ["load", "M", at]] }] },
        ] }] },
      ]);
      const p = h.wasm.call({ command: "plan", document: text, options: {} });
      expect(p.realization, JSON.stringify(at)).toBe("cooperative-reduction");
      expect(p.notes.join(" ")).toMatch(/reads that element back 1 time later in the same program/);
      validate(text, {});
      validate(text, { layout: "programs-on-lanes", programsPerGroup: 8, threads: 256 });
    }
  });

  it("the nest's loop order does not decide which programs are neighbours: for c: for b: over X[b, r, c] plans as for b: for c:", () => {
    const sum = (outer: string, inner: string): string => doc({ B: 8, R: 1024, C: 4096 }, [["X", ["B", "R", "C"]], ["Y", ["B", "C"]]], [
      { for: outer, in: [0, outer === "b" ? "B" : "C"], kind: "parallel", body: [{ for: inner, in: [0, inner === "b" ? "B" : "C"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["r", 0, "R"], value: ["load", "X", ["b", "r", "c"]] },
        { store: "Y", at: ["b", "c"], value: "s" }] }] }]);
    const cb = h.wasm.call({ command: "plan", document: sum("c", "b"), options: {} });
    const bc = h.wasm.call({ command: "plan", document: sum("b", "c"), options: {} });
    expect(cb.mapping).toEqual(bc.mapping);
    expect(cb.cost.total).toBe(bc.cost.total);
    expect(cb.notes.join(" ")).toMatch(/parallel loops b, c above the reductions .*in this order, not as written/);
    expect(bc.notes.join(" ")).not.toMatch(/not as written/);
    // the reordered programs compute the oracle's values (a ragged last group of programs)
    for (const options of [{ sizes: { B: 3, R: 37, C: 70 } }, { sizes: { B: 3, R: 37, C: 70 }, layout: "programs-on-lanes", programsPerGroup: 16, threads: 512 }]) {
      validate(sum("c", "b"), options);
    }
    // kept as written where moving the loop would merge fewer written buffers (red team: Y[cc, b]
    // with cc = c is merged under for c: for b:, and was lost to the reorder, falling back to the
    // serial program), or where the moved loop would not index the innermost dimension
    const alias = doc({ B: 3, R: 37, C: 70 }, [["X", ["B", "R", "C"]], ["Y", ["C", "B"]]], [
      { for: "c", in: [0, "C"], kind: "parallel", body: [{ for: "b", in: [0, "B"], kind: "parallel", body: [
        { let: "cc", value: "c" },
        { reduce: "s", combiner: "sum", over: ["r", 0, "R"], value: ["load", "X", ["b", "r", "c"]] },
        { store: "Y", at: ["cc", "b"], value: "s" }] }] }]);
    const a = h.wasm.call({ command: "plan", document: alias, options: {} });
    expect(a.realization).toBe("cooperative-reduction");
    expect(a.notes.join(" ")).toMatch(/parallel loops c, b .*Y viewed with 2 leading dimensions merged/);
    validate(alias, {});
    const rows = doc({ B: 3, R: 37, C: 70 }, [["X", ["B", "C", "R"]], ["Y", ["C", "B"]]], [
      { for: "c", in: [0, "C"], kind: "parallel", body: [{ for: "b", in: [0, "B"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["r", 0, "R"], value: ["load", "X", ["b", "c", "r"]] },
        { store: "Y", at: ["c", "b"], value: "s" }] }] }]);
    expect(h.wasm.call({ command: "plan", document: rows, options: {} }).notes.join(" ")).not.toMatch(/not as written/);
  });

  it("a decoded index reversed, Y[b, r, C - 1 - c], is proven (a constant minus the decoding determines it) and validates", () => {
    // until session 26 this was serial: the index was not the program variable's div and mod alone
    const d = JSON.parse(MIDSOFTMAX);
    d.body[0].body[0].body[2].body[0].at = ["b", "r", ["sub", ["sub", "C", 1], "c"]];
    const text = JSON.stringify(d);
    const p = h.wasm.call({ command: "plan", document: text, options: {} });
    expect(p.realization).toBe("cooperative-reduction");
    expect(rule(p, "independent-store")).toBe("holds");
    for (const options of [{}, { programsPerGroup: 2 }, { layout: "programs-on-lanes", programsPerGroup: 8, threads: 256 }]) validate(text, options);
    // a decoding inside anything but a sum of constant multiples (C - 1 - c % 2) is not proven
    d.body[0].body[0].body[2].body[0].at = ["b", "r", ["sub", ["sub", "C", 1], ["mod", "c", 2]]];
    d.body[0].body[0].body[2].body[0].value = "s";
    const clash = JSON.stringify(d);
    expect(h.wasm.call({ command: "plan", document: clash, options: {} }).realization).not.toBe("cooperative-reduction");
  });

  it("a flat output written transposed, reversed, through a let, or with the loops' mins (Y[b * A + a], Y[(B - 1 - b) * A + a], let i = a * B + b) is one program per tuple", () => {
    // session 26: each ran as the serial program (the transposed one with one thread for all
    // programs). The index decodes to (p % B) * A + p / B: a sum of the decodings whose multipliers
    // keep them apart (p / B < A), so equal indices need equal decodings, hence equal p; an i32
    // let holding the linear index is rewritten as an index is.
    const x3 = (...i: J[]): J => ["load", "X", i];
    const two = (at: J[], a: [J, J] = [0, "A"], b: [J, J] = [0, "B"], x: J = x3("a", "b", "r"), pre: J[] = []): J[] => [
      { for: "a", in: a, kind: "parallel", body: [{ for: "b", in: b, kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["r", 0, "R"], value: x }, ...pre, { store: "Y", at, value: "s" }] }] }];
    const sizes = { A: 6, B: 7, R: 33 };
    const shapes: [string, (string | number)[]][] = [["X", ["A", "B", "R"]], ["Y", [42]]];
    const texts = [
      doc(sizes, shapes, two([["add", ["mul", "b", "A"], "a"]])),
      doc(sizes, shapes, two([["add", ["mul", ["sub", ["sub", "B", 1], "b"], "A"], "a"]])),
      doc(sizes, [["X", ["A", "B", "R"]], ["Y", ["B", "A"]]], two(["b", ["sub", ["sub", "A", 1], "a"]])),
      doc(sizes, shapes, two(["i"], undefined, undefined, undefined, [{ let: "i", value: ["add", ["mul", "a", "B"], "b"] }])),
      // an outer loop of one iteration: its part p / B is always 0 and needs no room (helper, session 26)
      doc({ A: 1, B: 7, R: 33 }, [["X", ["A", "B", "R"]], ["Y", [7]]], two([["add", ["mul", "b", "A"], "a"]])),
      // loops from 2 and 1: Y[(b - 1) * A + (a - 2)]
      doc(sizes, shapes, two([["add", ["mul", ["sub", "b", 1], "A"], ["sub", "a", 2]]], [2, "A"], [1, "B"], x3(["sub", "a", 2], ["sub", "b", 1], "r"))),
    ];
    const widths: object[] = [{}, { programsPerGroup: 3 }, { layout: "programs-on-lanes", programsPerGroup: 8, threads: 256 }, { vector: 4, unroll: 2 }];
    // these kernels compiled in one g++ run first; each validate still compiles its own (cached)
    prefetchKernels(h.runtime, h.wasm, texts.flatMap((doc) => widths.map((options) => ({ doc, options }))));
    for (const text of texts) {
      const p = h.wasm.call({ command: "plan", document: text, options: {} });
      expect(p.realization, text).toBe("cooperative-reduction");
      expect(rule(p, "independent-store")).toBe("holds");
      for (const options of widths) {
        expect(validate(text, options).plan.realization).toBe("cooperative-reduction");
      }
    }
    // transposed with a multiplier one short (Y[b * (A - 1) + a]: a = 5, b = 0 and a = 0, b = 1 meet),
    // or over a loop longer than the multiplier: not proven, and the serial program is right
    const clashes = [
      doc(sizes, shapes, two([["add", ["mul", "b", ["sub", "A", 1]], "a"]])),
      doc({ A: 6, A1: 7, B: 7, R: 33 }, [["X", ["A1", "B", "R"]], ["Y", [60]]], two([["add", ["mul", "b", "A"], "a"]], [0, "A1"])),
    ];
    for (const text of clashes) {
      expect(h.wasm.call({ command: "plan", document: text, options: {} }).realization).toBe("serial-program");
      expect(h.wasm.call({ command: "plan", document: text, options: { programsPerGroup: 2, serial: false } }).realization).not.toBe("cooperative-reduction");
      validate(text, {});
    }
  });

  it("a program variable that can be negative is not decoded (truncating div, floor mod): r in [-4, 4) writes Y[r / 4 + 1, r % 4] twice", () => {
    // r = -3 and r = 1 both write Y[1, 1]: -3 / 4 + 1 = 1 and -3 mod 4 = 1
    const text = doc({ C: 33 }, [["X", [8, "C"]], ["Y", [2, 4]]], [
      { for: "r", in: [-4, 8], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["load", "X", [["add", "r", 4], "c"]] },
        { store: "Y", at: [["add", ["div", "r", 4], 1], ["mod", "r", 4]], value: "s" },
      ] },
    ]);
    const p = h.wasm.call({ command: "plan", document: text, options: {} });
    expect(p.realization).not.toBe("cooperative-reduction");
    const forced = h.wasm.call({ command: "plan", document: text, options: { programsPerGroup: 2, serial: false } });
    expect(forced.realization).not.toBe("cooperative-reduction");
    validate(text, {});
    // the same indices over r in [0, 8) determine r: admitted, and right
    const ok = doc({ C: 33 }, [["X", [8, "C"]], ["Y", [2, 4]]], [
      { for: "r", in: [0, 8], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["load", "X", ["r", "c"]] },
        { store: "Y", at: [["div", "r", 4], ["mod", "r", 4]], value: "s" },
      ] },
    ]);
    const q = h.wasm.call({ command: "plan", document: ok, options: {} });
    expect(q.realization).toBe("cooperative-reduction");
    expect(rule(q, "independent-store")).toBe("holds");
    validate(ok, {});
    validate(ok, { programsPerGroup: 3 });
  });

  it("a flat output indexed by the nest's row-major linear index (Y[(a * B + b) * C + c]) is one program per tuple, scaled, offset or with the loops' mins", () => {
    // red team, session 25: a nest over a, b storing Y[a * B + b] decoded to Y[(p / B) * B + p % B],
    // which no rule separates, so the whole kernel ran one thread per a. The nest's rewrite now
    // writes such an index as p (core/analysis/nest.ts linearIndex).
    const x3 = (...i: J[]): J => ["load", "X", i];
    const nest = (loops: [string, J, J][], inner: J[]): J[] => {
      let body = inner;
      for (let i = loops.length - 1; i >= 0; i--) body = [{ for: loops[i][0], in: [loops[i][1], loops[i][2]], kind: "parallel", body }];
      return body;
    };
    const red = (value: J, at: J[]): J[] => [{ reduce: "s", combiner: "sum", over: ["r", 0, "R"], value }, { store: "Y", at, value: "s" }];
    const texts = [
      // three levels
      doc({ A: 3, B: 4, C: 5, R: 33 }, [["X", ["A", "B", "C", "R"]], ["Y", [60]]],
        nest([["a", 0, "A"], ["b", 0, "B"], ["c", 0, "C"]], red(x3("a", "b", "c", "r"), [["add", ["mul", ["add", ["mul", "a", "B"], "b"], "C"], "c"]]))),
      // flat input too: X[(a * B + b) * R + r]
      doc({ A: 5, B: 6, R: 70 }, [["X", [2100]], ["Y", [30]]],
        nest([["a", 0, "A"], ["b", 0, "B"]], red(x3(["add", ["mul", ["add", ["mul", "a", "B"], "b"], "R"], "r"]), [["add", ["mul", "a", "B"], "b"]]))),
      // scaled and offset: Y[2 * (a * B + b) + 1]
      doc({ A: 5, B: 6, R: 33 }, [["X", ["A", "B", "R"]], ["Y", [61]]],
        nest([["a", 0, "A"], ["b", 0, "B"]], red(x3("a", "b", "r"), [["add", ["mul", 2, ["add", ["mul", "a", "B"], "b"]], 1]]))),
      // loops from 1 and 2: Y[(a - 1) * 4 + (b - 2)]
      doc({ A: 5, B: 6, R: 33 }, [["X", ["A", "B", "R"]], ["Y", [16]]],
        nest([["a", 1, ["sub", "A", 1]], ["b", 2, ["sub", "B", 2]]], red(x3("a", "b", "r"), [["add", ["mul", ["sub", "a", 1], 4], ["sub", "b", 2]]]))),
    ];
    const widths: object[] = [{}, { programsPerGroup: 2 }, { layout: "programs-on-lanes", programsPerGroup: 8, threads: 256 }, { vector: 4, unroll: 2 }];
    // these kernels compiled in one g++ run first; each validate still compiles its own (cached)
    prefetchKernels(h.runtime, h.wasm, texts.flatMap((doc) => widths.map((options) => ({ doc, options }))));
    for (const text of texts) {
      const p = h.wasm.call({ command: "plan", document: text, options: {} });
      expect(p.realization, text).toBe("cooperative-reduction");
      expect(rule(p, "independent-store")).toBe("holds");
      for (const options of widths) {
        expect(validate(text, options).plan.realization).toBe("cooperative-reduction");
      }
    }
    // not the linear index (a stride of 7 over b's 6 values): decoded, then proven because 7 keeps
    // b's six values apart (a mixed radix: radixParts in core/legality/packing.ts); serial until session 26
    const gap = doc({ A: 5, B: 6, R: 33 }, [["X", ["A", "B", "R"]], ["Y", [40]]],
      nest([["a", 0, "A"], ["b", 0, "B"]], red(x3("a", "b", "r"), [["add", ["mul", "a", 7], "b"]])));
    expect(h.wasm.call({ command: "plan", document: gap, options: {} }).realization).toBe("cooperative-reduction");
    validate(gap, {});
    // a stride of 5 over b's 6 values: a = 0, b = 5 and a = 1, b = 0 both write Y[5]. Not proven; the
    // serial program gives the oracle's values (the later program's write last)
    const tight = doc({ A: 5, B: 6, R: 33 }, [["X", ["A", "B", "R"]], ["Y", [40]]],
      nest([["a", 0, "A"], ["b", 0, "B"]], red(x3("a", "b", "r"), [["add", ["mul", "a", 5], "b"]])));
    expect(h.wasm.call({ command: "plan", document: tight, options: {} }).realization).toBe("serial-program");
    expect(h.wasm.call({ command: "plan", document: tight, options: { programsPerGroup: 2, serial: false } }).realization).not.toBe("cooperative-reduction");
    validate(tight, {});
    // the linear index of the inner level only, where the outer loop's programs all write it: refused
    const clash = doc({ A: 5, B: 6, R: 33 }, [["X", ["A", "B", "R"]], ["Y", [6]]],
      nest([["a", 0, "A"], ["b", 0, "B"]], red(x3("a", "b", "r"), [["add", ["mul", "a", 0], "b"]])));
    const c = h.wasm.call({ command: "plan", document: clash, options: {} });
    expect(c.ok).toBe(false);
    expect(c.diagnostics.map((d: any) => d.code)).toContain("TPL001");
  });

  // (red team, session 30) a group norm over column groups of a row, Y[n, g * K + k]: the nest's
  // last loop indexes a dimension of extent G * K as g * K + k, with k in [0, K); flattened, the
  // buffer is viewed as [N * G, K] and indexed [p, k] (core/analysis/nest.ts splitBuffers), where
  // before its decoded index [p / G, (p % G) * K + k] was proven by no rule: one thread per row
  it("a group norm over column groups (g * K + k) views each group as a row of its own: cooperative, cached, validated", () => {
    const text = fs.readFileSync(path.join(ROOT, "test", "fixtures", "heldout", "group_norm_cols.json"), "utf8");
    const p = h.wasm.call({ command: "plan", document: text, options: {} });
    expect(p.realization).toBe("cooperative-reduction");
    expect(p.mapping.programs).toBe(6 * 4);
    expect(p.notes.join(" ")).toContain("Y's column groups (g * 48 + ...) viewed as rows of 48");
    for (const options of [{}, { vector: 4, threads: 32 }, { vector: 8, unroll: 2, threads: 32 }, { cacheInput: false, threads: 64, unroll: 3 }, { layout: "programs-on-lanes", programsPerGroup: 4, threads: 128 }, { sizes: { N: 5, G: 3, K: 33, GK: 99 } }]) validate(text, options);
  });

  it("a column group whose rest may reach the next group, or whose multiplier is not the group's width, is not viewed as rows", () => {
    const base = (at: J, ext: J): string => doc({ N: 3, G: 4, K: 8, GK: 32 }, [["X", ["N", "GK"]], ["Y", ["N", "GK"]]], [
      { for: "n", in: [0, "N"], kind: "parallel", body: [{ for: "g", in: [0, "G"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["k", 0, "K"], value: ["load", "X", ["n", ["add", ["mul", "g", "K"], "k"]]] },
        { for: "k", in: [0, ext], kind: "parallel", body: [{ store: "Y", at: ["n", at], value: "s" }] },
      ] }] }]);
    // g * K + (k + 1) over k in [0, K): the last k writes the next group's first element
    const over = base(["add", ["mul", "g", "K"], ["add", "k", 1]], 7);
    const po = h.wasm.call({ command: "plan", document: over, options: {} });
    expect(po.notes.join(" ")).not.toContain("viewed as rows");
    // (k in [0, 7): the rest k + 1 stays in [1, 7], inside the group, but the reduce's k reaches 7:
    // the check joins every binding of k, so this too is not viewed as rows: conservative)
    expect(po.realization).not.toBe("cooperative-reduction");
    // g * 4 + k with groups of 8: not the group's width
    const narrow = base(["add", ["mul", "g", 4], "k"], "K");
    expect(h.wasm.call({ command: "plan", document: narrow, options: {} }).notes.join(" ")).not.toContain("viewed as rows");
    // and what is admitted still validates
    validate(over, {});
  });
});
