#!/usr/bin/env node
// Measures the error of tile_erf, the f32 erf the emitter writes (core/emit/erf.ts), over every
// finite f32 input (2^32 bit patterns less the infinities and NaNs), against glibc's double erf
// (correct to within an ulp of a double, i.e. 2^29 times finer than an f32 ulp).
//
// The helper's text is taken from what the emitter actually writes (`tile emit` of
// cases/gelu_exact_pair.json), compiled as C++ against the host runtime's Metal shim
// (shell-native/host/metal_shim.h), exactly as the host runtime compiles kernels.
//
// usage: node scripts/erf/erf-exhaustive.mjs [--stride N] [--threads T] [--json]
//   --stride N  test every N-th bit pattern only (default 1: all of them)
// prints the largest error in ulps of the correctly rounded result (the ulp of the reference's
// binade; 2^-149 for subnormal results), where it occurs, the largest absolute error, how many
// results differ from the correctly rounded f32, and the special values (NaN, +-inf, +-0).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const stride = Number(arg("--stride", "1"));
const threads = Number(arg("--threads", "1"));
if (!(stride >= 1 && stride < 2 ** 32 && Number.isInteger(stride)) || !(threads >= 1 && threads <= 64)) {
  console.error("usage: erf-exhaustive.mjs [--stride N] [--threads T] [--json]");
  process.exit(2);
}

const msl = execFileSync(process.execPath, [path.join(root, "shell-node/bin/tile.mjs"), "emit", path.join(root, "cases/gelu_exact_pair.json")]).toString();
const start = msl.indexOf("static inline float tile_erf(");
const end = msl.indexOf("\n}\n", start);
if (start < 0 || end < 0) throw new Error("the emitted MSL has no tile_erf helper");
const helper = msl.slice(start, end + 3);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tile-erf-"));
fs.writeFileSync(path.join(dir, "probe.cpp"), `#include "metal_shim.h"\nusing namespace metal;\n${helper}\nextern "C" float tile_erf_probe(float x) { return tile_erf(x); }\n`);
fs.writeFileSync(path.join(dir, "main.cpp"), `
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
extern "C" float tile_erf_probe(float x);
struct Acc { double ulp = 0, abs = 0; uint32_t ulpAt = 0, absAt = 0; uint64_t tested = 0, inexact = 0; };
static void run(uint64_t first, uint64_t stride, uint64_t step, Acc *acc) {
  for (uint64_t k = first; k < 4294967296ull; k += step) {
    const uint32_t b = uint32_t(k);
    if ((b & 0x7f800000u) == 0x7f800000u) continue; // inf, NaN: checked separately
    float x; std::memcpy(&x, &b, 4);
    const double ref = std::erf(double(x));
    const float r = tile_erf_probe(x);
    int e; std::frexp(ref, &e);
    double ulp = std::ldexp(1.0, e - 24);
    if (ref == 0.0 || ulp < std::ldexp(1.0, -149)) ulp = std::ldexp(1.0, -149);
    const double d = std::fabs(double(r) - ref);
    if (d / ulp > acc->ulp) { acc->ulp = d / ulp; acc->ulpAt = b; }
    if (d > acc->abs) { acc->abs = d; acc->absAt = b; }
    acc->tested++;
    if (r != float(ref)) acc->inexact++;
  }
  (void)stride;
}
static float f(uint32_t b) { float x; std::memcpy(&x, &b, 4); return x; }
int main(int argc, char **argv) {
  const uint64_t stride = std::strtoull(argv[1], 0, 10);
  const int threads = std::atoi(argv[2]);
  std::vector<Acc> accs(threads);
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; t++) ts.emplace_back(run, uint64_t(t) * stride, stride, stride * threads, &accs[t]);
  for (auto &t : ts) t.join();
  Acc a;
  for (auto &x : accs) {
    if (x.ulp > a.ulp) { a.ulp = x.ulp; a.ulpAt = x.ulpAt; }
    if (x.abs > a.abs) { a.abs = x.abs; a.absAt = x.absAt; }
    a.tested += x.tested; a.inexact += x.inexact;
  }
  const float nan = tile_erf_probe(f(0x7fc00000u)), pinf = tile_erf_probe(f(0x7f800000u)), ninf = tile_erf_probe(f(0xff800000u));
  const float pz = tile_erf_probe(0.0f), nz = tile_erf_probe(-0.0f);
  std::printf("{\\"tested\\": %llu, \\"maxUlp\\": %.6f, \\"maxUlpAt\\": %.9g, \\"maxAbs\\": %.6g, \\"maxAbsAt\\": %.9g, "
              "\\"notCorrectlyRounded\\": %llu, \\"nan\\": %s, \\"plusInf\\": %.9g, \\"minusInf\\": %.9g, \\"plusZeroBits\\": %u, \\"minusZeroBits\\": %u}\\n",
              (unsigned long long)a.tested, a.ulp, f(a.ulpAt), a.abs, f(a.absAt), (unsigned long long)a.inexact,
              std::isnan(nan) ? "true" : "false", pinf, ninf, *(uint32_t *)&pz, *(uint32_t *)&nz);
  return 0;
}
`);
const exe = path.join(dir, "erf-exhaustive");
execFileSync("g++", ["-std=c++17", "-O2", "-pthread", "-I", path.join(root, "shell-native/host"), path.join(dir, "probe.cpp"), path.join(dir, "main.cpp"), "-o", exe]);
const out = execFileSync(exe, [String(stride), String(threads)]).toString().trim();
fs.rmSync(dir, { recursive: true, force: true });
const r = JSON.parse(out);
if (process.argv.includes("--json")) console.log(JSON.stringify(r));
else {
  console.log(`tile_erf over ${r.tested} finite f32 inputs (every ${stride === 1 ? "" : stride + "-th "}bit pattern):`);
  console.log(`  max error ${r.maxUlp.toFixed(4)} ulp at x = ${r.maxUlpAt}; max absolute error ${r.maxAbs.toExponential(3)} at x = ${r.maxAbsAt}`);
  console.log(`  ${r.notCorrectlyRounded} results (${((100 * r.notCorrectlyRounded) / r.tested).toFixed(3)}%) differ from the correctly rounded f32`);
  console.log(`  erf(NaN) is NaN: ${r.nan}; erf(+inf) = ${r.plusInf}; erf(-inf) = ${r.minusInf}; erf(+0) bits ${r.plusZeroBits}; erf(-0) bits 0x${r.minusZeroBits.toString(16)}`);
}
