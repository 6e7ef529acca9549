import { describe, expect, it, vi } from "vitest";

// The core's WebAssembly glue uses AssemblyScript builtins; under vitest use the JS glue, as the
// JS build does.
vi.mock("../core/glue/wasm", async () => await import("../core/glue/js"));

import {
  formatF32,
  formatF32Bits,
  formatF64Fixed,
  formatHexF32,
  formatI32,
  isI32Text,
  parseDecimalToF32,
  parseI32,
} from "../core/util/num";

// ---------------------------------------------------------------------------------------------
// Deterministic random numbers

let state = 0x9e3779b9 | 0;
function seed(s: number): void {
  state = s | 0 || 1;
}
function rnd32(): number {
  let x = state;
  x ^= x << 13;
  x ^= x >>> 17;
  x ^= x << 5;
  state = x | 0;
  return state >>> 0;
}
function rndInt(lo: number, hi: number): number {
  return lo + (rnd32() % (hi - lo + 1));
}
function rndDigits(n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += String(rndInt(0, 9));
  return s;
}

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);
function f32FromBitsJS(b: number): number {
  U32[0] = b >>> 0;
  return F32[0];
}
function bitsOfF32(x: number): number {
  F32[0] = x;
  return U32[0];
}

// ---------------------------------------------------------------------------------------------
// Exact oracles written with BigInt, independently of the module under test

function bitLength(v: bigint): number {
  return v === 0n ? 0 : v.toString(2).length;
}

/** Correctly rounded (half to even) f32 of a decimal string, exactly, via BigInt. */
function oracleF32(s: string): number {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (m === null) throw new Error("bad decimal " + s);
  const neg = m[1] === "-";
  const frac = m[3] === undefined ? "" : m[3];
  const digits = m[2] + frac;
  const exp = (m[4] === undefined ? 0 : parseInt(m[4], 10)) - frac.length;
  const d = BigInt(digits);
  if (d === 0n) return neg ? -0 : 0;
  let num = d;
  let den = 1n;
  if (exp >= 0) num *= 10n ** BigInt(exp);
  else den = 10n ** BigInt(-exp);
  // value = num/den; find e with 2^23 <= value / 2^e < 2^24
  let e = bitLength(num) - bitLength(den) - 24;
  const quot = (ee: number): bigint =>
    ee >= 0 ? num / (den << BigInt(ee)) : (num << BigInt(-ee)) / den;
  while (quot(e) >= 1n << 24n) e++;
  while (quot(e) < 1n << 23n) e--;
  if (e < -149) e = -149;
  let n2 = num;
  let d2 = den;
  if (e >= 0) d2 = den << BigInt(e);
  else n2 = num << BigInt(-e);
  let q = n2 / d2;
  const r = n2 - q * d2;
  const c = 2n * r - d2;
  if (c > 0n || (c === 0n && (q & 1n) === 1n)) q += 1n;
  let v = Number(q) * 2 ** e;
  if (v >= 2 ** 128) v = Infinity;
  return neg ? -v : v;
}

/** Exact decimal text (as digits + "e" + exponent) of the f32 midpoint above positive x. */
function midpointAbove(bits: number): { digits: bigint; exp: number } {
  const expBits = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  const m = expBits === 0 ? mant : mant | 0x800000;
  const e2 = expBits === 0 ? -149 : expBits - 150;
  const mid = 2n * BigInt(m) + 1n; // times 2^(e2-1)
  const k = e2 - 1;
  if (k >= 0) return { digits: mid << BigInt(k), exp: 0 };
  return { digits: mid * 5n ** BigInt(-k), exp: k };
}

/** Exact fixed-point rounding (half away from zero) of an f64, via BigInt; no negative zero. */
function oracleFixed(x: number, decimals: number): string {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const bits = buf.getBigUint64(0);
  const neg = bits >> 63n === 1n;
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let m = bits & ((1n << 52n) - 1n);
  let e = -1074;
  if (expBits !== 0) {
    m |= 1n << 52n;
    e = expBits - 1075;
  }
  let num = m * 10n ** BigInt(decimals);
  let q: bigint;
  if (e >= 0) q = num << BigInt(e);
  else {
    const den = 1n << BigInt(-e);
    q = num / den;
    const r = num - q * den;
    if (2n * r >= den) q += 1n;
  }
  let s = q.toString();
  if (decimals > 0) {
    s = s.padStart(decimals + 1, "0");
    s = s.slice(0, s.length - decimals) + "." + s.slice(s.length - decimals);
  }
  return neg && q !== 0n ? "-" + s : s;
}

function parseHexLiteral(s: string): number {
  const m = /^(-?)0x([01])(?:\.([0-9a-f]+))?p([+-]\d+)f$/.exec(s);
  if (m === null) throw new Error("bad hex " + s);
  const frac = m[3] === undefined ? "" : m[3];
  const mant = parseInt(m[2] + frac, 16);
  const v = mant * 2 ** (parseInt(m[4], 10) - 4 * frac.length);
  return m[1] === "-" ? -v : v;
}

function significantDigits(s: string): number {
  const mant = s.replace(/^-/, "").replace(/e.*$/, "").replace(".", "");
  return mant.replace(/^0+/, "").replace(/0+$/, "").length;
}

function randomFiniteF32(): number {
  while (true) {
    const b = rnd32();
    if (((b >>> 23) & 0xff) !== 0xff) return f32FromBitsJS(b);
  }
}

// ---------------------------------------------------------------------------------------------

describe("parseDecimalToF32", () => {
  it("handles edge cases", () => {
    const cases: [string, number][] = [
      ["0", 0],
      ["-0", -0],
      ["0e5", 0],
      ["-0.000e-9", -0],
      ["1", 1],
      ["0.1", Math.fround(0.1)],
      ["3.4028234663852886e38", 3.4028234663852886e38],
      ["3.4028235e38", 3.4028234663852886e38],
      ["340282356779733661637539395458142568448", Infinity], // midpoint above max: odd -> up -> overflow
      ["340282356779733661637539395458142568447.9", 3.4028234663852886e38],
      ["3.4028235677973366e38", 3.4028234663852886e38], // just below that midpoint
      ["-3.5e38", -Infinity],
      ["1e39", Infinity],
      ["1e400", Infinity],
      ["1.4e-45", 2 ** -149],
      ["1.401298464324817e-45", 2 ** -149],
      ["7e-46", 0], // below the halfway point 2^-150 ~ 7.006e-46
      ["7.1e-46", 2 ** -149],
      ["-7.1e-46", -(2 ** -149)],
      ["1e-400", 0],
      ["-1e-400", -0],
      ["16777217", 16777216], // tie -> even
      ["16777219", 16777220], // tie -> even
      ["16777217.000000000000000000000000000000000001", 16777218],
      ["1.17549435e-38", 2 ** -126],
    ];
    for (const [s, want] of cases) {
      const got = parseDecimalToF32(s);
      expect(Object.is(got, want), s + " -> " + got + " want " + want).toBe(true);
      expect(Object.is(oracleF32(s), want), "oracle " + s).toBe(true);
    }
    // exactly half the smallest subnormal: ties to even (zero)
    const halfMin = midpointAbove(0);
    expect(Object.is(parseDecimalToF32(halfMin.digits + "e" + halfMin.exp), 0)).toBe(true);
    expect(parseDecimalToF32(halfMin.digits + "1e" + (halfMin.exp - 1))).toBe(2 ** -149);
    // malformed
    for (const s of ["", "-", ".5", "1.", "1e", "1e+", "abc", "1x", "+1", "1.5.2"]) {
      expect(Number.isNaN(parseDecimalToF32(s)), JSON.stringify(s)).toBe(true);
    }
  });

  it("handles long inputs", () => {
    const big = "1" + "0".repeat(38);
    expect(parseDecimalToF32(big)).toBe(oracleF32(big));
    const longOne = "1." + "0".repeat(1200) + "1";
    expect(parseDecimalToF32(longOne)).toBe(1);
    // 16777217 followed by many zeros and a final 1: just above the tie -> up
    const aboveTie = "16777217." + "0".repeat(1500) + "1";
    expect(parseDecimalToF32(aboveTie)).toBe(16777218);
    const exactTie = "16777217." + "0".repeat(1500);
    expect(parseDecimalToF32(exactTie)).toBe(16777216);
    const tiny = "0." + "0".repeat(44) + "7006492321624085354618647916449580656401309709382578858785341419448955413429303";
    expect(Object.is(parseDecimalToF32(tiny), oracleF32(tiny))).toBe(true);
    seed(7);
    for (let i = 0; i < 200; i++) {
      const s = rndDigits(rndInt(100, 1000)) + "e" + rndInt(-1100, -900);
      expect(Object.is(parseDecimalToF32(s), oracleF32(s)), s).toBe(true);
      const t = "0." + rndDigits(rndInt(700, 900)) + "e" + rndInt(-40, 40);
      expect(Object.is(parseDecimalToF32(t), oracleF32(t)), t).toBe(true);
    }
  });

  it("matches the exact oracle on 20,000 random decimals", () => {
    seed(12345);
    for (let i = 0; i < 20000; i++) {
      const nd = rndInt(1, 30);
      let digits = rndDigits(nd);
      if (rnd32() % 3 === 0) {
        const p = rndInt(0, nd);
        digits = (digits.slice(0, p) || "0") + "." + (digits.slice(p) || "0");
      }
      const neg = rnd32() % 4 === 0 ? "-" : "";
      const exp = rndInt(-50, 40);
      const form = rnd32() % 3;
      const s = neg + digits + (form === 0 ? "" : (form === 1 ? "e" : "E") + exp);
      const got = parseDecimalToF32(s);
      const want = oracleF32(s);
      if (!Object.is(got, want)) expect(s + " -> " + got).toBe(s + " -> " + want);
    }
  });

  it("rounds midpoints and their neighbours correctly (10,000 f32 values)", () => {
    seed(999);
    for (let i = 0; i < 10000; i++) {
      let bits = rnd32() & 0x7fffffff;
      if (i < 50) bits = i; // smallest subnormals
      if (i >= 50 && i < 60) bits = 0x7f7fffff - (i - 50);
      if (((bits >>> 23) & 0xff) === 0xff) continue;
      const { digits, exp } = midpointAbove(bits);
      const mid = digits + "e" + exp;
      const above = digits + "00001e" + (exp - 5);
      const below = (digits * 100000n - 1n).toString() + "e" + (exp - 5);
      for (const s of [mid, above, below, "-" + mid]) {
        const got = parseDecimalToF32(s);
        const want = oracleF32(s);
        if (!Object.is(got, want)) expect(s + " -> " + got).toBe(s + " -> " + want);
      }
      const lo = f32FromBitsJS(bits);
      const hi = f32FromBitsJS(bits + 1);
      expect(parseDecimalToF32(below)).toBe(lo);
      expect(parseDecimalToF32(above)).toBe(hi);
      expect(parseDecimalToF32(mid)).toBe((bits & 1) === 0 ? lo : hi);
    }
  });
});

describe("formatF32", () => {
  it("formats examples like Number#toString", () => {
    const cases: [number, string][] = [
      [0, "0"],
      [-0, "-0"],
      [Math.fround(0.1), "0.1"],
      [1, "1"],
      [-1, "-1"],
      [1.5, "1.5"],
      [Math.fround(1e-7), "1e-7"],
      [Math.fround(1.5e-7), "1.5e-7"],
      [Math.fround(1e-6), "0.000001"],
      [3.4028234663852886e38, "3.4028235e+38"],
      [16777216, "16777216"],
      [Math.fround(1e21), "1e+21"],
      [Math.fround(1e20), "100000000000000000000"],
      [2 ** -149, "1e-45"],
      [2 ** -126, "1.1754944e-38"],
      [Math.fround(123.456), "123.456"],
      [Math.fround(0.3), "0.3"],
      [Math.fround(2 / 3), "0.6666667"],
      [NaN, "NaN"],
      [Infinity, "Infinity"],
      [-Infinity, "-Infinity"],
    ];
    for (const [x, want] of cases) expect(formatF32(x), String(x)).toBe(want);
  });

  it("integers below 2^24 (a fast path) print as Number#toString prints them, beside the search's integers above", () => {
    const ints = [1, 2, 3, 7, 9, 10, 11, 99, 100, 101, 999, 1000, 1023, 1024, 1025, 1537, 10000, 65536, 99999, 100000, 1000000,
      8388607, 8388608, 8388609, 10000000, 16777215, 16777216, 16777218, 20000000, 33554432];
    seed(77);
    for (let i = 0; i < 2000; i++) ints.push(rndInt(1, 2 ** 24 - 1));
    for (let i = 0; i < 200; i++) ints.push(rndInt(1, 999) * 10 ** rndInt(0, 4));
    for (const n of ints) {
      const x = Math.fround(n);
      expect(formatF32(x), String(n)).toBe(String(x));
      expect(formatF32(-x), String(-n)).toBe(String(-x));
    }
  });

  it("round-trips 20,000 random f32 values with the shortest digits", () => {
    seed(4242);
    for (let i = 0; i < 20000; i++) {
      const x = i < 100 ? f32FromBitsJS(i) : randomFiniteF32();
      const s = formatF32(x);
      if (!Object.is(parseDecimalToF32(s), x)) expect(s).toBe("round trip of " + x);
      if (!Object.is(oracleF32(s), x)) expect(s).toBe("oracle round trip of " + x);
      if (x === 0) continue;
      // JSON number text, laid out as Number#toString lays out these digits
      expect(/^-?(0|[1-9]\d*)(\.\d+)?(e[+-]\d+)?$/.test(s), s).toBe(true);
      if (String(Number(s)) !== s) expect(s).toBe(String(Number(s)));
      // minimal length: the first precision p at which toPrecision round-trips is an upper bound
      let p = 1;
      while (p < 9 && !Object.is(oracleF32(x.toPrecision(p)), x)) p++;
      const nd = significantDigits(s);
      if (nd > p) expect(s + " has " + nd + " digits").toBe("at most " + p + " (" + x.toPrecision(p) + ")");
    }
  });
});

/** formatF32's documented choice, from BigInt alone: the fewest significant digits p whose
 *  decimals next to x (below and above, exactly) include one that oracleF32 maps back to x; of
 *  two, the closer to x, on an exact tie the even one; laid out as Number#toString lays it out. */
function shortestF32Oracle(x: number): string {
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const neg = x < 0;
  const bits = bitsOfF32(Math.abs(x));
  const expBits = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  const m = BigInt(expBits === 0 ? mant : mant | 0x800000);
  const e2 = expBits === 0 ? -149 : expBits - 150;
  // x = num / den exactly
  const num = e2 >= 0 ? m << BigInt(e2) : m;
  const den = e2 >= 0 ? 1n : 1n << BigInt(-e2);
  // k with 10^k <= x < 10^(k+1)
  let k = Math.floor(Math.log10(Math.abs(x)));
  const geq = (kk: number): boolean => (kk >= 0 ? num >= den * 10n ** BigInt(kk) : num * 10n ** BigInt(-kk) >= den);
  while (!geq(k)) k--;
  while (geq(k + 1)) k++;
  for (let p = 1; p <= 9; p++) {
    const e = k + 1 - p;
    // fl = floor(x / 10^e), remainder rn / rd
    const sn = e >= 0 ? num : num * 10n ** BigInt(-e);
    const sd = e >= 0 ? den * 10n ** BigInt(e) : den;
    const fl = sn / sd;
    const rem = sn - fl * sd;
    const text = (d: bigint): string => String(Number(d.toString() + "e" + e));
    if (rem === 0n) return (neg ? "-" : "") + text(fl);
    const okF = fl > 0n && Object.is(oracleF32(fl.toString() + "e" + e), Math.abs(x));
    const okC = Object.is(oracleF32((fl + 1n).toString() + "e" + e), Math.abs(x));
    let pick: bigint | null = null;
    if (okF && okC) {
      const c = 2n * rem - sd; // distance to fl against the distance to fl + 1
      pick = c < 0n ? fl : c > 0n ? fl + 1n : fl % 2n === 0n ? fl : fl + 1n;
    } else if (okF) pick = fl;
    else if (okC) pick = fl + 1n;
    if (pick !== null) return (neg ? "-" : "") + text(pick);
  }
  throw new Error("no nine-digit text maps back to " + x);
}

describe("formatF32 against a BigInt oracle", () => {
  it("gives the oracle's text for random values, values next to powers of ten and two, every exponent's edges and short decimals", () => {
    seed(20261204);
    const values: number[] = [];
    for (let i = 0; i < 12000; i++) values.push(randomFiniteF32());
    for (let k = -45; k <= 38; k++) {
      const b = bitsOfF32(Math.fround(Number("1e" + k)));
      for (let d = -6; d <= 6; d++) values.push(f32FromBitsJS(b + d));
      for (const mant of [5, 15, 25, 125, 3, 7, 99, 12345, 1000001]) values.push(Math.fround(mant * Number("1e" + k)));
    }
    for (let e = 0; e < 255; e++) for (const mt of [0, 1, 2, 3, 0x7fffff, 0x7ffffe, 0x400000, 0x3fffff]) values.push(f32FromBitsJS((e << 23) | mt));
    const wrong: string[] = [];
    for (const x of values) {
      if (!Number.isFinite(x)) continue;
      const want = shortestF32Oracle(x);
      const got = formatF32(x);
      if (got !== want && wrong.length < 10) wrong.push(`${x} (0x${bitsOfF32(x).toString(16)}): ${got}, want ${want}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe("formatF64Fixed", () => {
  it("formats examples", () => {
    expect(formatF64Fixed(1.0, 3)).toBe("1.000");
    expect(formatF64Fixed(2.0005, 3)).toBe("2.001"); // 2.0005 is 2.00050000000000016698...
    expect(formatF64Fixed(1.0005, 3)).toBe("1.000"); // 1.0005 is 1.00049999999999994493...
    expect(formatF64Fixed(2.5, 0)).toBe("3");
    expect(formatF64Fixed(-2.5, 0)).toBe("-3");
    expect(formatF64Fixed(1.125, 2)).toBe("1.13");
    expect(formatF64Fixed(-0.4, 0)).toBe("0");
    expect(formatF64Fixed(-0.0004, 3)).toBe("0.000");
    expect(formatF64Fixed(-0, 2)).toBe("0.00");
    expect(formatF64Fixed(0.5, 0)).toBe("1");
    expect(formatF64Fixed(123456789.123456789, 9)).toBe("123456789.123456791");
    expect(formatF64Fixed(2 ** 53, 2)).toBe("9007199254740992.00");
    expect(formatF64Fixed(1e300, 0)).toBe(oracleFixed(1e300, 0));
    expect(formatF64Fixed(5e-324, 9)).toBe("0.000000000");
    expect(formatF64Fixed(NaN, 2)).toBe("NaN");
    expect(formatF64Fixed(-Infinity, 2)).toBe("-Infinity");
  });

  it("matches toFixed and the exact oracle on random values", () => {
    seed(31337);
    const buf = new DataView(new ArrayBuffer(8));
    for (let i = 0; i < 20000; i++) {
      const d = rndInt(0, 9);
      let x: number;
      const kind = i % 4;
      if (kind === 0) x = (rnd32() - 2147483648) / 10 ** rndInt(0, 9);
      else if (kind === 1) x = (rndInt(-100000, 100000) + 0.5) / 10 ** d; // near ties
      else if (kind === 2) x = (rnd32() * 2097152 + (rnd32() % 2097152)) * 2 ** rndInt(-80, 0);
      else {
        buf.setUint32(0, rnd32());
        buf.setUint32(4, rnd32());
        x = buf.getFloat64(0);
        if (!Number.isFinite(x)) continue;
      }
      if (rnd32() % 2 === 0) x = -x;
      const got = formatF64Fixed(x, d);
      const want = oracleFixed(x, d);
      if (got !== want) expect(x + "," + d + " -> " + got).toBe(want);
      if (Math.abs(x) < 1e21) {
        const t = x.toFixed(d).replace(/^-(0(\.0*)?)$/, "$1");
        if (got !== t) expect(x + "," + d + " -> " + got).toBe("toFixed " + t);
      }
    }
  });
});

describe("formatHexF32 / formatF32Bits", () => {
  it("formats examples", () => {
    expect(formatHexF32(1.0)).toBe("0x1p+0f");
    expect(formatHexF32(Math.fround(0.1))).toBe("0x1.99999ap-4f");
    expect(formatHexF32(-2.5)).toBe("-0x1.4p+1f");
    expect(formatHexF32(0)).toBe("0x0p+0f");
    expect(formatHexF32(-0)).toBe("-0x0p+0f");
    expect(formatHexF32(2 ** -149)).toBe("0x1p-149f");
    expect(formatHexF32(3.4028234663852886e38)).toBe("0x1.fffffep+127f");
    expect(formatHexF32(Infinity)).toBe("INFINITY");
    expect(formatHexF32(-Infinity)).toBe("-INFINITY");
    expect(formatHexF32(NaN)).toBe("NAN");
    expect(formatF32Bits(Math.fround(0.1))).toBe("0x3dcccccd");
    expect(formatF32Bits(-0)).toBe("0x80000000");
    expect(formatF32Bits(1)).toBe("0x3f800000");
    expect(formatF32Bits(-1)).toBe("0xbf800000");
  });

  it("round-trips random f32 values", () => {
    seed(555);
    for (let i = 0; i < 20000; i++) {
      const x = i < 300 ? f32FromBitsJS(i * 7919) : randomFiniteF32();
      const h = formatHexF32(x);
      if (!Object.is(parseHexLiteral(h), x)) expect(h).toBe("hex of " + x);
      const b = formatF32Bits(x);
      expect(b).toBe("0x" + bitsOfF32(x).toString(16).padStart(8, "0"));
    }
  });
});

describe("i32 text", () => {
  it("parses and formats", () => {
    expect(isI32Text("0")).toBe(true);
    expect(isI32Text("-0")).toBe(true);
    expect(isI32Text("-12")).toBe(true);
    expect(isI32Text("2147483647")).toBe(true);
    expect(isI32Text("-2147483648")).toBe(true);
    expect(isI32Text("2147483648")).toBe(false);
    expect(isI32Text("-2147483649")).toBe(false);
    expect(isI32Text("99999999999")).toBe(false);
    expect(isI32Text("012")).toBe(false);
    expect(isI32Text("")).toBe(false);
    expect(isI32Text("-")).toBe(false);
    expect(isI32Text("1.0")).toBe(false);
    expect(isI32Text("1e3")).toBe(false);
    expect(isI32Text(" 1")).toBe(false);
    expect(parseI32("-12")).toBe(-12);
    expect(parseI32("2147483647")).toBe(2147483647);
    expect(parseI32("-2147483648")).toBe(-2147483648);
    expect(parseI32("x")).toBe(0);
    expect(formatI32(-2147483648)).toBe("-2147483648");
    expect(formatI32(2147483647)).toBe("2147483647");
    expect(formatI32(0)).toBe("0");
    expect(formatI32(-7)).toBe("-7");
    // the texts made once for small integers, and both sides of that table's end
    for (let v = -1100; v <= 1100; v++) expect(formatI32(v)).toBe(String(v));
    seed(77);
    for (let i = 0; i < 5000; i++) {
      const v = rnd32() | 0;
      const s = formatI32(v);
      expect(s).toBe(String(v));
      expect(isI32Text(s)).toBe(true);
      expect(parseI32(s)).toBe(v);
    }
  });
});
