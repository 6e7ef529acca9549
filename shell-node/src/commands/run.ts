// tile run FILE : plan, emit, compile, run three dispatches and validate against the FP64 oracle.
import { Engine } from "../engine";
import { openRuntime, RuntimeKind } from "../native";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, formatDiagnostic, indent, openOrUsage, printJson, readDocument, table, ensureDir } from "../io";
import { PlanOptions } from "../options";
import { OutputCheck, nonFiniteDiagnostics, nonFiniteWarnings, runAndValidate } from "../validate-run";
import { InputRange } from "../inputs";
import { LAMBDA } from "../bounds";
import { mappingText } from "./plan";
import { loadUserInputs, UserInputs } from "../user-inputs";

/** `[1234] got 0.5000000 ref 0.5000100 (0.31 of the tolerance)` */
export function worstText(o: OutputCheck): string {
  const w = o.worst;
  if (!w) return "-";
  const share = Number.isFinite(w.ratio) ? `${w.ratio.toPrecision(2)} of the tolerance` : "outside the tolerance";
  // an i32 output's values are integers: printed exactly (an off-by-one must be readable)
  const i32 = (o.tolerance as { dtype?: string }).dtype === "i32";
  return `[${w.index}] got ${fmt(w.got, i32)} ref ${fmt(w.ref, i32)} (${share})`;
}

function fmt(x: number, integer = false): string {
  if (integer && Number.isInteger(x)) return String(x);
  return Number.isFinite(x) ? x.toPrecision(7) : String(x);
}

export function toleranceText(t: { abs: number; rel: number }): string {
  return `|got - ref| <= ${t.abs.toExponential()} + ${t.rel.toExponential()} * |ref| per element (FP64 reference)`;
}

export function runCommand(engine: Engine, file: string, options: PlanOptions, runtimeKind: string, seed: number, dump: string | undefined, json: boolean, inputSpecs: string[] = [], detect = true, inputRange?: InputRange): number {
  const src = readDocument(file);
  if (src.text === null) {
    process.stderr.write(formatDiagnostic(file, src.diagnostic!) + "\n");
    return EXIT_USAGE;
  }
  const check = engine.call({ command: "validate", document: src.text, options: { sizes: options.sizes } });
  if (!check.ok) {
    if (json) printJson({ file, passed: false, diagnostics: check.diagnostics });
    else for (const d of check.diagnostics) process.stderr.write(formatDiagnostic(file, d, src.text) + "\n");
    return EXIT_USAGE;
  }
  let user: UserInputs | null = null;
  if (inputSpecs.length) {
    const canonical = engine.call({ command: "canonical", document: src.text, options: { sizes: options.sizes } });
    const loaded = loadUserInputs(JSON.parse(canonical.text), inputSpecs);
    // a usage error, in the CLI's one shape (with --json: {ok, exit, error: {code, message}})
    if (typeof loaded === "string") throw new UsageError(loaded);
    user = loaded;
  }
  // a --dump folder that cannot be made is a usage error (exit 2), found before any kernel runs
  if (dump !== undefined && dump.length === 0) throw new UsageError("--dump expects a folder, got an empty path");
  if (dump) ensureDir(dump);
  const runtime = openOrUsage(() => openRuntime(runtimeKind as RuntimeKind | "auto"));
  if (!detect) runtime.setDetector(false);
  try {
    const r = runAndValidate({ engine, runtime, text: src.text, options, seed, dumpDir: dump,
      inputs: user?.inputs, inputFiles: user?.files, inputBits: user?.bits, inputRange });
    const warnings = nonFiniteWarnings(r.outputs);
    const planDiagnostics = r.plan?.diagnostics ?? [];
    if (json) {
      // the plan's warnings (TPL008, a serial fallback) first, as the text output prints them
      const planWarnings = planDiagnostics.filter((d: any) => d.severity === "warning").map((d: any) => `warning ${d.code} (${d.id}): ${d.message}`);
      // the same warnings as diagnostic objects (code, id, severity, message, pointer)
      let params: { name: string }[] = [];
      try {
        const d = JSON.parse(src.text);
        if (Array.isArray(d?.params)) params = d.params;
      } catch {
        // a document that ran parses; nothing to point into otherwise
      }
      // a document the core did not plan: every diagnostic, its errors first (they say why nothing ran)
      const unplanned = r.plan?.ok === false;
      const planned = unplanned
        ? [...planDiagnostics.filter((d: any) => d.severity === "error"), ...planDiagnostics.filter((d: any) => d.severity !== "error")]
        : planDiagnostics.filter((d: any) => d.severity === "warning");
      const diagnostics = [...planned, ...nonFiniteDiagnostics(r.outputs, params)];
      printJson({ file, passed: r.passed, outputs: r.outputs, guards: r.guards, runtime: r.runtime, device: r.device, timesAreGpu: r.timesAreGpu, detector: runtime.detectorEnabled(), error: r.error ?? null, replanned: r.replanned ?? null, checkedAfter: r.checkedAfter ?? null, tolerance: r.tolerance, inputs: r.inputs, warnings: [...planWarnings, ...warnings], diagnostics, plan: r.plan });
    } else {
      process.stdout.write(`${file}: ${r.name} on ${r.runtime} (${r.device})${runtime.kind === "host" ? (runtime.detectorEnabled() ? ", race and bounds detector on" : ", detector off") : ""}\n`);
      // a document the core did not plan has no mapping, and nothing ran: the diagnostics say why
      const planned = r.plan?.ok !== false;
      if (r.plan && planned) process.stdout.write(`  ${r.plan.realization}  ${mappingText(r.plan)}\n`);
      for (const d of planDiagnostics) process.stdout.write(indent(formatDiagnostic(file, d, src.text), "  ") + "\n");
      if (r.replanned) process.stdout.write(`  ${r.replanned}\n`);
      if (r.error && (planned || planDiagnostics.length === 0)) process.stdout.write(`  error: ${r.error}\n`);
      if (planned) process.stdout.write(`  inputs: ${r.inputs}\n  tolerance: ${toleranceText(r.tolerance)}\n`);
      if (r.checkedAfter) process.stdout.write(`  checked after ${r.checkedAfter}\n`);
      for (const o of r.outputs) {
        const t = o.tolerance;
        // an i32 output's comparison is told by its notes (exact, or a value cast from f32)
        if (!t || t.dtype === "i32" || (t.abs === r.tolerance.abs && t.rel === r.tolerance.rel)) continue;
        const why = t.through
          ? `its value reads back an intermediate in ${t.through} that the document stores, which a kernel may round one unit in the last place apart: ${t.through}'s tolerance`
          : `an output in ${t.dtype}: PyTorch's default tolerance for ${t.dtype}, against the reference rounded to ${t.dtype}`;
        process.stdout.write(`  tolerance of ${o.name}: |got - ref| <= ${t.abs.toExponential()} + ${t.rel.toExponential()} * |ref| (${why})\n`);
      }
      const rows = [["output", "written", "max abs error", "max rel error", "mismatches", "non-finite", "worst element (index, got, ref)"]];
      for (const o of r.outputs) {
        const i32 = (o.tolerance as { dtype?: string }).dtype === "i32" && Number.isInteger(o.maxAbsError);
        rows.push([o.name, `${o.written}/${o.elements}`, i32 ? String(o.maxAbsError) : o.maxAbsError.toExponential(2), o.maxRelError.toExponential(2), String(o.mismatches), String(o.nonFinite), worstText(o)]);
      }
      if (r.outputs.length) process.stdout.write(indent(table(rows), "  ") + "\n");
      if (r.outputs.some((o) => o.tolerance?.dtype !== "i32" && o.maxRelError > (o.tolerance?.rel ?? r.tolerance.rel))) {
        process.stdout.write(`  note: a max rel error above ${r.tolerance.rel} can pass: an element passes within ${r.tolerance.abs} + ${r.tolerance.rel} * |ref| (the absolute term dominates where |ref| is small), or as a note below says\n`);
      }
      for (const o of r.outputs) {
        if (o.castFromF32) process.stdout.write(`  note: ${o.name} holds i32 values cast from f32 values: compared within 1 + ${r.tolerance.abs} + ${r.tolerance.rel} * |ref| (the truncation of a value inside the f32 tolerance), not exactly\n`);
      }
      for (const o of r.outputs) {
        if (o.illConditioned) process.stdout.write(`  note: ${o.name}: ${o.illConditioned} element(s) outside the tolerance are outside it in a plain f32 evaluation of the document in program order too, and the kernel is within the tolerance of that f32 value or closer to the reference than it: ill-conditioned at these inputs (cancellation, rounding accumulated over many terms, or a comparison that f32 and FP64 decide differently), computed as f32 arithmetic allows; they pass\n`);
        if (o.withinRoundingBound) process.stdout.write(`  note: ${o.name}: ${o.withinRoundingBound} element(s) outside the tolerance lie within it plus an estimate of the rounding error of f32 arithmetic in the kernel's order of combination (each rounding half an ulp, independent roundings combined as random errors, ${LAMBDA} standard deviations; a reduction's error carried through the expressions that use it): the result cancels after a reduction at these inputs; they pass\n`);
        if (o.sentinelRechecked) process.stdout.write(`  note: ${o.name}: ${o.sentinelRechecked} element(s) held the bits of their sentinel (the value an output starts as, so that unwritten elements are found) after one of two runs with different sentinels where the reference is NaN (or, i32, is that value): the kernel wrote them, so they are compared as written\n`);
        if (o.f32Overflow) process.stdout.write(`  note: ${o.name}: ${o.f32Overflow} element(s) outside the tolerance are computed through a value past the f32 range at these inputs (an intermediate such as x * x at x = 1e20 overflows to infinity in f32, not in FP64): f32 arithmetic does not compute the document's value there, so they fail (--input-range LO,HI narrows the inputs, or rescale the expression)\n`);
        if (o.flowAgreesWithF32) process.stdout.write(`  note: ${o.name}: ${o.flowAgreesWithF32} element(s) that differ from the FP64 reference are written, or not, and valued as the document evaluated in plain f32 in program order: which elements are stored, or read, depends on f32 values that f32 and FP64 decide differently at these inputs (an if on 3 * 0.1 >= 0.3, an index cast from 0.7 * 10); they pass\n`);
        if (o.rangeEdge) process.stdout.write(`  note: ${o.name}: ${o.rangeEdge} element(s) at the edge of the ${o.tolerance.dtype} range hold its largest finite value where the reference rounds to an infinity of that sign, or the other way round: the exact value lies at the rounding boundary, where a plain f32 evaluation in program order, or an f32 value within the f32 tolerance of the exact one, rounds to the kernel's value; they pass\n`);
        if (o.decidedAgreesWithF32) process.stdout.write(`  note: ${o.name}: ${o.decidedAgreesWithF32} element(s) that differ from the FP64 reference equal the document evaluated in plain f32 in program order: the value depends on a comparison of f32 values that f32 and FP64 decide differently at these inputs (3 * 0.1 >= 0.3 holds in f32 only); they pass\n`);
        if (o.castAgreesWithF32) process.stdout.write(`  note: ${o.name}: ${o.castAgreesWithF32} element(s) outside the tolerance of a value cast from f32 equal the document evaluated in plain f32 in program order: the kernel truncates the f32 value it computes (0.7 * 10 is 7 in f32, 6.99999988 in FP64); they pass\n`);
        const c = o.f32ProgramOrder;
        if (!c) continue;
        if (c.nonFinite > 0) {
          process.stdout.write(c.alsoNonFinite > 0
            ? `  note: ${o.name}: at ${c.alsoNonFinite} of the ${c.nonFinite} elements where the kernel gave NaN or infinity for a finite reference, a plain f32 evaluation of the document in program order gives NaN or infinity too: an intermediate leaves the f32 range, or a domain, at these inputs (the FP64 reference does not); a NaN or infinity for a finite reference never passes (--input-range LO,HI narrows the inputs, or rewrite the expression to stay in range)\n`
            : `  note: ${o.name}: a plain f32 evaluation of the document in program order stays finite at all ${c.nonFinite} elements where the kernel gave NaN or infinity for a finite reference\n`);
        }
        if (c.outside === 0 || o.mismatches === 0 || (o.f32Overflow ?? 0) >= c.outside) continue;
        process.stdout.write(c.alsoOutside > 0
          ? `  note: ${o.name}: ${c.alsoOutside} of the ${c.outside} elements outside the tolerance are outside it in a plain f32 evaluation of the document in program order too (every operation rounded to f32; ${Number.isFinite(c.maxAbsError) ? "its largest error there " + c.maxAbsError.toExponential(2) : "NaN or infinite at some of them"}): at these inputs the result is ill-conditioned (cancellation), and f32 arithmetic does not meet the FP64 tolerance there; those that no note above passes still fail (--input-range LO,HI narrows the inputs)\n`
          : `  note: ${o.name}: a plain f32 evaluation of the document in program order meets the tolerance at all ${c.outside} elements outside it here (its largest error there ${c.maxAbsError.toExponential(2)})\n`);
      }
      for (const w of warnings) process.stdout.write(`  ${file}: ${w}\n`);
      // NaN and infinities print as NaN, Infinity, -Infinity (in JSON they are null)
      for (const o of r.outputs) {
        for (const x of o.examples) process.stdout.write(`  ${o.name}[${x.index}]: got ${x.got}, expected ${Number.isNaN(x.ref) && x.why.startsWith("written") ? "its initial bits" : x.ref} (${x.why})\n`);
      }
      // a document the core did not plan (a refused width request, an option out of range) ran
      // nothing: it has no wrong number to report, and the verdict says so (still exit 1)
      const notPlanned = !r.passed && (r.error ?? "").startsWith("not planned: ");
      process.stdout.write(`  guards: ${r.guards}\n  verdict: ${r.passed ? "pass" : notPlanned ? "not run (not planned; see the error above)" : "FAIL"}\n`);
    }
    // an invalid device description is an input error, as an invalid document is (exit 2)
    if (!r.passed && /^not planned: .*\bTPL005\b/.test(r.error ?? "")) return EXIT_USAGE;
    return r.passed ? EXIT_OK : EXIT_FAILED;
  } finally {
    runtime.close();
  }
}
