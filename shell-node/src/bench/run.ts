// `tile bench`: a paired, counterbalanced replay of two plan variants over a protocol's cases.
// The whole benchmark, stage by stage:
//   read the protocol → open the runtime → fingerprint the artifacts →
//   rounds (rotate cases and variant order; per run: re-plan, re-emit, validate, recompile, time) →
//   summarize (paired medians of per-round ratios, min–max ranges) → write results.json + results.md
import cliProgress from "cli-progress";
import fs from "node:fs";
import path from "node:path";
import { loadEngine } from "../engine";
import { ensureDir, openOrUsage, UsageError, writeOutput } from "../io";
import { openRuntime, repoRoot, RuntimeKind } from "../native";
import { artifactFingerprints, fingerprint, machine, sha256 } from "./fingerprint";
import { measureRun, RunContext, CaseText } from "./measure";
import { applyOverrides, BenchOverrides, caseId, readProtocol } from "./protocol";
import { renderMarkdown, runtimeCaveats } from "./report";
import { RESULTS_FORMAT, Round } from "./results";
import { other, roundSchedule } from "./schedule";
import { summarize } from "./summary";

export interface BenchRequest {
  protocolFile: string;
  runtime: RuntimeKind | "auto";
  outDir: string;
  /** The exact command as typed (recorded verbatim). */
  argv: string[];
  /** Show a progress bar (default: when stderr is a terminal). */
  progress?: boolean;
  /** Protocol settings overridden from the command line (recorded in results.json). */
  overrides?: BenchOverrides;
}

export interface BenchOutcome {
  ok: boolean;
  dir: string;
  resultsFile: string;
  markdownFile: string;
  results: any;
}

export async function runBench(req: BenchRequest): Promise<BenchOutcome> {
  // 1. the protocol, checked before anything is timed
  const engine = await loadEngine("wasm");
  const builtins: { name: string; text: string }[] = engine.call({ command: "cases" }).cases;
  const { text: protocolText, protocol: asWritten } = readProtocol(req.protocolFile, builtins.map((c) => c.name));
  // overrides bound a run (fewer rounds, samples, a shorter window); the protocol text is kept as
  // written and the overrides are recorded beside it, so the audit applies the same ones
  const overrides: BenchOverrides = {};
  for (const [k, v] of Object.entries(req.overrides ?? {})) if (v !== undefined) (overrides as any)[k] = v;
  const protocol = applyOverrides(asWritten, overrides);
  // a case is a built-in case's canonical text, or a document file's text as written
  const cases: CaseText[] = protocol.cases.map((c) => ({ id: caseId(c), text: c.file ? fs.readFileSync(c.file, "utf8") : builtins.find((b) => b.name === c.case)!.text, sizes: c.sizes }));

  // 2. the runtime and the artifacts it and the core come from
  const runtime = openOrUsage(() => openRuntime(req.runtime));
  // timing: the host runtime's race and bounds detector instruments every access; the bench
  // times uninstrumented kernels (validation still checks every output and guard)
  runtime.setDetector(false);
  const root = repoRoot();
  const timesAreGpu = runtime.timesAreGpu;
  const gpuReason = timesAreGpu ? undefined : `${runtime.kind} runtime: no GPU timestamps; GPU metrics are not recorded (never filled with host times)`;
  // a run none of whose metrics this runtime can measure would time nothing (red team s15)
  if (!timesAreGpu && protocol.metrics.every((m) => m === "gpuBatch" || m === "gpuSingle")) {
    runtime.close();
    throw new UsageError(`the protocol's metrics (${protocol.metrics.join(", ")}) are GPU timestamps, which the ${runtime.kind} runtime does not have: nothing would be timed; run on a GPU runtime (--runtime metal or cuda) or add hostBatch / hostSingle to --metrics`);
  }
  // the output folder before the runs: a path that cannot be written fails now, not after them
  try {
    ensureDir(req.outDir);
  } catch (err) {
    runtime.close();
    throw err;
  }
  const artifacts = artifactFingerprints(root, runtime.libraryPath);
  const ctx: RunContext = { engine, runtime, protocol, sources: {}, plans: {}, oracleCache: new Map() };
  const total = protocol.rounds * cases.length * 2;
  const bar = (req.progress ?? process.stderr.isTTY) ? new cliProgress.SingleBar({ stream: process.stderr, format: "bench [{bar}] {value}/{total} {run}", hideCursor: true }, cliProgress.Presets.shades_classic) : null;
  bar?.start(total, 0, { run: "" });

  // 3. the rounds: rotate the starting case, alternate which variant goes first
  const rounds: Round[] = [];
  try {
    for (let r = 0; r < protocol.rounds; r++) {
      const round: Round = { index: r, caseOrder: [], first: {}, order: [], artifacts: artifactFingerprints(root, runtime.libraryPath), runs: [] };
      for (const slot of roundSchedule(r, cases.length)) {
        const c = cases[slot.case];
        round.caseOrder.push(c.id);
        round.first[c.id] = slot.first;
        for (const v of [slot.first, other(slot.first)]) {
          bar?.update(r * cases.length * 2 + round.order.length, { run: `round ${r} ${c.id} ${v}` });
          round.order.push({ case: c.id, variant: v });
          round.runs.push(measureRun(ctx, r, round.runs.length, c, v));
        }
      }
      rounds.push(round);
    }
  } finally {
    bar?.update(total, { run: "" });
    bar?.stop();
    runtime.close();
  }

  // 4. the paired summary and the two files
  const summary = summarize(protocol, rounds, gpuReason);
  const protocolAbs = path.resolve(req.protocolFile);
  const protocolRel = path.relative(root, protocolAbs);
  const commandLine = ["tile", ...req.argv].join(" ");
  const m = machine();
  const runtimeInfo = { requested: req.runtime, kind: runtime.kind, deviceName: runtime.deviceName, timesAreGpu, library: fingerprint(root, path.relative(root, runtime.libraryPath)) };
  const caveats = [...runtimeCaveats(runtime.kind, timesAreGpu), ...protocol.caveats];
  const allRuns = rounds.flatMap((r) => r.runs);
  const ok = allRuns.every((x) => x.validation.passed && x.timed);
  ensureDir(req.outDir);
  const markdown = renderMarkdown({
    name: protocol.name, question: protocol.question, protocolPath: protocolRel.startsWith("..") ? protocolAbs : protocolRel,
    protocolSha256: sha256(protocolText), rounds: protocol.rounds, samples: protocol.samples, batchWindowMs: protocol.batchWindowMs,
    warmup: protocol.warmup, overrides, runtime: runtimeInfo, machine: m, variants: protocol.variants, caveats, commandLine, summary, roundList: rounds, plans: ctx.plans,
  });
  const results = {
    format: RESULTS_FORMAT,
    createdAt: new Date().toISOString(),
    command: { line: commandLine, argv: req.argv, processArgv: process.argv, cwd: process.cwd(), options: { protocol: req.protocolFile, runtime: req.runtime, out: req.outDir, engine: engine.name } },
    root,
    protocol: { path: protocolAbs, sha256: sha256(protocolText), text: protocolText },
    overrides,
    machine: m,
    runtime: runtimeInfo,
    artifacts,
    caveats,
    cases: protocol.cases.map((c) => ({ id: caseId(c), case: c.case, sizes: c.sizes })),
    variants: protocol.variants,
    rounds,
    sources: ctx.sources,
    plans: ctx.plans,
    summary,
    report: { markdown: "results.md" },
    complete: ok,
  };
  const resultsFile = path.join(req.outDir, "results.json");
  const markdownFile = path.join(req.outDir, "results.md");
  writeOutput(resultsFile, JSON.stringify(results, null, 1) + "\n");
  writeOutput(markdownFile, markdown);
  return { ok, dir: req.outDir, resultsFile, markdownFile, results };
}
