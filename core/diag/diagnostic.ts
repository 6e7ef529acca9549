import { codeCategory, codeId } from "./catalogue";
import { Text } from "../util/text";

/** One finding about a document: a stable code, a JSON pointer, and one actionable sentence. */
export class Diagnostic {
  code: string;
  severity: string;
  message: string;
  pointer: string;
  /** 0 when the position is given by the pointer only. */
  line: i32;
  column: i32;
  related: string;

  constructor(code: string, message: string, pointer: string, line: i32, column: i32, related: string) {
    this.code = code;
    this.severity = codeCategory(code);
    this.message = message;
    this.pointer = pointer;
    this.line = line;
    this.column = column;
    this.related = related;
  }

  toJson(out: Text): void {
    out.add("{\"code\":").quoted(this.code);
    out.add(",\"id\":").quoted(codeId(this.code));
    out.add(",\"severity\":").quoted(this.severity);
    out.add(",\"message\":").quoted(this.message);
    out.add(",\"pointer\":").quoted(this.pointer);
    if (this.line > 0) out.add(",\"line\":").add(this.line.toString()).add(",\"column\":").add(this.column.toString());
    if (this.related.length > 0) out.add(",\"related\":").quoted(this.related);
    out.add("}");
  }
}

export function diag(code: string, pointer: string, message: string): Diagnostic {
  return new Diagnostic(code, message, pointer, 0, 0, "");
}

export function diagAt(code: string, pointer: string, message: string, line: i32, column: i32): Diagnostic {
  return new Diagnostic(code, message, pointer, line, column, "");
}

export function diagRelated(code: string, pointer: string, message: string, related: string): Diagnostic {
  return new Diagnostic(code, message, pointer, 0, 0, related);
}

export function hasErrors(list: Array<Diagnostic>): bool {
  for (let i: i32 = 0; i < list.length; i++) {
    if (list[i].severity == "error") return true;
  }
  return false;
}

export function diagnosticsJson(out: Text, list: Array<Diagnostic>): void {
  out.add("[");
  for (let i: i32 = 0; i < list.length; i++) {
    if (i > 0) out.add(",");
    list[i].toJson(out);
  }
  out.add("]");
}

/** Escapes one JSON-pointer segment (RFC 6901). */
export function seg(s: string): string {
  let needs = false;
  for (let i: i32 = 0; i < s.length; i++) {
    const c: i32 = s.charCodeAt(i);
    if (c == 126 || c == 47) needs = true;
  }
  if (!needs) return "/" + s;
  return "/" + s.replaceAll("~", "~0").replaceAll("/", "~1");
}
