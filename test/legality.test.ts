import { describe, expect, it, vi } from "vitest";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// The core's WebAssembly glue uses AssemblyScript builtins; under vitest use the JS glue.
vi.mock("../core/glue/wasm", async () => await import("../core/glue/js"));

import { loadDocument } from "../core/ir/load";
import { recognize } from "../core/analysis/structure";
import { Device } from "../core/device/device";
import { RuleResult } from "../core/plan/plan";
import {
  LegalityContext, RULES, checkFusion, checkPacking, failedIds, packingContext, ruleIds, writeConflicts,
} from "../core/legality/index";

// Fixtures: test/fixtures/legality/<name>.json (raw Tile IR) and <name>.expect.json:
//   {"family": ..., "mapping": {P, S, T, cache?, maxThreads?, sizes?, device?},
//    "packing" | "fusion": {ruleId: verdict, ...}, "conflicts": [codes],
//    "runs": [{"mapping": ..., "packing" | "fusion": ...}, ...]   (more mappings, optional)}
// Set TILE_UPDATE_FIXTURES=1 to rewrite the expectations from the current verdicts (then review
// every changed file by hand).

const DIR = join(__dirname, "fixtures", "legality");
const CASES = join(__dirname, "..", "cases");
const UPDATE = process.env.TILE_UPDATE_FIXTURES === "1";

const PACKING_IDS = [
  "noalias", "pure-expression", "independent-store", "private-ownership", "reduction-loop-shape",
  "tail-read-write", "thread-limit", "threadgroup-memory",
];
const FUSION_IDS = ["noalias", "same-domain", "injective-compact-store", "no-read-of-written", "single-writer"];

/** Resolves an RFC 6901 JSON pointer; `undefined` when it does not resolve. */
function resolvePointer(root: unknown, pointer: string): unknown {
  if (pointer === "") return root;
  if (!pointer.startsWith("/")) return undefined;
  let cur: unknown = root;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9][0-9]*)$/.test(key)) return undefined;
      const i = Number(key);
      if (i >= cur.length) return undefined;
      cur = cur[i];
    } else if (cur !== null && typeof cur === "object") {
      if (!Object.prototype.hasOwnProperty.call(cur, key)) return undefined;
      cur = (cur as Record<string, unknown>)[key];
    } else return undefined;
  }
  return cur;
}

interface MappingSpec {
  P?: number;
  S?: number;
  T?: number;
  cache?: string[];
  maxThreads?: number;
  sizes?: Record<string, number>;
  device?: Record<string, number>;
}

interface Run {
  mapping?: MappingSpec;
  packing?: Record<string, string>;
  fusion?: Record<string, string>;
}

interface Expect extends Run {
  family: string;
  conflicts: string[];
  runs?: Run[];
}

function load(text: string, sizes: Record<string, number> | undefined) {
  const names = Object.keys(sizes ?? {});
  const values = names.map((n) => (sizes as Record<string, number>)[n]);
  const loaded = loadDocument(text, names, values);
  expect(loaded.diags.map((d) => d.code + " " + d.pointer + " " + d.message)).toEqual([]);
  return { doc: loaded.doc, structure: recognize(loaded.doc) };
}

function device(spec: Record<string, number> | undefined): Device {
  const d = new Device();
  for (const k of Object.keys(spec ?? {})) (d as unknown as Record<string, number>)[k] = (spec as Record<string, number>)[k];
  return d;
}

function contextFor(text: string, m: MappingSpec | undefined): LegalityContext {
  const { doc, structure } = load(text, m?.sizes);
  return packingContext(doc, structure, device(m?.device), m?.P ?? 1, m?.S ?? 1, m?.T ?? 32, m?.cache ?? [], m?.maxThreads ?? 0);
}

function verdicts(results: RuleResult[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of results) out[r.id] = r.verdict;
  return out;
}

/** Every result is well formed: holds carries a proof and no violation; others carry pointers. */
function checkShape(results: RuleResult[], json: unknown, where: string): void {
  for (const r of results) {
    if (r.verdict === "holds") {
      expect(r.proof.length, where + " " + r.id + " proof").toBeGreaterThan(10);
      expect(r.violations.length, where + " " + r.id).toBe(0);
    } else {
      expect(["fails", "unknown"], where + " " + r.id).toContain(r.verdict);
      expect(r.violations.length, where + " " + r.id + " violations").toBeGreaterThan(0);
      for (const v of r.violations) {
        expect(v.reason.length, where + " " + r.id + " reason").toBeGreaterThan(10);
        expect(resolvePointer(json, v.pointer), where + " " + r.id + " pointer " + v.pointer).not.toBeUndefined();
      }
    }
  }
}

function runOne(text: string, json: unknown, run: Run, where: string): Run {
  const ctx = contextFor(text, run.mapping);
  const got: Run = { mapping: run.mapping };
  if (run.packing !== undefined) {
    const res = checkPacking(ctx);
    expect(res.map((r) => r.id)).toEqual(PACKING_IDS);
    checkShape(res, json, where);
    got.packing = verdicts(res);
    if (!UPDATE) expect(got.packing, where).toEqual(run.packing);
  }
  if (run.fusion !== undefined) {
    const res = checkFusion(ctx);
    expect(res.map((r) => r.id)).toEqual(FUSION_IDS);
    checkShape(res, json, where);
    got.fusion = verdicts(res);
    if (!UPDATE) expect(got.fusion, where).toEqual(run.fusion);
  }
  return got;
}

const names = readdirSync(DIR).filter((f) => f.endsWith(".json") && !f.endsWith(".expect.json")).map((f) => f.slice(0, -5)).sort();

describe("legality fixtures", () => {
  it("has the fixtures the rules are specified by", () => {
    expect(names.length).toBeGreaterThanOrEqual(30);
    for (const n of names) expect(existsSync(join(DIR, n + ".expect.json")), n).toBe(true);
  });

  for (const name of names) {
    it(name, () => {
      const text = readFileSync(join(DIR, name + ".json"), "utf8");
      const json = JSON.parse(text);
      const expectPath = join(DIR, name + ".expect.json");
      const exp = JSON.parse(readFileSync(expectPath, "utf8")) as Expect;
      const { doc, structure } = load(text, exp.mapping?.sizes);
      expect(structure.family, "family").toBe(exp.family);
      const conflicts = writeConflicts(doc, structure);
      for (const d of conflicts) expect(resolvePointer(json, d.pointer), "conflict pointer").not.toBeUndefined();
      const got: Expect = { ...runOne(text, json, exp, name), family: structure.family, conflicts: conflicts.map((d) => d.code) };
      if (!UPDATE) expect(got.conflicts, "conflicts").toEqual(exp.conflicts);
      if (exp.runs !== undefined) {
        got.runs = exp.runs.map((r, i) => runOne(text, json, r, name + " run " + i));
      }
      if (UPDATE) {
        const ordered: Record<string, unknown> = { family: got.family };
        if (got.mapping !== undefined) ordered.mapping = got.mapping;
        if (got.packing !== undefined) ordered.packing = got.packing;
        if (got.fusion !== undefined) ordered.fusion = got.fusion;
        ordered.conflicts = got.conflicts;
        if (got.runs !== undefined) ordered.runs = got.runs;
        writeFileSync(expectPath, JSON.stringify(ordered, null, 2) + "\n");
      }
    });
  }
});

describe("built-in cases", () => {
  const caseFiles = readdirSync(CASES).filter((f) => f.endsWith(".json")).sort();

  it("are all present", () => {
    expect(caseFiles.length).toBe(17);
  });

  for (const file of caseFiles) {
    it(file + " is admitted", () => {
      const text = readFileSync(join(CASES, file), "utf8");
      const json = JSON.parse(text);
      const { doc, structure } = load(text, undefined);
      expect(writeConflicts(doc, structure)).toEqual([]);
      if (structure.family === "reduction") {
        for (const P of [1, 2]) {
          const res = checkPacking(packingContext(doc, structure, new Device(), P, 1, 32 * P, [], 0));
          checkShape(res, json, file);
          expect(failedIds(res), file + " P=" + P).toEqual([]);
        }
      } else {
        expect(structure.family).toBe("element");
        const res = checkFusion(new LegalityContext(doc, structure, new Device()));
        checkShape(res, json, file);
        expect(failedIds(res), file).toEqual([]);
      }
    });
  }
});

describe("rule table", () => {
  it("lists every rule id once per family, in table order", () => {
    expect(ruleIds("packing")).toEqual(PACKING_IDS);
    expect(ruleIds("fusion")).toEqual(FUSION_IDS);
    expect(RULES.length).toBe(PACKING_IDS.length + FUSION_IDS.length);
  });

  it("failedIds reports fails and unknown, not holds", () => {
    const a = new RuleResult("a", "holds", "p");
    const b = new RuleResult("b", "fails", "");
    const c = new RuleResult("c", "unknown", "");
    expect(failedIds([a, b, c])).toEqual(["b", "c"]);
  });

  it("reports every violation, not the first", () => {
    // a cached buffer written, and another read over two ranges of c: both reported
    const text = readFileSync(join(DIR, "pk_cached_program_read.json"), "utf8");
    const ctx = contextFor(text, { P: 2, S: 1, T: 64, cache: ["X", "Y"] });
    const po = checkPacking(ctx).find((r) => r.id === "private-ownership") as RuleResult;
    expect(po.verdict).toBe("fails");
    const ptrs = po.violations.map((v) => v.pointer);
    expect(ptrs).toContain("/body/0/body/2/body/0"); // Y is written
    expect(ptrs).toContain("/body/0/body/2/body/0/value/1"); // X[r, c] over another range of c
    // X[r, 0], read by every worker at program level, reads memory: X is never written, so that is
    // no violation (session 32; it was one before)
    expect(ptrs).not.toContain("/body/0/body/0/value");
    // X alone, its reads over one range: holds, and says that the program-level read reads memory
    const one = JSON.parse(text);
    one.body[0].body[2].in = [0, "C"];
    const x = checkPacking(contextFor(JSON.stringify(one), { P: 2, S: 1, T: 64, cache: ["X"] })).find((r) => r.id === "private-ownership") as RuleResult;
    expect(x.verdict).toBe("holds");
    expect(x.proof).toContain("reads outside every distributed loop and reduce");
    // a cached buffer that is also written: its program-level read is a violation too (stale registers)
    const written = JSON.parse(text);
    written.body[0].body[2].body[0].store = "X";
    written.body[0].body[2].in = [0, "C"];
    const w = checkPacking(contextFor(JSON.stringify(written), { P: 2, S: 1, T: 64, cache: ["X"] })).find((r) => r.id === "private-ownership") as RuleResult;
    expect(w.verdict).toBe("fails");
    expect(w.violations.map((v) => v.pointer)).toContain("/body/0/body/0/value");
    // only a program-level read: no stripe to keep
    const only = JSON.parse(text);
    only.body[0].body.splice(1, 2, { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["cast", "f32", "c"] }, { store: "Y", at: ["r", 0], value: ["add", "x0", "s"] });
    const o = checkPacking(contextFor(JSON.stringify(only), { P: 2, S: 1, T: 64, cache: ["X"] })).find((r) => r.id === "private-ownership") as RuleResult;
    expect(o.verdict).not.toBe("holds");
    expect(o.violations[0].reason).toContain("so there is no stripe to keep in registers");
  });

  it("a column stripe is owned like a row stripe; a buffer read as a column and as a row is not (session 19)", () => {
    const col = contextFor(readFileSync(join(DIR, "pk_cached_column.json"), "utf8"), { P: 2, S: 1, T: 64, cache: ["X"] });
    expect((checkPacking(col).find((r) => r.id === "private-ownership") as RuleResult).verdict).toBe("holds");
    const rc = contextFor(readFileSync(join(DIR, "pk_cached_row_and_column.json"), "utf8"), { P: 2, S: 1, T: 64, cache: ["X"] });
    const po = checkPacking(rc).find((r) => r.id === "private-ownership") as RuleResult;
    expect(po.verdict).toBe("fails");
    // X[c, r] in the second reduce: r alone in the first index, where the first read has it last
    expect(po.violations.map((v) => v.pointer)).toEqual(["/body/0/body/1/value"]);
    expect(po.violations[0].reason).toContain("covers a different stripe than the read at /body/0/body/0/value");
  });

  it("structural rules say unknown outside their family", () => {
    const el = contextFor(readFileSync(join(DIR, "fu_two_outputs.json"), "utf8"), { P: 2, S: 1, T: 64 });
    const pk = verdicts(checkPacking(el));
    for (const id of ["pure-expression", "independent-store", "reduction-loop-shape"]) expect(pk[id], id).toBe("unknown");
    const rd = contextFor(readFileSync(join(DIR, "pk_direct.json"), "utf8"), { P: 1, S: 1, T: 32 });
    const fu = verdicts(checkFusion(rd));
    for (const id of ["same-domain", "injective-compact-store"]) expect(fu[id], id).toBe("unknown");
  });

  it("thread-limit checks T = 32*S*P and the requested cap", () => {
    const text = readFileSync(join(DIR, "pk_direct.json"), "utf8");
    const at = (m: MappingSpec) => verdicts(checkPacking(contextFor(text, m)))["thread-limit"];
    expect(at({ P: 8, S: 4, T: 1024 })).toBe("holds");
    expect(at({ P: 2, S: 1, T: 96 })).toBe("fails");
    expect(at({ P: 2, S: 1, T: 64, maxThreads: 64 })).toBe("holds");
    expect(at({ P: 2, S: 1, T: 64, maxThreads: 32 })).toBe("fails");
  });

  it("does not decide by name: renaming every buffer and variable keeps every verdict", () => {
    for (const name of names) {
      const text = readFileSync(join(DIR, name + ".json"), "utf8");
      const exp = JSON.parse(readFileSync(join(DIR, name + ".expect.json"), "utf8")) as Expect;
      const renamed = renameAll(JSON.parse(text));
      const a = contextFor(text, exp.mapping);
      const sizes: Record<string, number> = {};
      for (const k of Object.keys(exp.mapping?.sizes ?? {})) sizes["q_" + k] = (exp.mapping?.sizes as Record<string, number>)[k];
      const bm = { ...(exp.mapping ?? {}), sizes, cache: (exp.mapping?.cache ?? []).map((c) => "q_" + c) };
      const b = contextFor(JSON.stringify(renamed), bm);
      expect(verdicts(checkPacking(b)), name).toEqual(verdicts(checkPacking(a)));
      expect(verdicts(checkFusion(b)), name).toEqual(verdicts(checkFusion(a)));
    }
  });
});

/** Prefixes every name (buffers, sizes, variables, scalars) with "q_" and renames the kernel. */
function renameAll(doc: any): any {
  const rn = (s: string) => "q_" + s;
  const sizes: Record<string, number> = {};
  for (const k of Object.keys(doc.sizes)) sizes[rn(k)] = doc.sizes[k];
  const expr = (e: any): any => {
    if (typeof e === "string") return rn(e);
    if (typeof e === "number" || !Array.isArray(e)) return e;
    if (e[0] === "f32") return e;
    if (e[0] === "load") return ["load", rn(e[1]), e[2].map(expr)];
    if (e[0] === "cast") return ["cast", e[1], expr(e[2])];
    return [e[0], ...e.slice(1).map(expr)];
  };
  const stmt = (s: any): any => {
    if ("for" in s) {
      const o: any = { for: rn(s.for), in: s.in.map(expr), kind: s.kind, body: s.body.map(stmt) };
      if ("step" in s) o.step = expr(s.step);
      return o;
    }
    if ("reduce" in s) return { reduce: rn(s.reduce), combiner: s.combiner, over: [rn(s.over[0]), expr(s.over[1]), expr(s.over[2])], value: expr(s.value) };
    if ("let" in s) return { let: rn(s.let), value: expr(s.value) };
    if ("store" in s) return { store: rn(s.store), at: s.at.map(expr), value: expr(s.value) };
    const o: any = { if: expr(s.if), then: s.then.map(stmt) };
    if ("else" in s) o.else = s.else.map(stmt);
    return o;
  };
  return {
    ...doc,
    name: "renamed",
    sizes,
    params: doc.params.map((p: any) => ({ ...p, name: rn(p.name), shape: p.shape.map((x: any) => (typeof x === "string" ? rn(x) : x)) })),
    body: doc.body.map(stmt),
  };
}
