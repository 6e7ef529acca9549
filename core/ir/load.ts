// Loading a document: JSON text -> AST with size overrides -> checked. The first three stages
// of the pipeline, shared by every command.

import { J_NULL, JsonValue, MAX_JSON_DEPTH, readJson } from "../util/json";
import { locateDiagnostics } from "./locate";
import { Diagnostic, diag, diagAt, hasErrors } from "../diag/diagnostic";
import { Doc } from "./ast";
import { readIr } from "./read";
import { checkIr } from "./check";

export class Loaded {
  doc: Doc;
  diags: Array<Diagnostic>;
  ok: bool;
  /** The JSON value tree the document was read from (positions of every value). */
  json: JsonValue;

  constructor(doc: Doc, diags: Array<Diagnostic>, json: JsonValue) {
    this.doc = doc;
    this.diags = diags;
    this.ok = !hasErrors(diags);
    this.json = json;
    locateDiagnostics(json, diags);
  }
}

/** Parses, reads and checks a document, applying size overrides first. */
export function loadDocument(text: string, sizeNames: Array<string>, sizeValues: Array<i32>): Loaded {
  const diags = new Array<Diagnostic>();
  const json = readJson(text, MAX_JSON_DEPTH);
  if (!json.ok) {
    let code = "TIR001";
    if (json.failure == "too-large") code = "TIR002";
    else if (json.failure == "too-deep") code = "TIR003";
    else if (json.failure == "duplicate-key") code = "TIR008";
    diags.push(diagAt(code, json.pointer, json.message + " (line " + json.line.toString() + ", column " + json.col.toString() + ")", json.line, json.col));
    return new Loaded(new Doc(), diags, new JsonValue(J_NULL, 0, 0));
  }
  const read = readIr(json.value);
  const doc = read.doc;
  for (let i: i32 = 0; i < read.diags.length; i++) diags.push(read.diags[i]);
  for (let i: i32 = 0; i < sizeNames.length; i++) {
    const k = doc.sizeIndex(sizeNames[i]);
    if (k < 0) {
      const has = doc.sizeNames.length == 0 ? "it declares no sizes." : "it has " + doc.sizeNames.join(", ") + ".";
      diags.push(diag("TIR025", "/sizes", "The document declares no size \"" + sizeNames[i] + "\" to override; " + has));
    } else {
      doc.sizeValues[k] = sizeValues[i];
    }
  }
  if (hasErrors(diags)) return new Loaded(doc, diags, json.value);
  const checked = checkIr(doc);
  for (let i: i32 = 0; i < checked.length; i++) diags.push(checked[i]);
  return new Loaded(doc, diags, json.value);
}
