// Issue 21, a user's own kernels: no silent fallback (TPL008/TPL009/TPL010), diagnostics with
// file:line:col, a caret and "did you mean", validation that shows its terms, device presets,
// bench on any document, and documentation that matches the tool. Mostly through the CLI, as a
// user runs it (needs npm run build): its main in process (test/helpers/cli.ts), and spawned as
// node shell-node/bin/tile.mjs where the test is about the executable a user runs (`spawned`).
import { describe, expect, it, beforeAll, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, FIXTURES_DIR } from "./helpers/files";
import { loadEngine, Engine } from "../shell-node/src/engine";
import { nativeLibraryPath } from "../shell-node/src/native";
import { checkProtocol } from "../shell-node/src/bench/protocol";
import { makeInputs, parseInputRange } from "../shell-node/src/inputs";
import { tileInProcess } from "./helpers/cli";

const BIN = path.join(ROOT, "shell-node", "bin", "tile.mjs");
const USER_DIR = path.join(FIXTURES_DIR, "user");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `tile ARGS` as a real process (the tests of what a user sees from the executable itself). */
function spawned(...args: string[]): Run {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: "utf8", timeout: 120000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `tile ARGS` in this process (test/helpers/cli.ts): the same main, exit code and streams,
 *  without Node's start-up for each call. */
async function tile(...args: string[]): Promise<Run> {
  return tileInProcess(...args);
}

let tmp = "";
let wasm: Engine;
let js: Engine;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tile-ux-"));
  wasm = await loadEngine("wasm");
  js = await loadEngine("js");
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function write(name: string, doc: unknown): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, typeof doc === "string" ? doc : JSON.stringify(doc, null, 2));
  return file;
}

const softmax = (): any => JSON.parse(fs.readFileSync(path.join(ROOT, "cases", "softmax.json"), "utf8"));

function plan(doc: unknown, options: object = {}): any {
  return wasm.call({ command: "plan", document: typeof doc === "string" ? doc : JSON.stringify(doc), options });
}

describe("no silent fallback", () => {
  it("a missing noalias falls back with a TPL008 warning naming the cause and what noalias asserts", () => {
    const doc = softmax();
    delete doc.attrs;
    const p = plan(doc);
    expect(p.ok).toBe(true);
    expect(p.realization).toBe("serial-program");
    const w = p.diagnostics.filter((d: any) => d.code === "TPL008");
    expect(w).toHaveLength(1);
    expect(w[0].severity).toBe("warning");
    expect(w[0].message).toMatch(/noalias (fails|unknown)/);
    expect(w[0].message).toMatch(/add "attrs": \{"noalias": true\}/);
    expect(w[0].message).toMatch(/asserts that every parameter is a distinct allocation/);
    // with noalias the same document has no warning at all
    expect(plan(softmax()).diagnostics).toEqual([]);
  });

  it("plan, emit and run print the warning; --no-serial turns it into TPL010 and exit 1", () => {
    const doc = softmax();
    delete doc.attrs;
    const file = write("no-noalias.json", doc);
    const p = spawned("plan", file);
    expect(p.code).toBe(0);
    expect(p.stdout).toContain("warning TPL008 (serial-fallback)");
    const e = spawned("emit", file);
    expect(e.code).toBe(0);
    expect(e.stdout).toMatch(/^#include <metal_stdlib>/); // the MSL alone on stdout
    expect(e.stdout).toContain("// tile: ");
    expect(e.stdout).not.toContain("TPL008");
    expect(e.stderr).toContain("warning TPL008");
    const r = spawned("run", file, "--runtime", "host");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("warning TPL008");
    for (const cmd of ["plan", "emit", "run"]) {
      const n = spawned(cmd, file, "--no-serial", ...(cmd === "run" ? ["--runtime", "host"] : []));
      expect(n.code, cmd).toBe(1);
      expect(n.stdout + n.stderr, cmd).toContain("error TPL010 (serial-refused)");
    }
    // a cooperative plan is unaffected by --no-serial
    expect(spawned("plan", path.join("cases", "softmax.json"), "--no-serial").code).toBe(0);
  });

  it("a document outside both families says which change would help", () => {
    const doc = {
      tile: 1, name: "two_loops", attrs: { noalias: true }, sizes: { N: 8 },
      params: [{ name: "X", dtype: "f32", shape: ["N"] }, { name: "Y", dtype: "f32", shape: ["N"] }],
      body: [
        { for: "i", in: [0, "N"], kind: "parallel", body: [{ store: "Y", at: ["i"], value: ["load", "X", ["i"]] }] },
        { for: "j", in: [0, "N"], kind: "parallel", body: [{ store: "Y", at: ["j"], value: ["load", "X", ["j"]] }] },
      ],
    };
    const p = plan(doc);
    const w = p.diagnostics.find((d: any) => d.code === "TPL008");
    expect(w.message).toMatch(/top level is not a single parallel loop/);
    expect(w.message).toMatch(/To avoid it: wrap the body in one top-level parallel loop/);
  });

  it("requests that cannot be honoured exit 1 with TPL009 instead of being replaced", async () => {
    const pp = (await tile("plan", path.join("cases", "softmax.json"), "--programs-per-group", "64"));
    expect(pp.code).toBe(1);
    expect(pp.stdout).toMatch(/error TPL009 \(request-not-honoured\): Cannot honour --programs-per-group 64.*thread-limit fails/);
    expect(pp.stdout).toContain("cases/softmax.json: --programs-per-group: error TPL009");
    // the element grid: a T that is not a multiple of 32 cannot be used (TPL009); P has no
    // meaning there and is ignored with a TPL011 warning, never silently; U is honoured (chunks
    // of V columns per thread)
    const gelu = fs.readFileSync(path.join(ROOT, "cases", "gelu_pair.json"), "utf8");
    expect(plan(gelu, { threads: 100 }).diagnostics[0].code).toBe("TPL009");
    expect(plan(gelu, { threads: 100 }).ok).toBe(false);
    const pg = plan(gelu, { programsPerGroup: 2 });
    expect(pg.ok).toBe(true);
    expect(pg.diagnostics.map((d: any) => d.code)).toEqual(["TPL011"]);
    expect(pg.diagnostics[0].message).toMatch(/has no effect/);
    const pu = plan(gelu, { unroll: 2 });
    expect(pu.ok).toBe(true);
    expect(pu.diagnostics).toEqual([]);
    expect(pu.mapping).toMatchObject({ U: 2, blocksPerRow: Math.ceil(1537 / 512) });
    // a serial fallback for a reason no width can change: the widths asked for are named as unused
    const doc = softmax();
    delete doc.attrs;
    const v = plan(doc, { vector: 4, programsPerGroup: 2 });
    expect(v.ok).toBe(true);
    expect(v.diagnostics.map((d: any) => d.code)).toEqual(["TPL008"]);
    expect(v.diagnostics[0].message).toContain("The requested --programs-per-group 2 --vector 4 has no effect on the serial program.");
    // --no-cache-input too (the serial program caches nothing): named once, in the TPL008
    const nc = plan(doc, { cacheInput: false });
    expect(nc.diagnostics.map((d: any) => d.code)).toEqual(["TPL008"]);
    expect(nc.diagnostics[0].message).toContain("The requested --no-cache-input has no effect on the serial program.");
  });

  it("--threads sets the element grid's block, and the kernel still validates", async () => {
    const gelu = path.join("cases", "gelu_pair.json");
    const p = JSON.parse((await tile("plan", gelu, "--threads", "128", "--json")).stdout);
    expect(p.mapping.T).toBe(128);
    expect(p.mapping.block).toBe(128);
    expect(p.dispatch.threads).toBe(128);
    // groups = rows * ceil(cols / (T * V)), the README's formula
    expect(p.mapping.groups).toBe(p.mapping.rows * Math.ceil(p.mapping.cols / (128 * p.mapping.V)));
    const r = (await tile("run", gelu, "--threads", "128", "--runtime", "host", "--json"));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).passed).toBe(true);
  });

  it("--candidates prints a readable table: the chosen candidate first, the margin over the runner-up", async () => {
    const text = (await tile("plan", path.join("cases", "softmax.json"), "--candidates"));
    expect(text.code).toBe(0);
    const json = JSON.parse((await tile("plan", path.join("cases", "softmax.json"), "--candidates", "--json")).stdout);
    const m = json.mapping;
    const lines = text.stdout.split("\n");
    const head = lines.findIndex((l) => /^\s+widths\s+admissible/.test(l));
    expect(head).toBeGreaterThan(0);
    expect(lines[head + 1]).toMatch(new RegExp(`^\\s+chosen\\s+P=${m.P} S=${m.S} T=${m.T} V=${m.V} U=${m.U}`));
    // the runner-up: the cheapest admissible candidate other than the chosen one
    const others = json.candidates.filter((c: any) => c.admissible && JSON.stringify(c.mapping) !== JSON.stringify(m));
    const runner = others.reduce((a: any, b: any) => (b.cost.total < a.cost.total ? b : a));
    const margin = ((runner.cost.total / json.cost.total - 1) * 100).toFixed(1);
    expect(text.stdout).toContain(`margin: the runner-up costs ${margin}% more than the chosen candidate (P=${runner.mapping.P} S=${runner.mapping.S}`);
  });
});

describe("diagnostics like a modern compiler", () => {
  const bad = (): any => ({
    tile: 1, name: "bad", attrs: { noalias: true }, sizes: { R: 4, C: 64 },
    params: [{ name: "Input", dtype: "f32", shape: ["R", "C"] }, { name: "Out", dtype: "f32", shape: ["R", "C"] }],
    body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
      { reduce: "mx", combiner: "max", over: ["c", 0, "C"], value: ["load", "Input", ["r", "c"]] },
      { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "Out", at: ["r", "c"], value: ["sub", ["load", "Input", ["r", "c"]], "mx"] }] },
    ] }],
  });

  function firstDiagnostic(doc: any): any {
    const text = JSON.stringify(doc, null, 2);
    const a = wasm.call({ command: "validate", document: text });
    // both engines say exactly the same thing
    expect(wasm.callText(JSON.stringify({ command: "validate", document: text }))).toBe(js.callText(JSON.stringify({ command: "validate", document: text })));
    return a.diagnostics[0];
  }

  it("suggests the nearest buffer, size, scalar, field, combiner and operator", () => {
    const cases: [(d: any) => void, string, string][] = [
      [(d) => (d.body[0].body[0].value[1] = "Inptu"), "TIR012", 'Did you mean "Input"?'],
      [(d) => (d.params[0].shape[1] = "Cc"), "TIR011", 'Did you mean "C"?'],
      [(d) => (d.body[0].body[1].body[0].value[2] = "mz"), "TIR010", 'Did you mean "mx"?'],
      [(d) => { d.body[0].knd = "parallel"; }, "TIR005", 'Did you mean "kind"?'],
      [(d) => (d.body[0].body[0].combiner = "maximum"), "TIR013", 'Did you mean "max"?'],
      [(d) => (d.body[0].body[1].body[0].value[0] = "sbu"), "TIR015", 'Did you mean "sub"?'],
    ];
    for (const [edit, code, hint] of cases) {
      const doc = bad();
      edit(doc);
      const d = firstDiagnostic(doc);
      expect(d.code, hint).toBe(code);
      expect(d.message, code).toContain(hint);
    }
    // a name far from every candidate gets no guess
    const far = bad();
    far.body[0].body[0].value[1] = "Completely";
    expect(firstDiagnostic(far).message).not.toContain("Did you mean");
  });

  it("a reduce's axis used after its reduce is explained as such, not answered with a guess", () => {
    // (a user corpus of session 29 got 'Did you mean "C"?' here)
    const doc = bad();
    doc.body[0].body.push({ store: "Out", at: ["r", "c"], value: "mx" });
    const d = firstDiagnostic(doc);
    expect(d.code).toBe("TIR010");
    expect(d.message).toContain("it is the axis of a reduce, bound only inside that reduce's value");
    expect(d.message).not.toContain("Did you mean");
  });

  it("an element store in each branch of an if: the grid's refusal says how to write it so that it fuses", () => {
    const doc = JSON.stringify({
      tile: 1, name: "relu_if", attrs: { noalias: true }, sizes: { R: 4, C: 64 },
      params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R", "C"] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [{ for: "c", in: [0, "C"], kind: "parallel", body: [
        { if: ["gt", ["load", "X", ["r", "c"]], ["f32", 0]], then: [{ store: "Y", at: ["r", "c"], value: ["load", "X", ["r", "c"]] }], else: [{ store: "Y", at: ["r", "c"], value: ["f32", 0] }] },
      ] }] }],
    });
    const p = wasm.call({ command: "plan", document: doc, options: {} });
    expect(p.rejections[0].realization).toBe("fused-elementwise");
    expect(p.rejections[0].message).toContain("one unconditional store whose value is a `select` is fused");
  });

  it("indices wrapped in a list of their own ([[\"r\", \"c\"]]) are answered with how to list them (red team, session 30)", () => {
    const doc = bad();
    const store = doc.body[0].body[1].body[0];
    store.at = [store.at];
    const d = firstDiagnostic(doc);
    expect(d.code).toBe("TIR015");
    expect(d.message).toContain("if it is meant as indices, list them directly, one per dimension");
    // an unknown operator with an expression operand gets no such hint
    const op = bad();
    op.body[0].body[1].body[0].value = ["sbu", "mx", ["f32", 1]];
    expect(firstDiagnostic(op).message).not.toContain("meant as indices");
    // nor a one-operand call of a known function or a near miss of an operator's name (red team, session 32)
    for (const name of ["sigmoid", "mull", "expp"]) {
      const call = bad();
      call.body[0].body[1].body[0].value = [name, "mx"];
      const m = firstDiagnostic(call);
      expect(m.code).toBe("TIR015");
      expect(m.message, name).not.toContain("meant as indices");
    }
  });

  it("an unknown combiner named as other tools name sum, max, min or a mean gets the Tile IR way (red team, session 32)", () => {
    const combiner = (c: string) => {
      const doc = bad();
      doc.body[0].body[0].combiner = c;
      const d = firstDiagnostic(doc);
      expect(d.code).toBe("TIR013");
      return d.message;
    };
    expect(combiner("mean")).toContain("A mean is a sum divided by the count");
    expect(combiner("add")).toContain('Did you mean "sum"?');
    expect(combiner("amax")).toContain('Did you mean "max"?');
    expect(combiner("argmin")).toContain("An argmin is a min, then a min over the indices");
    expect(combiner("prod")).toContain("no product reduction");
    expect(combiner("Sum")).toContain('Did you mean "sum"?');
  });

  it("a range written as [min, end] past the buffer's end gets the reminder that the second number is an extent (red team, session 32)", () => {
    const doc = bad();
    doc.body[0].body[0].over = ["c", 1, "C"];
    const d = firstDiagnostic(doc);
    expect(d.code).toBe("TIR023");
    expect(d.message).toContain('The range of "c" starts at 1: a range is [min, extent]');
    // a range from 0 that runs past the end gets no such reminder
    const zero = bad();
    zero.body[0].body[0].over = ["c", 0, ["add", "C", 1]];
    const z = firstDiagnostic(zero);
    expect(z.code).toBe("TIR023");
    expect(z.message).not.toContain("a range is [min, extent]");
  });

  it("a cast to f16 or bf16 says they are storage types that a store rounds to (red team, session 32)", () => {
    for (const t of ["f16", "bf16"]) {
      const doc = bad();
      doc.body[0].body[1].body[0].value = ["cast", t, "mx"];
      const d = firstDiagnostic(doc);
      expect(d.code).toBe("TIR014");
      expect(d.message).toContain(t + " is a storage type");
      expect(d.message).toContain("a store to an " + t + " buffer rounds to " + t);
    }
  });

  it("a bare 0.0 where an integer is meant is answered with the integer; a size written 4e0 or \"8\" says what was found (red team, session 30)", () => {
    const doc = bad();
    doc.body[0].in[0] = 0.5;
    expect(firstDiagnostic(doc).message).toContain('Write the float literal as ["f32", 0.5]');
    // (JSON.stringify writes 0.0 as 0: the text is edited)
    const text = JSON.stringify(bad()).replace('"in":[0,"R"]', '"in":[0.0,"R"]');
    expect(text).toContain("0.0");
    const d = wasm.call({ command: "validate", document: text }).diagnostics[0];
    expect(d.code).toBe("TIR006");
    expect(d.message).toContain("Write 0 where an integer is meant (a loop bound, an index)");
    const size = JSON.stringify(bad()).replace('"R":4', '"R":4e0');
    expect(size).toContain("4e0");
    const s = wasm.call({ command: "validate", document: size }).diagnostics[0];
    expect(s.code).toBe("TIR020");
    expect(s.message).toContain("found 4e0");
    const str = JSON.stringify(bad()).replace('"R":4', '"R":"8"');
    expect(wasm.call({ command: "validate", document: str }).diagnostics[0].message).toContain("found a string");
  });

  it("a name bound over one in scope gives TIR016 and nothing else: no out-of-bounds or type error through it (session 30's note)", () => {
    const doc = (body: unknown): string => JSON.stringify({
      tile: 1, name: "s", attrs: { noalias: true }, sizes: { R: 4, C: 8 },
      params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R", "C"] }], body,
    });
    const codes = (body: unknown): string[] => wasm.call({ command: "validate", document: doc(body) }).diagnostics.map((d: any) => d.code);
    const row = (inner: unknown[]): unknown => [{ for: "r", in: [0, "R"], kind: "parallel", body: inner }];
    const copy = { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: ["r", "c"], value: ["load", "X", ["r", "c"]] }] };
    // a loop r inside a loop r: X[r, r] with the inner r over [0, C) was also out of bounds
    expect(codes(row([{ for: "r", in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: ["r", "r"], value: ["load", "X", ["r", "r"]] }] }]))).toEqual(["TIR016"]);
    // a reduce axis r inside a loop r
    expect(codes(row([{ reduce: "m", combiner: "max", over: ["r", 0, "C"], value: ["load", "X", ["r", "r"]] }, copy]))).toEqual(["TIR016"]);
    // a reduce named r inside a loop r, then stored: was also "i32 stored in an f32 buffer"
    expect(codes(row([{ reduce: "r", combiner: "max", over: ["c", 0, "C"], value: ["load", "X", ["r", "c"]] },
      { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: ["r", "c"], value: "r" }] }]))).toEqual(["TIR016"]);
    // a let r of f32 inside a loop r, then used as an index
    expect(codes(row([{ let: "r", value: ["f32", 1.0] }, copy]))).toEqual(["TIR016"]);
    // a loop with a varying min (its hidden shift) inside a loop of the same name
    expect(codes(row([{ for: "c", in: ["r", "C"], kind: "parallel", body: [{ for: "c", in: ["r", 4], kind: "parallel", body: [{ store: "Y", at: ["r", "c"], value: ["load", "X", ["r", "c"]] }] }] }]))).toEqual(["TIR016"]);
    // without a shadow the same mistakes are still reported
    expect(codes(row([{ for: "k", in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: ["k", "k"], value: ["load", "X", ["r", "k"]] }] }]))).toEqual(["TIR023"]);
    expect(codes(row([{ reduce: "q", combiner: "max", over: ["c", 0, "C"], value: ["load", "X", ["r", "c"]] },
      { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: ["r", "c"], value: "r" }] }]))).toEqual(["TIR017"]);
  });

  it("a type mismatch of two numbers shows the cast to write; a literal past the f32 range says what to write instead (red team, session 31)", () => {
    const doc = (value: unknown): string => JSON.stringify({
      tile: 1, name: "m", attrs: { noalias: true }, sizes: { R: 4, C: 8 },
      params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R"] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["load", "X", ["r", "c"]] },
        { store: "Y", at: ["r"], value }] }],
    });
    const first = (value: unknown): any => wasm.call({ command: "validate", document: doc(value) }).diagnostics[0];
    expect(first(["div", "s", "C"]).message).toContain('add a cast: write the second operand (i32) as ["cast", "f32", "C"].');
    expect(first(["mul", "r", "s"]).message).toContain('add a cast: write the first operand (i32) as ["cast", "f32", "r"].');
    // a long operand is not printed whole
    const long = ["add", ["mul", "r", "r"], ["mul", ["add", "r", 1], ["add", "r", 2]]];
    expect(first(["add", "s", long]).message).toContain('as ["cast", "f32", ...].');
    // a bool operand gets no cast to write
    expect(first(["add", "s", ["lt", "r", 2]]).message).toMatch(/add a cast\.$/);
    const big = first(["f32", -1e39]);
    expect(big.code).toBe("TIR024");
    expect(big.message).toContain('use a finite one such as ["f32", -3.4e38]');
  });

  it("a store index read from a buffer (a KV append at Pos[0] + n) names the buffer and says a size would be proven (red team, session 31)", () => {
    const doc = JSON.stringify({
      tile: 1, name: "kv_append_pos", attrs: { noalias: true }, sizes: { T: 16, N: 3, D: 8 },
      params: [{ name: "K", dtype: "f32", shape: ["T", "D"] }, { name: "New", dtype: "f32", shape: ["N", "D"] }, { name: "Pos", dtype: "i32", shape: [1] }],
      body: [{ for: "n", in: [0, "N"], kind: "parallel", body: [{ for: "d", in: [0, "D"], kind: "parallel", body: [
        { store: "K", at: [["add", ["load", "Pos", [0]], "n"], "d"], value: ["load", "New", ["n", "d"]] }] }] }],
    });
    const p = wasm.call({ command: "plan", document: doc, options: {} });
    const rule = p.rules.find((r: any) => r.id === "injective-compact-store");
    expect(rule.violations[0].reason).toContain('Index 0 of the store to "K" reads "Pos" at run time');
    expect(rule.violations[0].pointer).toBe("/body/0/body/0/body/0/at/0");
    const w = p.diagnostics.find((d: any) => d.code === "TPL008");
    expect(w.message).toContain("an index read from a buffer at run time is not proven either: a value known when the kernel is planned (a position, an offset) can be a size");
    // an index that is not affine for another reason keeps the general text
    const sq = JSON.parse(doc);
    sq.body[0].body[0].body[0].at[0] = ["mul", "n", "n"];
    const q = wasm.call({ command: "plan", document: JSON.stringify(sq), options: {} });
    expect(q.rules.find((r: any) => r.id === "injective-compact-store").violations[0].reason).toContain("is not affine in the domain variables");
  });

  it("a per-head norm over column groups (serial) is advised with the document's own loop names (red team, session 30)", () => {
    // a per-head norm over [T, D*H] stored head-minor (h + H * d): not the nest's leading index,
    // and not a column group h * D + d either
    const x = (): any => ["load", "X", ["t", ["add", "h", ["mul", "H", "d"]]]];
    const doc = JSON.stringify({
      tile: 1, name: "qk_norm", attrs: { noalias: true }, sizes: { T: 6, H: 4, D: 32, HD: 128 },
      params: [{ name: "X", dtype: "f32", shape: ["T", "HD"] }, { name: "Y", dtype: "f32", shape: ["T", "HD"] }],
      body: [{ for: "t", in: [0, "T"], kind: "parallel", body: [{ for: "h", in: [0, "H"], kind: "parallel", body: [
        { reduce: "ss", combiner: "sum", over: ["d", 0, "D"], value: ["mul", x(), x()] },
        { for: "d", in: [0, "D"], kind: "parallel", body: [{ store: "Y", at: ["t", ["add", "h", ["mul", "H", "d"]]], value: ["mul", x(), ["rsqrt", "ss"]] }] },
      ] }] }],
    });
    const p = wasm.call({ command: "plan", document: doc, options: {} });
    expect(p.realization).toBe("serial-program");
    const w = p.diagnostics.find((d: any) => d.code === "TPL008");
    expect(w.message).toContain("(Y[t, h, ...] for the loops t, h, each starting at 0");
    expect(w.message).not.toContain("loops n, g");
  });

  it("an operator Tile IR lacks (sigmoid) is answered with how to write it", () => {
    const doc = bad();
    doc.body[0].body[1].body[0].value = ["sigmoid", "mx"];
    const d = firstDiagnostic(doc);
    expect(d.code).toBe("TIR015");
    expect(d.message).toContain('Tile IR has no sigmoid; write it as ["div", ["f32", 1], ["add", ["f32", 1], ["exp", ["neg", x]]]]');
  });

  it("prints file:line:col, the source line and a caret under the node; --json keeps the pointer", async () => {
    const doc = bad();
    doc.body[0].body[0].value[1] = "Inptu";
    const file = write("typo.json", JSON.stringify(doc, null, 2));
    const r = (await tile("validate", file));
    expect(r.code).toBe(2);
    const lines = r.stdout.split("\n");
    const m = /^(.*):(\d+):(\d+): error TIR012 \(unknown-buffer\): /.exec(lines[0]);
    expect(m![1]).toBe(file);
    const [line, col] = [Number(m![2]), Number(m![3])];
    const src = fs.readFileSync(file, "utf8").split("\n");
    expect(src[line - 1].slice(col - 1)).toMatch(/^"Inptu"/);
    expect(lines[1]).toBe(`  ${line} | ${src[line - 1]}`);
    expect(lines[2]).toBe(`  ${" ".repeat(String(line).length)} | ${" ".repeat(col - 1)}^`);
    const j = JSON.parse((await tile("validate", file, "--json")).stdout);
    expect(j.diagnostics[0]).toMatchObject({ code: "TIR012", pointer: "/body/0/body/0/value/1", line, column: col });
  });
});

describe("validation shows its terms", () => {
  it("run prints the tolerance, the input distribution and the worst element", async () => {
    const r = (await tile("run", path.join("cases", "softmax.json"), "--runtime", "host"));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("tolerance: |got - ref| <= 2e-6 + 2e-5 * |ref| per element");
    expect(r.stdout).toContain("inputs: float inputs uniform on [-2, 2)");
    const j = JSON.parse((await tile("run", path.join("cases", "softmax.json"), "--runtime", "host", "--json")).stdout);
    expect(j.tolerance).toEqual({ abs: 2e-6, rel: 2e-5 });
    const w = j.outputs[0].worst;
    // the worst element is the one with the largest share of its tolerance
    expect(w.ratio).toBeCloseTo(Math.abs(w.got - w.ref) / (2e-6 + 2e-5 * Math.abs(w.ref)), 6);
    expect(w.ratio).toBeLessThanOrEqual(1);
    expect(r.stdout).toContain(`[${w.index}] got ${w.got.toPrecision(7)} ref ${w.ref.toPrecision(7)}`);
  });

  it("warns when outputs are mostly non-finite; --input-range changes the inputs", async () => {
    const doc = {
      tile: 1, name: "sqrt_shift", attrs: { noalias: true }, sizes: { R: 4, C: 64 },
      params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R", "C"] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [{ for: "c", in: [0, "C"], kind: "parallel", body: [
        { store: "Y", at: ["r", "c"], value: ["sqrt", ["sub", ["load", "X", ["r", "c"]], ["f32", 1]]] },
      ] }] }],
    };
    const file = write("sqrt.json", doc);
    const r = (await tile("run", file, "--runtime", "host"));
    expect(r.stdout).toMatch(/warning TSH002 \(non-finite-outputs\): \d+ of 256 reference values of Y are NaN/);
    // --json gives it as a string in warnings and as a diagnostic object pointing at the output
    const bad = JSON.parse((await tile("run", file, "--runtime", "host", "--json")).stdout);
    expect(bad.warnings.some((w: string) => w.startsWith("warning TSH002 (non-finite-outputs): "))).toBe(true);
    expect(bad.diagnostics).toEqual([expect.objectContaining({ code: "TSH002", id: "non-finite-outputs", severity: "warning", pointer: "/params/1" })]);
    expect(`warning TSH002 (non-finite-outputs): ${bad.diagnostics[0].message}`).toBe(bad.warnings.find((w: string) => w.includes("TSH002")));
    const ok = (await tile("run", file, "--runtime", "host", "--input-range", "1,3", "--json"));
    expect(ok.code).toBe(0);
    const j = JSON.parse(ok.stdout);
    expect(j.warnings).toEqual([]);
    expect(j.inputs).toContain("uniform on [1, 3)");
    expect((await tile("run", file, "--input-range", "3,1")).code).toBe(2);
  });

  it("run --json lists the plan's warnings (a serial fallback's TPL008) in warnings, as the text output prints them", async () => {
    const doc = {
      tile: 1, name: "nest_scaled_store", attrs: { noalias: true }, sizes: { N: 2, G: 4, K: 9, C: 12 },
      params: [{ name: "X", dtype: "f32", shape: ["N", "G", "K"] }, { name: "Y", dtype: "f32", shape: ["N", "C"] }],
      body: [{ for: "n", in: [0, "N"], kind: "parallel", body: [{ for: "g", in: [0, "G"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["k", 0, "K"], value: ["load", "X", ["n", "g", "k"]] },
        { store: "Y", at: ["n", ["mul", "g", "g"]], value: "s" },
      ] }] }],
    };
    const file = write("nest_scaled_store.json", doc);
    const r = await tile("run", file, "--runtime", "host", "--json");
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.plan.realization).toBe("serial-program");
    expect(j.warnings.some((w: string) => w.startsWith("warning TPL008 (serial-fallback): "))).toBe(true);
    expect(j.diagnostics.map((d: any) => d.code)).toContain("TPL008");
    expect((await tile("run", file, "--runtime", "host")).stdout).toContain("warning TPL008 (serial-fallback)");
  });

  it("the default range gives exactly the documented values; a custom range stays inside it", () => {
    const doc = { params: [{ name: "X", dtype: "f32", shape: [1000] }], sizes: {}, body: [] };
    const a = makeInputs(doc, 3).get("X")!;
    const b = makeInputs(doc, 3, [-2, 2]).get("X")!;
    expect(Array.from(a)).toEqual(Array.from(b));
    const c = makeInputs(doc, 3, [5, 6]).get("X")!;
    expect(Math.min(...c)).toBeGreaterThanOrEqual(5);
    expect(Math.max(...c)).toBeLessThan(6);
    expect(parseInputRange("0,1")).toEqual([0, 1]);
    expect(parseInputRange("1,1")).toBeNull();
    expect(parseInputRange("a,b")).toBeNull();
    // bounds past the f32 range would draw infinite f32 inputs (a red team of session 13)
    expect(parseInputRange("0,1e39")).toBeNull();
    expect(parseInputRange("-1e39,0")).toBeNull();
    expect(parseInputRange("-3e38,3e38")).toEqual([-3e38, 3e38]);
  });

  it("a draw that rounds up to HI in its dtype takes the dtype's value below HI (the range is [LO, HI))", () => {
    const buffers = [
      { name: "B", dtype: "bf16", shape: [4000] }, { name: "H", dtype: "f16", shape: [4000] }, { name: "F", dtype: "f32", shape: [4000] },
    ];
    const doc = { params: buffers, sizes: {}, body: [] };
    // bf16 holds 100, 100.5 and 101 there; f16 holds 100, 100.0625, ..., 101
    const ins = makeInputs(doc, 5, [100, 101]);
    const b = Array.from(ins.get("B")!);
    expect(Math.max(...b)).toBe(100.5);
    expect(new Set(b)).toEqual(new Set([100, 100.5]));
    expect(Math.max(...ins.get("H")!)).toBe(101 - 0.0625);
    expect(Math.max(...ins.get("F")!)).toBeLessThan(101);
    // f32: a range one f32 ulp wide holds only LO (every draw rounds to LO or HI)
    const lo = 1 + 2 ** -23;
    const f = makeInputs({ params: [buffers[2]], sizes: {}, body: [] }, 5, [1, lo]).get("F")!;
    expect(new Set(f)).toEqual(new Set([1]));
    // just below a power of two the gap halves: [1 - 2^-24, 1) holds only 1 - 2^-24
    const g = makeInputs({ params: [buffers[2]], sizes: {}, body: [] }, 5, [1 - 2 ** -24, 1]).get("F")!;
    expect(new Set(g)).toEqual(new Set([1 - 2 ** -24]));
    // negative values: bf16 [-101, -100) holds -101 and -100.5
    const n = Array.from(makeInputs({ params: [buffers[0]], sizes: {}, body: [] }, 5, [-101, -100]).get("B")!);
    expect(new Set(n)).toEqual(new Set([-101, -100.5]));
  });

  it("a 16-bit draw that rounds below LO takes the dtype's value above LO; a range past a 16-bit input's range is refused (red team, session 27)", () => {
    const doc = { params: [{ name: "B", dtype: "bf16", shape: [4000] }, { name: "H", dtype: "f16", shape: [4000] }], sizes: {}, body: [] };
    // bf16 near 0.001: 0.00099945 (below LO), 0.00100708, ... 0.00109863
    const ins = makeInputs(doc, 5, [0.001, 0.0011]);
    for (const n of ["B", "H"]) {
      const v = Array.from(ins.get(n)!);
      expect(Math.min(...v), n).toBeGreaterThanOrEqual(0.001);
      expect(Math.max(...v), n).toBeLessThan(0.0011);
    }
    expect(Math.min(...ins.get("B")!)).toBe(0.001007080078125);
    // [60000, 70000) reaches past f16's 65504: infinities; [-3e38, 0) past bf16's 3.39e38 (f32 takes it)
    expect(() => makeInputs(doc, 5, [60000, 70000])).toThrow(/--input-range 60000,70000 reaches past the f16 range of the input H/);
    expect(() => makeInputs(doc, 5, [-3.3962e38, 0])).toThrow(/past the bf16 range of the input B/);
    expect(() => makeInputs({ params: [doc.params[1]], sizes: {}, body: [] }, 5, [-65504, 65520])).not.toThrow();
    expect(() => makeInputs({ params: [doc.params[1]], sizes: {}, body: [] }, 5, [-65520, 0])).toThrow(/f16/);
    expect(Math.max(...makeInputs({ params: [doc.params[1]], sizes: {}, body: [] }, 5, [65000, 65520]).get("H")!)).toBe(65504);
  });
});

describe("devices and bench", () => {
  it("tile device documents every field of the description it prints", async () => {
    const j = JSON.parse((await tile("device", "--json")).stdout);
    expect(j.ok).toBe(true);
    expect(j.device.name).toBe("Apple M1 Max");
    // the register fields are optional: printed only by a record that gives them (the H200's calibrated one)
    const optional = ["registerGranule", "registersPerCore", "registersPerExtraLoad", "registersPerThreadBase"];
    expect(j.fields.map((f: any) => f.name).sort()).toEqual([...Object.keys(j.device), ...optional].sort());
    for (const f of j.fields) expect(f.meaning.length, f.name).toBeGreaterThan(20);
    const h = JSON.parse((await tile("device", "--json", "--device", "nvidia-h200-calibrated")).stdout);
    expect(h.fields.map((f: any) => f.name).sort()).toEqual(Object.keys(h.device).sort());
  });

  it("every preset is a valid description with a source, and --device NAME uses it", async () => {
    const presets = fs.readdirSync(path.join(ROOT, "devices")).filter((f) => f.endsWith(".json"));
    for (const name of ["m1-pro", "m1-max", "m2-pro", "m2-max", "m3-pro", "m3-max", "m4-pro", "m4-max"]) expect(presets).toContain(`apple-${name}.json`);
    for (const f of presets) {
      const description = JSON.parse(fs.readFileSync(path.join(ROOT, "devices", f), "utf8"));
      const r = wasm.call({ command: "device", options: { device: description } });
      expect(r.diagnostics, f).toEqual([]);
      expect(description.source.length, f).toBeGreaterThan(20);
    }
    const m4 = JSON.parse((await tile("device", "--device", "apple-m4-max", "--json")).stdout);
    expect(m4.device.bandwidthBytesPerNs).toBe(546);
    const a = JSON.parse((await tile("plan", path.join("cases", "softmax.json"), "--json")).stdout);
    const b = JSON.parse((await tile("plan", path.join("cases", "softmax.json"), "--device", "apple-m4-max", "--json")).stdout);
    expect(b.cost.terms.memory).toBeLessThan(a.cost.terms.memory);
    expect((await tile("plan", path.join("cases", "softmax.json"), "--device", "no-such-preset")).code).toBe(2);
  });

  it("a protocol case may be the path of a document", () => {
    const doc = path.join(USER_DIR, "mean_var.json");
    const p = checkProtocol({
      format: "tile-bench-protocol/1", name: "user", cases: [{ case: path.relative(tmp, doc), sizes: { R: 8 } }, { case: "softmax" }],
      variants: { A: { options: { programsPerGroup: 1 } }, B: { options: { programsPerGroup: 2 } } }, rounds: 2, samples: 1, batchWindowMs: 1,
    }, ["softmax"], tmp);
    expect(p.cases[0].file).toBe(doc);
    expect(p.cases[1].file).toBeUndefined();
    expect(() => checkProtocol({ format: "tile-bench-protocol/1", cases: [{ case: "nope.json" }], variants: {}, rounds: 2, samples: 1, batchWindowMs: 1 }, ["softmax"], tmp)).toThrow(/neither a built-in case .* nor a readable document/);
  });

  it("bench runs a document case end to end and its results audit clean", async () => {
    const proto = write("user-bench.json", {
      format: "tile-bench-protocol/1", name: "user", cases: [{ case: path.join(USER_DIR, "mean_var.json"), sizes: { R: 6, C: 256 } }],
      variants: { A: { label: "P=1", options: { programsPerGroup: 1 } }, B: { label: "P=2", options: { programsPerGroup: 2 } } },
      rounds: 2, samples: 1, batchWindowMs: 1, maxBatch: 2, warmup: 0, metrics: ["hostBatch", "hostSingle"],
    });
    const out = path.join(tmp, "user-bench");
    const r = spawned("bench", proto, "--runtime", "host", "-o", out, "--json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, results: path.join(out, "results.json") });
    const a = spawned("audit", out, "--json");
    expect(a.code).toBe(0);
    expect(JSON.parse(a.stdout).verdict).toBe("clean");
  });
});

describe("several parallel loops above a reduction: one program per index tuple", () => {
  const attention = (): any => JSON.parse(fs.readFileSync(path.join(USER_DIR, "attention_softmax_4d.json"), "utf8"));

  function emitBoth(doc: any, options: object = {}): any {
    const req = JSON.stringify({ command: "emit", document: JSON.stringify(doc), options });
    const a = wasm.callText(req);
    expect(a).toBe(js.callText(req));
    return JSON.parse(a);
  }

  async function runs(doc: any, ...flags: string[]): Promise<any> {
    const file = write(`${doc.name}-${flags.join("_")}.json`, doc);
    const r = await tile("run", file, "--runtime", "host", "--json", ...flags);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  }

  it("a 4-D softmax over [B, H, S, S] is planned cooperatively with B*H*S programs and validates", async () => {
    const e = emitBoth(attention());
    expect(e.ok).toBe(true);
    expect(e.plan.realization).toBe("cooperative-reduction");
    expect(e.plan.mapping.programs).toBe(2 * 4 * 128);
    expect(e.plan.notes.join(" ")).toMatch(/parallel loops b, h, i above the reductions are one program per index tuple: 1024 programs/);
    expect(e.plan.diagnostics).toEqual([]);
    expect(e.audit.ok).toBe(true);
    expect((await runs(attention())).passed).toBe(true);
  });

  it("a ragged last group (15 programs, P = 2) and a buffer indexed by one nest variable (a mask [S, S]) validate", async () => {
    const doc = attention();
    doc.sizes = { B: 3, H: 1, S: 5 };
    doc.params.splice(1, 0, { name: "M", dtype: "f32", shape: ["S", "S"] });
    const x = ["add", ["load", "X", ["b", "h", "i", "j"]], ["load", "M", ["i", "j"]]];
    const body = doc.body[0].body[0].body[0].body;
    body[0].value = x;
    body[1].value = ["exp", ["sub", x, "m"]];
    body[2].body[0].value = ["div", ["exp", ["sub", x, "m"]], "s"];
    const e = emitBoth(doc, { programsPerGroup: 2 });
    expect(e.plan.realization).toBe("cooperative-reduction");
    expect(e.plan.mapping).toMatchObject({ P: 2, programs: 15, groups: 8 });
    expect((await runs(doc, "--programs-per-group", "2")).passed).toBe(true);
  });

  it("a reduction over a middle axis (sum over c of X[b, c, n]) gets a cooperative realization", async () => {
    const doc = {
      tile: 1, name: "middle_sum", attrs: { noalias: true }, sizes: { B: 3, C: 300, N: 7 },
      params: [{ name: "X", dtype: "f32", shape: ["B", "C", "N"] }, { name: "Y", dtype: "f32", shape: ["B", "N"] }],
      body: [{ for: "b", in: [0, "B"], kind: "parallel", body: [{ for: "n", in: [0, "N"], kind: "parallel", body: [
        { reduce: "t", combiner: "sum", over: ["c", 0, "C"], value: ["load", "X", ["b", "c", "n"]] },
        { store: "Y", at: ["b", "n"], value: "t" },
      ] }] }],
    };
    const e = emitBoth(doc);
    expect(e.plan.realization).toBe("cooperative-reduction");
    expect(e.plan.mapping.programs).toBe(21);
    expect((await runs(doc)).passed).toBe(true);
  });

  it("an output indexed through decoded variables is proven when they determine the program", async () => {
    // h starts at 1, so Y cannot be viewed with merged leading dimensions; the flattened store
    // index [p / 24, (p / 8) % 3 + 1, p % 8, j] holds every level's decoding of the program index,
    // which tells programs apart (since session 24; it was the serial program, one thread per b)
    const doc = attention();
    doc.sizes = { B: 2, H: 4, S: 8 };
    doc.body[0].body[0].in = [1, 3];
    const p = plan(doc);
    expect(p.realization).toBe("cooperative-reduction");
    expect(p.mapping.programs).toBe(2 * 3 * 8);
    expect(p.diagnostics).toEqual([]);
    expect((await runs(doc)).passed).toBe(true);
  });

  it("what cannot be proven stays serial with a reason: an output indexed through a decoded variable", async () => {
    // as above, with the rows stored in reverse through a max (Y[b, h, max(S - 1 - i, 0), j]): not a
    // sum of the program index's div and mod, which independent-store cannot prove injective, so
    // the document as written is planned: its serial program runs one thread per b (S - 1 - i
    // alone is proven since session 26)
    const doc = attention();
    doc.sizes = { B: 2, H: 4, S: 8 };
    doc.body[0].body[0].in = [1, 3];
    doc.body[0].body[0].body[0].body[2].body[0].at = ["b", "h", ["max", ["sub", ["sub", "S", 1], "i"], 0], "j"];
    const p = plan(doc);
    expect(p.realization).toBe("serial-program");
    expect(p.notes.join(" ")).toMatch(/not flattened into one program loop: the flattened programs are not proven either \(an index that decodes the loop variables from the program with div and mod/);
    expect(p.notes.join(" ")).toMatch(/The serial program runs one thread per program/);
    expect(p.diagnostics.map((d: any) => d.code)).toEqual(["TPL008"]);
    expect((await runs(doc)).passed).toBe(true);
  });

  it("a write conflict in the nest is still rejected (TPL001), from the document as written", () => {
    const doc = attention();
    doc.sizes = { B: 2, H: 4, S: 8 };
    doc.params[1].shape = ["B", "S", "S"];
    doc.body[0].body[0].body[0].body[2].body[0].at = ["b", "i", "j"];
    const p = plan(doc);
    expect(p.ok).toBe(false);
    expect(p.diagnostics[0].code).toBe("TPL001");
  });
});

describe("the five user documents of the issue", () => {
  const docs = fs.readdirSync(USER_DIR).filter((f) => f.endsWith(".json")).sort();

  it("are all there", () => {
    expect(docs).toEqual(["attention_softmax_4d.json", "mean_var.json", "rmsnorm_silu_gate.json", "softmax_temp_mask.json", "swiglu_pair.json"]);
  });

  for (const f of docs) {
    it(`${f}: planned cooperatively (or fused), or a coded warning says why not; the run validates`, async () => {
      const text = fs.readFileSync(path.join(USER_DIR, f), "utf8");
      const p = plan(text);
      expect(p.ok).toBe(true);
      if (p.realization === "serial-program") {
        const w = p.diagnostics.find((d: any) => d.code === "TPL008");
        expect(w, "a serial plan carries TPL008").toBeDefined();
        expect(w.message).toContain("To avoid it:");
      } else {
        expect(p.diagnostics.filter((d: any) => d.code === "TPL008")).toEqual([]);
      }
      const r = (await tile("run", path.join(USER_DIR, f), "--runtime", "host", "--json"));
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).passed).toBe(true);
    });
  }
});

describe("documentation matches the tool", () => {
  it("every command accepts --help and --json", async () => {
    const help = (await tile("--help")).stdout;
    const commands = [...help.matchAll(/^\s{2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]).filter((c) => c !== "help");
    expect(commands).toEqual(expect.arrayContaining(["validate", "eval", "cases", "plan", "emit", "audit-msl", "run", "device", "suite", "bench", "audit"]));
    for (const c of commands) {
      const r = (await tile(c, "--help"));
      expect(r.code, c).toBe(0);
      expect(r.stdout, c).toContain("--json");
    }
  });

  it("the Metal runtime's missing-library message names the .dylib it needs", () => {
    expect(nativeLibraryPath("metal")).toMatch(/libtile_metal\.dylib$/);
    if (process.platform !== "darwin") {
      const r = spawned("run", path.join("cases", "sum.json"), "--runtime", "metal");
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("libtile_metal.dylib");
    }
  });

  it("the README's element-grid formula includes V and U, and cost units are model ns everywhere", async () => {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    expect(readme).toContain("groups = rows * ceil(cols / (T * V * U))");
    const render = fs.readFileSync(path.join(ROOT, "web", "render.ts"), "utf8");
    for (const text of [readme, render]) expect(text).not.toContain("model units");
    expect(readme).toContain("model ns");
    expect(render).toContain("model ns");
    expect((await tile("plan", path.join("cases", "sum.json"))).stdout).toMatch(/cost [0-9.]+ model ns/);
  });

  it("npm start prints a legend for the widths column and the tolerance", () => {
    const r = spawned("suite", "--runtime", "host", "--filter", "sum/default");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("widths: P programs per threadgroup, S SIMD groups");
    expect(r.stdout).toContain("tolerance: |got - ref| <= 2e-6 + 2e-5 * |ref|");
    expect(r.stdout).toMatch(/\bof tol\b/);
  });

  it("the README's examples run and exit as they say", () => {
    // every line of a ```sh block in the "A first session" section runs; "# exit N" states the code
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## A first session"), readme.indexOf("\n## ", readme.indexOf("## A first session") + 5));
    const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
    const lines = blocks.join("").split("\n").filter((l) => l.startsWith("npx tile "));
    expect(lines.length).toBeGreaterThanOrEqual(6);
    for (const line of lines) {
      const want = /# exit (\d)/.exec(line);
      const args = line.replace(/#.*$/, "").trim().split(/\s+/).slice(2);
      const r = spawned(...args);
      expect(r.code, line + "\n" + r.stdout + r.stderr).toBe(want ? Number(want[1]) : 0);
    }
  });
});
