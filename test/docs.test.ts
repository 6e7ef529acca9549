// The repository is self-contained: docs/tile-ir.md is the Tile IR reference (every operator and
// every diagnostic code of the catalogue appear in it) and docs/tile-ir.schema.json is a JSON
// Schema that every built-in case and valid fixture satisfies while the fixtures of schema-level
// diagnostics do not. The schema is checked by a small draft-07 validator written here (only the
// keywords the schema uses), so no dependency is needed.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { CODES, CODE_STRIDE } from "../core/diag/catalogue";
import { BINARY_OPS, UNARY_OPS } from "../core/ir/read";
import { ROOT } from "./helpers/files";

const DOC = fs.readFileSync(path.join(ROOT, "docs", "tile-ir.md"), "utf8");
const SCHEMA = JSON.parse(fs.readFileSync(path.join(ROOT, "docs", "tile-ir.schema.json"), "utf8"));

const KNOWN = new Set(["$schema", "$id", "title", "description", "type", "required", "additionalProperties", "properties",
  "definitions", "$ref", "items", "minItems", "maxItems", "additionalItems", "enum", "const", "anyOf", "minimum", "maximum", "minLength"]);

function typeOk(t: string, v: unknown): boolean {
  if (t === "object") return typeof v === "object" && v !== null && !Array.isArray(v);
  if (t === "array") return Array.isArray(v);
  if (t === "integer") return typeof v === "number" && Number.isInteger(v);
  if (t === "number") return typeof v === "number";
  if (t === "string") return typeof v === "string";
  if (t === "boolean") return typeof v === "boolean";
  return false;
}

/** Errors of `v` against schema node `s` (draft-07 subset); [] when valid. */
function check(s: any, v: unknown, at: string): string[] {
  for (const k of Object.keys(s)) if (!KNOWN.has(k)) throw new Error("the test's validator does not know the keyword " + k);
  if (s.$ref) return check(SCHEMA.definitions[s.$ref.replace("#/definitions/", "")], v, at);
  const errs: string[] = [];
  if (s.anyOf) return s.anyOf.some((x: any) => check(x, v, at).length === 0) ? [] : [at + ": matches no alternative"];
  if (s.type && !typeOk(s.type, v)) return [at + ": not " + s.type];
  if ("const" in s && v !== s.const) errs.push(at + ": not " + JSON.stringify(s.const));
  if (s.enum && !s.enum.includes(v)) errs.push(at + ": not one of " + s.enum.join(", "));
  if (typeof v === "number") {
    if (s.minimum !== undefined && v < s.minimum) errs.push(at + ": below " + s.minimum);
    if (s.maximum !== undefined && v > s.maximum) errs.push(at + ": above " + s.maximum);
  }
  if (typeof v === "string" && s.minLength !== undefined && v.length < s.minLength) errs.push(at + ": too short");
  if (Array.isArray(v)) {
    if (s.minItems !== undefined && v.length < s.minItems) errs.push(at + ": too few items");
    if (s.maxItems !== undefined && v.length > s.maxItems) errs.push(at + ": too many items");
    if (Array.isArray(s.items)) s.items.forEach((x: any, i: number) => { if (i < v.length) errs.push(...check(x, v[i], at + "/" + i)); });
    else if (s.items) v.forEach((x, i) => errs.push(...check(s.items, x, at + "/" + i)));
  }
  if (typeOk("object", v)) {
    const o = v as Record<string, unknown>;
    for (const r of s.required ?? []) if (!(r in o)) errs.push(at + ": missing " + r);
    for (const k of Object.keys(o)) {
      if (s.properties && k in s.properties) errs.push(...check(s.properties[k], o[k], at + "/" + k));
      else if (s.additionalProperties === false) errs.push(at + ": unknown field " + k);
      else if (typeof s.additionalProperties === "object") errs.push(...check(s.additionalProperties, o[k], at + "/" + k));
    }
  }
  return errs;
}

const validate = (v: unknown): string[] => check(SCHEMA, v, "");

function jsonFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((f) => f.endsWith(".json") && !f.endsWith(".expect.json")).map((f) => path.join(dir, f));
}

describe("docs/tile-ir.schema.json", () => {
  it("every built-in case, legality fixture and fuzz regression satisfies it", () => {
    const files = [...jsonFiles(path.join(ROOT, "cases")), ...jsonFiles(path.join(ROOT, "test", "fixtures", "legality"))];
    expect(files.length).toBeGreaterThan(40);
    for (const f of files) expect(validate(JSON.parse(fs.readFileSync(f, "utf8"))), f).toEqual([]);
    // a fuzz regression records its document under "doc"
    for (const f of jsonFiles(path.join(ROOT, "test", "fixtures", "fuzz-regressions"))) {
      const doc = JSON.parse(fs.readFileSync(f, "utf8")).doc;
      expect(validate(typeof doc === "string" ? JSON.parse(doc) : doc), f).toEqual([]);
    }
  });

  it("the validator fixtures of shape-level codes violate it (unknown field, wrong type, version, combiner, dtype, operator, operand count)", () => {
    const shapeCodes = ["TIR004", "TIR005", "TIR006", "TIR007", "TIR013", "TIR014", "TIR015", "TIR019"];
    const dir = path.join(ROOT, "test", "fixtures", "validate");
    let n = 0;
    for (const f of jsonFiles(dir)) {
      const code = path.basename(f).slice(0, 6);
      if (!shapeCodes.includes(code)) continue;
      let doc: unknown;
      try {
        doc = JSON.parse(fs.readFileSync(f, "utf8"));
      } catch {
        continue; // malformed JSON is TIR001's business
      }
      expect(validate(doc).length, f).toBeGreaterThan(0);
      n++;
    }
    expect(n).toBeGreaterThanOrEqual(shapeCodes.length);
  });

  it("rejects hand-made negatives and accepts every operator form", () => {
    const ok = JSON.parse(fs.readFileSync(path.join(ROOT, "cases", "softmax.json"), "utf8"));
    const mutate = (f: (d: any) => void) => {
      const d = structuredClone(ok);
      f(d);
      return d;
    };
    expect(validate(mutate((d) => (d.body[0].kind = "vectorized")))).not.toEqual([]);
    expect(validate(mutate((d) => (d.body[0].body[0].combiner = "prod")))).not.toEqual([]);
    expect(validate(mutate((d) => (d.body[0].body[0].value = ["load", "X"])))).not.toEqual([]);
    expect(validate(mutate((d) => (d.body[0].body[0].value = 2147483648)))).not.toEqual([]);
    expect(validate(mutate((d) => (d.sizes.R = 0)))).not.toEqual([]);
    expect(validate(mutate((d) => delete d.body))).not.toEqual([]);
    for (const op of BINARY_OPS) expect(validate(mutate((d) => (d.body[0].body[0].value = [op, 1, "c"]))), op).toEqual([]);
    for (const op of UNARY_OPS) expect(validate(mutate((d) => (d.body[0].body[0].value = [op, ["f32", 0.5]]))), op).toEqual([]);
    expect(validate(mutate((d) => (d.body[0].body[0].value = ["select", ["lt", "c", 3], ["cast", "f32", "c"], ["f32", -1.5]])))).toEqual([]);
  });
});

describe("docs/tile-ir.md", () => {
  it("names every diagnostic code of the catalogue with its id", () => {
    for (let i = 0; i < CODES.length; i += CODE_STRIDE) {
      expect(DOC, CODES[i]).toContain("| `" + CODES[i] + "` | " + CODES[i + 1] + " | `" + CODES[i + 2] + "` |");
    }
  });

  it("documents every operator, statement form and the semantics of values", () => {
    for (const op of [...BINARY_OPS, ...UNARY_OPS, "select", "cast", "load", "f32"]) expect(DOC, op).toContain('"' + op + '"');
    for (const form of ['"for"', '"reduce"', '"let"', '"store"', '"if"']) expect(DOC).toContain(form);
    for (const words of ["propagate NaN", "x div 0 = 0", "-2^31 div -1 = -2^31", "saturating", "same infinity"]) expect(DOC).toContain(words);
  });

  it("the repository cites no file outside itself", () => {
    for (const f of ["README.md", "ARCHITECTURE.md", path.join("shell-node", "src", "oracle.ts")]) {
      const text = fs.readFileSync(path.join(ROOT, f), "utf8");
      expect(text, f).not.toMatch(/\.\.\/shared\//);
      expect(text, f).not.toContain("docs/spec tile-ir.md");
    }
    expect(fs.readFileSync(path.join(ROOT, "shell-node", "src", "oracle.ts"), "utf8")).toContain("docs/tile-ir.md");
  });
});
