// `tile emit --target mlx | torch-mps`, checked without a Mac: for every built-in case and every
// option set of the validation matrix, the generated modules
//   1. are byte-identical from both engines and compile (python3 -m py_compile);
//   2. run against stand-ins for MLX and PyTorch (test/export/fake_frameworks.py) that record
//      what they would hand to the framework;
//   3. the MLX body, wrapped in the signature MLX writes by its documented rule (mlxSignature
//      below), and the torch-mps source, bound and dispatched as recorded, compile and run on the
//      host runtime with results bit-identical to the metal target's.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadEngine, Engine } from "../shell-node/src/engine";
import { builtinEntries, loadMatrix, MatrixEntry } from "../shell-node/src/matrix";
import { shapeOf } from "../shell-node/src/inputs";
import { openRuntime, nativeLibraryPath, type Runtime } from "../shell-node/src/native";
import { elements, emitTargets, exportKernels, exportManifest, exportRunProblems, fakeRun, freePrecompiled, precompile, type Emitted } from "./export/check";
import { ROOT } from "./helpers/files";
import { tileInProcess } from "./helpers/cli";

const CLI = path.join(ROOT, "shell-node", "bin", "tile.mjs");
const FAKES = path.join(ROOT, "test", "export", "fake_frameworks.py");
const LEG = path.join(ROOT, "test", "fixtures", "legality");
const python = spawnSync("python3", ["--version"]).status === 0;



let wasm: Engine;
let js: Engine;
let rt: Runtime;
let dir: string;

beforeAll(async () => {
  wasm = await loadEngine("wasm");
  js = await loadEngine("js");
  if (!fs.existsSync(nativeLibraryPath("host"))) execFileSync(process.execPath, [path.join(ROOT, "shell-native", "build.mjs")], { stdio: "inherit" });
  rt = openRuntime("host");
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "tile-export-"));
});
afterAll(() => {
  rt?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** FNV-1a over the UTF-16 code units of `s`, as 8 hex digits (core/export/mlx.ts textHash). */
function fnv1a(s: string): string {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return (h >>> 0).toString(16).padStart(8, "0");
}

function emitAll(entry: MatrixEntry): Emitted {
  const r = emitTargets(wasm, entry);
  const j = emitTargets(js, entry);
  for (const k of ["metal", "mlx", "torch"] as const) expect(JSON.stringify(j[k]), entry.id + " " + k).toBe(JSON.stringify(r[k]));
  return r;
}

describe.skipIf(!python)("emit --target mlx | torch-mps: every built-in case and matrix option set", () => {
  let all: Emitted[] = [];
  let records = new Map<string, any>();

  beforeAll(() => {
    all = [...builtinEntries(wasm), ...loadMatrix(wasm, false)].map(emitAll);
    const manifest = exportManifest(all, dir);
    const out = fakeRun(FAKES, manifest, dir);
    expect(out.stderr).toBe("");
    expect(out.status).toBe(0);
    records = out.records;
  }, 600_000);

  it("both targets export every entry, and the modules compile (python3 -m py_compile)", () => {
    expect(all.length).toBeGreaterThan(40);
    for (const e of all) {
      expect(e.mlx.ok, e.entry.id + JSON.stringify(e.mlx.diagnostics)).toBe(true);
      expect(e.torch.ok, e.entry.id).toBe(true);
      expect(e.mlx.msl).toBe(e.metal.msl);
      expect(e.metal.python).toBe("");
    }
    const files = fs.readdirSync(dir).filter((f) => f.endsWith(".py")).map((f) => path.join(dir, f));
    expect(files.length).toBe(2 * all.length);
    const r = spawnSync("python3", ["-m", "py_compile", ...files], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });

  it("the MLX module hands MLX the plan's grid and group, the document's names, shapes and dtypes", () => {
    for (const e of all) {
      const rec = records.get(e.entry.id + "|mlx");
      expect(rec.calls.length, e.entry.id).toBe(1);
      const c = rec.calls[0];
      const plan = e.metal.plan;
      const inputs = plan.bindings.filter((b: any) => b.access === "read");
      const outputs = plan.bindings.filter((b: any) => b.access !== "read");
      expect(c.grid).toEqual([plan.dispatch.groups * plan.dispatch.threads, 1, 1]);
      expect(c.threadgroup).toEqual([plan.dispatch.threads, 1, 1]);
      // the plan's kernel name and a hash of the text MLX compiles (FNV-1a over its UTF-16 code units)
      expect(c.kernel.name).toBe(`${plan.kernel}_${fnv1a(c.kernel.header + "\n" + c.kernel.source)}`);
      expect(c.kernel.ensure_row_contiguous).toBe(true);
      expect(c.kernel.atomic_outputs).toBe(false);
      expect(c.template).toBe(null);
      expect(c.init_value).toBe(0);
      expect(c.inputs.map((x: any) => x.tag)).toEqual(inputs.map((b: any) => b.name));
      for (const x of c.inputs) {
        expect(x.flat).toBe(true);
        const n = elements(shapeOf(e.doc, x.tag));
        expect(x.shape).toEqual([Math.max(n, 8)]);
        expect(x.pad).toBe(Math.max(0, 8 - n));
      }
      expect(c.output_shapes).toEqual(outputs.map((b: any) => shapeOf(e.doc, b.name)));
      const names: Record<string, string> = { i32: "int32", f32: "float32", f16: "float16", bf16: "bfloat16" };
      expect(c.output_dtypes).toEqual(outputs.map((b: any) => names[e.doc.params[b.index].dtype]));
      expect(rec.returned).toEqual(outputs.map((_: any, i: number) => "out" + i));
      // the body is the metal kernel's body after the preamble
      const body = e.metal.msl.slice(e.metal.msl.indexOf(")\n{\n") + 4, e.metal.msl.lastIndexOf("}\n"));
      expect(body.length).toBeGreaterThan(100);
      expect(c.kernel.source.endsWith(body), e.entry.id).toBe(true);
      const helpers = e.metal.msl.slice(e.metal.msl.indexOf("\n\n", e.metal.msl.indexOf("// tile: ")) + 2, e.metal.msl.indexOf("kernel void "));
      expect(c.kernel.header.endsWith(helpers), e.entry.id).toBe(true);
      expect(rec.docstring).toContain(`${rec.function}(`);
    }
  });

  it("the torch-mps module compiles the metal source and passes every buffer in binding order with the plan's threads and group size", () => {
    for (const e of all) {
      const rec = records.get(e.entry.id + "|torch-mps");
      expect(rec.calls.length, e.entry.id).toBe(1);
      const c = rec.calls[0];
      const plan = e.metal.plan;
      expect(c.source).toBe(e.metal.msl);
      expect(c.entry).toBe(plan.kernel);
      expect(c.threads).toBe(plan.dispatch.groups * plan.dispatch.threads);
      expect(c.group_size).toBe(plan.dispatch.threads);
      expect(c.args.length).toBe(plan.bindings.length);
      plan.bindings.forEach((b: any, i: number) => {
        const a = c.args[i];
        expect(a.shape).toEqual(shapeOf(e.doc, b.name));
        expect(a.device).toBe("mps");
        expect(a.contiguous).toBe(true);
        if (b.access === "write") expect(a.tag).toMatch(/^zeros/);
        else expect(a.tag).toBe(b.name);
      });
      expect(rec.returned.length).toBe(plan.bindings.filter((b: any) => b.access !== "read").length);
    }
  });

  it("the MLX kernel (MLX's signature around the body) and the torch-mps kernel run on the host runtime with the metal target's results", () => {
    // compiled 40 kernels to a unit (one compiler run each), then run one by one
    const pre = precompile(rt, all.flatMap((e) => exportKernels(e, records)), 40);
    try {
      for (const e of all) expect(exportRunProblems(rt, e, records, pre)).toEqual([]);
    } finally {
      freePrecompiled(rt, pre);
    }
  }, 600_000);
});

describe.skipIf(!python)("emit --target mlx: a buffer read only where it was written is a fresh output", () => {
  // test/fixtures/export/: expected.json says which documents go to MLX ("ok": every load of the
  // buffer reads what its one unconditional store wrote before it) and which are TEX001 (a load
  // may see the buffer's initial contents: in place, another element, a guarded store, a read
  // first, a store loop over fewer elements, two stores)
  const EXP = path.join(ROOT, "test", "fixtures", "export");
  const expected: Record<string, string> = JSON.parse(fs.readFileSync(path.join(EXP, "expected.json"), "utf8"));
  const entries: MatrixEntry[] = Object.keys(expected).map((id) => ({ id, case: id, kind: "builtin", text: fs.readFileSync(path.join(EXP, id + ".json"), "utf8"), options: {}, covers: "export" }));

  it("each document is exported or refused as expected, the same from both engines", () => {
    expect(Object.values(expected).filter((v) => v === "ok").length).toBeGreaterThanOrEqual(5);
    expect(Object.values(expected).filter((v) => v === "TEX001").length).toBeGreaterThanOrEqual(5);
    for (const entry of entries) {
      const e = emitAll(entry);
      expect(e.metal.ok, entry.id).toBe(true);
      expect(e.torch.ok, entry.id).toBe(true);
      const codes = (e.mlx.diagnostics ?? []).filter((d: any) => d.severity === "error").map((d: any) => d.code);
      if (expected[entry.id] === "ok") {
        expect(codes, entry.id).toEqual([]);
        expect(e.mlx.ok, entry.id).toBe(true);
        // the scratch buffer (loaded and stored in the document) is one of the results, not an argument
        const rw = e.doc.params.map((p: any) => p.name).filter((n: string) => entry.text.includes(`["load", "${n}"`) && entry.text.includes(`{"store": "${n}"`));
        expect(rw.length, entry.id).toBeGreaterThan(0);
        for (const name of rw) expect(e.mlx.python, entry.id).toMatch(new RegExp("^Results[^]*\\n  " + name + "  ", "m"));
      } else {
        expect(codes, entry.id).toEqual(["TEX001"]);
        expect(e.mlx.ok).toBe(false);
      }
    }
  });

  it("the MLX kernel, its scratch buffer a zeroed output, computes the metal target's results bit for bit (which fill that buffer with data first)", () => {
    const ok = entries.filter((x) => expected[x.id] === "ok").map(emitAll);
    const d = fs.mkdtempSync(path.join(os.tmpdir(), "tile-export-scratch-"));
    try {
      const out = fakeRun(FAKES, exportManifest(ok, d), d);
      expect(out.stderr).toBe("");
      expect(out.status).toBe(0);
      for (const e of ok) expect(exportRunProblems(rt, e, out.records)).toEqual([]);
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("emit --target: what a target cannot express is a diagnostic", () => {
  // the real executable (the first test), and the CLI in process (test/helpers/cli.ts)
  const cli = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", cwd: ROOT });
  const tile = async (args: string[]) => {
    const r = await tileInProcess(...args);
    return { status: r.code, stdout: r.stdout, stderr: r.stderr };
  };

  it("a buffer updated in place cannot go to MLX (exit 1, TEX001, says what to do); torch-mps updates it in place", () => {
    const file = path.join(LEG, "pk_inplace_tail.json");
    const r = cli(["emit", file, "--target", "mlx"]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/:\d+:\d+: error TEX001 \(export-in-place\): The buffer "X" is both read and written.*--target torch-mps/);
    const j = JSON.parse(cli(["emit", file, "--target", "mlx", "--json"]).stdout);
    expect(j).toMatchObject({ ok: false, failedAt: "export", target: "mlx", python: "" });
    // the kernel was planned: its plan is given whole (before session 26, realization "" and ok false)
    const planned = JSON.parse(cli(["plan", file, "--json"]).stdout);
    expect(j.plan.ok).toBe(true);
    expect(j.plan.realization).toBe(planned.plan?.realization ?? planned.realization);
    expect(j.plan.realization).not.toBe("");
    const t = cli(["emit", file, "--target", "torch-mps"]);
    expect(t.status).toBe(0);
    expect(t.stdout).toContain('X = _tile_in_place("X", X, torch.float32, (37, 100))');
    expect(t.stdout).toMatch(/_tile_kernel\(\)\(X, threads=\d+, group_size=\d+\)\n    return X\n$/);
  });

  it("a document name that MLX would declare as its own argument is TEX002; the other targets take it", async () => {
    const doc = JSON.parse(fs.readFileSync(path.join(ROOT, "cases", "sum.json"), "utf8"));
    const text = JSON.stringify(doc).replace(/"s"/g, '"grid_size"');
    expect(text).toContain('"grid_size"');
    const file = path.join(dir, "grid_size.json");
    fs.writeFileSync(file, text);
    const r = await tile(["emit", file, "--target", "mlx"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/error TEX002 \(export-name-conflict\): The name "grid_size" becomes the identifier grid_size, which MLX's kernel source already defines/);
    expect((await tile(["emit", file, "--target", "torch-mps"])).status).toBe(0);
    const shape = JSON.stringify(doc).replace(/"s"/g, '"X_shape"');
    fs.writeFileSync(file, shape);
    expect((await tile(["emit", file, "--target", "mlx"])).stderr).toMatch(/TEX002.*"X_shape"/);
    fs.writeFileSync(file, JSON.stringify(doc).replace(/"s"/g, '"MLX_MTL_PRAGMA_UNROLL"'));
    expect((await tile(["emit", file, "--target", "mlx"])).stderr).toMatch(/TEX002.*"MLX_MTL_PRAGMA_UNROLL"/);
    // each points at the name's declaration: the reduce binding "s" of sum.json, a parameter, a loop
    const at = (text: string): string[] => wasm.call({ command: "emit", document: text, options: { target: "mlx" } }).diagnostics.map((d: any) => `${d.code} ${d.pointer}`);
    expect(at(JSON.stringify(doc).replace(/"s"/g, '"grid_size"'))).toEqual(["TEX002 /body/0/body/0/reduce"]);
    expect(at(JSON.stringify(doc).replace(/"X"/g, '"grid_size"'))).toEqual(["TEX002 /params/0/name"]);
    expect(at(JSON.stringify(doc).replace(/"r"/g, '"threads_per_grid"'))).toEqual(["TEX002 /body/0/for"]);
    // a grid too large for one dispatch points at the sizes
    const big = wasm.call({ command: "emit", document: JSON.stringify(doc), options: { target: "mlx", sizes: { R: 2147483000, C: 2 } } });
    expect(big.diagnostics.map((d: any) => `${d.code} ${d.pointer}`)).toContain("TEX003 /sizes");
    // a name the emitter renames anyway (MTL... is reserved: v_MTL_CONST) cannot collide
    fs.writeFileSync(file, JSON.stringify(doc).replace(/"s"/g, '"MTL_CONST"'));
    expect((await tile(["emit", file, "--target", "mlx"])).status).toBe(0);
    // a name that only contains an attribute's name is fine (MLX adds an unused argument)
    fs.writeFileSync(file, JSON.stringify(doc).replace(/"s"/g, '"my_grid_size"'));
    expect((await tile(["emit", file, "--target", "mlx"])).status).toBe(0);
    // MLX's typedefs of its 16-bit types: a parameter of that name would hide the type in the
    // signature MLX writes (red team, session 27)
    for (const t of ["float16_t", "bfloat16_t"]) expect(at(JSON.stringify(doc).replace(/"X"/g, `"${t}"`)), t).toEqual(["TEX002 /params/0/name"]);
    // an identifier the emitter derives (acc_<reduce>) that is an input's `_shape` (MLX finds it
    // in the body and declares it as an argument): TEX002 at the input (red team, session 27)
    const derived = JSON.stringify(doc).replace(/"X"/g, '"acc"').replace(/"s"/g, '"shape"');
    const d = wasm.call({ command: "emit", document: derived, options: { target: "mlx" } });
    expect(d.diagnostics.map((x: any) => `${x.code} ${x.pointer}`)).toEqual(["TEX002 /params/0/name"]);
    expect(d.diagnostics[0].message).toContain("acc_shape");
    expect(wasm.call({ command: "emit", document: derived, options: { target: "torch-mps" } }).ok).toBe(true);
  });

  it("the MLX kernel's name differs where its text does (MLX reuses a library by name), and document names that are Python builtins the module calls are renamed", () => {
    const text = fs.readFileSync(path.join(ROOT, "cases", "softmax.json"), "utf8");
    const names = [{ R: 4, C: 100 }, { R: 64, C: 4096 }, { R: 4, C: 100 }].map((sizes) => /name="([^"]+)"/.exec(js.call({ command: "emit", document: text, options: { target: "mlx", sizes } }).python)![1]);
    expect(names[0]).toMatch(/^softmax_cooperative_reduction_[0-9a-f]{8}$/);
    expect(names[1]).not.toBe(names[0]);
    expect(names[2]).toBe(names[0]);
    const doc = JSON.parse(fs.readFileSync(path.join(ROOT, "cases", "add.json"), "utf8"));
    for (const b of ["tuple", "isinstance", "getattr", "type", "TypeError", "ValueError", "RuntimeError"]) {
      doc.name = b;
      for (const target of ["mlx", "torch-mps"]) {
        const py: string = js.call({ command: "emit", document: JSON.stringify(doc), options: { target } }).python;
        expect(py, b + " " + target).toContain(`def ${b}_(`);
        expect(py, b + " " + target).not.toContain(`def ${b}(`);
      }
    }
  });

  it("an unknown target is bad usage (exit 2), in the CLI and in the core's options", async () => {
    const r = await tile(["emit", path.join(ROOT, "cases", "sum.json"), "--target", "cuda"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("Allowed choices are metal, mlx, torch-mps");
    const c = wasm.call({ command: "emit", document: fs.readFileSync(path.join(ROOT, "cases", "sum.json"), "utf8"), options: { target: "vulkan" } });
    expect(c.ok).toBe(false);
    expect(c.diagnostics[0]).toMatchObject({ code: "TPL002", pointer: "/options/target" });
  });

  it("the default target is metal: the same MSL as before, and -o writes the module for the others", async () => {
    const f = path.join(ROOT, "cases", "softmax.json");
    const plain = (await tile(["emit", f])).stdout;
    expect((await tile(["emit", f, "--target", "metal"])).stdout).toBe(plain);
    expect(plain.startsWith("#include <metal_stdlib>")).toBe(true);
    const out = path.join(dir, "softmax_mlx.py");
    expect((await tile(["emit", f, "--target", "mlx", "-o", out])).status).toBe(0);
    const text = fs.readFileSync(out, "utf8");
    expect(text).toContain("import mlx.core as mx\n");
    expect(text).toContain("def softmax(X):\n");
  });
});
