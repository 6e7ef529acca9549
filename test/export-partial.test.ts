// TEX005 (red team, session 32): an output that a module returns as a fresh zero-filled array
// (MLX: every written buffer; torch-mps: a buffer written and never read) and that no store is
// proven to write at every element gets a warning: what the kernel does not store is 0 in the
// result, where `tile run` and --target metal keep what the buffer held. The module is still
// written (a warning, not an error); a covering store gives none; --target metal never does.
import { beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { loadEngine, type Engine } from "../shell-node/src/engine";
import { ROOT } from "./helpers/files";

let wasm: Engine;
let js: Engine;
beforeAll(async () => {
  wasm = await loadEngine("wasm");
  js = await loadEngine("js");
});

const X = { name: "X", dtype: "f32", shape: ["R", "C"] };
const Y = { name: "Y", dtype: "f32", shape: ["R", "C"] };
const M = { name: "M", dtype: "i32", shape: ["R", "C"] };
function elementDoc(params: object[], inner: object[], cRange: unknown[] = [0, "C"]): string {
  return JSON.stringify({
    tile: 1, name: "partial", attrs: { noalias: true }, sizes: { R: 5, C: 7 }, params,
    body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [{ for: "c", in: cRange, kind: "parallel", body: inner }] }],
  });
}
const load = (b: string, at: unknown[] = ["r", "c"]) => ["load", b, at];
const store = (b: string, at: unknown[], value: unknown) => ({ store: b, at, value });

/** TEX005 pointers of `emit --target target`, the same from both engines; the module must be written. */
function tex005(text: string, target: string): string[] {
  const req = { command: "emit", document: text, options: { target } };
  const a = wasm.call(req);
  const b = js.call(req);
  expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  expect(a.ok, JSON.stringify(a.diagnostics)).toBe(true);
  if (target !== "metal") expect(a.python.length).toBeGreaterThan(0);
  const d = a.diagnostics.filter((x: any) => x.code === "TEX005");
  for (const x of d) {
    expect(x.severity).toBe("warning");
    expect(x.message).toMatch(/is returned as a new (array|tensor) filled with 0, and no store is proven to write every element of it/);
  }
  return d.map((x: any) => x.pointer);
}

describe("emit --target mlx | torch-mps: an output not proven to be stored at every element (TEX005)", () => {
  it("a masked fill under an if (the red team's masked_fill_if): a warning on both targets, none on metal", () => {
    const doc = elementDoc([M, X], [{ if: ["eq", load("M"), 0], then: [store("X", ["r", "c"], ["f32", -1e9])] }]);
    expect(tex005(doc, "mlx")).toEqual(["/params/1"]);
    expect(tex005(doc, "torch-mps")).toEqual(["/params/1"]);
    expect(tex005(doc, "metal")).toEqual([]);
    // the message says what to do on each target
    const t = wasm.call({ command: "emit", document: doc, options: { target: "torch-mps" } }).diagnostics.find((d: any) => d.code === "TEX005");
    expect(t.message).toContain("makes it an argument updated in place");
    const m = wasm.call({ command: "emit", document: doc, options: { target: "mlx" } }).diagnostics.find((d: any) => d.code === "TEX005");
    expect(m.message).toContain("emit with --target torch-mps");
  });

  it("the same fill written with select reads X: MLX refuses it (TEX001), torch-mps updates X in place with no warning", () => {
    const doc = elementDoc([M, X], [store("X", ["r", "c"], ["select", ["eq", load("M"), 0], ["f32", -1e9], load("X")])]);
    const mlx = wasm.call({ command: "emit", document: doc, options: { target: "mlx" } });
    expect(mlx.diagnostics.map((d: any) => d.code)).toEqual(["TEX001"]);
    expect(tex005(doc, "torch-mps")).toEqual([]);
  });

  it("stores that cover the buffer give none: in order, reversed, through an offset loop, a reduction's row output", () => {
    expect(tex005(elementDoc([X, Y], [store("Y", ["r", "c"], load("X"))]), "mlx")).toEqual([]);
    expect(tex005(elementDoc([X, Y], [store("Y", ["r", ["sub", ["sub", "C", 1], "c"]], load("X"))]), "torch-mps")).toEqual([]);
    // c in [1, C + 1) (min 1, extent C) stored at c - 1
    const shifted = elementDoc([X, Y], [store("Y", ["r", ["sub", "c", 1]], load("X", ["r", ["sub", "c", 1]]))], [1, "C"]);
    expect(tex005(shifted, "mlx")).toEqual([]);
    for (const c of ["softmax", "layernorm_affine", "gelu_pair", "minmax"]) {
      const text = fs.readFileSync(path.join(ROOT, "cases", c + ".json"), "utf8");
      expect(tex005(text, "mlx"), c).toEqual([]);
      expect(tex005(text, "torch-mps"), c).toEqual([]);
    }
  });

  it("stores not proven to cover give one warning per buffer: a shorter loop, a triangle, a constant column, two halves", () => {
    expect(tex005(elementDoc([X, Y], [store("Y", ["r", "c"], load("X"))], [0, ["sub", "C", 1]]), "mlx")).toEqual(["/params/1"]);
    expect(tex005(elementDoc([X, Y], [store("Y", ["r", "c"], load("X"))], [0, ["add", "r", 1]]), "torch-mps")).toEqual(["/params/1"]);
    const column = JSON.stringify({ tile: 1, name: "column", attrs: { noalias: true }, sizes: { R: 5, C: 7 }, params: [X, Y],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [store("Y", ["r", 0], load("X", ["r", 0]))] }] });
    expect(tex005(column, "mlx")).toEqual(["/params/1"]);
    // two stores writing a half each do cover it, but the proof takes one store at a time (documented)
    const halves = JSON.stringify({
      tile: 1, name: "halves", attrs: { noalias: true }, sizes: { R: 3, H: 4 },
      params: [{ name: "X", dtype: "f32", shape: ["R", "H"] }, { name: "Y", dtype: "f32", shape: ["R", 8] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [{ for: "h", in: [0, "H"], kind: "parallel", body: [
        store("Y", ["r", "h"], load("X", ["r", "h"])), store("Y", ["r", ["add", "h", "H"]], ["neg", load("X", ["r", "h"])])] }] }],
    });
    expect(tex005(halves, "mlx")).toEqual(["/params/1"]);
    // the causal softmax of the ragged fixtures stores only c <= r
    const causal = fs.readFileSync(path.join(ROOT, "test", "fixtures", "ragged", "causal_softmax.json"), "utf8");
    expect(tex005(causal, "mlx")).toEqual(["/params/1"]);
    expect(tex005(causal, "torch-mps")).toEqual(["/params/1"]);
  });
});
