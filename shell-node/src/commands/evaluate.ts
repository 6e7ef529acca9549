// tile eval FILE : runs the FP64 oracle on deterministic inputs and summarises the outputs.
import { Engine } from "../engine";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, formatDiagnostic, printJson, readDocument, table } from "../io";
import { OracleError, evaluate } from "../oracle";
import { DEFAULT_INPUT_RANGE, InputRange, describeInputs, makeInputs } from "../inputs";
import { writtenBuffers } from "../access";
import { loadUserInputs } from "../user-inputs";

export interface OutputSummary {
  name: string;
  elements: number;
  written: number;
  min: number;
  max: number;
  mean: number;
  sum: number;
  /** Written elements that are NaN, and that are +Infinity or -Infinity. */
  nan: number;
  inf: number;
}

/** Canonical document object (sizes applied) from the core, or diagnostics. */
export function canonicalDocument(engine: Engine, text: string, sizes: Record<string, number>): { doc: any; response: any } {
  const r = engine.call({ command: "canonical", document: text, options: { sizes } });
  return { doc: r.ok ? JSON.parse(r.text) : null, response: r };
}

export function summarise(doc: any, seed: number, range: InputRange = DEFAULT_INPUT_RANGE, given?: Map<string, Float64Array | Int32Array>): OutputSummary[] {
  const inputs = makeInputs(doc, seed, range);
  if (given) for (const [name, data] of given) inputs.set(name, data);
  const result = evaluate(doc, inputs);
  return writtenBuffers(doc).map((name) => {
    const buf = result.buffers.get(name)!;
    const mask = result.written.get(name)!;
    // min and max propagate NaN (as Tile IR's min and max do); nan and inf count them
    let written = 0, min = Infinity, max = -Infinity, sum = 0, nan = 0, inf = 0;
    for (let i = 0; i < buf.length; i++) {
      if (!mask[i]) continue;
      written++;
      const v = buf[i];
      if (Number.isNaN(v)) nan++;
      else if (!Number.isFinite(v)) inf++;
      min = Math.min(min, v);
      max = Math.max(max, v);
      sum += v;
    }
    if (written === 0) min = max = NaN;
    return { name, elements: buf.length, written, min, max, mean: written ? sum / written : 0, sum, nan, inf };
  });
}

export function evalCommand(engine: Engine, file: string, sizes: Record<string, number>, seed: number, json: boolean, range: InputRange = DEFAULT_INPUT_RANGE, inputSpecs: string[] = []): number {
  const src = readDocument(file);
  if (src.text === null) {
    if (json) printJson({ file, ok: false, diagnostics: [src.diagnostic] });
    else process.stdout.write(formatDiagnostic(file, src.diagnostic!) + "\n");
    return EXIT_USAGE;
  }
  const { doc, response } = canonicalDocument(engine, src.text, sizes);
  if (doc === null) {
    if (json) printJson({ file, ok: false, diagnostics: response.diagnostics });
    else for (const d of response.diagnostics) process.stdout.write(formatDiagnostic(file, d, src.text) + "\n");
    return EXIT_USAGE;
  }
  // --input NAME=FILE.npy: a buffer's initial contents, as tile run takes them
  const user = inputSpecs.length ? loadUserInputs(doc, inputSpecs) : null;
  if (typeof user === "string") throw new UsageError(user);
  const inputsText = describeInputs(seed, range) + (user && user.inputs.size ? " (buffers given by --input: " + [...user.inputs.keys()].join(", ") + ")" : "");
  let outputs: OutputSummary[];
  try {
    outputs = summarise(doc, seed, range, user?.inputs);
  } catch (err) {
    // an access that the inputs take out of bounds (a gather, a bound that wraps): the document
    // is valid, the evaluation at these inputs fails (exit 1), as `tile run` reports it
    if (!(err instanceof OracleError)) throw err;
    if (json) printJson({ file, ok: false, error: "oracle: " + err.message });
    else process.stdout.write(`${doc.name}: FP64 oracle, seed ${seed}: the evaluation failed: ${err.message}\n`);
    return EXIT_FAILED;
  }
  if (json) printJson({ file, ok: true, name: doc.name, seed, sizes: doc.sizes, inputs: inputsText, outputs });
  else {
    process.stdout.write(`${doc.name}: FP64 oracle, seed ${seed}, sizes ${JSON.stringify(doc.sizes)}\n  inputs: ${inputsText}\n`);
    const rows = [["output", "written", "min", "max", "mean", "sum", "NaN", "±Infinity"]];
    for (const o of outputs) {
      rows.push([o.name, `${o.written}/${o.elements}`, o.min.toPrecision(7), o.max.toPrecision(7), o.mean.toPrecision(7), o.sum.toPrecision(10), String(o.nan), String(o.inf)]);
    }
    process.stdout.write(table(rows) + "\n");
  }
  return EXIT_OK;
}
