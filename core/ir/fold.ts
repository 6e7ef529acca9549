// Tile IR's i32 semantics for folding constants in the emitter (docs/tile-ir.md, "Semantics of
// values"): two's-complement wrapping add/sub/mul/neg/abs, div and mod as in
// analysis/consts.ts (x div 0 = 0, x mod 0 = 0, INT_MIN div -1 = INT_MIN, INT_MIN mod -1 = 0),
// saturating f32 -> i32. Nothing here traps in either build: the arithmetic runs in f64 (exact
// for these operands) and is reduced modulo 2^32.

import { tileDiv, tileMod } from "../analysis/consts";

const TWO32: f64 = 4294967296.0;
const TWO31: f64 = 2147483648.0;

/** An integer-valued f64 with |x| < 2^53, reduced modulo 2^32 into [-2^31, 2^31). */
export function wrapI32(x: f64): i32 {
  let r: f64 = x - Math.floor(x / TWO32) * TWO32;
  if (r >= TWO31) r = r - TWO32;
  return i32(r); // i32(): in the JS build a cast is erased, and x | 0 turns a -0 into the integer 0
}

/** The i32 result of `op` ("add", "sub", "mul", "div", "mod", "min", "max") on a and b. */
export function i32Binary(op: string, a: i32, b: i32): i32 {
  const x: f64 = <f64>a;
  const y: f64 = <f64>b;
  if (op == "add") return wrapI32(x + y);
  if (op == "sub") return wrapI32(x - y);
  if (op == "mul") {
    // split b into 16-bit halves: each partial product is below 2^47, exact in f64
    const hi: f64 = Math.floor(y / 65536.0);
    const lo: f64 = y - hi * 65536.0;
    return wrapI32(<f64>wrapI32(x * hi) * 65536.0 + x * lo);
  }
  if (op == "min") return a < b ? a : b;
  if (op == "max") return a > b ? a : b;
  if (op == "div") return tileDiv(a, b);
  if (op == "mod") return tileMod(a, b);
  return 0;
}

/** The i32 result of "neg" or "abs" (abs(INT_MIN) = INT_MIN). */
export function i32Unary(op: string, a: i32): i32 {
  const x: f64 = <f64>a;
  if (op == "neg") return wrapI32(-x);
  return wrapI32(x < 0.0 ? -x : x);
}

/** f32 -> i32: truncation toward zero, saturating to the i32 range, NaN gives 0. */
export function castF32ToI32(x: f64): i32 {
  if (x != x) return 0;
  const t: f64 = Math.trunc(x);
  if (t <= -TWO31) return -2147483647 - 1;
  if (t >= TWO31 - 1.0) return 2147483647;
  return i32(t); // a negative x above -1 truncates to -0: i32() gives the integer 0 in both builds
}
