// Driving the core's loading stage from TypeScript sources (tests that import this must redirect
// the WebAssembly glue: vi.mock("../core/glue/wasm", async () => await import("../core/glue/js"))).
import { MAX_JSON_DEPTH, readJson } from "../../core/util/json";
import { readOptions } from "../../core/options";
import { loadDocument } from "../../core/ir/load";
import { printDoc } from "../../core/ir/print";
import { Diagnostic } from "../../core/diag/diagnostic";
import { Doc, Expr, Stmt } from "../../core/ir/ast";

export interface PlainDiagnostic {
  code: string;
  severity: string;
  message: string;
  pointer: string;
  line: number;
  column: number;
  related: string;
}

export interface Validated {
  ok: boolean;
  doc: Doc;
  diagnostics: PlainDiagnostic[];
}

function plain(d: Diagnostic): PlainDiagnostic {
  return { code: d.code, severity: d.severity, message: d.message, pointer: d.pointer, line: d.line, column: d.column, related: d.related };
}

/** Loads a document as the `validate` command does: options first (size overrides), then
 *  parse, read, apply overrides, check. */
export function validate(text: string, sizes?: Record<string, number>): Validated {
  let names: string[] = [];
  let values: number[] = [];
  if (sizes !== undefined) {
    const opts = readOptions(readJson(JSON.stringify({ sizes }), MAX_JSON_DEPTH).value);
    if (opts.diags.length > 0) return { ok: false, doc: new Doc(), diagnostics: opts.diags.map(plain) };
    names = opts.options.sizeNames;
    values = opts.options.sizeValues;
  }
  const loaded = loadDocument(text, names, values);
  return { ok: loaded.ok, doc: loaded.doc, diagnostics: loaded.diags.map(plain) };
}

/** The canonical text of a valid document; fails the calling test (throws) otherwise. */
export function canonical(text: string): string {
  const v = validate(text);
  if (!v.ok) throw new Error("not a valid document: " + JSON.stringify(v.diagnostics));
  return printDoc(v.doc);
}

function dumpExpr(e: Expr): unknown {
  return { op: e.op, ival: e.ival, fval: e.fval, name: e.name, ty: e.ty, ref: e.ref, ptr: e.ptr, args: e.args.map(dumpExpr) };
}

function dumpStmt(s: Stmt): unknown {
  // hasStep / hasElse record only how the source spelled a default ("step": 1, "else": []).
  return {
    kind: s.kind, name: s.name, parallel: s.parallel, min: dumpExpr(s.min), extent: dumpExpr(s.extent),
    step: dumpExpr(s.step), axis: s.axis, combiner: s.combiner, value: dumpExpr(s.value), at: s.at.map(dumpExpr),
    cond: dumpExpr(s.cond), body: s.body.map(dumpStmt), orelse: s.orelse.map(dumpStmt), ptr: s.ptr,
  };
}

/** Everything the AST says about a document, as plain data (for deep equality). */
export function dumpDoc(d: Doc): unknown {
  return {
    version: d.version, name: d.name, noalias: d.noalias, sizeNames: d.sizeNames.slice(), sizeValues: d.sizeValues.slice(),
    params: d.params.map((p) => ({ name: p.name, dtype: p.dtype, ptr: p.ptr, shape: p.shape.map(dumpExpr) })),
    body: d.body.map(dumpStmt),
  };
}
