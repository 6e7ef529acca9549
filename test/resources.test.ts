// Bounded resources: the WebAssembly engine's linear memory does not grow with the number of
// requests. 100 documents (generated, both families, plus every legality fixture's shape) are
// planned once, then the same 100 again and again up to 10,000 plans: the memory afterwards is
// no larger than after the first 100. The same holds for emit and for rejected documents.
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import fc from "fast-check";
import { loadEngine, type WasmEngine } from "../shell-node/src/engine";
import { caseArb } from "./fuzz/gen";

const LEGALITY = path.join(path.dirname(new URL(import.meta.url).pathname), "fixtures", "legality");
let wasm: WasmEngine;
let requests: string[] = [];

beforeAll(async () => {
  wasm = (await loadEngine("wasm")) as WasmEngine;
  const fixtures = fs.readdirSync(LEGALITY).filter((f) => !f.includes(".expect.")).sort().slice(0, 40);
  const docs = fixtures.map((f) => ({ text: fs.readFileSync(path.join(LEGALITY, f), "utf8"), options: {} as object }));
  for (const c of fc.sample(caseArb, { seed: 99, numRuns: 100 - docs.length })) docs.push({ text: JSON.stringify(c.doc), options: c.options });
  requests = docs.map((d) => JSON.stringify({ command: "plan", document: d.text, options: d.options }));
});

describe("the WebAssembly engine's memory", () => {
  test("after 10,000 plans is no larger than after the first 100", () => {
    expect(requests.length).toBe(100);
    for (const r of requests) wasm.callText(r);
    const after100 = wasm.memoryBytes();
    for (let round = 1; round < 100; round++) for (const r of requests) wasm.callText(r);
    const after10000 = wasm.memoryBytes();
    console.log(`wasm memory: ${after100} bytes after 100 plans, ${after10000} bytes after 10,000`);
    expect(wasm.instances).toBe(1);
    expect(after10000).toBeLessThanOrEqual(after100);
  }, 120_000);

  test("emit and rejected documents do not grow it either", () => {
    const emits = requests.slice(0, 50).map((r) => r.replace('{"command":"plan"', '{"command":"emit"'));
    const junk = ["{", '{"tile": 2}', "[".repeat(1000), JSON.stringify({ tile: 1, name: "x".repeat(100000) })].map((t) => JSON.stringify({ command: "plan", document: t }));
    const all = emits.concat(junk);
    for (const r of all) wasm.callText(r);
    const before = wasm.memoryBytes();
    for (let round = 0; round < 40; round++) for (const r of all) wasm.callText(r);
    expect(wasm.memoryBytes()).toBeLessThanOrEqual(before);
    expect(wasm.instances).toBe(1);
  }, 120_000);

  test("a growing document does grow it (the measure can fail)", () => {
    const big = JSON.stringify({ command: "validate", document: JSON.stringify({ tile: 1, name: "y".repeat(3_000_000) }) });
    const before = wasm.memoryBytes();
    wasm.callText(big);
    expect(wasm.memoryBytes()).toBeGreaterThan(before);
  });
});

// The WebAssembly build runs on AssemblyScript's `stub` runtime as an arena (core/index-wasm.ts):
// each request's blocks are dropped when the next one begins. That is only sound if no request
// writes into memory allocated before the arena (the core's module-level tables and objects): a
// global array a request grows, or a global object a request stores a pointer in, would dangle.
// This checks the bytes below the arena are the same after every kind of request as before any.
describe("the WebAssembly arena", () => {
  test("no request writes below the arena (module-level data is never mutated)", async () => {
    const bytes = fs.readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), "..", "dist", "tile-core.wasm"));
    const { instance } = await WebAssembly.instantiate(bytes, {});
    const e = instance.exports as any;
    const encoder = new TextEncoder();
    const call = (request: string): string => {
      const input = encoder.encode(request);
      const ptr = e.tile_alloc(input.length) >>> 0;
      new Uint8Array(e.memory.buffer, ptr, input.length).set(input);
      const n = e.tile_call(input.length);
      return new TextDecoder().decode(new Uint8Array(e.memory.buffer, e.tile_result() >>> 0, n));
    };
    // The first request's buffer lies a few blocks (< 128 bytes) above the arena's start.
    const first = e.tile_alloc(0) >>> 0;
    const below = first - 128;
    const before = new Uint8Array(e.memory.buffer, 0, below).slice();
    const cases = JSON.parse(call('{"command":"cases"}')).cases as { name: string; text: string }[];
    const all: string[] = ['{"command":"version"}', '{"command":"device"}', "{", '{"command":"nope"}'];
    const variants = [{}, { programsPerGroup: 2, threads: 512, vector: 4 }, { cacheInput: false, unroll: 3 }, { target: "mlx" }, { target: "torch", candidates: true }];
    for (const c of cases) {
      for (const cmd of ["validate", "canonical"]) all.push(JSON.stringify({ command: cmd, document: c.text }));
      for (const options of variants) for (const cmd of ["plan", "emit"]) all.push(JSON.stringify({ command: cmd, document: c.text, options }));
    }
    all.push(...requests, ...requests.map((r) => r.replace('{"command":"plan"', '{"command":"emit"')));
    const msl = JSON.parse(call(JSON.stringify({ command: "emit", document: cases[0].text }))).msl;
    all.push(JSON.stringify({ command: "audit-msl", msl }), JSON.stringify({ command: "audit-msl", msl: msl.replace(/barrier/g, "x") }));
    const firstAnswers = all.map(call);
    const after = new Uint8Array(e.memory.buffer, 0, below);
    let changed = -1;
    for (let i = 0; i < below && changed < 0; i++) if (after[i] !== before[i]) changed = i;
    expect(changed).toBe(-1);
    // and the same requests again answer the same bytes
    expect(all.map(call)).toEqual(firstAnswers);
  }, 120_000);
});
