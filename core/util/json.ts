// A strict JSON reader for the core (RFC 8259, no extensions). It keeps number tokens as text
// so that the IR reader can convert them exactly, reports line and column on error, rejects
// duplicate keys, and enforces the documented size and depth limits.

import { hexDigits, Text } from "./text";
import { seg } from "../diag/diagnostic";

export const J_NULL: i32 = 0;
export const J_BOOL: i32 = 1;
export const J_NUM: i32 = 2;
export const J_STR: i32 = 3;
export const J_ARR: i32 = 4;
export const J_OBJ: i32 = 5;

/** Largest document accepted, in UTF-16 code units (about 4 MiB of ASCII). */
export const MAX_DOCUMENT_CHARS: i32 = 4194304;
/** Deepest nesting of arrays and objects accepted by the reader. */
export const MAX_JSON_DEPTH: i32 = 256;
/** Largest request to the core's API, in UTF-16 code units: room for a document just over
 *  MAX_DOCUMENT_CHARS even when escaped, so that it is reported as too large (TIR002) rather
 *  than as a malformed request. */
export const MAX_REQUEST_CHARS: i32 = 33554432;

/** Shared by every leaf value (never mutated): leaves allocate no arrays of their own. */
const NO_ITEMS: Array<JsonValue> = new Array<JsonValue>();
const NO_KEYS: Array<string> = new Array<string>();

export class JsonValue {
  kind: i32;
  flag: bool = false;
  /** The raw token for numbers; the decoded value for strings. */
  text: string = "";
  /** Elements of an array, values of an object (a fresh array only for those two kinds). */
  items: Array<JsonValue> = NO_ITEMS;
  /** Keys of an object. */
  keys: Array<string> = NO_KEYS;
  line: i32;
  col: i32;

  constructor(kind: i32, line: i32, col: i32) {
    this.kind = kind;
    this.line = line;
    this.col = col;
  }

  /** Index of `key` in an object, or -1. */
  find(key: string): i32 {
    for (let i: i32 = 0; i < this.keys.length; i++) {
      if (this.keys[i] == key) return i;
    }
    return -1;
  }

  isInteger(): bool {
    if (this.kind != J_NUM) return false;
    for (let i: i32 = 0; i < this.text.length; i++) {
      const c: i32 = this.text.charCodeAt(i);
      if (c == 46 || c == 101 || c == 69) return false; // . e E
    }
    return true;
  }
}

export class JsonResult {
  value: JsonValue;
  ok: bool;
  /** "syntax", "too-large", "too-deep" or "duplicate-key" when not ok. */
  failure: string;
  message: string;
  line: i32;
  col: i32;
  /** A duplicate key: the JSON pointer of its second member ("" for other failures). */
  pointer: string = "";

  constructor(value: JsonValue, ok: bool, failure: string, message: string, line: i32, col: i32) {
    this.value = value;
    this.ok = ok;
    this.failure = failure;
    this.message = message;
    this.line = line;
    this.col = col;
  }
}


/** Characters decoded per string by unescapeSimple (at most). */
const UNESCAPE_CHUNK: i32 = 2048;

/** src[start, end) with its escapes \" \n \t \r \/ (the only ones simpleString admits)
 *  replaced, in one pass: the decoded characters go into a buffer of codes that becomes one
 *  string per UNESCAPE_CHUNK characters (a document inside a request has an escape every few
 *  characters, so the runs between escapes would be many tiny parts). */
function unescapeSimple(src: string, start: i32, end: i32): string {
  const out = new Text();
  const size: i32 = end - start < UNESCAPE_CHUNK ? end - start : UNESCAPE_CHUNK;
  const codes = new Array<i32>(size);
  let k: i32 = 0;
  let i: i32 = start;
  while (i < end) {
    let c: i32 = src.charCodeAt(i);
    if (c == 92) {
      const e: i32 = src.charCodeAt(i + 1);
      c = e == 110 ? 10 : e == 116 ? 9 : e == 114 ? 13 : e; // \n \t \r; \/ and \" are the character itself
      i += 2;
    } else i++;
    codes[k] = c;
    k++;
    if (k == size) {
      out.add(String.fromCharCodes(codes));
      k = 0;
    }
  }
  if (k > 0) {
    codes.length = k;
    out.add(String.fromCharCodes(codes));
  }
  return out.toString();
}

class Reader {
  src: string;
  pos: i32 = 0;
  line: i32 = 1;
  lineStart: i32 = 0;
  failed: bool = false;
  failure: string = "";
  message: string = "";
  errLine: i32 = 0;
  errCol: i32 = 0;
  /** After a duplicate key: its member's pointer, built segment by segment as the failure
   *  unwinds through the containers (nothing is tracked while reading succeeds). */
  failPath: string = "";
  maxDepth: i32;

  constructor(src: string, maxDepth: i32) {
    this.src = src;
    this.maxDepth = maxDepth;
  }

  col(): i32 {
    return this.pos - this.lineStart + 1;
  }

  fail(failure: string, message: string): JsonValue {
    if (!this.failed) {
      this.failed = true;
      this.failure = failure;
      this.message = message;
      this.errLine = this.line;
      this.errCol = this.col();
    }
    return new JsonValue(J_NULL, this.line, this.col());
  }

  peek(): i32 {
    return this.pos < this.src.length ? this.src.charCodeAt(this.pos) : -1;
  }

  skipSpace(): void {
    while (this.pos < this.src.length) {
      const c: i32 = this.src.charCodeAt(this.pos);
      if (c == 10) {
        this.pos++;
        this.line++;
        this.lineStart = this.pos;
      } else if (c == 32 || c == 9 || c == 13) {
        this.pos++;
      } else {
        break;
      }
    }
  }

  describe(c: i32): string {
    if (c < 0) return "the end of the document";
    if (c < 32 || c > 126) return "character U+" + hexDigits(c, 4, true);
    return "'" + String.fromCharCode(c) + "'";
  }

  value(depth: i32): JsonValue {
    this.skipSpace();
    const c: i32 = this.peek();
    if (c == 123) return this.object(depth);
    if (c == 91) return this.array(depth);
    if (c == 34) return this.string();
    if (c == 45 || (c >= 48 && c <= 57)) return this.number();
    if (c == 116) return this.literal("true", J_BOOL, true);
    if (c == 102) return this.literal("false", J_BOOL, false);
    if (c == 110) return this.literal("null", J_NULL, false);
    return this.fail("syntax", "Expected a JSON value but found " + this.describe(c) + ".");
  }

  literal(word: string, kind: i32, flag: bool): JsonValue {
    const v = new JsonValue(kind, this.line, this.col());
    for (let i: i32 = 0; i < word.length; i++) {
      if (this.peek() != word.charCodeAt(i)) {
        return this.fail("syntax", "Expected '" + word + "' but found " + this.describe(this.peek()) + ".");
      }
      this.pos++;
    }
    v.flag = flag;
    return v;
  }

  number(): JsonValue {
    const v = new JsonValue(J_NUM, this.line, this.col());
    const start: i32 = this.pos;
    if (this.peek() == 45) this.pos++;
    let c: i32 = this.peek();
    if (c == 48) {
      this.pos++;
    } else if (c >= 49 && c <= 57) {
      while (this.peek() >= 48 && this.peek() <= 57) this.pos++;
    } else {
      return this.fail("syntax", "Expected a digit but found " + this.describe(c) + ".");
    }
    if (this.peek() == 46) {
      this.pos++;
      if (!(this.peek() >= 48 && this.peek() <= 57)) {
        return this.fail("syntax", "Expected a digit after the decimal point but found " + this.describe(this.peek()) + ".");
      }
      while (this.peek() >= 48 && this.peek() <= 57) this.pos++;
    }
    c = this.peek();
    if (c == 101 || c == 69) {
      this.pos++;
      c = this.peek();
      if (c == 43 || c == 45) this.pos++;
      if (!(this.peek() >= 48 && this.peek() <= 57)) {
        return this.fail("syntax", "Expected a digit in the exponent but found " + this.describe(this.peek()) + ".");
      }
      while (this.peek() >= 48 && this.peek() <= 57) this.pos++;
    }
    v.text = this.src.substring(start, this.pos);
    return v;
  }

  /**
   * Fast path for a string whose escapes are only \" \n \t \r \/ (no \\, no \u, no \b \f):
   * with no escaped backslash, replacing each escape kind in turn cannot create or break
   * another, so a few native replaceAll calls decode it (a document embedded in a request is
   * such a string). Returns false, consuming nothing, for anything else.
   */
  simpleString(v: JsonValue): bool {
    const src = this.src;
    const start: i32 = this.pos + 1;
    let i: i32 = start;
    let escapes: bool = false;
    while (i < src.length) {
      const c: i32 = src.charCodeAt(i);
      if (c == 34) break;
      if (c < 32) return false;
      if (c == 92) {
        if (i + 1 >= src.length) return false;
        const e: i32 = src.charCodeAt(i + 1);
        if (e != 34 && e != 110 && e != 116 && e != 114 && e != 47) return false;
        escapes = true;
        i += 2;
        continue;
      }
      i++;
    }
    if (i >= src.length) return false;
    v.text = escapes ? unescapeSimple(src, start, i) : src.substring(start, i);
    this.pos = i + 1;
    return true;
  }

  string(): JsonValue {
    const v = new JsonValue(J_STR, this.line, this.col());
    if (this.simpleString(v)) return v;
    this.pos++; // opening quote
    const parts = new Array<string>();
    let runStart: i32 = this.pos;
    while (true) {
      if (this.pos >= this.src.length) {
        return this.fail("syntax", "The string is not closed before the end of the document.");
      }
      const c: i32 = this.src.charCodeAt(this.pos);
      if (c == 34) {
        parts.push(this.src.substring(runStart, this.pos));
        this.pos++;
        break;
      }
      if (c < 32) {
        return this.fail("syntax", "Control character U+" + hexDigits(c, 4, true) + " inside a string must be escaped.");
      }
      if (c == 92) {
        parts.push(this.src.substring(runStart, this.pos));
        this.pos++;
        const e: i32 = this.peek();
        if (e == 34) parts.push("\"");
        else if (e == 92) parts.push("\\");
        else if (e == 47) parts.push("/");
        else if (e == 98) parts.push("\b");
        else if (e == 102) parts.push("\f");
        else if (e == 110) parts.push("\n");
        else if (e == 114) parts.push("\r");
        else if (e == 116) parts.push("\t");
        else if (e == 117) {
          let code: i32 = 0;
          for (let k: i32 = 0; k < 4; k++) {
            this.pos++;
            const h: i32 = hexDigit(this.peek());
            if (h < 0) return this.fail("syntax", "Expected four hex digits after \\u.");
            code = code * 16 + h;
          }
          parts.push(String.fromCharCode(code));
        } else {
          return this.fail("syntax", "Unknown escape \\" + String.fromCharCode(e < 0 ? 63 : e) + " in a string.");
        }
        this.pos++;
        runStart = this.pos;
        continue;
      }
      this.pos++;
    }
    v.text = parts.length == 1 ? parts[0] : parts.join("");
    return v;
  }

  array(depth: i32): JsonValue {
    const v = new JsonValue(J_ARR, this.line, this.col());
    v.items = new Array<JsonValue>();
    if (depth >= this.maxDepth) return this.fail("too-deep", "Nesting is deeper than the limit of " + this.maxDepth.toString() + " levels.");
    this.pos++;
    this.skipSpace();
    if (this.peek() == 93) {
      this.pos++;
      return v;
    }
    while (true) {
      const item = this.value(depth + 1);
      if (this.failed) {
        if (this.failure == "duplicate-key") this.failPath = "/" + v.items.length.toString() + this.failPath;
        return item;
      }
      v.items.push(item);
      this.skipSpace();
      const c: i32 = this.peek();
      if (c == 44) {
        this.pos++;
        continue;
      }
      if (c == 93) {
        this.pos++;
        return v;
      }
      return this.fail("syntax", "Expected ',' or ']' in an array but found " + this.describe(c) + ".");
    }
  }

  object(depth: i32): JsonValue {
    const v = new JsonValue(J_OBJ, this.line, this.col());
    v.items = new Array<JsonValue>();
    v.keys = new Array<string>();
    if (depth >= this.maxDepth) return this.fail("too-deep", "Nesting is deeper than the limit of " + this.maxDepth.toString() + " levels.");
    this.pos++;
    this.skipSpace();
    if (this.peek() == 125) {
      this.pos++;
      return v;
    }
    while (true) {
      this.skipSpace();
      if (this.peek() != 34) return this.fail("syntax", "Expected a quoted key in an object but found " + this.describe(this.peek()) + ".");
      const keyLine: i32 = this.line;
      const keyCol: i32 = this.col();
      const key = this.string();
      if (this.failed) return key;
      if (v.find(key.text) >= 0) {
        this.failed = true;
        this.failure = "duplicate-key";
        this.message = "The key \"" + key.text + "\" appears twice in one object.";
        this.errLine = keyLine;
        this.errCol = keyCol;
        this.failPath = seg(key.text);
        return v;
      }
      this.skipSpace();
      if (this.peek() != 58) return this.fail("syntax", "Expected ':' after a key but found " + this.describe(this.peek()) + ".");
      this.pos++;
      const item = this.value(depth + 1);
      if (this.failed) {
        if (this.failure == "duplicate-key") this.failPath = seg(key.text) + this.failPath;
        return item;
      }
      v.keys.push(key.text);
      v.items.push(item);
      this.skipSpace();
      const c: i32 = this.peek();
      if (c == 44) {
        this.pos++;
        continue;
      }
      if (c == 125) {
        this.pos++;
        return v;
      }
      return this.fail("syntax", "Expected ',' or '}' in an object but found " + this.describe(c) + ".");
    }
  }
}

function hexDigit(c: i32): i32 {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** Reads one JSON document. Never throws; a failure carries its kind, message, line and column. */
export function readJson(src: string, maxDepth: i32): JsonResult {
  return readJsonWithin(src, maxDepth, MAX_DOCUMENT_CHARS);
}

/** Reads one JSON text of at most `maxChars` UTF-16 code units (readJson uses MAX_DOCUMENT_CHARS). */
export function readJsonWithin(src: string, maxDepth: i32, maxChars: i32): JsonResult {
  if (src.length > maxChars) {
    return new JsonResult(new JsonValue(J_NULL, 1, 1), false, "too-large",
      "The document has " + src.length.toString() + " characters, more than the limit of " + maxChars.toString() + ".", 1, 1);
  }
  const r = new Reader(src, maxDepth);
  r.skipSpace();
  if (r.peek() == 0xfeff) {
    r.pos++;
  }
  const v = r.value(0);
  if (!r.failed) {
    r.skipSpace();
    if (r.pos < src.length) r.fail("syntax", "Unexpected " + r.describe(r.peek()) + " after the end of the JSON value.");
  }
  if (r.failed) {
    const failed = new JsonResult(v, false, r.failure, r.message, r.errLine, r.errCol);
    failed.pointer = r.failPath;
    return failed;
  }
  return new JsonResult(v, true, "", "", 0, 0);
}

/** JSON string literal (with quotes) for `s`. */
export function quote(s: string): string {
  if (!needsEscape(s)) return "\"" + s + "\"";
  return new Text().quoted(s).toString();
}

function needsEscape(s: string): bool {
  for (let i: i32 = 0; i < s.length; i++) {
    const c: i32 = s.charCodeAt(i);
    if (c >= 32 && c != 34 && c != 92 && c < 0xd800) continue;
    if (c < 32 || c == 34 || c == 92 || c <= 0xdfff) return true;
  }
  return false;
}

