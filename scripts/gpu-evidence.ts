// gpu-evidence.ts: the measurements of issue 15 that need more than the CLI, on any runtime
// (meant for --runtime cuda on a GPU machine). scripts/pack-gpu.mjs bundles it into
// pkg/scripts/gpu-evidence.mjs (fast-check inlined), so it runs where there is no npm:
//
//   gpu-evidence.mjs fuzz [--count N] [--seed S] [--runtime R]
//       the structural fuzz documents of test/fuzz/gen.ts, every admitted plan emitted, compiled
//       (50 kernels to a source), run three dispatches and checked against the FP64 oracle with
//       guards intact; prints counts per realization and every failure; exit 1 on a failure
//   gpu-evidence.mjs admitted [--docs N] [--seed S] [--runtime R]
//       issue 12's structural documents (test/fuzz/structural.ts), every candidate admitted in the
//       bounded space of test/fuzz/admitted-space.ts run against the FP64 oracle with guards
//   gpu-evidence.mjs exports [--full] [--runtime R] [--docs DIR]
//       issue 20: the MLX and torch-mps exports of every built-in case and matrix entry, as the
//       framework stand-ins (test/export/fake_frameworks.py) record them, run on the runtime beside
//       the metal target's kernel; every output must be bit-identical
//   gpu-evidence.mjs compile-times [--runtime R]
//       every built-in case and matrix entry: its MSL compiled on an empty kernel cache, one
//       compile per kernel, milliseconds each (TILE_CACHE_DIR is set to a fresh folder)
//   gpu-evidence.mjs time-kernels --out FILE [--runtime R]
//       Tile's GPU times per case/shape/variant for bench/torch-side-by-side.py (each plan also
//       validated against the FP64 oracle)
//   gpu-evidence.mjs dump-msl DIR [--full]
//       writes the MSL of every built-in case and matrix entry to DIR (offline compile checks)
//   gpu-evidence.mjs control NAME [--clean]
//       a negative control for compute-sanitizer: race (an emitted softmax kernel with its
//       barriers removed), divergent-barrier (even and odd lanes at different barriers),
//       out-of-bounds (a kernel reading past the end of a buffer); --clean runs the same
//       kernel unmodified (in bounds), which the same tool must pass
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { loadEngine } from "../shell-node/src/engine";
import { builtinEntries, loadMatrix, type MatrixEntry } from "../shell-node/src/matrix";
import { openRuntime, type RuntimeKind } from "../shell-node/src/native";
import { runAndValidate } from "../shell-node/src/validate-run";
import { caseArb, type Case } from "../test/fuzz/gen";
import { HostBatch } from "../test/fuzz/props";
import { structArb } from "../test/fuzz/structural";
import { admittedKernels, type Kernel } from "../test/fuzz/admitted-space";
import { emitTargets, exportManifest, exportRunProblems, fakeRun } from "../test/export/check";

function arg(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
}

async function fuzz(args: string[]): Promise<number> {
  const count = Number(arg(args, "--count", "600"));
  const seed = Number(arg(args, "--seed", "20261130"));
  const runtime = openRuntime(arg(args, "--runtime", "auto") as RuntimeKind);
  const engine = await loadEngine("js");
  const t0 = Date.now();
  const cases: Case[] = fc.sample(caseArb, { seed, numRuns: count });
  const batch = new HostBatch(runtime, engine, 1);
  batch.prepare(cases, 50);
  const by = new Map<string, { run: number; failed: number }>();
  let skipped = 0;
  const failures: string[] = [];
  for (const c of cases) {
    const o = batch.outcome(c);
    if (o.skipped) {
      skipped++;
      continue;
    }
    const b = by.get(o.realization) ?? { run: 0, failed: 0 };
    b.run++;
    if (o.problems.length) {
      b.failed++;
      failures.push(`${c.family} ${JSON.stringify(c.options)}: ${o.problems.join("; ")}\n  doc: ${JSON.stringify(c.doc)}`);
    }
    by.set(o.realization, b);
  }
  const total = [...by.values()].reduce((a, b) => a + b.run, 0);
  const failed = failures.length;
  console.log(`fuzz on ${runtime.kind} (${runtime.deviceName}): seed ${seed}, ${count} documents, ${total} admitted kernels run (${batch.executed} executions, ${batch.compiles} compiles), ${skipped} not admitted, ${failed} failed, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  for (const [r, b] of [...by.entries()].sort()) console.log(`  ${r}: ${b.run} run, ${b.failed} failed`);
  for (const f of failures.slice(0, 20)) console.log(`FAIL ${f}`);
  runtime.close();
  return failed ? 1 : 0;
}

/** The structural fuzz of issue 12 on a runtime: every admitted candidate of DOCS documents in
 *  the bounded space of test/fuzz/admitted-space.ts, against the FP64 oracle with guards. */
async function admitted(args: string[]): Promise<number> {
  const docsN = Number(arg(args, "--docs", "300"));
  const seed = Number(arg(args, "--seed", "20261130"));
  const runtime = openRuntime(arg(args, "--runtime", "auto") as RuntimeKind);
  const engine = await loadEngine("js");
  const t0 = Date.now();
  const docs = fc.sample(structArb, { seed, numRuns: docsN });
  const kernels: Kernel[] = [];
  docs.forEach((d, i) => kernels.push(...admittedKernels(engine, d, i)));
  const batch = new HostBatch(runtime, engine, 5);
  batch.prepare(kernels.map((k) => k.c), 60);
  const tally: Record<string, number> = { documents: docs.length, runs: 0, failed: 0 };
  const failures: string[] = [];
  for (const k of kernels) {
    const o = batch.outcome(k.c);
    if (o.skipped) continue;
    tally.runs++;
    tally[k.realization] = (tally[k.realization] ?? 0) + 1;
    if (o.problems.length === 0) continue;
    tally.failed++;
    if (failures.length < 20) failures.push(`${docs[k.doc].shape} ${JSON.stringify(k.c.options)}: ${o.problems.join("; ").slice(0, 600)}\n  doc: ${JSON.stringify(k.c.doc)}`);
  }
  console.log(`admitted structural fuzz on ${runtime.kind} (${runtime.deviceName}): seed ${seed}, ${JSON.stringify(tally)}, ${batch.compiles} compiles, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  for (const f of failures) console.log(`FAIL ${f}`);
  runtime.close();
  return tally.failed ? 1 : 0;
}

/** Issue 20 on a runtime: for every built-in case and matrix option set, the MLX kernel (MLX's
 *  signature around the body) and the torch-mps kernel, as the framework stand-ins record them,
 *  run beside the metal target's kernel: every output bit-identical. */
async function exportsCheck(args: string[]): Promise<number> {
  const runtime = openRuntime(arg(args, "--runtime", "auto") as RuntimeKind);
  const engine = await loadEngine("wasm");
  const here = path.dirname(new URL(import.meta.url).pathname);
  const fakes = path.join(here, "..", "test", "export", "fake_frameworks.py");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tile-exports-"));
  // --docs DIR: also the documents of DIR (those its expected.json marks "ok", where it has one)
  const extra: MatrixEntry[] = [];
  const docsDir = arg(args, "--docs", "");
  if (docsDir !== "") {
    const exp = path.join(docsDir, "expected.json");
    const marks: Record<string, string> | null = fs.existsSync(exp) ? JSON.parse(fs.readFileSync(exp, "utf8")) : null;
    for (const f of fs.readdirSync(docsDir).filter((x) => x.endsWith(".json") && x !== "expected.json").sort()) {
      const id = f.slice(0, -5);
      if (marks !== null && marks[id] !== "ok") continue;
      extra.push({ id, case: id, kind: "builtin", text: fs.readFileSync(path.join(docsDir, f), "utf8"), options: {}, covers: "export" });
    }
  }
  const all = [...builtinEntries(engine), ...loadMatrix(engine, args.includes("--full")), ...extra].map((e) => emitTargets(engine, e));
  const notOk = all.filter((e) => !e.mlx.ok || !e.torch.ok).map((e) => e.entry.id);
  const out = fakeRun(fakes, exportManifest(all, dir), dir);
  if (out.status !== 0) {
    console.log(`fake_frameworks.py failed (${out.status}): ${out.stderr.slice(0, 2000)}`);
    return 1;
  }
  const problems: string[] = [];
  let ran = 0;
  for (const e of all) {
    if (!e.mlx.ok || !e.torch.ok) continue;
    problems.push(...exportRunProblems(runtime, e, out.records));
    ran++;
  }
  console.log(`exports on ${runtime.kind} (${runtime.deviceName}): ${ran} entries, mlx and torch-mps kernels run beside the metal target's, ${problems.length} outputs differ; not exported: ${notOk.length ? notOk.join(", ") : "none"}`);
  for (const p of problems.slice(0, 20)) console.log(`DIFF ${p}`);
  fs.rmSync(dir, { recursive: true, force: true });
  runtime.close();
  return problems.length || notOk.length ? 1 : 0;
}

async function compileTimes(args: string[]): Promise<number> {
  process.env.TILE_CACHE_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "tile-compile-times-"));
  const runtime = openRuntime(arg(args, "--runtime", "auto") as RuntimeKind);
  const engine = await loadEngine("wasm");
  const entries = [...builtinEntries(engine), ...loadMatrix(engine, args.includes("--full"))];
  const seen = new Set<string>();
  const ms: number[] = [];
  console.log(`compile times on ${runtime.kind} (${runtime.deviceName}), empty cache ${process.env.TILE_CACHE_DIR}`);
  for (const e of entries) {
    const r = JSON.parse(engine.callText(JSON.stringify({ command: "emit", document: e.text, options: e.options })));
    if (!r.ok || seen.has(r.msl)) continue;
    seen.add(r.msl);
    const before = runtime.compilerInvocations();
    const t = process.hrtime.bigint();
    const lib = runtime.compile(r.msl);
    const dt = Number(process.hrtime.bigint() - t) / 1e6;
    runtime.freeLibrary(lib);
    if (runtime.compilerInvocations() !== before + 1) throw new Error(`${e.id}: expected one compiler invocation`);
    ms.push(dt);
    console.log(`  ${e.id.padEnd(48)} ${r.plan.realization.padEnd(22)} ${dt.toFixed(1)} ms`);
  }
  ms.sort((a, b) => a - b);
  const q = (f: number) => ms[Math.min(ms.length - 1, Math.floor(f * ms.length))];
  console.log(`${ms.length} distinct kernels: min ${ms[0].toFixed(1)} ms, median ${q(0.5).toFixed(1)} ms, p90 ${q(0.9).toFixed(1)} ms, max ${ms[ms.length - 1].toFixed(1)} ms, total ${(ms.reduce((a, b) => a + b, 0) / 1000).toFixed(2)} s`);
  runtime.close();
  return 0;
}

/** The emitted softmax under P1/T256 (barriers and threadgroup partials) with `edit` applied. */
async function softmaxRun(edit: (msl: string) => string, runtimeKind: string): Promise<number> {
  const engine = await loadEngine("js");
  const runtime = openRuntime(runtimeKind as RuntimeKind);
  const text = fs.readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), "..", "cases", "softmax.json"), "utf8");
  const r = runAndValidate({ engine, runtime, text, options: { sizes: { R: 64, C: 1537 }, programsPerGroup: 1, threads: 256 }, seed: 1, mslOverride: edit });
  console.log(`${r.name} on ${r.runtime}: ${r.passed ? "passed" : "FAILED"}${r.error ? ": " + r.error : ""}`);
  runtime.close();
  return r.passed ? 0 : 1;
}

async function control(args: string[]): Promise<number> {
  const name = args[0];
  const clean = args.includes("--clean");
  const rt = arg(args, "--runtime", "auto");
  const barrier = /threadgroup_barrier\(mem_flags::mem_threadgroup\);/g;
  if (name === "race") return softmaxRun((m) => {
    if (clean) return m;
    const n = (m.match(barrier) ?? []).length;
    if (n === 0) throw new Error("the emitted kernel has no barrier to remove");
    console.log(`removed ${n} threadgroup_barrier calls`);
    return m.replace(barrier, "/* barrier removed */");
  }, rt);
  if (name === "divergent-barrier") return softmaxRun((m) => {
    if (clean) return m;
    const tid = /uint (\w+) \[\[thread_index_in_threadgroup\]\]/.exec(m);
    if (!tid) throw new Error("no thread_index_in_threadgroup parameter");
    // even and odd lanes wait at different barriers: the condition diverges inside every SIMD
    // group (a barrier for the even lanes alone hangs the GPU instead of being reported)
    return m.replace(barrier, `if ((${tid[1]} & 1u) == 0u) { threadgroup_barrier(mem_flags::mem_threadgroup); } else { threadgroup_barrier(mem_flags::mem_threadgroup); }`);
  }, rt);
  // A SIMD-group barrier (simdgroup_barrier: __syncwarp on CUDA) reached by the even lanes only:
  // a barrier under a condition that diverges inside a SIMD group, at the level synccheck checks
  // on sm_70 and later (a block-wide barrier skipped by some threads hangs instead).
  if (name === "divergent-simd-barrier") return softmaxRun((m) => {
    if (clean) return m;
    const lane = /uint (\w+) \[\[thread_index_in_simdgroup\]\]/.exec(m);
    if (!lane) throw new Error("no thread_index_in_simdgroup parameter");
    const open = m.indexOf("{", m.indexOf("[[thread_index_in_simdgroup]]"));
    return m.slice(0, open + 1) + `\n  if ((${lane[1]} & 1u) == 0u) { simdgroup_barrier(mem_flags::mem_none); }` + m.slice(open + 1);
  }, rt);
  // Barriers that lanes which have returned can never reach: the odd lanes of every SIMD group
  // return, then the even ones wait at a SIMD-group barrier (exited-simd-barrier); the threads past
  // the first SIMD group return, then the rest wait at a threadgroup barrier (exited-barrier).
  // The kernel then returns (its output is wrong on purpose: the sanitizer's verdict is what counts).
  for (const [control, level, cond] of [["exited-simd-barrier", "simdgroup_barrier(mem_flags::mem_none)", "(L & 1u) != 0u"], ["exited-barrier", "threadgroup_barrier(mem_flags::mem_threadgroup)", "T >= 32u"]] as const) {
    if (name !== control) continue;
    return softmaxRun((m) => {
      if (clean) return m;
      const lane = /uint (\w+) \[\[thread_index_in_simdgroup\]\]/.exec(m);
      const tid = /uint (\w+) \[\[thread_index_in_threadgroup\]\]/.exec(m);
      if (!lane || !tid) throw new Error("no thread_index_in_simdgroup / thread_index_in_threadgroup parameter");
      const open = m.indexOf("{", m.indexOf("[[thread_index_in_simdgroup]]"));
      const c = cond.replace("L", lane[1]).replace("T", tid[1]);
      return m.slice(0, open + 1) + `\n  if (${c}) return;\n  ${level};\n  return;` + m.slice(open + 1);
    }, rt);
  }
  if (name === "out-of-bounds") {
    const runtime = openRuntime(rt as RuntimeKind);
    const n = 256;
    // reads element tid + shift of a buffer of exactly n floats: shift n reads past its end
    const shift = clean ? 0 : n;
    const msl = `#include <metal_stdlib>\nusing namespace metal;\nkernel void oob(device const float* X [[buffer(0)]], device float* Y [[buffer(1)]], uint tid [[thread_index_in_threadgroup]]) {\n  Y[tid] = X[tid + ${shift}u] * 2.0f;\n}\n`;
    const lib = runtime.compile(msl);
    const pipe = runtime.pipeline(lib, "oob");
    // Y first, so that nothing is allocated right after X (a read past X's end then lands
    // outside every allocation rather than in a neighbour)
    const y = runtime.buffer(n * 4);
    const x = runtime.buffer(n * 4);
    runtime.write(x, Float32Array.from({ length: n }, (_, i) => i));
    runtime.dispatch(pipe, [x, y], [], [1, 1, 1], [n, 1, 1], 1);
    const out = new Float32Array(runtime.read(y));
    console.log(`out-of-bounds control (${clean ? "in bounds" : `reads X[tid + ${shift}] of ${n} floats`}): Y[1] = ${out[1]}`);
    runtime.close();
    return 0;
  }
  console.error(`unknown control ${name} (race, divergent-barrier, divergent-simd-barrier, exited-simd-barrier, exited-barrier, out-of-bounds)`);
  return 2;
}

/** Times Tile's kernels for bench/torch-side-by-side.py: per case, shape and variant, the plan
 *  is run and validated against the FP64 oracle once (runAndValidate), then its dispatch is timed
 *  with the runtime's GPU clock: TRIALS batches of REPS dispatches, median µs per dispatch. */
async function timeKernels(args: string[]): Promise<number> {
  const outFile = arg(args, "--out", "tile-times.json");
  const runtime = openRuntime(arg(args, "--runtime", "auto") as RuntimeKind);
  const engine = await loadEngine("js");
  const casesDir = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "cases");
  const shapes: [number, number][] = [[37, 1537], [256, 3072], [768, 6144], [1024, 4096]];
  const variants: Record<string, Record<string, number>> = { auto: {}, "P1/T256": { programsPerGroup: 1, threads: 256 }, "P2/T512": { programsPerGroup: 2, threads: 512 } };
  const REPS = 50, TRIALS = 7;
  const rows: any[] = [];
  for (const kase of ["softmax", "layernorm_affine", "rmsnorm", "sigmoid_pair", "gelu_pair"]) {
    const text = fs.readFileSync(path.join(casesDir, `${kase}.json`), "utf8");
    for (const [R, C] of shapes) {
      for (const [vname, vopts] of Object.entries(variants)) {
        if (vname !== "auto" && kase.endsWith("_pair")) continue;
        const options = { sizes: { R, C }, ...vopts };
        const v = runAndValidate({ engine, runtime, text, options, seed: 1 });
        const e = JSON.parse(engine.callText(JSON.stringify({ command: "emit", document: text, options })));
        if (!e.ok) { rows.push({ case: kase, shape: [R, C], variant: vname, error: "not planned" }); continue; }
        const plan = e.plan;
        const lib = runtime.compile(e.msl);
        const pipe = runtime.pipeline(lib, plan.kernel);
        const bufs = plan.bindings.filter((b: any) => b.kind === "buffer").sort((a: any, b: any) => a.index - b.index).map((b: any) => {
          const buf = runtime.buffer(b.bytes);
          const n = b.bytes / 4;
          runtime.write(buf, Float32Array.from({ length: n }, (_, i) => ((i * 2654435761) % 4096) / 1024 - 2));
          return buf;
        });
        const d = plan.dispatch;
        const go = (k: number): number => {
          runtime.dispatch(pipe, bufs, d.threadgroupBytes, [d.groups, 1, 1], [d.threads, 1, 1], k);
          const t = runtime.lastTimes();
          return ((t.end - t.start) * 1e6) / k;
        };
        go(3);
        const ts = Array.from({ length: TRIALS }, () => go(REPS)).sort((a, b) => a - b);
        const m = plan.mapping ?? {};
        const row = { case: kase, shape: [R, C], variant: vname, realization: plan.realization, mapping: m.P !== undefined ? `P${m.P} T${m.T} V${m.V} U${m.U}${m.cached ? " cached" : ""}` : `T${m.T ?? d.threads} V${m.V ?? ""}`,
          validated: v.passed, tile_us: Math.round(ts[TRIALS >> 1] * 100) / 100, model_cost: plan.cost?.total ?? null, pipeline_max_threads: pipe.maxThreads };
        rows.push(row);
        console.log(JSON.stringify(row));
        for (const b of bufs) runtime.freeBuffer(b);
        runtime.freePipeline(pipe);
        runtime.freeLibrary(lib);
      }
    }
  }
  fs.writeFileSync(outFile, JSON.stringify({ device: runtime.deviceName, reps: REPS, trials: TRIALS, rows }, null, 1));
  runtime.close();
  return 0;
}

/** Writes the MSL of every built-in case and matrix entry to DIR/<id>.metal (for offline checks). */
async function dumpMsl(args: string[]): Promise<number> {
  const dir = args[0];
  fs.mkdirSync(dir, { recursive: true });
  const engine = await loadEngine("wasm");
  let n = 0;
  for (const e of [...builtinEntries(engine), ...loadMatrix(engine, args.includes("--full"))]) {
    const r = JSON.parse(engine.callText(JSON.stringify({ command: "emit", document: e.text, options: e.options })));
    if (!r.ok) continue;
    fs.writeFileSync(path.join(dir, `${e.id.replace(/[^A-Za-z0-9_.-]/g, "_")}.metal`), r.msl);
    n++;
  }
  console.log(`${n} kernels written to ${dir}`);
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === "dump-msl") return dumpMsl(rest);
  if (cmd === "time-kernels") return timeKernels(rest);
  if (cmd === "fuzz") return fuzz(rest);
  if (cmd === "admitted") return admitted(rest);
  if (cmd === "exports") return exportsCheck(rest);
  if (cmd === "compile-times") return compileTimes(rest);
  if (cmd === "control") return control(rest);
  console.error("usage: gpu-evidence.mjs fuzz|admitted|exports|compile-times|control|time-kernels|dump-msl ...");
  return 2;
}

process.exitCode = await main(process.argv.slice(2));
