// The validator (core/ir/load.ts: read + size overrides + check), driven by fixture files:
// test/fixtures/validate/<CODE>-<slug>.json with a sibling <CODE>-<slug>.expect.json holding
// { "code", "pointer" [, "line", "column"] [, "related"] [, "count"] [, "sizes"] [, "padTo"] }.
// ok-<slug>.json fixtures are valid documents (expectation {}).
//
// Regenerate expectations with TILE_UPDATE_FIXTURES=1 npx vitest run test/validator.test.ts,
// then review every changed .expect.json in the diff before committing.
import { describe, expect, it, vi } from "vitest";

vi.mock("../core/glue/wasm", async () => await import("../core/glue/js"));

import fs from "node:fs";
import { CODES, CODE_STRIDE } from "../core/diag/catalogue";
import { buildCase, caseNames } from "../core/builders/index";
import { MAX_DOCUMENT_CHARS } from "../core/util/json";
import { MAX_IR_DEPTH } from "../core/ir/read";
import { PlainDiagnostic, validate } from "./helpers/core";
import { ValidateExpectation, caseFiles, fixtureDocument, validateFixtures } from "./helpers/files";

import { locatePointer } from "../web/locate";

const UPDATE = process.env.TILE_UPDATE_FIXTURES === "1";

/** 1-based line and column (UTF-16 units) of a text offset. */
function lineColumn(text: string, offset: number): [number, number] {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return [line, offset - (before.lastIndexOf("\n") + 1) + 1];
}
const fixtures = validateFixtures();

/** Codes a document cannot produce through the core: TIR027 (bytes that are not UTF-8) is found
 *  by the shell before the core sees text; it is tested in cli.test.ts. */
const SHELL_ONLY = ["TIR027"];
const documentCodes = (): string[] => {
  const out: string[] = [];
  for (let i = 0; i < CODES.length; i += CODE_STRIDE) {
    if (CODES[i].startsWith("TIR") && SHELL_ONLY.indexOf(CODES[i]) < 0) out.push(CODES[i]);
  }
  return out;
};

function expectationOf(diags: PlainDiagnostic[], old: ValidateExpectation): ValidateExpectation {
  const e: ValidateExpectation = {};
  if (diags.length > 0) {
    const d = diags[0];
    e.code = d.code;
    e.pointer = d.pointer;
    if (d.line > 0) {
      e.line = d.line;
      e.column = d.column;
    }
    if (d.related !== "") e.related = d.related;
    if (diags.length !== 1) e.count = diags.length;
  }
  if (old.sizes !== undefined) e.sizes = old.sizes;
  if (old.padTo !== undefined) e.padTo = old.padTo;
  return e;
}

describe("validate fixtures", () => {
  for (const f of fixtures) {
    it(f.name, () => {
      const result = validate(fixtureDocument(f), f.expect.sizes);
      if (UPDATE) fs.writeFileSync(f.expectFile, JSON.stringify(expectationOf(result.diagnostics, f.expect), null, 2) + "\n");
      const want = UPDATE ? expectationOf(result.diagnostics, f.expect) : f.expect;
      // The file name states the code, so a regenerated expectation cannot silently change it.
      const prefix = /^(TIR\d{3})-/.exec(f.name);
      if (prefix) expect(want.code).toBe(prefix[1]);
      else expect(f.name.startsWith("ok-"), "fixture names start with a code or ok-").toBe(true);

      const diags = result.diagnostics;
      if (want.code === undefined) {
        expect(diags).toEqual([]);
        expect(result.ok).toBe(true);
        return;
      }
      expect(result.ok).toBe(false);
      expect(diags.length).toBe(want.count ?? 1);
      expect(diags[0].code).toBe(want.code);
      expect(diags[0].pointer).toBe(want.pointer);
      expect(diags[0].severity).toBe("error");
      if (want.line !== undefined) {
        expect([diags[0].line, diags[0].column]).toEqual([want.line, want.column]);
        expect(diags[0].message).toContain(`(line ${want.line}, column ${want.column})`);
      } else {
        // a pointer into the document also carries the line and column of the node it names;
        // checked against the page's locator, an independent reader of the same text
        const text = fixtureDocument(f);
        const at = diags[0].pointer === "" ? null : locatePointer(text, diags[0].pointer);
        if (at === null) expect([diags[0].line, diags[0].column]).toEqual([0, 0]);
        else expect([diags[0].line, diags[0].column]).toEqual(lineColumn(text, at.start));
      }
      expect(diags[0].related).toBe(want.related ?? "");
      // One sentence a person can act on.
      expect(diags[0].message).toMatch(/^[A-Z"\\].{10,}[.)?]$/s);
    });
  }
});

describe("fixture coverage", () => {
  it("every document-level code in the catalogue has a fixture", () => {
    const have = new Set(fixtures.map((f) => f.name.slice(0, 6)));
    const missing = documentCodes().filter((c) => !have.has(c));
    expect(missing).toEqual([]);
    // And no fixture names a code the catalogue does not have.
    const known = new Set(documentCodes());
    expect(fixtures.filter((f) => !f.name.startsWith("ok-") && !known.has(f.name.slice(0, 6))).map((f) => f.name)).toEqual([]);
  });

  it("every error listed in tile-ir.md has a fixture", () => {
    // "Errors a document can have", one line each, with the fixture that shows it.
    const listed: Record<string, string> = {
      "malformed JSON (with line and column)": "TIR001-trailing-comma",
      "malformed JSON: unterminated string": "TIR001-unterminated-string",
      "a missing field": "TIR004-missing-field",
      "an unknown field": "TIR005-unknown-field",
      "a wrong version": "TIR007-wrong-version",
      "an unknown name": "TIR010-unknown-name",
      "an unknown size": "TIR011-unknown-size",
      "an unknown buffer": "TIR012-unknown-buffer",
      "an unknown combiner": "TIR013-unknown-combiner",
      "an unknown dtype": "TIR014-unknown-dtype",
      "an unknown operator": "TIR015-unknown-operator",
      "a name bound twice: shadowing a loop variable": "TIR016-shadowing",
      "a name bound twice: shadowing a size": "TIR016-shadowing-size",
      "a name bound twice: a repeated scalar": "TIR016-repeated-scalar",
      "a type mismatch": "TIR017-type-mismatch",
      "a wrong index count for a buffer": "TIR018-wrong-index-count",
      "a non-positive size": "TIR020-non-positive-size",
      "a non-positive size override": "TIR020-non-positive-override",
      "a loop whose min is not an integer expression": "TIR021-loop-min-not-integer",
      "a loop whose extent is not an integer expression": "TIR021-loop-extent-not-integer",
      "a loop whose step is not an integer expression": "TIR021-loop-step-not-integer",
      "an access out of bounds for the given sizes": "TIR023-out-of-bounds",
      "nesting deeper than a documented limit (IR)": "TIR003-nesting-too-deep",
      "nesting deeper than a documented limit (JSON)": "TIR003-json-too-deep",
      "a document larger than a documented limit": "TIR002-document-too-large",
    };
    const names = new Set(fixtures.map((f) => f.name));
    const absent = Object.entries(listed).filter(([, n]) => !names.has(n)).map(([what]) => what);
    expect(absent).toEqual([]);
  });

  it("the size-limit fixture is padded to just over the limit", () => {
    const f = fixtures.find((x) => x.name === "TIR002-document-too-large")!;
    expect(fixtureDocument(f).length).toBe(MAX_DOCUMENT_CHARS + 1);
    // Unpadded, it is a valid document: the size alone is what is wrong.
    expect(validate(f.text).diagnostics).toEqual([]);
  });
});

describe("valid documents", () => {
  for (const c of caseFiles()) {
    it(`cases/${c.name}.json validates with no diagnostics`, () => {
      const v = validate(c.text);
      expect(v.diagnostics).toEqual([]);
      expect(v.ok).toBe(true);
      expect(v.doc.name).toBe(c.name);
    });
  }

  it("every built-in case from the builders validates with no diagnostics", () => {
    expect(caseNames()).toHaveLength(17);
    for (const n of caseNames()) expect(validate(buildCase(n)).diagnostics, n).toEqual([]);
  });

  it("a binding that shadows is reported once, with no second error from its uses (red team, session 26)", () => {
    // let r = s (f32) inside the loop over r: the store Y[r] still means the loop variable (i32)
    const doc = { tile: 1, name: "sh", attrs: { noalias: true }, sizes: { R: 4, C: 8 },
      params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R"] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["load", "X", ["r", "c"]] },
        { let: "r", value: "s" },
        { store: "Y", at: ["r"], value: "s" }] }] };
    expect(validate(JSON.stringify(doc)).diagnostics.map((d) => [d.code, d.pointer])).toEqual([["TIR016", "/body/0/body/1/let"]]);
    // a loop over C shadowing the size C: its body's C is the loop variable (no out-of-bounds error)
    const size = fixtures.find((f) => f.name === "TIR016-shadowing-size")!;
    expect(validate(size.text).diagnostics.map((d) => d.code)).toEqual(["TIR016"]);
  });

  it("a guarded access (if c+1 < C then load X[r, c+1]) is not out of bounds", () => {
    const guarded = fixtures.find((f) => f.name === "ok-guarded-access")!;
    expect(validate(guarded.text).diagnostics).toEqual([]);
    // The same access without its guard is reported, at the index that overflows.
    const doc = JSON.parse(guarded.text);
    const inner = doc.body[0].body[0].body;
    inner[0] = inner[0].then[0];
    const v = validate(JSON.stringify(doc));
    expect(v.diagnostics.map((d) => [d.code, d.pointer])).toEqual([["TIR023", "/body/0/body/0/body/0/value/1/2/1"]]);
    expect(v.diagnostics[0].message).toContain("[1, 8]");
  });
});

// A one-row, one-column document used by the focused checks below.
function doc(body: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    tile: 1, name: "t", attrs: { noalias: true }, sizes: { R: 4, C: 8 },
    params: [
      { name: "X", dtype: "f32", shape: ["R", "C"] },
      { name: "Y", dtype: "f32", shape: ["R", "C"] },
      { name: "I", dtype: "i32", shape: ["R"] },
    ],
    body, ...extra,
  });
}
const rows = (inner: unknown[]): unknown[] => [{ for: "r", in: [0, "R"], kind: "parallel", body: inner }];
const cols = (inner: unknown[]): unknown[] => rows([{ for: "c", in: [0, "C"], kind: "parallel", body: inner }]);
const codes = (text: string, sizes?: Record<string, number>): string[][] =>
  validate(text, sizes).diagnostics.map((d) => [d.code, d.pointer]);

describe("size overrides", () => {
  const shifted = doc(cols([{ store: "Y", at: ["r", "c"], value: ["load", "X", ["r", "c"]] }]), {
    params: [
      { name: "X", dtype: "f32", shape: ["R", 8] },
      { name: "Y", dtype: "f32", shape: ["R", 8] },
    ],
  });

  it("apply before checking: bounds follow the overridden sizes", () => {
    expect(codes(shifted)).toEqual([]);
    expect(codes(shifted, { C: 8, R: 1000 })).toEqual([]);
    expect(codes(shifted, { C: 9 })).toEqual([
      ["TIR023", "/body/0/body/0/body/0/at/1"],
      ["TIR023", "/body/0/body/0/body/0/value/2/1"],
    ]);
    expect(codes(shifted, { C: 4 })).toEqual([]);
  });

  it("an override of a size the document does not declare is TIR025", () => {
    const v = validate(shifted, { K: 3 });
    expect(v.diagnostics.map((d) => [d.code, d.pointer])).toEqual([["TIR025", "/sizes"]]);
    expect(v.diagnostics[0].message).toContain('"K"');
    expect(v.diagnostics[0].message).toContain("R, C");
    const none = JSON.parse(shifted);
    none.sizes = {};
    none.params = [];
    none.body = [];
    expect(validate(JSON.stringify(none), { K: 3 }).diagnostics[0].message).toContain("declares no sizes");
  });

  it("a non-positive or non-integer override is TIR020", () => {
    for (const bad of [0, -1, 2147483648, 1.5]) {
      expect(codes(shifted, { C: bad })).toEqual([["TIR020", "/options/sizes/C"]]);
    }
    // a size named with "/" and "~" is escaped in the pointer (RFC 6901), as on the document side
    const odd = JSON.parse(shifted);
    odd.sizes = { "a/b~c": 4, ...odd.sizes };
    expect(codes(JSON.stringify(odd), { "a/b~c": 0 })).toEqual([["TIR020", "/options/sizes/a~1b~0c"]]);
    // The largest i32 is a valid override (and then the loop runs past the literal extent 8).
    expect(codes(shifted, { C: 2147483647 }).map((d) => d[0])).toEqual(["TIR023", "TIR023"]);
  });
});

describe("a range that runs only for some programs ([0, r), session 32)", () => {
  // an exclusive prefix: reduce over c in [0, r) of X[r, c]; the row loop r narrows to 1..R-1
  // inside it (at r = 0 it does not run), so its accesses are decided as [0, r + 1)'s were
  const prefix = (extent: unknown, index: unknown[] = ["r", "c"]) => doc(rows([
    { reduce: "s", combiner: "sum", over: ["c", 0, extent], value: ["load", "X", index] },
    { store: "Y", at: ["r", 0], value: "s" }]));
  it("is in bounds where it fits, and TIR023 where its last row runs past the end (it was not decided)", () => {
    expect(codes(prefix("r"))).toEqual([]);
    expect(codes(prefix("r"), { R: 8, C: 8 })).toEqual([]);
    expect(codes(prefix("r"), { R: 9, C: 8 })).toEqual([]);
    expect(codes(prefix("r"), { R: 10, C: 8 })).toEqual([["TIR023", "/body/0/body/0/value/2/1"]]);
    expect(validate(prefix("r"), { R: 33, C: 3 }).diagnostics[0].message).toContain("ranges over [0, 31]");
    // a shrinking range [0, R - 1 - r): runs for r <= R - 2
    expect(codes(prefix(["sub", ["sub", "R", 1], "r"]), { R: 9, C: 8 })).toEqual([]);
    expect(codes(prefix(["sub", ["sub", "R", 1], "r"]), { R: 10, C: 8 })).toEqual([["TIR023", "/body/0/body/0/value/2/1"]]);
    // a range that never runs for these sizes ([0, r - 5) with R = 4) decides nothing, as before
    expect(codes(prefix(["sub", "r", 5], ["r", ["add", "c", 100]]))).toEqual([]);
    // the narrowed row range is the loop's alone: after it, r takes every row again
    const after = doc(rows([
      { reduce: "s", combiner: "sum", over: ["c", 0, "r"], value: ["load", "X", ["r", "c"]] },
      { store: "Y", at: [["sub", "r", 1], 0], value: "s" }]));
    expect(codes(after)).toEqual([["TIR023", "/body/0/body/1/at/0"]]);
  });
});

describe("scopes and names", () => {
  it("a name may repeat where scopes do not overlap (c three times, as in softmax)", () => {
    const text = doc(rows([
      { reduce: "m", combiner: "max", over: ["c", 0, "C"], value: ["load", "X", ["r", "c"]] },
      { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["load", "X", ["r", "c"]] },
      { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: ["r", "c"], value: ["div", "m", "s"] }] },
    ]));
    expect(codes(text)).toEqual([]);
  });

  it("a reduction axis is in scope only inside its value", () => {
    const text = doc(rows([
      { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["load", "X", ["r", "c"]] },
      { store: "Y", at: ["r", "c"], value: "s" },
    ]));
    expect(codes(text)).toEqual([["TIR010", "/body/0/body/1/at/1"]]);
  });

  it("a scalar is not visible before its binding or outside its list", () => {
    const text = doc(rows([
      { store: "Y", at: ["r", 0], value: "t" },
      { if: ["lt", "r", 1], then: [{ let: "t", value: ["f32", 1] }] },
      { store: "Y", at: ["r", 1], value: "t" },
    ]));
    expect(codes(text)).toEqual([["TIR010", "/body/0/body/0/value"], ["TIR010", "/body/0/body/2/value"]]);
  });

  it("a buffer used as a name is reported with a hint to load it", () => {
    const v = validate(doc(cols([{ store: "Y", at: ["r", "c"], value: "X" }])));
    expect(v.diagnostics.map((d) => [d.code, d.pointer])).toEqual([["TIR010", "/body/0/body/0/body/0/value"]]);
    expect(v.diagnostics[0].message).toContain('["load", "X"');
  });

  it("shadowing reports the earlier binding as related", () => {
    const v = validate(doc(rows([{ let: "t", value: ["f32", 1] }, { for: "t", in: [0, 1], kind: "serial", body: [] }])));
    expect(v.diagnostics.map((d) => [d.code, d.pointer, d.related])).toEqual([["TIR016", "/body/0/body/1/for", "/body/0/body/0/let"]]);
  });

  it("collects every error, not the first", () => {
    const text = doc(cols([
      { store: "Y", at: ["r", "c"], value: "u1" },
      { store: "Y", at: ["r", "c"], value: ["add", ["load", "X", ["r", "c"]], 1] },
      { store: "Y", at: ["r"], value: ["f32", 0] },
    ]));
    expect(codes(text)).toEqual([
      ["TIR010", "/body/0/body/0/body/0/value"],
      ["TIR017", "/body/0/body/0/body/1/value"],
      ["TIR018", "/body/0/body/0/body/2/at"],
    ]);
  });
});

describe("types", () => {
  const store = (value: unknown, buf = "Y", at: unknown[] = ["r", "c"]): string => doc(cols([{ store: buf, at, value }]));
  const x = ["load", "X", ["r", "c"]];
  it("accepts every operator at its type", () => {
    const f = ["f32", 1];
    const i = ["load", "I", ["r"]];
    const ok: unknown[] = [
      ["add", x, f], ["sub", x, f], ["mul", x, f], ["div", x, f], ["min", x, f], ["max", x, f],
      ["neg", x], ["abs", x], ["exp", x], ["log", x], ["sqrt", x], ["rsqrt", x], ["tanh", x], ["erf", x],
      ["select", ["and", ["lt", x, f], ["not", ["ge", x, f]]], x, f],
      ["select", ["or", ["le", "c", 3], ["eq", ["mod", "c", 2], 0]], x, f],
      ["select", ["gt", i, 0], x, f],
      ["cast", "f32", ["add", i, ["div", "c", 2]]],
      ["cast", "f32", ["cast", "i32", x]],
      // a bool casts to 0 or 1 (docs/tile-ir.md), e.g. to count the elements a comparison holds for
      ["cast", "f32", ["lt", "c", 1]],
      ["add", x, ["cast", "f32", ["and", ["gt", x, f], ["ne", "c", 2]]]],
    ];
    for (const v of ok) expect(codes(store(v)), JSON.stringify(v)).toEqual([]);
    expect(codes(store(["abs", ["neg", ["mod", i, 3]]], "I", ["r"]))).toEqual([]);
  });

  const mismatches: Array<[string, unknown, string]> = [
    ["f32 + i32", ["add", x, 1], ""],
    ["mod on f32", ["mod", x, x], ""],
    ["exp on i32", ["cast", "f32", ["exp", "c"]], "/2"],
    ["a comparison stored as f32", ["lt", x, x], ""],
    ["and on numbers", ["select", ["and", x, x], x, x], "/1"],
    ["not on a number", ["select", ["not", "c"], x, x], "/1"],
    ["select with a numeric condition", ["select", x, x, x], "/1"],
    ["select with two types", ["select", ["lt", "c", 1], x, 1], ""],
    ["arithmetic on bool", ["select", ["add", ["lt", "c", 1], ["lt", "c", 2]], x, x], "/1"],
    ["i32 stored into f32", ["add", "c", 1], ""],
  ];
  for (const [what, value, sub] of mismatches) {
    it(`reports ${what} as TIR017`, () => {
      expect(codes(store(value))).toEqual([["TIR017", "/body/0/body/0/body/0/value" + sub]]);
    });
  }

  it("reports an f32 index, a numeric if condition and a bool reduce as TIR017", () => {
    expect(codes(doc(cols([{ store: "Y", at: ["r", ["f32", 0]], value: x }])))).toEqual([["TIR017", "/body/0/body/0/body/0/at/1"]]);
    expect(codes(doc(cols([{ if: "c", then: [] }])))).toEqual([["TIR017", "/body/0/body/0/body/0/if"]]);
    expect(codes(doc(rows([{ reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["lt", "c", 1] }])))).toEqual([
      ["TIR017", "/body/0/body/0/value"],
    ]);
  });

  it("a float written as a bare number is TIR006 (literals are typed)", () => {
    expect(codes(store(["add", x, 1.5]))).toEqual([["TIR006", "/body/0/body/0/body/0/value/2"]]);
  });

  it("a cast to an unknown dtype is TIR014", () => {
    expect(codes(store(["cast", "f64", x]))).toEqual([["TIR014", "/body/0/body/0/body/0/value/1"]]);
  });
});

describe("loops and bounds", () => {
  const x = (i: unknown, j: unknown): unknown => ["load", "X", [i, j]];
  const loop = (inn: unknown[], extra: Record<string, unknown>, value: unknown): string =>
    doc(rows([{ for: "k", in: inn, kind: "serial", ...extra, body: [{ store: "Y", at: ["r", 0], value }] }]));

  it("a serial loop with a step reaches min + (extent-1)*step", () => {
    expect(codes(loop([1, 4], { step: 2 }, x("r", "k")))).toEqual([]); // k = 1, 3, 5, 7
    expect(codes(loop([2, 4], { step: 2 }, x("r", "k")))).toEqual([["TIR023", "/body/0/body/0/body/0/value/2/1"]]); // ..., 8
  });

  it("negative indices are out of bounds", () => {
    expect(codes(loop([0, "C"], {}, x("r", ["sub", "k", 1])))).toEqual([["TIR023", "/body/0/body/0/body/0/value/2/1"]]);
    expect(codes(loop([0, "C"], {}, x("r", ["sub", ["sub", "C", 1], "k"])))).toEqual([]);
    expect(codes(loop([0, "C"], {}, x("r", ["sub", "C", "k"])))).toEqual([["TIR023", "/body/0/body/0/body/0/value/2/1"]]);
  });

  it("affine index arithmetic is bounded exactly", () => {
    const flat = doc(rows([{ for: "k", in: [0, 2], kind: "serial", body: [{ store: "Y", at: ["r", ["add", ["mul", "k", 4], 3]], value: x("r", 0) }] }]));
    expect(codes(flat)).toEqual([]); // 3, 7
    const over = doc(rows([{ for: "k", in: [0, 2], kind: "serial", body: [{ store: "Y", at: ["r", ["add", ["mul", 5, "k"], 3]], value: x("r", 0) }] }]));
    expect(codes(over)).toEqual([["TIR023", "/body/0/body/0/body/0/at/1"]]); // 3, 8
  });

  it("an index that cannot be decided statically is accepted", () => {
    expect(codes(loop([0, "C"], {}, x("r", ["load", "I", ["r"]])))).toEqual([]);
    expect(codes(loop([0, "C"], {}, x("r", ["mul", "k", "k"])))).toEqual([]);
  });

  it("a loop bound that loads or uses a scalar is TIR021", () => {
    const text = doc(rows([
      { for: "k", in: [0, ["load", "I", ["r"]]], kind: "serial", body: [] },
      { let: "n", value: 3 },
      { for: "j", in: ["n", 2], kind: "serial", body: [] },
    ]));
    expect(codes(text)).toEqual([["TIR021", "/body/0/body/0/in/1"], ["TIR021", "/body/0/body/2/in/0"]]);
  });

  it("a computed step that can be below 1 is TIR021, where its range is known", () => {
    const stepped = (step: unknown): string => doc(rows([{ for: "k", in: [0, 2], kind: "serial", step, body: [] }]));
    expect(codes(stepped(["sub", 1, 2]))).toEqual([["TIR021", "/body/0/body/0/step"]]);
    expect(codes(stepped(["sub", "C", 8]))).toEqual([["TIR021", "/body/0/body/0/step"]]);
    expect(validate(stepped("r")).diagnostics[0].message).toContain("can be 0");
    expect(codes(stepped(["add", "r", 1]))).toEqual([]);
    expect(codes(stepped("C"))).toEqual([]);
    expect(codes(stepped(["sub", "C", 8]), { C: 9 })).toEqual([]);
    expect(codes(stepped(["load", "I", ["r"]]))).toEqual([["TIR021", "/body/0/body/0/step"]]); // a load, not a bound
  });

  it("a reduction bound must be an integer expression too", () => {
    const text = doc(rows([{ reduce: "s", combiner: "sum", over: ["c", 0, ["f32", 8]], value: x("r", "c") }]));
    expect(codes(text)).toEqual([["TIR021", "/body/0/body/0/over/2"]]);
  });

  it("loop bounds may use enclosing loop variables", () => {
    const tri = doc(rows([{ for: "k", in: [0, "r"], kind: "serial", body: [{ store: "Y", at: ["r", "k"], value: x("r", "k") }] }]));
    expect(codes(tri)).toEqual([]);
  });

  it("a variable whose min moves with an enclosing variable is bounded too: min + [0, (extent - 1) * step]", () => {
    const at = "/body/0/body/0/value/2/1";
    // k over [r, r + n): with R = 4 it reaches 3 + n - 1; C = 8
    const win = (n: number, idx: unknown = "k"): string =>
      doc(rows([{ reduce: "s", combiner: "sum", over: ["k", "r", n], value: x("r", idx) }, { store: "Y", at: ["r", 0], value: "s" }]));
    expect(codes(win(5))).toEqual([]); // ..., 7
    expect(codes(win(6))).toEqual([["TIR023", at]]); // ..., 8
    expect(validate(win(6)).diagnostics[0].message).toContain("ranges over [0, 8]");
    // k - r is the shift alone, [0, n - 1]: not k's range minus r's ([-3, n + 2])
    expect(codes(win(8, ["sub", "k", "r"]))).toEqual([]);
    expect(codes(win(9, ["sub", "k", "r"]))).toEqual([["TIR023", at]]);
    expect(codes(win(2, ["sub", "r", "k"]))).toEqual([["TIR023", at]]); // -1 when k = r + 1
    // nested: j over [r, r + 2), k over [j, j + 2 * (m - 1)] by steps of 2 (serial)
    const nest = (m: number): string => doc(rows([{ for: "j", in: ["r", 2], kind: "serial", body: [
      { for: "k", in: ["j", m], kind: "serial", step: 2, body: [{ store: "Y", at: ["r", "k"], value: x("r", 0) }] }] }]));
    expect(codes(nest(2))).toEqual([]); // 3 + 1 + 2 = 6
    expect(codes(nest(3))).toEqual([["TIR023", "/body/0/body/0/body/0/body/0/at/1"]]); // 3 + 1 + 4 = 8
    // a user variable named like the hidden one keeps its own range ([0, 7], so k#t + 1 reaches 8)
    const named = (n: number): string => doc(rows([{ for: "k#t", in: [0, 8], kind: "serial", body: [
      { reduce: "s", combiner: "sum", over: ["k", "r", n], value: ["add", x("r", "k"), x("r", ["add", "k#t", 1])] },
      { store: "Y", at: ["r", "k#t"], value: "s" }] }]));
    expect(codes(named(5))).toEqual([["TIR023", "/body/0/body/0/body/0/value/2/2/1"]]);
    expect(codes(named(6))).toEqual([["TIR023", "/body/0/body/0/body/0/value/1/2/1"], ["TIR023", "/body/0/body/0/body/0/value/2/2/1"]]);
  });

  it("an access under a loop that may run no iteration is not decided (no false TIR023)", () => {
    const tri = (extent: unknown, idx: unknown): string =>
      doc(rows([{ for: "k", in: [0, extent], kind: "serial", body: [{ store: "Y", at: ["r", "k"], value: x(idx, "k") }] }]));
    // k over [0, r) runs no iteration at r = 0, so r - 1 is never -1 where it executes
    expect(codes(tri("r", ["sub", "r", 1]))).toEqual([]);
    // k over [0, r + 1) runs at r = 0: r - 1 = -1 executes
    expect(codes(tri(["add", "r", 1], ["sub", "r", 1]))).toEqual([["TIR023", "/body/0/body/0/body/0/value/2/0"]]);
    expect(codes(tri(["add", "r", 1], "r"))).toEqual([]);
    // the same under a let, and under a reduction whose extent may be 0
    const viaLet = doc(rows([{ let: "p", value: ["sub", "r", 1] },
      { reduce: "s", combiner: "sum", over: ["c", 0, "r"], value: ["load", "X", ["p", "c"]] }, { store: "Y", at: ["r", 0], value: "s" }]));
    expect(codes(viaLet)).toEqual([]);
    const zero = doc(rows([{ for: "k", in: [0, 0], kind: "serial", body: [{ store: "Y", at: ["r", 9], value: x("r", 0) }] }]));
    expect(codes(zero)).toEqual([]);
  });

  it("an index through an i32 let is bounded as the let's value is", () => {
    const through = (value: unknown, idx: unknown = "t"): string =>
      doc(rows([{ let: "t", value }, { store: "Y", at: [idx, 0], value: x("r", 0) }]));
    expect(codes(through("r"))).toEqual([]);
    expect(codes(through(["add", "r", 1]))).toEqual([["TIR023", "/body/0/body/1/at/0"]]); // r + 1 reaches 4 (R = 4)
    expect(codes(through(["sub", ["sub", "R", 1], "r"]))).toEqual([]);
    expect(codes(through(["add", "r", 1], ["sub", "t", 1]))).toEqual([]);
    // a let of a let, and a let of a moving window's variable
    const chain = doc(rows([{ let: "a", value: ["add", "r", 2] }, { let: "b", value: ["sub", "a", 2] }, { store: "Y", at: ["b", "a"], value: x("r", 0) }]));
    expect(codes(chain)).toEqual([]); // a in [2, 5] < C = 8, b = r
    const win = doc(rows([{ reduce: "s", combiner: "sum", over: ["k", "r", 5], value: x("r", 0) },
      { for: "j", in: ["r", 5], kind: "serial", body: [{ let: "u", value: ["add", "j", 1] }, { store: "Y", at: ["r", "u"], value: "s" }] }]));
    expect(codes(win)).toEqual([["TIR023", "/body/0/body/1/body/1/at/1"]]); // j + 1 reaches 3 + 4 + 1 = 8
    // a let that loads, or one under an if, is left to the run
    expect(codes(through(["add", ["load", "I", ["r"]], 100]))).toEqual([]);
    const guarded = doc(rows([{ if: ["lt", "r", 3], then: [{ let: "t", value: ["add", "r", 1] }, { store: "Y", at: ["t", 0], value: x("r", 0) }] }]));
    expect(codes(guarded)).toEqual([]);
  });

  it("a parallel loop with a literal step of 1 is fine; any other step is TIR022", () => {
    expect(codes(doc([{ for: "r", in: [0, "R"], kind: "parallel", step: 1, body: [] }]))).toEqual([]);
    expect(codes(doc([{ for: "r", in: [0, "R"], kind: "parallel", step: "R", body: [] }]))).toEqual([["TIR022", "/body/0/step"]]);
  });

  it("nesting at MAX_IR_DEPTH is accepted and one level more is TIR003", () => {
    const nested = (n: number): unknown => {
      let e: unknown = ["f32", 1];
      for (let i = 0; i < n; i++) e = ["neg", e];
      return e;
    };
    // store at depth 2 (body/0/body/0); its value is depth 3; each neg adds one level.
    expect(codes(doc(rows([{ store: "Y", at: ["r", 0], value: nested(MAX_IR_DEPTH - 3) }])))).toEqual([]);
    const deep = codes(doc(rows([{ store: "Y", at: ["r", 0], value: nested(MAX_IR_DEPTH - 2) }])));
    expect(deep.map((d) => d[0])).toEqual(["TIR003"]);
    expect(deep[0][1]).toBe("/body/0/body/0/value" + "/1".repeat(MAX_IR_DEPTH - 2));
    // Statements: `if "flag"` nested n deep under the row loop (depths 2 .. n+1, each condition one deeper).
    const ifs = (n: number): string => {
      let body: unknown[] = [];
      for (let i = 0; i < n; i++) body = [{ if: "flag", then: body }];
      return doc(rows([{ let: "flag", value: ["lt", "r", 1] }, ...body]));
    };
    expect(codes(ifs(MAX_IR_DEPTH - 2))).toEqual([]);
    const deepIf = codes(ifs(MAX_IR_DEPTH));
    // The condition of the if at depth MAX_IR_DEPTH, and the statement one level deeper.
    expect(deepIf).toEqual([
      ["TIR003", "/body/0/body/1" + "/then/0".repeat(MAX_IR_DEPTH - 2) + "/if"],
      ["TIR003", "/body/0/body/1" + "/then/0".repeat(MAX_IR_DEPTH - 1)],
    ]);
  });
});

describe("document shape", () => {
  it("a document that is not an object is TIR006 at the root", () => {
    expect(codes("[]")).toEqual([["TIR006", ""]]);
    expect(codes("1")).toEqual([["TIR006", ""]]);
  });

  it("reports every missing top-level field", () => {
    expect(codes("{}")).toEqual([["TIR004", ""], ["TIR004", ""], ["TIR004", ""], ["TIR004", ""]]);
  });

  it("sizes, attrs and params are checked for kind", () => {
    expect(codes(doc([], { attrs: { noalias: 1 } }))).toEqual([["TIR006", "/attrs/noalias"]]);
    expect(codes(doc([], { attrs: { fast: true } }))).toEqual([["TIR005", "/attrs/fast"]]);
    expect(codes(doc([], { sizes: [] }))).toEqual([["TIR006", "/sizes"]]);
    expect(codes(doc([], { sizes: { R: 4, C: 8, "a/b": -1 } }))).toEqual([["TIR020", "/sizes/a~1b"]]);
    expect(codes(doc([], { params: [{ name: "X", dtype: "f32", shape: ["R", 0] }] }))).toEqual([["TIR020", "/params/0/shape/1"]]);
    expect(codes(doc([], { params: ["X"] }))).toEqual([["TIR006", "/params/0"]]);
  });

  it("a statement with two kinds is TIR005; one with none is TIR004", () => {
    expect(codes(doc([{ let: "a", store: "Y", value: 1 }]))).toEqual([["TIR005", "/body/0/store"]]);
    expect(codes(doc([{ value: 1 }]))).toEqual([["TIR004", "/body/0"]]);
  });

  it("the version must be the integer 1", () => {
    expect(codes(doc([], { tile: "1" }))).toEqual([["TIR006", "/tile"]]);
    expect(codes(doc([], { tile: 0 }))).toEqual([["TIR007", "/tile"]]);
  });

  it("a document with no parallel loop is TIR026", () => {
    expect(codes(doc([]))).toEqual([["TIR026", "/body"]]);
  });
});
