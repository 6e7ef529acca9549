// The audit's MSL tokenizer (core/audit/scan.ts): operators are matched longest first from the
// character codes, every token is a range of the source with its kind and line, and the
// identifiers the audit looks for carry word codes.
import { describe, expect, it, vi } from "vitest";

vi.mock("../core/glue/wasm", async () => await import("../core/glue/js"));

import {
  TK_IDENT, TK_NUMBER, TK_PUNCT, W_BARRIER, W_CASE, W_COLLECTIVE, W_CONST, W_DEFAULT, W_DEVICE, W_DO, W_DOUBLE, W_ELSE, W_FOR,
  W_IF, W_KERNEL, W_LIVE, W_RETURN, W_SWITCH, W_WHILE, tokenize,
} from "../core/audit/scan";
import { Text } from "../core/util/text";

interface Tok { kind: number; text: string; line: number; code: number; word: number }
/** The tokens of src as plain records (the tokenizer keeps them as numbers in one array). */
function toks(src: string): Tok[] {
  const t = tokenize(src);
  const out: Tok[] = [];
  for (let i = 0; i < t.length; i++) out.push({ kind: t.kind(i), text: t.text(src, i), line: t.line(i), code: t.code(i), word: t.word(i) });
  return out;
}
const texts = (src: string): string[] => toks(src).map((t) => t.text);

describe("tokenize", () => {
  it("every two- and three-character operator is one token, longest first", () => {
    const ops = ["<<=", ">>=", "...", "&&", "||", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "++", "--", "->", "::", "<<", ">>"];
    expect(texts(ops.join(" "))).toEqual(ops);
    // adjacent without spaces: the longest operator wins, then the rest
    expect(texts("a<<=b>>c->d::e...f")).toEqual(["a", "<<=", "b", ">>", "c", "->", "d", "::", "e", "...", "f"]);
    expect(texts("x=-y;z=!w<-1")).toEqual(["x", "=", "-", "y", ";", "z", "=", "!", "w", "<", "-", "1"]);
    expect(texts("a&b|c^d~e?f:g")).toEqual(["a", "&", "b", "|", "c", "^", "d", "~", "e", "?", "f", ":", "g"]);
  });

  it("kinds and lines; comments, strings and preprocessor lines dropped; a trailing operator at the end", () => {
    const src = "#include <metal_stdlib>\n// c\nfloat x = 1.5e-3f; /* a\nb */ y[2] += 0x1p3f;\n\"s\" z--";
    expect(toks(src).map((t) => [t.kind, t.text, t.line])).toEqual([
      [TK_IDENT, "float", 3], [TK_IDENT, "x", 3], [TK_PUNCT, "=", 3], [TK_NUMBER, "1.5e-3f", 3], [TK_PUNCT, ";", 3],
      [TK_IDENT, "y", 4], [TK_PUNCT, "[", 4], [TK_NUMBER, "2", 4], [TK_PUNCT, "]", 4], [TK_PUNCT, "+=", 4], [TK_NUMBER, "0x1p3f", 4], [TK_PUNCT, ";", 4],
      [TK_IDENT, "z", 5], [TK_PUNCT, "--", 5],
    ]);
    expect(texts("a<")).toEqual(["a", "<"]);
    expect(texts("a..")).toEqual(["a", ".", "."]);
  });

  it("word codes: exactly the audit's keywords and collectives, by whole identifier", () => {
    const words = (src: string): number[] => toks(src).map((t) => t.word);
    expect(words("if else for while switch do return case default const kernel device live double")).toEqual([
      W_IF, W_ELSE, W_FOR, W_WHILE, W_SWITCH, W_DO, W_RETURN, W_CASE, W_DEFAULT, W_CONST, W_KERNEL, W_DEVICE, W_LIVE, W_DOUBLE,
    ]);
    expect(words("threadgroup_barrier simdgroup_barrier simd_sum simd_x quad_shuffle tile_simd_max")).toEqual([
      W_BARRIER, W_COLLECTIVE, W_COLLECTIVE, W_COLLECTIVE, W_COLLECTIVE, W_COLLECTIVE,
    ]);
    // prefixes alone, near misses, longer words, other kinds: no word
    expect(words("simd_ quad_ tile_simd_ simd quad iff fo elses lives doubles Double threadgroup_barrier2 constexpr devices tile_max")).toEqual(
      new Array(15).fill(0));
    expect(words("( if2 ) 12 \"if\"")).toEqual([0, 0, 0, 0]);
  });

  it("punctuation codes only on punctuation; a text of many tokens grows the store and keeps every token", () => {
    const t = toks("a + 1 <<= b");
    expect(t.map((x) => x.code)).toEqual([-1, 43, -1, 60 | (60 << 16) | (61 << 24), -1]);
    // far more tokens than the first guess of one per four characters: "a;" is two tokens in two characters
    const src = "a;".repeat(3000);
    const many = toks(src);
    expect(many.length).toBe(6000);
    expect(many.every((x, i) => (i % 2 === 0 ? x.kind === TK_IDENT && x.text === "a" : x.kind === TK_PUNCT && x.code === 59))).toBe(true);
  });
});


describe("tokenize: plain text and its newlines (the emit response quotes the MSL from them)", () => {
  // the characters a JSON string escapes (but '\n') in every place the tokenizer reads or skips:
  // code, line and block comments, preprocessor lines, string and character literals
  const specials = ["\t", "\r", "\u000b", "\u000c", "\u0001", "\"", "\\", "\ud83d\ude00", "\ud800", "\udc00", "\ue000"];
  // characters above U+001F and below U+D800 other than '"' and '\\' need none
  const fine = ["\u00e9", "\u20ac", "~", "'"];
  const places = ["a = b; X c;", "// note X here", "/* X \n */ x;", "#define A X", "s = \"X\";", "c = 'X';", "X", "kernel void f() {}\n  y[0] = X;"];
  const bases = ["", "a;\n", "x\n\n  y;\n// c\n", "#include <metal_stdlib>\nusing namespace metal;\n\n/* one\ntwo */\nkernel void k(device float* Y [[buffer(0)]]) {\n  Y[0] = 1.0f;\n}\n"];

  function check(src: string): void {
    const t = tokenize(src);
    const escapes = /[\u0000-\u0009\u000b-\u001f"\\\ud800-\uffff]/.test(src);
    // not plain: conservative where the text needs another escape or has a string or
    // character literal (whose characters the tokenizer does not read)
    if (!t.plain) {
      expect(escapes || /["']/.test(src)).toBe(true);
      return;
    }
    expect(escapes).toBe(false);
    const ends: number[] = [];
    for (let i = 0; i < src.length; i++) if (src.charCodeAt(i) === 10) ends.push(i);
    expect(Array.from(t.newlines.subarray(0, t.newlineCount))).toEqual(ends);
    expect(new Text().quotedLines(src, t.newlines, t.newlineCount).toString()).toBe(new Text().quoted(src).toString());
  }

  it("is plain exactly when no character but '\\n' needs an escape, with every '\\n' recorded", () => {
    for (const b of bases) {
      check(b);
      expect(tokenize(b).plain).toBe(true);
      for (const p of places) {
        check(b + p.replace("X", "q"));
        for (const c of fine) check(b + p.replace("X", c));
        for (const c of specials) {
          const src = b + p.replace("X", c);
          check(src);
          expect(tokenize(src).plain).toBe(false);
        }
      }
    }
    // many lines (the newline list grows)
    check("x;\n".repeat(5000));
    check("/*" + "\n".repeat(300) + "*/\n" + "y;\n".repeat(40));
  });
});
