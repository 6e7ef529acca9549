// Residency bounded by registers (issue 16 item 2, issue 17): a device record that gives its register
// file (registersPerCore, registersPerThreadBase, registerGranule) bounds how many groups a core
// holds by the registers their threads need: the base estimate plus the cached stripe, rounded up
// to the granule, for whole SIMD groups. A record without those fields is scored as before.
import { describe, expect, it, beforeAll } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { loadEngine, Engine } from "../shell-node/src/engine";
import { ROOT } from "./helpers/files";
import { openRuntime, registerLimitFor } from "../shell-node/src/native";

let wasm: Engine;
let js: Engine;
beforeAll(async () => {
  wasm = await loadEngine("wasm");
  js = await loadEngine("js");
});

const H200 = JSON.parse(fs.readFileSync(path.join(ROOT, "devices", "nvidia-h200.json"), "utf8"));
const softmax = fs.readFileSync(path.join(ROOT, "cases", "softmax.json"), "utf8");
const sigmoid = fs.readFileSync(path.join(ROOT, "cases", "sigmoid_pair.json"), "utf8");
const withRegs = (base: number, granule: number): object => ({ ...H200, registersPerCore: 65536, registersPerThreadBase: base, registerGranule: granule });
const plan = (e: Engine, text: string, options: object): any => {
  const p = e.call({ command: "plan", document: text, options });
  expect(p.ok, JSON.stringify(p.diagnostics)).toBe(true);
  return p;
};
const sizes = { R: 768, C: 6144 };

describe("groups per core bounded by registers", () => {
  it("without register fields, only threads, threadgroup memory and the group limit bound it", () => {
    const p = plan(wasm, softmax, { device: H200, sizes, programsPerGroup: 1, threads: 320, vector: 4 });
    expect(p.mapping.cached).toBe(true);
    expect(p.cost.terms.groupsPerCore).toBe(6); // 2048 / 320
    expect(p.cost.terms.waves).toBe(1); // 768 groups <= 132 * 6
  });

  it("a cached stripe of 20 scalars at T = 320: 24 + 20 = 44 -> 48 registers, 65536 / (48 * 320) = 4 groups, 2 waves", () => {
    for (const e of [wasm, js]) {
      const p = plan(e, softmax, { device: withRegs(24, 8), sizes, programsPerGroup: 1, threads: 320, vector: 4 });
      expect(p.mapping.cached).toBe(true);
      expect(p.cost.terms.groupsPerCore).toBe(4);
      expect(p.cost.terms.waves).toBe(2); // ceil(768 / 528)
    }
  });

  it("T = 192, V = 8 holds 32 scalars: 56 registers, 6 groups per core, one wave", () => {
    const p = plan(wasm, softmax, { device: withRegs(24, 8), sizes, programsPerGroup: 1, threads: 192, vector: 8 });
    expect(p.cost.terms.groupsPerCore).toBe(6); // 65536 / (56 * 192) = 6.1
    expect(p.cost.terms.waves).toBe(1);
  });

  it("the granule rounds a thread's registers up: 25 + 24 = 49 is 5 groups of 256 exactly, 4 when given in eights", () => {
    const exact = plan(wasm, softmax, { device: withRegs(25, 1), sizes, programsPerGroup: 1, threads: 256, vector: 4 });
    const eights = plan(wasm, softmax, { device: withRegs(25, 8), sizes, programsPerGroup: 1, threads: 256, vector: 4 });
    expect(exact.cost.terms.groupsPerCore).toBe(5); // 65536 / (49 * 256) = 5.2
    expect(eights.cost.terms.groupsPerCore).toBe(4); // 65536 / (56 * 256) = 4.6
  });

  it("an uncached stripe and the element grid hold only the base registers", () => {
    const unc = plan(wasm, softmax, { device: withRegs(60, 8), sizes, programsPerGroup: 1, threads: 1024, vector: 4, cacheInput: false });
    expect(unc.mapping.cached).toBe(false);
    expect(unc.cost.terms.groupsPerCore).toBe(1); // 65536 / (64 * 1024) = 1; 2048 / 1024 = 2 without registers
    const grid = plan(wasm, sigmoid, { device: withRegs(24, 8), sizes, threads: 256, vector: 8 });
    expect(grid.cost.terms.groupsPerCore).toBe(8); // 65536 / (24 * 256) = 10.7, 2048 / 256 = 8
    const heavy = plan(wasm, sigmoid, { device: withRegs(120, 8), sizes, threads: 256, vector: 8 });
    expect(heavy.cost.terms.groupsPerCore).toBe(2); // 65536 / (120 * 256) = 2.1
  });

  it("registersPerExtraLoad: a cached stage that loads two buffers beside its stripe holds one extra load's registers", () => {
    const affine = fs.readFileSync(path.join(ROOT, "cases", "layernorm_affine.json"), "utf8");
    const rms = fs.readFileSync(path.join(ROOT, "cases", "rmsnorm.json"), "utf8");
    const extra = (n: number): object => ({ ...withRegs(24, 8), registersPerExtraLoad: n });
    for (const e of [wasm, js]) {
      // LayerNorm's output stage loads G and B beside the cached X: one extra load
      // T = 192, V = 8: 24 + 32 = 56 -> 6 groups, one wave; + 8 = 64 -> 5 groups, ceil(768 / 660) = 2 waves
      const without = plan(e, affine, { device: withRegs(24, 8), sizes, programsPerGroup: 1, threads: 192, vector: 8 });
      const withExtra = plan(e, affine, { device: extra(8), sizes, programsPerGroup: 1, threads: 192, vector: 8 });
      expect(without.cost.terms.groupsPerCore).toBe(6);
      expect(without.cost.terms.waves).toBe(1);
      expect(withExtra.cost.terms.groupsPerCore).toBe(5);
      expect(withExtra.cost.terms.waves).toBe(2);
      // RMSNorm loads only G beside the cached X: no extra load, the same residency either way
      const r = plan(e, rms, { device: extra(8), sizes, programsPerGroup: 1, threads: 192, vector: 8 });
      expect(r.cost.terms.groupsPerCore).toBe(6);
      // an uncached stripe counts none (the term is measured for cached stripes only)
      const unc = plan(e, affine, { device: extra(64), sizes, programsPerGroup: 1, threads: 1024, vector: 4, cacheInput: false });
      const unc0 = plan(e, affine, { device: withRegs(24, 8), sizes, programsPerGroup: 1, threads: 1024, vector: 4, cacheInput: false });
      expect(unc.cost.terms.groupsPerCore).toBe(unc0.cost.terms.groupsPerCore);
    }
  });

  it("the fields are optional positive integers, and a record reads back with exactly the fields it was given", () => {
    const bad = wasm.call({ command: "plan", document: softmax, options: { device: { ...H200, registersPerCore: 0 } } });
    expect(bad.ok).toBe(false);
    expect(JSON.stringify(bad.diagnostics)).toMatch(/TPL005.*registersPerCore|registersPerCore.*positive integer/);
    const shown = (device: object): any => {
      const r = wasm.call({ command: "device", options: { device } });
      return r.device ?? r;
    };
    const plain = JSON.stringify(shown(H200));
    expect(plain).not.toMatch(/registersPerCore/);
    const given = JSON.stringify(shown(withRegs(24, 8)));
    expect(given).toMatch(/"registersPerCore":65536,"registersPerThreadBase":24,"registerGranule":8/);
    expect(given).not.toMatch(/registersPerExtraLoad/);
    expect(JSON.stringify(shown({ ...withRegs(24, 8), registersPerExtraLoad: 8 }))).toMatch(/"registerGranule":8,"registersPerExtraLoad":8/);
    const badExtra = wasm.call({ command: "plan", document: softmax, options: { device: { ...withRegs(24, 8), registersPerExtraLoad: -1 } } });
    expect(badExtra.ok).toBe(false);
  });
});

describe("the register limit that keeps a plan's residency (cost term registerLimit)", () => {
  it("is the register file over the plan's groups per core of whole SIMD groups, rounded down to the granule", () => {
    for (const e of [wasm, js]) {
      const p = plan(e, softmax, { device: withRegs(24, 8), sizes, programsPerGroup: 1, threads: 192, vector: 8 });
      expect(p.cost.terms.groupsPerCore).toBe(6);
      expect(p.cost.terms.registerLimit).toBe(56); // 65536 / (192 * 6) = 56.9
      const q = plan(e, softmax, { device: withRegs(24, 8), sizes, programsPerGroup: 1, threads: 320, vector: 4 });
      expect(q.cost.terms.groupsPerCore).toBe(4);
      expect(q.cost.terms.registerLimit).toBe(48); // 65536 / (320 * 4) = 51.2 -> 48
      // T = 1024, V = 1 caches 6 scalars: 24 + 6 -> 32 registers would allow 2 groups; threads allow 2
      const wide = plan(e, softmax, { device: withRegs(24, 8), sizes, programsPerGroup: 1, threads: 1024, vector: 1 });
      expect(wide.cost.terms.groupsPerCore).toBe(2);
      expect(wide.cost.terms.registerLimit).toBe(32); // 65536 / (1024 * 2)
    }
  });

  it("is absent where the device gives no register file, and only a CUDA runtime compiles with it", () => {
    const none = plan(wasm, softmax, { device: H200, sizes });
    expect(none.cost.terms.registerLimit).toBeUndefined();
    const p = plan(wasm, softmax, { device: withRegs(24, 8), sizes, programsPerGroup: 1, threads: 192, vector: 8 });
    expect(registerLimitFor("cuda", p)).toBe(56);
    expect(registerLimitFor("host", p)).toBe(0);
    expect(registerLimitFor("metal", p)).toBe(0);
    expect(registerLimitFor("cuda", none)).toBe(0);
    const saved = process.env.TILE_REGISTER_LIMIT;
    process.env.TILE_REGISTER_LIMIT = "0";
    try {
      expect(registerLimitFor("cuda", p)).toBe(0);
    } finally {
      if (saved === undefined) delete process.env.TILE_REGISTER_LIMIT;
      else process.env.TILE_REGISTER_LIMIT = saved;
    }
  });

  it("the host runtime takes a limit and compiles as without it (tile_compile_limited)", () => {
    const add = fs.readFileSync(path.join(ROOT, "cases", "add.json"), "utf8");
    const r = wasm.call({ command: "emit", document: add, options: {} });
    expect(r.ok).toBe(true);
    const rt = openRuntime("host");
    try {
      const lib = rt.compile(r.msl, 32);
      const pipe = rt.pipeline(lib, r.plan.kernel);
      expect(pipe.maxThreads).toBeGreaterThan(0);
      rt.freePipeline(pipe);
      rt.freeLibrary(lib);
    } finally {
      rt.close();
    }
  });
});

