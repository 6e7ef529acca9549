// tile time CASE [--size K=V ...] [plan options] | tile time LIST.json : validated GPU times of
// chosen plans, for comparisons made outside Node (bench/torch-side-by-side.py runs it as a
// subprocess). A list is {"format": "tile-time-list/1", "entries": [{"id", "case", "sizes",
// "options"}]} with cases as built-in names or document paths (relative to the list file).
// Every entry is validated against the FP64 oracle and timed by bench/timing.ts (the GPU batch
// metric on a GPU runtime; on the host runtime the wall clock, marked as not GPU times).
// Writes {"format": "tile-times/1", ...} to -o FILE (or stdout with --json). Exit 0 when every
// entry validated and was timed, 1 otherwise, 2 for bad usage.
import fs from "node:fs";
import path from "node:path";
import { Engine } from "../engine";
import { checkOutputFile, EXIT_FAILED, EXIT_OK, openOrUsage, printJson, stripBom, UsageError, writeOutput } from "../io";
import { openRuntime, RuntimeKind } from "../native";
import { timeEntries, TimingEntry, TimingSettings } from "../bench/timing";
import { caseText } from "./sweep";
import { layoutSuffix } from "../layout";

export const TIME_LIST_FORMAT = "tile-time-list/1";
export const TIMES_FORMAT = "tile-times/1";

interface ListEntry {
  id: string;
  case: string;
  sizes: Record<string, number>;
  options: Record<string, unknown>;
}

/** Reads a time list, or null when `arg` is not one (then it is a case). */
export function readTimeList(arg: string): ListEntry[] | null {
  if (!arg.endsWith(".json") || !fs.existsSync(arg)) return null;
  let parsed: any;
  try {
    parsed = JSON.parse(stripBom(fs.readFileSync(arg, "utf8")));
  } catch {
    return null;
  }
  if (parsed?.format !== TIME_LIST_FORMAT) return null;
  if (!Array.isArray(parsed.entries) || parsed.entries.length === 0) throw new UsageError(`${arg}: "entries" must be a non-empty list`);
  const base = path.dirname(path.resolve(arg));
  return parsed.entries.map((e: any, i: number) => {
    if (!e || typeof e.case !== "string") throw new UsageError(`${arg}: entries[${i}].case must be a built-in case or a document path`);
    const sizes = e.sizes ?? {};
    for (const [k, v] of Object.entries(sizes)) if (!Number.isInteger(v) || (v as number) < 1) throw new UsageError(`${arg}: entries[${i}].sizes.${k} must be a positive integer`);
    const options = e.options ?? {};
    if (typeof options !== "object" || Array.isArray(options)) throw new UsageError(`${arg}: entries[${i}].options must be an object of plan options`);
    const kase = fs.existsSync(path.resolve(base, e.case)) && e.case.endsWith(".json") ? path.resolve(base, e.case) : e.case;
    return { id: typeof e.id === "string" ? e.id : `${e.case} ${JSON.stringify(sizes)} ${JSON.stringify(options)}`, case: kase, sizes, options };
  });
}

function mappingText(plan: any): string {
  const m = plan?.mapping ?? {};
  if (!plan) return "";
  if (plan.realization === "cooperative-reduction") return `P=${m.P} S=${m.S} T=${m.T} V=${m.V} U=${m.U}${m.cached ? " cached" : ""}${layoutSuffix(m)}`;
  if (plan.realization === "fused-elementwise") return `block=${m.block} V=${m.V}${m.U > 1 ? ` U=${m.U}` : ""}${m.rowsPerGroup > 1 ? ` (${m.rowsPerGroup} rows of ${m.rowThreads} threads)` : ""}`;
  return `${plan.realization} T=${m.T}`;
}

export async function timeCommand(engine: Engine, list: ListEntry[], runtimeKind: RuntimeKind | "auto", settings: TimingSettings, out: string | undefined, json: boolean, argv: string[]): Promise<number> {
  if (settings.rounds % 2 !== 0 || settings.rounds < 2) throw new UsageError(`--rounds must be even and at least 2, got ${settings.rounds}`);
  const entries: TimingEntry[] = list.map((e) => {
    const { text } = caseText(engine, e.case);
    return { id: e.id, text, sizes: e.sizes, options: e.options };
  });
  const ids = entries.map((e) => e.id);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup) throw new UsageError(`the id "${dup}" is listed twice`);
  if (out) checkOutputFile(out); // before the timing, which a path that cannot be written would waste
  const runtime = openOrUsage(() => openRuntime(runtimeKind));
  runtime.setDetector(false);
  const info = { kind: runtime.kind, deviceName: runtime.deviceName, timesAreGpu: runtime.timesAreGpu };
  let t;
  try {
    t = timeEntries(engine, runtime, entries, settings);
  } finally {
    runtime.close();
  }
  const result = {
    format: TIMES_FORMAT,
    createdAt: new Date().toISOString(),
    command: ["tile", ...argv].join(" "),
    runtime: info,
    metric: t.metric,
    timesAreGpu: t.timesAreGpu,
    settings,
    order: t.order,
    entries: t.entries.map((e, i) => ({
      id: e.id, case: list[i].case, sizes: list[i].sizes, options: list[i].options,
      realization: e.plan?.realization ?? null, mapping: mappingText(e.plan), predicted: e.plan?.cost?.total ?? null,
      validated: e.validation?.passed === true, maxAbsError: e.validation?.maxAbsError ?? null, error: e.error, timed: e.timed,
      medianUs: e.medianUs, roundMedians: e.roundMedians, dispatchesPerSample: e.dispatchesPerSample, samples: e.samples,
      pipelineMaxThreads: e.pipelineMaxThreads, registerLimit: e.registerLimit, replanned: e.replanned, mslSha256: e.mslSha256,
    })),
  };
  const text = JSON.stringify(result, null, 1) + "\n";
  if (out) writeOutput(out, text);
  if (json || !out) process.stdout.write(text);
  else for (const e of result.entries) process.stdout.write(`${e.id}: ${e.timed ? `${e.medianUs!.toFixed(2)} µs (${t.metric}${t.timesAreGpu ? "" : ", host wall clock, not a GPU time"})` : `not timed: ${e.error}`} ${e.mapping}\n`);
  const ok = result.entries.every((e) => e.timed);
  if (!ok) process.stderr.write("tile time: some entries were not validated or not timed\n");
  return ok ? EXIT_OK : EXIT_FAILED;
}
