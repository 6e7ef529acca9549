// Running a plan's MSL on a runtime and validating it: deterministic inputs, sentinel guard
// regions around every buffer, three dispatches into the same buffers, every output checked
// against the FP64 oracle with |got - ref| <= 2e-6 + 2e-5 * |ref|, every sentinel checked.
import fs from "node:fs";
import path from "node:path";
import { Engine } from "./engine";
import { Library, Runtime, registerLimitFor } from "./native";
import { evaluate } from "./oracle";
import { ReductionOrder, roundingBounds } from "./bounds";
import { InputRange, describeInputs, makeInputs, shapeOf } from "./inputs";
import { bufferAccess } from "./access";
import { NPY_DESCR, encodeNpy } from "./npy";
import { ensureDir, UsageError, writeOutput } from "./io";
import { bf16ToNumber, f16ToNumber, numberToBf16, numberToF16, roundBf16, roundF16 } from "./f16";

/** Bytes per element of a buffer of `dtype`. */
function elementSize(dtype: string): number {
  return dtype === "f16" || dtype === "bf16" ? 2 : 4;
}

export const ABS_TOL = 2e-6;
export const REL_TOL = 2e-5;
/**
 * Tolerances of outputs stored in a 16-bit float buffer, |got - ref| <= abs + rel * |ref|, where
 * ref is the FP64 result rounded to the buffer's dtype: PyTorch's defaults for these dtypes
 * (torch.testing.assert_close, torch/testing/_comparison.py: float16 rtol 1e-3 atol 1e-5,
 * bfloat16 rtol 1.6e-2 atol 1e-5). One unit in the last place is at most 2^-10 (f16) and 2^-7
 * (bf16) relative, so a kernel that rounds its f32 result once agrees within one ulp.
 */
export const TOLERANCE: Record<string, { abs: number; rel: number }> = {
  f32: { abs: ABS_TOL, rel: REL_TOL }, i32: { abs: ABS_TOL, rel: REL_TOL },
  f16: { abs: 1e-5, rel: 1e-3 }, bf16: { abs: 1e-5, rel: 1.6e-2 },
};

/** The largest finite value of each float dtype. */
export const LARGEST_FINITE: Record<string, number> = {
  f32: 3.4028234663852886e38, f16: 65504, bf16: 3.3895313892515355e38,
};

/** A 16-bit sentinel: a quiet NaN of the dtype with a position-dependent payload (never 0). */
export function sentinelBits16(buffer: number, position: number, dtype: string, salt = 0): number {
  const h = sentinelBits(buffer, position, true);
  const mask = dtype === "f16" ? 0x1ff : 0x3f;
  let payload = (h & mask) || 1;
  // the second set of sentinels (salt 1) differs from the first at every position
  if (salt) payload = (payload % mask) + 1;
  return (dtype === "f16" ? 0x7e00 : 0x7fc0) | payload;
}
/** Dispatches per validation run (into the same buffers). */
export const DISPATCHES = 3;
/** Guard rows before and after each buffer (a row = the buffer's last dimension, at least 16 elements). */
export const GUARD_ROWS = 2;
/**
 * Sentinels: every guard element and every element an output starts with (write-only outputs)
 * holds a sentinel whose bits depend on the buffer and the position: for f32 a quiet NaN with a
 * position-dependent payload (never the canonical NaN 0x7fc00000 or the x86 default 0xffc00000
 * that arithmetic produces), for i32 a pattern 0x7e??????. A stray write is found by comparing
 * bits, so even a write of a NaN that carries some sentinel payload is detected unless it is
 * exactly the pattern of that very position.
 */
export function sentinelBits(buffer: number, position: number, f32: boolean, salt = 0): number {
  let h = Math.imul(position + 1, 0x9e3779b1) ^ Math.imul(buffer + 1, 0x85ebca77);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h ^= h >>> 13;
  if (f32) {
    let payload = h & 0x3fffff;
    if (payload === 0) payload = 1;
    // the second set of sentinels (salt 1) differs from the first at every position
    if (salt) payload = (payload % 0x3fffff) + 1;
    return (0x7fc00000 | payload) >>> 0;
  }
  return (0x7e000000 | ((salt ? h + 1 : h) & 0xffffff)) >>> 0;
}

export interface OutputCheck {
  name: string;
  elements: number;
  written: number;
  /** Largest |got - ref| and relative error over elements where both are finite. */
  maxAbsError: number;
  maxRelError: number;
  mismatches: number;
  /** Mismatches where the kernel's value or the reference is NaN or an infinity. */
  nonFinite: number;
  /** First few mismatches: flat index, got, expected (NaN and infinities are null in JSON). */
  examples: { index: number; got: number; ref: number; why: string }[];
  /** The written element nearest to (or furthest past) the tolerance: |got - ref| / (abs + rel * |ref|)
   *  (0 for an identical value, Infinity for a mismatch that is not a finite difference). */
  worst: { index: number; got: number; ref: number; ratio: number } | null;
  /** Written elements whose reference is NaN or infinite. */
  nonFiniteRefs: number;
  /** Set where finite elements are outside the tolerance (f32, f16, bf16 outputs): the same
   *  document evaluated in plain f32 in program order (every operation rounded to f32,
   *  reductions left to right) against the same FP64 reference, over those elements: how many
   *  of them it misses too, and its largest error there. Information only: the verdict is the
   *  comparison above (docs/tile-ir.md, "Validation of a run"). */
  f32ProgramOrder?: { outside: number; alsoOutside: number; maxAbsError: number; nonFinite: number; alsoNonFinite: number };
  /** Set (true) on an i32 output whose stored value goes through a cast from f32: compared
   *  within 1 + abs + rel * |ref| instead of exactly (see compare). */
  castFromF32?: boolean;
  /** Finite elements outside the tolerance where the document evaluated in plain f32 in program
   *  order is outside it too (ill-conditioned at these inputs) and the kernel is within the
   *  tolerance of that f32 evaluation: they pass (how many). */
  illConditioned?: number;
  /** Finite elements outside the tolerance, not counted in illConditioned, that lie within the
   *  tolerance plus the estimate of the rounding error of f32 arithmetic combining the document's
   *  reductions in the kernel's order (bounds.ts): how many; they pass. */
  withinRoundingBound?: number;
  /** Finite elements outside the tolerance whose computation in f32 goes through a value past the
   *  f32 range (x * x at x = 1e20; bounds.ts): the f32 result is not the document's value at these
   *  inputs, so neither plain f32 nor the rounding estimate excuses them: how many (they fail). */
  f32Overflow?: number;
  /** Elements that held their sentinel's bits after one of two runs (the second with other
   *  sentinels, which differ at every position) and not after the other, where the kernel could
   *  have written those bits: the reference is NaN (a NaN may carry any payload) or, for i32,
   *  equals them. Written (how many; compared as written values). */
  sentinelRechecked?: number;
  /** (First run only) the positions of those elements, for the second run. */
  ambiguousSentinels?: number[];
  /** Set on such an output where elements outside that tolerance equal the document evaluated in
   *  plain f32 in program order exactly (the truncation of the f32 value the kernel computes:
   *  0.7 * 10 is 7 in f32, 6.99999988 in FP64): how many; they pass. */
  castAgreesWithF32?: number;
  /** Set (true) on an i32 output whose stored value depends on a comparison of f32 values
   *  (`select(X * 0.1 >= 0.3, 1, 0)`): compared exactly, but an element that differs passes where
   *  it equals the document evaluated in plain f32 in program order (see decidedAgreement). */
  decidedByF32?: boolean;
  /** Such elements of such an output: how many; they pass. */
  decidedAgreesWithF32?: number;
  /** Elements of an output that a store writes under an `if` decided by f32 values, or at an
   *  index computed from them, that differ from the FP64 reference (written where it writes
   *  nothing, or the other way, or another value) but are written, or not, and valued as the
   *  document evaluated in plain f32 in program order: how many; they pass (flowAgreement). */
  flowAgreesWithF32?: number;
  /** Elements whose reference rounds past the dtype's range to an infinity where the kernel holds
   *  the dtype's largest finite value of that sign, as the document evaluated in plain f32 in
   *  program order does (the exact value lies at the rounding boundary: 65519.99989 is 65504 in
   *  f16, its f32 rounding 65520 is infinity); and, for f16 and bf16 outputs, elements where the
   *  kernel and the reference are that largest value and that infinity, one each, where f32 values
   *  within the f32 tolerance (and the rounding estimate) of the FP64 value round to both (an
   *  exact sum of 65519.998 is 65504 in f16; a pairwise f32 sum may give 65520, infinity): how
   *  many; they pass. */
  rangeEdge?: number;
  /** The tolerance this output was compared with: its dtype's, or the looser one of a 16-bit
   *  intermediate its value reads back (`through`, see compare). */
  tolerance: { abs: number; rel: number; dtype: string; through?: string };
}

/** Whether g and r are the largest finite value and the infinity of one sign, one each. */
function edgePair(g: number, r: number, largest: number): boolean {
  if (Math.sign(g) !== Math.sign(r) || g === r) return false;
  const a = Math.abs(g), b = Math.abs(r);
  return (a === largest && b === Infinity) || (a === Infinity && b === largest);
}

/**
 * Marks the mismatches at `excused` as passing: removes them from the count and the examples, and
 * takes the worst element over the others (`ratioOf`: an element's error over its tolerance).
 */
function excuse(o: OutputCheck, excused: Set<number>, mask: Uint8Array, got: ArrayLike<number>, ref: (i: number) => number, ratioOf: (i: number) => number): void {
  o.mismatches -= excused.size;
  o.examples = o.examples.filter((x) => !excused.has(x.index));
  let worst: OutputCheck["worst"] = null;
  for (let i = 0; i < got.length; i++) {
    if (!mask[i] || excused.has(i)) continue;
    const ratio = ratioOf(i);
    if (worst === null || ratio > worst.ratio) worst = { index: i, got: got[i], ref: ref(i), ratio };
  }
  o.worst = worst;
}

/**
 * The excuses of f32 arithmetic for a float output's finite elements outside the tolerance:
 *   - the plain f32 evaluation in program order misses the FP64 reference too (cancellation: the
 *     result is ill-conditioned at these inputs) and the kernel lies within the tolerance of that
 *     f32 value or no further from the reference than it (illConditioned);
 *   - or, given `bound` (bounds.ts), the kernel lies within the tolerance plus the estimate of
 *     f32's rounding in its order of combination (withinRoundingBound);
 *   - a reference at the edge of the range rounded to infinity, held as the largest finite value
 *     as plain f32 holds it; for a 16-bit output, the largest finite value and the infinity of
 *     one sign, one each, where f32 values within the f32 tolerance of the FP64 value (`unrounded`,
 *     before the rounding to the dtype) round to both (rangeEdge).
 * An element computed through a value past the f32 range (`bound` NaN) is excused by none of them
 * (f32Overflow). Every other mismatch stays.
 */
export function illConditioned(o: OutputCheck, dtype: string, got: ArrayLike<number>, ref: ArrayLike<number>, mask: Uint8Array, f32: ArrayLike<number>, bound?: ArrayLike<number>, unrounded?: ArrayLike<number>): void {
  const tol = o.tolerance;
  const refOf = (i: number): number => (dtype === "f32" ? Math.fround(ref[i]) : ref[i]);
  const largest = LARGEST_FINITE[dtype] ?? LARGEST_FINITE.f32;
  const agreeing = new Set<number>();
  let edge = 0, rounded = 0, overflow = 0;
  for (let i = 0; i < got.length; i++) {
    if (!mask[i]) continue;
    const g = got[i], r = refOf(i), p = f32[i];
    // the reference rounded to an infinity at the edge of the range, the kernel and the plain f32
    // evaluation to the largest finite value of the same sign
    if ((r === Infinity || r === -Infinity) && g === p && Math.abs(g) === largest && Math.sign(g) === Math.sign(r)) {
      agreeing.add(i);
      edge++;
      continue;
    }
    // a 16-bit output at the edge of its range, the kernel and the reference on either side of
    // it (the largest finite value and the infinity of one sign): the kernel rounds an f32 value,
    // and an f32 value anywhere within the f32 tolerance (and the rounding estimate of the
    // kernel's order) of the FP64 value is right; where such values round to both, either is
    if (unrounded !== undefined && (dtype === "f16" || dtype === "bf16") && edgePair(g, r, largest)) {
      const x = unrounded[i];
      const b = bound === undefined ? 0 : bound[i];
      if (Number.isFinite(x) && Number.isFinite(b)) {
        const t = TOLERANCE.f32.abs + TOLERANCE.f32.rel * Math.abs(x) + b;
        const round = dtype === "f16" ? roundF16 : roundBf16;
        const lo = round(Math.fround(x - t)), hi = round(Math.fround(x + t));
        if (g >= lo && g <= hi) {
          agreeing.add(i);
          edge++;
          continue;
        }
      }
    }
    if (!Number.isFinite(g) || !Number.isFinite(r)) continue;
    const within = tol.abs + tol.rel * Math.abs(r);
    if (Math.abs(g - r) <= within) continue;
    // an intermediate past the f32 range in computing this element (bounds.ts: NaN): the f32
    // result, the kernel's and plain f32's alike, is not the document's value; nothing excuses it
    if (bound !== undefined && Number.isNaN(bound[i])) {
      overflow++;
      continue;
    }
    if (Number.isFinite(p) && Math.abs(p - r) > within) {
      // within the tolerance of the f32 value, or no further from the reference than it (a
      // cooperative sum that cancels, combined in another order than left to right, is often
      // closer to FP64 than the program-order f32 sum, and the order is unspecified)
      if (Math.abs(g - p) <= tol.abs + tol.rel * Math.abs(p) || Math.abs(g - r) <= Math.abs(p - r)) {
        agreeing.add(i);
        continue;
      }
    }
    // within the tolerance plus the estimate of the rounding error that f32 arithmetic makes in
    // the kernel's order of combination (bounds.ts): a reduction's rounding, amplified where the
    // result cancels after it
    // (an infinite or NaN estimate is none: a comparison or a cast the errors can decide)
    if (bound !== undefined && Number.isFinite(bound[i]) && Math.abs(g - r) <= within + bound[i]) {
      agreeing.add(i);
      rounded++;
    }
  }
  if (overflow > 0) o.f32Overflow = overflow;
  if (agreeing.size === 0 || agreeing.size > o.mismatches) return;
  if (agreeing.size > edge + rounded) o.illConditioned = agreeing.size - edge - rounded;
  if (rounded > 0) o.withinRoundingBound = rounded;
  if (edge > 0) o.rangeEdge = edge;
  excuse(o, agreeing, mask, got, refOf, (i) => {
    const g = got[i], r = refOf(i);
    if (g === r || (Number.isNaN(g) && Number.isNaN(r))) return 0;
    return !Number.isFinite(g) || !Number.isFinite(r) ? Infinity : Math.abs(g - r) / (tol.abs + tol.rel * Math.abs(r));
  });
}

/**
 * An i32 output cast from f32: the elements outside its tolerance that equal the plain f32
 * evaluation in program order exactly pass (the FP64 reference truncates a value the f32
 * arithmetic rounds to the integer); the others stay mismatches.
 */
export function castAgreement(o: OutputCheck, got: ArrayLike<number>, ref: ArrayLike<number>, mask: Uint8Array, f32: ArrayLike<number>): void {
  const tol = o.tolerance;
  const ratioOf = (i: number): number => Math.abs(got[i] - ref[i]) / (1 + tol.abs + tol.rel * Math.abs(ref[i]));
  const n = f32Agreement(o, got, ref, mask, f32, ratioOf);
  if (n > 0) o.castAgreesWithF32 = n;
}

/**
 * An i32 output whose value depends on a comparison of f32 values (and is not cast from f32):
 * the elements that differ from the FP64 reference and equal the plain f32 evaluation in program
 * order exactly pass (f32 and FP64 decide the comparison differently at these inputs: 3 * 0.1 is
 * 0.3 in f32, 0.30000000447 in FP64); the others stay mismatches.
 */
export function decidedAgreement(o: OutputCheck, got: ArrayLike<number>, ref: ArrayLike<number>, mask: Uint8Array, f32: ArrayLike<number>): void {
  const n = f32Agreement(o, got, ref, mask, f32, (i) => (got[i] === ref[i] ? 0 : Infinity));
  if (n > 0) o.decidedAgreesWithF32 = n;
}

/** castAgreement and decidedAgreement: the elements outside `ratioOf` <= 1 that equal `f32`
 *  pass, where they account for every mismatch; how many passed. */
function f32Agreement(o: OutputCheck, got: ArrayLike<number>, ref: ArrayLike<number>, mask: Uint8Array, f32: ArrayLike<number>, ratioOf: (i: number) => number): number {
  const agreeing = new Set<number>();
  let outside = 0;
  for (let i = 0; i < got.length; i++) {
    if (!mask[i] || !(ratioOf(i) > 1)) continue;
    outside++;
    if (got[i] === f32[i]) agreeing.add(i);
  }
  // only a clean account of every mismatch (no unwritten or sentinel element among them) is changed
  if (agreeing.size === 0 || outside !== o.mismatches) return 0;
  excuse(o, agreeing, mask, got, (i) => ref[i], ratioOf);
  return agreeing.size;
}

/**
 * An output whose written elements depend on f32 values (a store under an `if` decided by an f32
 * comparison, or at an index computed from f32 values): an element that fails against the FP64
 * reference (written where it writes nothing, not written where it does, or another value)
 * passes where it agrees with the plain f32 evaluation in program order, written or not as it
 * is and, where written, the same value (i32) or within the tolerance of it (floats). Only a
 * clean account of every mismatch is changed.
 */
export function flowAgreement(o: OutputCheck, dtype: string, got: ArrayLike<number>, gotBits: ArrayLike<number>, initialBits: ArrayLike<number> | null, startsAsSentinels: boolean, ref: ArrayLike<number>, mask: Uint8Array, plain: ArrayLike<number>, plainMask: Uint8Array): void {
  const tol = o.tolerance;
  const near = (g: number, r: number, exactInt: boolean): boolean => {
    if (dtype === "i32") return exactInt ? g === r : Math.abs(g - r) <= 1 + tol.abs + tol.rel * Math.abs(r);
    const rr = dtype === "f32" ? Math.fround(r) : r;
    if (g === rr || (Number.isNaN(g) && Number.isNaN(rr))) return true;
    if (!Number.isFinite(g) || !Number.isFinite(rr)) return false;
    return Math.abs(g - rr) <= tol.abs + tol.rel * Math.abs(rr);
  };
  // element i against a reference (values, written mask), as compare() judges it
  const ok = (i: number, vals: ArrayLike<number>, wrote: Uint8Array, exactInt: boolean): boolean => {
    const untouched = initialBits !== null && gotBits[i] === initialBits[i];
    if (!wrote[i]) return initialBits === null || untouched;
    if (startsAsSentinels && untouched) return false;
    return near(got[i], vals[i], exactInt);
  };
  const agreeing = new Set<number>();
  let failing = 0;
  for (let i = 0; i < got.length; i++) {
    if (ok(i, ref, mask, !o.castFromF32)) continue;
    failing++;
    if (ok(i, plain, plainMask, true)) agreeing.add(i);
  }
  if (agreeing.size === 0 || failing !== o.mismatches) return;
  const refOf = (i: number): number => (dtype === "f32" ? Math.fround(ref[i]) : ref[i]);
  excuse(o, agreeing, mask, got, refOf, (i) => {
    const g = got[i], r = refOf(i);
    if (g === r || (Number.isNaN(g) && Number.isNaN(r))) return 0;
    if (dtype === "i32" || !Number.isFinite(g) || !Number.isFinite(r)) return Infinity;
    return Math.abs(g - r) / (tol.abs + tol.rel * Math.abs(r));
  });
  // compare() counted these as non-finite mismatches (an unwritten sentinel NaN, or no reference)
  for (const i of agreeing) if (!mask[i] || !Number.isFinite(got[i]) || !Number.isFinite(refOf(i))) o.nonFinite = Math.max(0, o.nonFinite - 1);
  o.flowAgreesWithF32 = agreeing.size;
}

/**
 * Where `got` is outside the tolerance at finite elements, whether a plain f32 evaluation in
 * program order (`f32`, evaluate's "f32" mode) misses the same elements: if it does, the output
 * is ill-conditioned at these inputs (cancellation: terms far larger than the result), not
 * miscomputed by the kernel alone.
 */
export function f32ProgramOrder(dtype: string, got: ArrayLike<number>, ref: ArrayLike<number>, mask: Uint8Array, f32: ArrayLike<number>): { outside: number; alsoOutside: number; maxAbsError: number; nonFinite: number; alsoNonFinite: number } {
  const tol = TOLERANCE[dtype] ?? TOLERANCE.f32;
  let outside = 0, alsoOutside = 0, maxAbsError = 0, nonFinite = 0, alsoNonFinite = 0;
  for (let i = 0; i < got.length; i++) {
    if (!mask[i]) continue;
    const g = got[i], r = ref[i];
    if (!Number.isFinite(r)) continue;
    // the kernel's NaN or infinity for a finite reference: does plain f32 leave the range too?
    if (!Number.isFinite(g)) {
      nonFinite++;
      if (!Number.isFinite(f32[i])) alsoNonFinite++;
      continue;
    }
    const bound = tol.abs + tol.rel * Math.abs(r);
    if (Math.abs(g - r) <= bound) continue;
    outside++;
    const e = Math.abs(f32[i] - r);
    if (!(e <= bound)) alsoOutside++;
    if (e > maxAbsError || Number.isNaN(e)) maxAbsError = e;
  }
  return { outside, alsoOutside, maxAbsError, nonFinite, alsoNonFinite };
}

/** More than this share of an output's references non-finite: a TSH002 warning. */
export const NON_FINITE_SHARE = 0.5;

/** The TSH002 warnings of a run's outputs (mostly non-finite references), as diagnostics; the
 *  pointer is the output's parameter in `params` (the document's list), where given. */
export function nonFiniteDiagnostics(outputs: OutputCheck[], params: { name: string }[] = []): { code: string; id: string; severity: string; message: string; pointer: string }[] {
  return outputs
    .filter((o) => o.written > 0 && o.nonFiniteRefs > NON_FINITE_SHARE * o.written)
    .map((o) => {
      const i = params.findIndex((p) => p?.name === o.name);
      return { code: "TSH002", id: "non-finite-outputs", severity: "warning", pointer: i >= 0 ? `/params/${i}` : "",
        message: `${o.nonFiniteRefs} of ${o.written} reference values of ${o.name} are NaN or infinite, so the comparison says little; narrow the inputs with --input-range LO,HI or check the document` };
    });
}

/** The TSH002 warnings of a run's outputs, as the text output prints them. */
export function nonFiniteWarnings(outputs: OutputCheck[]): string[] {
  return nonFiniteDiagnostics(outputs).map((d) => `warning ${d.code} (${d.id}): ${d.message}`);
}

export interface RunResult {
  passed: boolean;
  name: string;
  runtime: string;
  device: string;
  /** Host runtime times are host times, never GPU times. */
  timesAreGpu: boolean;
  plan: any;
  outputs: OutputCheck[];
  guards: string;
  error?: string;
  /** The MSL text that was compiled and validated (after any override), once there was one. */
  msl?: string;
  /** The options of the validated plan: the caller's, plus `maxThreads` after a re-plan. */
  options?: object;
  /** Set when the pipeline's real thread limit forced a second plan (there is never a third). */
  replanned?: string;
  /** Set when the outputs were checked (and failed) after the first dispatch of an in-place
   *  document, before the others ran; otherwise they are checked after every dispatch. */
  checkedAfter?: string;
  /** The comparison's terms: |got - ref| <= abs + rel * |ref|, and the input distribution. */
  tolerance: { abs: number; rel: number };
  inputs: string;
}

/**
 * Checks one output against the oracle (docs/tile-ir.md, "Semantics of values"). An element the
 * reference writes must not still hold its sentinel bits; f32: the same value (the same
 * infinity included, the reference rounded to f32 first), NaN where the reference is NaN, else within |got - ref| <= ABS_TOL +
 * REL_TOL * |ref|; i32: exactly equal, except an output whose stored value goes through a cast
 * from f32 (`castDerived`): there the kernel truncates an f32 value that the f32 tolerance allows
 * to differ from the reference, so |got - ref| <= 1 + ABS_TOL + REL_TOL * |ref|. An element the
 * reference never writes must keep its initial bits.
 */
export function compare(name: string, dtype: string, got: ArrayLike<number>, ref: Float64Array | Int32Array, mask: Uint8Array, initialBits: ArrayLike<number> | null, gotBits: ArrayLike<number>, startsAsSentinels: boolean, castDerived = false, through = "", decided = false, recheck?: Set<number>): OutputCheck {
  // a float output whose value reads back a 16-bit intermediate the document stores takes the
  // looser tolerance of that dtype when it is looser than its own
  const own = TOLERANCE[dtype] ?? TOLERANCE.f32;
  const via = dtype !== "i32" && through !== "" ? TOLERANCE[through] : undefined;
  const looser = via !== undefined && via.rel > own.rel;
  const tol = looser ? via : own;
  // an i32 output records the tolerance applied to it: none (compared exactly), or one more than
  // the f32 tolerance for a value cast from f32 (the truncation of a value inside it)
  const tolerance: OutputCheck["tolerance"] = dtype !== "i32" ? { abs: tol.abs, rel: tol.rel, dtype }
    : castDerived ? { abs: 1 + tol.abs, rel: tol.rel, dtype } : { abs: 0, rel: 0, dtype };
  if (looser) tolerance.through = through;
  const c: OutputCheck = { name, elements: got.length, written: 0, maxAbsError: 0, maxRelError: 0, mismatches: 0, nonFinite: 0, examples: [], worst: null, nonFiniteRefs: 0, tolerance };
  if (dtype === "i32" && castDerived) c.castFromF32 = true;
  else if (dtype === "i32" && decided) c.decidedByF32 = true;
  const consider = (i: number, g: number, r: number, ratio: number): void => {
    if (c.worst === null || ratio > c.worst.ratio) c.worst = { index: i, got: g, ref: r, ratio };
  };
  const miss = (i: number, g: number, r: number, why: string): void => {
    c.mismatches++;
    if (mask[i]) consider(i, g, r, Infinity);
    if (!Number.isFinite(g) || !Number.isFinite(r)) c.nonFinite++;
    if (c.examples.length < 5) c.examples.push({ index: i, got: g, ref: r, why });
  };
  for (let i = 0; i < got.length; i++) {
    if (!mask[i]) {
      // an element the program never writes must keep its initial bits ("unused columns")
      if (initialBits && gotBits[i] !== initialBits[i]) miss(i, got[i], NaN, "written, but the reference never writes it");
      continue;
    }
    c.written++;
    const g = got[i];
    // an f32 output holds binary32 values: the reference rounded to f32, so that a result past the
    // f32 range is the infinity of its sign, as the kernel's f32 arithmetic gives (within the range
    // the rounding moves the reference by at most 2^-24 of itself, far inside the tolerance)
    const r = dtype === "f32" ? Math.fround(ref[i]) : ref[i];
    if (!Number.isFinite(r)) c.nonFiniteRefs++;
    if (startsAsSentinels && initialBits && gotBits[i] === initialBits[i]) {
      // the kernel may have written exactly these bits: a NaN with this payload where the
      // reference is NaN, or (i32) the reference value itself where it equals the sentinel
      const couldBeWritten = Number.isNaN(r) || g === r;
      if (couldBeWritten && recheck !== undefined && !recheck.has(i)) {
        // the second run (other sentinels): this element differed from its first sentinel, so
        // the kernel wrote it, a NaN that happens to carry this run's sentinel bits
        c.sentinelRechecked = (c.sentinelRechecked ?? 0) + 1;
      } else {
        // still the sentinel: never written (a NaN reference does not excuse it, but a written
        // NaN could carry these bits: the first run records where, for a second run)
        if (couldBeWritten && recheck === undefined) (c.ambiguousSentinels ??= []).push(i);
        miss(i, g, r, "not written");
        continue;
      }
    } else if (recheck !== undefined && recheck.has(i)) {
      // it held its sentinel in the first run and not in this one: written
      c.sentinelRechecked = (c.sentinelRechecked ?? 0) + 1;
    }
    if (dtype === "i32") {
      const abs = Math.abs(g - r);
      if (castDerived) {
        const ratio = abs / (1 + tol.abs + tol.rel * Math.abs(r));
        if (ratio > 1) miss(i, g, r, "outside the tolerance of a value cast from f32");
        else consider(i, g, r, ratio);
      } else if (g !== r) miss(i, g, r, decided ? "differs (the value depends on a comparison of f32 values)" : "differs");
      else consider(i, g, r, 0);
      if (abs > c.maxAbsError) c.maxAbsError = abs;
      const rel = r !== 0 ? abs / Math.abs(r) : abs;
      if (rel > c.maxRelError) c.maxRelError = rel;
      continue;
    }
    if (g === r || (Number.isNaN(g) && Number.isNaN(r))) {
      consider(i, g, r, 0); // same value, same infinity, both NaN
      continue;
    }
    if (!Number.isFinite(g) || !Number.isFinite(r)) {
      // a finite FP64 value that rounds past the f32 range: the kernel's largest f32 is within the
      // tolerance of it (the value lies between the largest f32 and the rounding boundary)
      const exact = ref[i];
      if (dtype === "f32" && Number.isFinite(g) && Number.isFinite(exact) && Math.abs(g - exact) <= tol.abs + tol.rel * Math.abs(exact)) {
        consider(i, g, exact, Math.abs(g - exact) / (tol.abs + tol.rel * Math.abs(exact)));
        continue;
      }
      miss(i, g, r, "differs");
      continue;
    }
    const abs = Math.abs(g - r);
    const rel = r !== 0 ? abs / Math.abs(r) : abs;
    if (abs > c.maxAbsError) c.maxAbsError = abs;
    if (rel > c.maxRelError) c.maxRelError = rel;
    const ratio = abs / (tol.abs + tol.rel * Math.abs(r));
    if (ratio > 1) miss(i, g, r, "outside the tolerance");
    if (c.worst === null || ratio > c.worst.ratio) c.worst = { index: i, got: g, ref: r, ratio };
  }
  return c;
}

export interface RunRequest {
  engine: Engine;
  runtime: Runtime;
  text: string;
  options: object;
  seed: number;
  /** Initial contents that replace the seeded ones (tile run --input), by buffer name. */
  inputs?: Map<string, Float64Array | Int32Array>;
  /** Buffer name -> the file its initial contents came from (recorded in a dump's manifest). */
  inputFiles?: Map<string, string>;
  /** The storage bits of buffers in `inputs` (tile run --input): given to the kernel as they are,
   *  so a NaN keeps its payload (the oracle reads the values in `inputs`). */
  inputBits?: Map<string, Uint32Array | Uint16Array>;
  dumpDir?: string;
  /** f32 inputs uniform on [lo, hi) (default [-2, 2)). */
  inputRange?: InputRange;
  /** Replace the emitted MSL (negative controls in tests). */
  mslOverride?: (msl: string) => string;
  /** The core's emit response for this text and these options, when the caller already has it. */
  emitted?: any;
  /** A library compiled beforehand (e.g. many kernels in one source) holding this plan's kernel
   *  under the name `entry`; it is used instead of compiling the emitted MSL, and not freed. */
  precompiled?: { library: Library; entry: string };
  /** FP64 references already computed, keyed by document text, sizes, seed and input range (a
   *  benchmark validates the same case many times; the reference does not depend on the plan). */
  oracleCache?: Map<string, ReturnType<typeof evaluate>>;
  /** The second set of sentinels (runAndValidate's second run), and per output the positions
   *  that held their first sentinel where the kernel could have written those bits. */
  sentinelSalt?: number;
  sentinelRecheck?: Map<string, Set<number>>;
}

/**
 * Plans, emits, compiles, runs three dispatches and validates. Never throws for kernel errors.
 *
 * When the compiled pipeline allows fewer threads per group than the plan uses (Metal reports
 * this per pipeline; it depends on register use), the document is planned and emitted afresh
 * once, with `maxThreads` set to that limit, and the new kernel is validated instead. There is
 * one re-plan at most: a re-planned kernel that still does not fit fails with an error. The
 * result's `plan`, `msl` and `options` are always those of the kernel that was validated, so a
 * caller that times it (tile bench) times exactly that kernel.
 */
export function runAndValidate(req: RunRequest): RunResult {
  const first = validateOnce(req, true);
  // an output element that still holds its sentinel where the reference is NaN may be a NaN the
  // kernel wrote with the sentinel's payload (an input NaN's payload travels through arithmetic):
  // run again with sentinels that differ from the first at every position; an element that held
  // its sentinel in both runs was never written
  if (first.error || !first.outputs.some((o) => o.ambiguousSentinels?.length)) return first;
  const recheck = new Map<string, Set<number>>();
  for (const o of first.outputs) if (o.ambiguousSentinels?.length) recheck.set(o.name, new Set(o.ambiguousSentinels));
  const again = validateOnce({ ...req, options: first.options ?? req.options, emitted: first.replanned ? undefined : req.emitted, sentinelSalt: 1, sentinelRecheck: recheck }, false);
  for (const o of first.outputs) delete o.ambiguousSentinels;
  if (again.error) return first;
  return first.replanned ? { ...again, replanned: first.replanned } : again;
}

function validateOnce(req: RunRequest, mayReplan: boolean): RunResult {
  const { engine, runtime } = req;
  const emitted = req.emitted ?? engine.call({ command: "emit", document: req.text, options: req.options });
  const base: RunResult = {
    passed: false, name: emitted.plan?.name ?? "", runtime: runtime.kind, device: runtime.deviceName,
    timesAreGpu: runtime.timesAreGpu, plan: emitted.plan, outputs: [], guards: "not checked", options: req.options,
    tolerance: { abs: ABS_TOL, rel: REL_TOL }, inputs: req.inputs && req.inputs.size ? describeInputs(req.seed, req.inputRange) + " (buffers given by --input: " + [...req.inputs.keys()].join(", ") + ")" : describeInputs(req.seed, req.inputRange),
  };
  if (!emitted.ok) {
    // the errors say why (a warning beside them, such as TPL011, is not the reason; red team, session 32)
    const all = emitted.diagnostics ?? [];
    const errors = all.filter((d: any) => d.severity === "error");
    return { ...base, error: "not planned: " + (errors.length > 0 ? errors : all).map((d: any) => `${d.code} ${d.message}`).join("; ") };
  }
  const msl = req.mslOverride ? req.mslOverride(emitted.msl) : emitted.msl;
  base.msl = msl;
  if (emitted.audit && !emitted.audit.ok) return { ...base, error: "MSL audit findings: " + emitted.audit.findings.map((f: any) => f.check).join(", ") };
  const canonical = engine.call({ command: "canonical", document: req.text, options: { sizes: (req.options as any).sizes ?? {} } });
  const doc = JSON.parse(canonical.text);
  const plan = emitted.plan;
  const inputs = makeInputs(doc, req.seed, req.inputRange);
  if (req.inputs) for (const [name, data] of req.inputs) inputs.set(name, data);
  const { read, written } = bufferAccess(doc);

  // the FP64 reference: one evaluation, or DISPATCHES chained ones when a buffer is updated in place
  const inPlace = [...written].some((b) => read.has(b));
  const cacheKey = req.oracleCache && !(req.inputs && req.inputs.size) ? JSON.stringify([canonical.text, req.seed, req.inputRange ?? null]) : null;
  const cached = cacheKey !== null ? req.oracleCache!.get(cacheKey) : undefined;
  let oracle;
  try {
    oracle = cached ?? evaluate(doc, inputs);
  } catch (err) {
    // e.g. a user's index data out of bounds: a failed run naming the access, never a crash
    return { ...base, error: "oracle: " + (err instanceof Error ? err.message : String(err)) };
  }
  // an in-place document is also checked after its first dispatch, against one evaluation
  let firstOracle: ReturnType<typeof evaluate> | null = inPlace && !cached ? oracle : null;
  if (inPlace && !cached) {
    for (let k = 1; k < DISPATCHES; k++) {
      let next;
      try {
        next = evaluate(doc, oracle.buffers as Map<string, Float64Array | Int32Array>);
      } catch (err) {
        return { ...base, error: "oracle: " + (err instanceof Error ? err.message : String(err)) };
      }
      // an element written by any dispatch counts as written (a conditional store may fire in
      // the first dispatch only); the last evaluation's mask alone would expect its sentinel
      for (const [name, mask] of next.written) {
        const before = oracle.written.get(name);
        if (before) for (let i = 0; i < mask.length; i++) mask[i] |= before[i];
      }
      oracle = next;
    }
  }

  if (inPlace && cached) {
    try {
      firstOracle = evaluate(doc, inputs);
    } catch (err) {
      return { ...base, error: "oracle: " + (err instanceof Error ? err.message : String(err)) };
    }
  }
  if (cacheKey !== null && !cached) req.oracleCache!.set(cacheKey, oracle);
  const lib = req.precompiled ? req.precompiled.library : (() => {
    try {
      return runtime.compile(msl, registerLimitFor(runtime.kind, plan));
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  })();
  if (lib instanceof Error) return { ...base, error: "compile failed: " + lib.message };
  const buffers: { name: string; dtype: string; n: number; guard: number; buf: any; initial: Float32Array | Int32Array | Uint16Array }[] = [];
  try {
    const pipe = runtime.pipeline(lib, req.precompiled ? req.precompiled.entry : plan.kernel);
    if (plan.dispatch.threads > pipe.maxThreads && !req.precompiled) {
      // the compiled pipeline holds fewer threads than the device limit the plan assumed (on
      // Metal this depends on the kernel's register use): plan and emit again, once, under the
      // real limit (never with the caller's emit response, which holds the old plan)
      const limit = pipe.maxThreads;
      runtime.freePipeline(pipe);
      if (!mayReplan) {
        return { ...base, error: `the re-planned kernel still does not fit its pipeline: ${plan.dispatch.threads} threads per group, the pipeline allows ${limit} (no further re-plan)` };
      }
      const again = validateOnce({ ...req, emitted: undefined, options: { ...req.options, maxThreads: limit } }, false);
      return { ...again, replanned: `re-planned: the pipeline allows ${limit} threads per group, the plan had ${plan.dispatch.threads}` };
    }
    try {
      for (const b of plan.bindings.filter((x: any) => x.kind === "buffer").sort((a: any, b: any) => a.index - b.index)) {
        const bufferIndex = buffers.length;
        const param = doc.params.find((p: any) => p.name === b.name);
        const shape = shapeOf(doc, b.name);
        const n = shape.reduce((a, x) => a * x, 1);
        const rowLen = Math.max(16, shape.length ? shape[shape.length - 1] : 1);
        const guard = GUARD_ROWS * rowLen;
        const total = n + 2 * guard;
        const size = elementSize(param.dtype);
        const src = inputs.get(b.name)!;
        // write-only outputs start as sentinels, so elements never written are detectable
        const fill = read.has(b.name) || !written.has(b.name);
        const given = req.inputBits?.get(b.name);
        let data: Float32Array | Int32Array | Uint16Array;
        if (size === 2) {
          // f16 / bf16: the bits of each (already representable) value
          const encode = param.dtype === "f16" ? numberToF16 : numberToBf16;
          data = new Uint16Array(total);
          for (let i = 0; i < total; i++) data[i] = sentinelBits16(bufferIndex, i, param.dtype, req.sentinelSalt ?? 0);
          if (fill && given instanceof Uint16Array && given.length === n) data.set(given, guard);
          else if (fill) for (let i = 0; i < n; i++) data[guard + i] = encode(src[i]);
        } else {
          const isF32 = param.dtype === "f32";
          data = isF32 ? new Float32Array(total) : new Int32Array(total);
          const bits = new Uint32Array(data.buffer);
          for (let i = 0; i < total; i++) bits[i] = sentinelBits(bufferIndex, i, isF32, req.sentinelSalt ?? 0);
          if (fill && given instanceof Uint32Array && given.length === n) bits.set(given, guard);
          else if (fill) for (let i = 0; i < n; i++) data[guard + i] = src[i];
        }
        const buf = runtime.buffer(total * size);
        runtime.write(buf, new Uint8Array(data.buffer));
        runtime.bindOffset(buf, guard * size);
        buffers.push({ name: b.name, dtype: param.dtype, n, guard, buf, initial: data });
      }
      // the DISPATCHES dispatches run one after another into the same buffers; where a buffer is
      // both read and written (an update in place, or a buffer written and then read back), the
      // state after the first dispatch is checked against one evaluation first: a kernel that
      // reads an element before the dispatch writes it sees the seeded contents in the first
      // dispatch only (later dispatches would read the previous dispatch's correct value)
      runtime.dispatch(pipe, buffers.map((b) => b.buf), plan.dispatch.threadgroupBytes, [plan.dispatch.groups, 1, 1], [plan.dispatch.threads, 1, 1], firstOracle !== null ? 1 : DISPATCHES);
    } catch (err) {
      for (const b of buffers) runtime.freeBuffer(b.buf);
      runtime.freePipeline(pipe);
      throw err;
    }
    /** Reads every buffer back and checks it against `ref`, the reference after `evals` chained
     *  evaluations (`final`: after every dispatch, where a dump is written). */
    const check = (ref: ReturnType<typeof evaluate>, evals: number, final: boolean): { outputs: OutputCheck[]; guardFindings: string[] } => {
      const oracle = ref;
      const outputs: OutputCheck[] = [];
      const gotOf = new Map<string, { dtype: string; view: ArrayLike<number>; bits: ArrayLike<number>; initialBits: ArrayLike<number>; startsAsSentinels: boolean }>();
      const guardFindings: string[] = [];
      const dumps: any[] = [];
      for (const b of buffers) {
        const size = elementSize(b.dtype);
        const raw = runtime.read(b.buf, (b.n + 2 * b.guard) * size);
        const bits = size === 2 ? new Uint16Array(raw) : new Uint32Array(raw);
        const initBits = size === 2 ? new Uint16Array(b.initial.buffer) : new Uint32Array(b.initial.buffer);
        const all: Float32Array | Int32Array | Float64Array = b.dtype === "f32" ? new Float32Array(raw)
          : b.dtype === "i32" ? new Int32Array(raw)
          : Float64Array.from(bits, b.dtype === "f16" ? f16ToNumber : bf16ToNumber);
        let changed = 0;
        for (let i = 0; i < b.guard; i++) {
          if (bits[i] !== initBits[i]) changed++;
          if (bits[b.guard + b.n + i] !== initBits[b.guard + b.n + i]) changed++;
        }
        if (changed) guardFindings.push(`${b.name}: ${changed} guard element(s) changed`);
        const view = all.subarray(b.guard, b.guard + b.n);
        if (written.has(b.name)) {
          const viewBits = bits.subarray(b.guard, b.guard + b.n);
          const init = initBits.subarray(b.guard, b.guard + b.n);
          outputs.push(compare(b.name, b.dtype, view, oracle.buffers.get(b.name)!, oracle.written.get(b.name)!, init, viewBits, !read.has(b.name), oracle.castDerived.has(b.name), oracle.narrowDerived.get(b.name) ?? "", oracle.decidedDerived.has(b.name), req.sentinelRecheck ? req.sentinelRecheck.get(b.name) ?? new Set<number>() : undefined));
          gotOf.set(b.name, { dtype: b.dtype, view, bits: viewBits, initialBits: init, startsAsSentinels: !read.has(b.name) });
        } else {
          // inputs must come back unchanged
          let diff = 0;
          for (let i = b.guard; i < b.guard + b.n; i++) if (bits[i] !== initBits[i]) diff++;
          if (diff) guardFindings.push(`${b.name}: input changed in ${diff} element(s)`);
        }
        if (final && req.dumpDir) dumps.push({ name: b.name, dtype: b.dtype, shape: shapeOf(doc, b.name), initial: b.initial.subarray(b.guard, b.guard + b.n), final: size === 2 ? bits.subarray(b.guard, b.guard + b.n) : view });
      }
      if (final && req.dumpDir) writeDump(req.dumpDir, doc, plan, msl, req, dumps, read, written);
      // beside elements outside the tolerance: the same document in plain f32 (one evaluation of
      // the initial inputs, or DISPATCHES chained ones where a buffer is updated in place, as the
      // reference is)
      if (outputs.some((o) => o.mismatches > 0)) {
        let plain: ReturnType<typeof evaluate> | null = null;
        try {
          plain = evaluate(doc, inputs, "f32");
          for (let k = 1; k < evals; k++) plain = evaluate(doc, plain.buffers as Map<string, Float64Array | Int32Array>, "f32");
        } catch {
          plain = null;
        }
        // and the estimate of f32's rounding error in the kernel's order (bounds.ts), where a float
        // output still misses
        // (used only beside the plain f32 evaluation: not computed where that failed)
        let bounds: Map<string, Float64Array> | null = null;
        if (plain && outputs.some((o) => o.mismatches > 0 && gotOf.get(o.name)?.dtype !== "i32")) {
          try {
            const order: ReductionOrder | null = plan.realization === "cooperative-reduction" ? { workers: plan.mapping.W, vector: plan.mapping.V } : null;
            let b = roundingBounds(doc, inputs, order);
            for (let k = 1; k < evals; k++) b = roundingBounds(doc, b.buffers, order, b.bounds);
            bounds = b.bounds;
          } catch {
            bounds = null;
          }
        }
        if (plain) {
          for (const o of outputs) {
            const g = gotOf.get(o.name);
            if (!g || o.mismatches === 0) continue;
            if (oracle.flowDerived.has(o.name)) {
              flowAgreement(o, g.dtype, g.view, g.bits, g.initialBits, g.startsAsSentinels, oracle.buffers.get(o.name)!, oracle.written.get(o.name)!, plain.buffers.get(o.name)!, plain.written.get(o.name)!);
              if (o.mismatches === 0) continue;
            }
            if (g.dtype === "i32") {
              if (o.castFromF32) castAgreement(o, g.view, oracle.buffers.get(o.name)!, oracle.written.get(o.name)!, plain.buffers.get(o.name)!);
              else if (o.decidedByF32) decidedAgreement(o, g.view, oracle.buffers.get(o.name)!, oracle.written.get(o.name)!, plain.buffers.get(o.name)!);
              continue;
            }
            const c = f32ProgramOrder(g.dtype, g.view, oracle.buffers.get(o.name)!, oracle.written.get(o.name)!, plain.buffers.get(o.name)!);
            if (c.outside > 0 || c.nonFinite > 0) o.f32ProgramOrder = c;
            // elements outside the tolerance where plain f32 misses too, and references rounded to an
            // infinity at the edge of the range (which f32ProgramOrder, on finite references, skips)
            illConditioned(o, g.dtype, g.view, oracle.buffers.get(o.name)!, oracle.written.get(o.name)!, plain.buffers.get(o.name)!, bounds?.get(o.name), oracle.unrounded.get(o.name));
          }
        }
      }
      return { outputs, guardFindings };
    };
    let state = firstOracle !== null ? check(firstOracle, 1, false) : check(oracle, DISPATCHES, true);
    let afterFirst = firstOracle !== null;
    if (firstOracle !== null && state.outputs.every((o) => o.mismatches === 0) && state.guardFindings.length === 0) {
      try {
        runtime.dispatch(pipe, buffers.map((b) => b.buf), plan.dispatch.threadgroupBytes, [plan.dispatch.groups, 1, 1], [plan.dispatch.threads, 1, 1], DISPATCHES - 1);
      } catch (err) {
        for (const b of buffers) runtime.freeBuffer(b.buf);
        runtime.freePipeline(pipe);
        throw err;
      }
      state = check(oracle, DISPATCHES, true);
      afterFirst = false;
    }
    for (const b of buffers) runtime.freeBuffer(b.buf);
    runtime.freePipeline(pipe);
    const { outputs, guardFindings } = state;
    const passed = outputs.every((o) => o.mismatches === 0) && guardFindings.length === 0;
    const result: RunResult = { ...base, passed, outputs, guards: guardFindings.length ? guardFindings.join("; ") : "intact" };
    if (afterFirst) result.checkedAfter = `the first of ${DISPATCHES} dispatches (a buffer is read and written: the first dispatch is checked against one evaluation before the rest run)`;
    return result;
  } catch (err) {
    // a --dump file that cannot be written is the user's path, not the kernel's failure
    if (err instanceof UsageError) throw err;
    return { ...base, error: err instanceof Error ? err.message : String(err) };
  } finally {
    if (!req.precompiled) runtime.freeLibrary(lib);
  }
}

/**
 * A `--dump` folder used before holds the files of that run's buffers: the .npy files its
 * manifest.json lists that this run does not write are removed, so that the folder holds
 * one run (the run's own files are written over). Only names of the dump's own form
 * (`NAME.initial.npy`, `NAME.final.npy`) are touched; a manifest that is not Tile's is ignored.
 */
function removeEarlierDump(dir: string, keep: Set<string>): void {
  let old: any;
  try {
    old = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
  } catch {
    return;
  }
  if (!old || !Array.isArray(old.files)) return;
  for (const f of old.files) {
    if (!f || typeof f.file !== "string" || keep.has(f.file)) continue;
    // a file name of the dump's own form (dumpStems), in the folder itself
    if (!/^[A-Za-z0-9_%~-]+\.(initial|final)\.npy$/.test(f.file)) continue;
    try {
      fs.unlinkSync(path.join(dir, f.file));
    } catch {
      // already gone, or not ours to remove: the new manifest still says what this run wrote
    }
  }
}

/**
 * The file name stem of each buffer's dump files, in order: the name itself where it is made of
 * ASCII letters, digits, `_` and `-`; otherwise every other UTF-8 byte written `%XX` (a name is any
 * string: `../X` must not leave the folder, `a/b` is no sub-folder). Stems that differ only in
 * case (`X`, `x`: one file on a case-insensitive file system) get `~2`, `~3`, ... after the first.
 */
export function dumpStems(names: string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    let stem = "";
    for (const b of new TextEncoder().encode(name)) {
      const c = String.fromCharCode(b);
      stem += /[A-Za-z0-9_-]/.test(c) ? c : "%" + b.toString(16).toUpperCase().padStart(2, "0");
    }
    if (stem === "") stem = "%";
    let k = 1, s = stem;
    while (seen.has(s.toLowerCase())) s = `${stem}~${++k}`;
    seen.add(s.toLowerCase());
    out.push(s);
  }
  return out;
}

/**
 * `--dump DIR`: every buffer's initial and final contents as NumPy .npy files (NAME.initial.npy,
 * NAME.final.npy, NAME as dumpStems writes it; final = after the DISPATCHES dispatches), the
 * document, the kernel, and manifest.json saying which buffers are inputs, outputs and updated in
 * place, and which file holds what.
 */
function writeDump(dir: string, doc: any, plan: any, msl: string, req: RunRequest, dumps: any[], read: Set<string>, written: Set<string>): void {
  ensureDir(dir);
  const stems = dumpStems(dumps.map((d) => d.name));
  removeEarlierDump(dir, new Set(stems.flatMap((s) => [`${s}.initial.npy`, `${s}.final.npy`])));
  const files: any[] = [];
  const buffers: any[] = [];
  const role = (n: string): string => (read.has(n) && written.has(n) ? "updated in place" : written.has(n) ? "output" : read.has(n) ? "input" : "unused");
  for (const [k, d] of dumps.entries()) {
    const entry: any = { name: d.name, dtype: d.dtype, shape: d.shape, role: role(d.name),
      initialFrom: req.inputFiles?.get(d.name) ?? (written.has(d.name) && !read.has(d.name) ? "sentinels" : `seed ${req.seed}`) };
    for (const which of ["initial", "final"]) {
      const file = `${stems[k]}.${which}.npy`;
      let arr = d[which] as Float32Array | Int32Array | Uint16Array;
      // bf16 has no NumPy dtype: its values are written as float32 (exact)
      if (d.dtype === "bf16") arr = new Float32Array(Uint32Array.from(arr as Uint16Array, (h) => h << 16).buffer);
      writeOutput(path.join(dir, file), encodeNpy(NPY_DESCR[d.dtype], d.shape, new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength)));
      entry[which] = file;
      files.push({ buffer: d.name, which, dtype: d.dtype, shape: d.shape, file });
    }
    buffers.push(entry);
  }
  const names = (r: string): string[] => buffers.filter((b) => b.role === r).map((b) => b.name);
  writeOutput(path.join(dir, "kernel.metal"), msl);
  writeOutput(path.join(dir, "document.json"), JSON.stringify(doc, null, 2));
  writeOutput(path.join(dir, "manifest.json"), JSON.stringify({
    document: doc.name, seed: req.seed, dispatches: DISPATCHES, tolerance: { abs: ABS_TOL, rel: REL_TOL },
    inputs: names("input"), outputs: names("output"), updatedInPlace: names("updated in place"),
    buffers, files, plan,
  }, null, 2));
}
