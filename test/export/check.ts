// Shared by test/export.test.ts (host runtime, in CI) and scripts/gpu-evidence.ts `exports` (a GPU
// runtime): the MLX signature rule, the manifest handed to the framework stand-ins
// (fake_frameworks.py), and the run of the MLX and torch-mps kernels beside the metal target's.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Engine } from "../../shell-node/src/engine";
import type { MatrixEntry } from "../../shell-node/src/matrix";
import { makeInputs, shapeOf } from "../../shell-node/src/inputs";
import type { DeviceBuffer, Library, Runtime } from "../../shell-node/src/native";
import { numberToBf16, numberToF16 } from "../../shell-node/src/f16";
import { combineMsl } from "../fuzz/props";

export // MLX's rule for the signature of mx.fast.metal_kernel (mlx/backend/common/metal_kernel.cpp,
// docs/src/dev/custom_metal_kernels.rst): the attributes it declares when the source contains
// their name, with their types, in its order.
const MLX_ATTRIBUTES: [string, string][] = [
  ["dispatch_quadgroups_per_threadgroup", "uint"], ["dispatch_simdgroups_per_threadgroup", "uint"],
  ["dispatch_threads_per_threadgroup", "uint3"], ["grid_origin", "uint3"], ["grid_size", "uint3"],
  ["quadgroup_index_in_threadgroup", "uint"], ["quadgroups_per_threadgroup", "uint"],
  ["simdgroup_index_in_threadgroup", "uint"], ["simdgroups_per_threadgroup", "uint"],
  ["thread_execution_width", "uint"], ["thread_index_in_quadgroup", "uint"],
  ["thread_index_in_simdgroup", "uint"], ["thread_index_in_threadgroup", "uint"],
  ["thread_position_in_grid", "uint3"], ["thread_position_in_threadgroup", "uint3"],
  ["threadgroup_position_in_grid", "uint3"], ["threadgroups_per_grid", "uint3"],
  ["threads_per_grid", "uint3"], ["threads_per_simdgroup", "uint"], ["threads_per_threadgroup", "uint3"],
];
const MLX_TYPE: Record<string, string> = { float32: "float", int32: "int32_t", float16: "float16_t", bfloat16: "bfloat16_t" };
// What MLX's kernels/utils.h, compiled before every custom kernel, gives the signature's 16-bit types.
const MLX_UTILS = "#include <metal_stdlib>\nusing namespace metal;\ntypedef half float16_t;\ntypedef bfloat bfloat16_t;\n";
const DTYPE_OF: Record<string, string> = { float32: "f32", int32: "i32", float16: "f16", bfloat16: "bf16" };

/** The source MLX compiles for a recorded metal_kernel call (templates unused): the header, then
 *  `[[kernel]] void custom_kernel_<name>_<input types><c for a constant input>_<output types>(`
 *  with the inputs (constant address space under 8 elements; shape/strides/ndim when the source
 *  names them), the outputs, the attributes the source names, and the body. */
export function mlxSignature(call: any): { source: string; entry: string } {
  const k = call.kernel;
  let entry = "custom_kernel_" + k.name;
  call.inputs.forEach((x: any) => (entry += "_" + MLX_TYPE[x.dtype] + (x.shape.length === 0 ? "s" : elements(x.shape) < 8 ? "c" : "")));
  call.output_dtypes.forEach((d: string) => (entry += "_" + MLX_TYPE[d]));
  const lines: string[] = [];
  let index = 0;
  call.inputs.forEach((x: any, i: number) => {
    const name = k.input_names[i];
    const where = elements(x.shape) < 8 ? "constant" : "device";
    lines.push(`  const ${where} ${MLX_TYPE[x.dtype]}${x.shape.length === 0 ? "&" : "*"} ${name} [[buffer(${index++})]]`);
    if (x.shape.length > 0) {
      if (k.source.includes(name + "_shape")) lines.push(`  const constant int* ${name}_shape [[buffer(${index++})]]`);
      if (k.source.includes(name + "_strides")) lines.push(`  const constant int64_t* ${name}_strides [[buffer(${index++})]]`);
      if (k.source.includes(name + "_ndim")) lines.push(`  const constant int& ${name}_ndim [[buffer(${index++})]]`);
    }
  });
  call.output_dtypes.forEach((d: string, i: number) => lines.push(`  device ${MLX_TYPE[d]}* ${k.output_names[i]} [[buffer(${index++})]]`));
  for (const [attr, type] of MLX_ATTRIBUTES) if (k.source.includes(attr)) lines.push(`  ${type} ${attr} [[${attr}]]`);
  return { source: MLX_UTILS + k.header + "[[kernel]] void " + entry + "(\n" + lines.join(",\n") + ") {\n" + k.source + "\n}\n", entry };
}

export const elements = (shape: number[]): number => shape.reduce((a, b) => a * b, 1);

export interface Emitted { entry: MatrixEntry; doc: any; metal: any; mlx: any; torch: any }

/** The three targets of one entry from one engine. */
export function emitTargets(engine: Engine, entry: MatrixEntry): Emitted {
  const out: any = { entry, doc: JSON.parse(entry.text) };
  for (const target of ["metal", "mlx", "torch-mps"]) {
    out[target === "torch-mps" ? "torch" : target] = engine.call({ command: "emit", document: entry.text, options: { ...entry.options, target } });
  }
  return out;
}

/** Writes each module to `dir` and the manifest fake_frameworks.py reads; returns the manifest. */
export function exportManifest(all: Emitted[], dir: string): any[] {
  const manifest: any[] = [];
  all.forEach((e, i) => {
    for (const [target, r] of [["mlx", e.mlx], ["torch-mps", e.torch]] as const) {
      if (!r.ok) continue;
      const file = path.join(dir, `m${i}_${target === "mlx" ? "mlx" : "torch"}.py`);
      fs.writeFileSync(file, r.python);
      const params = e.metal.plan.bindings.map((b: any) => ({ b, p: e.doc.params[b.index] }));
      const args = params
        .filter(({ b }: any) => (target === "mlx" ? b.access === "read" : b.access !== "write"))
        .map(({ b, p }: any) => ({ tag: p.name, dtype: p.dtype, shape: shapeOf(e.doc, p.name), inPlace: b.access === "readwrite" }));
      manifest.push({ path: file, target, args, key: e.entry.id + "|" + target });
    }
  });
  return manifest;
}

/** Runs fake_frameworks.py on a manifest: the records by key, or the failure. */
export function fakeRun(fakes: string, manifest: any[], dir: string): { records: Map<string, any>; stderr: string; status: number | null } {
  const file = path.join(dir, "manifest-" + Math.random().toString(36).slice(2) + ".json");
  fs.writeFileSync(file, JSON.stringify(manifest));
  const r = spawnSync("python3", [fakes, file], { encoding: "utf8", maxBuffer: 1 << 28 });
  const records = new Map<string, any>();
  if (r.status === 0) (JSON.parse(r.stdout) as any[]).forEach((o, i) => records.set(manifest[i].key, o));
  return { records, stderr: r.stderr, status: r.status };
}

/** Kernels compiled ahead, many to a unit: by source and entry, the library and the entry's name
 *  in it (precompile). */
export type Precompiled = Map<string, { library: Library; entry: string }>;

/** Compiles `kernels` `batch` at a time, each batch as one unit (combineMsl: every kernel renamed,
 *  shared helpers once), so that the compiler runs once per batch. A batch that does not compile
 *  is left out: runKernel then compiles its kernels one by one, and reports their errors. */
export function precompile(rt: Runtime, kernels: { source: string; entry: string }[], batch: number): Precompiled {
  const out: Precompiled = new Map();
  const todo = [...new Map(kernels.map((k) => [k.source + "\0" + k.entry, k])).values()];
  for (let i = 0; i < todo.length; i += batch) {
    const group = todo.slice(i, i + batch).map((k, j) => ({ ...k, renamed: `${k.entry}_x${j}` }));
    let library: Library;
    try {
      library = rt.compile(combineMsl(group.map((k) => ({ msl: k.source, kernel: k.entry, entry: k.renamed }))));
    } catch {
      continue;
    }
    for (const k of group) out.set(k.source + "\0" + k.entry, { library, entry: k.renamed });
  }
  return out;
}

/** Frees the libraries of `pre`. */
export function freePrecompiled(rt: Runtime, pre: Precompiled): void {
  for (const lib of new Set([...pre.values()].map((p) => p.library))) rt.freeLibrary(lib);
  pre.clear();
}

/** Runs `source`'s `entry` on `rt` (compiled now, or taken from `pre`): buffers in order, as
 *  `fill` says (`dtype` f32, i32, f16 or bf16: 4 or 2 bytes an element); returns their bytes. */
export function runKernel(rt: Runtime, source: string, entry: string, fill: { data: Float64Array | Int32Array | null; dtype: string; n: number }[], groups: number, threads: number, pre?: Precompiled): Uint8Array[] {
  const ahead = pre?.get(source + "\0" + entry);
  const lib = ahead ? ahead.library : rt.compile(source);
  const pipe = rt.pipeline(lib, ahead ? ahead.entry : entry);
  const bufs: DeviceBuffer[] = fill.map((f) => {
    const wide = f.dtype === "f32" || f.dtype === "i32";
    const b = rt.buffer(Math.max(f.n, 1) * (wide ? 4 : 2));
    const a = f.dtype === "i32" ? new Int32Array(f.n) : f.dtype === "f32" ? new Float32Array(f.n) : new Uint16Array(f.n);
    if (f.data) {
      const d = f.data.subarray(0, Math.min(f.data.length, f.n));
      if (wide) a.set(d);
      else d.forEach((x, i) => (a[i] = f.dtype === "f16" ? numberToF16(x) : numberToBf16(x)));
    }
    rt.write(b, new Uint8Array(a.buffer));
    return b;
  });
  rt.dispatch(pipe, bufs, [], [groups, 1, 1], [threads, 1, 1], 1);
  const out = bufs.map((b) => new Uint8Array(rt.read(b)));
  bufs.forEach((b) => rt.freeBuffer(b));
  rt.freePipeline(pipe);
  if (!ahead) rt.freeLibrary(lib);
  return out;
}

/** The three kernels exportRunProblems runs for `e` (for precompile). */
export function exportKernels(e: Emitted, records: Map<string, any>): { source: string; entry: string }[] {
  const t = records.get(e.entry.id + "|torch-mps").calls[0];
  return [{ source: e.metal.msl, entry: e.metal.plan.kernel }, mlxSignature(records.get(e.entry.id + "|mlx").calls[0]), { source: t.source, entry: t.entry }];
}

/** The MLX kernel (MLX's signature around the body, as recorded) and the torch-mps kernel, each
 *  run on `rt` beside the metal target's kernel on the same inputs: every output must be
 *  bit-identical. Returns the mismatches ("" entries never). `pre`: kernels compiled ahead. */
export function exportRunProblems(rt: Runtime, e: Emitted, records: Map<string, any>, pre?: Precompiled): string[] {
  const problems: string[] = [];
  const plan = e.metal.plan;
  const inputs = makeInputs(e.doc, 11);
  const fill = (name: string, n: number, zero: boolean) => ({ data: zero ? null : inputs.get(name)!, dtype: e.doc.params.find((p: any) => p.name === name).dtype, n });
  const bindings = plan.bindings;
  const ref = runKernel(rt, e.metal.msl, plan.kernel, bindings.map((b: any) => fill(b.name, elements(shapeOf(e.doc, b.name)), b.access === "write")), plan.dispatch.groups, plan.dispatch.threads, pre);

  const m = records.get(e.entry.id + "|mlx").calls[0];
  const { source, entry } = mlxSignature(m);
  const mlxFill = [
    ...m.inputs.map((x: any) => fill(x.tag, x.shape[0], false)),
    ...m.output_shapes.map((s: number[], i: number) => ({ data: null, dtype: DTYPE_OF[m.output_dtypes[i]], n: elements(s) })),
  ];
  const got = runKernel(rt, source, entry, mlxFill, m.grid[0] / m.threadgroup[0], m.threadgroup[0], pre);
  const outputs = bindings.filter((b: any) => b.access !== "read");
  outputs.forEach((b: any, i: number) => {
    if (!Buffer.from(got[m.inputs.length + i].buffer).equals(Buffer.from(ref[bindings.indexOf(b)].buffer))) problems.push(e.entry.id + " mlx " + b.name);
  });

  const t = records.get(e.entry.id + "|torch-mps").calls[0];
  const tgot = runKernel(rt, t.source, t.entry, t.args.map((a: any, i: number) => fill(bindings[i].name, elements(a.shape), a.tag.startsWith("zeros"))), t.threads / t.group_size, t.group_size, pre);
  bindings.forEach((b: any, i: number) => {
    if (!Buffer.from(tgot[i].buffer).equals(Buffer.from(ref[i].buffer))) problems.push(e.entry.id + " torch " + b.name);
  });
  return problems;
}
