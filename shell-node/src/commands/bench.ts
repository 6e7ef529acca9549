// tile bench PROTOCOL [--runtime metal|cuda|host] [-o DIR] [--rounds N --samples N --batch-window-ms MS --warmup N --max-batch N --metrics LIST]: the paired replay of a protocol's two
// variants; writes DIR/results.json (every raw sample and fingerprint) and DIR/results.md.
// Exit 0 when every run validated and was timed, 1 otherwise, 2 for a bad protocol.
import path from "node:path";
import { EXIT_FAILED, EXIT_OK, printJson } from "../io";
import { runBench } from "../bench/run";
import type { RuntimeKind } from "../native";
import type { BenchOverrides } from "../bench/protocol";

export function defaultOutDir(protocolFile: string, runtime: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  return path.join("bench", "results", `${path.basename(protocolFile, ".json")}-${runtime}-${stamp}`);
}

export async function benchCommand(protocolFile: string, runtime: RuntimeKind | "auto", out: string | undefined, argv: string[], json = false, overrides: BenchOverrides = {}): Promise<number> {
  const outDir = out ?? defaultOutDir(protocolFile, runtime);
  const r = await runBench({ protocolFile, runtime, outDir, argv, progress: json ? false : undefined, overrides });
  if (json) printJson({ ok: r.ok, dir: r.dir, results: r.resultsFile, markdown: r.markdownFile });
  else process.stdout.write(`${r.resultsFile}\n${r.markdownFile}\n`);
  if (!r.ok) process.stderr.write("tile bench: some runs failed validation or timing; see results.md\n");
  return r.ok ? EXIT_OK : EXIT_FAILED;
}
