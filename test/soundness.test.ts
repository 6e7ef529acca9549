// Soundness (issue 12): one test per class of the red-team report, each with the document, the
// plan it gets, and a run of every realization the plan admits on the host runtime against the
// FP64 oracle. A class is fixed when no admitted kernel computes a wrong value, reads or writes
// outside a buffer, or crashes; a rejected realization must be reported as unknown (not proven)
// unless a violation is actually proven.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEngine, type Engine } from "../shell-node/src/engine";
import { openRuntime, type Runtime } from "../shell-node/src/native";
import { runAndValidate } from "../shell-node/src/validate-run";

let wasm: Engine;
let js: Engine;
let runtime: Runtime;
beforeAll(async () => {
  wasm = await loadEngine("wasm");
  js = await loadEngine("js");
  runtime = openRuntime("host");
});
afterAll(() => runtime?.close());

type J = unknown;
const load = (b: string, ...idx: J[]): J => ["load", b, idx];
const f = (v: number): J => ["f32", v];

function doc(sizes: Record<string, number>, params: [string, string[], string?][], body: J[], noalias = true): string {
  return JSON.stringify({
    tile: 1, name: "t", attrs: { noalias }, sizes,
    params: params.map(([name, shape, dtype]) => ({ name, dtype: dtype ?? "f32", shape })),
    body,
  });
}

function plan(text: string, options: object = {}): any {
  const p = wasm.call({ command: "plan", document: text, options });
  const q = js.call({ command: "plan", document: text, options });
  expect(JSON.stringify(q)).toBe(JSON.stringify(p));
  return p;
}

function verdicts(p: any): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of p.rules ?? []) out[r.id] = r.verdict;
  return out;
}

function run(text: string, options: object = {}): { passed: boolean; realization: string; error: string } {
  const r = runAndValidate({ engine: wasm, runtime, text, options, seed: 3 });
  const why = r.error ?? JSON.stringify(r.outputs.map((o) => [o.name, o.mismatches, o.examples])) + " guards " + r.guards;
  return { passed: r.passed, realization: r.plan?.realization ?? "", error: r.passed ? "" : why };
}

/** Runs the document under each option set; every run must pass. Returns the realizations. */
function runAll(text: string, sets: object[]): string[] {
  const seen: string[] = [];
  for (const o of sets) {
    const r = run(text, o);
    expect(r.error, JSON.stringify(o)).toBe("");
    expect(r.passed).toBe(true);
    seen.push(r.realization);
  }
  return seen;
}

const WIDTHS = [{}, { programsPerGroup: 1 }, { programsPerGroup: 2, vector: 1 }, { programsPerGroup: 3, vector: 4 }, { programsPerGroup: 1, vector: 8, unroll: 3 }, { cacheInput: false }];

// ---------------------------------------------------------------------------------------------
describe("class 1: statements run where the rules assumed (one Distribution for rules and emitter)", () => {
  const sum = (name: string, b: string): J => ({ reduce: name, combiner: "sum", over: ["c", 0, "C"], value: load(b, "r", "c") });

  it("an overwrite by a parallel loop under a program-level if is not admitted as distributed", () => {
    const text = doc({ R: 5, C: 70 }, [["X", ["R", "C"]], ["Y", ["R", "C"]]], [
      { for: "r", in: [0, "R"], kind: "parallel", body: [
        sum("s", "X"),
        { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: ["r", "c"], value: load("X", "r", "c") }] },
        { if: ["gt", "s", f(-1000)], then: [
          { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: ["r", "c"], value: ["add", "s", load("X", "r", "c")] }] },
        ] },
      ] },
    ]);
    const p = plan(text, { programsPerGroup: 1 });
    // the guarded loop runs on worker 0; the first loop's stores are spread over the workers
    expect(p.realization).toBe("serial-program");
    expect(verdicts(p)["independent-store"]).not.toBe("holds");
    expect(runAll(text, WIDTHS)).toEqual(Array(WIDTHS.length).fill("serial-program"));
  });

  it("an in-place update under a program-level if runs on worker 0 and is admitted", () => {
    const text = doc({ R: 6, C: 70 }, [["A", ["R", "C"]], ["X", ["R", "C"]], ["Y", ["R"]]], [
      { for: "r", in: [0, "R"], kind: "parallel", body: [
        sum("s", "A"),
        { store: "Y", at: ["r"], value: "s" },
        { if: ["gt", "s", f(-1000)], then: [
          { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "X", at: ["r", "c"], value: ["mul", f(2), load("X", "r", "c")] }] },
        ], else: [
          { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "X", at: ["r", "c"], value: f(0) }] },
        ] },
      ] },
    ]);
    const p = plan(text, { programsPerGroup: 2 });
    expect(p.realization).toBe("cooperative-reduction");
    expect(Object.values(verdicts(p)).every((v) => v === "holds")).toBe(true);
    const emitted = wasm.call({ command: "emit", document: text, options: { programsPerGroup: 2 } });
    expect(emitted.msl).toMatch(/if \(worker == 0\) \{\n\s*if \(/);
    const seen = runAll(text, [...WIDTHS, { programsPerGroup: 2 }, { programsPerGroup: 3 }]);
    expect(seen).toContain("cooperative-reduction");
  });

  it("a reduce-free program-level serial loop around a parallel loop runs on worker 0", () => {
    const text = doc({ R: 4, C: 45 }, [["A", ["R", "C"]], ["X", ["R", "C"]], ["Y", ["R"]]], [
      { for: "r", in: [0, "R"], kind: "parallel", body: [
        sum("s", "A"),
        { store: "Y", at: ["r"], value: "s" },
        { for: "t", in: [0, 3], kind: "serial", body: [
          { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "X", at: ["r", "c"], value: ["add", f(1), ["mul", f(0.5), load("X", "r", "c")]] }] },
        ] },
      ] },
    ]);
    const p = plan(text, { programsPerGroup: 1 });
    expect(p.realization).toBe("cooperative-reduction");
    const seen = runAll(text, WIDTHS);
    expect(seen).toContain("cooperative-reduction");
  });
});

// ---------------------------------------------------------------------------------------------
describe("class 2: a program loop whose minimum is negative or computed", () => {
  for (const [label, min, shift] of [["negative", -3, 3], ["computed (mod 7 4)", ["mod", 7, 4], -3], ["computed negative", ["sub", 2, "R"], 0]] as [string, J, number][]) {
    it(`${label}: the program index is exact in the cooperative and the serial kernels`, () => {
      // ["sub", 2, "R"] starts at 2 - R; the rows are then r + R - 2
      const row: J = label === "computed negative" ? ["add", "r", ["sub", "R", 2]] : ["add", "r", shift];
      const body = (noalias: boolean): string => doc({ R: 7, C: 40 }, [["X", ["R", "C"]], ["Y", ["R"]]], [
        { for: "r", in: [min, "R"], kind: "parallel", body: [
          { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["load", "X", [row, "c"]] },
          { store: "Y", at: [row], value: "s" },
        ] },
      ], noalias);
      const p = plan(body(true), { programsPerGroup: 2 });
      expect(p.realization).toBe("cooperative-reduction");
      const first = label === "negative" ? -3 : label === "computed negative" ? -5 : 3;
      expect(p.mapping.programMin).toBe(first);
      expect(runAll(body(true), WIDTHS)).toContain("cooperative-reduction");
      // without noalias nothing is proven: the serial fallback, with the same exact index
      const q = plan(body(false));
      expect(q.realization).toBe("serial-program");
      expect(q.mapping.programMin).toBe(first);
      expect(runAll(body(false), [{}])).toEqual(["serial-program"]);
    });
  }
});
