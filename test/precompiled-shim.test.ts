// The host runtime's shim read as a precompiled header (shell-native/host/compile.cpp,
// shim_header): on Linux every unit is compiled with `-include <cache>/include/shim-<hash>.h`,
// whose .gch the runtime makes once per shim, compiler and flags. A unit gives the same bytes
// whichever way the shim reaches g++: precompiled, as the header's text (a .gch g++ refuses), or
// as text inside the unit (the route a runtime falls back to when the header route fails).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./helpers/files";
import { loadEngine, type Engine } from "../shell-node/src/engine";
import { openRuntime, type Runtime } from "../shell-node/src/native";
import { makeInputs, shapeOf } from "../shell-node/src/inputs";
import { elements, runKernel } from "./export/check";

const SHIM = fs.readFileSync(path.join(ROOT, "shell-native", "host", "metal_shim.h"), "utf8");
/** A line of the shim's own text that no kernel carries. */
const SHIM_LINE = SHIM.split("\n").find((l) => /^\s*(struct|template|static inline)\b/.test(l) && l.length > 30)!;

describe.skipIf(process.platform !== "linux")("the shim as a precompiled header", () => {
  let js: Engine;
  const dirs: string[] = [];
  const opened: Runtime[] = [];
  beforeAll(async () => {
    js = await loadEngine("js");
  });
  afterAll(() => {
    opened.forEach((rt) => rt.close());
    dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
  });
  /** A host runtime with a cache folder of its own (`prepare` fills the folder first). */
  const open = (prepare?: (cache: string) => void): { rt: Runtime; cache: string } => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), "tile-pch-"));
    dirs.push(cache);
    prepare?.(cache);
    const saved = process.env.TILE_CACHE_DIR;
    process.env.TILE_CACHE_DIR = cache;
    try {
      const rt = openRuntime("host");
      opened.push(rt);
      return { rt, cache };
    } finally {
      if (saved === undefined) delete process.env.TILE_CACHE_DIR;
      else process.env.TILE_CACHE_DIR = saved;
    }
  };
  /** Runs built-in case `name` on `rt`: its outputs' bytes and the compiler invocations it took. */
  const run = (rt: Runtime, name: string): { bytes: Buffer[]; invocations: number } => {
    const doc = JSON.parse(fs.readFileSync(path.join(ROOT, "cases", name + ".json"), "utf8"));
    const e = js.call({ command: "emit", document: JSON.stringify(doc), options: {} });
    expect(e.ok).toBe(true);
    const inputs = makeInputs(doc, 7);
    const fill = e.plan.bindings.map((b: any) => ({
      data: b.access === "write" ? null : inputs.get(b.name)!,
      dtype: doc.params.find((p: any) => p.name === b.name).dtype,
      n: elements(shapeOf(doc, b.name)),
    }));
    const before = rt.compilerInvocations();
    const out = runKernel(rt, e.msl, e.plan.kernel, fill, e.plan.dispatch.groups, e.plan.dispatch.threads);
    return { bytes: out.map((b) => Buffer.from(b)), invocations: rt.compilerInvocations() - before };
  };
  const units = (cache: string): string[] =>
    fs.readdirSync(cache).filter((f) => f.endsWith(".cpp")).map((f) => fs.readFileSync(path.join(cache, f), "utf8"));

  let header = ""; // the header's file name, the same for every runtime of this compiler and flags
  let headerText = "";
  let reference: Buffer[] = [];

  it("is made once, precompiled, and the unit carries none of the shim's text", () => {
    const { rt, cache } = open();
    const first = run(rt, "softmax");
    expect(first.invocations).toBe(1);
    const inc = fs.readdirSync(path.join(cache, "include"));
    const headers = inc.filter((f) => /^shim-[0-9a-f]+\.h$/.test(f));
    expect(headers).toHaveLength(1);
    header = headers[0];
    headerText = fs.readFileSync(path.join(cache, "include", header), "utf8");
    expect(headerText).toContain(SHIM_LINE);
    // g++'s precompiled-header magic
    expect(fs.readFileSync(path.join(cache, "include", header + ".gch")).subarray(0, 4).toString("latin1")).toBe("gpch");
    expect(inc.filter((f) => /\.(tmp|log|su)$/.test(f))).toEqual([]);
    const [unit] = units(cache);
    expect(unit.startsWith('#line 1 "')).toBe(true);
    expect(unit).not.toContain(SHIM_LINE);
    reference = first.bytes;
    // a second kernel reuses the header: no second precompile, one compile
    expect(run(rt, "rmsnorm").invocations).toBe(1);
    expect(fs.readdirSync(path.join(cache, "include")).filter((f) => f.startsWith("shim-"))).toEqual([header, header + ".gch"]);
  });

  it("a .gch that g++ refuses is read as the header's text: same bytes, one compile", () => {
    expect(header).not.toBe("");
    const { rt } = open((cache) => {
      fs.mkdirSync(path.join(cache, "include"));
      fs.writeFileSync(path.join(cache, "include", header), headerText);
      fs.writeFileSync(path.join(cache, "include", header + ".gch"), "not a precompiled header\n");
    });
    const r = run(rt, "softmax");
    expect(r.invocations).toBe(1);
    expect(r.bytes).toEqual(reference);
  });

  it("a unit that fails through the header compiles again with the shim's text in it, and the runtime keeps to that route", () => {
    const { rt, cache } = open((c) => {
      fs.mkdirSync(path.join(c, "include"));
      fs.writeFileSync(path.join(c, "include", header), "#error a broken header route\n");
      fs.writeFileSync(path.join(c, "include", header + ".gch"), "not a precompiled header\n");
    });
    const r = run(rt, "softmax");
    expect(r.invocations).toBe(2); // through the header, then with the text
    expect(r.bytes).toEqual(reference);
    expect(run(rt, "rmsnorm").invocations).toBe(1); // the text from the start
    const texts = units(cache);
    expect(texts).toHaveLength(2);
    texts.forEach((u) => expect(u).toContain(SHIM_LINE));
  });

  it("a precompile that fails leaves the shim's text in each unit", () => {
    const { rt, cache } = open((c) => {
      fs.mkdirSync(path.join(c, "include"));
      fs.writeFileSync(path.join(c, "include", header), "#error cannot be precompiled\n");
    });
    const r = run(rt, "softmax");
    expect(r.invocations).toBe(1);
    expect(r.bytes).toEqual(reference);
    expect(fs.existsSync(path.join(cache, "include", header + ".gch"))).toBe(false);
    expect(units(cache)[0]).toContain(SHIM_LINE);
  });
});
