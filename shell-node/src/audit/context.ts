// What every check reads: the results, the embedded protocol, the runs, results.md, and the
// figures recomputed from the raw samples.
import fs from "node:fs";
import path from "node:path";
import { MarkdownFigures, readMarkdownFigures } from "./markdown";
import { highest, lowest, middle, sha256Hex } from "./numbers";

export const ALL_METRICS = ["gpuBatch", "gpuSingle", "hostBatch", "hostSingle"];
export const GPU_METRICS = ["gpuBatch", "gpuSingle"];
export const BATCH_METRICS = ["gpuBatch", "hostBatch"];

/** Runtime kinds whose times can be GPU times. The host runtime's never are, whatever a results
 *  file says. */
export const GPU_RUNTIME_KINDS = ["metal", "cuda"];
/** A string that only the host runtime's library holds (the prefix of its device name,
 *  "host-cpu (g++)"): a library holding it is the host runtime, whatever it is called. */
export const HOST_LIBRARY_MARKER = "host-cpu (";
/** Strings a GPU runtime's library must hold, per kind: the entry point it cannot work without
 *  (the Metal library imports MTLCreateSystemDefaultDevice by name). */
export const GPU_LIBRARY_MARKERS: Record<string, string[]> = { metal: ["MTLCreateSystemDefaultDevice"], cuda: [] };

/** Whether the samples come from a GPU runtime, derived from the runtime kind and the runtime
 *  library's fingerprint and bytes; `claimed` is the results file's own runtime.timesAreGpu. */
export interface GpuVerdict {
  gpu: boolean;
  claimed: boolean;
  /** Why the runtime is (not) a GPU runtime, in words. */
  reason: string;
}

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
  /** Derived (never read from runtime.timesAreGpu): see deriveGpu. */
  gpu: boolean;
  gpuVerdict: GpuVerdict;
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

/** Protocol settings a command line may override (results.overrides), with their flags and what
 *  each value must be. The audit applies valid overrides to the protocol before recomputing. */
export const OVERRIDABLE: Record<string, { flag: string; valid: (v: unknown) => boolean }> = {
  rounds: { flag: "--rounds", valid: (v) => Number.isInteger(v) && (v as number) >= 1 },
  samples: { flag: "--samples", valid: (v) => Number.isInteger(v) && (v as number) >= 1 },
  batchWindowMs: { flag: "--batch-window-ms", valid: (v) => typeof v === "number" && Number.isFinite(v) && v > 0 },
  warmup: { flag: "--warmup", valid: (v) => Number.isInteger(v) && (v as number) >= 0 },
  maxBatch: { flag: "--max-batch", valid: (v) => Number.isInteger(v) && (v as number) >= 1 },
  metrics: { flag: "--metrics", valid: (v) => Array.isArray(v) && v.length > 0 && v.every((m) => ALL_METRICS.includes(m)) },
};

/** The value text of an override as typed after its flag. */
export function overrideText(key: string, value: unknown): string {
  return key === "metrics" && Array.isArray(value) ? value.join(",") : String(value);
}

/** What the recorded command line gives for an override's flag (`--rounds 4` or `--rounds=4`),
 *  or undefined; and whether that is the recorded value (numbers compared as numbers). */
export function typedOverride(argv: unknown[], key: string): string | undefined {
  const flag = OVERRIDABLE[key]?.flag;
  if (!flag) return undefined;
  for (let i = argv.length - 1; i >= 0; i--) {
    const a = argv[i];
    if (a === flag && typeof argv[i + 1] === "string") return argv[i + 1] as string;
    if (typeof a === "string" && a.startsWith(flag + "=")) return a.slice(flag.length + 1);
  }
  return undefined;
}

export function argvShows(argv: unknown[], key: string, value: unknown): boolean {
  const typed = typedOverride(argv, key);
  if (typed === undefined) return false;
  if (key === "metrics") return Array.isArray(value) && typed.split(",").map((x) => x.trim()).filter((x) => x).sort(byCode).join(",") === [...value].sort(byCode).join(",");
  return /^[0-9.eE+-]+$/.test(typed) && Number(typed) === value;
}

/** The overrides that are well formed and shown by the recorded command line (the others are
 *  findings, checks.ts checkOverrides, and are not applied). */
export function acceptedOverrides(results: any): Record<string, unknown> {
  const o = results?.overrides;
  const out: Record<string, unknown> = {};
  if (!isObject(o)) return out;
  const argv: unknown[] = Array.isArray(results?.command?.argv) ? results.command.argv : [];
  for (const [k, v] of Object.entries(o)) {
    const spec = OVERRIDABLE[k];
    if (!spec || !spec.valid(v)) continue;
    if (argvShows(argv, k, v)) out[k] = v;
  }
  return out;
}

export function makeContext(resultsFile: string, results: any, rootOverride?: string): AuditContext {
  let protocol: any = null;
  try {
    protocol = JSON.parse(results?.protocol?.text);
  } catch {
    protocol = null;
  }
  if (isObject(protocol)) protocol = { ...protocol, ...acceptedOverrides(results) };
  const rounds: any[] = Array.isArray(results?.rounds) ? results.rounds.filter(isObject) : [];
  const runs = rounds.flatMap((r) => (Array.isArray(r.runs) ? r.runs.filter(isObject) : []));
  const resultCases: any[] = Array.isArray(results?.cases) ? results.cases : [];
  const protocolCases: any[] = Array.isArray(protocol?.cases) ? protocol.cases : [];
  const caseIds = protocolCases.map((pc) => resultCases.find((rc) => isObject(rc) && rc.case === pc.case && sameSizes(rc.sizes, pc.sizes ?? {}))?.id as string | undefined);
  const root = rootOverride ?? (typeof results?.root === "string" ? results.root : ".");
  const gpuVerdict = deriveGpu(results, root);
  const gpu = gpuVerdict.gpu;
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
    resultsFile, results, protocol, root,
    markdownFile, markdown, markdownFigures: readMarkdownFigures(markdown ?? ""), caseIds, runs, rounds, gpu, gpuVerdict, expectedMetrics, figures: [],
  };
  ctx.figures = recompute(ctx);
  return ctx;
}

/**
 * GPU-ness from what produced the samples, not from the file's say-so: the runtime kind must be a
 * GPU runtime's (metal, cuda; never host), its library must be `libtile_<kind>.<dylib|so|dll>`,
 * fingerprinted among results.artifacts with the same sha256, present under the root with that
 * sha256, free of the host runtime's marker and holding its kind's markers.
 */
export function deriveGpu(results: any, root: string): GpuVerdict {
  const claimed = results?.runtime?.timesAreGpu === true;
  const kind = results?.runtime?.kind;
  const no = (reason: string): GpuVerdict => ({ gpu: false, claimed, reason });
  if (typeof kind !== "string" || !GPU_RUNTIME_KINDS.includes(kind)) return no(`the runtime kind ${JSON.stringify(kind)} is not a GPU runtime (GPU runtimes: ${GPU_RUNTIME_KINDS.join(", ")})`);
  const lib = results?.runtime?.library;
  const rel = lib?.path;
  if (typeof rel !== "string" || typeof lib?.sha256 !== "string") return no("the runtime library has no fingerprint");
  const base = rel.split(/[\\/]/).pop() ?? "";
  if (base !== `libtile_${kind}.dylib` && base !== `libtile_${kind}.so` && base !== `libtile_${kind}.dll`) return no(`the runtime library ${rel} is not the ${kind} runtime's (libtile_${kind}.*)`);
  const artifacts: any[] = Array.isArray(results?.artifacts) ? results.artifacts : [];
  if (!artifacts.some((a) => a?.path === rel && a?.sha256 === lib.sha256)) return no(`the runtime library ${rel} is not among the fingerprinted artifacts with the same sha256`);
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(path.resolve(root, rel));
  } catch {
    return no(`the runtime library ${rel} is not under ${root}, so it cannot be shown to be a GPU runtime`);
  }
  if (sha256Hex(bytes) !== lib.sha256) return no(`the runtime library ${rel} under ${root} is not the fingerprinted one`);
  if (bytes.includes(HOST_LIBRARY_MARKER)) return no(`the runtime library ${rel} is the host runtime's (it holds "${HOST_LIBRARY_MARKER}")`);
  for (const m of GPU_LIBRARY_MARKERS[kind] ?? []) if (!bytes.includes(m)) return no(`the runtime library ${rel} does not hold "${m}", which every ${kind} runtime library does`);
  return { gpu: true, claimed, reason: `the ${kind} runtime library ${rel}` };
}

/** A run counts (its samples enter a figure) only when every validation check passed: passed,
 *  no error, guards intact, and every output checked with no mismatch. */
export function validated(run: any): boolean {
  return validationFailures(run).length === 0;
}

/** The validation checks a run did not pass, in words (empty when it counts). */
export function validationFailures(run: any): string[] {
  const v = run?.validation;
  if (!v || typeof v !== "object") return ["no validation record"];
  const out: string[] = [];
  if (v.passed !== true) out.push("not passed");
  if (v.error !== null && v.error !== undefined) out.push(`error: ${String(v.error)}`);
  if (v.guards !== "intact") out.push(`guards: ${String(v.guards)}`);
  const outputs: any[] = Array.isArray(v.outputs) ? v.outputs : [];
  if (outputs.length === 0) out.push("no output was checked against the oracle");
  for (const o of outputs) if (o?.mismatches !== 0) out.push(`output ${o?.name}: ${String(o?.mismatches)} mismatch(es)`);
  return out;
}

/**
 * The calibrated batch, re-derived from a run's trials by the documented rule: the first trial
 * runs 1 dispatch per call; each next trial doubles it (capped at the protocol's maxBatch); the
 * doubling stops at the first trial whose time reaches the protocol's batch window (batchWindowMs,
 * in µs: trial.us >= batchWindowMs * 1000) or whose count reaches maxBatch; the batch is that
 * trial's count. Returns the batch, or a reason why the trials do not follow the rule.
 */
export function deriveBatch(calibration: any, protocol: any): { batch: number } | { problem: string } {
  const trials: any[] = Array.isArray(calibration?.trials) ? calibration.trials : [];
  const windowMs = protocol?.batchWindowMs;
  const maxBatch = protocol?.maxBatch;
  if (typeof windowMs !== "number" || typeof maxBatch !== "number") return { problem: "the protocol has no batchWindowMs/maxBatch" };
  if (calibration?.windowMs !== windowMs) return { problem: `calibrated against a ${String(calibration?.windowMs)} ms window, the protocol's is ${windowMs} ms` };
  if (trials.length === 0) return { problem: "no calibration trials recorded" };
  let want = 1;
  for (let i = 0; i < trials.length; i++) {
    const t = trials[i];
    if (t?.repeat !== want) return { problem: `trial ${i} ran ${String(t?.repeat)} dispatches, the rule gives ${want}` };
    if (typeof t.us !== "number" || !Number.isFinite(t.us) || t.us < 0) return { problem: `trial ${i} has no time` };
    const stop = t.us >= windowMs * 1000 || want >= maxBatch;
    if (stop !== (i === trials.length - 1)) return { problem: stop ? `trial ${i} already fills the window or reaches maxBatch, yet the doubling went on` : `the last trial (${t.us} µs for ${want}) neither fills the ${windowMs} ms window nor reaches maxBatch ${maxBatch}` };
    if (!stop) want = Math.min(want * 2, maxBatch);
  }
  return { batch: want };
}

/** The run of a slot (the first one, if several claim it). */
export function runOf(round: any, id: string, variant: string): any | undefined {
  return (Array.isArray(round.runs) ? round.runs : []).find((x: any) => x && x.case === id && x.variant === variant);
}

/** Per-dispatch median of one run's metric, from its raw samples, or null. */
export function runMedian(run: any, metric: string): number | null {
  if (!validated(run)) return null;
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
