// The audit's MSL tokenizer (core/audit/scan.ts): operators are matched longest first from the
// character codes, and every token keeps its text, kind and line.
import { describe, expect, it, vi } from "vitest";

vi.mock("../core/glue/wasm", async () => await import("../core/glue/js"));

import { TK_IDENT, TK_NUMBER, TK_PUNCT, tokenize } from "../core/audit/scan";

const texts = (src: string): string[] => tokenize(src).map((t) => t.text);

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
    const toks = tokenize("#include <metal_stdlib>\n// c\nfloat x = 1.5e-3f; /* a\nb */ y[2] += 0x1p3f;\n\"s\" z--");
    expect(toks.map((t) => [t.kind, t.text, t.line])).toEqual([
      [TK_IDENT, "float", 3], [TK_IDENT, "x", 3], [TK_PUNCT, "=", 3], [TK_NUMBER, "1.5e-3f", 3], [TK_PUNCT, ";", 3],
      [TK_IDENT, "y", 4], [TK_PUNCT, "[", 4], [TK_NUMBER, "2", 4], [TK_PUNCT, "]", 4], [TK_PUNCT, "+=", 4], [TK_NUMBER, "0x1p3f", 4], [TK_PUNCT, ";", 4],
      [TK_IDENT, "z", 5], [TK_PUNCT, "--", 5],
    ]);
    expect(texts("a<")).toEqual(["a", "<"]);
    expect(texts("a..")).toEqual(["a", ".", "."]);
  });
});
