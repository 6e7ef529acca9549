// tile validate FILE... : reads, validates and type-checks documents.
import { Engine } from "../engine";
import { EXIT_OK, EXIT_USAGE, ShellDiagnostic, UsageError, formatDiagnostic, printJson, readDocument } from "../io";

export interface ValidateResult {
  file: string;
  /** The document text, for source excerpts (not printed in --json). */
  source?: string;
  ok: boolean;
  name: string;
  diagnostics: ShellDiagnostic[];
}

/** Validates one file through the core (or reports its bytes as not UTF-8). */
export function validateFile(engine: Engine, file: string, sizes: Record<string, number>): ValidateResult {
  let doc;
  try {
    doc = readDocument(file);
  } catch (err) {
    // an unreadable file is that file's diagnostic: the other files of the batch are still validated
    if (!(err instanceof UsageError)) throw err;
    const m = /^error (TSH\d+) \(([a-z-]+)\): (.*)$/.exec(err.message);
    return { file, ok: false, name: "", diagnostics: [{ code: m ? m[1] : "TSH001", id: m ? m[2] : "unreadable-file", severity: "error", message: m ? m[3] : err.message, pointer: "" }] };
  }
  if (doc.text === null) return { file, ok: false, name: "", diagnostics: [doc.diagnostic!] };
  const r = engine.call({ command: "validate", document: doc.text, options: { sizes } });
  return withSource({ file, ok: r.ok === true, name: r.name ?? "", diagnostics: r.diagnostics ?? [] }, doc.text);
}

/** Attaches the document text to a result without putting it in the JSON output. */
export function withSource<T extends object>(result: T, text: string | null): T {
  Object.defineProperty(result, "source", { value: text, enumerable: false });
  return result;
}

export function validateCommand(engine: Engine, files: string[], sizes: Record<string, number>, json: boolean): number {
  const results = files.map((f) => validateFile(engine, f, sizes));
  if (json) printJson(files.length === 1 ? results[0] : results);
  else {
    for (const r of results) {
      if (r.ok) process.stdout.write(`${r.file}: ok (${r.name})\n`);
      for (const d of r.diagnostics) process.stdout.write(formatDiagnostic(r.file, d, r.source) + "\n");
    }
  }
  return results.every((r) => r.ok) ? EXIT_OK : EXIT_USAGE;
}
