// Per case and metric: per-round medians of the per-dispatch values, the per-round ratio B/A,
// the median of those ratios and their min–max range, and the medians of the round medians.
import { caseId, Metric, Protocol } from "./protocol";
import { CaseSummary, MetricSummary, Round, Run } from "./results";
import { median, minMax, perDispatch } from "./stats";

function roundMedian(run: Run | undefined, m: Metric): number | null {
  if (!run || !run.timed) return null;
  const s = run.samples[m];
  const d = run.dispatchesPerSample[m];
  if (!s || !d || s.length === 0) return null;
  return median(perDispatch(s, d));
}

function metricSummary(rounds: Round[], id: string, m: Metric, protocol: Protocol, gpuReason: string | undefined): MetricSummary {
  const none: MetricSummary = { available: false, roundMedianA: [], roundMedianB: [], roundRatios: [], ratio: null, range: null, medianA: null, medianB: null };
  if (!protocol.metrics.includes(m)) return { ...none, reason: "not in the protocol's metrics" };
  if (gpuReason && (m === "gpuBatch" || m === "gpuSingle")) return { ...none, reason: gpuReason };
  const s: MetricSummary = { ...none };
  for (const r of rounds) {
    const a = roundMedian(r.runs.find((x) => x.case === id && x.variant === "A"), m);
    const b = roundMedian(r.runs.find((x) => x.case === id && x.variant === "B"), m);
    if (a === null || b === null) return { ...none, reason: `round ${r.index}: no timed samples for both variants` };
    s.roundMedianA.push(a);
    s.roundMedianB.push(b);
    s.roundRatios.push(b / a);
  }
  s.available = true;
  s.ratio = median(s.roundRatios);
  s.range = minMax(s.roundRatios);
  s.medianA = median(s.roundMedianA);
  s.medianB = median(s.roundMedianB);
  return s;
}

export function summarize(protocol: Protocol, rounds: Round[], gpuReason: string | undefined): CaseSummary[] {
  return protocol.cases.map((c) => {
    const id = caseId(c);
    const runs = rounds.flatMap((r) => r.runs.filter((x) => x.case === id));
    const metrics = {} as Record<Metric, MetricSummary>;
    for (const m of ["gpuBatch", "gpuSingle", "hostBatch", "hostSingle"] as Metric[]) metrics[m] = metricSummary(rounds, id, m, protocol, gpuReason);
    return { case: id, validated: runs.length > 0 && runs.every((x) => x.validation.passed), metrics };
  });
}
