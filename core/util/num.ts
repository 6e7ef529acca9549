// Exact, deterministic number text conversion for the portable core.
//
// Everything here uses integer arithmetic on values that stay well inside i32 (so JS and
// WebAssembly agree), a small bignum (16-bit limbs in Array<i32>, little-endian, normalized:
// no zero top limb, zero is the empty array), and f64 operations only where they are exact.
// Bit access to floats comes from the target glue.
//
// Exports:
//   parseDecimalToF32(text)     correctly rounded f32 (widened to f64) of a JSON number token
//   formatF32(x)                shortest round-tripping decimal, laid out like JS Number#toString
//   formatF64Fixed(x, decimals) fixed point, exact round-half-away-from-zero, never "-0"
//   formatHexF32(x)             C/MSL hex float literal ("0x1.99999ap-4f")
//   formatF32Bits(x)            "0x3dcccccd"
//   isI32Text(text), parseI32(text), formatI32(v)

import { f32Bits, f64High, f64Low, f64FromParts } from "../glue/wasm";
import { hexDigits } from "./text";

// ---------------------------------------------------------------------------------------------
// Small integer helpers

function idiv(a: i32, b: i32): i32 {
  return i32(a / b);
}

function bitLen32(v: i32): i32 {
  // v >= 0
  let n: i32 = 0;
  let x: i32 = v;
  while (x != 0) {
    x = x >> 1;
    n = n + 1;
  }
  return n;
}

function pow10i(n: i32): i32 {
  // n in 0..9
  let r: i32 = 1;
  for (let i: i32 = 0; i < n; i++) r = r * 10;
  return r;
}

function digitCount(v: i32): i32 {
  // v >= 1
  let n: i32 = 1;
  let x: i32 = v;
  while (x >= 10) {
    x = idiv(x, 10);
    n = n + 1;
  }
  return n;
}

/** 2^k as f64, for k in -1022..1023. */
function pow2(k: i32): f64 {
  return f64FromParts((k + 1023) << 20, 0);
}

function digitChar(d: i32): string {
  return String.fromCharCode(48 + d);
}


/** How many non-negative integers have their text made once (SMALL_INTS). */
const SMALL_INT_COUNT: i32 = 1024;
/** The decimal texts of 0 .. SMALL_INT_COUNT - 1, made once: the emitter and the plan JSON
 *  print mostly small integers. */
const SMALL_INTS: Array<string> = smallInts();

function smallInts(): Array<string> {
  const out = new Array<string>();
  for (let v: i32 = 0; v < SMALL_INT_COUNT; v++) {
    let s: string = "";
    let x: i32 = v;
    do {
      const q: i32 = idiv(x, 10);
      s = digitChar(x - q * 10) + s;
      x = q;
    } while (x > 0);
    out.push(s);
  }
  return out;
}

/** Decimal text of v >= 0. */
function uintText(v: i32): string {
  if (v < SMALL_INT_COUNT) return SMALL_INTS[v];
  let s: string = "";
  let x: i32 = v;
  while (x > 0) {
    const q: i32 = idiv(x, 10);
    s = digitChar(x - q * 10) + s;
    x = q;
  }
  return s;
}

function zeros(n: i32): string {
  let s: string = "";
  for (let i: i32 = 0; i < n; i++) s = s + "0";
  return s;
}

// ---------------------------------------------------------------------------------------------
// Bignum: Array<i32> of 16-bit limbs, little-endian, normalized.

function bnNormalize(a: Array<i32>): void {
  while (a.length > 0 && a[a.length - 1] == 0) a.pop();
}

function bnFromInt(v: i32): Array<i32> {
  // v >= 0
  const a: Array<i32> = new Array<i32>();
  let x: i32 = v;
  while (x != 0) {
    a.push(x & 0xffff);
    x = x >> 16;
  }
  return a;
}

function bnCopy(a: Array<i32>): Array<i32> {
  const r: Array<i32> = new Array<i32>();
  for (let i: i32 = 0; i < a.length; i++) r.push(a[i]);
  return r;
}

/** a = a * m + add, in place; 0 <= m <= 32767, 0 <= add <= 65535. */
function bnMulSmallAdd(a: Array<i32>, m: i32, add: i32): void {
  let carry: i32 = add;
  for (let i: i32 = 0; i < a.length; i++) {
    const v: i32 = a[i] * m + carry;
    a[i] = v & 0xffff;
    carry = v >> 16;
  }
  while (carry != 0) {
    a.push(carry & 0xffff);
    carry = carry >> 16;
  }
  bnNormalize(a);
}

/** a = a * 5^n, in place. */
function bnMulPow5(a: Array<i32>, n: i32): void {
  let k: i32 = n;
  while (k >= 6) {
    bnMulSmallAdd(a, 15625, 0);
    k = k - 6;
  }
  if (k > 0) {
    let m: i32 = 1;
    for (let i: i32 = 0; i < k; i++) m = m * 5;
    bnMulSmallAdd(a, m, 0);
  }
}

function bnBitLen(a: Array<i32>): i32 {
  const n: i32 = a.length;
  if (n == 0) return 0;
  return (n - 1) * 16 + bitLen32(a[n - 1]);
}

/** A new bignum a * 2^n (n >= 0). */
function bnShl(a: Array<i32>, n: i32): Array<i32> {
  const r: Array<i32> = new Array<i32>();
  if (a.length == 0) return r;
  const limbs: i32 = n >> 4;
  const bits: i32 = n & 15;
  for (let i: i32 = 0; i < limbs; i++) r.push(0);
  let carry: i32 = 0;
  for (let i: i32 = 0; i < a.length; i++) {
    const v: i32 = (a[i] << bits) | carry;
    r.push(v & 0xffff);
    carry = v >> 16;
  }
  if (carry != 0) r.push(carry);
  return r;
}

/** A new bignum floor(a / 2^n) (n >= 0). */
function bnShr(a: Array<i32>, n: i32): Array<i32> {
  const r: Array<i32> = new Array<i32>();
  const limbs: i32 = n >> 4;
  const bits: i32 = n & 15;
  const len: i32 = a.length;
  for (let i: i32 = limbs; i < len; i++) {
    let v: i32 = a[i] >> bits;
    if (bits != 0 && i + 1 < len) v = v | ((a[i + 1] << (16 - bits)) & 0xffff);
    r.push(v);
  }
  bnNormalize(r);
  return r;
}

/** a = floor(a / 2), in place. */
function bnShr1(a: Array<i32>): void {
  const len: i32 = a.length;
  for (let i: i32 = 0; i < len; i++) {
    let v: i32 = a[i] >> 1;
    if (i + 1 < len) v = v | ((a[i + 1] & 1) << 15);
    a[i] = v;
  }
  bnNormalize(a);
}

function bnCmp(a: Array<i32>, b: Array<i32>): i32 {
  if (a.length != b.length) return a.length < b.length ? -1 : 1;
  let i: i32 = a.length - 1;
  while (i >= 0) {
    const x: i32 = a[i];
    const y: i32 = b[i];
    if (x != y) return x < y ? -1 : 1;
    i = i - 1;
  }
  return 0;
}

/** a = a - b, in place; requires a >= b. */
function bnSub(a: Array<i32>, b: Array<i32>): void {
  let borrow: i32 = 0;
  for (let i: i32 = 0; i < a.length; i++) {
    let v: i32 = a[i] - borrow;
    if (i < b.length) v = v - b[i];
    if (v < 0) {
      v = v + 65536;
      borrow = 1;
    } else {
      borrow = 0;
    }
    a[i] = v;
  }
  bnNormalize(a);
}

/** a = a + 2^k, in place (k >= 0). */
function bnAddPow2(a: Array<i32>, k: i32): void {
  const limb: i32 = k >> 4;
  while (a.length <= limb) a.push(0);
  let carry: i32 = 1 << (k & 15);
  let i: i32 = limb;
  while (carry != 0) {
    if (i == a.length) a.push(0);
    const v: i32 = a[i] + carry;
    a[i] = v & 0xffff;
    carry = v >> 16;
    i = i + 1;
  }
  bnNormalize(a);
}

/**
 * Returns floor(num / den), which the caller guarantees to be below 2^bits (bits <= 30);
 * num is replaced by the remainder.
 */
function bnDivQuot(num: Array<i32>, den: Array<i32>, bits: i32): i32 {
  const c: Array<i32> = bnShl(den, bits - 1);
  let q: i32 = 0;
  let i: i32 = bits - 1;
  while (i >= 0) {
    if (bnCmp(num, c) >= 0) {
      bnSub(num, c);
      q = q | (1 << i);
    }
    if (i > 0) bnShr1(c);
    i = i - 1;
  }
  return q;
}

/** a = floor(a / d), in place; returns the remainder. 1 <= d <= 10000. */
function bnDivSmall(a: Array<i32>, d: i32): i32 {
  let rem: i32 = 0;
  let i: i32 = a.length - 1;
  while (i >= 0) {
    const cur: i32 = rem * 65536 + a[i];
    const q: i32 = idiv(cur, d);
    a[i] = q;
    rem = cur - q * d;
    i = i - 1;
  }
  bnNormalize(a);
  return rem;
}

/** Decimal text of a bignum. */
function bnToDecimal(a: Array<i32>): string {
  if (a.length == 0) return "0";
  const t: Array<i32> = bnCopy(a);
  const chunks: Array<i32> = new Array<i32>();
  while (t.length > 0) chunks.push(bnDivSmall(t, 10000));
  let s: string = uintText(chunks[chunks.length - 1]);
  let i: i32 = chunks.length - 2;
  while (i >= 0) {
    const c: string = uintText(chunks[i]);
    s = s + zeros(4 - c.length) + c;
    i = i - 1;
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// Decimal -> f32

/** Significant digits kept exactly; further digits only matter as a sticky bit. */
const MAX_DIGITS: i32 = 800;

/**
 * The correctly rounded f32 (as f64) of D * 10^E, where D > 0 has exactly nd decimal digits.
 * Returns +Infinity on overflow and +0 on underflow.
 */
function decimalToF32Abs(d: Array<i32>, nd: i32, e: i32): f64 {
  // D * 10^E lies in [10^(nd-1+E), 10^(nd+E)).
  if (nd + e <= -46) return 0.0; // below 1e-46 < half the smallest subnormal (~7.006e-46)
  if (nd + e - 1 >= 39) return Infinity; // at least 1e39 > f32 max
  // value = num / den * 2^e with num = D * 5^max(e,0), den = 5^max(-e,0)
  let num: Array<i32> = bnCopy(d);
  let den: Array<i32> = bnFromInt(1);
  if (e >= 0) bnMulPow5(num, e);
  else bnMulPow5(den, -e);
  // Scale by 2^s so that num / den lies in [2^24, 2^25).
  let s: i32 = 24 - (bnBitLen(num) - bnBitLen(den));
  if (s >= 0) num = bnShl(num, s);
  else den = bnShl(den, -s);
  if (bnCmp(num, bnShl(den, 24)) < 0) {
    num = bnShl(num, 1);
    s = s + 1;
  }
  const q: i32 = bnDivQuot(num, den, 25);
  const sticky: bool = num.length != 0;
  // value = (q + rem/den) * 2^u, q in [2^24, 2^25)
  const u: i32 = e - s;
  let shift: i32 = -149 - u;
  if (shift < 1) shift = 1;
  if (shift >= 26) return 0.0; // q < 2^25 <= half an ulp
  let m: i32 = q >> shift;
  const r: i32 = q & ((1 << shift) - 1);
  const half: i32 = 1 << (shift - 1);
  if (r > half || (r == half && (sticky || (m & 1) == 1))) m = m + 1;
  if (m == 0) return 0.0;
  const result: f64 = <f64>m * pow2(u + shift);
  if (result >= pow2(128)) return Infinity;
  return result;
}

/**
 * The correctly rounded (round half to even) f32 value of a JSON number token, widened to f64.
 * Overflow gives +-Infinity, underflow +-0 (the sign is kept, "-0" gives -0). Digits beyond the
 * 800th significant one only act as a sticky bit; exponents are clamped at +-10^8. Malformed
 * text (not: optional '-', digits, optional '.' digits, optional e/E, sign, digits) gives NaN.
 */
export function parseDecimalToF32(text: string): f64 {
  const n: i32 = text.length;
  let i: i32 = 0;
  let neg: bool = false;
  if (i < n && text.charCodeAt(i) == 45) {
    neg = true;
    i = i + 1;
  }
  const d: Array<i32> = new Array<i32>();
  let nd: i32 = 0;
  let e: i32 = 0;
  let sticky: bool = false;
  let acc: i32 = 0;
  let accLen: i32 = 0;
  let intDigits: i32 = 0;
  while (i < n) {
    const c: i32 = text.charCodeAt(i);
    if (c < 48 || c > 57) break;
    const dg: i32 = c - 48;
    intDigits = intDigits + 1;
    if (nd == 0 && dg == 0) {
      // leading zero
    } else if (nd < MAX_DIGITS) {
      acc = acc * 10 + dg;
      accLen = accLen + 1;
      if (accLen == 4) {
        bnMulSmallAdd(d, 10000, acc);
        acc = 0;
        accLen = 0;
      }
      nd = nd + 1;
    } else {
      e = e + 1;
      if (dg != 0) sticky = true;
    }
    i = i + 1;
  }
  if (intDigits == 0) return NaN;
  if (i < n && text.charCodeAt(i) == 46) {
    i = i + 1;
    let fracDigits: i32 = 0;
    while (i < n) {
      const c: i32 = text.charCodeAt(i);
      if (c < 48 || c > 57) break;
      const dg: i32 = c - 48;
      fracDigits = fracDigits + 1;
      if (nd == 0 && dg == 0) {
        e = e - 1;
      } else if (nd < MAX_DIGITS) {
        acc = acc * 10 + dg;
        accLen = accLen + 1;
        if (accLen == 4) {
          bnMulSmallAdd(d, 10000, acc);
          acc = 0;
          accLen = 0;
        }
        nd = nd + 1;
        e = e - 1;
      } else {
        if (dg != 0) sticky = true;
      }
      i = i + 1;
    }
    if (fracDigits == 0) return NaN;
  }
  if (i < n && (text.charCodeAt(i) == 101 || text.charCodeAt(i) == 69)) {
    i = i + 1;
    let expNeg: bool = false;
    if (i < n && (text.charCodeAt(i) == 43 || text.charCodeAt(i) == 45)) {
      expNeg = text.charCodeAt(i) == 45;
      i = i + 1;
    }
    let expDigits: i32 = 0;
    let ex: i32 = 0;
    while (i < n) {
      const c: i32 = text.charCodeAt(i);
      if (c < 48 || c > 57) break;
      if (ex < 100000000) ex = ex * 10 + (c - 48);
      expDigits = expDigits + 1;
      i = i + 1;
    }
    if (expDigits == 0) return NaN;
    e = expNeg ? e - ex : e + ex;
  }
  if (i != n) return NaN;
  if (accLen > 0) bnMulSmallAdd(d, pow10i(accLen), acc);
  if (sticky) {
    bnMulSmallAdd(d, 10, 1);
    nd = nd + 1;
    e = e - 1;
  }
  let r: f64 = 0.0;
  if (nd > 0) r = decimalToF32Abs(d, nd, e);
  return neg ? -r : r;
}

// ---------------------------------------------------------------------------------------------
// f32 -> shortest decimal

class Ratio {
  num: Array<i32>;
  den: Array<i32>;
  constructor() {
    this.num = new Array<i32>();
    this.den = new Array<i32>();
  }
}

/** Sets r to m * 2^e2 / 10^j as num / den. */
function setRatio(r: Ratio, m: i32, e2: i32, j: i32): void {
  // m * 2^e2 / (2^j * 5^j) = m * 5^(-j) * 2^(e2 - j)
  let num: Array<i32> = bnFromInt(m);
  let den: Array<i32> = bnFromInt(1);
  if (j < 0) bnMulPow5(num, -j);
  else bnMulPow5(den, j);
  const t: i32 = e2 - j;
  if (t >= 0) num = bnShl(num, t);
  else den = bnShl(den, -t);
  r.num = num;
  r.den = den;
}

/** Lays out digits (no leading/trailing zeros) of value 0.digits * 10^n like Number#toString. */
function layoutDecimal(digits: string, n: i32): string {
  const k: i32 = digits.length;
  if (k <= n && n <= 21) return digits + zeros(n - k);
  if (0 < n && n <= 21) return digits.substring(0, n) + "." + digits.substring(n);
  if (-6 < n && n <= 0) return "0." + zeros(-n) + digits;
  const ex: i32 = n - 1;
  const exText: string = ex < 0 ? "-" + uintText(-ex) : "+" + uintText(ex);
  if (k == 1) return digits + "e" + exText;
  return digits.substring(0, 1) + "." + digits.substring(1) + "e" + exText;
}

/** Text of v * 10^e (v >= 1) in Number#toString layout. */
function layoutValue(v: i32, e: i32): string {
  let x: i32 = v;
  let ex: i32 = e;
  while (x >= 10 && x - idiv(x, 10) * 10 == 0) {
    x = idiv(x, 10);
    ex = ex + 1;
  }
  const digits: string = uintText(x);
  return layoutDecimal(digits, digits.length + ex);
}

/** 10^n for 0 <= n <= 22, exact in f64 (5^22 < 2^53). */
function pow10Exact(n: i32): f64 {
  let v: f64 = 1.0;
  for (let i: i32 = 0; i < n; i++) v = v * 10.0;
  return v;
}

/**
 * Whether d * 10^e (d >= 1, at most ten digits) rounds to the f32 value ax, whose rounding
 * interval runs from lo to hi (ends included only on ties to even, which the exact path decides):
 * what decimalToF32Abs(d, e) == ax says.
 * For |e| <= 22 the f64 value of d * 10^e is within 2^-53 of the exact one (10^|e| is exact, one
 * multiply or divide rounds), so where it is farther than 2^-50 of itself from both ends the
 * answer is decided in f64; otherwise, and for larger |e|, the exact big-number rounding decides.
 * Only IEEE multiply, divide, subtract and compare: identical in both builds.
 */
function roundsTo(d: i32, e: i32, ax: f64, lo: f64, hi: f64): bool {
  if (e >= -22 && e <= 22) {
    const v: f64 = e >= 0 ? <f64>d * pow10Exact(e) : <f64>d / pow10Exact(-e);
    const slack: f64 = v * 8.881784197001252e-16; // 2^-50
    const below: f64 = v - lo;
    const above: f64 = hi - v;
    if (below > slack && above > slack) return true;
    if (below < -slack || above < -slack) return false;
  }
  return decimalToF32Abs(bnFromInt(d), digitCount(d), e) == ax;
}

/** Margin on the fraction of ax / 10^(k-8) (below 10^9 < 2^30, so within 2^-23 of the exact
 *  quotient in f64): a fraction this far from 0, 1/2 and 1 is decided. */
const FRACTION_SLACK: f64 = 9.5367431640625e-7; // 2^-20

class NineDigits {
  ok: bool = false;
  /** The quotient was computed exactly (frac is the exact fraction; 0: it divides). */
  exact: bool = false;
  k: i32 = 0;
  q: i32 = 0;
  frac: f64 = 0.0;
}

/**
 * formatF32's decimal exponent k (10^k <= ax < 10^(k+1), given its estimate k0, which is k or
 * k - 1) and q = floor(ax / 10^(k-8)) with the fraction beside it, computed in f64 where that
 * decides them. ax * 10^n for 0 <= n <= 12 is exact (ax's 24-bit significand times 5^n < 2^28,
 * times a power of two): then k and q and the fraction are exact. With another power of ten up to
 * 10^22 (exact itself) the one multiply or divide rounds, and the result counts only where it is
 * decided: ax against 10^(k0+1) not within 2^-50 of equal, the fraction of the quotient not within
 * FRACTION_SLACK of 0 or 1 (so the quotient is not an integer). `ok` false: the big numbers decide.
 */
function nineDigitsFast(ax: f64, k0: i32): NineDigits {
  const out = new NineDigits();
  let k: i32 = k0;
  const j1: i32 = k0 + 1;
  if (j1 >= 0 && j1 <= 22) {
    if (ax >= pow10Exact(j1)) k = k0 + 1;
  } else if (j1 < 0 && j1 >= -12) {
    if (ax * pow10Exact(-j1) >= 1.0) k = k0 + 1;
  } else if (j1 < 0 && j1 >= -22) {
    const scaled: f64 = ax * pow10Exact(-j1);
    const slack: f64 = scaled * 8.881784197001252e-16; // 2^-50
    if (scaled - 1.0 > slack) k = k0 + 1;
    else if (1.0 - scaled <= slack) return out;
  } else return out;
  const j: i32 = k - 8;
  if (j > 22 || j < -22) return out;
  const exact: bool = j <= 0 && j >= -12;
  const w: f64 = j >= 0 ? ax / pow10Exact(j) : ax * pow10Exact(-j);
  const fq: f64 = Math.floor(w);
  const frac: f64 = w - fq;
  if (!exact && (frac <= FRACTION_SLACK || frac >= 1.0 - FRACTION_SLACK)) return out;
  if (fq < 100000000.0 || fq >= 1000000000.0) return out;
  out.ok = true;
  out.exact = exact;
  out.k = k;
  out.q = <i32>fq;
  out.frac = frac;
  return out;
}

/**
 * The shortest decimal text that parseDecimalToF32 maps back to the f32 value x (if several have
 * that length, the one closest to x; on an exact tie, the even one), laid out like ECMAScript
 * Number#toString ("0.1", "1", "1e-7", "3.4028235e+38", "16777216"). +0 gives "0", -0 gives "-0".
 * NaN gives "NaN", infinities "Infinity" / "-Infinity" (not JSON: callers must avoid them).
 */
export function formatF32(x: f64): string {
  const bits: i32 = f32Bits(x);
  const neg: bool = bits < 0;
  const expBits: i32 = (bits >> 23) & 0xff;
  const mant: i32 = bits & 0x7fffff;
  if (expBits == 255) {
    if (mant != 0) return "NaN";
    return neg ? "-Infinity" : "Infinity";
  }
  if (expBits == 0 && mant == 0) return neg ? "-0" : "0";
  const sign: string = neg ? "-" : "";
  let m: i32 = mant;
  let e2: i32 = -149;
  if (expBits != 0) {
    m = mant | 0x800000;
    e2 = expBits - 150;
  }
  const ax: f64 = <f64>m * pow2(e2);
  // An integer below 2^24: every other integer of that range is another f32, so its own digits
  // are the shortest text that maps back (what the search below finds, without the big numbers).
  if (ax < 16777216.0 && ax == Math.floor(ax)) return sign + layoutValue(<i32>ax, 0);
  // Decimal exponent k with 10^k <= ax < 10^(k+1).
  const log2: i32 = e2 + bitLen32(m) - 1;
  let k: i32 = (log2 * 78913) >> 18; // floor(log2 * log10(2)), k <= true exponent <= k + 1
  // the values that round to ax lie between the midpoints lo and hi to its neighbours (the gap
  // below a power of two is half the gap above, except at the smallest normal)
  const lo: f64 = mant == 0 && expBits > 1 ? (<f64>m * 4.0 - 1.0) * pow2(e2 - 2) : (<f64>m * 2.0 - 1.0) * pow2(e2 - 1);
  const hi: f64 = (<f64>m * 2.0 + 1.0) * pow2(e2 - 1);
  // k, and q = floor(ax / 10^(k-8)) (nine digits) with its fraction, in f64 where that decides
  // them (nineDigitsFast); else, or where the fraction is needed exactly, from the big numbers
  const fast = nineDigitsFast(ax, k);
  let exact: Ratio | null = null;
  let q: i32 = 0;
  let remZero: bool = false;
  if (fast.ok) {
    k = fast.k;
    q = fast.q;
    remZero = fast.exact && fast.frac == 0.0;
  } else {
    const r: Ratio = new Ratio();
    setRatio(r, m, e2, k + 1);
    if (bnCmp(r.num, r.den) >= 0) k = k + 1;
    setRatio(r, m, e2, k - 8);
    q = bnDivQuot(r.num, r.den, 30);
    remZero = r.num.length == 0;
    exact = r;
  }
  for (let p: i32 = 1; p <= 9; p++) {
    const t: i32 = pow10i(9 - p);
    const fl: i32 = idiv(q, t);
    const rp: i32 = q - fl * t;
    const e: i32 = k + 1 - p; // candidates are fl * 10^e and (fl + 1) * 10^e
    if (rp == 0 && remZero) return sign + layoutValue(fl, e);
    const ce: i32 = fl + 1;
    const okF: bool = roundsTo(fl, e, ax, lo, hi);
    const okC: bool = roundsTo(ce, e, ax, lo, hi);
    if (okF && okC) {
      // compare the distance: 2 * (rp + rem/den) against t
      let c: i32 = 0;
      if (p < 9) {
        const twice: i32 = rp * 2;
        if (twice < t) c = -1;
        else if (twice > t) c = 1;
        else c = remZero ? 0 : 1;
      } else if (fast.ok && fast.exact) {
        c = fast.frac < 0.5 ? -1 : fast.frac > 0.5 ? 1 : 0;
      } else if (fast.ok && (fast.frac < 0.5 - FRACTION_SLACK || fast.frac > 0.5 + FRACTION_SLACK)) {
        c = fast.frac < 0.5 ? -1 : 1;
      } else {
        if (exact === null) {
          const r: Ratio = new Ratio();
          setRatio(r, m, e2, k - 8);
          bnDivQuot(r.num, r.den, 30);
          exact = r;
        }
        const x = changetype<Ratio>(exact);
        c = bnCmp(bnShl(x.num, 1), x.den);
      }
      if (c < 0) return sign + layoutValue(fl, e);
      if (c > 0) return sign + layoutValue(ce, e);
      return sign + layoutValue((fl & 1) == 0 ? fl : ce, e);
    }
    if (okF) return sign + layoutValue(fl, e);
    if (okC) return sign + layoutValue(ce, e);
  }
  // Not reached: nine digits always round-trip for f32.
  return sign + layoutValue(q, k - 8);
}

// ---------------------------------------------------------------------------------------------
// f64 -> fixed point

/**
 * x with exactly `decimals` fraction digits (clamped to 0..20), rounded half away from zero on
 * the exact binary value of x; exact for every finite f64. A result that rounds to zero has no
 * sign ("0", "0.000"). NaN gives "NaN", infinities "Infinity" / "-Infinity".
 */
/**
 * Fast path of formatF64Fixed for small magnitudes: when |x|*10^dec < 2^31, the f64 product is
 * within 2^-21 of the exact one, so unless its fraction is within 2^-18 of one half the rounding
 * is decided, and the digits come from an i32. Returns "" to defer to the exact path. Only
 * IEEE multiply, floor and subtract: identical in both builds.
 */
function fixedFast(ax: f64, dec: i32, neg: bool): string {
  if (dec > 9) return "";
  let p: f64 = 1.0;
  for (let i: i32 = 0; i < dec; i++) p = p * 10.0;
  const scaled: f64 = ax * p;
  if (!(scaled < 2147483647.0)) return "";
  const whole: f64 = Math.floor(scaled);
  const frac: f64 = scaled - whole;
  const margin: f64 = 0.000003814697265625; // 2^-18
  if (frac > 0.5 - margin && frac < 0.5 + margin) return "";
  let n: i32 = <i32>whole;
  if (frac > 0.5) n = n + 1;
  let digits: string = n.toString();
  while (digits.length < dec + 1) digits = "0" + digits;
  const cut: i32 = digits.length - dec;
  const body: string = dec == 0 ? digits : digits.substring(0, cut) + "." + digits.substring(cut);
  return neg && n != 0 ? "-" + body : body;
}

export function formatF64Fixed(x: f64, decimals: i32): string {
  if (x != x) return "NaN";
  const hi: i32 = f64High(x);
  const lo: i32 = f64Low(x);
  const neg: bool = hi < 0;
  const expBits: i32 = (hi >> 20) & 0x7ff;
  if (expBits == 0x7ff) return neg ? "-Infinity" : "Infinity";
  let dec: i32 = decimals;
  if (dec < 0) dec = 0;
  if (dec > 20) dec = 20;
  const quick = fixedFast(neg ? -x : x, dec, neg);
  if (quick.length > 0) return quick;
  let mhi: i32 = hi & 0xfffff;
  let e: i32 = -1074;
  if (expBits != 0) {
    mhi = mhi | 0x100000;
    e = expBits - 1075;
  }
  let num: Array<i32> = new Array<i32>();
  num.push(lo & 0xffff);
  num.push((lo >>> 16) & 0xffff);
  num.push(mhi & 0xffff);
  num.push(mhi >> 16);
  bnNormalize(num);
  // x * 10^dec = m * 5^dec * 2^(e + dec)
  bnMulPow5(num, dec);
  e = e + dec;
  if (e >= 0) {
    num = bnShl(num, e);
  } else {
    const sh: i32 = -e;
    if (bnBitLen(num) < sh) {
      num = new Array<i32>(); // below one half
    } else {
      bnAddPow2(num, sh - 1);
      num = bnShr(num, sh);
    }
  }
  const isZero: bool = num.length == 0;
  let digits: string = bnToDecimal(num);
  if (dec > 0) {
    if (digits.length < dec + 1) digits = zeros(dec + 1 - digits.length) + digits;
    const cut: i32 = digits.length - dec;
    digits = digits.substring(0, cut) + "." + digits.substring(cut);
  }
  return neg && !isZero ? "-" + digits : digits;
}

// ---------------------------------------------------------------------------------------------
// f32 -> hex

/**
 * A C/MSL hexadecimal float literal with suffix 'f' that denotes x (an f32 value) exactly:
 * "0x1p+0f", "0x1.99999ap-4f", "-0x1.4p+1f"; subnormals are written normalized
 * ("0x1p-149f"); zeros are "0x0p+0f" / "-0x0p+0f". Non-finite values give the MSL macros
 * "INFINITY", "-INFINITY", "NAN".
 */
export function formatHexF32(x: f64): string {
  const bits: i32 = f32Bits(x);
  const neg: bool = bits < 0;
  const sign: string = neg ? "-" : "";
  const expBits: i32 = (bits >> 23) & 0xff;
  let mant: i32 = bits & 0x7fffff;
  if (expBits == 255) {
    if (mant != 0) return "NAN";
    return sign + "INFINITY";
  }
  if (expBits == 0 && mant == 0) return sign + "0x0p+0f";
  let e: i32 = expBits - 127;
  if (expBits == 0) {
    // subnormal: mant * 2^-149; normalize so that bit 23 is the leading one
    const lead: i32 = bitLen32(mant) - 1;
    e = lead - 149;
    mant = (mant << (23 - lead)) & 0x7fffff;
  }
  // 23 fraction bits -> 24 bits -> 6 hex digits, trailing zeros dropped
  let frac: i32 = mant << 1;
  let nhex: i32 = 6;
  while (nhex > 0 && (frac & 15) == 0) {
    frac = frac >> 4;
    nhex = nhex - 1;
  }
  let s: string = sign + "0x1";
  if (nhex > 0) s = s + "." + hexDigits(frac, nhex, false);
  s = s + "p" + (e < 0 ? "-" + uintText(-e) : "+" + uintText(e)) + "f";
  return s;
}

/** The f32 bit pattern of x as "0x" and 8 lowercase hex digits, e.g. "0x3dcccccd". */
export function formatF32Bits(x: f64): string {
  return "0x" + hexDigits(f32Bits(x), 8, false);
}

// ---------------------------------------------------------------------------------------------
// i32

/**
 * Whether text is a JSON integer token ('-'?, then "0" or a digit 1-9 followed by digits) whose
 * value fits in i32. "-0" is accepted (value 0).
 */
export function isI32Text(text: string): bool {
  const n: i32 = text.length;
  let i: i32 = 0;
  let neg: bool = false;
  if (i < n && text.charCodeAt(i) == 45) {
    neg = true;
    i = i + 1;
  }
  if (i >= n) return false;
  const first: i32 = text.charCodeAt(i);
  if (first < 48 || first > 57) return false;
  if (first == 48 && i + 1 < n) return false; // leading zero
  if (n - i > 10) return false;
  let v: f64 = 0.0;
  while (i < n) {
    const c: i32 = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
    v = v * 10.0 + <f64>(c - 48);
    i = i + 1;
  }
  return neg ? v <= 2147483648.0 : v <= 2147483647.0;
}

/** The value of an integer token accepted by isI32Text; 0 for any other text. */
export function parseI32(text: string): i32 {
  if (!isI32Text(text)) return 0;
  let i: i32 = 0;
  let neg: bool = false;
  if (text.charCodeAt(0) == 45) {
    neg = true;
    i = 1;
  }
  let v: f64 = 0.0;
  while (i < text.length) {
    v = v * 10.0 + <f64>(text.charCodeAt(i) - 48);
    i = i + 1;
  }
  return i32(neg ? -v : v);
}

/** Decimal text of v ("-2147483648" included). */
export function formatI32(v: i32): string {
  if (v >= 0 && v < SMALL_INT_COUNT) return SMALL_INTS[v];
  // work with the non-positive value so that -2^31 needs no special case
  let x: i32 = v > 0 ? -v : v;
  let s: string = "";
  while (x != 0) {
    const q: i32 = idiv(x, 10);
    s = digitChar(q * 10 - x) + s;
    x = q;
  }
  return v < 0 ? "-" + s : s;
}

/** The greatest common divisor of two non-negative integers held in f64 (0 with 0 gives 0). */
export function gcdF64(a: f64, b: f64): f64 {
  let x = a;
  let y = b;
  while (y != 0.0) {
    const t = x % y;
    x = y;
    y = t;
  }
  return x;
}
