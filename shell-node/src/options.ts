// Plan options: the CLI flags, declared once, and their mapping to the core's request options
// (core/options.ts reads the same keys).
import { Command, Option } from "commander";
import { UsageError, parseSizes } from "./io";
import { readDeviceArg } from "./commands/device";

const collect = (value: string, previous: string[]): string[] => previous.concat([value]);

function nonNegative(flag: string) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) > 2147483647) throw new UsageError(`${flag} expects a non-negative integer, got "${v}"`);
    return Number(v);
  };
}

/** Adds the plan options shared by plan, emit, run and bench. */
export function addPlanOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option("--size <K=V>", "override a size (repeatable)").argParser(collect).default([]))
    .addOption(new Option("--programs-per-group <P>", "programs per threadgroup (0 = automatic family)").argParser(nonNegative("--programs-per-group")))
    .addOption(new Option("--threads <T>", "exact threads per threadgroup (0 = solver)").argParser(nonNegative("--threads")))
    .addOption(new Option("--vector <V>", "vector width of a worker's stripe or an element grid's thread (1, 4, 8; 0 = solver)").argParser(nonNegative("--vector")))
    .addOption(new Option("--unroll <U>", "unroll of the stripe loop (element grid: chunks of V columns per thread; 0 = solver)").argParser(nonNegative("--unroll")))
    .addOption(new Option("--layout <layout>", "cooperative layout: workers of a program on neighbouring threads, or neighbouring programs (default: the solver scores both)").choices(["workers-on-lanes", "programs-on-lanes"]))
    .option("--no-cache-input", "read inputs uncached (no register stripes)")
    .addOption(new Option("--max-threads <N>", "cap on threads per group below the device limit").argParser(nonNegative("--max-threads")))
    .option("--no-fuse", "do not fuse multi-output element graphs, nor sibling reduces into one pass")
    .option("--no-serial", "fail (exit 1, TPL010) instead of falling back to the serial program")
    .option("--device <file|preset>", "device description JSON, or a preset name from devices/ (see tile device; default: Apple M1 Max)")
    .addOption(new Option("--engine <engine>", "core build to use").choices(["js", "wasm"]).default("wasm"));
}

export interface PlanOptions {
  sizes: Record<string, number>;
  programsPerGroup?: number;
  threads?: number;
  vector?: number;
  unroll?: number;
  layout?: string;
  cacheInput: boolean;
  maxThreads?: number;
  fuse: boolean;
  serial?: boolean;
  candidates?: boolean;
  device?: unknown;
  /** emit only: metal, mlx or torch-mps. */
  target?: string;
}

/** Commander's parsed flags -> the core's options object. */
export function planOptionsFrom(o: any): PlanOptions {
  const out: PlanOptions = { sizes: parseSizes(o.size), cacheInput: o.cacheInput !== false, fuse: o.fuse !== false };
  if (o.programsPerGroup !== undefined) out.programsPerGroup = o.programsPerGroup;
  if (o.threads !== undefined) out.threads = o.threads;
  if (o.vector !== undefined) out.vector = o.vector;
  if (o.unroll !== undefined) out.unroll = o.unroll;
  if (o.layout !== undefined) out.layout = o.layout;
  if (o.maxThreads !== undefined) out.maxThreads = o.maxThreads;
  if (o.candidates) out.candidates = true;
  if (o.serial === false) out.serial = false;
  if (o.device) out.device = readDeviceArg(o.device);
  return out;
}
