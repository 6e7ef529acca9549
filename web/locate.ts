// Where a diagnostic points in the document text. The core reports a JSON pointer
// ("/body/0/body/2/at/1") for a parsed document, and line and column (1-based, UTF-16 code
// units, lines split at "\n") for malformed JSON. Both become a [start, end) range of the text.

export interface TextRange {
  start: number;
  end: number;
}

export interface Location extends TextRange {
  /** False when the pointer named something absent and its nearest present parent is shown. */
  exact: boolean;
}

class Stop extends Error {}

/** Every JSON pointer of a document mapped to its value's range. Malformed text keeps the
 *  values read before the error. A repeated key keeps its first value. */
export function valueRanges(text: string): Map<string, TextRange> {
  const ranges = new Map<string, TextRange>();
  let pos = 0;

  const space = (): void => {
    while (pos < text.length && " \t\n\r".includes(text[pos])) pos++;
  };
  const expect = (ch: string): void => {
    if (text[pos] !== ch) throw new Stop();
    pos++;
  };
  const string = (): string => {
    const start = pos;
    expect('"');
    while (pos < text.length && text[pos] !== '"') pos += text[pos] === "\\" ? 2 : 1;
    expect('"');
    try {
      return JSON.parse(text.slice(start, pos)) as string;
    } catch {
      throw new Stop();
    }
  };
  const value = (pointer: string): void => {
    space();
    const start = pos;
    const c = text[pos];
    if (c === "{") {
      pos++;
      space();
      if (text[pos] === "}") pos++;
      else {
        for (;;) {
          space();
          const key = string();
          space();
          expect(":");
          value(pointer + "/" + key.replace(/~/g, "~0").replace(/\//g, "~1"));
          space();
          if (text[pos] === ",") { pos++; continue; }
          expect("}");
          break;
        }
      }
    } else if (c === "[") {
      pos++;
      space();
      if (text[pos] === "]") pos++;
      else {
        for (let i = 0; ; i++) {
          value(pointer + "/" + i);
          space();
          if (text[pos] === ",") { pos++; continue; }
          expect("]");
          break;
        }
      }
    } else if (c === '"') {
      string();
    } else {
      while (pos < text.length && !" \t\n\r,]}:".includes(text[pos])) pos++;
      if (pos === start) throw new Stop();
    }
    if (!ranges.has(pointer)) ranges.set(pointer, { start, end: pos });
  };

  try {
    value("");
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
  }
  return ranges;
}

/** The range of the value a pointer names, or of its nearest present parent (never the whole
 *  document: a pointer that resolves only to the root has no useful range). */
export function locatePointer(text: string, pointer: string): Location | null {
  if (pointer === "" || pointer[0] !== "/") return null;
  const ranges = valueRanges(text);
  for (let p = pointer; p !== ""; p = p.slice(0, p.lastIndexOf("/"))) {
    const r = ranges.get(p);
    if (r !== undefined) return { start: r.start, end: r.end, exact: p === pointer };
  }
  return null;
}

/** Offset of a 1-based line and column, clamped to the text. */
export function offsetOf(text: string, line: number, column: number): number {
  let at = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf("\n", at);
    if (nl < 0) return text.length;
    at = nl + 1;
  }
  const lineEnd = text.indexOf("\n", at);
  return Math.min(at + Math.max(column - 1, 0), lineEnd < 0 ? text.length : lineEnd);
}

/** The token at a line and column: a string (to its closing quote on the same line), a word
 *  or number, else one character; at a line's end or the end of the text, the character
 *  before it. */
export function locateLineColumn(text: string, line: number, column: number): Location | null {
  if (text.length === 0) return null;
  let start = offsetOf(text, line, column);
  if (start >= text.length || text[start] === "\n") start = Math.max(start - 1, 0);
  let end = start + 1;
  const word = /[A-Za-z0-9_.+-]/;
  if (text[start] === '"') {
    while (end < text.length && text[end] !== '"' && text[end] !== "\n") end += text[end] === "\\" ? 2 : 1;
    if (text[end] === '"') end++;
    else end = start + 1; // unterminated: the quote alone
  } else if (word.test(text[start])) {
    while (end < text.length && word.test(text[end])) end++;
  }
  return { start, end: Math.min(end, text.length), exact: true };
}

export interface Pointed {
  pointer: string;
  line?: number;
  column?: number;
}

/** The pointer's whole value when it names one; otherwise line and column (malformed JSON, or
 *  a node the pointer no longer finds). The core gives both for a parsed document. */
export function locate(text: string, d: Pointed): Location | null {
  const byPointer = d.pointer !== "" ? locatePointer(text, d.pointer) : null;
  if (byPointer !== null) return byPointer;
  if (d.line !== undefined && d.line > 0) return locateLineColumn(text, d.line, d.column ?? 1);
  return null;
}
