// The main job (`npm start`): the built-in cases and the validation matrix, each planned and
// emitted by both engines of the core (which must agree byte for byte), run on the best
// runtime present (Metal where present, else the host runtime), and validated against the FP64
// oracle with guard regions. One table; exit 1 if any row fails.
import { loadEngine } from "../engine";
import { openRuntime } from "../native";
import { EXIT_FAILED, EXIT_OK, UsageError, openOrUsage, printJson, table } from "../io";
import { builtinEntries, loadMatrix, MatrixEntry } from "../matrix";
import { ABS_TOL, REL_TOL, nonFiniteWarnings, runAndValidate } from "../validate-run";
import { describeInputs } from "../inputs";
import { toleranceText } from "./run";
import { layoutSuffix } from "../layout";

export interface SuiteRow {
  id: string;
  realization: string;
  widths: string;
  maxAbsError: number;
  maxRelError: number;
  guards: string;
  enginesAgree: boolean;
  verdict: "pass" | "fail";
  /** Wall-clock seconds for this row (plan, emit, compile or cache hit, 3 dispatches, oracle). */
  seconds: number;
  /** Set when the compiled pipeline's thread limit forced the one re-plan (the row shows the re-planned kernel). */
  replanned?: string;
  /** The element nearest the tolerance over all outputs (its share of the tolerance in `ratio`). */
  worst: { output: string; index: number; got: number; ref: number; ratio: number } | null;
  /** TSH002 warnings (outputs whose references are mostly NaN or infinite). */
  warnings: string[];
  error?: string;
}

/** What the widths column means (printed above the table). */
export const WIDTHS_LEGEND =
  "widths: P programs per threadgroup, S SIMD groups (of 32 lanes) per program, T threads per group (32*S*P), " +
  "V elements per load, U unroll, cached = input stripe kept in registers; element grid: block 1xT, V columns per thread; serial: T threads, one per program";

function widths(plan: any): string {
  const m = plan?.mapping ?? {};
  if (!plan) return "";
  if (plan.realization === "fused-elementwise") return `${m.rowsPerGroup > 1 ? `${m.rowsPerGroup}x${m.rowThreads}` : `1x${m.block}`} grid V${m.V}, ${m.groups} groups`;
  if (plan.realization === "serial-program") return `serial T${m.T}`;
  return `P${m.P} S${m.S} T${m.T} V${m.V} U${m.U}${m.cached ? " cached" : ""}${layoutSuffix(m)}`;
}

export async function suiteCommand(seed: number, json: boolean, full = false, runtimeKind = "auto", filter?: string, detect = true): Promise<number> {
  const wasm = await loadEngine("wasm");
  const js = await loadEngine("js");
  let entries: MatrixEntry[] = [...builtinEntries(wasm), ...loadMatrix(wasm, full)];
  if (filter) entries = entries.filter((e) => e.id.includes(filter));
  // a filter that selects nothing would "pass" with no row run: a usage error instead
  if (filter !== undefined && entries.length === 0) throw new UsageError(`--filter ${JSON.stringify(filter)} matches no suite row (rows are named like softmax/default; tile suite --json lists them)`);
  const runtime = openOrUsage(() => openRuntime(runtimeKind as "auto"));
  if (!detect) runtime.setDetector(false);
  const detector = runtime.detectorEnabled();
  const rows: SuiteRow[] = [];
  const started = Date.now();
  if (!json) process.stdout.write(`runtime: ${runtime.kind} (${runtime.deviceName})${runtime.kind === "host" ? ` — host CPU execution of the emitted MSL; no GPU timing; race and bounds detector ${detector ? "on" : "off"}` : ""}\n`);
  try {
    for (const e of entries) {
      const rowStart = Date.now();
      const req = JSON.stringify({ command: "emit", document: e.text, options: e.options });
      const fromWasm = wasm.callText(req);
      let agree = fromWasm === js.callText(req);
      const r = runAndValidate({ engine: wasm, runtime, text: e.text, options: e.options, seed, emitted: JSON.parse(fromWasm) });
      if (r.replanned) {
        // the row's kernel was planned again under the pipeline's limit: both builds must agree on that one too
        const again = JSON.stringify({ command: "emit", document: e.text, options: r.options });
        agree = agree && wasm.callText(again) === js.callText(again);
      }
      const row: SuiteRow = {
        id: e.id,
        realization: r.plan?.realization ?? "",
        widths: widths(r.plan),
        maxAbsError: Math.max(0, ...r.outputs.map((o) => o.maxAbsError)),
        maxRelError: Math.max(0, ...r.outputs.map((o) => o.maxRelError)),
        guards: r.guards,
        enginesAgree: agree,
        verdict: r.passed && agree ? "pass" : "fail",
        seconds: (Date.now() - rowStart) / 1000,
        worst: null,
        warnings: nonFiniteWarnings(r.outputs),
      };
      if (r.replanned) row.replanned = r.replanned;
      for (const o of r.outputs) {
        if (o.worst && (row.worst === null || o.worst.ratio > row.worst.ratio)) row.worst = { output: o.name, ...o.worst };
      }
      if (r.error) row.error = r.error;
      rows.push(row);
      if (!json && process.stderr.isTTY) process.stderr.write(`\r${rows.length}/${entries.length} ${e.id}`.padEnd(60));
    }
  } finally {
    runtime.close();
    if (!json && process.stderr.isTTY) process.stderr.write("\r".padEnd(61) + "\r");
  }
  const seconds = (Date.now() - started) / 1000;
  if (json) printJson({ runtime: runtime.kind, detector, seconds, rows });
  else {
    process.stdout.write(`${WIDTHS_LEGEND}\n`);
    process.stdout.write(`tolerance: ${toleranceText({ abs: ABS_TOL, rel: REL_TOL })}; "of tol" = the worst element's |got - ref| as a share of its tolerance (pass <= 1)\n`);
    process.stdout.write(`inputs: ${describeInputs(seed)}\n`);
    const t = [["case", "realization", "widths", "max abs err", "of tol", "guards", "js=wasm", "verdict"]];
    for (const r of rows) {
      const share = r.worst ? (Number.isFinite(r.worst.ratio) ? r.worst.ratio.toPrecision(2) : "inf") : "-";
      t.push([r.id, r.realization, r.widths, r.maxAbsError.toExponential(2), share, r.guards === "intact" ? "intact" : r.guards.slice(0, 40), r.enginesAgree ? "yes" : "NO", r.verdict + (r.error ? `: ${r.error.slice(0, 80)}` : "")]);
    }
    process.stdout.write(table(t) + "\n");
    for (const r of rows) if (r.replanned) process.stdout.write(`${r.id}: ${r.replanned}\n`);
    for (const r of rows) for (const w of r.warnings) process.stdout.write(`${r.id}: ${w}\n`);
    const failed = rows.filter((r) => r.verdict !== "pass").length;
    const slowest = rows.reduce((a, b) => (b.seconds > a.seconds ? b : a), rows[0]);
    if (slowest) process.stdout.write(`slowest row: ${slowest.id} (${slowest.seconds.toFixed(2)} s)\n`);
    process.stdout.write(`${rows.length - failed} passed, ${failed} failed (${seconds.toFixed(1)} s on the ${runtime.kind} runtime)\n`);
  }
  return rows.every((r) => r.verdict === "pass") ? EXIT_OK : EXIT_FAILED;
}
