// The audit's checks, one function per concern; each returns every finding it sees (see
// findings.ts for what each finding id means).
import fs from "node:fs";
import path from "node:path";
import { AuditContext, BATCH_METRICS, deriveBatch, GPU_METRICS, OVERRIDABLE, argvShows, overrideText, runOf, typedOverride, validationFailures } from "./context";
import { Finding, finding } from "./findings";
import { close, sameAsPrinted, sha256Hex } from "./numbers";
import { splitRange } from "./markdown";

const REQUIRED_SECTIONS = ["format", "command", "protocol", "machine", "runtime", "artifacts", "cases", "variants", "rounds", "sources", "plans", "summary"];

function slot(run: any): string {
  return `round ${run?.round} ${run?.case} ${run?.variant}`;
}

/** partial-output: sections, rounds, samples per phase, summary and results.md coverage. */
export function checkCoverage(ctx: AuditContext): Finding[] {
  const out: Finding[] = [];
  const r = ctx.results;
  for (const key of REQUIRED_SECTIONS) if (r[key] === undefined || r[key] === null) out.push(finding("partial-output", key, `results.json has no "${key}" section`));
  if (ctx.protocol === null) out.push(finding("partial-output", "protocol.text", "the protocol text is missing or not JSON"));
  const wantRounds = ctx.protocol?.rounds;
  if (typeof wantRounds === "number" && ctx.rounds.length < wantRounds) out.push(finding("partial-output", "rounds", `${ctx.rounds.length} rounds recorded, the protocol requires ${wantRounds}`));
  const want = typeof ctx.protocol?.samples === "number" ? ctx.protocol.samples : 1;
  for (const run of ctx.runs) {
    const timed = ALL_SAMPLES(run).length > 0;
    if (run.validation?.passed === true && !timed) out.push(finding("partial-output", slot(run), `validated but not timed${run.error ? ": " + run.error : ""}`));
    if (!timed) continue;
    for (const m of ctx.expectedMetrics) {
      const s = run.samples?.[m];
      const n = Array.isArray(s) ? s.length : 0;
      if (n < want) out.push(finding("partial-output", `${slot(run)} ${m}`, `${n} samples, the protocol requires ${want}`));
      if (typeof run.dispatchesPerSample?.[m] !== "number") out.push(finding("partial-output", `${slot(run)} ${m}`, "no dispatches-per-sample count"));
    }
  }
  const summary: any[] = Array.isArray(r.summary) ? r.summary : [];
  for (const id of ctx.caseIds) {
    if (id === undefined) continue;
    const s = summary.find((x) => x?.case === id);
    if (!s) {
      out.push(finding("partial-output", id, "no summary entry for this case"));
    } else {
      for (const m of ctx.expectedMetrics) if (!s.metrics?.[m]) out.push(finding("partial-output", `${id} ${m}`, "no summary entry for this metric"));
    }
    if (ctx.markdown === null) continue;
    const section = ctx.markdownFigures.get(id);
    if (!section) {
      out.push(finding("partial-output", `results.md ${id}`, "results.md has no section for this case"));
      continue;
    }
    for (const m of ctx.protocol?.metrics ?? []) if (!section.has(m)) out.push(finding("partial-output", `results.md ${id} ${m}`, "results.md has no row for this metric"));
  }
  if (ctx.markdown === null) out.push(finding("partial-output", ctx.markdownFile, "results.md is missing"));
  return out;
}

function ALL_SAMPLES(run: any): number[][] {
  const s = run?.samples;
  if (!s || typeof s !== "object") return [];
  return Object.values(s).filter((x): x is number[] => Array.isArray(x) && x.length > 0);
}

/** missing-case: every protocol case, in every round, under both variants. */
export function checkCases(ctx: AuditContext): Finding[] {
  const out: Finding[] = [];
  const cases: any[] = Array.isArray(ctx.protocol?.cases) ? ctx.protocol.cases : [];
  cases.forEach((pc, i) => {
    const id = ctx.caseIds[i];
    const name = `${pc.case} ${JSON.stringify(pc.sizes ?? {})}`;
    if (id === undefined) {
      out.push(finding("missing-case", name, "the protocol lists this case; results.cases does not"));
      return;
    }
    for (const round of ctx.rounds) {
      for (const v of ["A", "B"]) if (!runOf(round, id, v)) out.push(finding("missing-case", `round ${round.index} ${id} ${v}`, "no run for this case and variant in this round"));
    }
  });
  return out;
}

/** duplicate-samples: the same sample list twice, a slot claimed twice, a round index twice. */
export function checkDuplicates(ctx: AuditContext): Finding[] {
  const out: Finding[] = [];
  const seen = new Map<string, string>();
  for (const run of ctx.runs) {
    for (const [m, s] of Object.entries(run.samples ?? {})) {
      if (!Array.isArray(s) || s.length < 2) continue;
      const key = JSON.stringify(s);
      const here = `${slot(run)} ${m}`;
      const there = seen.get(key);
      if (there !== undefined) out.push(finding("duplicate-samples", here, `the same ${s.length} samples as ${there}`));
      else seen.set(key, here);
    }
  }
  const slots = new Set<string>();
  for (const run of ctx.runs) {
    const k = slot(run);
    if (slots.has(k)) out.push(finding("duplicate-samples", k, "two runs claim this slot"));
    slots.add(k);
  }
  const indices = new Set<unknown>();
  for (const round of ctx.rounds) {
    if (indices.has(round.index)) out.push(finding("duplicate-samples", `round ${round.index}`, "two rounds share this index"));
    indices.add(round.index);
  }
  return out;
}

/** failed-validation: every run must have passed every validation check (its `passed` flag is
 *  not enough: no error, guards intact, every output checked with no mismatch). */
export function checkValidation(ctx: AuditContext): Finding[] {
  const out: Finding[] = [];
  for (const run of ctx.runs) {
    const failed = validationFailures(run);
    if (failed.length === 0) continue;
    const timed = ALL_SAMPLES(run).length > 0;
    const why = failed.join("; ");
    out.push(finding("failed-validation", slot(run), timed ? `timed although its validation failed (${why})` : `validation failed (${why}); not timed`));
  }
  return out;
}

/** gpu-from-host: GPU-ness is derived (context.ts deriveGpu), never taken from the file; without
 *  a GPU runtime, GPU metrics are null with a reason and nothing is calibrated on a GPU clock. */
export function checkGpuTimes(ctx: AuditContext): Finding[] {
  const out: Finding[] = [];
  const v = ctx.gpuVerdict;
  if (v.claimed && !v.gpu) out.push(finding("gpu-from-host", "runtime", `results.runtime.timesAreGpu is true, but ${v.reason}: its times are not GPU times`));
  if (!v.claimed && v.gpu) out.push(finding("gpu-from-host", "runtime", `results.runtime.timesAreGpu is false, but the samples come from ${v.reason}: the file contradicts itself`));
  if (ctx.gpu) return out;
  for (const run of ctx.runs) if (run.calibration?.clock === "gpu") out.push(finding("gpu-from-host", `${slot(run)} calibration`, "calibrated on a GPU clock on a runtime without GPU timestamps"));
  const listed: string[] = ctx.protocol?.metrics ?? [];
  for (const run of ctx.runs) {
    for (const m of GPU_METRICS) {
      if (run.samples?.[m] !== null && run.samples?.[m] !== undefined) out.push(finding("gpu-from-host", `${slot(run)} ${m}`, "GPU samples recorded on a runtime without GPU timestamps"));
      if (listed.includes(m) && run.validation?.passed === true && typeof run.unavailable?.[m] !== "string") out.push(finding("gpu-from-host", `${slot(run)} ${m}`, "no reason recorded for the unavailable GPU metric"));
    }
  }
  for (const s of Array.isArray(ctx.results.summary) ? ctx.results.summary : []) {
    for (const m of GPU_METRICS) if (s?.metrics?.[m]?.available || typeof s?.metrics?.[m]?.ratio === "number") out.push(finding("gpu-from-host", `${s.case} ${m}`, "a GPU figure is reported on a runtime without GPU timestamps"));
  }
  for (const [id, rows] of ctx.markdownFigures) {
    for (const m of GPU_METRICS) {
      const row = rows.get(m);
      if (row && row.ratio !== "n/a") out.push(finding("gpu-from-host", `results.md ${id} ${m}`, `a GPU figure (${row.ratio}) is printed on a runtime without GPU timestamps`));
    }
  }
  return out;
}

function fileSha(file: string): { sha256: string; bytes: number } | null {
  try {
    const b = fs.readFileSync(file);
    return { sha256: sha256Hex(b), bytes: b.length };
  } catch {
    return null;
  }
}

/** changed-artifact: fingerprints against the disk now, between rounds, and kernel identity across rounds. */
export function checkArtifacts(ctx: AuditContext): Finding[] {
  const out: Finding[] = [];
  const r = ctx.results;
  const top: any[] = Array.isArray(r.artifacts) ? r.artifacts : [];
  const recorded = [...top, ...(r.runtime?.library ? [r.runtime.library] : [])];
  const checked = new Set<string>();
  for (const a of recorded) {
    const key = `${a?.path} ${a?.sha256}`;
    if (checked.has(key)) continue;
    checked.add(key);
    const now = fileSha(path.resolve(ctx.root, String(a?.path)));
    if (now === null) out.push(finding("changed-artifact", String(a?.path), `not found under ${ctx.root}`));
    else if (now.sha256 !== a.sha256 || now.bytes !== a.bytes) out.push(finding("changed-artifact", String(a.path), `recorded sha256 ${String(a.sha256).slice(0, 16)}…, the file now ${now.sha256.slice(0, 16)}…`));
  }
  for (const round of ctx.rounds) {
    const list: any[] = Array.isArray(round.artifacts) ? round.artifacts : [];
    for (const a of top) {
      const same = list.find((x) => x?.path === a?.path);
      if (!same || same.sha256 !== a.sha256) out.push(finding("changed-artifact", `round ${round.index} ${a?.path}`, same ? "fingerprint differs from the other rounds" : "not fingerprinted in this round"));
    }
    for (const x of list) if (!top.some((a) => a?.path === x?.path)) out.push(finding("changed-artifact", `round ${round.index} ${x?.path}`, "fingerprinted in this round only"));
  }
  const p = r.protocol ?? {};
  if (typeof p.text !== "string" || sha256Hex(p.text) !== p.sha256) out.push(finding("changed-artifact", "protocol", "the embedded protocol text does not match its recorded sha256"));
  if (typeof p.path === "string") {
    const now = fileSha(path.resolve(ctx.root, p.path));
    if (now !== null && now.sha256 !== p.sha256) out.push(finding("changed-artifact", p.path, "the protocol file on disk has changed since the run"));
  }
  const kernels = new Map<string, { plan: string; msl: string; where: string }>();
  for (const run of ctx.runs) {
    const key = `${run.case} ${run.variant}`;
    const first = kernels.get(key);
    if (!first) kernels.set(key, { plan: run.planSha256, msl: run.mslSha256, where: slot(run) });
    else if (first.plan !== run.planSha256 || first.msl !== run.mslSha256) out.push(finding("changed-artifact", slot(run), `plan/MSL differ from ${first.where}`));
    const v = run.validation ?? {};
    if (v.passed === true && (v.planSha256 !== run.planSha256 || v.mslSha256 !== run.mslSha256)) out.push(finding("changed-artifact", slot(run), "the validated plan/MSL is not the one timed"));
  }
  return out;
}

/** missing-source: every run's MSL text and plan are present and hash to their keys. */
export function checkSources(ctx: AuditContext): Finding[] {
  const out: Finding[] = [];
  const sources = ctx.results.sources ?? {};
  const plans = ctx.results.plans ?? {};
  const seenMsl = new Set<string>();
  const seenPlan = new Set<string>();
  for (const run of ctx.runs) {
    if (typeof run.mslSha256 !== "string" || run.mslSha256 === "") out.push(finding("missing-source", slot(run), "no MSL sha256"));
    else if (!seenMsl.has(run.mslSha256)) {
      seenMsl.add(run.mslSha256);
      const text = sources[run.mslSha256];
      if (typeof text !== "string") out.push(finding("missing-source", slot(run), `no source text for MSL ${run.mslSha256.slice(0, 16)}…`));
      else if (sha256Hex(text) !== run.mslSha256) out.push(finding("missing-source", slot(run), `the source stored under ${run.mslSha256.slice(0, 16)}… hashes to ${sha256Hex(text).slice(0, 16)}…`));
    }
    if (typeof run.planSha256 !== "string" || run.planSha256 === "") out.push(finding("missing-source", slot(run), "no plan sha256"));
    else if (!seenPlan.has(run.planSha256)) {
      seenPlan.add(run.planSha256);
      const plan = plans[run.planSha256];
      if (plan === undefined || plan === null) out.push(finding("missing-source", slot(run), `no plan ${run.planSha256.slice(0, 16)}…`));
      else if (sha256Hex(JSON.stringify(plan)) !== run.planSha256) out.push(finding("missing-source", slot(run), `the plan stored under ${run.planSha256.slice(0, 16)}… hashes differently`));
    }
  }
  return out;
}

/** unbalanced-order: even rounds; A-first equals B-first per case; recorded order = run positions. */
export function checkOrder(ctx: AuditContext): Finding[] {
  const out: Finding[] = [];
  if (ctx.rounds.length % 2 !== 0) out.push(finding("unbalanced-order", "rounds", `${ctx.rounds.length} rounds: an odd count cannot balance A-first and B-first`));
  for (const id of ctx.caseIds) {
    if (id === undefined) continue;
    let aFirst = 0;
    let bFirst = 0;
    for (const round of ctx.rounds) {
      const a = runOf(round, id, "A");
      const b = runOf(round, id, "B");
      if (!a || !b || typeof a.seq !== "number" || typeof b.seq !== "number") continue;
      const first = a.seq < b.seq ? "A" : "B";
      if (first === "A") aFirst++;
      else bFirst++;
      if (round.first?.[id] !== first) out.push(finding("unbalanced-order", `round ${round.index} ${id}`, `recorded first variant ${round.first?.[id]}, the runs' positions say ${first}`));
    }
    if (aFirst !== bFirst) out.push(finding("unbalanced-order", id, `A ran first in ${aFirst} rounds, B in ${bFirst}`));
  }
  for (const round of ctx.rounds) {
    const order: any[] = Array.isArray(round.order) ? round.order : [];
    const runs: any[] = Array.isArray(round.runs) ? round.runs : [];
    const bySeq = [...runs].sort((p, q) => p.seq - q.seq);
    const agrees = order.length === runs.length && bySeq.every((x, k) => x.seq === k && order[k]?.case === x.case && order[k]?.variant === x.variant);
    if (!agrees) out.push(finding("unbalanced-order", `round ${round.index}`, "the recorded order disagrees with the runs' positions"));
  }
  return out;
}

/** unexpected-plan: plans show what the variants' `expect` names. */
export function checkPlans(ctx: AuditContext): Finding[] {
  const out: Finding[] = [];
  const plans = ctx.results.plans ?? {};
  for (const run of ctx.runs) {
    const expect = ctx.protocol?.variants?.[run.variant]?.expect;
    const plan = plans[run.planSha256];
    if (!expect || !plan) continue;
    const off = Object.keys(expect).filter((k) => plan.mapping?.[k] !== expect[k] && plan[k] !== expect[k]);
    if (off.length) out.push(finding("unexpected-plan", slot(run), `the plan differs from the variant's expectation in ${off.map((k) => `${k} (${JSON.stringify(plan.mapping?.[k] ?? plan[k])}, expected ${JSON.stringify(expect[k])})`).join(", ")}`));
  }
  return out;
}

/** wrong-denominator / wrong-median: every reported figure against the recomputation. */
export function checkFigures(ctx: AuditContext): Finding[] {
  const out: Finding[] = [];
  for (const run of ctx.runs) {
    // the calibrated batch is re-derived from the recorded trials (context.ts deriveBatch), not read
    const needsBatch = BATCH_METRICS.some((m) => Array.isArray(run.samples?.[m]) && run.samples[m].length > 0);
    const derived = needsBatch || run.calibration ? deriveBatch(run.calibration, ctx.protocol) : null;
    if (derived && "problem" in derived) out.push(finding("wrong-denominator", `${slot(run)} calibration`, `the calibration does not follow the documented rule: ${derived.problem}`));
    else if (derived && run.calibration?.batch !== derived.batch) out.push(finding("wrong-denominator", `${slot(run)} calibration`, `recorded batch ${String(run.calibration?.batch)}, the trials give ${derived.batch}`));
    const batch = derived && "batch" in derived ? derived.batch : null;
    for (const m of Object.keys(run.dispatchesPerSample ?? {})) {
      const d = run.dispatchesPerSample[m];
      if (d === null || d === undefined) continue;
      const want = BATCH_METRICS.includes(m) ? batch : 1;
      if (d !== want) out.push(finding("wrong-denominator", `${slot(run)} ${m}`, `divided by ${d} dispatches per sample; the ${BATCH_METRICS.includes(m) ? "batch re-derived from the calibration trials" : "single-call count"} is ${want}`));
    }
  }
  const summary: any[] = Array.isArray(ctx.results.summary) ? ctx.results.summary : [];
  for (const f of ctx.figures) {
    const where = `${f.case} ${f.metric}`;
    const s = summary.find((x) => x?.case === f.case)?.metrics?.[f.metric];
    if (s) {
      const ratios: unknown[] = Array.isArray(s.roundRatios) ? s.roundRatios : [];
      if (ratios.length !== f.roundRatios.length || f.roundRatios.some((x, i) => !close(ratios[i], x))) out.push(finding("wrong-denominator", where, `per-round ratios ${JSON.stringify(ratios)} are not B/A of the round medians ${JSON.stringify(f.roundRatios)}`));
      if (!close(s.ratio, f.ratio)) out.push(finding("wrong-denominator", where, `reported ratio ${s.ratio}, the median of the per-round B/A ratios is ${f.ratio}`));
      if (!Array.isArray(s.range) || !close(s.range[0], f.range[0]) || !close(s.range[1], f.range[1])) out.push(finding("wrong-denominator", where, `reported range ${JSON.stringify(s.range)}, the per-round ratios span ${f.range[0]}–${f.range[1]}`));
      const medians = (xs: unknown, ys: number[]): boolean => Array.isArray(xs) && xs.length === ys.length && ys.every((y, i) => close(xs[i], y));
      if (!medians(s.roundMedianA, f.roundMedianA) || !medians(s.roundMedianB, f.roundMedianB)) out.push(finding("wrong-median", where, "per-round medians differ from the raw samples' medians"));
      if (!close(s.medianA, f.medianA) || !close(s.medianB, f.medianB)) out.push(finding("wrong-median", where, `reported medians A ${s.medianA} B ${s.medianB}, recomputed A ${f.medianA} B ${f.medianB}`));
    }
    const row = ctx.markdownFigures.get(f.case)?.get(f.metric);
    if (!row) continue;
    const range = splitRange(row.range);
    if (!sameAsPrinted(row.ratio, f.ratio)) out.push(finding("wrong-denominator", `results.md ${where}`, `printed ratio ${row.ratio}, recomputed ${f.ratio}`));
    if (!range || !sameAsPrinted(range[0], f.range[0]) || !sameAsPrinted(range[1], f.range[1])) out.push(finding("wrong-denominator", `results.md ${where}`, `printed range ${row.range}, recomputed ${f.range[0]}–${f.range[1]}`));
    if (!sameAsPrinted(row.medianA, f.medianA) || !sameAsPrinted(row.medianB, f.medianB)) out.push(finding("wrong-median", `results.md ${where}`, `printed medians ${row.medianA} / ${row.medianB}, recomputed ${f.medianA} / ${f.medianB}`));
  }
  return out;
}

/** bad-override: every override of the protocol is a known setting with a valid value that the
 *  recorded command line shows (flag followed by the same value). */
export function checkOverrides(ctx: AuditContext): Finding[] {
  const out: Finding[] = [];
  const o = ctx.results.overrides;
  if (o === undefined || o === null) return out;
  if (typeof o !== "object" || Array.isArray(o)) return [finding("bad-override", "overrides", "results.overrides is not an object")];
  const argv: unknown[] = Array.isArray(ctx.results.command?.argv) ? ctx.results.command.argv : [];
  for (const [k, v] of Object.entries(o)) {
    const spec = OVERRIDABLE[k];
    if (!spec) {
      out.push(finding("bad-override", `overrides.${k}`, `not a setting the command line may override (${Object.keys(OVERRIDABLE).join(", ")})`));
      continue;
    }
    if (!spec.valid(v)) {
      out.push(finding("bad-override", `overrides.${k}`, `${JSON.stringify(v)} is not a valid value`));
      continue;
    }
    const typed = typedOverride(argv, k);
    if (!argvShows(argv, k, v)) out.push(finding("bad-override", `overrides.${k}`, `recorded as ${overrideText(k, v)}, but the recorded command line ${typed === undefined ? `has no ${spec.flag}` : `says ${spec.flag} ${typed}`}`));
  }
  return out;
}

/** The checks, in the order their findings are listed. */
export const CHECKS: { name: string; run: (ctx: AuditContext) => Finding[] }[] = [
  { name: "overrides", run: checkOverrides },
  { name: "coverage", run: checkCoverage },
  { name: "cases", run: checkCases },
  { name: "duplicates", run: checkDuplicates },
  { name: "validation", run: checkValidation },
  { name: "gpu-times", run: checkGpuTimes },
  { name: "artifacts", run: checkArtifacts },
  { name: "sources", run: checkSources },
  { name: "order", run: checkOrder },
  { name: "plans", run: checkPlans },
  { name: "figures", run: checkFigures },
];
