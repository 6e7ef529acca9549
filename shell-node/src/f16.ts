// The 16-bit float formats of Tile buffers, for the shell (oracle, inputs, validation, dumps):
// f16 = IEEE binary16 (1 sign, 5 exponent, 10 fraction bits), bf16 = the top 16 bits of a binary32
// (1, 8, 7). Decoding is exact; encoding rounds a double to the nearest value, ties to even, with
// overflow to infinity, computed arithmetically (scaling by powers of two is exact in a double).

/** The smallest magnitudes that round to infinity: the largest finite value plus half its gap. */
export const F16_OVERFLOW = 65520;
export const BF16_OVERFLOW = (2 - 2 ** -8) * 2 ** 127;

/** `x` rounded to the nearest f16 value (as a double). */
export function roundF16(x: number): number {
  return roundNarrow(x, -14, 10, F16_OVERFLOW);
}

/** `x` rounded to the nearest bf16 value (as a double). */
export function roundBf16(x: number): number {
  return roundNarrow(x, -126, 7, BF16_OVERFLOW);
}

// The exponent of a double from its bits (little- or big-endian host), and the powers of two a
// rounding quantum takes (2^-133 .. 2^127), made exactly by halving and doubling: no Math.log2 and
// no Math.pow per value, which were most of the time of a 16-bit oracle or input draw.
const d64 = new Float64Array(1);
const d64Words = new Uint32Array(d64.buffer);
const HIGH_WORD = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const POW2_MIN = -140;
const POW2 = new Float64Array(128 - POW2_MIN + 1);
POW2[-POW2_MIN] = 1;
for (let k = 1; k <= 128; k++) POW2[k - POW2_MIN] = POW2[k - 1 - POW2_MIN] * 2;
for (let k = -1; k >= POW2_MIN; k--) POW2[k - POW2_MIN] = POW2[k + 1 - POW2_MIN] / 2;

/** Rounds to a binary format with minimum normal exponent `emin` and `p` fraction bits. */
function roundNarrow(x: number, emin: number, p: number, overflow: number): number {
  if (Number.isNaN(x) || x === 0 || !Number.isFinite(x)) return x;
  const a = Math.abs(x);
  if (a >= overflow) return x > 0 ? Infinity : -Infinity;
  // e with 2^e <= a < 2^(e+1): the biased exponent field; a subnormal double (field 0) is far
  // below either format's emin, which then decides the quantum
  d64[0] = a;
  const e = ((d64Words[HIGH_WORD] >>> 20) & 0x7ff) - 1023;
  const quantum = POW2[Math.max(e, emin) - p - POW2_MIN];
  const y = a / quantum;
  const n = Math.floor(y);
  const d = y - n;
  const r = (d > 0.5 || (d === 0.5 && n % 2 === 1) ? n + 1 : n) * quantum;
  return x < 0 ? -r : r === 0 && Object.is(x, -0) ? -0 : r;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The value of f16 bits `h`. */
export function f16ToNumber(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 31) return m ? NaN : s * Infinity;
  if (e === 0) return s * m * 2 ** -24;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** The f16 bits of `x` (rounded to nearest even; NaN -> 0x7e00 with the sign). */
export function numberToF16(x: number): number {
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  if (Number.isNaN(x)) return 0x7e00;
  const r = Math.abs(roundF16(x));
  if (r === Infinity) return sign | 0x7c00;
  if (r === 0) return sign;
  if (r < 2 ** -14) return sign | (r / 2 ** -24);
  d64[0] = r; // a normal f16 value: its exponent ee is the double's
  const ee = ((d64Words[HIGH_WORD] >>> 20) & 0x7ff) - 1023;
  return sign | ((ee + 15) << 10) | ((r / POW2[ee - POW2_MIN] - 1) * 1024);
}

/** The value of bf16 bits `b`. */
export function bf16ToNumber(b: number): number {
  u32[0] = (b & 0xffff) << 16;
  return f32[0];
}

/** The bf16 bits of `x` (rounded to nearest even; NaN -> 0x7fc0 with the sign). */
export function numberToBf16(x: number): number {
  if (Number.isNaN(x)) return 0x7fc0;
  f32[0] = roundBf16(x); // exact: a bf16 value is an f32 value
  return u32[0] >>> 16;
}
