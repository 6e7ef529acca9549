// The canonical printer (core/ir/print.ts): print(parse(x)) is a fixed point, parse(print(doc))
// gives back the same AST, f32 literals keep their bits, and the layout is the documented one.
import { describe, expect, it, vi } from "vitest";

vi.mock("../core/glue/wasm", async () => await import("../core/glue/js"));

import { printDoc } from "../core/ir/print";
import { canonical, dumpDoc, validate } from "./helpers/core";
import { caseFiles, validateFixtures } from "./helpers/files";

/** Every valid document the tests know: the built-in cases, the valid fixtures, and the
 *  hand-written ones below that use every construct of the format. */
const everything = (): Array<[string, string]> => [
  ...caseFiles().map((c): [string, string] => ["cases/" + c.name, c.text]),
  ...validateFixtures().filter((f) => f.name.startsWith("ok-")).map((f): [string, string] => [f.name, f.text]),
  ...Object.entries(HANDWRITTEN),
];

const HANDWRITTEN: Record<string, string> = {
  "every construct": JSON.stringify({
    body: [
      { for: "r", in: [0, "R"], kind: "parallel", body: [
        { let: "k", value: ["mod", ["add", "r", -3], 4] },
        { if: ["and", ["lt", "k", 2], ["not", ["eq", "r", 0]]],
          then: [{ store: "Y", at: ["r", 0], value: ["select", ["ge", ["load", "I", ["r"]], 0], ["f32", -0.0], ["f32", 1e-45]] }],
          else: [{ for: "j", in: [1, ["sub", "C", 1]], kind: "serial", step: 2, body: [
            { store: "Y", at: ["r", "j"], value: ["cast", "f32", ["max", ["div", "j", 2], ["min", "k", ["neg", ["abs", "r"]]]]] }] }] },
        { reduce: "lo", combiner: "min", over: ["c", 0, "C"], value: ["tanh", ["rsqrt", ["sqrt", ["log", ["exp", ["load", "X", ["r", "c"]]]]]]] },
        { reduce: "hi", combiner: "max", over: ["c", 0, 8], value: ["mul", ["load", "X", ["r", "c"]], ["f32", 3.4028234663852886e38]] },
        { if: ["or", ["gt", "lo", "hi"], ["ne", "lo", "hi"]], then: [], else: [] },
        { if: ["le", "lo", ["f32", 0.1]], then: [{ store: "I", at: ["r"], value: ["cast", "i32", "lo"] }] },
      ] },
    ],
    params: [
      { shape: ["R", "C"], dtype: "f32", name: "X" },
      { name: "Y", dtype: "f32", shape: ["R", 8] },
      { name: "I", dtype: "i32", shape: ["R"] },
    ],
    sizes: { R: 3, C: 8 },
    name: "every \"construct\" \u00e9 😀 \\ /",
    tile: 1,
  }),
  "no attrs, explicit defaults": JSON.stringify({
    tile: 1, name: "defaults", sizes: { N: 5 }, params: [{ name: "Y", dtype: "i32", shape: ["N"] }],
    body: [{ for: "i", in: [0, "N"], kind: "parallel", step: 1, body: [{ if: ["lt", "i", 2], then: [{ store: "Y", at: ["i"], value: -2147483648 }], else: [] }] }],
  }),
  "no params": JSON.stringify({
    tile: 1, name: "", attrs: { noalias: false }, sizes: {}, params: [],
    body: [{ for: "i", in: [0, 2147483647], kind: "parallel", body: [] }],
  }),
};

describe("round trip", () => {
  for (const [name, text] of everything()) {
    it(name, () => {
      const first = validate(text);
      expect(first.diagnostics).toEqual([]);
      const printed = printDoc(first.doc);
      // Printing is a fixed point: the printed text prints to itself, byte for byte.
      expect(canonical(printed)).toBe(printed);
      // Parsing the printed text gives the same AST (pointers and checked types included).
      const second = validate(printed);
      expect(second.diagnostics).toEqual([]);
      expect(dumpDoc(second.doc)).toEqual(dumpDoc(first.doc));
      // And the printed text is plain JSON meaning the same document, defaults made explicit.
      expect(f32Values(JSON.parse(printed))).toEqual(normalised(JSON.parse(text)));
    });
  }
});

/** What the canonical form of a parsed document should be as a JSON value: attrs always
 *  present, a step of 1 and an empty else omitted. */
function normalised(doc: any): any {
  const stmts = (list: any[]): any[] =>
    list.map((s) => {
      const o = { ...s };
      if (o.body) o.body = stmts(o.body);
      if (o.then) o.then = stmts(o.then);
      if (o.else) o.else = stmts(o.else);
      if (o.else && o.else.length === 0) delete o.else;
      if (o.step === 1) delete o.step;
      return o;
    });
  return f32Values({ ...doc, attrs: { noalias: doc.attrs?.noalias === true }, body: stmts(doc.body) });
}

/** `v` with every f32 literal ["f32", x] replaced by the f32 value of x (the printer writes the
 *  shortest text of the f32, which is not the same double as the source text). */
function f32Values(v: any): any {
  if (Array.isArray(v)) {
    if (v.length === 2 && v[0] === "f32" && typeof v[1] === "number") return ["f32", Math.fround(v[1])];
    return v.map(f32Values);
  }
  if (v !== null && typeof v === "object") {
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(v)) o[k] = f32Values(v[k]);
    return o;
  }
  return v;
}

describe("built-in case files", () => {
  for (const c of caseFiles()) {
    it(`cases/${c.name}.json and its canonical text are the same document`, () => {
      const text = canonical(c.text);
      if (c.text === text) return; // the file is canonical
      // The files are written compact by the builders: both spellings give one canonical text.
      expect(c.text).not.toContain("\n  ");
      expect(canonical(text)).toBe(text);
      expect(f32Values(JSON.parse(text))).toEqual(normalised(JSON.parse(c.text)));
    });
  }
});

describe("f32 literals", () => {
  const f32 = (x: number): number => Math.fround(x);
  const bits = (x: number): number => new Uint32Array(new Float32Array([x]).buffer)[0];
  const literal = (tok: string): string =>
    `{"tile":1,"name":"l","sizes":{"N":1},"params":[{"name":"Y","dtype":"f32","shape":["N"]}],` +
    `"body":[{"for":"i","in":[0,"N"],"kind":"parallel","body":[{"store":"Y","at":["i"],"value":["f32",${tok}]}]}]}`;
  const printedToken = (tok: string): string => {
    const m = /\["f32", ([^\]]+)\]/.exec(canonical(literal(tok)));
    if (!m) throw new Error("no f32 literal in the printed text");
    return m[1];
  };

  const samples: Array<[string, number]> = [
    ["0", 0], ["-0.0", -0], ["1", 1], ["0.1", f32(0.1)], ["-2.5", -2.5], ["16777217", 16777216],
    ["3.4028234663852886e38", f32(3.4028234663852886e38)], ["1.4e-45", f32(1.4e-45)], ["1e-45", f32(1e-45)],
    ["1.1754943508222875e-38", f32(1.1754943508222875e-38)], ["1.1754942e-38", f32(1.1754942e-38)],
    ["123456789", f32(123456789)], ["0.3333333333333333", f32(1 / 3)], ["2.7182817", f32(Math.E)],
    ["1E10", f32(1e10)],
    // Half the smallest subnormal ties to even (zero); a hair more rounds up to the subnormal.
    ["-7.006492321624085e-46", -0], ["-7.006492321624086e-46", -f32(1e-45)],
  ];
  for (const [tok, want] of samples) {
    it(`${tok} keeps its f32 bits`, () => {
      const first = validate(literal(tok)).doc.body[0].body[0].value.fval;
      expect(bits(first)).toBe(bits(want));
      expect(Object.is(first, want)).toBe(true);
      const out = printedToken(tok);
      // The printed token is an ordinary JSON number that rounds to the same f32 ...
      expect(bits(f32(Number(out)))).toBe(bits(want));
      // ... reads back to the same bits through the core ...
      expect(bits(validate(literal(out)).doc.body[0].body[0].value.fval)).toBe(bits(want));
      // ... and prints to itself.
      expect(printedToken(out)).toBe(out);
    });
  }

  it("prints the shortest text that identifies the f32", () => {
    expect(printedToken("0.1")).toBe("0.1");
    expect(printedToken("0.100000001")).toBe("0.1");
    expect(printedToken("16777217")).toBe("16777216");
    expect(printedToken("-0.0")).toBe("-0");
    expect(printedToken("2.50")).toBe("2.5");
  });

  it("random f32 bit patterns survive print and parse", () => {
    let s = 12345;
    const buf = new Float32Array(1);
    const u = new Uint32Array(buf.buffer);
    let tested = 0;
    while (tested < 300) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      u[0] = s >>> 0;
      if (!Number.isFinite(buf[0])) continue;
      const tok = String(buf[0]); // the shortest double text: at least as precise as needed
      const out = printedToken(tok);
      expect(bits(f32(Number(out))), tok).toBe(u[0]);
      expect(printedToken(out)).toBe(out);
      tested++;
    }
  });
});

describe("layout", () => {
  it("matches the documented canonical form", () => {
    const text = canonical(JSON.stringify({
      tile: 1, name: "sum", attrs: { noalias: true }, sizes: { R: 2, C: 3 },
      params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R"] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["load", "X", ["r", "c"]] },
        { store: "Y", at: ["r"], value: "s" }] }],
    }));
    expect(text).toBe(
      [
        "{",
        '  "tile": 1,',
        '  "name": "sum",',
        '  "attrs": {"noalias": true},',
        '  "sizes": {"R": 2, "C": 3},',
        '  "params": [',
        '    {"name": "X", "dtype": "f32", "shape": ["R", "C"]},',
        '    {"name": "Y", "dtype": "f32", "shape": ["R"]}',
        "  ],",
        '  "body": [',
        '    {"for": "r", "in": [0, "R"], "kind": "parallel", "body": [',
        '      {"reduce": "s", "combiner": "sum", "over": ["c", 0, "C"], "value": ["load", "X", ["r", "c"]]},',
        '      {"store": "Y", "at": ["r"], "value": "s"}',
        "    ]}",
        "  ]",
        "}",
        "",
      ].join("\n"),
    );
  });

  it("escapes names so that the output is JSON and valid UTF-8", () => {
    const text = canonical(HANDWRITTEN["every construct"].replace('"name":"every', '"name":"\\ud800 every'));
    expect(text).toContain('"name": "\\ud800 every \\"construct\\" é 😀 \\\\ /"');
    expect(JSON.parse(text).name).toBe("\ud800 every \"construct\" é 😀 \\ /");
  });
});
