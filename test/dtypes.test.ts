// f16 and bf16 buffers: the host shim's conversions over all 65,536 bit patterns against an
// independent conversion (a nearest search over the sorted table of values, and NumPy's float16
// where python3 has NumPy), the shell's own conversions (oracle, inputs, validation) likewise,
// the reader and checker, the emitted MSL, the cost model's bytes, and runs against the oracle.
import { describe, expect, it, beforeAll } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync, spawnSync } from "node:child_process";
import { loadEngine, Engine } from "../shell-node/src/engine";
import { openRuntime, Runtime } from "../shell-node/src/native";
import { runAndValidate } from "../shell-node/src/validate-run";
import { evaluate } from "../shell-node/src/oracle";
import { bf16ToNumber, f16ToNumber, numberToBf16, numberToF16, roundBf16, roundF16 } from "../shell-node/src/f16";
import { ROOT } from "./helpers/files";

// ---- an independent reference: decode by the definition, round by searching the value table ----

/** f16 bits -> value, straight from the definition (sign, biased exponent, fraction). */
function f16Value(h: number): number {
  const sign = h >= 0x8000 ? -1 : 1;
  const exp = Math.floor((h % 0x8000) / 1024);
  const frac = h % 1024;
  if (exp === 31) return frac === 0 ? sign * Infinity : NaN;
  return exp === 0 ? sign * frac * Math.pow(2, -24) : sign * (1024 + frac) * Math.pow(2, exp - 25);
}
/** bf16 bits -> value: the f32 whose top half they are. */
function bf16Value(b: number): number {
  return new Float32Array(new Uint32Array([b * 65536]).buffer)[0];
}
/** Finite non-negative values of a 16-bit format in increasing order, with their bits. */
function table(value: (bits: number) => number): { v: number[]; bits: number[] } {
  const v: number[] = [], bits: number[] = [];
  for (let b = 0; b < 0x8000; b++) if (Number.isFinite(value(b))) { v.push(value(b)); bits.push(b); }
  return { v, bits };
}
/** Nearest table entry to x >= 0 (ties to the even bit pattern); beyond max + half an ulp: +inf. */
function nearest(t: { v: number[]; bits: number[] }, x: number, infBits: number): number {
  let lo = 0, hi = t.v.length - 1;
  const max = t.v[hi], ulp = max - t.v[hi - 1];
  if (x >= max + ulp / 2) return infBits;
  if (x >= max) return t.bits[hi];
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (t.v[mid] <= x) lo = mid; else hi = mid;
  }
  const dl = x - t.v[lo], dh = t.v[hi] - x;
  if (dl < dh) return t.bits[lo];
  if (dh < dl) return t.bits[hi];
  return t.bits[lo] % 2 === 0 ? t.bits[lo] : t.bits[hi];
}
const F16 = table(f16Value);
const BF16 = table(bf16Value);

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const bitsOf = (x: number): number => { f32[0] = x; return u32[0]; };
const fromBits = (b: number): number => { u32[0] = b >>> 0; return f32[0]; };

/** The f32 probes that decide rounding for every pattern: each finite non-negative value, the
 *  midpoint to the next one, and the f32 neighbours of that midpoint; negated too. */
function probes(t: { v: number[] }): number[] {
  const out: number[] = [];
  for (let i = 0; i < t.v.length; i++) {
    out.push(t.v[i]);
    if (i + 1 < t.v.length) {
      const mid = (t.v[i] + t.v[i + 1]) / 2; // exact in f32: one more bit than the format
      const mb = bitsOf(mid);
      out.push(mid, fromBits(mb - 1), fromBits(mb + 1));
    }
  }
  const max = t.v[t.v.length - 1], top = max + (max - t.v[t.v.length - 2]) / 2;
  out.push(top, fromBits(bitsOf(top) - 1), fromBits(bitsOf(top) + 1), 3e38, Infinity);
  return out.concat(out.map((x) => -x)).map((x) => Math.fround(x));
}
function expectedBits(t: { v: number[]; bits: number[] }, x: number, infBits: number): number {
  const b = nearest(t, Math.abs(x), infBits);
  return x < 0 || Object.is(x, -0) ? b | 0x8000 : b;
}

// ---- the host shim's and the CUDA prelude's half and bfloat, compiled exactly as kernels see them ----

type Probe = { nans: Uint16Array; f16: Uint32Array; bf16: Uint32Array; toF16: Uint16Array; toBf16: Uint16Array; f16Probes: number[]; bf16Probes: number[] };

/** Compiles `header` (the conversions under test: half, bfloat, a bits-of-float) with g++ and
 *  runs every 16-bit pattern and every probe through it. */
function runProbe(dir: string, tag: string, header: string, includes: string[]): Probe {
  const f16Probes = probes(F16), bf16Probes = probes(BF16);
  fs.writeFileSync(path.join(dir, "in16.bin"), Buffer.from(new Float32Array(f16Probes).buffer));
  fs.writeFileSync(path.join(dir, "inbf.bin"), Buffer.from(new Float32Array(bf16Probes).buffer));
  fs.writeFileSync(path.join(dir, tag + "-probe.cpp"), `${header}
extern "C" unsigned half_to_f32_bits(unsigned short h) { half x; x.bits = h; float f = x; return TILE_BITS(f); }
extern "C" unsigned bf16_to_f32_bits(unsigned short h) { bfloat x; x.bits = h; float f = x; return TILE_BITS(f); }
extern "C" unsigned short f32_to_half(float f) { half x = f; return x.bits; }
extern "C" unsigned short f32_to_bf16(float f) { bfloat x = f; return x.bits; }
`);
  fs.writeFileSync(path.join(dir, "main.cpp"), `#include <cstdio>
#include <vector>
extern "C" unsigned half_to_f32_bits(unsigned short); extern "C" unsigned bf16_to_f32_bits(unsigned short);
extern "C" unsigned short f32_to_half(float); extern "C" unsigned short f32_to_bf16(float);
static std::vector<float> load(const char *p) { FILE *f = std::fopen(p, "rb"); std::vector<float> v; float x;
  while (std::fread(&x, 4, 1, f) == 1) v.push_back(x); std::fclose(f); return v; }
int main(int, char **argv) {
  FILE *o = std::fopen(argv[3], "wb");
  for (unsigned h = 0; h < 65536; h++) { unsigned a = half_to_f32_bits(h), b = bf16_to_f32_bits(h); std::fwrite(&a, 4, 1, o); std::fwrite(&b, 4, 1, o); }
  for (float x : load(argv[1])) { unsigned short r = f32_to_half(x); std::fwrite(&r, 2, 1, o); }
  for (float x : load(argv[2])) { unsigned short r = f32_to_bf16(x); std::fwrite(&r, 2, 1, o); }
  unsigned short n[4] = {f32_to_half(__builtin_nanf("")), f32_to_half(-__builtin_nanf("")), f32_to_bf16(__builtin_nanf("")), f32_to_bf16(-__builtin_nanf(""))};
  std::fwrite(n, 2, 4, o);
  std::fclose(o);
}
`);
  const exe = path.join(dir, tag + "-probe");
  execFileSync("g++", ["-std=c++17", "-O1", ...includes.flatMap((d) => ["-I", d]), path.join(dir, tag + "-probe.cpp"), path.join(dir, "main.cpp"), "-o", exe]);
  execFileSync(exe, [path.join(dir, "in16.bin"), path.join(dir, "inbf.bin"), path.join(dir, tag + "-out.bin")]);
  const out = fs.readFileSync(path.join(dir, tag + "-out.bin"));
  const pairs = new Uint32Array(Uint8Array.from(out.subarray(0, 65536 * 8)).buffer);
  const rest = new Uint16Array(Uint8Array.from(out.subarray(65536 * 8)).buffer);
  return {
    f16: pairs.filter((_, i) => i % 2 === 0), bf16: pairs.filter((_, i) => i % 2 === 1),
    toF16: rest.subarray(0, f16Probes.length), toBf16: rest.subarray(f16Probes.length, f16Probes.length + bf16Probes.length), f16Probes, bf16Probes,
    nans: rest.subarray(f16Probes.length + bf16Probes.length),
  };
}

let shim: Probe;
let cuda: Probe;
beforeAll(() => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tile-dtypes-"));
  shim = runProbe(dir, "shim", `#include "metal_shim.h"\nusing namespace metal;\n#define TILE_BITS(f) as_type<uint>(f)`, [path.join(ROOT, "shell-native/host")]);
  // the CUDA prelude's device code, on the host through the stand-in test/cuda.test.ts type-checks with
  cuda = runProbe(dir, "cuda", `#include "host-stub.h"\n#include "msl_prelude.cuh"\n#define TILE_BITS(f) __float_as_uint(f)`,
    [path.join(ROOT, "test/fixtures/cuda"), path.join(ROOT, "shell-native/cuda")]);
}, 120000);

const isNanBits = (b: number): boolean => (b & 0x7fffffff) > 0x7f800000;

/** Checks element i for every i in [0, n) (`check` gives a message when it is wrong) as one
 *  assertion that lists the first wrong ones: an expect() per element, hundreds of thousands of
 *  them here, cost vitest several CPU-seconds of bookkeeping for the same check. */
function expectEvery(n: number, check: (i: number) => string | null): void {
  const wrong: string[] = [];
  for (let i = 0; i < n; i++) {
    const m = check(i);
    if (m !== null) wrong.push(m);
  }
  expect(wrong.length, `${wrong.length} wrong, first: ${wrong.slice(0, 10).join("; ")}`).toBe(0);
}

function conversionChecks(get: () => Probe): void {
  it("half -> float is exact (NaN stays NaN)", () => {
    const p = get();
    expectEvery(65536, (h) => {
      const want = f16Value(h);
      const ok = Number.isNaN(want) ? isNanBits(p.f16[h]) : Object.is(p.f16[h], bitsOf(want));
      return ok ? null : `${h}: ${p.f16[h]}`;
    });
  });
  it("bfloat -> float is exact", () => {
    const p = get();
    expectEvery(65536, (h) => {
      const ok = Number.isNaN(bf16Value(h)) ? isNanBits(p.bf16[h]) : Object.is(p.bf16[h], bitsOf(bf16Value(h)));
      return ok ? null : `${h}: ${p.bf16[h]}`;
    });
  });
  it("float -> half rounds to nearest even at every value, midpoint and its neighbours; overflow to inf", () => {
    const p = get();
    expect(p.f16Probes.length).toBeGreaterThan(4 * 30000);
    expectEvery(p.f16Probes.length, (i) => (Object.is(p.toF16[i], expectedBits(F16, p.f16Probes[i], 0x7c00)) ? null : `${p.f16Probes[i]}: ${p.toF16[i]}`));
  });
  it("float -> bfloat rounds to nearest even likewise", () => {
    const p = get();
    expectEvery(p.bf16Probes.length, (i) => (Object.is(p.toBf16[i], expectedBits(BF16, p.bf16Probes[i], 0x7f80)) ? null : `${p.bf16Probes[i]}: ${p.toBf16[i]}`));
  });
  it("NaN converts to a quiet NaN of either sign", () => {
    const [h, nh, b, nb] = [...get().nans];
    for (const x of [h, nh]) expect([(x & 0x7c00) === 0x7c00, (x & 0x0200) !== 0]).toEqual([true, true]);
    for (const x of [b, nb]) expect([(x & 0x7f80) === 0x7f80, (x & 0x0040) !== 0]).toEqual([true, true]);
    expect([h >> 15, nh >> 15, b >> 15, nb >> 15]).toEqual([0, 1, 0, 1]);
  });
}

describe("CUDA prelude: half and bfloat over all 65,536 bit patterns", () => {
  conversionChecks(() => cuda);
  it("gives the host shim's bits for every pattern, probe and NaN", () => {
    expect([...cuda.f16]).toEqual([...shim.f16]);
    expect([...cuda.bf16]).toEqual([...shim.bf16]);
    expect([...cuda.toF16]).toEqual([...shim.toF16]);
    expect([...cuda.toBf16]).toEqual([...shim.toBf16]);
    expect([...cuda.nans]).toEqual([...shim.nans]);
  });
});

describe("host shim: half and bfloat over all 65,536 bit patterns", () => {
  conversionChecks(() => shim);

  const numpy = spawnSync("python3", ["-c", "import numpy"]).status === 0;
  it.skipIf(!numpy)("agrees with NumPy's float16 on every pattern and probe", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tile-np16-"));
    fs.writeFileSync(path.join(dir, "p.bin"), Buffer.from(new Float32Array(shim.f16Probes).buffer));
    const py = "import numpy as np, sys\nd = sys.argv[1]\nnp.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float32).tofile(d + '/dec.bin')\nnp.fromfile(d + '/p.bin', dtype=np.float32).astype(np.float16).tofile(d + '/enc.bin')\n";
    const r = spawnSync("python3", ["-c", py, dir], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const dec = new Uint32Array(Uint8Array.from(fs.readFileSync(path.join(dir, "dec.bin"))).buffer);
    const enc = new Uint16Array(Uint8Array.from(fs.readFileSync(path.join(dir, "enc.bin"))).buffer);
    expectEvery(65536, (h) => (isNanBits(dec[h]) || Object.is(shim.f16[h], dec[h]) ? null : `${h}: ${shim.f16[h]} vs ${dec[h]}`));
    expect([...shim.toF16]).toEqual([...enc]);
  });
});

describe("the shell's conversions (oracle, inputs, validation) over all 65,536 patterns", () => {
  it("decode exactly and encode back to the same bits", () => {
    expectEvery(65536, (h) => {
      const a = f16Value(h), b = bf16Value(h);
      const f16 = Number.isNaN(a)
        ? Number.isNaN(f16ToNumber(h))
        : Object.is(f16ToNumber(h), a) && Object.is(numberToF16(a), h) && Object.is(roundF16(a), a);
      const bf16 = Number.isNaN(b)
        ? Number.isNaN(bf16ToNumber(h))
        : Object.is(bf16ToNumber(h), b) && Object.is(numberToBf16(b), h) && Object.is(roundBf16(b), b);
      return f16 && bf16 ? null : `${h}:${f16 ? "" : " f16 wrong"}${bf16 ? "" : " bf16 wrong"}`;
    });
  });
  it("round every probe as the shim does", () => {
    expectEvery(shim.f16Probes.length, (i) => (Object.is(numberToF16(shim.f16Probes[i]), shim.toF16[i]) ? null : `f16 ${shim.f16Probes[i]}`));
    expectEvery(shim.bf16Probes.length, (i) => (Object.is(numberToBf16(shim.bf16Probes[i]), shim.toBf16[i]) ? null : `bf16 ${shim.bf16Probes[i]}`));
  });
});

// ---- the IR, the emitter, the cost model, the oracle and runs ----

let engine: Engine;
let runtime: Runtime;
beforeAll(async () => {
  engine = await loadEngine("wasm");
  runtime = openRuntime("host");
});
const caseText = (name: string): string => fs.readFileSync(path.join(ROOT, "cases", name + ".json"), "utf8");
const doc = (dtype: string, value: unknown): string => JSON.stringify({ tile: 1, name: "t", attrs: { noalias: true }, sizes: { N: 8 },
  params: [{ name: "X", dtype, shape: ["N"] }, { name: "Y", dtype, shape: ["N"] }],
  body: [{ for: "i", in: [0, "N"], kind: "parallel", body: [{ store: "Y", at: ["i"], value }] }] });
const codes = (text: string): string[] => engine.call({ command: "validate", document: text }).diagnostics.map((d: any) => d.code);

describe("f16 and bf16 in the IR", () => {
  it("a load is f32, a store takes f32; other dtypes and i32 values are rejected", () => {
    for (const dt of ["f16", "bf16"]) {
      expect(codes(doc(dt, ["add", ["load", "X", ["i"]], ["f32", 1]]))).toEqual([]);
      expect(codes(doc(dt, ["cast", "i32", ["load", "X", ["i"]]]))).toEqual(["TIR017"]);
      // the message names the buffer's own dtype and the value type a store takes (it said "holds f32")
      const m = engine.call({ command: "validate", document: doc(dt, ["cast", "i32", ["load", "X", ["i"]]]) }).diagnostics[0].message;
      expect(m).toBe(`The buffer "Y" holds ${dt} (a store takes an f32 value and rounds it) but the stored value is i32; add a cast.`);
    }
    expect(codes(doc("f8", ["load", "X", ["i"]]))).toContain("TIR014");
  });

  it("the emitter declares half/bfloat buffers, converts loads to float and rounds stores; bf16 asks for MSL 3.1", () => {
    const f16 = engine.call({ command: "emit", document: caseText("rmsnorm_f16"), options: { vector: 4 } });
    expect(f16.ok).toBe(true);
    expect(f16.msl).toContain("device const half* X");
    expect(f16.msl).toContain("device half* Y");
    expect(f16.msl).toMatch(/Y\[[^\]]+\] = half\(/);
    expect(f16.msl).toContain("packed_half4");
    expect(f16.msl).not.toContain("language 3.1");
    const bf = engine.call({ command: "emit", document: caseText("softmax_bf16"), options: { fuse: false, vector: 4 } });
    expect(bf.msl).toContain("// tile: language 3.1");
    expect(bf.msl).toContain("device const bfloat* X");
    expect(bf.msl).toMatch(/= bfloat\(/);
    expect(engine.call({ command: "emit", document: caseText("softmax"), options: {} }).msl).not.toMatch(/half|bfloat|language/);
  });

  it("the cost model counts two bytes per element", () => {
    const cost = (name: string) => engine.call({ command: "plan", document: caseText(name), options: { programsPerGroup: 1, threads: 256, vector: 4 } }).cost.terms;
    const [a, b, c] = [cost("rmsnorm"), cost("rmsnorm_f16"), cost("rmsnorm_bf16")];
    expect(b.bytesRead).toBe(a.bytesRead / 2);
    expect(b.bytesWritten).toBe(a.bytesWritten / 2);
    expect(c.bytesRead).toBe(b.bytesRead);
  });

  it("the oracle rounds what it stores to the buffer's dtype", () => {
    const d = JSON.parse(doc("f16", ["mul", ["load", "X", ["i"]], ["f32", 1.0003]]));
    const X = Float64Array.from([1, 2, 3, 0.1, 1000, 65504, -5, 0].map((x) => roundF16(x)));
    const Y = evaluate(d, new Map<string, Float64Array>([["X", X], ["Y", new Float64Array(8)]])).buffers.get("Y")!;
    for (let i = 0; i < 8; i++) expect(Y[i]).toBe(f16Value(nearest(F16, Math.abs(X[i] * Math.fround(1.0003)), 0x7c00)) * Math.sign(X[i] || 1));
    expect(Y[5]).toBe(Infinity); // 65504 * 1.0003 > 65520: rounds to inf
  });
});

describe("f16 and bf16 runs on the host runtime against the oracle", () => {
  for (const name of ["softmax_f16", "softmax_bf16", "layernorm_f16", "layernorm_bf16", "rmsnorm_f16", "rmsnorm_bf16"]) {
    it(name + " (cached, V = 4, a partial last group)", () => {
      const r = runAndValidate({ engine, runtime, text: caseText(name), options: { programsPerGroup: 2, threads: 128, vector: 4, sizes: { R: 5, C: 203 } }, seed: 3 });
      expect(r.error).toBeUndefined();
      expect(r.passed, JSON.stringify(r.outputs)).toBe(true);
      expect(r.guards).toBe("intact");
    });
  }
  it("a store that truncates instead of rounding is caught (negative control)", () => {
    const r = runAndValidate({ engine, runtime, text: caseText("rmsnorm_f16"), options: { programsPerGroup: 1, threads: 64, sizes: { R: 3, C: 100 } }, seed: 1,
      mslOverride: (msl) => msl.replace(/= half\(([^;]*)\);/g, "= half($1 * 1.003f);") });
    expect(r.passed).toBe(false);
    expect(r.outputs[0].mismatches).toBeGreaterThan(0);
  });
});

describe("the benchmark protocol of the 16-bit variants", () => {
  it("is a valid protocol over the f16 and bf16 softmax, LayerNorm and RMSNorm cases", async () => {
    const { readProtocol } = await import("../shell-node/src/bench/protocol");
    const { caseNames } = await import("../core/builders/index");
    const p = readProtocol(path.join(ROOT, "bench", "protocols", "packing-16bit.json"), caseNames());
    const names = new Set(p.protocol.cases.map((c: any) => c.case));
    expect([...names].sort()).toEqual(["layernorm_bf16", "layernorm_f16", "rmsnorm_bf16", "rmsnorm_f16", "softmax_bf16", "softmax_f16"]);
  });
});
