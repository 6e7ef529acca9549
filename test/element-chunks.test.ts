// The element grid's U (issue 16, run 32): `--unroll U` gives each thread U chunks of V columns,
// as H = U * V / Q vectors of Q consecutive columns with neighbouring threads on neighbouring
// vectors; the solver keeps U = 1 unless asked. The vector-chain term of the cost model
// (vectorChainFraction: a share of the memory term per vector beyond the first that one thread
// takes in sequence) is 0 by default and measured for the calibrated H200 record.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { runAndValidate } from "../shell-node/src/validate-run";
import { ROOT } from "./helpers/files";
import { hostContext, prefetchKernels } from "./helpers/host";

const h = hostContext();

const kase = (name: string): string => fs.readFileSync(path.join(ROOT, "cases", name + ".json"), "utf8");
const device = (name: string): any => JSON.parse(fs.readFileSync(path.join(ROOT, "devices", name + ".json"), "utf8"));

describe("element grid with U chunks of V columns per thread", () => {
  // ragged rows (C not a multiple of T * V * U), rows shorter than one chunk, V = 1 with U > 1
  const variants: Array<{ sizes: Record<string, number>; vector: number; unroll: number; threads?: number }> = [
    { sizes: { R: 5, C: 1537 }, vector: 1, unroll: 3 },
    { sizes: { R: 5, C: 1536 }, vector: 4, unroll: 3 },
    { sizes: { R: 3, C: 1544 }, vector: 8, unroll: 2 },
    { sizes: { R: 4, C: 100 }, vector: 4, unroll: 5, threads: 32 },
    { sizes: { R: 2, C: 4096 }, vector: 8, unroll: 4, threads: 64 },
    // a row length that is not a multiple of the vector: each row's last vector is ragged
    { sizes: { R: 5, C: 1537 }, vector: 4, unroll: 1 },
    { sizes: { R: 3, C: 1543 }, vector: 8, unroll: 2 },
    { sizes: { R: 4, C: 101 }, vector: 4, unroll: 3, threads: 32 },
    { sizes: { R: 6, C: 3 }, vector: 4, unroll: 1, threads: 32 },
    { sizes: { R: 3, C: 7 }, vector: 8, unroll: 1, threads: 32 },
  ];
  for (const name of ["sigmoid_pair", "gelu_pair"]) {
    it(`${name}: every variant is byte-identical in both engines and validates on the host runtime`, () => {
      const failures: string[] = [];
      const optionsOf = (v: (typeof variants)[number]): any => {
        const options: any = { sizes: v.sizes, vector: v.vector, unroll: v.unroll };
        if (v.threads) options.threads = v.threads;
        return options;
      };
      // these kernels compiled in one g++ run first; each run still compiles its own (cached)
      prefetchKernels(h.runtime, h.wasm, variants.map((v) => ({ doc: kase(name), options: optionsOf(v) })));
      for (const v of variants) {
        const options: any = optionsOf(v);
        const a = h.wasm.call({ command: "emit", document: kase(name), options });
        const b = h.js.call({ command: "emit", document: kase(name), options });
        expect(JSON.stringify(a)).toBe(JSON.stringify(b));
        expect(a.ok, JSON.stringify(a.diagnostics)).toBe(true);
        const m = a.plan.mapping;
        const T = v.threads ?? 256;
        expect(m).toMatchObject({ V: v.vector, U: v.unroll, T, blocksPerRow: Math.ceil(v.sizes.C / (T * v.vector * v.unroll)) });
        // short rows (a row needs at most half a group): whole rows per group, rowThreads threads each
        const rowThreads = Math.ceil(v.sizes.C / (v.vector * v.unroll));
        if (rowThreads * 2 <= T) {
          expect(m).toMatchObject({ rowThreads, rowsPerGroup: Math.floor(T / rowThreads) });
          expect(m.groups).toBe(Math.ceil(v.sizes.R / m.rowsPerGroup));
        } else {
          expect(m.rowsPerGroup).toBe(1);
          expect(m.groups).toBe(v.sizes.R * m.blocksPerRow);
        }
        const H = (v.vector === 1 ? 1 : v.vector / 4) * v.unroll;
        if (H > 1) expect(a.msl).toContain(`for (int tile_h = 0; tile_h < ${H}; ++tile_h) {`);
        if (v.unroll > 1) expect(a.msl).toContain(` U=${v.unroll} `);
        const ragged = v.vector > 1 && v.sizes.C % 4 !== 0;
        expect(a.msl.includes("the row's ragged last vector"), JSON.stringify(options)).toBe(ragged);
        const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text: kase(name), options, seed: 5, emitted: a });
        if (!r.passed || r.guards !== "intact") failures.push(`${JSON.stringify(options)}: ${r.error ?? ""} ${r.guards}`);
        for (const o of r.outputs) expect(o.written).toBe(v.sizes.R * v.sizes.C);
      }
      expect(failures).toEqual([]);
    });
  }

  it("U = 1 (the default) emits the kernel of before: no chunk loop for V = 4, no U in the header", () => {
    const a = h.wasm.call({ command: "emit", document: kase("sigmoid_pair"), options: { sizes: { C: 1536 }, vector: 4 } });
    expect(a.plan.mapping.U).toBe(1);
    expect(a.msl).not.toContain("tile_h");
    expect(a.msl).not.toMatch(/ U=\d/);
  });
});

describe("the vector-chain term of the element grid's cost", () => {
  const pick = (dev: any, sizes: Record<string, number>, extra: object = {}): any =>
    h.wasm.call({ command: "plan", document: kase("sigmoid_pair"), options: { sizes, candidates: true, device: dev, ...extra } });

  it("adds vectorChainFraction x (vectors per thread - 1) x the memory term to latency, nothing at one vector", () => {
    const base = device("nvidia-h200-calibrated");
    const zero = { ...base, costModel: { ...base.costModel, vectorChainFraction: 0 } };
    const sizes = { R: 768, C: 6144 };
    const byV = (p: any): Map<string, any> => new Map(p.candidates.map((c: any) => [`${c.mapping.V}/${c.mapping.U}`, c.cost.terms]));
    const on = byV(pick(base, sizes));
    const off = byV(pick(zero, sizes));
    const f = base.costModel.vectorChainFraction;
    expect(f).toBeGreaterThan(0);
    for (const [key, cost] of on) {
      const H = key === "8/1" ? 1 : 0; // V = 8: two packed vectors of 4 per thread, one beyond the first
      expect(cost.latency - off.get(key).latency).toBeCloseTo(H * f * cost.memory, 1);
    }
    // --unroll 3 with V = 4: three vectors per thread
    const u3 = pick(base, sizes, { vector: 4, unroll: 3 }).cost.terms;
    const u3off = pick(zero, sizes, { vector: 4, unroll: 3 }).cost.terms;
    expect(u3.latency - u3off.latency).toBeCloseTo(2 * f * u3.memory, 1);
    expect(u3.latency - u3off.latency).toBeGreaterThan(0);
  });

  it("the calibrated H200 record picks one packed vector per thread for the pairs at the benchmark shapes (run 32); the default device's picks keep V = 8 where they had it", () => {
    const h200 = device("nvidia-h200-calibrated");
    for (const sizes of [{ R: 768, C: 6144 }, { R: 1024, C: 4096 }, { R: 4096, C: 4096 }, { R: 2048, C: 8192 }]) {
      expect(pick(h200, sizes).mapping).toMatchObject({ V: 4, U: 1 });
    }
    // the built-in Apple record has no measured chain term: its pick is the one of before
    const m1 = h.wasm.call({ command: "plan", document: kase("sigmoid_pair"), options: { sizes: { R: 64, C: 4096 } } });
    expect(m1.mapping).toMatchObject({ V: 8, U: 1 });
  });
});

describe("short rows: a group of the element grid takes whole rows", () => {
  it("rows that need at most half a group share one: rowThreads threads each, guards for the last rows and the idle threads; validated with the detector on", () => {
    const failures: string[] = [];
    // C = 3 (the silu pair of the red team, session 31), 33, 77 (ragged vectors), 100 with U = 2
    const variants: Array<{ R: number; C: number; vector?: number; unroll?: number; threads?: number }> = [
      { R: 1537, C: 3 }, { R: 37, C: 33 }, { R: 41, C: 77, vector: 4 }, { R: 13, C: 100, vector: 8, unroll: 2 },
      { R: 9, C: 5, threads: 32 }, { R: 2, C: 128, vector: 4 },
    ];
    for (const v of variants) {
      const options: any = { sizes: { R: v.R, C: v.C } };
      if (v.vector) options.vector = v.vector;
      if (v.unroll) options.unroll = v.unroll;
      if (v.threads) options.threads = v.threads;
      const a = h.wasm.call({ command: "emit", document: kase("sigmoid_pair"), options });
      expect(JSON.stringify(a)).toBe(JSON.stringify(h.js.call({ command: "emit", document: kase("sigmoid_pair"), options })));
      const m = a.plan.mapping;
      const T = v.threads ?? 256;
      const rowThreads = Math.ceil(v.C / (m.V * m.U));
      expect(m, JSON.stringify(options)).toMatchObject({ rowThreads, rowsPerGroup: Math.floor(T / rowThreads), groups: Math.ceil(v.R / Math.floor(T / rowThreads)) });
      expect(a.plan.dispatch.groups).toBe(m.groups);
      // the threads past the group's whole rows stop before they could write the next group's row
      expect(a.msl).toContain(`if (row >= ${v.R} || int(tid) >= ${m.rowsPerGroup * rowThreads}) return;`);
      const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text: kase("sigmoid_pair"), options, seed: 3, emitted: a });
      if (!r.passed || r.guards !== "intact") failures.push(`${JSON.stringify(options)}: ${r.error ?? ""} ${r.guards}`);
      for (const o of r.outputs) expect(o.written).toBe(v.R * v.C);
    }
    expect(failures).toEqual([]);
    // a row that needs more than half a group keeps one row (or part of one) per group, as before
    const wide = h.wasm.call({ command: "emit", document: kase("sigmoid_pair"), options: { sizes: { R: 4, C: 129 }, vector: 1 } });
    expect(wide.plan.mapping).toMatchObject({ rowsPerGroup: 1, rowThreads: 0, blocksPerRow: 1, groups: 4 });
    expect(wide.msl).not.toContain("tile_lane");
  });
});
