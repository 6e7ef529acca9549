// A small tokenizer for MSL text, for the audit: identifiers, numbers and punctuation with their
// line numbers; comments, string literals and preprocessor lines are dropped. A token is a range
// of the source (no substring per token): punctuation carries a numeric code, and an identifier
// that the audit looks for carries a word code (W_*), so the audit compares numbers; the text of
// a token is taken (Tokens.text) only where the audit needs it; the tokens are numbers in one array.

export const TK_IDENT: i32 = 1;
export const TK_NUMBER: i32 = 2;
export const TK_PUNCT: i32 = 3;

// word codes of the identifiers the audit recognises (0: any other token)
export const W_IF: i32 = 1;
export const W_ELSE: i32 = 2;
export const W_FOR: i32 = 3;
export const W_WHILE: i32 = 4;
export const W_SWITCH: i32 = 5;
export const W_DO: i32 = 6;
export const W_RETURN: i32 = 7;
export const W_CASE: i32 = 8;
export const W_DEFAULT: i32 = 9;
export const W_CONST: i32 = 10;
export const W_KERNEL: i32 = 11;
export const W_DEVICE: i32 = 12;
export const W_LIVE: i32 = 13;
export const W_DOUBLE: i32 = 14;
/** threadgroup_barrier */
export const W_BARRIER: i32 = 15;
/** A SIMD or quad collective: simdgroup_barrier, simd_*, quad_*, and the prelude's tile_simd_*. */
export const W_COLLECTIVE: i32 = 16;

/** Numbers stored per token (Tokens.data): kind, start, end, line, and the punctuation code of a
 *  punctuation token or the word code of an identifier (0 for a number). */
const FIELDS: i32 = 5;

/** The tokens of a text, as numbers in one growing Int32Array (no object per token): token i is
 *  src[start(i), end(i)). */
export class Tokens {
  data: Int32Array;
  length: i32 = 0;
  /** Whether the text has no character that a JSON string must escape but '\n' (none below
   *  U+0020 but '\n', no '"', no '\\', no UTF-16 surrogate): then `newlines` holds the position
   *  of every '\n', in order, and Text.quotedLines writes the text's JSON string without
   *  looking at its characters again (the emit response quotes the MSL the audit tokenized). */
  plain: bool = true;
  newlines: Int32Array;
  newlineCount: i32 = 0;

  constructor(capacity: i32, lines: i32) {
    this.data = new Int32Array((capacity < 16 ? 16 : capacity) * FIELDS);
    this.newlines = new Int32Array(lines < 16 ? 16 : lines);
  }

  /** Records a '\n' at position i. */
  newline(i: i32): void {
    if (this.newlineCount == this.newlines.length) {
      const grown = new Int32Array(this.newlines.length * 2);
      grown.set(this.newlines);
      this.newlines = grown;
    }
    this.newlines[this.newlineCount] = i;
    this.newlineCount = this.newlineCount + 1;
  }

  /** Room for one more token (tokenize calls it before each token it may push): push itself
   *  calls nothing, so the WebAssembly build can inline it. */
  reserve(): void {
    if (this.length * FIELDS + FIELDS > this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
  }

  /** Adds a token; reserve() first. */
  push(kind: i32, start: i32, end: i32, line: i32, cw: i32): void {
    const at: i32 = this.length * FIELDS;
    const d = this.data; // one load of the store, not one per field
    // reserve() made room for these five: no bounds checks (small enough for the WebAssembly
    // build to inline into tokenize)
    unchecked(d[at] = kind);
    unchecked(d[at + 1] = start);
    unchecked(d[at + 2] = end);
    unchecked(d[at + 3] = line);
    unchecked(d[at + 4] = cw);
    this.length = this.length + 1;
  }

  kind(i: i32): i32 {
    return this.data[i * FIELDS];
  }

  start(i: i32): i32 {
    return this.data[i * FIELDS + 1];
  }

  end(i: i32): i32 {
    return this.data[i * FIELDS + 2];
  }

  line(i: i32): i32 {
    return this.data[i * FIELDS + 3];
  }

  /** A punctuation token's characters as one number (punctCode), -1 for any other token: the
   *  audit compares punctuation by this instead of by text. */
  code(i: i32): i32 {
    return this.data[i * FIELDS] == TK_PUNCT ? this.data[i * FIELDS + 4] : -1;
  }

  /** An identifier's word code (W_*), 0 for any other identifier and other tokens. */
  word(i: i32): i32 {
    return this.data[i * FIELDS] == TK_IDENT ? this.data[i * FIELDS + 4] : 0;
  }

  /** The text of token i of `src`. */
  text(src: string, i: i32): string {
    return src.substring(this.start(i), this.end(i));
  }
}


/** Whether src[s, e) is `w`. */
export function rangeIs(src: string, s: i32, e: i32, w: string): bool {
  if (e - s != w.length) return false;
  for (let i: i32 = 0; i < w.length; i++) if (src.charCodeAt(s + i) != w.charCodeAt(i)) return false;
  return true;
}

/** Whether src[s, e) starts with `p` and is longer than it. */
function rangeStartsWith(src: string, s: i32, e: i32, p: string): bool {
  if (e - s <= p.length) return false;
  for (let i: i32 = 0; i < p.length; i++) if (src.charCodeAt(s + i) != p.charCodeAt(i)) return false;
  return true;
}

/** The word code of the identifier src[s, e): by its first character, then one or two candidates. */
export function wordOf(src: string, s: i32, e: i32): i32 {
  const n: i32 = e - s;
  const c: i32 = src.charCodeAt(s);
  if (c == 105) return rangeIs(src, s, e, "if") ? W_IF : 0; // i
  if (c == 100) { // d
    if (n == 2) return rangeIs(src, s, e, "do") ? W_DO : 0;
    if (n == 6) return rangeIs(src, s, e, "device") ? W_DEVICE : rangeIs(src, s, e, "double") ? W_DOUBLE : 0;
    return rangeIs(src, s, e, "default") ? W_DEFAULT : 0;
  }
  if (c == 102) return rangeIs(src, s, e, "for") ? W_FOR : 0; // f
  if (c == 101) return rangeIs(src, s, e, "else") ? W_ELSE : 0; // e
  if (c == 99) return n == 4 ? (rangeIs(src, s, e, "case") ? W_CASE : 0) : rangeIs(src, s, e, "const") ? W_CONST : 0; // c
  if (c == 108) return rangeIs(src, s, e, "live") ? W_LIVE : 0; // l
  if (c == 119) return rangeIs(src, s, e, "while") ? W_WHILE : 0; // w
  if (c == 114) return rangeIs(src, s, e, "return") ? W_RETURN : 0; // r
  if (c == 107) return rangeIs(src, s, e, "kernel") ? W_KERNEL : 0; // k
  if (c == 115) { // s: switch, and the collectives simdgroup_barrier, simd_X
    if (rangeIs(src, s, e, "switch")) return W_SWITCH;
    return rangeIs(src, s, e, "simdgroup_barrier") || rangeStartsWith(src, s, e, "simd_") ? W_COLLECTIVE : 0;
  }
  if (c == 116) { // t
    if (rangeIs(src, s, e, "threadgroup_barrier")) return W_BARRIER;
    return rangeStartsWith(src, s, e, "tile_simd_") ? W_COLLECTIVE : 0;
  }
  if (c == 113) return rangeStartsWith(src, s, e, "quad_") ? W_COLLECTIVE : 0; // q
  return 0;
}

/** The code of a punctuation token of one, two or three characters (the second and third are
 *  ASCII): distinct texts, distinct codes. */
export function punctCode(c: i32, d: i32, e: i32, len: i32): i32 {
  if (len == 1) return c;
  if (len == 2) return c | (d << 16);
  return c | (d << 16) | (e << 24);
}

function isAlpha(c: i32): bool {
  const l: i32 = c | 32; // A-Z to a-z; no other character lands in a-z
  return (l >= 97 && l <= 122) || c == 95;
}

function isDigit(c: i32): bool {
  return c >= 48 && c <= 57;
}

export function tokenize(src: string): Tokens {
  // about one token per five characters of MSL and a line per 30: rarely grown
  const out = new Tokens(src.length >> 2, src.length >> 4);
  const n: i32 = src.length;
  let i: i32 = 0;
  let line: i32 = 1;
  let lineStart: bool = true;
  while (i < n) {
    const c: i32 = src.charCodeAt(i);
    if (c == 10) {
      out.newline(i);
      line = line + 1;
      lineStart = true;
      i = i + 1;
      continue;
    }
    if (c == 32) {
      i = i + 1;
      continue;
    }
    if (c == 9 || c == 13 || c == 12 || c == 11) {
      out.plain = false;
      i = i + 1;
      continue;
    }
    if (c == 35 && lineStart) {
      // preprocessor line (with backslash continuations)
      while (i < n && src.charCodeAt(i) != 10) {
        const d: i32 = src.charCodeAt(i); // not '\n': a JSON escape is c < 32, '"', '\\' or a surrogate
        if (d < 32 || d == 34 || d == 92 || d >= 0xd800) out.plain = false;
        if (d == 92 && i + 1 < n && src.charCodeAt(i + 1) == 10) {
          line = line + 1;
          i = i + 1;
        }
        i = i + 1;
      }
      continue;
    }
    lineStart = false;
    out.reserve(); // what follows pushes at most one token
    if (c == 47 && i + 1 < n && src.charCodeAt(i + 1) == 47) {
      while (i < n) {
        const d: i32 = src.charCodeAt(i);
        if (d == 10) break;
        if (d < 32 || d == 34 || d == 92 || d >= 0xd800) out.plain = false; // a JSON escape
        i = i + 1;
      }
      continue;
    }
    if (c == 47 && i + 1 < n && src.charCodeAt(i + 1) == 42) {
      i = i + 2;
      while (i < n && !(src.charCodeAt(i) == 42 && i + 1 < n && src.charCodeAt(i + 1) == 47)) {
        const d: i32 = src.charCodeAt(i);
        if (d == 10) {
          out.newline(i);
          line = line + 1;
        } else if (d < 32 || d == 34 || d == 92 || d >= 0xd800) out.plain = false; // a JSON escape
        i = i + 1;
      }
      i = i + 2;
      continue;
    }
    if (c == 34 || c == 39) {
      // a string or character literal (its characters are not looked at, and it may end at a
      // '\n' it consumes): the text is not plain
      out.plain = false;
      const q: i32 = c;
      i = i + 1;
      while (i < n && src.charCodeAt(i) != q && src.charCodeAt(i) != 10) {
        if (src.charCodeAt(i) == 92) i = i + 1;
        i = i + 1;
      }
      i = i + 1;
      continue;
    }
    if (isAlpha(c)) {
      const s: i32 = i;
      while (i < n) {
        // a letter, a digit or '_' continues the identifier (this loop sees most of the text)
        const d: i32 = src.charCodeAt(i);
        const l: i32 = d | 32;
        if ((l >= 97 && l <= 122) || (d >= 48 && d <= 57) || d == 95) i = i + 1;
        else break;
      }
      out.push(TK_IDENT, s, i, line, wordOf(src, s, i));
      continue;
    }
    if (isDigit(c) || (c == 46 && i + 1 < n && isDigit(src.charCodeAt(i + 1)))) {
      const s: i32 = i;
      while (i < n) {
        const d: i32 = src.charCodeAt(i);
        const prev: i32 = src.charCodeAt(i - 1);
        if (isAlpha(d) || isDigit(d) || d == 46) i = i + 1;
        else if ((d == 43 || d == 45) && (prev == 101 || prev == 69 || prev == 112 || prev == 80)) i = i + 1;
        else break;
      }
      out.push(TK_NUMBER, s, i, line, 0);
      continue;
    }
    // the operator's length from the character codes (no substring until the token is known)
    const d: i32 = i + 1 < n ? src.charCodeAt(i + 1) : 0;
    const e: i32 = i + 2 < n ? src.charCodeAt(i + 2) : 0;
    if (c < 32 || c == 92 || c >= 0xd800) out.plain = false; // a JSON escape (not '\n' or '"' here)
    // the operator: three characters (... <<= >>=), two (== != <= >= += -= *= /= %= &= |= ^= && ||
    // ++ -- << >> :: ->) or one, and its punctCode, written out (a call each per token otherwise)
    let len: i32 = 1;
    if (c == 46 ? d == 46 && e == 46 : (c == 60 || c == 62) && d == c && e == 61) len = 3;
    else if (d == 61) {
      if (c == 61 || c == 33 || c == 60 || c == 62 || c == 43 || c == 45 || c == 42 || c == 47 || c == 37 || c == 38 || c == 124 || c == 94) len = 2;
    } else if (d == c) {
      if (c == 38 || c == 124 || c == 43 || c == 45 || c == 60 || c == 62 || c == 58) len = 2;
    } else if (c == 45 && d == 62) len = 2;
    out.push(TK_PUNCT, i, i + len, line, len == 1 ? c : len == 2 ? c | (d << 16) : c | (d << 16) | (e << 24));
    i = i + len;
  }
  return out;
}

/** Whether a number token is an integer literal ("0", "49", "4u", "0x10"). */
export function isIntLiteral(t: string): bool {
  if (t.length == 0) return false;
  let end: i32 = t.length;
  while (end > 0) {
    const c: i32 = t.charCodeAt(end - 1);
    if (c == 117 || c == 85 || c == 108 || c == 76) end = end - 1;
    else break;
  }
  if (end == 0) return false;
  if (end > 2 && t.charCodeAt(0) == 48 && (t.charCodeAt(1) == 120 || t.charCodeAt(1) == 88)) {
    for (let i: i32 = 2; i < end; i++) {
      const c: i32 = t.charCodeAt(i);
      if (!(isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) return false;
    }
    return true;
  }
  for (let i: i32 = 0; i < end; i++) if (!isDigit(t.charCodeAt(i))) return false;
  return true;
}
