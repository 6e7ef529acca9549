// Timing a list of kernels on one runtime, for `tile sweep` and `tile time`: every entry (a
// document, its sizes and plan options) is planned, emitted, validated against the FP64 oracle
// (runAndValidate: guards, every output) and compiled once; entries that did not validate, or
// whose plan is not the one asked for, are recorded and not timed. Then, per entry, the batch is
// calibrated by the rule of `tile bench` (1 dispatch, doubled until a call fills the window or
// reaches maxBatch) and the entries are timed in rounds: every round times every entry `samples`
// times (after `warmup` dispatches); rounds come in pairs, the second of a pair runs the list
// backwards and each pair starts one entry later (timingOrder), so over a pair every entry's
// mean position is the same and no entry always runs first, last or after the same neighbour.
//
// The metric is the GPU batch metric (`gpuBatch`: one call of `batch` dispatches, the runtime's
// GPU start/end timestamps: CUDA events or Metal command-buffer times) on a GPU runtime; on the
// host runtime it is `hostBatch` (the wall clock around the call), recorded as such and never as
// a GPU time.
import { Engine } from "../engine";
import { DeviceBuffer, Pipeline, Runtime, registerLimitFor } from "../native";
import { makeInputs, shapeOf } from "../inputs";
import { runAndValidate } from "../validate-run";
import { sha256 } from "./fingerprint";
import { calibrateBatch, gpuUs, nowUs, validationOf, wallUs, type Dispatch } from "./measure";
import { Calibration, Validation } from "./results";
import { median } from "./stats";

export interface TimingEntry {
  id: string;
  text: string;
  sizes: Record<string, number>;
  /** Core plan options (sizes are added). */
  options: Record<string, unknown>;
  /** Returns why the plan is not the one this entry stands for, or null. */
  check?: (plan: any) => string | null;
}

export interface TimingSettings {
  rounds: number;
  samples: number;
  batchWindowMs: number;
  maxBatch: number;
  warmup: number;
  seed: number;
}

export interface EntryTiming {
  id: string;
  options: Record<string, unknown>;
  planSha256: string | null;
  mslSha256: string | null;
  plan: any;
  validation: Validation | null;
  replanned: string | null;
  /** Why the entry was not timed (null when it was). */
  error: string | null;
  timed: boolean;
  pipelineMaxThreads: number | null;
  /** The register limit the kernel was compiled with (its plan's registerLimit; 0: none; null: not compiled). */
  registerLimit: number | null;
  compileMs: number | null;
  calibration: Calibration | null;
  /** Raw totals (µs per call of `dispatchesPerSample` dispatches), one list per round. */
  samples: number[][];
  dispatchesPerSample: number | null;
  /** Per round: the median of the per-dispatch values; and the median of those (µs). */
  roundMedians: number[];
  medianUs: number | null;
}

export interface TimingOutcome {
  metric: "gpuBatch" | "hostBatch";
  timesAreGpu: boolean;
  /** Entry ids in the order each round timed them. */
  order: string[][];
  entries: EntryTiming[];
  sources: Record<string, string>;
}

/** The round schedule of `n` entries: rounds come in pairs; pair k runs the list rotated by k,
 *  first forwards, then backwards, so over each pair every entry's mean position is the middle
 *  and the starting entry changes from pair to pair. */
export function timingOrder(round: number, n: number): number[] {
  const out: number[] = [];
  const shift = Math.floor(round / 2);
  for (let k = 0; k < n; k++) out.push((shift + k) % n);
  return round % 2 === 1 ? out.reverse() : out;
}

interface Live {
  index: number;
  pipe: Pipeline;
  lib: unknown;
  buffers: DeviceBuffer[];
  plan: any;
}

export function timeEntries(engine: Engine, runtime: Runtime, entries: TimingEntry[], s: TimingSettings, progress?: (what: string) => void): TimingOutcome {
  const gpu = runtime.timesAreGpu;
  const out: TimingOutcome = { metric: gpu ? "gpuBatch" : "hostBatch", timesAreGpu: gpu, order: [], entries: [], sources: {} };
  // the oracle's results of the last two documents and sizes only: a list's entries of one
  // document and size are usually neighbours (a plan beside another), and a long list of large
  // documents held every one of them to the end (a bound; the peak of one entry's validation,
  // 5 GB for an 8x1024x4096 sum on the host runtime, is unchanged)
  const oracleCache = new BoundedMap<string, any>(2);
  // buffers are shared by entries of the same document and sizes (same bindings, same inputs)
  const shared = new Map<string, { names: string; buffers: DeviceBuffer[] }>();
  const live: Live[] = [];
  try {
    entries.forEach((e, i) => {
      progress?.(`validating ${i + 1}/${entries.length} ${e.id}`);
      const t: EntryTiming = { id: e.id, options: e.options, planSha256: null, mslSha256: null, plan: null, validation: null, replanned: null, error: null, timed: false,
        pipelineMaxThreads: null, registerLimit: null, compileMs: null, calibration: null, samples: [], dispatchesPerSample: null, roundMedians: [], medianUs: null };
      out.entries.push(t);
      const options = { ...e.options, sizes: e.sizes };
      const before = runtime.compilerInvocations();
      const v = runAndValidate({ engine, runtime, text: e.text, options, seed: s.seed, oracleCache });
      t.validation = validationOf(v, runtime.compilerInvocations() - before);
      t.replanned = v.replanned ?? null;
      t.plan = v.plan ?? null;
      if (v.msl !== undefined) {
        t.planSha256 = sha256(JSON.stringify(v.plan));
        t.mslSha256 = sha256(v.msl);
        out.sources[t.mslSha256] = v.msl;
      }
      if (v.replanned) {
        t.error = `not launchable as planned (${v.replanned}); the re-planned kernel is another candidate and is not timed here`;
        return;
      }
      const off = e.check && v.plan ? e.check(v.plan) : null;
      if (off) {
        t.error = `the plan is not this entry's: ${off}`;
        return;
      }
      if (!v.passed) {
        t.error = v.msl === undefined ? (v.error ?? "not planned") : "validation failed: " + (v.error ?? v.guards);
        return;
      }
      const t0 = nowUs();
      t.registerLimit = registerLimitFor(runtime.kind, v.plan);
      const lib = runtime.compile(v.msl!, t.registerLimit);
      t.compileMs = (nowUs() - t0) / 1000;
      const pipe = runtime.pipeline(lib, v.plan.kernel);
      t.pipelineMaxThreads = pipe.maxThreads;
      const bindings = v.plan.bindings.filter((x: any) => x.kind === "buffer").sort((x: any, y: any) => x.index - y.index);
      const names = bindings.map((b: any) => b.name).join(",");
      const key = JSON.stringify([e.text, e.sizes]);
      let group = shared.get(key);
      if (!group) {
        group = { names, buffers: allocate(runtime, engine, e.text, e.sizes, bindings, s.seed) };
        shared.set(key, group);
      }
      if (group.names !== names) {
        runtime.freePipeline(pipe);
        runtime.freeLibrary(lib as any);
        t.error = `its buffers (${names}) differ from the other plans of this document (${group.names})`;
        return;
      }
      live.push({ index: i, pipe, lib, buffers: group.buffers, plan: v.plan });
    });

    // calibration, once per entry, before the rounds
    for (const l of live) {
      const t = out.entries[l.index];
      progress?.(`calibrating ${t.id}`);
      const d = dispatcher(runtime, l);
      for (let k = 0; k < s.warmup; k++) d(1);
      t.calibration = calibrateBatch(runtime, d, s, gpu ? "gpu" : "wall");
      t.dispatchesPerSample = t.calibration.batch;
    }
    for (let r = 0; r < s.rounds; r++) {
      const order = timingOrder(r, live.length).map((k) => live[k]);
      out.order.push(order.map((l) => out.entries[l.index].id));
      for (const l of order) {
        const t = out.entries[l.index];
        progress?.(`round ${r + 1}/${s.rounds} ${t.id}`);
        const d = dispatcher(runtime, l);
        for (let k = 0; k < s.warmup; k++) d(1);
        const batch = t.dispatchesPerSample!;
        const list: number[] = [];
        for (let k = 0; k < s.samples; k++) list.push(gpu ? (d(batch), gpuUs(runtime)) : wallUs(d, batch));
        t.samples.push(list);
        t.roundMedians.push(median(list.map((x) => x / batch)));
      }
    }
    for (const l of live) {
      const t = out.entries[l.index];
      t.timed = t.roundMedians.length === s.rounds && s.rounds > 0;
      t.medianUs = t.timed ? median(t.roundMedians) : null;
    }
  } finally {
    for (const l of live) {
      runtime.freePipeline(l.pipe);
      runtime.freeLibrary(l.lib as any);
    }
    for (const g of shared.values()) for (const b of g.buffers) runtime.freeBuffer(b);
  }
  return out;
}

/** A Map that keeps its `limit` most recently added keys (the oldest is dropped first). */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (!this.has(key) && this.size >= this.limit) {
      const oldest = this.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    return super.set(key, value);
  }
}

function dispatcher(runtime: Runtime, l: Live): Dispatch {
  const d = l.plan.dispatch;
  return (repeat) => runtime.dispatch(l.pipe, l.buffers, d.threadgroupBytes, [d.groups, 1, 1], [d.threads, 1, 1], repeat);
}

/** The plan's buffers with the seeded inputs the validation used (outputs too: overwritten). */
function allocate(runtime: Runtime, engine: Engine, text: string, sizes: Record<string, number>, bindings: any[], seed: number): DeviceBuffer[] {
  const doc = JSON.parse(engine.call({ command: "canonical", document: text, options: { sizes } }).text);
  const inputs = makeInputs(doc, seed);
  return bindings.map((b: any) => {
    const param = doc.params.find((p: any) => p.name === b.name);
    const n = shapeOf(doc, b.name).reduce((a: number, x: number) => a * x, 1);
    const src = inputs.get(b.name)!;
    const data = param.dtype === "f32" ? Float32Array.from(src as ArrayLike<number>) : Int32Array.from(src as ArrayLike<number>);
    const buf = runtime.buffer(Math.max(4, n * 4));
    runtime.write(buf, data);
    return buf;
  });
}

/** Ranks 1..n of `xs` (ties share the mean of their ranks). */
export function ranks(xs: number[]): number[] {
  const idx = xs.map((x, i) => i).sort((a, b) => xs[a] - xs[b]);
  const r = new Array<number>(xs.length);
  let i = 0;
  while (i < idx.length) {
    let j = i;
    while (j + 1 < idx.length && xs[idx[j + 1]] === xs[idx[i]]) j++;
    const mean = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) r[idx[k]] = mean;
    i = j + 1;
  }
  return r;
}

/** Spearman's rank correlation: Pearson's correlation of the ranks (ties: mean ranks). Null
 *  for fewer than 3 pairs or when either side is constant. */
export function spearman(a: number[], b: number[]): number | null {
  if (a.length !== b.length || a.length < 3) return null;
  const ra = ranks(a);
  const rb = ranks(b);
  const n = ra.length;
  const ma = ra.reduce((x, y) => x + y, 0) / n;
  const mb = rb.reduce((x, y) => x + y, 0) / n;
  let sab = 0, saa = 0, sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) ** 2;
    sbb += (rb[i] - mb) ** 2;
  }
  if (saa === 0 || sbb === 0) return null;
  return sab / Math.sqrt(saa * sbb);
}
