// The fuzz properties, shared by the CI tests (test/fuzz.test.ts, test/fuzz/host.test.ts), the
// regression replay and the long mode (scripts/fuzz-long.mjs).
//
//  engineProblems  the core never throws or traps in either engine, both engines answer plan and
//                  emit with identical bytes, every admitted plan's MSL passes the audit, and every
//                  rejection names its failing rules (or says why for fuse = false).
//  hostProblems    an admitted plan, emitted and run on the host runtime, matches the FP64 oracle
//                  within the tolerance and leaves every guard intact.
//  HostBatch       compiles many kernels in one host source (one g++ run) before running them.
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import type { Engine, WasmEngine } from "../../shell-node/src/engine";
import type { Library, Runtime } from "../../shell-node/src/native";
import { RunResult, runAndValidate } from "../../shell-node/src/validate-run";
import type { Case } from "./gen";

export const REGRESSIONS = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "fixtures", "fuzz-regressions");
const REALIZATIONS = ["cooperative-reduction", "fused-elementwise", "serial-program"];
const CODE = /^(TIR|TPL)\d{3}$|^TAPI\d{2}$/;

export function docText(c: { doc: unknown }): string {
  return JSON.stringify(c.doc);
}

function request(command: string, c: Case, doc = docText(c)): string {
  return JSON.stringify({ command, document: doc, options: { ...c.options, candidates: true } });
}

/** Problems with one case through both engines (empty when every property holds). */
export function engineProblems(c: Case, wasm: WasmEngine, js: Engine): string[] {
  const problems: string[] = [];
  const before = wasm.instances;
  let emitted: any = null;
  const doc = docText(c); // once per case, not once per command
  for (const command of ["validate", "plan", "emit"]) {
    const text = request(command, c, doc);
    let a = "";
    let b = "";
    try {
      a = wasm.callText(text);
    } catch (err) {
      problems.push(`${command}: the WebAssembly engine trapped: ${String(err)}`);
      continue;
    }
    try {
      b = js.callText(text);
    } catch (err) {
      problems.push(`${command}: the JS engine threw: ${String(err)}`);
      continue;
    }
    if (a !== b) {
      let at = 0;
      while (at < a.length && a[at] === b[at]) at++;
      problems.push(`${command}: the engines differ at byte ${at}: wasm …${a.slice(Math.max(0, at - 40), at + 60)}… js …${b.slice(Math.max(0, at - 40), at + 60)}…`);
    }
    if (command === "validate" && !JSON.parse(a).ok) problems.push("the generated document is not valid: " + a);
    if (command === "emit") emitted = JSON.parse(a);
  }
  if (wasm.instances !== before) problems.push(`the WebAssembly engine was re-instantiated (${before} -> ${wasm.instances})`);
  if (emitted !== null) problems.push(...planProblems(c, emitted));
  return problems;
}

/** What an emit response must say: audit clean when admitted; named rules or codes when not. */
export function planProblems(c: Case, emitted: any): string[] {
  const problems: string[] = [];
  const plan = emitted.plan;
  for (const r of plan.rejections ?? []) {
    const named = Array.isArray(r.failed) && r.failed.length > 0;
    const noFuse = c.options.fuse === false && r.realization === "fused-elementwise" && /fus/i.test(r.message ?? "");
    if (!named && !noFuse) problems.push(`rejection of ${r.realization} names no failing rule: ${JSON.stringify(r)}`);
  }
  if (emitted.ok) {
    if (!REALIZATIONS.includes(plan.realization)) problems.push(`unknown realization ${plan.realization}`);
    if (!emitted.audit || emitted.audit.ok !== true) problems.push(`the audit found problems in the emitted ${plan.realization} kernel: ${JSON.stringify(emitted.audit)}`);
    if (typeof emitted.msl !== "string" || !emitted.msl.includes(`kernel void ${plan.kernel}(`)) problems.push(`the MSL has no kernel named ${plan.kernel}`);
  } else {
    const diags: any[] = emitted.diagnostics ?? [];
    if (diags.length === 0) problems.push("a rejected plan with no diagnostics");
    for (const d of diags) if (!CODE.test(d.code ?? "") || !(d.message ?? "").length) problems.push(`a diagnostic without a code or message: ${JSON.stringify(d)}`);
    if (!diags.some((d) => d.severity === "error")) problems.push("a rejected plan with no error diagnostic");
  }
  return problems;
}

/** Problems with one host run (empty when it passed). */
export function runProblems(r: RunResult): string[] {
  if (r.passed) return [];
  const out: string[] = [];
  if (r.error) out.push(`${r.plan?.realization ?? "?"}: ${r.error}`);
  for (const o of r.outputs) if (o.mismatches) out.push(`${r.plan.realization}: ${o.name}: ${o.mismatches} of ${o.elements} elements off (max abs ${o.maxAbsError}), e.g. ${JSON.stringify(o.examples)}`);
  if (r.guards !== "intact") out.push(`${r.plan?.realization ?? "?"}: guards: ${r.guards}`);
  return out.length ? out : ["did not pass"];
}

// ---------------------------------------------------------------- host batches

/** Makes one host source from many emitted kernels: each kernel renamed `entry`, helper
 *  functions (`static inline …`) and the prologue kept once. */
export function combineMsl(parts: { msl: string; kernel: string; entry: string }[]): string {
  const seen = new Set<string>();
  const out: string[] = ["#include <metal_stdlib>", "using namespace metal;", ""];
  for (const p of parts) {
    let text = p.msl.replace(new RegExp(`\\b${p.kernel}\\b`, "g"), p.entry);
    text = text.replace(/^#include <metal_stdlib>\n/m, "").replace(/^using namespace metal;\n/m, "");
    // helpers: multi-line ones (brace at the end of the first line) and one-line ones
    text = text.replace(/^static inline [^\n]*\{\n(?:[^\n]*\n)*?\}\n|^static inline [^\n]*\}\n/gm, (helper) => {
      if (seen.has(helper)) return "";
      seen.add(helper);
      return helper;
    });
    out.push(text);
  }
  return out.join("\n");
}

export interface HostOutcome {
  /** Not admitted (nothing to run). */
  skipped: boolean;
  realization: string;
  problems: string[];
}

/** Runs cases on the host runtime, compiling them `batch` at a time into one source. */
export class HostBatch {
  executed = 0;
  compiles = 0;
  private cache = new Map<string, HostOutcome>();

  constructor(private runtime: Runtime, private engine: Engine, private seed: number) {}

  key(c: Case): string {
    return request("emit", c);
  }

  /** Compiles and runs `cases`, remembering each outcome by its request text. `emitted[i]`, when
   *  given, is this engine's (parsed) response to `cases[i]`'s request (`key`), which is then not
   *  made again. */
  prepare(cases: Case[], batch: number, emitted?: any[]): void {
    for (let i = 0; i < cases.length; i += batch) this.runGroup(cases.slice(i, i + batch), emitted?.slice(i, i + batch));
  }

  outcome(c: Case): HostOutcome {
    const k = this.key(c);
    const hit = this.cache.get(k);
    if (hit) return hit;
    this.runGroup([c]);
    return this.cache.get(k)!;
  }

  private runGroup(cases: Case[], emitted?: any[]): void {
    const todo: { c: Case; kernel: string; entry: string; msl: string; realization: string; emitted: any }[] = [];
    for (const [i, c] of cases.entries()) {
      const k = this.key(c);
      if (this.cache.has(k)) continue;
      const e = emitted?.[i] ?? JSON.parse(this.engine.callText(k));
      if (!e.ok) {
        this.cache.set(k, { skipped: true, realization: "", problems: [] });
        continue;
      }
      todo.push({ c, kernel: e.plan.kernel, entry: `${e.plan.kernel}_fz${todo.length}`, msl: e.msl, realization: e.plan.realization, emitted: e });
    }
    if (todo.length === 0) return;
    let lib: Library | null = null;
    try {
      this.compiles++;
      lib = this.runtime.compile(combineMsl(todo));
    } catch {
      // one kernel does not compile: compile each alone so that the culprit is named
      if (todo.length > 1) {
        for (const t of todo) this.runGroup([t.c]);
        return;
      }
    }
    for (const t of todo) {
      const k = this.key(t.c);
      if (lib === null) {
        let message = "";
        try {
          this.runtime.compile(t.msl);
        } catch (err) {
          message = String(err);
        }
        this.cache.set(k, { skipped: false, realization: t.realization, problems: [`${t.realization}: compile failed: ${message.slice(0, 2000)}`] });
        continue;
      }
      const r = runAndValidate({
        engine: this.engine, runtime: this.runtime, text: docText(t.c), options: t.c.options, seed: this.seed,
        precompiled: { library: lib, entry: t.entry }, emitted: t.emitted,
      });
      this.executed++;
      this.cache.set(k, { skipped: false, realization: t.realization, problems: runProblems(r) });
    }
    if (lib !== null) this.runtime.freeLibrary(lib);
  }
}

// ---------------------------------------------------------------- failures

/** Writes a failing (shrunk) case as a regression fixture; returns its path. */
export function saveRegression(property: string, c: Case, seed: number, problems: string[]): string {
  fs.mkdirSync(REGRESSIONS, { recursive: true });
  const body = JSON.stringify({ property, seed, family: c.family, options: c.options, problems, doc: c.doc }, null, 2) + "\n";
  let h = 2166136261;
  for (let i = 0; i < body.length; i++) h = Math.imul(h ^ body.charCodeAt(i), 16777619);
  const file = path.join(REGRESSIONS, `${property}-${c.family}-${(h >>> 0).toString(16)}.json`);
  fs.writeFileSync(file, body);
  return file;
}

/** Runs a property with fast-check; on failure saves the shrunk case and throws a report
 *  naming the seed, the counterexample and the fixture. */
export function checkProperty(name: string, arb: fc.Arbitrary<Case>, seed: number, numRuns: number, problemsOf: (c: Case) => string[]): void {
  let lastProblems: string[] = [];
  const result = fc.check(
    fc.property(arb, (c) => {
      const p = problemsOf(c);
      if (p.length) lastProblems = p;
      return p.length === 0;
    }),
    { seed, numRuns, endOnFailure: false },
  );
  if (!result.failed) return;
  const shrunk = result.counterexample ? (result.counterexample[0] as Case) : null;
  const problems = shrunk ? problemsOf(shrunk) : lastProblems;
  const file = shrunk ? saveRegression(name, shrunk, seed, problems) : "(no counterexample)";
  throw new Error(
    `fuzz property "${name}" failed: seed ${seed}, path ${result.counterexamplePath}, after ${result.numRuns} runs and ${result.numShrinks} shrinks\n` +
    `problems:\n  ${problems.join("\n  ")}\n` +
    `shrunk document (saved as ${file}):\n${shrunk ? JSON.stringify(shrunk.doc) : ""}\noptions: ${shrunk ? JSON.stringify(shrunk.options) : ""}` +
    (result.errorInstance ? `\nerror: ${String(result.errorInstance)}` : ""),
  );
}
