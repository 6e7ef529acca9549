// The plan as JSON (`tile plan --json`). Field names are a public contract: keep them stable.

import { Text } from "../util/text";
import { Diagnostic, diagnosticsJson } from "../diag/diagnostic";
import { formatF64Fixed } from "../util/num";
import { Candidate, Cost, Mapping, Plan, RuleResult, layoutName } from "./plan";
import { threadgroupMemoryBytes } from "../emit/abi";

/** A JSON number with three decimals; null for a value that is not finite (JSON has no
 *  Infinity or NaN, and a response must always parse). */
function num(x: f64): string {
  if (x != x || x - x != 0.0) return "null";
  return formatF64Fixed(x, 3);
}

function strings(list: Array<string>, out: Text): void {
  out.add("[");
  for (let i: i32 = 0; i < list.length; i++) {
    if (i > 0) out.add(",");
    out.quoted(list[i]);
  }
  out.add("]");
}

export function mappingJson(m: Mapping, realization: string, out: Text): void {
  out.add("{");
  if (realization == "fused-elementwise") {
    out.add("\"T\":").add(m.T.toString());
    out.add(",\"V\":").add(m.V.toString());
    out.add(",\"U\":").add(m.U.toString());
    out.add(",\"block\":").add(m.block.toString());
    out.add(",\"blocksPerRow\":").add(m.blocksPerRow.toString());
    out.add(",\"rowsPerGroup\":").add(m.rowsPerGroup.toString());
    out.add(",\"rowThreads\":").add(m.rowThreads.toString());
    out.add(",\"rows\":").add(m.domainRows.toString());
    out.add(",\"cols\":").add(m.domainCols.toString());
    out.add(",\"groups\":").add(m.groups.toString());
  } else {
    out.add("\"P\":").add(m.P.toString());
    out.add(",\"S\":").add(m.S.toString());
    out.add(",\"W\":").add(m.W.toString());
    out.add(",\"T\":").add(m.T.toString());
    out.add(",\"V\":").add(m.V.toString());
    out.add(",\"U\":").add(m.U.toString());
    out.add(",\"groups\":").add(m.groups.toString());
    out.add(",\"cached\":").add(m.cached ? "true" : "false");
    out.add(",\"cacheBuffers\":");
    strings(m.cacheBuffers, out);
    out.add(",\"cacheScalars\":").add(m.cacheScalars.toString());
    out.add(",\"programs\":").add(m.programs.toString());
    out.add(",\"programMin\":").add(m.programMin.toString());
    if (realization == "cooperative-reduction") out.add(",\"layout\":").quoted(layoutName(m.lanes));
  }
  out.add("}");
}

export function costJson(c: Cost, out: Text): void {
  out.add("{\"total\":").add(num(c.total)).add(",\"terms\":{");
  const terms = c.terms();
  for (let i: i32 = 0; i < terms.length; i++) {
    if (i > 0) out.add(",");
    out.quoted(terms[i].name).add(":").add(num(terms[i].value));
  }
  out.add("}}");
}

export function rulesJson(rules: Array<RuleResult>, out: Text): void {
  out.add("[");
  for (let i: i32 = 0; i < rules.length; i++) {
    const r = rules[i];
    if (i > 0) out.add(",");
    const first = r.violations.length > 0;
    out.add("{\"id\":").quoted(r.id);
    out.add(",\"verdict\":").quoted(r.verdict);
    out.add(",\"reason\":").quoted(first ? r.violations[0].reason : r.proof);
    out.add(",\"pointer\":").quoted(first ? r.violations[0].pointer : "");
    out.add(",\"violations\":[");
    for (let k: i32 = 0; k < r.violations.length; k++) {
      if (k > 0) out.add(",");
      out.add("{\"reason\":").quoted(r.violations[k].reason).add(",\"pointer\":").quoted(r.violations[k].pointer).add("}");
    }
    out.add("]}");
  }
  out.add("]");
}

function candidatesJson(list: Array<Candidate>, realization: string, out: Text): void {
  out.add("[");
  for (let i: i32 = 0; i < list.length; i++) {
    const c = list[i];
    if (i > 0) out.add(",");
    out.add("{\"mapping\":");
    mappingJson(c.mapping, realization, out);
    out.add(",\"admissible\":").add(c.failed.length == 0 ? "true" : "false");
    out.add(",\"failed\":");
    strings(c.failed, out);
    out.add(",\"cost\":");
    costJson(c.cost, out);
    const note = c.noteText();
    if (note.length > 0) out.add(",\"note\":").quoted(note);
    out.add("}");
  }
  out.add("]");
}

/** The plan object; `ok` is false when the document was rejected (diagnostics say why). */
export function planJson(name: string, ok: bool, p: Plan, withCandidates: bool, diags: Array<Diagnostic>, out: Text): void {
  out.add("{\"name\":").quoted(name);
  out.add(",\"ok\":").add(ok ? "true" : "false");
  out.add(",\"family\":").quoted(p.family);
  out.add(",\"realization\":").quoted(ok ? p.realization : "");
  out.add(",\"kernel\":").quoted(p.kernelName);
  out.add(",\"mapping\":");
  mappingJson(p.mapping, p.realization, out);
  out.add(",\"dispatch\":{\"groups\":").add(p.mapping.groups.toString()).add(",\"threads\":").add(p.mapping.T.toString());
  // threadgroup memory is declared in the kernel body with static sizes (core/emit/abi.ts):
  // its total, for readers and limits; no [[threadgroup(j)]] argument, so no lengths to bind
  out.add(",\"threadgroupMemory\":").add(threadgroupMemoryBytes(p).toString());
  out.add(",\"threadgroupBytes\":[]}");
  out.add(",\"bindings\":[");
  for (let i: i32 = 0; i < p.bindings.length; i++) {
    const b = p.bindings[i];
    if (i > 0) out.add(",");
    out.add("{\"kind\":").quoted(b.kind).add(",\"index\":").add(b.index.toString());
    out.add(",\"name\":").quoted(b.name).add(",\"access\":").quoted(b.access);
    out.add(",\"bytes\":").add(b.bytes - b.bytes == 0.0 ? formatF64Fixed(b.bytes, 0) : "null").add("}");
  }
  out.add("]");
  out.add(",\"rules\":");
  rulesJson(p.rules, out);
  out.add(",\"rejections\":[");
  for (let i: i32 = 0; i < p.rejections.length; i++) {
    const r = p.rejections[i];
    if (i > 0) out.add(",");
    out.add("{\"realization\":").quoted(r.realization).add(",\"failed\":");
    strings(r.failed, out);
    out.add(",\"message\":").quoted(r.message).add("}");
  }
  out.add("]");
  out.add(",\"notes\":");
  strings(p.notes, out);
  out.add(",\"cost\":");
  costJson(p.cost, out);
  if (withCandidates) {
    out.add(",\"candidates\":");
    candidatesJson(p.candidates, p.realization, out);
  }
  out.add(",\"diagnostics\":");
  diagnosticsJson(out, diags);
  out.add("}");
}
