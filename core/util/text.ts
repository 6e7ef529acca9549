// A string builder that stays linear in both builds (AssemblyScript's join is quadratic with
// shrinkLevel >= 1, so parts are folded into chunks of bounded count).

/** Parts joined into one chunk at a time. */
const CHUNK_PARTS: i32 = 64;

export class Text {
  /** The parts since the last chunk: parts[0, count) (the array keeps its CHUNK_PARTS slots, so
   *  adding a part is one store, not a push that may grow the array). */
  parts: Array<string> = new Array<string>(CHUNK_PARTS);
  count: i32 = 0;
  chunks: Array<string> = new Array<string>();

  add(s: string): Text {
    this.parts[this.count] = s;
    this.count = this.count + 1;
    if (this.count == CHUNK_PARTS) {
      this.chunks.push(this.parts.join(""));
      this.count = 0;
    }
    return this;
  }

  /** Adds the JSON string literal for `s` (quotes and escapes; the text util/json's quote gives):
   *  runs of characters that need no escape go in as parts of their own, no string is built. */
  quoted(s: string): Text {
    this.add("\"");
    let run: i32 = 0;
    for (let i: i32 = 0; i < s.length; i++) {
      const c: i32 = s.charCodeAt(i);
      if (c >= 32 && c != 34 && c != 92 && c < 0xd800) continue; // the usual character: part of the run
      let esc: string = "";
      if (c == 34) esc = "\\\"";
      else if (c == 92) esc = "\\\\";
      else if (c == 10) esc = "\\n";
      else if (c == 13) esc = "\\r";
      else if (c == 9) esc = "\\t";
      else if (c < 32) esc = "\\u" + hexDigits(c, 4, false);
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) == 0xdc00) {
        i++; // a surrogate pair: one character, kept as is (part of the run)
        continue;
      } else if (c >= 0xd800 && c <= 0xdfff) {
        // A lone surrogate has no UTF-8 form: escape it, so the response is valid UTF-8 in both builds.
        esc = "\\u" + hexDigits(c, 4, false);
      } else continue;
      if (i > run) this.add(s.substring(run, i));
      this.add(esc);
      run = i + 1;
    }
    if (s.length > run) this.add(run == 0 ? s : s.substring(run, s.length));
    return this.add("\"");
  }

  /** The same parts as quoted(s) for a string whose only character that needs an escape is
   *  '\n', found at positions ends[0, count) (every one, in order; audit/scan.ts Tokens.plain):
   *  no character of s is looked at. */
  quotedLines(s: string, ends: Int32Array, count: i32): Text {
    this.add("\"");
    let run: i32 = 0;
    for (let k: i32 = 0; k < count; k++) {
      const i: i32 = ends[k];
      if (i > run) this.add(s.substring(run, i));
      this.add("\\n");
      run = i + 1;
    }
    if (s.length > run) this.add(run == 0 ? s : s.substring(run, s.length));
    return this.add("\"");
  }

  line(s: string): Text {
    this.add(s);
    return this.add("\n");
  }

  toString(): string {
    const rest: string = this.count == 0 ? "" : this.parts.slice(0, this.count).join("");
    if (this.chunks.length == 0) return rest;
    const all = new Array<string>();
    for (let i: i32 = 0; i < this.chunks.length; i++) all.push(this.chunks[i]);
    all.push(rest);
    return all.join("");
  }
}

const HEX_LOWER: string = "0123456789abcdef";
const HEX_UPPER: string = "0123456789ABCDEF";

/** `digits` hex digits of v (0 <= v < 16^digits), in lower or upper case: JSON's and Python's
 *  escapes (lower), "U+XXXX" in messages (upper). */
export function hexDigits(v: i32, digits: i32, upper: bool): string {
  const set: string = upper ? HEX_UPPER : HEX_LOWER;
  let s = "";
  for (let k: i32 = (digits - 1) * 4; k >= 0; k -= 4) s += set.charAt((v >> k) & 15);
  return s;
}

/** Integer division truncating toward zero, identical in both builds (b != 0). */
export function idiv(a: i32, b: i32): i32 {
  return i32(a / b);
}

/** Floor division for b > 0. */
export function floorDiv(a: i32, b: i32): i32 {
  const q: i32 = i32(a / b);
  return (q * b > a) ? q - 1 : q;
}

/** Ceiling division for b > 0, without the overflow of a + b - 1 (identical in both builds). */
export function ceilDiv(a: i32, b: i32): i32 {
  const q: i32 = i32(a / b);
  return q * b < a ? q + 1 : q;
}
