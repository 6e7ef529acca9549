// `tile sweep CASE --size K=V ... -o DIR`: does the cost model pick what the hardware prefers?
// The solver's candidates for one case and shape (`tile plan --candidates`), the admissible ones
// (at most --max-candidates: the model's pick always, the rest spread evenly over the predicted
// ranking), each validated against the FP64 oracle and timed by timing.ts (calibrated batch,
// rounds in forward/backward pairs with a rotating start; the GPU batch metric on a GPU runtime).
// Writes DIR/sweep.json (every raw sample, the predicted cost of every candidate with its terms,
// the document, the device record, the command) and DIR/sweep.md. Per shape it reports whether
// the model's pick is the measured best, the regret (measured time of the pick over the best
// measured time) and Spearman's rank correlation between predicted cost and measured time.
import fs from "node:fs";
import path from "node:path";
import { Engine } from "../engine";
import { ensureDir, openOrUsage, UsageError, writeOutput } from "../io";
import { openRuntime, repoRoot, RuntimeKind } from "../native";
import { artifactFingerprints, fingerprint, machine } from "./fingerprint";
import { median } from "./stats";
import { spearman, timeEntries, TimingEntry, TimingOutcome, TimingSettings, ranks } from "./timing";
import { layoutSuffix } from "../layout";

export const SWEEP_FORMAT = "tile-sweep/1";

export interface SweepRequest {
  engine: Engine;
  /** The case as given (a built-in name or a document path) and its text. */
  caseName: string;
  text: string;
  sizes: Record<string, number>;
  /** The device description the predictions use (core options.device), and how it was named. */
  device?: unknown;
  deviceArg?: string;
  runtime: RuntimeKind | "auto";
  outDir: string;
  argv: string[];
  maxCandidates: number;
  settings: TimingSettings;
  progress?: (what: string) => void;
}

/** A candidate's identity: its widths (cooperative) or its block and V (element grid). */
export function candidateKey(m: any): string {
  if (m.block !== undefined && m.P === undefined) return `block=${m.block} V=${m.V}${m.U > 1 ? ` U=${m.U}` : ""}`;
  return `P=${m.P} S=${m.S} T=${m.T} V=${m.V} U=${m.U}${m.cached ? " cached" : ""}${layoutSuffix(m)}`;
}

/** The plan options that make the solver produce exactly this candidate. */
export function candidateOptions(m: any, device: unknown): Record<string, unknown> {
  const o: Record<string, unknown> = m.block !== undefined && m.P === undefined
    ? { threads: m.T ?? m.block, vector: m.V, unroll: m.U ?? 1 }
    : { programsPerGroup: m.P, threads: m.T, vector: m.V, unroll: m.U, cacheInput: !!m.cached, ...(m.layout ? { layout: m.layout } : {}) };
  if (device !== undefined) o.device = device;
  return o;
}

/**
 * Which candidates are timed when there are more than `max`: the model's pick, then candidates at
 * evenly spaced positions of the predicted ranking (first and last included) until `max`.
 * Deterministic; returns indices into `sorted` (sorted by predicted cost).
 */
export function selectCandidates(n: number, pick: number, max: number): number[] {
  if (n <= max || max <= 0) return Array.from({ length: n }, (_, i) => i);
  const spread = (m: number): number[] => (m <= 1 ? [0] : Array.from({ length: m }, (_, k) => Math.round((k * (n - 1)) / (m - 1))));
  const chosen = new Set<number>([pick]);
  // the pick takes one place; the others go to max - 1 evenly spaced positions (a position that
  // is the pick's own is filled from the finer spread of max positions, then in order)
  for (const i of max > 1 ? spread(max - 1) : []) chosen.add(i);
  for (const i of spread(max)) if (chosen.size < max) chosen.add(i);
  for (let i = 0; chosen.size < max && i < n; i++) chosen.add(i);
  return [...chosen].sort((a, b) => a - b);
}

export interface SweepSummary {
  candidatesScored: number;
  admissible: number;
  timed: number;
  pick: string;
  pickTimed: boolean;
  best: string | null;
  pickIsBest: boolean | null;
  pickUs: number | null;
  bestUs: number | null;
  /** pickUs / bestUs (1 = the pick is the measured best). */
  regret: number | null;
  /** Per round: the pick's round median over the fastest round median of that round. */
  roundRegrets: number[];
  /** Rank of the pick among the timed candidates by measured time (1 = fastest). */
  pickMeasuredRank: number | null;
  /** Spearman's rank correlation of predicted cost and measured time over the timed candidates. */
  spearman: number | null;
}

export function summarizeSweep(cands: { key: string; predicted: number; medianUs: number | null; roundMedians: number[] }[], pickKey: string, scored: number, admissible: number = cands.length): SweepSummary {
  const timed = cands.filter((c) => c.medianUs !== null);
  const pick = cands.find((c) => c.key === pickKey);
  let best: (typeof timed)[number] | null = null;
  for (const c of timed) if (best === null || c.medianUs! < best.medianUs!) best = c;
  const pickUs = pick?.medianUs ?? null;
  const rounds = timed.length ? Math.min(...timed.map((c) => c.roundMedians.length)) : 0;
  const roundRegrets: number[] = [];
  if (pickUs !== null) for (let r = 0; r < rounds; r++) roundRegrets.push(pick!.roundMedians[r] / Math.min(...timed.map((c) => c.roundMedians[r])));
  const measuredRanks = ranks(timed.map((c) => c.medianUs!));
  const pi = timed.findIndex((c) => c.key === pickKey);
  return {
    candidatesScored: scored,
    admissible,
    timed: timed.length,
    pick: pickKey,
    pickTimed: pickUs !== null,
    best: best?.key ?? null,
    pickIsBest: pickUs === null || best === null ? null : pickUs === best.medianUs,
    pickUs,
    bestUs: best?.medianUs ?? null,
    regret: pickUs !== null && best ? pickUs / best.medianUs! : null,
    roundRegrets,
    pickMeasuredRank: pi >= 0 ? measuredRanks[pi] : null,
    spearman: spearman(timed.map((c) => c.predicted), timed.map((c) => c.medianUs!)),
  };
}

export async function runSweep(req: SweepRequest): Promise<{ ok: boolean; dir: string; json: string; markdown: string; sweep: any }> {
  const { engine } = req;
  const planned = engine.call({ command: "plan", document: req.text, options: { sizes: req.sizes, candidates: true, ...(req.device !== undefined ? { device: req.device } : {}) } });
  if (!planned.ok) throw new UsageError(`${req.caseName} is not planned: ${(planned.diagnostics ?? []).map((d: any) => `${d.code} ${d.message}`).join("; ")}`);
  if (planned.realization === "serial-program") throw new UsageError(`${req.caseName} plans as the serial program: it has no width candidates to sweep`);
  const all: any[] = planned.candidates ?? [];
  const seen = new Set<string>();
  const admissible = all.filter((c) => c.admissible !== false && (c.failed ?? []).length === 0).filter((c) => {
    const k = candidateKey(c.mapping);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  admissible.sort((a, b) => a.cost.total - b.cost.total || (candidateKey(a.mapping) < candidateKey(b.mapping) ? -1 : 1));
  const pickKey = candidateKey(planned.mapping);
  const pickAt = admissible.findIndex((c) => candidateKey(c.mapping) === pickKey);
  if (pickAt < 0) throw new Error(`the plan's mapping ${pickKey} is not among its admissible candidates`);
  const chosen = selectCandidates(admissible.length, pickAt, req.maxCandidates).map((i) => admissible[i]);
  const predictedRanks = ranks(admissible.map((c) => c.cost.total));

  const entries: TimingEntry[] = chosen.map((c) => ({
    id: candidateKey(c.mapping),
    text: req.text,
    sizes: req.sizes,
    options: candidateOptions(c.mapping, req.device),
    check: (plan: any) => (candidateKey(plan.mapping ?? {}) === candidateKey(c.mapping) ? null : `asked for ${candidateKey(c.mapping)}, planned ${candidateKey(plan.mapping ?? {})}`),
  }));
  // the output folder before the timing: a path that cannot be written fails now, not after it
  ensureDir(req.outDir);
  const runtime = openOrUsage(() => openRuntime(req.runtime));
  runtime.setDetector(false);
  const root = repoRoot();
  let timing: TimingOutcome;
  let runtimeInfo: any;
  try {
    runtimeInfo = { requested: req.runtime, kind: runtime.kind, deviceName: runtime.deviceName, timesAreGpu: runtime.timesAreGpu, library: fingerprint(root, path.relative(root, runtime.libraryPath)) };
    timing = timeEntries(engine, runtime, entries, req.settings, req.progress);
  } finally {
    runtime.close();
  }
  const candidates = admissible.map((c, i) => {
    const key = candidateKey(c.mapping);
    const t = timing.entries.find((e) => e.id === key) ?? null;
    return {
      key, mapping: c.mapping, predicted: c.cost.total, predictedTerms: c.cost.terms, predictedRank: predictedRanks[i], pick: key === pickKey,
      selected: t !== null, options: candidateOptions(c.mapping, undefined), timing: t,
    };
  });
  const summary = summarizeSweep(candidates.filter((c) => c.selected).map((c) => ({ key: c.key, predicted: c.predicted, medianUs: c.timing!.medianUs, roundMedians: c.timing!.roundMedians })), pickKey, all.length, admissible.length);
  const commandLine = ["tile", ...req.argv].join(" ");
  const sweep = {
    format: SWEEP_FORMAT,
    createdAt: new Date().toISOString(),
    command: { line: commandLine, argv: req.argv, cwd: process.cwd() },
    case: req.caseName,
    document: req.text,
    sizes: req.sizes,
    device: { arg: req.deviceArg ?? null, description: req.device ?? null },
    realization: planned.realization,
    runtime: runtimeInfo,
    metric: timing.metric,
    timesAreGpu: timing.timesAreGpu,
    settings: req.settings,
    selection: { admissible: admissible.length, maxCandidates: req.maxCandidates, timed: chosen.length,
      rule: admissible.length > req.maxCandidates && req.maxCandidates > 0 ? "the model's pick, then evenly spaced positions of the predicted ranking (first and last included)" : "every admissible candidate" },
    machine: machine(),
    artifacts: artifactFingerprints(root, path.resolve(root, runtimeInfo.library.path)),
    order: timing.order,
    candidates,
    summary,
    sources: timing.sources,
  };
  ensureDir(req.outDir);
  const json = path.join(req.outDir, "sweep.json");
  const markdown = path.join(req.outDir, "sweep.md");
  writeOutput(json, JSON.stringify(sweep, null, 1) + "\n");
  writeOutput(markdown, renderSweep(sweep));
  // a candidate whose compiled pipeline holds fewer threads than it needs is re-planned into
  // another kernel and not timed: recorded with its reason, not a failure of the sweep
  const ok = candidates.filter((c) => c.selected).every((c) => c.timing!.timed || c.timing!.replanned !== null);
  return { ok, dir: req.outDir, json, markdown, sweep };
}

const f3 = (x: number | null): string => (x === null ? "n/a" : x.toFixed(3));
const f2 = (x: number | null): string => (x === null ? "n/a" : x.toFixed(2));

export function renderSweep(s: any): string {
  const sizes = Object.entries(s.sizes).map(([k, v]) => `${k}=${v}`).join(" ");
  const m = s.summary as SweepSummary;
  const out = [`# Sweep: ${s.case} ${sizes}`, ""];
  out.push(`- command: \`${s.command.line}\``);
  out.push(`- runtime: ${s.runtime.kind} (${s.runtime.deviceName}); metric \`${s.metric}\`${s.timesAreGpu ? " (GPU timestamps)" : " (**host wall clock: the kernels ran on the CPU; these are not GPU times**)"}`);
  out.push(`- device record of the predictions: ${s.device.arg ?? "the built-in default"}${s.device.description?.name ? ` (${s.device.description.name})` : ""}`);
  out.push(`- ${s.settings.rounds} rounds × ${s.settings.samples} samples per candidate, batch window ${s.settings.batchWindowMs} ms (max ${s.settings.maxBatch} dispatches), warm-up ${s.settings.warmup}; every round times every candidate; rounds come in pairs, forwards then backwards, each pair starting one candidate later`);
  out.push(`- candidates: ${m.candidatesScored} scored, ${s.selection.admissible} admissible, ${s.selection.timed} timed (${s.selection.rule}), ${m.timed} timed and validated`);
  out.push("");
  out.push("| shape | model pick | measured best | pick is best | regret (pick / best) | per-round regret (min–max) | pick's measured rank | Spearman (predicted vs measured) |");
  out.push("| --- | --- | --- | --- | --- | --- | --- | --- |");
  const rr = m.roundRegrets.length ? `${f3(Math.min(...m.roundRegrets))}–${f3(Math.max(...m.roundRegrets))}` : "n/a";
  out.push(`| ${sizes} | ${m.pick} (${f2(m.pickUs)} µs) | ${m.best ?? "n/a"} (${f2(m.bestUs)} µs) | ${m.pickIsBest === null ? "n/a" : m.pickIsBest ? "yes" : "no"} | ${f3(m.regret)} | ${rr} | ${m.pickMeasuredRank ?? "n/a"} of ${m.timed} | ${f3(m.spearman)} |`);
  out.push("");
  out.push("Every candidate, fastest measured first (µs per dispatch: the median of the round medians; predicted: the model's total in ns):", "");
  out.push("| candidate | measured µs | / best | predicted | predicted rank | rounds (µs) | note |");
  out.push("| --- | --- | --- | --- | --- | --- | --- |");
  const rows = (s.candidates as any[]).filter((c) => c.selected);
  rows.sort((a, b) => (a.timing.medianUs ?? Infinity) - (b.timing.medianUs ?? Infinity));
  for (const c of rows) {
    const t = c.timing;
    const note = [c.pick ? "**model pick**" : "", t.error ?? ""].filter((x) => x).join("; ");
    out.push(`| ${c.key} | ${f2(t.medianUs)} | ${t.medianUs !== null && m.bestUs ? f3(t.medianUs / m.bestUs) : "n/a"} | ${c.predicted.toFixed(0)} | ${c.predictedRank} | ${t.roundMedians.map((x: number) => x.toFixed(2)).join(", ")} | ${note} |`);
  }
  out.push("");
  return out.join("\n");
}

/** Median of a list (re-exported for the reports). */
export { median };
