// Line and column for diagnostics that point into the document. The JSON reader records where
// every value starts; a JSON pointer ("/body/0/value/1") is followed through the value tree
// to the deepest node that exists, and that node's line and column (1-based, UTF-16 code
// units) are put on the diagnostic. Pointers into the options ("/options/...") and the empty
// pointer (the whole document), like a pointer none of whose parts exist, keep no position.

import { J_ARR, J_OBJ, JsonValue } from "../util/json";
import { Diagnostic } from "../diag/diagnostic";
import { isI32Text, parseI32 } from "../util/num";

/** Decodes one pointer segment (RFC 6901: ~1 is "/", ~0 is "~"). */
function unescape(s: string): string {
  if (s.indexOf("~") < 0) return s;
  return s.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** The deepest value on `pointer`'s path (the root when nothing below it exists). */
export function valueAt(root: JsonValue, pointer: string): JsonValue {
  let v = root;
  if (pointer.length == 0) return v;
  const parts = pointer.substring(1).split("/");
  for (let i: i32 = 0; i < parts.length; i++) {
    const key = unescape(parts[i]);
    if (v.kind == J_OBJ) {
      const k = v.find(key);
      if (k < 0) return v;
      v = v.items[k];
    } else if (v.kind == J_ARR) {
      if (!isI32Text(key)) return v;
      const n = parseI32(key);
      if (n < 0 || n >= v.items.length) return v;
      v = v.items[n];
    } else {
      return v;
    }
  }
  return v;
}

/** Puts a line and column on every diagnostic whose pointer is into the document. */
export function locateDiagnostics(root: JsonValue, list: Array<Diagnostic>): void {
  for (let i: i32 = 0; i < list.length; i++) {
    const d = list[i];
    if (d.line > 0 || d.pointer.length == 0 || d.pointer.startsWith("/options")) continue;
    const v = valueAt(root, d.pointer);
    // a pointer that resolves only to the whole document has no useful position
    if (v != root && v.line > 0) {
      d.line = v.line;
      d.column = v.col;
    }
  }
}
