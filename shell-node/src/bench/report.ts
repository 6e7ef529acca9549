// results.md: per case, the paired median ratio B/A of each metric with its min–max range
// across rounds and the absolute medians in µs, with the protocol's caveats beside the table.
// Figures are printed with fixed precision (ratios 3 decimals, µs 2 decimals); the audit
// recomputes them from the raw samples and compares the printed text.
import { METRIC_TITLES, METRICS } from "./protocol";
import { CaseSummary, Round, Run } from "./results";
import { layoutSuffix } from "../layout";

export const RATIO_DIGITS = 3;
export const US_DIGITS = 2;

export interface ReportInput {
  name: string;
  question?: string;
  protocolPath: string;
  protocolSha256: string;
  rounds: number;
  samples: number;
  batchWindowMs: number;
  warmup: number;
  /** Protocol settings overridden on the command line (empty: none). */
  overrides?: object;
  runtime: { kind: string; deviceName: string; timesAreGpu: boolean };
  machine: { os: string; cpu: string; node: string };
  variants: { A: { label: string; options: object }; B: { label: string; options: object } };
  caveats: string[];
  commandLine: string;
  summary: CaseSummary[];
  roundList: Round[];
  plans: Record<string, any>;
}

function planText(plan: any): string {
  if (!plan) return "no plan";
  const m = plan.mapping ?? {};
  if (plan.realization === "cooperative-reduction") return `${plan.realization} P${m.P} S${m.S} W${m.W} T${m.T} V${m.V} U${m.U}${m.cached ? " cached" : ""}${layoutSuffix(m)}, ${m.groups} groups`;
  if (plan.realization === "fused-elementwise") return `${plan.realization} 1x${m.block} blocks, ${m.groups} groups`;
  return `${plan.realization} T${m.T}, ${plan.dispatch?.groups} group(s)`;
}

function caseSection(s: CaseSummary, runs: Run[], input: ReportInput): string[] {
  const out = [`## ${s.case}`, ""];
  out.push("| metric | ratio B/A (median of round ratios) | range (min–max of round ratios) | A median (µs) | B median (µs) | rounds |");
  out.push("| --- | --- | --- | --- | --- | --- |");
  for (const m of METRICS) {
    const x = s.metrics[m];
    const label = `\`${m}\` ${METRIC_TITLES[m]}`;
    if (!x.available || x.ratio === null || x.range === null || x.medianA === null || x.medianB === null) {
      out.push(`| ${label} | n/a | n/a | n/a | n/a | ${x.reason ?? "not available"} |`);
      continue;
    }
    out.push(`| ${label} | ${x.ratio.toFixed(RATIO_DIGITS)} | ${x.range[0].toFixed(RATIO_DIGITS)}–${x.range[1].toFixed(RATIO_DIGITS)} | ${x.medianA.toFixed(US_DIGITS)} | ${x.medianB.toFixed(US_DIGITS)} | ${x.roundRatios.length} |`);
  }
  out.push("");
  const failed = runs.filter((r) => !r.validation.passed);
  const maxAbs = Math.max(0, ...runs.map((r) => r.validation.maxAbsError));
  out.push(failed.length
    ? `Validation: **FAILED** in ${failed.length} of ${runs.length} runs (${failed.map((r) => `round ${r.round} ${r.variant}: ${r.error}`).join("; ")}); failed runs were not timed.`
    : `Validation: passed in all ${runs.length} runs against the FP64 oracle (max abs error ${maxAbs.toExponential(2)}).`);
  for (const v of ["A", "B"] as const) {
    const vr = runs.filter((r) => r.variant === v);
    const plans = [...new Set(vr.map((r) => r.planSha256))];
    const batches = vr.map((r) => r.calibration?.batch).filter((b) => b !== undefined);
    const hits = vr.filter((r) => r.compile?.cacheHit).length;
    const compiled = vr.filter((r) => r.compile).length;
    const mismatch = vr.some((r) => !r.planMatchesExpect) ? " **plan differs from the variant's expectation**" : "";
    const replanned = vr.find((r) => r.replanned);
    const replan = replanned ? ` (${replanned.replanned}; the re-planned kernel is the one validated and timed)` : "";
    out.push(`- ${v} (${input.variants[v].label}): ${plans.map((h) => planText(input.plans[h])).join(" / ")}${replan}${mismatch}; MSL sha256 ${[...new Set(vr.map((r) => r.mslSha256.slice(0, 12)))].join(", ")}; calibrated batch ${batches.join(", ")} dispatches; recompiled in ${compiled} rounds${input.runtime.kind === "host" ? ` (g++ cache hits: ${hits} of ${compiled})` : ""}`);
  }
  out.push("");
  return out;
}

export function renderMarkdown(input: ReportInput): string {
  const out: string[] = [`# Paired benchmark: ${input.name}`, ""];
  if (input.question) out.push(`Question: ${input.question}`, "");
  out.push(`- command: \`${input.commandLine}\``);
  out.push(`- protocol: \`${input.protocolPath}\` (sha256 ${input.protocolSha256.slice(0, 16)}…): ${input.rounds} rounds, ${input.samples} samples per phase, batch window ${input.batchWindowMs} ms (calibrated by doubling), warm-up ${input.warmup} dispatches`);
  const ov = Object.entries(input.overrides ?? {});
  if (ov.length) out.push(`- overridden on the command line (applied in the line above; recorded in results.json \`overrides\`): ${ov.map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(",") : String(v)}`).join(", ")}`);
  out.push(`- runtime: ${input.runtime.kind} (${input.runtime.deviceName}), GPU timestamps: ${input.runtime.timesAreGpu ? "yes" : "no"}`);
  out.push(`- machine: ${input.machine.os}, ${input.machine.cpu}, node ${input.machine.node}`);
  out.push(`- A: ${input.variants.A.label} \`${JSON.stringify(input.variants.A.options)}\``);
  out.push(`- B: ${input.variants.B.label} \`${JSON.stringify(input.variants.B.options)}\``);
  out.push("");
  out.push("Caveats:", "");
  for (const c of input.caveats) out.push(`- ${c}`);
  out.push("");
  out.push("How to read: every figure is time per dispatch (lower is faster). The ratio is B/A: each round's B median over the same round's A median, then the median of those per-round ratios (below 1: B is faster). The range is the min–max of the per-round ratios across rounds (a range, not a confidence interval). A and B medians are the medians of the per-round medians, in µs. No figure is a difference or product of medians.", "");
  for (const s of input.summary) caseSection(s, input.roundList.flatMap((r) => r.runs.filter((x) => x.case === s.case)), input).forEach((l) => out.push(l));
  out.push("## Order of the rounds", "");
  out.push("| round | order |", "| --- | --- |");
  for (const r of input.roundList) out.push(`| ${r.index} | ${r.order.map((o) => `${o.case} ${o.variant}`).join(" → ")} |`);
  out.push("");
  return out.join("\n");
}

/** Runtime caveats that always accompany the figures. */
export function runtimeCaveats(kind: string, timesAreGpu: boolean): string[] {
  if (kind === "host" || !timesAreGpu) {
    return ["host runtime: CPU execution of the MSL, not GPU times. The GPU metrics are unavailable (n/a) and the host metrics time a CPU emulation; they say nothing about Apple GPU performance."];
  }
  if (kind === "cuda") return ["GPU metrics come from CUDA events recorded on the stream before the first and after the last launch of each call (no counters attached); host metrics are the wall clock around dispatch calls in separate, uninstrumented phases."];
  return ["GPU metrics come from command-buffer GPU start/end timestamps (no counters attached); host metrics are the wall clock around dispatch calls in separate, uninstrumented phases."];
}

