// Mutants of the emitted kernels must fail validation: small, plausible defects (a reduction
// result one part in 10^4 off, the ragged tail left out of a sum, a cached stripe read one
// element over, a derivative's sign) in the MSL of the built-in cases, run on the host runtime at
// two seeds. The validation's excuses (plain f32 in program order, the rounding estimate of
// shell-node/src/bounds.ts) pass correct kernels whose order of combination differs; this file
// keeps them from passing wrong ones. Each edit must apply (the MSL must contain its pattern).
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { runAndValidate } from "../shell-node/src/validate-run";
import { ROOT } from "./helpers/files";
import { hostContext } from "./helpers/host";

const h = hostContext();
const doc = (name: string): string => fs.readFileSync(path.join(ROOT, "cases", name + ".json"), "utf8");

/** The second-level collective of a cooperative reduction (the program's result). */
const RESULT = /(const float \w+ = (?:tile_)?simd_(?:sum|max|min)\(lane < [^;]*\));/;
/** The first ragged-tail test of a stage over 1537 columns. */
const TAIL = "if (c < 1537) {";
/** The fill of a cached stripe. */
const FILL = /cache_X\[k\] = (float\()?X\[r \* 1537 \+ c\]/;

/** `msl` with the n-th match (from 1) of `re` replaced. */
function nth(msl: string, re: RegExp, n: number, by: string): string {
  let k = 0;
  return msl.replace(new RegExp(re.source, "g"), (...a) => (++k === n ? by.replace("$1", a[1]) : a[0]));
}

const MUTANTS: Array<{ case: string; what: string; edit: (msl: string) => string }> = [
  { case: "sum", what: "row sum 1e-4 off", edit: (m) => m.replace(RESULT, "$1 * 1.0001f;") },
  { case: "sum", what: "last column left out", edit: (m) => m.replace(TAIL, "if (c < 1536) {") },
  // (the max itself may be off: softmax does not depend on the shift, and a kernel whose max is
  // 1e-3 off passes, rightly)
  // (outputs near 1/1537 sit under the absolute term 2e-6: the denominator 1% off, 6.5e-6)
  { case: "softmax", what: "denominator 1e-2 off", edit: (m) => nth(m, RESULT, 2, "$1 * 1.01f;") },
  { case: "softmax", what: "stripe read one over", edit: (m) => m.replace(FILL, (s) => s.replace("+ c]", "+ (c + 1) % 1537]")) },
  { case: "softmax", what: "denominator's last column left out", edit: (m) => { const i = m.indexOf(TAIL, m.indexOf(TAIL) + 1); return i < 0 ? m : m.slice(0, i) + "if (c < 1536) {" + m.slice(i + TAIL.length); } },
  { case: "layernorm", what: "mean 1e-4 off", edit: (m) => m.replace(RESULT, "$1 * 1.0001f;") },
  { case: "layernorm_f16", what: "stripe read one over", edit: (m) => m.replace(FILL, (s) => s.replace("+ c]", "+ (c + 1) % 1537]")) },
  { case: "rmsnorm", what: "eps 1e-5 -> 1e-2", edit: (m) => m.replace("0.00001f", "0.01f") },
  { case: "rmsnorm", what: "sum of squares 1e-4 off", edit: (m) => m.replace(RESULT, "$1 * 1.0001f;") },
  { case: "minmax", what: "min 1e-3 off", edit: (m) => m.replace(/(const float lo = tile_simd_min\(lane < [^;]*\));/, "$1 + 0.001f;") },
  { case: "sigmoid_pair", what: "derivative's sign", edit: (m) => m.replace("s * (1.0f - s);", "s * (1.0f + s);") },
  { case: "gelu_pair", what: "derivative's 1 - t^2 as 1 + t^2", edit: (m) => m.replace("(1.0f - (t * t))", "(1.0f + (t * t))") },
];

const SEEDS = [1, 2];
const checked = new Set<string>();

describe("mutants of the built-in kernels fail validation", () => {
  for (const mu of MUTANTS) {
    it(`${mu.case}: ${mu.what}`, () => {
      for (const seed of SEEDS) {
        // the unmutated kernel passes (once per case and seed)
        if (!checked.has(mu.case + seed)) {
          expect(runAndValidate({ engine: h.wasm, runtime: h.runtime, text: doc(mu.case), options: {}, seed }).passed, `unmutated, seed ${seed}`).toBe(true);
          checked.add(mu.case + seed);
        }
        const r = runAndValidate({
          engine: h.wasm, runtime: h.runtime, text: doc(mu.case), options: {}, seed,
          mslOverride: (msl) => {
            const out = mu.edit(msl);
            expect(out, "the edit applies").not.toBe(msl);
            return out;
          },
        });
        expect(r.error, `seed ${seed}`).toBeUndefined();
        expect(r.passed, `seed ${seed}`).toBe(false);
      }
    });
  }
});
