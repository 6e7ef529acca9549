// Store-to-load forwarding of a program's scalar results (core/analysis/forward.ts; a red team of
// session 13): `S[r] = s` then `Y[r, c] = X[r, c] - S[r]` read on every worker what worker 0 alone
// stores, a hand-off the cooperative proofs refuse, so the kernel ran as the serial program. The
// load now takes the stored value; the oracle evaluates the document as written, so every run below
// checks the rewrite, and the cases that must not be rewritten keep their load.
import { describe, expect, it } from "vitest";
import { runAndValidate } from "../shell-node/src/validate-run";
import { hostContext } from "./helpers/host";

const h = hostContext();

type J = unknown;
const X = (c: J = "c"): J => ["load", "X", ["r", c]];
const doc = (dtype: string, program: object[], name = "fwd"): string => JSON.stringify({
  tile: 1, name, attrs: { noalias: true }, sizes: { R: 9, C: 1001 },
  params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "S", dtype, shape: ["R"] }, { name: "Y", dtype: "f32", shape: ["R", "C"] }],
  body: [{ for: "r", in: [0, "R"], kind: "parallel", body: program }],
});
const sum = { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: X() };
const use = (v: J): object => ({ for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: ["r", "c"], value: ["sub", X(), v] }] });
const plan = (text: string, options: object = {}): any => h.wasm.call({ command: "plan", document: text, options });

describe("a program's stored scalar read back later in the program", () => {
  const readBack = doc("f32", [sum, { store: "S", at: ["r"], value: "s" }, use(["load", "S", ["r"]])]);
  const literal = doc("f32", [sum, { store: "S", at: ["r"], value: ["f32", 0.25] }, use(["mul", "s", ["load", "S", ["r"]]])]);

  it("is read from the stored value: cooperative, with a note, and as the oracle says at every width", () => {
    for (const text of [readBack, literal]) {
      const p = plan(text);
      expect(p.realization, JSON.stringify(p.rejections)).toBe("cooperative-reduction");
      expect(p.notes.join(" ")).toMatch(/reads that element back 1 time later in the same program/);
      for (const options of [{}, { vector: 4 }, { vector: 8, unroll: 2 }, { programsPerGroup: 3 }, { cacheInput: false }, { threads: 64 }]) {
        const a = h.wasm.call({ command: "emit", document: text, options });
        expect(JSON.stringify(a)).toBe(JSON.stringify(h.js.call({ command: "emit", document: text, options })));
        // the only access of S left is its store
        expect(a.msl.match(/\bS\[/g)?.length, JSON.stringify(options)).toBe(1);
        const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text, options, seed: 4, emitted: a });
        expect(r.passed && r.guards === "intact", `${JSON.stringify(options)}: ${r.error ?? ""}`).toBe(true);
      }
    }
  });

  it("a kernel that uses another value than the stored one fails the validation of the document as written", () => {
    const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text: readBack, options: {}, seed: 4,
      mslOverride: (m) => { expect(m).toMatch(/Y\[r \* 1001 \+ c\] = cache_X\[k\] - s;/); return m.split("= cache_X[k] - s;").join("= cache_X[k] - 0.999f * s;"); } });
    expect(r.passed).toBe(false);
  });

  it("is left alone where the load could see another value: a 16-bit buffer, a second store, a read before the store, another element", () => {
    const cases: [string, string][] = [
      ["f16 buffer (the load rounds)", doc("f16", [sum, { store: "S", at: ["r"], value: "s" }, use(["load", "S", ["r"]])])],
      ["two stores", doc("f32", [sum, { store: "S", at: ["r"], value: "s" }, use(["load", "S", ["r"]]), { store: "S", at: ["r"], value: ["f32", 1] }])],
      ["read before the store", doc("f32", [sum, use(["load", "S", ["r"]]), { store: "S", at: ["r"], value: "s" }])],
      ["another element", doc("f32", [sum, { store: "S", at: ["r"], value: "s" }, use(["load", "S", [["sub", ["sub", "R", 1], "r"]]])])],
      ["an expression stored", doc("f32", [sum, { store: "S", at: ["r"], value: ["mul", "s", ["f32", 3]] }, use(["load", "S", ["r"]])])],
    ];
    for (const [name, text] of cases) {
      const p = plan(text);
      expect(p.notes.join(" "), name).not.toMatch(/reads that element back/);
      const a = h.wasm.call({ command: "emit", document: text, options: {} });
      if (a.ok) {
        expect(a.msl.match(/\bS\[/g)!.length, name).toBeGreaterThan(1);
        const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text, options: {}, seed: 4, emitted: a });
        expect(r.passed && r.guards === "intact", `${name}: ${r.error ?? ""}`).toBe(true);
      }
    }
  });
});
