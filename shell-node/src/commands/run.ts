// tile run FILE : plan, emit, compile, run three dispatches and validate against the FP64 oracle.
import { Engine } from "../engine";
import { openRuntime, RuntimeKind } from "../native";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, formatDiagnostic, openOrUsage, printJson, readDocument, table } from "../io";
import { PlanOptions } from "../options";
import { runAndValidate } from "../validate-run";
import { mappingText } from "./plan";
import { loadUserInputs, UserInputs } from "../user-inputs";

export function runCommand(engine: Engine, file: string, options: PlanOptions, runtimeKind: string, seed: number, dump: string | undefined, json: boolean, inputSpecs: string[] = [], detect = true): number {
  const src = readDocument(file);
  if (src.text === null) {
    process.stderr.write(formatDiagnostic(file, src.diagnostic!) + "\n");
    return EXIT_USAGE;
  }
  const check = engine.call({ command: "validate", document: src.text, options: { sizes: options.sizes } });
  if (!check.ok) {
    if (json) printJson({ file, passed: false, diagnostics: check.diagnostics });
    else for (const d of check.diagnostics) process.stderr.write(formatDiagnostic(file, d) + "\n");
    return EXIT_USAGE;
  }
  let user: UserInputs | null = null;
  if (inputSpecs.length) {
    const canonical = engine.call({ command: "canonical", document: src.text, options: { sizes: options.sizes } });
    const loaded = loadUserInputs(JSON.parse(canonical.text), inputSpecs);
    if (typeof loaded === "string") {
      if (json) printJson({ file, passed: false, error: loaded });
      else process.stderr.write(`tile: ${loaded}\n`);
      return EXIT_USAGE;
    }
    user = loaded;
  }
  const runtime = openOrUsage(() => openRuntime(runtimeKind as RuntimeKind | "auto"));
  if (!detect) runtime.setDetector(false);
  try {
    const r = runAndValidate({ engine, runtime, text: src.text, options, seed, dumpDir: dump,
      inputs: user?.inputs, inputFiles: user?.files });
    if (json) {
      printJson({ file, passed: r.passed, outputs: r.outputs, guards: r.guards, runtime: r.runtime, device: r.device, timesAreGpu: r.timesAreGpu, detector: runtime.detectorEnabled(), error: r.error ?? null, replanned: r.replanned ?? null, plan: r.plan });
    } else {
      process.stdout.write(`${file}: ${r.name} on ${r.runtime} (${r.device})${runtime.kind === "host" ? (runtime.detectorEnabled() ? ", race and bounds detector on" : ", detector off") : ""}\n`);
      if (r.plan) process.stdout.write(`  ${r.plan.realization}  ${mappingText(r.plan)}\n`);
      if (r.replanned) process.stdout.write(`  ${r.replanned}\n`);
      if (r.error) process.stdout.write(`  error: ${r.error}\n`);
      const rows = [["output", "written", "max abs error", "max rel error", "mismatches", "non-finite"]];
      for (const o of r.outputs) rows.push([o.name, `${o.written}/${o.elements}`, o.maxAbsError.toExponential(2), o.maxRelError.toExponential(2), String(o.mismatches), String(o.nonFinite)]);
      if (r.outputs.length) process.stdout.write(table(rows).replace(/^/gm, "  ") + "\n");
      // NaN and infinities print as NaN, Infinity, -Infinity (in JSON they are null)
      for (const o of r.outputs) {
        for (const x of o.examples) process.stdout.write(`  ${o.name}[${x.index}]: got ${x.got}, expected ${Number.isNaN(x.ref) && x.why.startsWith("written") ? "its initial bits" : x.ref} (${x.why})\n`);
      }
      process.stdout.write(`  guards: ${r.guards}\n  verdict: ${r.passed ? "pass" : "FAIL"}\n`);
    }
    return r.passed ? EXIT_OK : EXIT_FAILED;
  } finally {
    runtime.close();
  }
}
