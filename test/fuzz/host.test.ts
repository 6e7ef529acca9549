// Fuzz, on the host runtime: every admitted plan of a generated document (cooperative reduction,
// fused element grid and the serial fallback), emitted, compiled and run three dispatches, matches
// the FP64 oracle within the tolerance and leaves every guard intact. Kernels are compiled 50 to a
// source (one g++ run per batch); a shrunk counterexample is compiled alone.
// FUZZ_SEED and FUZZ_HOST_COUNT override the CI seed and count (scripts/fuzz-long.mjs sets them).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import fc from "fast-check";
import { loadEngine, type Engine } from "../../shell-node/src/engine";
import { openRuntime, type Runtime } from "../../shell-node/src/native";
import { caseArb, type Case } from "./gen";
import { checkProperty, HostBatch } from "./props";

const SEED = Number(process.env.FUZZ_SEED ?? 20240611);
const COUNT = Number(process.env.FUZZ_HOST_COUNT ?? 600);
const BATCH = 50;

let runtime: Runtime;
let engine: Engine;

beforeAll(async () => {
  runtime = openRuntime("host");
  engine = await loadEngine("js");
});

afterAll(() => runtime?.close());

describe("fuzz on the host runtime", () => {
  test(`${COUNT} generated documents (seed ${SEED}) match the FP64 oracle with guards intact`, () => {
    const batch = new HostBatch(runtime, engine, 1);
    // the same seed and count make fast-check draw the same cases, so they are compiled in batches first
    batch.prepare(fc.sample(caseArb, { seed: SEED, numRuns: COUNT }), BATCH);
    const byRealization = new Map<string, number>();
    checkProperty("host", caseArb, SEED, COUNT, (c: Case) => {
      const o = batch.outcome(c);
      if (!o.skipped) byRealization.set(o.realization, (byRealization.get(o.realization) ?? 0) + 1);
      return o.problems;
    });
    console.log(`host fuzz: ${batch.executed} executions, ${batch.compiles} compiles; ${JSON.stringify([...byRealization.entries()])}`);
    expect(batch.executed).toBeGreaterThanOrEqual(Math.min(500, Math.floor(COUNT * 0.8)));
    for (const r of ["cooperative-reduction", "fused-elementwise", "serial-program"]) expect(byRealization.get(r) ?? 0).toBeGreaterThan(COUNT / 20);
  }, 600_000);
});
