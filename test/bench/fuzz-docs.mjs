// The fuzz documents both core benchmarks time (core-bench.mjs and wasm-ab.mjs): `count` drawn
// with `seed` from each generator the fuzz tests use (test/fuzz/gen.ts and the structural
// test/fuzz/structural.ts), transpiled with @swc/core into node_modules/.cache/tile-bench-fuzz.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { transform } from "@swc/core";

/** [{label, doc, options}]: `count` documents of each generator, in a fixed order. */
export async function fuzzDocs(root, seed, count) {
  const out = path.join(root, "node_modules", ".cache", "tile-bench-fuzz");
  fs.mkdirSync(out, { recursive: true });
  for (const name of ["gen", "structural"]) {
    const file = path.join(root, "test", "fuzz", name + ".ts");
    const code = (await transform(fs.readFileSync(file, "utf8"), { filename: file, jsc: { parser: { syntax: "typescript" }, target: "es2022" } })).code;
    fs.writeFileSync(path.join(out, name + ".mjs"), code.split('"./gen"').join('"./gen.mjs"'));
  }
  const fc = (await import("fast-check")).default;
  const gen = await import(pathToFileURL(path.join(out, "gen.mjs")).href);
  const structural = await import(pathToFileURL(path.join(out, "structural.mjs")).href);
  return [
    ...fc.sample(gen.caseArb, { seed, numRuns: count }).map((c, i) => ({ label: `gen #${i} (${c.family})`, doc: c.doc, options: gen.requestOptions(c) })),
    ...fc.sample(structural.structArb, { seed, numRuns: count }).map((c, i) => ({ label: `structural #${i} (${c.shape})`, doc: c.doc, options: c.options })),
  ];
}
