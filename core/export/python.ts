// Python text for the exported modules (mlx.ts, torch.ts): identifiers, string literals, tuples.
// Portable core code: the JS and WebAssembly builds write byte-identical modules.

import { Doc } from "../ir/ast";
import { formatI32 } from "../util/num";
import { hexDigits } from "../util/text";

/** Python keywords and the module-level names the generated modules use. */
const PY_RESERVED: Array<string> = [
  "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
  "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
  "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with",
  "yield", "mx", "torch", "os", "HEADER", "SOURCE",
  // the builtins the modules call: a function or argument of that name would replace them
  "isinstance", "tuple", "getattr", "type", "TypeError", "ValueError", "RuntimeError",
];

/** `s` escaped for a Python string literal; newlines stay real newlines when `multiline`. */
function escape(s: string, multiline: bool): string {
  const parts = new Array<string>();
  for (let i: i32 = 0; i < s.length; i++) {
    const c: i32 = s.charCodeAt(i);
    if (c == 92) parts.push("\\\\");
    else if (c == 34) parts.push("\\\"");
    else if (c == 10) parts.push(multiline ? "\n" : "\\n");
    else if (c < 32 || c == 127) parts.push("\\x" + hexDigits(c, 2, false));
    else if (c > 127) parts.push("\\u" + hexDigits(c, 4, false));
    else parts.push(String.fromCharCode(c));
  }
  return parts.join("");
}

/** A one-line Python string literal. */
export function pyStr(s: string): string {
  return "\"" + escape(s, false) + "\"";
}

/** A triple-quoted Python string literal holding `s` exactly (real newlines, escapes elsewhere). */
export function pyBlock(s: string): string {
  return "\"\"\"" + escape(s, true) + "\"\"\"";
}

/** Text for a comment or a docstring line: printable ASCII, anything else becomes '?'. */
export function pyPlain(s: string): string {
  const parts = new Array<string>();
  for (let i: i32 = 0; i < s.length; i++) {
    const c: i32 = s.charCodeAt(i);
    parts.push(c < 32 || c > 126 || c == 92 || c == 34 ? "?" : String.fromCharCode(c));
  }
  return parts.join("");
}

/** A Python identifier for `name`, distinct from `taken` (which it joins) and from keywords. */
export function pyIdent(name: string, taken: Array<string>): string {
  const parts = new Array<string>();
  for (let i: i32 = 0; i < name.length; i++) {
    const c: i32 = name.charCodeAt(i);
    const ok: bool = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95;
    parts.push(ok ? String.fromCharCode(c) : "_");
  }
  let s: string = parts.join("");
  // a leading digit, the module's own prefix "_tile", or a dunder name (__all__, __name__: Python's
  // own module attributes, which a function of that name would replace): a letter in front
  // (appending could never remove the prefix)
  const dunder: bool = s.length > 4 && s.startsWith("__") && s.endsWith("__");
  if (s.length == 0 || (s.charCodeAt(0) >= 48 && s.charCodeAt(0) <= 57) || s.startsWith("_tile") || dunder) s = "k" + s;
  while (PY_RESERVED.indexOf(s) >= 0 || taken.indexOf(s) >= 0) s = s + "_";
  taken.push(s);
  return s;
}

/** The shape of parameter `p` as a Python tuple: "(37, 1537)", "(5,)", "()". */
export function pyShape(doc: Doc, p: i32): string {
  const n: i32 = doc.params[p].shape.length;
  if (n == 0) return "()";
  const parts = new Array<string>();
  for (let d: i32 = 0; d < n; d++) parts.push(formatI32(doc.dim(p, d)));
  return "(" + parts.join(", ") + (n == 1 ? ",)" : ")");
}

/** "name=value" for every size of the document, in declaration order. */
export function sizesText(doc: Doc): string {
  const parts = new Array<string>();
  for (let i: i32 = 0; i < doc.sizeNames.length; i++) parts.push(doc.sizeNames[i] + "=" + formatI32(doc.sizeValues[i]));
  return parts.join(", ");
}
