// The results file (results.json) written by `tile bench`, format "tile-bench-results/1".
// The audit (shell-node/src/audit) reads this shape without importing it; keep the two in step.
//
// Raw samples are totals: `samples[metric]` holds the elapsed microseconds of each call, and a
// call ran `dispatchesPerSample[metric]` dispatches (the calibrated batch for batch metrics, 1 for
// single-call metrics). Per-dispatch values are total / dispatchesPerSample.
import { Metric } from "./protocol";

export const RESULTS_FORMAT = "tile-bench-results/1";

export interface Fingerprint {
  /** Path relative to `root`. */
  path: string;
  sha256: string;
  bytes: number;
}

export interface Validation {
  passed: boolean;
  error: string | null;
  guards: string;
  maxAbsError: number;
  maxRelError: number;
  /** Every output checked against the FP64 oracle: elements written and mismatches (a pass needs 0). */
  outputs: { name: string; elements: number; written: number; mismatches: number; maxAbsError: number; maxRelError: number }[];
  /** What the validation run planned and compiled (must equal what was timed). */
  planSha256: string | null;
  mslSha256: string | null;
  /** Compiler runs during validation (host: 0 when the g++ cache already held the unit). */
  compilerInvocations: number;
}

export interface Compile {
  ms: number;
  /** Native compiler runs for this recompile (host: g++ runs; 0 means a cache hit). */
  compilerInvocations: number;
  /** host: the unit came from the g++ cache (recorded, not hidden); metal: always false. */
  cacheHit: boolean;
}

export interface Calibration {
  windowMs: number;
  clock: "gpu" | "wall";
  /** Every doubling tried: dispatches in one call and the microseconds it took. */
  trials: { repeat: number; us: number }[];
  /** The calibrated batch: the first doubling that filled the window (or maxBatch). */
  batch: number;
}

export interface Run {
  round: number;
  /** Position in the round's execution order (0-based). */
  seq: number;
  case: string;
  variant: "A" | "B";
  planSha256: string;
  mslSha256: string;
  planMatchesExpect: boolean;
  /** Why the plan was made again under the compiled pipeline's thread limit (then planSha256 and
   *  mslSha256 name the re-planned kernel, the one validated and timed), or null. */
  replanned: string | null;
  compile: Compile | null;
  validation: Validation;
  /** False when validation failed (or emission did not produce a plan): nothing was timed. */
  timed: boolean;
  /** Why the run was not timed, or what failed while timing. */
  error: string | null;
  warmup: number;
  calibration: Calibration | null;
  /** Raw totals in µs per call, or null with a reason in `unavailable`. */
  samples: Record<Metric, number[] | null>;
  dispatchesPerSample: Record<Metric, number | null>;
  unavailable: Partial<Record<Metric, string>>;
}

export interface Round {
  index: number;
  /** Cases in the order this round ran them (the starting case rotates). */
  caseOrder: string[];
  /** Which variant ran first, per case. */
  first: Record<string, "A" | "B">;
  /** Execution order: one entry per run. */
  order: { case: string; variant: "A" | "B" }[];
  /** Fingerprints of the core builds and the native library, hashed again at this round's start. */
  artifacts: Fingerprint[];
  runs: Run[];
}

export interface MetricSummary {
  available: boolean;
  reason?: string;
  /** Per round: median of A's per-dispatch values, of B's, and B/A. */
  roundMedianA: number[];
  roundMedianB: number[];
  roundRatios: number[];
  /** Median of roundRatios, and its min–max range across rounds. */
  ratio: number | null;
  range: [number, number] | null;
  /** Medians of the round medians (absolute, µs). */
  medianA: number | null;
  medianB: number | null;
}

export interface CaseSummary {
  case: string;
  validated: boolean;
  metrics: Record<Metric, MetricSummary>;
}
