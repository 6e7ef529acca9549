// The `tile` command line: a thin shell over the core. Every command takes --json and --help.
// Exit codes: 0 ok, 1 understood but failed (e.g. rejected), 2 bad usage or invalid document.
import fs from "node:fs";
import path from "node:path";
import { Command, CommanderError, Option } from "commander";
import { packageRoot } from "./root";
import { EngineName, loadEngine } from "./engine";
import { EXIT_USAGE, UsageError, parseSizes } from "./io";
import { validateCommand } from "./commands/validate";
import { evalCommand } from "./commands/evaluate";
import { casesCommand } from "./commands/cases";
import { suiteCommand } from "./commands/suite";
import { planCommand } from "./commands/plan";
import { auditMslCommand, emitCommand } from "./commands/emit";
import { addPlanOptions, planOptionsFrom } from "./options";
import { runCommand } from "./commands/run";
import { deviceCommand, readDeviceArg } from "./commands/device";
import { InputRange, parseInputRange } from "./inputs";
import { benchCommand } from "./commands/bench";
import { BenchOverrides, parseMetrics } from "./bench/protocol";
import { RUNTIME_CHOICES } from "./native";
import { auditCommand } from "./commands/audit";
import { sweepCommand } from "./commands/sweep";
import { readTimeList, timeCommand } from "./commands/time";
import { calibrateCommand } from "./commands/calibrate";

/** The package's version, from its package.json (the core reports its own through "version"). */
function packageVersion(): string {
  try {
    return JSON.parse(fs.readFileSync(path.join(packageRoot(), "package.json"), "utf8")).version;
  } catch {
    return "unknown";
  }
}

const collect = (value: string, previous: string[]): string[] => previous.concat([value]);

function engineOption(): Option {
  return new Option("--engine <engine>", "core build to use").choices(["js", "wasm"]).default("wasm");
}

function sizeOption(): Option {
  return new Option("--size <K=V>", "override a size (repeatable)").argParser(collect).default([]);
}

/** Seeds feed a 32-bit generator (inputs.ts): larger values would silently alias. */
export const MAX_SEED = 4294967295;

function seedArg(v: string): number {
  if (!/^\d+$/.test(v) || Number(v) > MAX_SEED) throw new UsageError(`--seed expects an integer from 0 to ${MAX_SEED} (the input generator uses 32 bits), got "${v}"`);
  return Number(v);
}

function intArg(name: string) {
  return (v: string): number => {
    if (!/^\d+$/.test(v)) throw new UsageError(`${name} expects a non-negative integer, got "${v}"`);
    return Number(v);
  };
}

function msArg(v: string): number {
  if (!/^\d+(\.\d+)?$/.test(v) || !(Number(v) > 0)) throw new UsageError(`--batch-window-ms expects a positive number of milliseconds, got "${v}"`);
  return Number(v);
}

/** The timing options `tile sweep` and `tile time` share (bench's rule: batches calibrated by
 *  doubling until they fill the window; rounds in forward/backward pairs). */
function timingOptions(cmd: Command, what: "candidate" | "entry"): Command {
  return cmd
    .option("--rounds <n>", `rounds (even): every round times every ${what}`, intArg("--rounds"), 2)
    .option("--samples <n>", `samples per ${what} and round`, intArg("--samples"), 5)
    .option("--batch-window-ms <ms>", "a batch holds as many dispatches as fill this window (calibrated by doubling)", msArg, 2)
    .option("--max-batch <n>", "largest calibrated batch", intArg("--max-batch"), 1024)
    .option("--warmup <n>", `dispatches before each ${what}'s samples`, intArg("--warmup"), 3)
    .option("--seed <n>", "input seed (0 to 4294967295)", seedArg, 1);
}

function inputRangeArg(v: string): InputRange {
  const r = parseInputRange(v);
  if (!r) throw new UsageError(`--input-range expects LO,HI with LO < HI, both finite and within the f32 range (magnitude at most 3.4028235e38), got "${v}"`);
  return r;
}

export function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command("tile")
    .description("Tile: a portable planner and Metal emitter for GPU reductions")
    .exitOverride()
    .showHelpAfterError(false)
    .version(packageVersion(), "-V, --version", "print the version of tile and its core");

  program
    .command("validate")
    .alias("check")
    .description("read, validate and type-check Tile IR documents")
    .argument("<files...>")
    .addOption(sizeOption())
    .addOption(engineOption())
    .option("--json", "print JSON")
    .action(async (files: string[], o) => {
      setExit(validateCommand(await loadEngine(o.engine as EngineName), files, parseSizes(o.size), !!o.json));
    });

  program
    .command("eval")
    .description("run the FP64 oracle on deterministic inputs and summarise the outputs")
    .argument("<file>")
    .option("--seed <n>", "input seed (0 to 4294967295)", seedArg, 1)
    .option("--input-range <LO,HI>", "float inputs uniform on [LO, HI) (default -2,2; f16 and bf16 inputs rounded to their dtype), as tile run draws them", inputRangeArg)
    .addOption(new Option("--input <NAME=FILE>", "a buffer's initial contents from a NumPy .npy file, as tile run takes them (repeatable)").argParser(collect).default([]))
    .addOption(sizeOption())
    .addOption(engineOption())
    .option("--json", "print JSON")
    .action(async (file: string, o) => {
      setExit(evalCommand(await loadEngine(o.engine as EngineName), file, parseSizes(o.size), o.seed, !!o.json, o.inputRange, o.input));
    });

  program
    .command("cases")
    .description("list the built-in cases, or write them as canonical JSON files")
    .option("--write <dir>", "write each case to DIR/<name>.json")
    .addOption(engineOption())
    .option("--json", "print JSON")
    .action(async (o) => {
      setExit(casesCommand(await loadEngine(o.engine as EngineName), o.write, !!o.json));
    });

  addPlanOptions(
    program
      .command("plan")
      .description("prove which realizations are legal, solve the widths and score the candidates")
      .argument("<files...>"),
  )
    .option("--candidates", "list every candidate the solver scored")
    .option("--json", "print JSON (one object per document; an array for several files)")
    .action(async (files: string[], o) => {
      setExit(planCommand(await loadEngine(o.engine as EngineName), files, planOptionsFrom(o), !!o.json));
    });

  addPlanOptions(
    program
      .command("emit")
      .description("plan a document and print (or write) its Metal Shading Language, or a Python module that runs it from MLX or PyTorch")
      .argument("<file>"),
  )
    .addOption(new Option("--target <target>", "metal: the MSL; mlx: a module for mx.fast.metal_kernel; torch-mps: a module for torch.mps.compile_shader").choices(["metal", "mlx", "torch-mps"]).default("metal"))
    .option("-o, --out <file>", "write the MSL (or the module) to a file")
    .option("--candidates", "include every scored candidate in the --json plan")
    .option("--json", "print {plan, msl, audit, target, python}")
    .action(async (file: string, o) => {
      setExit(emitCommand(await loadEngine(o.engine as EngineName), file, { ...planOptionsFrom(o), target: o.target }, o.out, !!o.json));
    });

  addPlanOptions(
    program
      .command("run")
      .description("plan, emit, compile and run a document's MSL, then validate it against the FP64 oracle")
      .argument("<file>"),
  )
    .addOption(new Option("--runtime <runtime>", "metal, cuda or host (default auto: Metal where present, else CUDA, else host)").choices([...RUNTIME_CHOICES]).default("auto"))
    .option("--seed <n>", "input seed (0 to 4294967295)", seedArg, 1)
    .addOption(new Option("--input <NAME=FILE>", "a buffer's initial contents from a NumPy .npy file (dtype and shape must match; repeatable)").argParser(collect).default([]))
    .option("--dump <dir>", "write every buffer's initial and final contents as .npy files plus manifest.json (inputs, outputs, updated in place)")
    .option("--no-detect", "host runtime: turn off the race and bounds detector (for timing; on by default)")
    .option("--input-range <LO,HI>", "float inputs uniform on [LO, HI) (default -2,2; f16 and bf16 inputs rounded to their dtype)", inputRangeArg)
    .option("--json", "print JSON")
    .action(async (file: string, o) => {
      setExit(runCommand(await loadEngine(o.engine as EngineName), file, planOptionsFrom(o), o.runtime, o.seed, o.dump, !!o.json, o.input, o.detect !== false, o.inputRange));
    });

  program
    .command("audit-msl")
    .description("audit MSL text: barrier count and placement, uniform collectives, predicated replay stores, no double")
    .argument("<file>")
    .option("--realization <name>", "cooperative-reduction, fused-elementwise or serial-program (default: from the header comment)")
    .option("--barriers <n>", "expected threadgroup_barrier count (default: from the header comment)", intArg("--barriers"))
    .addOption(engineOption())
    .option("--json", "print JSON")
    .action(async (file: string, o) => {
      setExit(auditMslCommand(await loadEngine(o.engine as EngineName), file, o.realization, o.barriers, !!o.json));
    });

  program
    .command("device")
    .description("print the device description the planner uses, document every field, list the presets (devices/*.json)")
    .option("--device <file|preset>", "show this description (merged over the default) instead of the default")
    .addOption(engineOption())
    .option("--json", "print JSON")
    .action(async (o) => {
      setExit(deviceCommand(await loadEngine(o.engine as EngineName), o.device ? readDeviceArg(o.device) : undefined, o.device, !!o.json));
    });

  program
    .command("suite")
    .description("the main job (npm start): built-in cases and the validation matrix, planned, emitted, run and validated")
    .option("--seed <n>", "input seed (0 to 4294967295)", seedArg, 1)
    .option("--full", "include the 4096x4096 element cases")
    .addOption(new Option("--runtime <runtime>", "metal, cuda or host (default auto: Metal where present, else CUDA, else host)").choices([...RUNTIME_CHOICES]).default("auto"))
    .option("--filter <text>", "only rows whose id contains TEXT")
    .option("--no-detect", "host runtime: turn off the race and bounds detector (for timing; on by default)")
    .option("--json", "print JSON")
    .action(async (o) => {
      setExit(await suiteCommand(o.seed, !!o.json, !!o.full, o.runtime, o.filter, o.detect !== false));
    });

  program
    .command("bench")
    .description("paired, counterbalanced benchmark of two plan variants over a protocol's cases; writes results.json and results.md")
    .argument("<protocol>", "protocol JSON (bench/protocols/*.json); its cases are built-in case names or paths to Tile IR documents")
    .addOption(new Option("--runtime <runtime>", "metal, cuda or host (default auto: Metal where present, else CUDA, else host)").choices([...RUNTIME_CHOICES]).default("auto"))
    .option("-o, --out <dir>", "output folder (default: bench/results/<protocol>-<runtime>-<time>)")
    .option("--rounds <n>", "override the protocol's rounds (even; recorded in results.json, applied by the audit)", intArg("--rounds"))
    .option("--samples <n>", "override the samples per phase", intArg("--samples"))
    .option("--batch-window-ms <ms>", "override the batch window in milliseconds", msArg)
    .option("--warmup <n>", "override the warm-up dispatches", intArg("--warmup"))
    .option("--max-batch <n>", "override the largest calibrated batch", intArg("--max-batch"))
    .option("--metrics <list>", "override the metrics, e.g. gpuBatch,gpuSingle (the host phases then do not run)", parseMetrics)
    .option("--json", "print {ok, dir, results, markdown} as JSON")
    .action(async (protocol: string, o, cmd: Command) => {
      const argv: string[] = (cmd.parent as any)?.rawArgs ?? ["bench", protocol];
      const overrides: BenchOverrides = { rounds: o.rounds, samples: o.samples, batchWindowMs: o.batchWindowMs, warmup: o.warmup, maxBatch: o.maxBatch, metrics: o.metrics };
      setExit(await benchCommand(protocol, o.runtime, o.out, argv, !!o.json, overrides));
    });

  timingOptions(
    program
      .command("sweep")
      .description("time every admissible candidate the solver scores for one case and shape; report whether the model's pick is the measured best, its regret and the rank correlation (sweep.json, sweep.md)")
      .argument("<case>", "a built-in case name or a Tile IR document")
      .addOption(sizeOption())
      .addOption(new Option("--runtime <runtime>", "metal, cuda or host (default auto: Metal where present, else CUDA, else host)").choices([...RUNTIME_CHOICES]).default("auto"))
      .option("--device <file|preset>", "device description of the predictions (see tile device; default: Apple M1 Max)")
      .option("--max-candidates <n>", "time at most N candidates (the model's pick always; the rest spread over the predicted ranking; 0 = all)", intArg("--max-candidates"), 40),
    "candidate",
  )
    .option("-o, --out <dir>", "output folder (default: bench/results/sweep-<case>-<sizes>-<runtime>-<time>)")
    .option("--json", "print {ok, dir, json, markdown, summary} as JSON")
    .action(async (kase: string, o, cmd: Command) => {
      const argv: string[] = (cmd.parent as any)?.rawArgs ?? ["sweep", kase];
      const settings = { rounds: o.rounds, samples: o.samples, batchWindowMs: o.batchWindowMs, maxBatch: o.maxBatch, warmup: o.warmup, seed: o.seed };
      setExit(await sweepCommand(await loadEngine("wasm"), kase, { sizes: parseSizes(o.size), runtime: o.runtime, out: o.out, device: o.device, maxCandidates: o.maxCandidates, settings, json: !!o.json }, argv));
    });

  timingOptions(
    addPlanOptions(
      program
        .command("time")
        .description("validated GPU times of plans (one case with plan options, or a tile-time-list/1 file, whose entries take the plan options given here under their own); JSON for comparisons outside Node")
        .argument("<case-or-list>", "a built-in case, a Tile IR document, or a tile-time-list/1 JSON file"),
    )
      .addOption(new Option("--runtime <runtime>", "metal, cuda or host (default auto: Metal where present, else CUDA, else host)").choices([...RUNTIME_CHOICES]).default("auto")),
    "entry",
  )
    .option("-o, --out <file>", "write the tile-times/1 JSON here")
    .option("--json", "print the tile-times/1 JSON")
    .action(async (arg: string, o, cmd: Command) => {
      const argv: string[] = (cmd.parent as any)?.rawArgs ?? ["time", arg];
      const settings = { rounds: o.rounds, samples: o.samples, batchWindowMs: o.batchWindowMs, maxBatch: o.maxBatch, warmup: o.warmup, seed: o.seed };
      let list = readTimeList(arg);
      const p = planOptionsFrom(o);
      const { sizes, cacheInput, fuse, ...rest } = p;
      const options: Record<string, unknown> = { ...rest };
      if (!cacheInput) options.cacheInput = false;
      if (!fuse) options.fuse = false;
      if (list === null) list = [{ id: arg, case: arg, sizes, options }];
      // a list: the plan options given here (--device among them) apply to every entry, and an
      // entry's own sizes and options take precedence over them
      else list = list.map((e) => ({ ...e, sizes: { ...sizes, ...e.sizes }, options: { ...options, ...e.options } }));
      setExit(await timeCommand(await loadEngine(o.engine as EngineName), list, o.runtime, settings, o.out, !!o.json, argv));
    });

  program
    .command("calibrate")
    .description("fit the cost model's coefficients to sweeps (tile sweep folders), regularised toward the base record by as much as leaving one size (R x C) out at a time shows best, report that fit, write a device record that --device reads")
    .argument("<sweeps...>", "folders written by tile sweep (or their sweep.json)")
    .requiredOption("-o, --out <file>", "the calibrated device record to write (the report goes beside it: <file>.calibration.md/.json)")
    .option("--device <file|preset>", "base device record, the fit's prior (default: the one the sweeps recorded)")
    .option("--report <stem>", "write the report as STEM.calibration.md/.json (default: beside the record)")
    .addOption(engineOption())
    .option("--json", "print a JSON summary instead of the report")
    .option("--allow-host-times", "fit sweeps the host runtime timed (CPU wall clock, not GPU times; the record says so)")
    .action(async (dirs: string[], o, cmd: Command) => {
      const argv: string[] = (cmd.parent as any)?.rawArgs ?? ["calibrate", ...dirs];
      setExit(calibrateCommand(await loadEngine(o.engine as EngineName), dirs, o.out, o.device, !!o.json, argv, o.report, !!o.allowHostTimes));
    });

  program
    .command("audit")
    .description("independent audit of bench results: recompute every figure from the raw samples; print a receipt (exit 1 on any finding)")
    .argument("<results>", "results.json (or the folder holding it)")
    .option("--root <dir>", "repository whose artifacts the fingerprints must match (default: the one recorded)")
    .option("--json", "print the receipt as JSON (the receipt is always JSON; accepted for uniformity)")
    .action((results: string, o) => {
      setExit(auditCommand(results, o.root));
    });

  return program;
}

/** Runs the CLI and returns the exit code (never throws for user errors). */
export async function main(argv: string[]): Promise<number> {
  let code = 0;
  const program = buildProgram((c) => (code = c));
  if (argv.length === 0) {
    process.stderr.write(program.helpInformation());
    return EXIT_USAGE;
  }
  // with --json, a usage error is also one JSON object on stdout (the message stays on stderr), so
  // a caller that parses stdout never reads an empty answer
  const end = argv.indexOf("--");
  const json = (end < 0 ? argv : argv.slice(0, end)).includes("--json");
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.code === "commander.help") return 0;
      if (json) writeJsonError(EXIT_USAGE, err.message.replace(/^error: /, ""), err.code);
      return EXIT_USAGE;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`tile: ${err.message}\n`);
      if (json) writeJsonError(EXIT_USAGE, err.message, "usage");
      return EXIT_USAGE;
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`tile: internal error: ${message}\n`);
    if (json) writeJsonError(3, message, "internal");
    return 3;
  }
  return code;
}

/** `{"ok": false, "exit": N, "error": {"code", "message"}}` on stdout: `code` is a diagnostic's code
 *  where the message carries one (`error TSH001 (unreadable-file): ...`, then also its `id`, as
 *  every diagnostic object has it), else commander's code (`commander.unknownOption`, ...),
 *  "usage" or "internal". */
function writeJsonError(exit: number, message: string, fallback: string): void {
  const m = /^error (T[A-Z]+\d+) \(([a-z0-9-]+)\): ([\s\S]*)$/.exec(message.trim());
  const error = m ? { code: m[1], id: m[2], message: m[3] } : { code: fallback, message: message.trim() };
  process.stdout.write(JSON.stringify({ ok: false, exit, error }, null, 2) + "\n");
}
export { loadEngine, wasmPath } from "./engine";
export { openRuntime } from "./native";
export { loadMatrix, builtinEntries } from "./matrix";
export { makeInputs } from "./inputs";
export { evaluate } from "./oracle";
