// Canonical printer: one fixed layout and key order, so parse -> print -> parse is the identity
// and printing a printed document reproduces it byte for byte. Defaults are omitted (a step of
// literal 1, an empty or absent else); attrs are always printed.

import { Doc, Expr, Stmt } from "./ast";
import { Text } from "../util/text";
import { formatF32 } from "../util/num";

export function printExpr(e: Expr, out: Text): void {
  const op = e.op;
  if (op == "int") {
    out.add(e.ival.toString());
    return;
  }
  if (op == "f32") {
    out.add("[\"f32\", ").add(formatF32(e.fval)).add("]");
    return;
  }
  if (op == "name") {
    out.quoted(e.name);
    return;
  }
  if (op == "load") {
    out.add("[\"load\", ").quoted(e.name).add(", ");
    printList(e.args, out);
    out.add("]");
    return;
  }
  out.add("[").quoted(op);
  if (op == "cast") out.add(", ").quoted(e.name);
  for (let i: i32 = 0; i < e.args.length; i++) {
    out.add(", ");
    printExpr(e.args[i], out);
  }
  out.add("]");
}

function printList(list: Array<Expr>, out: Text): void {
  out.add("[");
  for (let i: i32 = 0; i < list.length; i++) {
    if (i > 0) out.add(", ");
    printExpr(list[i], out);
  }
  out.add("]");
}

function indent(n: i32, out: Text): void {
  for (let i: i32 = 0; i < n; i++) out.add("  ");
}

function printBody(list: Array<Stmt>, depth: i32, out: Text): void {
  if (list.length == 0) {
    out.add("[]");
    return;
  }
  out.add("[\n");
  for (let i: i32 = 0; i < list.length; i++) {
    indent(depth + 1, out);
    printStmt(list[i], depth + 1, out);
    out.add(i + 1 < list.length ? ",\n" : "\n");
  }
  indent(depth, out);
  out.add("]");
}

export function printStmt(s: Stmt, depth: i32, out: Text): void {
  if (s.kind == "for") {
    out.add("{\"for\": ").quoted(s.name).add(", \"in\": [");
    printExpr(s.min, out);
    out.add(", ");
    printExpr(s.extent, out);
    out.add("], \"kind\": ").add(s.parallel ? "\"parallel\"" : "\"serial\"");
    if (!(s.step.op == "int" && s.step.ival == 1)) {
      out.add(", \"step\": ");
      printExpr(s.step, out);
    }
    out.add(", \"body\": ");
    printBody(s.body, depth, out);
    out.add("}");
  } else if (s.kind == "reduce") {
    out.add("{\"reduce\": ").quoted(s.name).add(", \"combiner\": ").quoted(s.combiner);
    out.add(", \"over\": [").quoted(s.axis).add(", ");
    printExpr(s.min, out);
    out.add(", ");
    printExpr(s.extent, out);
    out.add("], \"value\": ");
    printExpr(s.value, out);
    out.add("}");
  } else if (s.kind == "let") {
    out.add("{\"let\": ").quoted(s.name).add(", \"value\": ");
    printExpr(s.value, out);
    out.add("}");
  } else if (s.kind == "store") {
    out.add("{\"store\": ").quoted(s.name).add(", \"at\": ");
    printList(s.at, out);
    out.add(", \"value\": ");
    printExpr(s.value, out);
    out.add("}");
  } else {
    out.add("{\"if\": ");
    printExpr(s.cond, out);
    out.add(", \"then\": ");
    printBody(s.body, depth, out);
    if (s.orelse.length > 0) {
      out.add(", \"else\": ");
      printBody(s.orelse, depth, out);
    }
    out.add("}");
  }
}

/** The canonical text of a document (ends with a newline). */
export function printDoc(d: Doc): string {
  const out = new Text();
  out.add("{\n  \"tile\": 1,\n  \"name\": ").quoted(d.name).add(",\n");
  out.add("  \"attrs\": {\"noalias\": ").add(d.noalias ? "true" : "false").add("},\n");
  out.add("  \"sizes\": {");
  for (let i: i32 = 0; i < d.sizeNames.length; i++) {
    if (i > 0) out.add(", ");
    out.quoted(d.sizeNames[i]).add(": ").add(d.sizeValues[i].toString());
  }
  out.add("},\n  \"params\": [");
  for (let i: i32 = 0; i < d.params.length; i++) {
    const p = d.params[i];
    out.add(i > 0 ? ",\n    " : "\n    ");
    out.add("{\"name\": ").quoted(p.name).add(", \"dtype\": ").quoted(p.dtype).add(", \"shape\": ");
    printList(p.shape, out);
    out.add("}");
  }
  out.add(d.params.length > 0 ? "\n  ],\n" : "],\n");
  out.add("  \"body\": ");
  printBody(d.body, 1, out);
  out.add("\n}\n");
  return out.toString();
}
