// The CLI in process: `main` of the bundle that shell-node/bin/tile.mjs runs (dist/tile-shell.mjs),
// with process.stdout and process.stderr captured. Tests use it where a subprocess would add
// nothing but Node's start-up (about 0.2 s a call); every command keeps tests that spawn the real
// executable (exit status, streams and a crash of a real process).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { DIST_DIR } from "./files";

export interface CliResult {
  /** The exit code main returns (what bin/tile.mjs sets as process.exitCode). */
  code: number;
  stdout: string;
  stderr: string;
}

type Main = (argv: string[]) => Promise<number>;
let mainFn: Main | null = null;

/** Runs `tile ARGS` in this process; never two at once (the streams are captured globally). */
export async function tileInProcess(...args: string[]): Promise<CliResult> {
  if (!mainFn) {
    const url = pathToFileURL(path.join(DIST_DIR, "tile-shell.mjs")).href;
    mainFn = ((await import(/* @vite-ignore */ url)) as { main: Main }).main;
  }
  const out: string[] = [];
  const err: string[] = [];
  const stdoutWrite = process.stdout.write;
  const stderrWrite = process.stderr.write;
  const capture = (into: string[]) =>
    ((chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      into.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
      if (done) done();
      return true;
    }) as typeof process.stdout.write;
  process.stdout.write = capture(out);
  process.stderr.write = capture(err);
  const exitCode = process.exitCode;
  let code: number;
  try {
    code = await mainFn(args);
  } finally {
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
    process.exitCode = exitCode;
  }
  return { code, stdout: out.join(""), stderr: err.join("") };
}
