// tile plan FILE... : legality, widths and cost for each document (one process for all files).
import { Engine } from "../engine";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, formatDiagnostic, indent, printJson, readDocument, table } from "../io";
import { PlanOptions } from "../options";
import { withSource } from "./validate";
import { layoutSuffix } from "../layout";

/** Plans one file; a file that is not UTF-8 yields a plan-shaped failure with TIR027. */
export function planFile(engine: Engine, file: string, options: PlanOptions): any {
  const src = readDocument(file);
  if (src.text === null) return { file, name: "", ok: false, realization: "", rules: [], rejections: [], diagnostics: [src.diagnostic] };
  return withSource({ file, ...engine.call({ command: "plan", document: src.text, options }) }, src.text);
}

/** 0 planned, 1 understood but rejected, 2 invalid document. */
/** A cost figure with 3 decimals; a figure the JSON wrote as null (not finite) as "n/a". */
function fixed3(x: number | null | undefined): string {
  return typeof x === "number" && Number.isFinite(x) ? x.toFixed(3) : "n/a";
}

export function planExit(p: any): number {
  if (p.ok) return EXIT_OK;
  // an invalid document (TIR*) or an invalid device description (TPL005) is an input error (2),
  // as the README's exit codes say; a plan that fails on valid inputs is 1
  const docError = (p.diagnostics ?? []).some((d: any) => d.severity === "error" && (String(d.code).startsWith("TIR") || d.code === "TPL005"));
  return docError ? EXIT_USAGE : EXIT_FAILED;
}

export function mappingText(p: any): string {
  const m = p.mapping ?? {};
  if (p.realization === "fused-elementwise") {
    const block = m.rowsPerGroup > 1 ? `${m.rowsPerGroup}x${m.rowThreads}` : `1x${m.block}`;
    return `block=${block} V=${m.V}${m.U > 1 ? ` U=${m.U}` : ""} rows=${m.rows} cols=${m.cols} groups=${m.groups}`;
  }
  if (p.realization === "serial-program") {
    // T = 1 in one group: one thread runs every program in order (programs not proven independent)
    // (and one program of T = 1: the whole body in one thread, no program loop)
    const who = m.T === 1 && m.groups === 1 && m.programs > 1 ? `one thread runs all ${m.programs} programs in order`
      : m.T === 1 && m.groups === 1 ? "one thread runs the whole body" : "one thread per program";
    return `${who}, T=${m.T} threads per group, groups=${m.groups} (no P, S, W: nothing cooperates)`;
  }
  return `P=${m.P} S=${m.S} W=${m.W} T=${m.T} V=${m.V} U=${m.U} groups=${m.groups}${m.cached ? " cached" : ""}${layoutSuffix(m)}`;
}

/** Candidate widths in one short string. */
export function candidateText(m: any, realization: string): string {
  if (realization === "fused-elementwise" || m.block !== undefined) return `block=1x${m.block} V=${m.V}${m.U > 1 ? ` U=${m.U}` : ""}`;
  return `P=${m.P} S=${m.S} T=${m.T} V=${m.V} U=${m.U}${m.cached ? " cached" : ""}${layoutSuffix(m)}`;
}

export interface RankedCandidate {
  candidate: any;
  chosen: boolean;
}

/**
 * The plan's candidates, chosen first, then the admissible ones by cost, then the rejected ones
 * by cost; `margin` is how much cheaper the chosen one is than the best other admissible one
 * (runner-up.total / chosen.total - 1; null when there is no admissible runner-up).
 */
export function rankCandidates(p: any): { ranked: RankedCandidate[]; margin: number | null; runnerUp: any } {
  const all: any[] = p.candidates ?? [];
  const key = JSON.stringify(p.mapping);
  const chosenIndex = p.realization === "serial-program" ? -1 : all.findIndex((c) => JSON.stringify(c.mapping) === key);
  const rest = all.filter((_, i) => i !== chosenIndex);
  rest.sort((a, b) => (a.admissible === b.admissible ? a.cost.total - b.cost.total : a.admissible ? -1 : 1));
  const ranked: RankedCandidate[] = [];
  if (chosenIndex >= 0) ranked.push({ candidate: all[chosenIndex], chosen: true });
  for (const c of rest) ranked.push({ candidate: c, chosen: false });
  const runnerUp = chosenIndex >= 0 ? rest.find((c) => c.admissible) : undefined;
  const margin = runnerUp && all[chosenIndex].cost.total > 0 ? runnerUp.cost.total / all[chosenIndex].cost.total - 1 : null;
  return { ranked, margin, runnerUp: runnerUp ?? null };
}

/** How many candidates the text table shows (--json lists all). */
const CANDIDATE_ROWS = 12;

export function candidatesTable(p: any): string {
  const { ranked, margin, runnerUp } = rankCandidates(p);
  if (!ranked.length) return "  candidates: none scored (this realization has no width choice)\n";
  const chosen = ranked[0].chosen ? ranked[0].candidate : null;
  const rows = [["", "widths", "admissible", "cost (model ns)", "vs chosen"]];
  for (const r of ranked.slice(0, CANDIDATE_ROWS)) {
    const c = r.candidate;
    const vs = chosen && !r.chosen && chosen.cost.total > 0 ? `+${((c.cost.total / chosen.cost.total - 1) * 100).toFixed(1)}%` : "";
    rows.push([r.chosen ? "chosen" : "", candidateText(c.mapping, p.realization), c.admissible ? "yes" : `no (${c.failed.join(", ")})`, fixed3(c.cost.total), vs]);
  }
  let out = `  candidates (${ranked.length} scored; chosen first, then admissible by cost, then rejected):\n` + indent(table(rows), "    ") + "\n";
  if (ranked.length > CANDIDATE_ROWS) out += `    ... ${ranked.length - CANDIDATE_ROWS} more (--json lists every one)\n`;
  if (margin !== null) out += `  margin: the runner-up costs ${(margin * 100).toFixed(1)}% more than the chosen candidate (${candidateText(runnerUp.mapping, p.realization)}, cost ${fixed3(runnerUp.cost.total)})\n`;
  else if (chosen) out += "  margin: no other admissible candidate\n";
  return out;
}

export function planCommand(engine: Engine, files: string[], options: PlanOptions, json: boolean): number {
  const plans = files.map((f) => planFile(engine, f, options));
  if (json) printJson(files.length === 1 ? plans[0] : plans);
  else {
    for (const p of plans) {
      if (!p.ok) {
        process.stdout.write(`${p.file}: not planned\n`);
        for (const d of p.diagnostics ?? []) process.stdout.write(indent(formatDiagnostic(p.file, d, p.source), "  ") + "\n");
        continue;
      }
      process.stdout.write(`${p.file}: ${p.name}: ${p.realization}  ${mappingText(p)}  cost ${fixed3(p.cost.total)} model ns\n`);
      const rejected = p.realization === "serial-program" && p.rejections.length ? p.rejections[0].realization : "";
      if (p.rules.length) {
        if (rejected) process.stdout.write(`  rules checked for the rejected ${rejected} (not for the serial program that runs):\n`);
        const rows = [["rule", "verdict", "reason"]];
        for (const r of p.rules) rows.push([r.id, r.verdict, r.reason + (r.pointer ? `  (${r.pointer})` : "")]);
        process.stdout.write(indent(table(rows), "  ") + "\n");
      }
      for (const r of p.rejections) process.stdout.write(`  rejected ${r.realization}: ${r.message}\n`);
      for (const n of p.notes ?? []) process.stdout.write(`  note: ${n}\n`);
      if (p.candidates) process.stdout.write(candidatesTable(p));
      for (const d of p.diagnostics ?? []) process.stdout.write(indent(formatDiagnostic(p.file, d, p.source), "  ") + "\n");
    }
  }
  return Math.max(...plans.map(planExit));
}
