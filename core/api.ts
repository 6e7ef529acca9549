// The core's one entry point: a JSON request in, a JSON response out. Both builds expose it
// (index-js.ts directly, index-wasm.ts over bytes). Requests:
//   {"command": "version"}
//   {"command": "validate",  "document": TEXT, "options": {...}}
//   {"command": "canonical", "document": TEXT, "options": {...}}
//   {"command": "cases"}                       every built-in case, canonical text
//   {"command": "plan",      "document": TEXT, "options": {...}}   the plan (see plan/json.ts)
//   {"command": "emit",      "document": TEXT, "options": {...}}   {plan, msl, audit, target, python}
//   {"command": "audit-msl", "msl": TEXT, "realization": R, "barriers": N}
//   {"command": "device",    "options": {"device": {...}}}  the device description, fields documented
// Every response is an object; failures are diagnostics, never exceptions.

import { J_OBJ, J_STR, JsonValue, MAX_JSON_DEPTH, MAX_REQUEST_CHARS, quote, readJsonWithin } from "./util/json";
import { Text } from "./util/text";
import { Diagnostic, diag, diagnosticsJson, hasErrors } from "./diag/diagnostic";
import { deviceFieldsJson, deviceJson, readDevice } from "./device/device";
import { targetName } from "./glue/wasm";
import { readOptions } from "./options";
import { loadDocument } from "./ir/load";
import { printDoc } from "./ir/print";
import { buildCase, caseNames } from "./builders/index";
import { compile } from "./pipeline";
import { planJson } from "./plan/json";
import { auditMsl } from "./audit/audit";
import { isI32Text, parseI32 } from "./util/num";

export const CORE_VERSION: string = "0.1.0";

function errorResponse(d: Diagnostic): string {
  const out = new Text();
  const list = new Array<Diagnostic>();
  list.push(d);
  out.add("{\"ok\":false,\"diagnostics\":");
  diagnosticsJson(out, list);
  out.add("}");
  return out.toString();
}

function field(obj: JsonValue, key: string): JsonValue | null {
  const i = obj.find(key);
  return i < 0 ? null : obj.items[i];
}

export function handle(request: string): string {
  const req = readJsonWithin(request, MAX_JSON_DEPTH, MAX_REQUEST_CHARS);
  if (!req.ok || req.value.kind != J_OBJ) {
    return errorResponse(diag("TAPI01", "", "The request must be a JSON object with a \"command\"."));
  }
  const obj = req.value;
  const cmdv = field(obj, "command");
  if (cmdv === null || changetype<JsonValue>(cmdv).kind != J_STR) {
    return errorResponse(diag("TAPI01", "/command", "The request needs a \"command\" string."));
  }
  const command = changetype<JsonValue>(cmdv).text;
  if (command == "version") {
    return "{\"ok\":true,\"core\":" + quote(CORE_VERSION) + ",\"engine\":" + quote(targetName()) + ",\"abi\":1}";
  }
  if (command == "cases") return casesResponse();
  if (command == "audit-msl") return auditResponse(obj);
  if (command == "device") return deviceResponse(obj);
  if (command != "validate" && command != "canonical" && command != "plan" && command != "emit") {
    return errorResponse(diag("TAPI01", "/command", "Unknown command \"" + command + "\"."));
  }
  const docv = field(obj, "document");
  if (docv === null || changetype<JsonValue>(docv).kind != J_STR) {
    return errorResponse(diag("TAPI01", "/document", "The command \"" + command + "\" needs a \"document\" string holding Tile IR text."));
  }
  const text = changetype<JsonValue>(docv).text;
  const opts = readOptions(field(obj, "options"));
  if (opts.diags.length > 0) return errorResponse(opts.diags[0]);
  if (command == "validate" || command == "canonical") {
    const loaded = loadDocument(text, opts.options.sizeNames, opts.options.sizeValues);
    const out = new Text();
    out.add("{\"ok\":").add(loaded.ok ? "true" : "false");
    out.add(",\"name\":").quoted(loaded.doc.name);
    out.add(",\"diagnostics\":");
    diagnosticsJson(out, loaded.diags);
    if (command == "canonical" && loaded.ok) out.add(",\"text\":").quoted(printDoc(loaded.doc));
    out.add("}");
    return out.toString();
  }
  if (command == "plan" || command == "emit") {
    const c = compile(text, opts.options, command == "emit", CORE_VERSION);
    const out = new Text();
    if (command == "plan") {
      planJson(c.doc.name, c.ok, c.plan, opts.options.candidates, c.diags, out);
      return out.toString();
    }
    out.add("{\"ok\":").add(c.ok ? "true" : "false");
    out.add(",\"failedAt\":").quoted(c.failedAt);
    out.add(",\"plan\":");
    // a kernel the target cannot take (TEX...) was still planned: its plan is given whole
    planJson(c.doc.name, c.ok || c.failedAt == "export", c.plan, opts.options.candidates, c.diags, out);
    out.add(",\"msl\":");
    const a = c.audit;
    // the audited MSL: its tokens tell where it needs escapes
    if (a === null) out.quoted(c.msl);
    else a.quotedText(c.msl, out);
    out.add(",\"target\":").quoted(opts.options.target);
    out.add(",\"python\":").quoted(c.python);
    out.add(",\"audit\":");
    if (a === null) out.add("null");
    else a.toJson(out);
    out.add(",\"diagnostics\":");
    diagnosticsJson(out, c.diags);
    out.add("}");
    return out.toString();
  }
  return errorResponse(diag("TAPI01", "/command", "Unknown command \"" + command + "\"."));
}

/** The device description the planner would use (the default, or options.device merged over
 *  it), with every field documented. */
function deviceResponse(obj: JsonValue): string {
  const opts = readOptions(field(obj, "options"));
  if (opts.diags.length > 0) return errorResponse(opts.diags[0]);
  const dev = readDevice(opts.options.device);
  const out = new Text();
  out.add("{\"ok\":").add(hasErrors(dev.diags) ? "false" : "true");
  out.add(",\"device\":");
  deviceJson(dev.device, out);
  out.add(",\"fields\":");
  deviceFieldsJson(out);
  out.add(",\"diagnostics\":");
  diagnosticsJson(out, dev.diags);
  out.add("}");
  return out.toString();
}

function auditResponse(obj: JsonValue): string {
  const mv = field(obj, "msl");
  if (mv === null || changetype<JsonValue>(mv).kind != J_STR) {
    return errorResponse(diag("TAPI01", "/msl", "The command \"audit-msl\" needs an \"msl\" string."));
  }
  const rv = field(obj, "realization");
  const realization = rv === null ? "" : changetype<JsonValue>(rv).text;
  const bv = field(obj, "barriers");
  let barriers: i32 = -1;
  if (bv !== null && isI32Text(changetype<JsonValue>(bv).text)) barriers = parseI32(changetype<JsonValue>(bv).text);
  const msl = changetype<JsonValue>(mv).text;
  const out = new Text();
  const r = realization.length > 0 ? realization : headerRealization(msl);
  auditMsl(msl, r, barriers >= 0 ? barriers : expectedBarriers(msl, r)).toJson(out);
  return out.toString();
}

/** The realization named by the emitter's header comment ("// tile: NAME / REALIZATION / ..."). */
function headerRealization(msl: string): string {
  const at = msl.indexOf("// tile: ");
  if (at < 0) return "";
  const end = msl.indexOf("\n", at);
  const parts = msl.substring(at + 9, end < 0 ? msl.length : end).split(" / ");
  return parts.length >= 2 ? parts[1] : "";
}

/** By the calling convention, a cooperative kernel declares one threadgroup array (a line that
 *  starts with `threadgroup `: in its body, or, in hand-written MSL, a `threadgroup T*` argument)
 *  and so has one barrier, per reduction; the other realizations have none. */
function expectedBarriers(msl: string, realization: string): i32 {
  if (realization != "cooperative-reduction") return 0;
  let n: i32 = 0;
  const lines = msl.split("\n");
  for (let i: i32 = 0; i < lines.length; i++) {
    const l = lines[i];
    let j: i32 = 0;
    while (j < l.length && (l.charCodeAt(j) == 32 || l.charCodeAt(j) == 9)) j++;
    if (l.length - j > 12 && l.substring(j, j + 12) == "threadgroup ") n++;
  }
  return n;
}

function casesResponse(): string {
  const names = caseNames();
  const none = new Array<string>();
  const noneV = new Array<i32>();
  const out = new Text();
  out.add("{\"ok\":true,\"cases\":[");
  for (let i: i32 = 0; i < names.length; i++) {
    if (i > 0) out.add(",");
    const loaded = loadDocument(buildCase(names[i]), none, noneV);
    out.add("{\"name\":").quoted(names[i]);
    out.add(",\"ok\":").add(loaded.ok ? "true" : "false");
    out.add(",\"diagnostics\":");
    diagnosticsJson(out, loaded.diags);
    out.add(",\"text\":").quoted(loaded.ok ? printDoc(loaded.doc) : buildCase(names[i]));
    out.add("}");
  }
  out.add("]}");
  return out.toString();
}
