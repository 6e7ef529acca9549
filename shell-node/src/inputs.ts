// Deterministic inputs for a Tile IR document: what the oracle and every validation run use.
//
// Generator: mulberry32 (Tommy Ettinger's 32-bit generator; state += 0x6D2B79F5, then two
// xorshift-multiply rounds). Each param gets its own stream, seeded with
// (seed ^ imul(index + 1, 0x9E3779B9)) >>> 0 where index is its position in `params`, so
// resizing one buffer never changes the values of another. Elements are drawn row-major.
//   - f32 params: k = next() >>> 8 (24 bits), value = lo + (hi - lo) * k * 2^-24 rounded to f32:
//     uniform on [lo, hi), by default [-2, 2) (-2 + k * 2^-22, every value exact in f32);
//     `--input-range LO,HI` changes lo and hi.
//   - i32 params: uniform integers in [0, bound), where bound is the smallest extent of every
//     buffer dimension whose index expression (in a load or a store) contains a load of this
//     buffer, directly, nested, or through the value of a `let` or `reduce` name it uses; a buffer
//     never used inside an index but compared with a loop or reduction variable (a length, a
//     mask: `c < L[r]`), uniform on [0, extent] of that variable's loop (the largest such extent
//     of a size or a literal), so that every length from none to all is drawn; 8 otherwise.

import { UsageError, ownRecord, setOwn } from "./io";

import { BF16_OVERFLOW, F16_OVERFLOW, roundBf16, roundF16 } from "./f16";

export type InputBuffer = Float64Array | Int32Array;

/** The sizes of a document, name to value. */
export function sizesOf(doc: any): Record<string, number> {
  const out: Record<string, number> = ownRecord();
  const sizes = doc && typeof doc.sizes === "object" && doc.sizes !== null ? doc.sizes : {};
  for (const name of Object.keys(sizes)) setOwn(out, name, sizes[name]);
  return out;
}

/** The shape of param `name` with sizes substituted. Throws for an unknown param or size. */
export function shapeOf(doc: any, name: string): number[] {
  const sizes = sizesOf(doc);
  const params: any[] = Array.isArray(doc.params) ? doc.params : [];
  const p = params.find((q) => q && q.name === name);
  if (p === undefined) throw new Error("unknown param " + name);
  return p.shape.map((d: unknown) => {
    if (typeof d === "number") return d;
    if (typeof d === "string" && Object.prototype.hasOwnProperty.call(sizes, d)) return sizes[d];
    throw new Error("param " + name + ": unknown size " + String(d));
  });
}

/** mulberry32: returns the next 32-bit output as an unsigned integer. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** Collects every buffer loaded anywhere inside expression `e` (nested loads included), and
 *  inside the value of every `let` or `reduce` name it uses (`bound`: name -> value; scalar names
 *  are unique in a document, so `t` in `X[r, t]` after `let t = T[r]` reads T). */
function loadsIn(e: unknown, out: Set<string>, bound: Map<string, unknown>, seen: Set<string> = new Set()): void {
  if (typeof e === "string") {
    if (bound.has(e) && !seen.has(e)) {
      seen.add(e);
      loadsIn(bound.get(e), out, bound, seen);
    }
    return;
  }
  if (!Array.isArray(e)) return;
  if (e[0] === "load" && typeof e[1] === "string") out.add(e[1]);
  for (let i = 1; i < e.length; i++) loadsIn(e[i], out, bound, seen);
}

/** Every `let` and `reduce` name of the document with its value expression. */
function boundValues(node: unknown, out: Map<string, unknown>): Map<string, unknown> {
  if (Array.isArray(node)) {
    for (const x of node) boundValues(x, out);
  } else if (node !== null && typeof node === "object") {
    const s = node as Record<string, unknown>;
    if (typeof s.let === "string") out.set(s.let, s.value);
    if (typeof s.reduce === "string") out.set(s.reduce, s.value);
    for (const key of Object.keys(s)) boundValues(s[key], out);
  }
  return out;
}

/** For every i32 buffer used inside an index: the smallest extent it indexes. */
function indexBounds(doc: any, dims: Map<string, number[]>): Map<string, number> {
  const bounds = new Map<string, number>();
  const bound = boundValues(doc.body, new Map());
  const visitIndexList = (buf: unknown, at: unknown): void => {
    if (typeof buf !== "string" || !Array.isArray(at)) return;
    const shape = dims.get(buf);
    if (shape === undefined) return;
    at.forEach((ix, k) => {
      const found = new Set<string>();
      loadsIn(ix, found, bound);
      for (const name of found) {
        const prev = bounds.get(name);
        if (k < shape.length && (prev === undefined || shape[k] < prev)) bounds.set(name, shape[k]);
      }
    });
  };
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      if (node[0] === "load") visitIndexList(node[1], node[2]);
      for (const x of node) walk(x);
    } else if (node !== null && typeof node === "object") {
      const s = node as Record<string, unknown>;
      if (typeof s.store === "string") visitIndexList(s.store, s.at);
      for (const key of Object.keys(s)) walk(s[key]);
    }
  };
  walk(doc.body);
  return bounds;
}

/** For every i32 buffer compared with a loop or reduction variable (`c < L[r]`, through lets
 *  too): the largest extent of such a variable's loop, where that extent is a size or a literal. */
function comparedBounds(doc: any): Map<string, number> {
  const out = new Map<string, number>();
  const sizes: Record<string, number> = doc && typeof doc.sizes === "object" && doc.sizes !== null ? doc.sizes : {};
  const bound = boundValues(doc.body, new Map());
  const extentOf = (e: unknown): number | undefined => (typeof e === "number" ? e : typeof e === "string" && typeof sizes[e] === "number" ? sizes[e] : undefined);
  const walk = (node: unknown, vars: Map<string, number>): void => {
    if (Array.isArray(node)) {
      if (["lt", "le", "gt", "ge", "eq", "ne"].includes(node[0] as string) && node.length === 3) {
        for (const [v, other] of [[node[1], node[2]], [node[2], node[1]]]) {
          if (typeof v !== "string" || !vars.has(v)) continue;
          const found = new Set<string>();
          loadsIn(other, found, bound);
          for (const name of found) out.set(name, Math.max(out.get(name) ?? 0, vars.get(v)!));
        }
      }
      for (const x of node) walk(x, vars);
    } else if (node !== null && typeof node === "object") {
      const st = node as Record<string, any>;
      const inner = new Map(vars);
      if (typeof st.for === "string" && Array.isArray(st.in)) {
        const n = extentOf(st.in[1]);
        if (n !== undefined) inner.set(st.for, n);
      }
      if (typeof st.reduce === "string" && Array.isArray(st.over) && typeof st.over[0] === "string") {
        const n = extentOf(st.over[2]);
        if (n !== undefined) inner.set(st.over[0], n);
      }
      for (const key of Object.keys(st)) walk(st[key], inner);
    }
  };
  walk(doc.body, new Map());
  return out;
}

/** f32 inputs are uniform on [lo, hi) (`--input-range LO,HI`); the default is [-2, 2). */
export type InputRange = [number, number];
export const DEFAULT_INPUT_RANGE: InputRange = [-2, 2];

/** The input distribution in words, as run and suite print it. */
export function describeInputs(seed: number, range: InputRange = DEFAULT_INPUT_RANGE): string {
  return `float inputs uniform on [${range[0]}, ${range[1]}) (24-bit grid; f16 and bf16 inputs rounded to their dtype), i32 index inputs uniform on [0, extent) (compared with a loop variable: [0, its extent]), seed ${seed}`;
}

/** The largest value of `dtype` (f32, f16, bf16) below `hi`, for a draw `x` that rounded up to
 *  `hi` or past it; `x` itself where that value is below `lo` (no value of the dtype lies in
 *  [lo, hi), as in `--input-range 100.1,100.2` on bf16). */
function belowOpenEnd(x: number, hi: number, lo: number, dtype: string): number {
  const { round, bits, minExp } = floatFormat(dtype);
  let v = round(hi);
  // step down one ulp of the dtype at a time (round(hi) is within an ulp of hi)
  for (let k = 0; k < 3 && v >= hi; k++) v = round(v - ulpBelow(v, bits, minExp));
  return v < hi && v >= lo ? v : x;
}

/** The rounding to `dtype` (f32, f16, bf16), its fraction bits and smallest normal exponent. */
function floatFormat(dtype: string): { round: (x: number) => number; bits: number; minExp: number } {
  if (dtype === "f16") return { round: roundF16, bits: 10, minExp: -14 };
  if (dtype === "bf16") return { round: roundBf16, bits: 7, minExp: -126 };
  return { round: Math.fround, bits: 23, minExp: -126 };
}

/** The smallest value of `dtype` (f32, f16, bf16) at or above `lo`, for a draw `x` that rounded
 *  below `lo`; `x` itself where that value is not below `hi`. */
function aboveClosedEnd(x: number, lo: number, hi: number, dtype: string): number {
  const { round, bits, minExp } = floatFormat(dtype);
  let v = round(lo);
  // step up one ulp of the dtype at a time (round(lo) is within an ulp of lo); the gap above v
  // is the gap below the next value up, which ulpBelow gives for -v
  for (let k = 0; k < 3 && v < lo; k++) v = round(v + ulpBelow(-v, bits, minExp));
  return v >= lo && v < hi ? v : x;
}

/** The gap between `v`, a value of a binary float format with `bits` mantissa bits and smallest
 *  normal exponent `minExp`, and the next value below it (a positive power of two's gap below
 *  is half its gap above; subnormals share the smallest normal binade's gap). */
function ulpBelow(v: number, bits: number, minExp: number): number {
  const a = Math.abs(v);
  const e = Math.max(Math.floor(Math.log2(a)), minExp);
  return 2 ** (e - bits) / (v > 0 && a === 2 ** e && e > minExp ? 2 : 1);
}

/** Parses `--input-range LO,HI` (finite, LO < HI). */
export function parseInputRange(text: string): InputRange | null {
  const m = /^\s*(-?[0-9.eE+-]+)\s*,\s*(-?[0-9.eE+-]+)\s*$/.exec(text);
  if (!m) return null;
  const lo = Number(m[1]);
  const hi = Number(m[2]);
  // f32 inputs are drawn from [lo, hi): bounds past the largest f32 would draw infinities
  const F32_MAX = 3.4028234663852886e38;
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || !(lo < hi) || Math.abs(lo) > F32_MAX || Math.abs(hi) > F32_MAX) return null;
  return [lo, hi];
}

/**
 * Deterministic initial values for every param of `doc` (see the header for the scheme).
 * The same document and seed always give the same values.
 */
/** The most elements the buffers of one run or eval may hold together (about 8 GiB as FP64). */
export const MAX_RUN_ELEMENTS = 1073741824;

export function makeInputs(doc: any, seed: number, range: InputRange = DEFAULT_INPUT_RANGE): Map<string, InputBuffer> {
  const [lo, hi] = range;
  const params: any[] = Array.isArray(doc.params) ? doc.params : [];
  const dims = new Map<string, number[]>();
  for (const p of params) dims.set(p.name, shapeOf(doc, p.name));
  // run and eval hold every buffer and an FP64 copy of it: refuse sizes no run here can hold
  let total = 0;
  for (const p of params) {
    const n = dims.get(p.name)!.reduce((a, b) => a * b, 1);
    total += n;
    if (n > MAX_RUN_ELEMENTS || total > MAX_RUN_ELEMENTS) {
      throw new UsageError(`${p.name} has ${n} elements (${total} in the buffers so far): too large to run (at most ${MAX_RUN_ELEMENTS} elements in all, each held with an FP64 copy); plan and emit take any size, or give smaller --size values`);
    }
  }
  const bounds = indexBounds(doc, dims);
  const compared = comparedBounds(doc);
  // a 16-bit input drawn past its dtype's range would hold infinities: refuse the range
  for (const p of params) {
    const edge = p.dtype === "f16" ? F16_OVERFLOW : p.dtype === "bf16" ? BF16_OVERFLOW : Infinity;
    if (lo <= -edge || hi > edge) {
      const largest = p.dtype === "f16" ? "65504" : "3.3895314e38"; // the largest finite values
      throw new UsageError(`--input-range ${lo},${hi} reaches past the ${p.dtype} range of the input ${p.name} (its largest finite value is ${largest}; a draw there would round to an infinity); give a range within it`);
    }
  }
  const out = new Map<string, InputBuffer>();
  params.forEach((p, index) => {
    const length = dims.get(p.name)!.reduce((a, b) => a * b, 1);
    const next = mulberry32((seed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0);
    if (p.dtype === "i32") {
      // an index bound first (the values must stay in bounds), then a compared length's
      const c = compared.get(p.name);
      const bound = bounds.get(p.name) ?? (c !== undefined && c > 0 ? c + 1 : 8);
      const data = new Int32Array(length);
      for (let i = 0; i < length; i++) data[i] = Math.floor((next() / 4294967296) * bound);
      out.set(p.name, data);
    } else {
      const data = new Float64Array(length);
      // lo + (hi - lo) * k / 2^24: for the default [-2, 2) this is exactly -2 + k * 2^-22
      for (let i = 0; i < length; i++) data[i] = Math.fround(lo + (hi - lo) * ((next() >>> 8) * 2 ** -24));
      // f16 and bf16 buffers: the same draw rounded to the dtype (nearest even)
      if (p.dtype === "f16") for (let i = 0; i < length; i++) data[i] = roundF16(data[i]);
      if (p.dtype === "bf16") for (let i = 0; i < length; i++) data[i] = roundBf16(data[i]);
      // rounding (to f32, or to the narrower dtype) can reach HI, the range's open end: such a
      // draw takes the dtype's next value below HI instead, where that is still at least LO; and
      // it can fall below LO: such a draw takes the dtype's next value above LO, where that is
      // still below HI
      for (let i = 0; i < length; i++) {
        if (data[i] >= hi) data[i] = belowOpenEnd(data[i], hi, lo, p.dtype);
        else if (data[i] < lo) data[i] = aboveClosedEnd(data[i], lo, hi, p.dtype);
      }
      out.set(p.name, data);
    }
  });
  return out;
}
