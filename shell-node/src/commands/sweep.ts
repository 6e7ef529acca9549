// tile sweep CASE --size K=V ... [--runtime R] [--device D] [--max-candidates N] [--rounds N]
// [--samples N] [--batch-window-ms MS] -o DIR : every admissible candidate of the solver for one
// case and shape, validated and timed; writes DIR/sweep.json and DIR/sweep.md (bench/sweep.ts).
// Exit 0 when every selected candidate was validated and timed (or re-planned because its compiled
// pipeline holds fewer threads: recorded, not timed), 1 otherwise (the files are written either
// way), 2 for bad usage.
import fs from "node:fs";
import path from "node:path";
import { Engine } from "../engine";
import { EXIT_FAILED, EXIT_OK, printJson, readDocument, UsageError } from "../io";
import { RuntimeKind } from "../native";
import { runSweep } from "../bench/sweep";
import { TimingSettings } from "../bench/timing";
import { readDeviceArg } from "./device";

/** A built-in case name or a document path -> its name and text. */
export function caseText(engine: Engine, arg: string): { name: string; text: string } {
  const builtins: { name: string; text: string }[] = engine.call({ command: "cases" }).cases;
  const b = builtins.find((c) => c.name === arg);
  if (b && !fs.existsSync(arg)) return { name: b.name, text: b.text };
  const src = readDocument(arg);
  if (src.text === null) throw new UsageError(`${arg}: ${src.diagnostic?.message ?? "not readable"}`);
  return { name: path.basename(arg, ".json"), text: src.text };
}

export interface SweepCli {
  sizes: Record<string, number>;
  runtime: RuntimeKind | "auto";
  out?: string;
  device?: string;
  maxCandidates: number;
  settings: TimingSettings;
  json: boolean;
}

export async function sweepCommand(engine: Engine, arg: string, o: SweepCli, argv: string[]): Promise<number> {
  if (o.settings.rounds % 2 !== 0 || o.settings.rounds < 2) throw new UsageError(`--rounds must be even and at least 2 (every candidate runs forwards and backwards equally often), got ${o.settings.rounds}`);
  if (o.settings.samples < 1) throw new UsageError("--samples must be at least 1");
  const { name, text } = caseText(engine, arg);
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const sizes = Object.entries(o.sizes).map(([k, v]) => `${k}${v}`).join("-");
  const outDir = o.out ?? path.join("bench", "results", `sweep-${name}-${sizes}-${o.runtime}-${stamp}`);
  const device = o.device ? readDeviceArg(o.device) : undefined;
  const tty = !o.json && process.stderr.isTTY;
  const r = await runSweep({
    engine, caseName: name, text, sizes: o.sizes, device, deviceArg: o.device, runtime: o.runtime, outDir, argv,
    maxCandidates: o.maxCandidates, settings: o.settings,
    progress: tty ? (what) => process.stderr.write(`\rsweep ${what}`.padEnd(70).slice(0, 100)) : undefined,
  });
  if (tty) process.stderr.write("\n");
  const s = r.sweep.summary;
  if (o.json) printJson({ ok: r.ok, dir: r.dir, json: r.json, markdown: r.markdown, summary: s });
  else {
    process.stdout.write(`${r.json}\n${r.markdown}\n`);
    const f = (x: number | null, d = 3): string => (x === null ? "n/a" : x.toFixed(d));
    process.stdout.write(`${name} ${Object.entries(o.sizes).map(([k, v]) => `${k}=${v}`).join(" ")} on ${r.sweep.runtime.kind} (${r.sweep.metric}${r.sweep.timesAreGpu ? "" : ", host times, not GPU times"}): ${s.timed} of ${s.admissible} admissible candidates timed; pick ${s.pick} ${f(s.pickUs, 2)} µs, best ${s.best} ${f(s.bestUs, 2)} µs, regret ${f(s.regret)}, Spearman ${f(s.spearman)}\n`);
  }
  const replanned = r.sweep.candidates.filter((c: any) => c.selected && c.timing?.replanned).length;
  if (replanned) process.stderr.write(`tile sweep: ${replanned} candidate(s) not launchable as planned (the compiled pipeline holds fewer threads), recorded and not timed; see sweep.md\n`);
  if (!r.ok) process.stderr.write("tile sweep: some candidates were not validated or not timed; see sweep.md\n");
  return r.ok ? EXIT_OK : EXIT_FAILED;
}
