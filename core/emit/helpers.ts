// MSL helper functions that spell out Tile IR's semantics where Metal's built-ins differ
// (docs/tile-ir.md, "Semantics of values"). A kernel's prelude holds only the helpers its body
// uses, in this table's order (a helper's dependencies come first), so a kernel that needs none
// is unchanged.
//
// - f32 min/max and the max/min combiners propagate NaN; Metal's min, max, simd_max, simd_min
//   return the other operand. NaN is tested on the bits, which no floating-point assumption of
//   the compiler can remove. They order -0 below +0 (IEEE 754-2019 minimum and maximum), where
//   Metal may return either zero: max(-0, +0) = +0, min(-0, +0) = -0, in any order.
// - i32 add/sub/mul/neg/abs wrap: computed on uint (signed overflow is undefined in MSL and C++).
// - i32 div/mod never trap: x div 0 = 0, x mod 0 = 0, INT_MIN div -1 = INT_MIN, INT_MIN mod -1 = 0.
// - f32 -> i32 saturates, NaN gives 0 (a plain int(x) is undefined outside the i32 range).

import { ERF_HELPER } from "./erf";

export const HELPER_NAMES: Array<string> = [
  "tile_is_nan", "tile_max", "tile_min", "tile_simd_max", "tile_simd_min",
  "tile_add_wrap", "tile_sub_wrap", "tile_mul_wrap", "tile_neg_wrap", "tile_abs_wrap",
  "tile_div", "tile_mod", "tile_f32_to_i32", "tile_erf",
];

/** Helpers each helper calls (space-separated), declared before it. */
const HELPER_DEPS: Array<string> = [
  "", "tile_is_nan", "tile_is_nan", "tile_is_nan", "tile_is_nan",
  "", "", "", "", "tile_neg_wrap",
  "tile_neg_wrap", "", "tile_is_nan", "",
];

const HELPER_TEXT: Array<string> = [
  "// NaN test on the bits (exponent all ones, mantissa not zero)\n" +
  "static inline bool tile_is_nan(float x) { return (as_type<uint>(x) & 0x7fffffffu) > 0x7f800000u; }\n",

  "// max and min that propagate NaN (Metal's max and min return the other operand) and order -0\n" +
  "// below +0 (of two equal values, the AND of the bits is +0 for two zeros, the OR -0)\n" +
  "static inline float tile_max(float a, float b) { return tile_is_nan(a) ? a : (tile_is_nan(b) ? b : (a == b ? as_type<float>(as_type<uint>(a) & as_type<uint>(b)) : max(a, b))); }\n",

  "static inline float tile_min(float a, float b) { return tile_is_nan(a) ? a : (tile_is_nan(b) ? b : (a == b ? as_type<float>(as_type<uint>(a) | as_type<uint>(b)) : min(a, b))); }\n",

  "// SIMD max and min that propagate NaN (simd_max and simd_min ignore a NaN lane); a zero result\n" +
  "// is +0 for max where some lane holds +0, -0 for min where some lane holds -0\n" +
  "static inline float tile_simd_max(float x) {\n" +
  "  const bool any_nan = simd_any(tile_is_nan(x));\n" +
  "  const uint zero = simd_any(as_type<uint>(x) == 0u) ? 0u : 0x80000000u;\n" +
  "  const float m = simd_max(x);\n" +
  "  return any_nan ? NAN : ((as_type<uint>(m) & 0x7fffffffu) == 0u ? as_type<float>(zero) : m);\n" +
  "}\n",

  "static inline float tile_simd_min(float x) {\n" +
  "  const bool any_nan = simd_any(tile_is_nan(x));\n" +
  "  const uint zero = simd_any(as_type<uint>(x) == 0x80000000u) ? 0x80000000u : 0u;\n" +
  "  const float m = simd_min(x);\n" +
  "  return any_nan ? NAN : ((as_type<uint>(m) & 0x7fffffffu) == 0u ? as_type<float>(zero) : m);\n" +
  "}\n",

  "// i32 arithmetic that wraps on overflow (two's complement), computed on uint\n" +
  "static inline int tile_add_wrap(int a, int b) { return as_type<int>(as_type<uint>(a) + as_type<uint>(b)); }\n",

  "static inline int tile_sub_wrap(int a, int b) { return as_type<int>(as_type<uint>(a) - as_type<uint>(b)); }\n",

  "static inline int tile_mul_wrap(int a, int b) { return as_type<int>(as_type<uint>(a) * as_type<uint>(b)); }\n",

  "static inline int tile_neg_wrap(int a) { return as_type<int>(0u - as_type<uint>(a)); }\n",

  "static inline int tile_abs_wrap(int a) { return a < 0 ? tile_neg_wrap(a) : a; }\n",

  "// i32 division truncating toward zero; never traps: x / 0 = 0, INT_MIN / -1 = INT_MIN\n" +
  "static inline int tile_div(int a, int b) { return b == 0 ? 0 : (b == -1 ? tile_neg_wrap(a) : a / b); }\n",

  "// i32 floor modulo (the result has the sign of b); never traps: x mod 0 = 0, INT_MIN mod -1 = 0\n" +
  "static inline int tile_mod(int a, int b) {\n" +
  "  if (b == 0 || b == -1) return 0;\n" +
  "  const int m = a % b;\n" +
  "  return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;\n" +
  "}\n",

  "// f32 -> i32: truncation toward zero, saturating to the i32 range; NaN gives 0\n" +
  "static inline int tile_f32_to_i32(float x) {\n" +
  "  if (tile_is_nan(x)) return 0;\n" +
  "  if (x >= 2147483648.0f) return 2147483647;\n" +
  "  if (x <= -2147483648.0f) return (-2147483647 - 1);\n" +
  "  return int(x);\n" +
  "}\n",

  ERF_HELPER,
];

/** Marks helper `name` (and what it calls) as used in `used` (one flag per HELPER_NAMES entry). */
export function useHelper(used: Array<bool>, name: string): void {
  const k = HELPER_NAMES.indexOf(name);
  if (k < 0 || used[k]) return;
  used[k] = true;
  const deps = HELPER_DEPS[k];
  if (deps != "") useHelper(used, deps);
}

export function noHelpers(): Array<bool> {
  const a = new Array<bool>();
  for (let i: i32 = 0; i < HELPER_NAMES.length; i++) a.push(false);
  return a;
}

/** The prelude text of the used helpers, in table order, each followed by an empty line. */
export function helperPrelude(used: Array<bool>): string {
  let s: string = "";
  for (let i: i32 = 0; i < HELPER_NAMES.length; i++) if (used[i]) s = s + HELPER_TEXT[i] + "\n";
  return s;
}
