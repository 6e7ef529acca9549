// The audit's MSL tokenizer (core/audit/scan.ts): operators are matched longest first from the
// character codes, every token is a range of the source with its kind and line, and the
// identifiers the audit looks for carry word codes.
import { describe, expect, it, vi } from "vitest";

vi.mock("../core/glue/wasm", async () => await import("../core/glue/js"));

import {
  TK_IDENT, TK_NUMBER, TK_PUNCT, W_BARRIER, W_CASE, W_COLLECTIVE, W_CONST, W_DEFAULT, W_DEVICE, W_DO, W_DOUBLE, W_ELSE, W_FOR,
  W_IF, W_KERNEL, W_LIVE, W_RETURN, W_SWITCH, W_WHILE, tokenText, tokenize,
} from "../core/audit/scan";

const texts = (src: string): string[] => tokenize(src).map((t) => tokenText(src, t));

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
    const toks = tokenize(src);
    expect(toks.map((t) => [t.kind, tokenText(src, t), t.line])).toEqual([
      [TK_IDENT, "float", 3], [TK_IDENT, "x", 3], [TK_PUNCT, "=", 3], [TK_NUMBER, "1.5e-3f", 3], [TK_PUNCT, ";", 3],
      [TK_IDENT, "y", 4], [TK_PUNCT, "[", 4], [TK_NUMBER, "2", 4], [TK_PUNCT, "]", 4], [TK_PUNCT, "+=", 4], [TK_NUMBER, "0x1p3f", 4], [TK_PUNCT, ";", 4],
      [TK_IDENT, "z", 5], [TK_PUNCT, "--", 5],
    ]);
    expect(texts("a<")).toEqual(["a", "<"]);
    expect(texts("a..")).toEqual(["a", ".", "."]);
  });

  it("word codes: exactly the audit's keywords and collectives, by whole identifier", () => {
    const words = (src: string): number[] => tokenize(src).map((t) => t.word);
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
});
