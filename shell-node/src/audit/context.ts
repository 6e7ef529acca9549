// What every check reads: the results, the embedded protocol, the runs, results.md, and the
// figures recomputed from the raw samples.
import fs from "node:fs";
import path from "node:path";
import { MarkdownFigures, readMarkdownFigures } from "./markdown";
import { highest, lowest, middle } from "./numbers";

export const ALL_METRICS = ["gpuBatch", "gpuSingle", "hostBatch", "hostSingle"];
export const GPU_METRICS = ["gpuBatch", "gpuSingle"];
export const BATCH_METRICS = ["gpuBatch", "hostBatch"];

export interface Figure {
  case: string;
  metric: string;
  roundMedianA: number[];
  roundMedianB: number[];
  roundRatios: number[];
  ratio: number;
  range: [number, number];
  medianA: number;
  medianB: number;
}

export interface AuditContext {
  resultsFile: string;
  results: any;
  protocol: any | null;
  root: string;
  markdownFile: string;
  markdown: string | null;
  markdownFigures: MarkdownFigures;
  /** Protocol case index -> the id results use (undefined when the case is missing). */
  caseIds: (string | undefined)[];
  runs: any[];
  rounds: any[];
  gpu: boolean;
  expectedMetrics: string[];
  figures: Figure[];
}

function isObject(x: unknown): x is Record<string, any> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

const byCode = (p: string, q: string): number => (p < q ? -1 : p > q ? 1 : 0);

function sameSizes(a: unknown, b: unknown): boolean {
  if (!isObject(a) || !isObject(b)) return false;
  const ka = Object.keys(a).sort(byCode);
  const kb = Object.keys(b).sort(byCode);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
}

export function makeContext(resultsFile: string, results: any, rootOverride?: string): AuditContext {
  let protocol: any = null;
  try {
    protocol = JSON.parse(results?.protocol?.text);
  } catch {
    protocol = null;
  }
  const rounds: any[] = Array.isArray(results?.rounds) ? results.rounds.filter(isObject) : [];
  const runs = rounds.flatMap((r) => (Array.isArray(r.runs) ? r.runs.filter(isObject) : []));
  const resultCases: any[] = Array.isArray(results?.cases) ? results.cases : [];
  const protocolCases: any[] = Array.isArray(protocol?.cases) ? protocol.cases : [];
  const caseIds = protocolCases.map((pc) => resultCases.find((rc) => isObject(rc) && rc.case === pc.case && sameSizes(rc.sizes, pc.sizes ?? {}))?.id as string | undefined);
  const gpu = results?.runtime?.timesAreGpu === true;
  const listed: string[] = Array.isArray(protocol?.metrics) ? protocol.metrics : ALL_METRICS;
  const expectedMetrics = ALL_METRICS.filter((m) => listed.includes(m) && (gpu || !GPU_METRICS.includes(m)));
  const markdownFile = path.join(path.dirname(resultsFile), typeof results?.report?.markdown === "string" ? results.report.markdown : "results.md");
  let markdown: string | null = null;
  try {
    markdown = fs.readFileSync(markdownFile, "utf8");
  } catch {
    markdown = null;
  }
  const ctx: AuditContext = {
    resultsFile, results, protocol, root: rootOverride ?? (typeof results?.root === "string" ? results.root : "."),
    markdownFile, markdown, markdownFigures: readMarkdownFigures(markdown ?? ""), caseIds, runs, rounds, gpu, expectedMetrics, figures: [],
  };
  ctx.figures = recompute(ctx);
  return ctx;
}

/** The run of a slot (the first one, if several claim it). */
export function runOf(round: any, id: string, variant: string): any | undefined {
  return (Array.isArray(round.runs) ? round.runs : []).find((x: any) => x && x.case === id && x.variant === variant);
}

/** Per-dispatch median of one run's metric, from its raw samples, or null. */
export function runMedian(run: any, metric: string): number | null {
  const samples = run?.samples?.[metric];
  const per = run?.dispatchesPerSample?.[metric];
  if (!Array.isArray(samples) || samples.length === 0 || typeof per !== "number" || !(per > 0)) return null;
  if (!samples.every((s: unknown) => typeof s === "number" && Number.isFinite(s))) return null;
  return middle(samples.map((s: number) => s / per));
}

/** Every reportable figure, recomputed from the raw samples alone. */
function recompute(ctx: AuditContext): Figure[] {
  const out: Figure[] = [];
  for (const id of ctx.caseIds) {
    if (id === undefined) continue;
    for (const metric of ctx.expectedMetrics) {
      const f: Figure = { case: id, metric, roundMedianA: [], roundMedianB: [], roundRatios: [], ratio: NaN, range: [NaN, NaN], medianA: NaN, medianB: NaN };
      let complete = ctx.rounds.length > 0;
      for (const round of ctx.rounds) {
        const a = runMedian(runOf(round, id, "A"), metric);
        const b = runMedian(runOf(round, id, "B"), metric);
        if (a === null || b === null) {
          complete = false;
          break;
        }
        f.roundMedianA.push(a);
        f.roundMedianB.push(b);
        f.roundRatios.push(b / a);
      }
      if (!complete) continue;
      f.ratio = middle(f.roundRatios);
      f.range = [lowest(f.roundRatios), highest(f.roundRatios)];
      f.medianA = middle(f.roundMedianA);
      f.medianB = middle(f.roundMedianB);
      out.push(f);
    }
  }
  return out;
}
