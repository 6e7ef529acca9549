// `tile audit RESULTS`: an independent audit of a benchmark's results. It imports nothing from the
// benchmark or the planner: it reads results.json (and results.md beside it), recomputes every
// median and ratio from the raw samples, and checks coverage, order, identity of sources, plans
// and artifacts, and validation. The receipt lists every finding (findings.ts defines them).
import fs from "node:fs";
import path from "node:path";
import { CHECKS } from "./checks";
import { makeContext } from "./context";
import { Finding, FINDINGS } from "./findings";
import { sha256Hex } from "./numbers";

export const RECEIPT_FORMAT = "tile-audit-receipt/1";

export interface Receipt {
  format: string;
  verdict: "clean" | "rejected" | "unreadable";
  /** 0 clean, 1 findings, 2 unreadable input. */
  exitCode: number;
  results: string;
  resultsSha256: string | null;
  markdown: string | null;
  markdownSha256: string | null;
  root: string | null;
  checked: { cases: number; rounds: number; runs: number; samples: number; figures: number; checks: string[] };
  figures: { case: string; metric: string; ratio: number; range: [number, number]; medianA: number; medianB: number; roundRatios: number[] }[];
  findingIds: string[];
  findings: Finding[];
  error?: string;
}

function unreadable(file: string, error: string): Receipt {
  return {
    format: RECEIPT_FORMAT, verdict: "unreadable", exitCode: 2, results: file, resultsSha256: null, markdown: null, markdownSha256: null, root: null,
    checked: { cases: 0, rounds: 0, runs: 0, samples: 0, figures: 0, checks: [] }, figures: [], findingIds: [], findings: [], error,
  };
}

/** Audits RESULTS (results.json, or the folder holding it). Never throws for bad input. */
export function auditResults(target: string, rootOverride?: string): Receipt {
  let file = target;
  try {
    if (fs.statSync(target).isDirectory()) file = path.join(target, "results.json");
  } catch {
    return unreadable(target, "no such file or folder");
  }
  let bytes: Buffer;
  let results: any;
  try {
    bytes = fs.readFileSync(file);
    results = JSON.parse(bytes.toString("utf8"));
  } catch (err) {
    return unreadable(file, `not readable as JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof results !== "object" || results === null || Array.isArray(results)) return unreadable(file, "not a results object");
  if (results.format !== "tile-bench-results/1") return unreadable(file, `unknown format ${JSON.stringify(results.format)} (expected "tile-bench-results/1")`);

  const ctx = makeContext(file, results, rootOverride);
  const findings: Finding[] = [];
  for (const check of CHECKS) findings.push(...check.run(ctx));
  const order = FINDINGS.map((f) => f.id);
  const ids = [...new Set(findings.map((f) => f.id))].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  let samples = 0;
  for (const run of ctx.runs) for (const s of Object.values(run.samples ?? {})) if (Array.isArray(s)) samples += s.length;
  return {
    format: RECEIPT_FORMAT,
    verdict: findings.length ? "rejected" : "clean",
    exitCode: findings.length ? 1 : 0,
    results: file,
    resultsSha256: sha256Hex(bytes),
    markdown: ctx.markdown === null ? null : ctx.markdownFile,
    markdownSha256: ctx.markdown === null ? null : sha256Hex(ctx.markdown),
    root: ctx.root,
    checked: { cases: ctx.caseIds.length, rounds: ctx.rounds.length, runs: ctx.runs.length, samples, figures: ctx.figures.length, checks: CHECKS.map((c) => c.name) },
    figures: ctx.figures.map((f) => ({ case: f.case, metric: f.metric, ratio: f.ratio, range: f.range, medianA: f.medianA, medianB: f.medianB, roundRatios: f.roundRatios })),
    findingIds: ids,
    findings,
  };
}
