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
