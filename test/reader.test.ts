// The strict JSON reader (core/util/json.ts): every kind of value, malformed text with exact line
// and column, the documented size and depth limits, unicode escapes; and how loadDocument turns
// reader failures into TIR001 / TIR002 / TIR003 / TIR008.
import { describe, expect, it, vi } from "vitest";

vi.mock("../core/glue/wasm", async () => await import("../core/glue/js"));

import {
  J_ARR, J_BOOL, J_NULL, J_NUM, J_OBJ, J_STR, JsonValue, MAX_DOCUMENT_CHARS, MAX_JSON_DEPTH, quote, readJson,
} from "../core/util/json";
import { validate } from "./helpers/core";
import { hexDigits, Text } from "../core/util/text";

function ok(src: string): JsonValue {
  const r = readJson(src, MAX_JSON_DEPTH);
  if (!r.ok) throw new Error(`expected ${JSON.stringify(src)} to read, got ${r.failure}: ${r.message} at ${r.line}:${r.col}`);
  return r.value;
}

function failure(src: string): { failure: string; message: string; line: number; column: number } {
  const r = readJson(src, MAX_JSON_DEPTH);
  expect(r.ok, `expected ${JSON.stringify(src)} to be rejected`).toBe(false);
  return { failure: r.failure, message: r.message, line: r.line, column: r.col };
}

/** The JSON value tree as plain JS data (numbers as their token text). */
function plain(v: JsonValue): unknown {
  if (v.kind === J_NULL) return null;
  if (v.kind === J_BOOL) return v.flag;
  if (v.kind === J_NUM) return { num: v.text };
  if (v.kind === J_STR) return v.text;
  if (v.kind === J_ARR) return v.items.map(plain);
  const o: Record<string, unknown> = {};
  for (let i = 0; i < v.keys.length; i++) o[v.keys[i]] = plain(v.items[i]);
  return o;
}

describe("valid JSON", () => {
  it("reads every kind of value", () => {
    expect(ok("null").kind).toBe(J_NULL);
    const t = ok("true");
    expect([t.kind, t.flag]).toEqual([J_BOOL, true]);
    const f = ok("false");
    expect([f.kind, f.flag]).toEqual([J_BOOL, false]);
    expect(ok('"tile"').kind).toBe(J_STR);
    expect(ok("[]").kind).toBe(J_ARR);
    expect(ok("{}").kind).toBe(J_OBJ);
    expect(plain(ok('{"a": [1, -2, 3.5, "x", true, false, null, {}, []], "b": {"c": {"d": []}}}'))).toEqual({
      a: [{ num: "1" }, { num: "-2" }, { num: "3.5" }, "x", true, false, null, {}, []],
      b: { c: { d: [] } },
    });
  });

  it("keeps number tokens exactly as written", () => {
    for (const n of ["0", "-0", "7", "-2147483649", "3.25", "1e5", "1E+5", "2.5e-10", "-0.0", "123456789012345678901234567890"]) {
      const v = ok(n);
      expect(v.kind).toBe(J_NUM);
      expect(v.text).toBe(n);
    }
    expect(ok("1").isInteger()).toBe(true);
    expect(ok("-12").isInteger()).toBe(true);
    expect(ok("1.0").isInteger()).toBe(false);
    expect(ok("1e3").isInteger()).toBe(false);
  });

  it("accepts every JSON whitespace and a leading byte order mark", () => {
    expect(plain(ok(' \t\r\n[\r\n\t1 ,\n 2 ] \n'))).toEqual([{ num: "1" }, { num: "2" }]);
    expect(plain(ok("\ufeff{\"a\": 1}"))).toEqual({ a: { num: "1" } });
  });

  it("decodes every escape", () => {
    expect(ok('"\\" \\\\ \\/ \\b \\f \\n \\r \\t"').text).toBe('" \\ / \b \f \n \r \t');
    expect(ok('"a\\u0000b"').text).toBe("a\u0000b");
  });

  it("records the line and column of each value", () => {
    const v = ok('{\n  "a": [1,\n     "x"]}');
    expect([v.line, v.col]).toEqual([1, 1]);
    const arr = v.items[0];
    expect([arr.line, arr.col]).toEqual([2, 8]);
    expect([arr.items[0].line, arr.items[0].col]).toEqual([2, 9]);
    expect([arr.items[1].line, arr.items[1].col]).toEqual([3, 6]);
  });

  it("keeps object keys in document order", () => {
    const v = ok('{"z": 1, "a": 2, "m": 3}');
    expect(v.keys).toEqual(["z", "a", "m"]);
    expect(v.find("a")).toBe(1);
    expect(v.find("q")).toBe(-1);
  });
});

describe("malformed JSON: kind, line and column", () => {
  const cases: Array<[string, string, number, number, RegExp]> = [
    // [what, source, line, column, message]
    ["unterminated string", '{"name": "softmax', 1, 18, /not closed before the end/],
    ["unterminated string on a later line", '{\n  "name": "soft\n', 2, 16, /U\+000A inside a string/],
    ["trailing comma in an array", "[1, 2,]", 1, 7, /Expected a JSON value but found '\]'/],
    ["trailing comma in an object", '{"a": 1,\n}', 2, 1, /Expected a quoted key .* found '}'/],
    ["missing colon", '{"a" 1}', 1, 6, /Expected ':' after a key but found '1'/],
    ["missing comma", '[1 2]', 1, 4, /Expected ',' or '\]'/],
    ["missing comma in an object", '{"a": 1 "b": 2}', 1, 9, /Expected ',' or '}'/],
    ["bad escape", '["ok", "a\\x"]', 1, 11, /Unknown escape \\x/],
    ["bad unicode escape", '"\\u12G4"', 1, 6, /four hex digits/],
    ["short unicode escape at the end", '"\\u12', 1, 6, /four hex digits/],
    ["raw control character", '["a\tb"]', 1, 4, /U\+0009 inside a string must be escaped/],
    ["leading '+'", "[+1]", 1, 2, /Expected a JSON value but found '\+'/],
    ["leading zero", "[01]", 1, 3, /Expected ',' or '\]'/],
    ["lone minus", "[-]", 1, 3, /Expected a digit/],
    ["digitless fraction", "1.", 1, 3, /after the decimal point/],
    ["digitless exponent", "1e+", 1, 4, /in the exponent/],
    ["leading decimal point", ".5", 1, 1, /Expected a JSON value but found '\.'/],
    ["bare word", '{"a": yes}', 1, 7, /Expected a JSON value but found 'y'/],
    ["capitalised literal", "True", 1, 1, /Expected a JSON value but found 'T'/],
    ["NaN", "[NaN]", 1, 2, /found 'N'/],
    ["truncated literal", "[nul]", 1, 5, /Expected 'null' but found '\]'/],
    ["single quotes", "['a']", 1, 2, /found '''/],
    ["comment", "// tile\n{}", 1, 1, /found '\/'/],
    ["unquoted key", "{tile: 1}", 1, 2, /Expected a quoted key/],
    ["empty document", "", 1, 1, /found the end of the document/],
    ["only whitespace", "  \n   ", 2, 4, /found the end of the document/],
    ["unexpected end in an array", "[1, 2", 1, 6, /found the end of the document/],
    ["unexpected end in an object", '{"a": {"b": 1}', 1, 15, /found the end of the document/],
    ["unexpected end after a key", '{"a"', 1, 5, /Expected ':'/],
    ["text after the value", "{}\n  x", 2, 3, /Unexpected 'x' after the end of the JSON value/],
    ["a second value", "1 2", 1, 3, /Unexpected '2' after the end/],
    ["non-ASCII outside strings", "[1, \u00e9]", 1, 5, /character U\+00E9/],
    ["CRLF line endings", '{\r\n  "a": 1,\r\n  "b": ]\r\n}', 3, 8, /Expected a JSON value but found '\]'/],
  ];
  for (const [what, src, line, column, message] of cases) {
    it(what, () => {
      const f = failure(src);
      expect(f.failure).toBe("syntax");
      expect([f.line, f.column]).toEqual([line, column]);
      expect(f.message).toMatch(message);
    });
  }

  it("a duplicate key, at the repeated key", () => {
    const f = failure('{\n  "a": 1,\n  "b": {"c": 1, "c": 2}\n}');
    expect(f.failure).toBe("duplicate-key");
    expect([f.line, f.column]).toEqual([3, 17]);
    expect(f.message).toContain('"c"');
  });

  it("a duplicate key spelled with an escape", () => {
    const f = failure('{"a": 1, "\\u0061": 2}');
    expect(f.failure).toBe("duplicate-key");
    expect([f.line, f.column]).toEqual([1, 10]);
  });

  it("the same key in different objects is fine", () => {
    expect(plain(ok('{"a": {"a": 1}, "b": {"a": 2}}'))).toEqual({ a: { a: { num: "1" } }, b: { a: { num: "2" } } });
  });

  it("columns count UTF-16 code units", () => {
    // "😀" is two code units: '[' 1, '"' 2, the emoji 3-4, '"' 5, ',' 6, ' ' 7, 'x' 8.
    const f = failure('["😀", x]');
    expect([f.line, f.column]).toEqual([1, 8]);
  });

  it("loadDocument reports syntax errors as TIR001 and duplicate keys as TIR008, with line and column", () => {
    const a = validate('{\n  "tile": 1,\n  "name": "x",\n}');
    expect(a.diagnostics).toHaveLength(1);
    expect(a.diagnostics[0]).toMatchObject({ code: "TIR001", pointer: "", line: 4, column: 1 });
    expect(a.diagnostics[0].message).toContain("(line 4, column 1)");
    const b = validate('{"tile": 1, "tile": 1}');
    expect(b.diagnostics).toHaveLength(1);
    expect(b.diagnostics[0]).toMatchObject({ code: "TIR008", pointer: "/tile", line: 1, column: 13 });
    // the pointer of the second member, through arrays and escaped keys (RFC 6901)
    const c = validate('{"body": [1, {"a/b~": 0, "x": [{"k": 1, "k": 2}]}]}');
    expect(c.diagnostics[0]).toMatchObject({ code: "TIR008", pointer: "/body/1/x/0/k" });
    const d = validate('{"body": [{"a/b~": 0, "a/b~": 1}]}');
    expect(d.diagnostics[0]).toMatchObject({ code: "TIR008", pointer: "/body/0/a~1b~0" });
  });
});

describe("limits", () => {
  it(`accepts a document of exactly MAX_DOCUMENT_CHARS (${MAX_DOCUMENT_CHARS}) characters`, () => {
    const src = '"' + "a".repeat(MAX_DOCUMENT_CHARS - 2) + '"';
    expect(src.length).toBe(MAX_DOCUMENT_CHARS);
    expect(ok(src).text.length).toBe(MAX_DOCUMENT_CHARS - 2);
  });

  it("rejects one character more as too large (TIR002), before reading it", () => {
    // Whitespace and a valid value: only the size is wrong.
    const src = "{}" + " ".repeat(MAX_DOCUMENT_CHARS - 1);
    const f = failure(src);
    expect(f.failure).toBe("too-large");
    expect(f.message).toContain(String(MAX_DOCUMENT_CHARS));
    const v = validate(src);
    expect(v.diagnostics).toHaveLength(1);
    expect(v.diagnostics[0]).toMatchObject({ code: "TIR002", pointer: "", line: 1, column: 1 });
  });

  const nest = (n: number, open: string, close: string): string => open.repeat(n) + close.repeat(n);

  it(`accepts arrays and objects nested exactly MAX_JSON_DEPTH (${MAX_JSON_DEPTH}) deep`, () => {
    let v = ok(nest(MAX_JSON_DEPTH, "[", "]"));
    let depth = 1;
    while (v.items.length > 0) {
      v = v.items[0];
      depth++;
    }
    expect(depth).toBe(MAX_JSON_DEPTH);
    ok('{"a":'.repeat(MAX_JSON_DEPTH - 1) + "{}" + "}".repeat(MAX_JSON_DEPTH - 1));
  });

  it("rejects one level more as too deep (TIR003), at the opening bracket", () => {
    const f = failure(nest(MAX_JSON_DEPTH + 1, "[", "]"));
    expect(f.failure).toBe("too-deep");
    expect([f.line, f.column]).toEqual([1, MAX_JSON_DEPTH + 1]);
    const g = failure("{\n" + '"a":{'.repeat(MAX_JSON_DEPTH) + "}".repeat(MAX_JSON_DEPTH + 1));
    expect(g.failure).toBe("too-deep");
    expect([g.line, g.column]).toEqual([2, 5 * MAX_JSON_DEPTH]);
    const v = validate(nest(MAX_JSON_DEPTH + 1, "[", "]"));
    expect(v.diagnostics).toHaveLength(1);
    expect(v.diagnostics[0]).toMatchObject({ code: "TIR003", pointer: "", line: 1, column: MAX_JSON_DEPTH + 1 });
  });

  it("survives nesting far beyond the limit (no stack overflow)", () => {
    expect(failure(nest(100000, "[", "]")).failure).toBe("too-deep");
  });
});

function hasLoneSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    else if (c >= 0xd800 && c <= 0xdfff) return true;
  }
  return false;
}

describe("unicode", () => {
  it("decodes \\u escapes in either case", () => {
    expect(ok('"\\u0041\\u00e9\\u00E9\\u4e2d"').text).toBe("A\u00e9\u00e9\u4e2d");
  });

  it("joins a surrogate pair into one character", () => {
    const v = ok('"\\ud83d\\ude00"');
    expect(v.text).toBe("😀");
    expect(v.text.codePointAt(0)).toBe(0x1f600);
    expect(ok('"\\uD83D\\uDE00"').text).toBe(ok('"😀"').text);
  });

  it("keeps raw non-ASCII text as is", () => {
    expect(ok('"größe × 😀"').text).toBe("größe × 😀");
  });

  it("keeps a lone surrogate escape (it is valid JSON), and quote() escapes it again", () => {
    const v = ok('"a\\ud800b"');
    expect(v.text).toBe("a\ud800b");
    expect(quote(v.text)).toBe('"a\\ud800b"');
    expect(quote("\udc00")).toBe('"\\udc00"');
    expect(quote("\ude00\ud83d")).toBe('"\\ude00\\ud83d"'); // the wrong order is not a pair
  });

  it("quote() writes text that reads back to the same string", () => {
    const samples = ["", "plain", 'q"uote', "back\\slash", "\u0000\u0001\u001f", "tab\tnew\nline\r", "é 中 😀", "\ud800", "x\udfffy"];
    for (const s of samples) {
      const q = quote(s);
      expect(ok(q).text).toBe(s);
      // the builder's form (responses add strings this way) writes the same text
      expect(new Text().add("[").quoted(s).add("]").toString()).toBe("[" + q + "]");
      expect(JSON.parse(q)).toBe(s);
      // Output never holds a raw control character or a lone surrogate.
      expect(/[\u0000-\u001f]/.test(q)).toBe(false);
      expect(hasLoneSurrogate(q)).toBe(false);
    }
    expect(quote("é😀")).toBe('"é😀"');
  });

  it("Text: any number of parts, across chunk boundaries, and more parts after toString", () => {
    for (const n of [0, 1, 63, 64, 65, 127, 128, 129, 200, 1000]) {
      const t = new Text();
      const want: string[] = [];
      for (let i = 0; i < n; i++) {
        const part = i % 7 === 0 ? "" : "p" + i + (i % 3 === 0 ? "\n" : ",");
        t.add(part);
        want.push(part);
        if (i === 70 || i === 5) expect(t.toString()).toBe(want.join(""));
      }
      expect(t.toString()).toBe(want.join(""));
      t.line("end");
      expect(t.toString()).toBe(want.join("") + "end\n");
    }
  });

  it("hexDigits: the one hex writer of JSON escapes, Python escapes and U+ messages", () => {
    expect(hexDigits(0, 4, false)).toBe("0000");
    expect(hexDigits(0x1f, 2, false)).toBe("1f");
    expect(hexDigits(0xabcd, 4, true)).toBe("ABCD");
    expect(hexDigits(0xabcd, 4, false)).toBe("abcd");
    expect(hexDigits(0xffff, 4, false)).toBe("ffff");
    expect(hexDigits(0x7f, 2, true)).toBe("7F");
    expect(quote("\u001f")).toBe('"\\u001f"');
    // a raw control character inside a string names it in upper case
    expect(failure('"a\u0001b"').message).toContain("U+0001");
    expect(failure('"a\u001fb"').message).toContain("U+001F");
  });
});

describe("string decoding agrees with JSON.parse (fast and general paths)", () => {
  it("on 5,000 random strings of quotes, backslashes, control and non-ASCII characters", () => {
    const alphabet = ['"', "\\", "\n", "\t", "\r", "/", "a", "Z", "0", " ", "\u00e9", "\u2028", "\ud83d\ude00", "\b", "\f", "\u0001", "n", "t", "u"];
    let seed = 12345;
    const next = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) | 0) >>> 0) / 4294967296;
    for (let k = 0; k < 5000; k++) {
      let s = "";
      const n = Math.floor(next() * 24);
      for (let i = 0; i < n; i++) s += alphabet[Math.floor(next() * alphabet.length)];
      // JSON.stringify escapes \" \\ \n \t \r \b \f and control characters; "/" stays raw, so
      // also try the form with "\/" that other encoders produce
      for (const text of [JSON.stringify(s), JSON.stringify(s).replaceAll("/", "\\/")]) {
        const r = readJson(text, 16);
        expect(r.ok, text).toBe(true);
        expect(r.value.text, text).toBe(s);
      }
    }
  });

  it("long strings with the simple escapes only (decoded in chunks of codes): every length around a chunk's end", () => {
    const alphabet = ['"', "\n", "\t", "\r", "/", "a", "Z", " ", "\u00e9", "{", ":"];
    let seed = 777;
    const next = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) | 0) >>> 0) / 4294967296;
    for (const n of [1, 2, 2046, 2047, 2048, 2049, 2050, 4095, 4096, 4097, 6500]) {
      let s = "";
      for (let i = 0; i < n; i++) s += alphabet[Math.floor(next() * alphabet.length)];
      for (const text of [JSON.stringify(s), JSON.stringify(s).replaceAll("/", "\\/")]) {
        const r = readJson(text, 16);
        expect(r.ok, String(n)).toBe(true);
        expect(r.value.text.length, String(n)).toBe(n);
        expect(r.value.text === s, String(n)).toBe(true);
      }
    }
  });
});

