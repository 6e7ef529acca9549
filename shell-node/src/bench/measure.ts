// One run: a case and a variant in one round. Plan, emit and validate (runAndValidate), then
// recompile the validated MSL and time it in four separate phases:
//   gpuBatch   one call of `batch` dispatches in one command buffer; GPU start/end timestamps
//   gpuSingle  one dispatch per call; GPU start/end timestamps
//   hostBatch  the same batch call, timed by the wall clock around dispatch() (no timestamps read)
//   hostSingle one dispatch per call, wall clock around dispatch() (no timestamps read)
// On a runtime without GPU timestamps (host) the GPU phases are not run: null with a reason.
import { Engine } from "../engine";
import { Runtime, registerLimitFor } from "../native";
import { makeInputs, shapeOf } from "../inputs";
import { runAndValidate } from "../validate-run";
import { sha256 } from "./fingerprint";
import { Metric, Protocol, Variant } from "./protocol";
import { Calibration, Compile, Run, Validation } from "./results";

export interface RunContext {
  engine: Engine;
  runtime: Runtime;
  protocol: Protocol;
  /** MSL text by sha256, plans by sha256 of their JSON: filled as runs emit. */
  sources: Record<string, string>;
  plans: Record<string, unknown>;
  /** FP64 references by case (validate-run.ts): computed once per case, not once per run. */
  oracleCache?: Map<string, any>;
}

export interface CaseText {
  id: string;
  text: string;
  sizes: Record<string, number>;
}

export type Dispatch = (repeat: number) => void;

const GPU_METRICS: Metric[] = ["gpuBatch", "gpuSingle"];

export function nowUs(): number {
  return Number(process.hrtime.bigint()) / 1000;
}

function emptyRecord<T>(value: T): Record<Metric, T> {
  return { gpuBatch: value, gpuSingle: value, hostBatch: value, hostSingle: value };
}

/** The plan fields named by the variant's `expect` that the plan does not show. */
function expectMismatches(plan: any, expect: Record<string, unknown> | undefined): string[] {
  if (!expect) return [];
  const m = plan?.mapping ?? {};
  return Object.keys(expect).filter((k) => m[k] !== expect[k] && plan?.[k] !== expect[k]);
}

export function measureRun(ctx: RunContext, round: number, seq: number, c: CaseText, key: "A" | "B"): Run {
  const { engine, runtime, protocol } = ctx;
  const variant: Variant = protocol.variants[key];
  const options = { ...variant.options, sizes: c.sizes };
  const run: Run = {
    round, seq, case: c.id, variant: key, planSha256: "", mslSha256: "", planMatchesExpect: false, replanned: null,
    compile: null, validation: { passed: false, error: null, guards: "not checked", maxAbsError: 0, maxRelError: 0, outputs: [], planSha256: null, mslSha256: null, compilerInvocations: 0 },
    timed: false, error: null, warmup: protocol.warmup, calibration: null,
    samples: emptyRecord<number[] | null>(null), dispatchesPerSample: emptyRecord<number | null>(null), unavailable: {},
  };
  for (const m of protocol.metrics) {
    if (GPU_METRICS.includes(m) && !runtime.timesAreGpu) run.unavailable[m] = `${runtime.kind} runtime: no GPU timestamps (times would be CPU wall clock)`;
  }

  // 1. plan, emit, compile, three dispatches, FP64 oracle, guards. runAndValidate plans and emits
  // afresh; when the pipeline's real thread limit forces its one re-plan, the plan and MSL it
  // returns are the re-planned, validated ones, and those are what is recorded and timed.
  const before = runtime.compilerInvocations();
  const v = runAndValidate({ engine, runtime, text: c.text, options, seed: protocol.seed, oracleCache: ctx.oracleCache });
  run.validation = validationOf(v, runtime.compilerInvocations() - before);
  run.replanned = v.replanned ?? null;
  if (v.msl !== undefined) {
    // planned and emitted: record what was (or would have been) validated
    run.planSha256 = sha256(JSON.stringify(v.plan));
    run.mslSha256 = sha256(v.msl);
    ctx.plans[run.planSha256] = v.plan;
    ctx.sources[run.mslSha256] = v.msl;
    run.planMatchesExpect = expectMismatches(v.plan, variant.expect).length === 0;
  }
  if (!v.passed) {
    run.error = v.msl === undefined ? (v.error ?? "not planned") : "validation failed: " + (v.error ?? v.guards);
    return run;
  }

  // 2. recompile the validated MSL for timing, then the phases
  const invocations = runtime.compilerInvocations();
  const t0 = nowUs();
  const lib = runtime.compile(v.msl!, registerLimitFor(runtime.kind, v.plan));
  const compileUs = nowUs() - t0;
  const ran = runtime.compilerInvocations() - invocations;
  run.compile = { ms: compileUs / 1000, compilerInvocations: ran, cacheHit: runtime.kind === "host" && ran === 0 } satisfies Compile;
  const plan = v.plan;
  const pipe = runtime.pipeline(lib, plan.kernel);
  const buffers = allocate(runtime, c.text, plan, engine, c.sizes, protocol.seed);
  try {
    const dispatch: Dispatch = (repeat) =>
      runtime.dispatch(pipe, buffers, plan.dispatch.threadgroupBytes, [plan.dispatch.groups, 1, 1], [plan.dispatch.threads, 1, 1], repeat);
    timePhases(run, ctx, dispatch);
    run.timed = true;
  } catch (err) {
    run.error = "timing failed: " + (err instanceof Error ? err.message : String(err));
  } finally {
    for (const b of buffers) runtime.freeBuffer(b);
    runtime.freePipeline(pipe);
    runtime.freeLibrary(lib);
  }
  return run;
}

export function validationOf(v: ReturnType<typeof runAndValidate>, invocations: number): Validation {
  return {
    passed: v.passed,
    error: v.error ?? null,
    guards: v.guards,
    maxAbsError: Math.max(0, ...v.outputs.map((o) => o.maxAbsError)),
    maxRelError: Math.max(0, ...v.outputs.map((o) => o.maxRelError)),
    outputs: v.outputs.map((o) => ({ name: o.name, elements: o.elements, written: o.written, mismatches: o.mismatches, maxAbsError: o.maxAbsError, maxRelError: o.maxRelError })),
    planSha256: v.plan ? sha256(JSON.stringify(v.plan)) : null,
    mslSha256: v.msl === undefined ? null : sha256(v.msl),
    compilerInvocations: invocations,
  };
}

/** The plan's buffers, filled with the same deterministic inputs the validation used. */
function allocate(runtime: Runtime, text: string, plan: any, engine: Engine, sizes: Record<string, number>, seed: number) {
  const canonical = engine.call({ command: "canonical", document: text, options: { sizes } });
  const doc = JSON.parse(canonical.text);
  const inputs = makeInputs(doc, seed);
  const out = [];
  for (const b of plan.bindings.filter((x: any) => x.kind === "buffer").sort((x: any, y: any) => x.index - y.index)) {
    const param = doc.params.find((p: any) => p.name === b.name);
    const n = shapeOf(doc, b.name).reduce((a: number, x: number) => a * x, 1);
    const src = inputs.get(b.name)!;
    const data = param.dtype === "f32" ? Float32Array.from(src as ArrayLike<number>) : Int32Array.from(src as ArrayLike<number>);
    const buf = runtime.buffer(Math.max(4, n * 4));
    runtime.write(buf, data);
    out.push(buf);
  }
  return out;
}

export function gpuUs(runtime: Runtime): number {
  const t = runtime.lastTimes();
  if (!t.gpu) throw new Error("the runtime reported non-GPU times in a GPU phase");
  return (t.end - t.start) * 1e6;
}

export function wallUs(dispatch: Dispatch, repeat: number): number {
  const t0 = nowUs();
  dispatch(repeat);
  return nowUs() - t0;
}

/** Doubles `repeat` until a call fills the window (or reaches maxBatch): the documented rule of
 *  `tile bench` (bench/README.md), also used by `tile sweep` and `tile time`. */
export function calibrateBatch(runtime: Runtime, dispatch: Dispatch, window: { batchWindowMs: number; maxBatch: number }, clock: "gpu" | "wall"): Calibration {
  const windowUs = window.batchWindowMs * 1000;
  const trials: { repeat: number; us: number }[] = [];
  let repeat = 1;
  for (;;) {
    // two calls per doubling, the faster counts: one slow outlier must not end the doubling early
    const once = (): number => (clock === "gpu" ? (dispatch(repeat), gpuUs(runtime)) : wallUs(dispatch, repeat));
    const us = Math.min(once(), once());
    trials.push({ repeat, us });
    if (us >= windowUs || repeat >= window.maxBatch) break;
    repeat = Math.min(repeat * 2, window.maxBatch);
  }
  return { windowMs: window.batchWindowMs, clock, trials, batch: repeat };
}

function timePhases(run: Run, ctx: RunContext, dispatch: Dispatch): void {
  const { protocol, runtime } = ctx;
  const gpu = runtime.timesAreGpu;
  for (let i = 0; i < protocol.warmup; i++) dispatch(1);
  const wants = (m: Metric): boolean => protocol.metrics.includes(m) && run.unavailable[m] === undefined;
  const needsBatch = wants("gpuBatch") || wants("hostBatch");
  const cal = needsBatch ? calibrateBatch(runtime, dispatch, ctx.protocol, gpu && wants("gpuBatch") ? "gpu" : "wall") : null;
  run.calibration = cal;
  const phase = (m: Metric, repeat: number, take: () => number): void => {
    if (!wants(m)) return;
    const s: number[] = [];
    for (let i = 0; i < protocol.samples; i++) s.push(take());
    run.samples[m] = s;
    run.dispatchesPerSample[m] = repeat;
  };
  const batch = cal ? cal.batch : 1;
  phase("gpuBatch", batch, () => (dispatch(batch), gpuUs(runtime)));
  phase("gpuSingle", 1, () => (dispatch(1), gpuUs(runtime)));
  phase("hostBatch", batch, () => wallUs(dispatch, batch));
  phase("hostSingle", 1, () => wallUs(dispatch, 1));
}
