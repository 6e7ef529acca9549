// What both core benchmarks time (core-bench.mjs and wasm-ab.mjs): the option variants of every
// built-in case, and the fuzz documents, `count` drawn with `seed` from each generator the fuzz
// tests use (test/fuzz/gen.ts and the structural test/fuzz/structural.ts), transpiled with
// @swc/core into node_modules/.cache/tile-bench-fuzz (loaded only then: wasm-ab.mjs also runs
// from a saved request list where there is no node_modules).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** The plan options every built-in case is timed with. */
export const VARIANTS = [
  {},
  { programsPerGroup: 1, threads: 256, vector: 4 },
  { programsPerGroup: 2, threads: 512, vector: 4 },
  { programsPerGroup: 3 },
  { programsPerGroup: 8, threads: 256, vector: 1 },
  { cacheInput: false, unroll: 3 },
];

/** [{label, doc, options}]: `count` documents of each generator, in a fixed order. */
export async function fuzzDocs(root, seed, count) {
  const { transform } = await import("@swc/core");
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
