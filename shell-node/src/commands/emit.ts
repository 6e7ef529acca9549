// tile emit FILE [--target metal|mlx|torch-mps]: the plan's MSL, or a Python module that runs it
// from MLX or PyTorch (printed or written with -o); --json gives {plan, msl, audit, target, python}.
import fs from "node:fs";
import path from "node:path";
import { Engine } from "../engine";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, formatDiagnostic, printJson, readDocument, writeOutput } from "../io";
import { PlanOptions } from "../options";
import { planExit } from "./plan";
import { withSource } from "./validate";

function sameFile(a: string, b: string): boolean {
  if (path.resolve(a) === path.resolve(b)) return true;
  try {
    const x = fs.statSync(a);
    const y = fs.statSync(b);
    return x.ino === y.ino && x.dev === y.dev;
  } catch {
    return false;
  }
}

export function emitFile(engine: Engine, file: string, options: PlanOptions): any {
  const src = readDocument(file);
  if (src.text === null) return { ok: false, failedAt: "document", plan: null, msl: "", audit: null, diagnostics: [src.diagnostic] };
  return withSource(engine.call({ command: "emit", document: src.text, options }), src.text);
}

export function emitCommand(engine: Engine, file: string, options: PlanOptions, out: string | undefined, json: boolean): number {
  // -o naming the document itself would replace it with the kernel (red team s15)
  if (out !== undefined && out !== "" && sameFile(out, file)) {
    process.stderr.write(`tile: -o ${out} is the document being emitted; write the kernel to another file\n`);
    return EXIT_USAGE;
  }
  if (out === "") {
    process.stderr.write("tile: -o needs a file name\n");
    return EXIT_USAGE;
  }
  const r = emitFile(engine, file, options);
  if (!r.ok) {
    if (json) printJson({ file, ...r });
    else for (const d of r.diagnostics ?? []) process.stderr.write(formatDiagnostic(file, d, r.source) + "\n");
    return r.failedAt === "document" ? EXIT_USAGE : planExit({ ok: false, diagnostics: r.diagnostics });
  }
  // metal: the MSL; mlx / torch-mps: the Python module (core/export)
  const text = r.target && r.target !== "metal" ? r.python : r.msl;
  if (out) writeOutput(out, text);
  // warnings (a serial fallback, uncached input) go to stderr so the MSL on stdout stays clean
  if (!json) for (const d of r.diagnostics ?? []) process.stderr.write(formatDiagnostic(file, d, r.source) + "\n");
  if (json) printJson({ file, plan: r.plan, msl: r.msl, audit: r.audit, target: r.target, python: r.python });
  else if (!out) process.stdout.write(text);
  if (!json && r.audit && !r.audit.ok) {
    for (const f of r.audit.findings) process.stderr.write(`audit: ${f.check} (line ${f.line}): ${f.message}\n`);
  }
  return r.audit && !r.audit.ok ? EXIT_FAILED : EXIT_OK;
}

export function auditMslCommand(engine: Engine, file: string, realization: string | undefined, barriers: number | undefined, json: boolean): number {
  // usage errors (a missing file, a directory, an unknown realization) are thrown, so that with
  // --json they are one JSON object on stdout like every other command's
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new UsageError(`error TSH001 (unreadable-file): cannot read ${file}: no such file`);
  }
  if (stat.isDirectory()) throw new UsageError(`error TSH001 (unreadable-file): ${file} is a directory; give an MSL file`);
  const msl = fs.readFileSync(file, "utf8");
  const REALIZATIONS = ["cooperative-reduction", "fused-elementwise", "serial-program"];
  if (realization !== undefined && !REALIZATIONS.includes(realization)) {
    throw new UsageError(`--realization must be one of ${REALIZATIONS.join(", ")}, not ${JSON.stringify(realization)}`);
  }
  const a = engine.call({ command: "audit-msl", msl, realization: realization ?? "", barriers: barriers ?? -1 });
  if (json) printJson(a);
  else {
    process.stdout.write(`${file}: ${a.ok ? "ok" : "FINDINGS"}  barriers ${a.barriers} (expected ${a.expectedBarriers}), collectives ${a.collectives}, device stores ${a.deviceStores} (predicated ${a.predicatedStores})\n`);
    for (const f of a.findings ?? []) process.stdout.write(`  ${f.check} (line ${f.line}): ${f.message}\n`);
  }
  return a.ok ? EXIT_OK : EXIT_FAILED;
}
