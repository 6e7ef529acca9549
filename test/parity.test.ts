// The JS build (dist/tile-core.mjs) and the WebAssembly build (dist/tile-core.wasm) of the core
// must answer every request with the same bytes, never throw, and the WebAssembly instance must
// survive every request (no trap, so no fresh instance). Build first: npm run build.
import { describe, expect, it, beforeAll } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { Engine, WasmEngine, loadEngine } from "../shell-node/src/engine";
import { Rng, mutateText, mutateTree } from "./helpers/random";
import { FIXTURES_DIR, ROOT, caseFiles, fixtureDocument, listFilesDeep, validateFixtures } from "./helpers/files";

let js: Engine;
let wasm: WasmEngine;

beforeAll(async () => {
  js = await loadEngine("js");
  wasm = (await loadEngine("wasm")) as WasmEngine;
});

/** Sends one request text to both engines; fails on any difference, throw or trap. */
function same(request: string): string {
  const a = js.callText(request);
  const b = wasm.callText(request);
  if (a !== b) {
    // A readable failure: the request and both answers.
    expect({ request: request.slice(0, 2000), wasm: b.slice(0, 2000) }).toEqual({ request: request.slice(0, 2000), wasm: a.slice(0, 2000) });
  }
  expect(wasm.instances).toBe(1);
  return a;
}

const req = (command: string, document: string, options?: object): string =>
  JSON.stringify(options === undefined ? { command, document } : { command, document, options });

describe("fixtures", () => {
  const files = listFilesDeep(FIXTURES_DIR, ".json");
  it("there are fixtures to compare", () => {
    expect(files.length).toBeGreaterThan(30);
  });
  for (const file of files) {
    const rel = path.relative(ROOT, file);
    it(rel, () => {
      const text = fs.readFileSync(file, "utf8");
      for (const command of ["validate", "canonical"]) {
        const r = JSON.parse(same(req(command, text)));
        expect(typeof r.ok).toBe("boolean");
        expect(Array.isArray(r.diagnostics)).toBe(true);
      }
      // tile plan and tile emit too, with the candidates the solver compared
      for (const options of [{ candidates: true }, { programsPerGroup: 2, candidates: true }]) {
        const p = JSON.parse(same(req("plan", text, options)));
        expect(Array.isArray(p.diagnostics)).toBe(true);
        const e = JSON.parse(same(req("emit", text, options)));
        expect(typeof e.msl).toBe("string");
      }
    });
  }

  it("validate fixtures with their options and padding give the expected code on both engines", () => {
    for (const f of validateFixtures()) {
      const sizes = f.expect.sizes;
      const r = JSON.parse(same(req("validate", fixtureDocument(f), sizes === undefined ? undefined : { sizes })));
      expect(r.diagnostics.length > 0 ? r.diagnostics[0].code : undefined, f.name).toBe(f.expect.code);
      expect(r.diagnostics.length > 0 ? r.diagnostics[0].pointer : undefined, f.name).toBe(f.expect.pointer);
    }
  });
});

describe("built-in cases", () => {
  for (const c of caseFiles()) {
    it(`cases/${c.name}.json`, () => {
      const v = JSON.parse(same(req("validate", c.text)));
      expect(v).toEqual({ ok: true, name: c.name, diagnostics: [] });
      const k = JSON.parse(same(req("canonical", c.text)));
      expect(k.ok).toBe(true);
      // The canonical text is itself canonical on both engines.
      expect(JSON.parse(same(req("canonical", k.text))).text).toBe(k.text);
    });
  }

  it("the cases command", () => {
    const r = JSON.parse(same(JSON.stringify({ command: "cases" })));
    expect(r.ok).toBe(true);
    expect(r.cases.map((c: any) => c.name)).toEqual(caseFiles().map((c) => c.name));
    for (const c of r.cases) expect([c.name, c.ok, c.diagnostics]).toEqual([c.name, true, []]);
  });

  it("the version command differs only in the engine's name", () => {
    const a = JSON.parse(js.callText('{"command":"version"}'));
    const b = JSON.parse(wasm.callText('{"command":"version"}'));
    expect([a.engine, b.engine]).toEqual(["js", "wasm"]);
    expect({ ...a, engine: "" }).toEqual({ ...b, engine: "" });
  });
});

describe("requests the core must refuse politely", () => {
  const bad = [
    "", "   ", "null", "[]", '"validate"', "{", '{"command": 1}', '{"command": "nope"}', '{"command": "validate"}',
    '{"command": "validate", "document": 5}', '{"command": "validate", "document": "{}", "options": []}',
    '{"command": "validate", "document": "{}", "options": {"sizes": {"C": -1}}}',
    '{"command": "validate", "document": "{}", "options": {"sizes": 3}}',
    '{"command": "canonical", "document": "{}", "options": {"frobnicate": true}}',
    '{"command": "validate", "command": "validate", "document": "{}"}',
    '{"command": "validate", "document": "\\ud800"}',
    '{"command": "validate", "document": "{\\"tile\\": 1, \\"name\\": \\"\\ud800\\udc00\\udc00\\"}"}',
  ];
  for (const r of bad) {
    it(JSON.stringify(r), () => {
      const out = JSON.parse(same(r));
      expect(out.ok).toBe(false);
      expect(out.diagnostics.length).toBeGreaterThan(0);
    });
  }

  it("a name with lone surrogates comes back escaped, as valid UTF-8", () => {
    const doc = '{"tile": 1, "name": "a\\ud800b\\udfff", "sizes": {}, "params": [], "body": []}';
    const out = same(req("validate", doc));
    expect(out).toContain('"name":"a\\ud800b\\udfff"');
  });

  it("a document just over the size limit is TIR002 on both engines, not a bad request", () => {
    const f = validateFixtures().find((x) => x.name === "TIR002-document-too-large")!;
    const out = JSON.parse(same(req("validate", fixtureDocument(f))));
    expect(out.diagnostics.map((d: any) => d.code)).toEqual(["TIR002"]);
  });
});

describe("randomly mutated documents", () => {
  const cases = caseFiles();
  it("300 character-level mutations of the cases (seeded)", () => {
    const rng = new Rng(20240601);
    let valid = 0;
    for (let i = 0; i < 300; i++) {
      const text = mutateText(rng.pick(cases).text, rng);
      for (const command of ["validate", "canonical"]) {
        const r = JSON.parse(same(req(command, text)));
        if (r.ok) valid++;
        else expect(r.diagnostics.length).toBeGreaterThan(0);
      }
    }
    expect(valid).toBeLessThan(600); // the mutations do break documents
  });

  it("300 structural mutations of the cases (seeded)", () => {
    const rng = new Rng(77);
    const seen = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const doc = mutateTree(JSON.parse(rng.pick(cases).text), rng);
      const text = JSON.stringify(doc);
      for (const command of ["validate", "canonical"]) {
        const r = JSON.parse(same(req(command, text)));
        for (const d of r.diagnostics) seen.add(d.code);
        if (command === "canonical" && r.ok) expect(JSON.parse(same(req("canonical", r.text))).text).toBe(r.text);
      }
    }
    // The structural mutations reach the checker, not only the reader.
    for (const code of ["TIR004", "TIR006", "TIR010", "TIR018", "TIR019"]) expect(seen.has(code), code).toBe(true);
  });

  it("the WebAssembly engine still answers after all of the above, on the same instance", () => {
    expect(JSON.parse(wasm.callText('{"command":"version"}')).ok).toBe(true);
    expect(wasm.instances).toBe(1);
  });
});
