// A benchmark protocol: written before timing, read once, recorded verbatim in the results.
//
//   {
//     "format": "tile-bench-protocol/1",
//     "name": "packing",
//     "question": "what the comparison is meant to answer",
//     "cases": [{ "case": "softmax", "sizes": { "R": 37, "C": 1537 } }, ...],   built-in case names,
//              or paths to Tile IR documents (relative to the protocol file, e.g. "../../my.json")
//     "variants": { "A": { "label": "...", "options": {...}, "expect": {...} }, "B": {...} },
//     "rounds": 6,            even: A-first and B-first equally often per case
//     "samples": 15,          samples per phase (per case, variant, metric and round)
//     "batchWindowMs": 20,    a batch holds as many dispatches as fit in this window (calibrated by doubling)
//     "maxBatch": 4096,       upper bound of the calibrated batch
//     "warmup": 5,            dispatches before the first phase of every case/variant/round
//     "seed": 1,              input seed (the validation inputs and the timed inputs)
//     "metrics": ["gpuBatch", "gpuSingle", "hostBatch", "hostSingle"],
//     "caveats": ["..."]      printed next to the table
//   }
//
// Variant options use the core's option keys (shell-node/src/options.ts): programsPerGroup,
// threads, vector, unroll, cacheInput, maxThreads, fuse. `expect` (optional) names plan.mapping
// fields the plan must show (e.g. {"P": 2, "W": 256}); a plan that differs is recorded as such.
import fs from "node:fs";
import path from "node:path";
import { stripBom, UsageError } from "../io";

export const PROTOCOL_FORMAT = "tile-bench-protocol/1";

/** The four metrics, all reported as microseconds per dispatch (lower is faster). */
export const METRICS = ["gpuBatch", "gpuSingle", "hostBatch", "hostSingle"] as const;
export type Metric = (typeof METRICS)[number];

export const METRIC_TITLES: Record<Metric, string> = {
  gpuBatch: "GPU batch (µs/dispatch)",
  gpuSingle: "GPU single call (µs)",
  hostBatch: "host end-to-end batch (µs/dispatch)",
  hostSingle: "host single-call latency (µs)",
};

export interface ProtocolCase {
  case: string;
  sizes: Record<string, number>;
  /** A document case: the absolute path of its file (built-in cases have none). */
  file?: string;
}

export interface Variant {
  label: string;
  options: Record<string, unknown>;
  expect?: Record<string, unknown>;
}

export interface Protocol {
  format: string;
  name: string;
  question?: string;
  cases: ProtocolCase[];
  variants: { A: Variant; B: Variant };
  rounds: number;
  samples: number;
  batchWindowMs: number;
  maxBatch: number;
  warmup: number;
  seed: number;
  metrics: Metric[];
  caveats: string[];
}

const OPTION_KEYS = new Set(["programsPerGroup", "threads", "vector", "unroll", "layout", "cacheInput", "maxThreads", "fuse"]);

function positiveInt(v: unknown, what: string, min = 1): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min) throw new UsageError(`protocol: ${what} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  return v;
}

function variant(v: any, key: string): Variant {
  if (!v || typeof v !== "object" || typeof v.options !== "object" || v.options === null) throw new UsageError(`protocol: variants.${key} needs an "options" object`);
  for (const k of Object.keys(v.options)) if (!OPTION_KEYS.has(k)) throw new UsageError(`protocol: variants.${key}.options.${k} is not a plan option (${[...OPTION_KEYS].join(", ")})`);
  return { label: typeof v.label === "string" ? v.label : key, options: v.options, ...(v.expect ? { expect: v.expect } : {}) };
}

/** Checks a parsed protocol; every problem is a usage error (exit 2). */
export function checkProtocol(p: any, knownCases: string[], baseDir = "."): Protocol {
  if (!p || typeof p !== "object") throw new UsageError("protocol: not a JSON object");
  if (p.format !== PROTOCOL_FORMAT) throw new UsageError(`protocol: "format" must be "${PROTOCOL_FORMAT}"`);
  if (!Array.isArray(p.cases) || p.cases.length === 0) throw new UsageError("protocol: \"cases\" must be a non-empty list");
  const cases: ProtocolCase[] = p.cases.map((c: any, i: number) => {
    if (!c || typeof c.case !== "string") throw new UsageError(`protocol: cases[${i}].case must be a built-in case (${knownCases.join(", ")}) or the path of a Tile IR document`);
    const sizes = c.sizes ?? {};
    for (const [k, v] of Object.entries(sizes)) positiveInt(v, `cases[${i}].sizes.${k}`);
    if (knownCases.includes(c.case)) return { case: c.case, sizes };
    const file = path.resolve(baseDir, c.case);
    if (!fs.existsSync(file) || !fs.statSync(file).isFile()) {
      throw new UsageError(`protocol: cases[${i}].case "${c.case}" is neither a built-in case (${knownCases.join(", ")}) nor a readable document (looked for ${file})`);
    }
    return { case: c.case, sizes, file };
  });
  const ids = cases.map(caseId);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup) throw new UsageError(`protocol: case ${dup} is listed twice`);
  if (!p.variants || typeof p.variants !== "object") throw new UsageError("protocol: \"variants\" needs A and B");
  const rounds = positiveInt(p.rounds, "rounds");
  if (rounds % 2 !== 0) throw new UsageError(`protocol: rounds must be even so that A-first and B-first are equally often per case (got ${rounds})`);
  const metrics = p.metrics ?? [...METRICS];
  if (!Array.isArray(metrics) || metrics.length === 0 || metrics.some((m: unknown) => !(METRICS as readonly unknown[]).includes(m))) throw new UsageError(`protocol: "metrics" must list some of ${METRICS.join(", ")}`);
  if (typeof p.batchWindowMs !== "number" || !(p.batchWindowMs > 0)) throw new UsageError("protocol: batchWindowMs must be a positive number of milliseconds");
  return {
    format: p.format,
    name: typeof p.name === "string" ? p.name : "bench",
    ...(typeof p.question === "string" ? { question: p.question } : {}),
    cases,
    variants: { A: variant(p.variants.A, "A"), B: variant(p.variants.B, "B") },
    rounds,
    samples: positiveInt(p.samples, "samples"),
    batchWindowMs: p.batchWindowMs,
    maxBatch: positiveInt(p.maxBatch ?? 4096, "maxBatch"),
    warmup: positiveInt(p.warmup ?? 0, "warmup", 0),
    seed: positiveInt(p.seed ?? 1, "seed", 0),
    metrics: METRICS.filter((m) => metrics.includes(m)),
    caveats: Array.isArray(p.caveats) ? p.caveats.map(String) : [],
  };
}

/** A case's identity in the results: the case name and its sizes, e.g. "softmax R=37 C=1537". */
export function caseId(c: ProtocolCase): string {
  const sizes = Object.entries(c.sizes).map(([k, v]) => `${k}=${v}`);
  return [c.case, ...sizes].join(" ");
}

export interface ProtocolFile {
  path: string;
  text: string;
  protocol: Protocol;
}

export function readProtocol(file: string, knownCases: string[]): ProtocolFile {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    throw new UsageError(`cannot read the protocol ${file}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripBom(text));
  } catch (err) {
    throw new UsageError(`the protocol ${file} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { path: file, text, protocol: checkProtocol(parsed, knownCases, path.dirname(path.resolve(file))) };
}

/** Protocol settings the command line may override to bound a run (`tile bench --rounds 4
 *  --samples 5 ...`). What was overridden is recorded in results.json (`overrides`) beside the
 *  protocol text, and the audit applies it before it recomputes anything. */
export interface BenchOverrides {
  rounds?: number;
  samples?: number;
  batchWindowMs?: number;
  warmup?: number;
  maxBatch?: number;
  metrics?: Metric[];
}

/** The command-line flag of each override (the audit looks for it in the recorded argv). */
export const OVERRIDE_FLAGS: Record<keyof BenchOverrides, string> = {
  rounds: "--rounds", samples: "--samples", batchWindowMs: "--batch-window-ms", warmup: "--warmup", maxBatch: "--max-batch", metrics: "--metrics",
};

/** `--metrics gpuBatch,gpuSingle` -> the list, in the canonical order; a usage error otherwise. */
export function parseMetrics(text: string): Metric[] {
  const names = text.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
  const bad = names.filter((n) => !(METRICS as readonly string[]).includes(n));
  if (names.length === 0 || bad.length) throw new UsageError(`--metrics expects a comma-separated list of ${METRICS.join(", ")}${bad.length ? `, got ${bad.join(", ")}` : ""}`);
  return METRICS.filter((m) => names.includes(m));
}

/** The protocol with the overrides applied (checked like the protocol's own fields). */
export function applyOverrides(p: Protocol, o: BenchOverrides): Protocol {
  const out: Protocol = { ...p };
  if (o.rounds !== undefined) {
    positiveInt(o.rounds, "--rounds");
    if (o.rounds % 2 !== 0) throw new UsageError(`--rounds must be even so that A-first and B-first are equally often per case (got ${o.rounds})`);
    out.rounds = o.rounds;
  }
  if (o.samples !== undefined) out.samples = positiveInt(o.samples, "--samples");
  if (o.warmup !== undefined) out.warmup = positiveInt(o.warmup, "--warmup", 0);
  if (o.maxBatch !== undefined) out.maxBatch = positiveInt(o.maxBatch, "--max-batch");
  if (o.batchWindowMs !== undefined) {
    if (typeof o.batchWindowMs !== "number" || !(o.batchWindowMs > 0) || !Number.isFinite(o.batchWindowMs)) throw new UsageError("--batch-window-ms must be a positive number of milliseconds");
    out.batchWindowMs = o.batchWindowMs;
  }
  if (o.metrics !== undefined) out.metrics = METRICS.filter((m) => o.metrics!.includes(m));
  return out;
}

/** The text an override takes on the command line (what the audit expects after its flag). */
export function overrideText(key: keyof BenchOverrides, value: unknown): string {
  return key === "metrics" ? (value as string[]).join(",") : String(value);
}
