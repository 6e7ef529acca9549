// Stores a WebAssembly module's static data compactly (part of `npm run build:core`; see
// ARCHITECTURE.md, "Size of the WebAssembly build").
//
//   node scripts/pack-wasm.mjs <module.wasm>...     rewrites each module in place
//
// AssemblyScript lays out every static string as a 20-byte object header plus UTF-16 text, in
// thousands of active data segments. This replaces all of them with one passive segment holding
// the same memory image, compressed (records, then LZ77 + a range coder, below), and a start
// function (about 1.4 KB, written in WebAssembly text below) that unpacks the image to the addresses the segments
// named, clears the scratch space and probability table it used, drops the segment and then calls the module's own start function. Storage only: no code
// of the module changes, and after instantiation memory holds exactly the bytes it held without
// packing. The script checks that on every module it writes (instantiating both and comparing
// every byte of memory) and refuses to write one that differs.
import fs from "node:fs";
import { pathToFileURL } from "node:url";
import binaryen from "binaryen";

// ---- the encoding ---------------------------------------------------------------------------
// Two stages. First the image is rewritten as records (below: static strings as their 8-bit
// text, static ArrayBuffers as differences of words, the rest raw), about 40% of its size.
// Then LZ77 tokens of the records are written with an adaptive binary range coder (the one LZMA
// uses: 11-bit probabilities, 32-bit range, carry propagation through a cached byte). Every bit
// is coded with its own probability, which adapts to the bits seen before under the same context:
//   a token starts with bit isMatch[ctx], ctx = (previous token was a match) << 1 | (the byte
//   before is at most 32: a space, a control byte or a record's small number);
//   0: a literal byte, 8 bits high to low on a binary tree, one tree per top 3 bits of the byte
//      before (LZMA's lc = 3);
//   1: bit isRep[ctx]: 1 = copy from the same distance as the previous match; 0 = a new distance;
//      then the length as a number (length - MIN_REP + 1), then a new distance as a number, with
//      its own probabilities for matches of 2-3 bytes and of 4 or more.
// A number v >= 1 is its bit count nb in unary (nb - 1 ones, then a zero unless nb is 32), then
// its nb - 1 bits below the top one, high to low, each with its own probability per (nb, bit).
// The stream ends when the records are complete; the coder's flush writes 5 bytes, so the
// decoder's look-ahead never reads past the packed bytes.

const MIN_MATCH = 3; // shortest match at a new distance
const MIN_REP = 2; // shortest match at the previous distance
const CHAIN = 65536; // match candidates tried per position (all, in practice: about 3 s for the core)
const SHIFT = 4; // probability adaptation rate
const NUM_PROBS = 32 + 33 * 32; // probabilities of one kind of number
// the probability table: u16 entries, all starting at 1024 (one half)
const P_ISMATCH = 0;
const P_ISREP = 4;
const P_LIT = 8; // 8 trees of 256, by the previous byte's top 3 bits
const P_LEN = P_LIT + 8 * 256;
const P_DIST = P_LEN + NUM_PROBS; // two sets: for matches of 2-3 bytes and of 4 or more
const P_COUNT = P_DIST + 2 * NUM_PROBS;
// the contexts (the decoder computes the same from the byte before the output position)
const prevByte = (t, i) => (i > 0 ? t[i - 1] : 0);
const matchCtx = (t, i, wasMatch) => (wasMatch << 1) | (prevByte(t, i) <= 32 ? 1 : 0);
const litBase = (t, i) => P_LIT + (prevByte(t, i) >> 5) * 256;
const distBase = (len) => P_DIST + (len > 3 ? NUM_PROBS : 0);

class RangeEncoder {
  constructor() {
    this.low = 0; // up to 2^32 + 2^32: a carry is pending when >= 2^32
    this.range = 0xffffffff;
    this.cache = 0;
    this.cacheSize = 1;
    this.out = [];
    this.p = new Uint16Array(P_COUNT).fill(1024);
  }
  shiftLow() {
    if (this.low < 0xff000000 || this.low >= 0x100000000) {
      const carry = this.low >= 0x100000000 ? 1 : 0;
      let temp = this.cache;
      do {
        this.out.push((temp + carry) & 0xff);
        temp = 0xff;
      } while (--this.cacheSize !== 0);
      this.cache = Math.floor(this.low / 0x1000000) & 0xff;
    }
    this.cacheSize++;
    this.low = (this.low % 0x1000000) * 256;
  }
  bit(i, b) {
    const pr = this.p[i];
    const bound = (this.range >>> 11) * pr;
    if (b === 0) {
      this.range = bound;
      this.p[i] = pr + ((2048 - pr) >> SHIFT);
    } else {
      this.low += bound;
      this.range = (this.range - bound) >>> 0;
      this.p[i] = pr - (pr >> SHIFT);
    }
    while (this.range < 0x1000000) {
      this.range = (this.range * 256) >>> 0;
      this.shiftLow();
    }
  }
  num(base, v) {
    const nb = 32 - Math.clz32(v);
    for (let k = 1; k < nb; k++) this.bit(base + k - 1, 1);
    if (nb < 32) this.bit(base + nb - 1, 0);
    for (let k = nb - 2; k >= 0; k--) this.bit(base + 32 + nb * 32 + k, (v >>> k) & 1);
  }
  finish() {
    for (let k = 0; k < 5; k++) this.shiftLow();
    return Uint8Array.from(this.out);
  }
}

// a match at least this long is taken as it is by the optimal parse (no shorter choices tried
// inside it; keeps runs of zeros and long repeats linear)
const NICE = 256;

/** The match finder: for position i, the nearest distance of each longer match (hash chains of
 *  3-byte keys, all candidates, up to the first match of NICE bytes or more). Returns [len, dist]
 *  pairs with increasing lengths; memoized per position. */
function matchFinder(img) {
  const n = img.length;
  const head = new Map();
  const prev = new Int32Array(n).fill(-1);
  const key = (i) => img[i] | (img[i + 1] << 8) | (img[i + 2] << 16);
  for (let i = 0; i + MIN_MATCH <= n; i++) {
    const k = key(i);
    const h = head.get(k);
    prev[i] = h === undefined ? -1 : h;
    head.set(k, i);
  }
  const memo = new Array(n);
  return (i) => {
    if (memo[i] !== undefined) return memo[i];
    const found = [];
    memo[i] = found;
    if (i + MIN_MATCH > n) return found;
    let best = MIN_MATCH - 1;
    let steps = 0;
    for (let j = prev[i]; j >= 0 && steps++ < CHAIN; j = prev[j]) {
      if (img[j + best] !== img[i + best]) continue;
      let l = 0;
      while (i + l < n && img[j + l] === img[i + l]) l++;
      if (l > best) {
        best = l;
        found.push([l, i - j]);
        if (i + l === n || l >= NICE) break;
      }
    }
    return found;
  };
}

const repLength = (img, i, d) => {
  if (d === 0 || d > i) return 0;
  let l = 0;
  while (i + l < img.length && img[i + l] === img[i + l - d]) l++;
  return l;
};

/** The greedy parse (the first pass: its statistics price the optimal parse's tokens). A token
 *  is [0, byte] (a literal), [1, len, dist] (a match at a new distance) or [2, len] (a match at
 *  the previous distance). */
function greedyParse(img, find) {
  const n = img.length;
  const tokens = [];
  let i = 0;
  let rep = 0;
  while (i < n) {
    const r = repLength(img, i, rep);
    const m = find(i);
    const [l, d] = m.length > 0 ? m[m.length - 1] : [0, 0];
    const next = i + 1 < n ? find(i + 1) : [];
    const l1 = next.length > 0 ? next[next.length - 1][0] : 0;
    if (r >= MIN_REP && r + 2 >= l) {
      tokens.push([2, r]);
      i += r;
    } else if (l >= MIN_MATCH + (d > 256 ? 1 : 0) + (d > 4096 ? 1 : 0) + (d > 32768 ? 1 : 0) && l1 <= l + 1) {
      tokens.push([1, l, d]);
      rep = d;
      i += l;
    } else {
      tokens.push([0, img[i]]);
      i++;
    }
  }
  return tokens;
}

/** Codes `tokens` with the range coder; with `counts`, also counts each probability's bits. */
function encodeTokens(img, tokens, counts = null) {
  const e = new RangeEncoder();
  const bit = (k, b) => {
    if (counts !== null) counts[2 * k + b]++;
    e.bit(k, b);
  };
  const num = (base, v) => {
    const nb = 32 - Math.clz32(v);
    for (let k = 1; k < nb; k++) bit(base + k - 1, 1);
    if (nb < 32) bit(base + nb - 1, 0);
    for (let k = nb - 2; k >= 0; k--) bit(base + 32 + nb * 32 + k, (v >>> k) & 1);
  };
  let i = 0;
  let wasMatch = 0;
  for (const t of tokens) {
    const ctx = matchCtx(img, i, wasMatch);
    if (t[0] === 0) {
      bit(P_ISMATCH + ctx, 0);
      let sym = 1;
      const lb = litBase(img, i);
      for (let k = 7; k >= 0; k--) {
        const b = (t[1] >> k) & 1;
        bit(lb + sym, b);
        sym = sym * 2 + b;
      }
      i++;
      wasMatch = 0;
    } else {
      bit(P_ISMATCH + ctx, 1);
      bit(P_ISREP + ctx, t[0] === 1 ? 0 : 1);
      num(P_LEN, t[1] - MIN_REP + 1);
      if (t[0] === 1) num(distBase(t[1]), t[2]);
      i += t[1];
      wasMatch = 1;
    }
  }
  return e.finish();
}

/** The cheapest parse under fixed bit prices (from `counts`, a previous parse's statistics):
 *  dynamic programming over the positions, each reached by a literal, a match at one of the
 *  distances the match finder gives (every length from the shortest up), or a match at the
 *  previous distance of the best path to it. */
function optimalParse(img, find, counts) {
  const n = img.length;
  const price = new Float64Array(counts.length);
  for (let k = 0; 2 * k < counts.length; k++) {
    const p0 = (counts[2 * k] + 0.5) / (counts[2 * k] + counts[2 * k + 1] + 1);
    price[2 * k] = -Math.log2(p0);
    price[2 * k + 1] = -Math.log2(1 - p0);
  }
  const bitPrice = (k, b) => price[2 * k + b];
  const numPrice = (base, v) => {
    const nb = 32 - Math.clz32(v);
    let c = 0;
    for (let k = 1; k < nb; k++) c += bitPrice(base + k - 1, 1);
    if (nb < 32) c += bitPrice(base + nb - 1, 0);
    for (let k = nb - 2; k >= 0; k--) c += bitPrice(base + 32 + nb * 32 + k, (v >>> k) & 1);
    return c;
  };
  const litPrice = new Float64Array(8 * 256);
  for (let tree = 0; tree < 8; tree++) {
    for (let byte = 0; byte < 256; byte++) {
      let sym = 1;
      let c = 0;
      for (let k = 7; k >= 0; k--) {
        const b = (byte >> k) & 1;
        c += bitPrice(P_LIT + tree * 256 + sym, b);
        sym = sym * 2 + b;
      }
      litPrice[tree * 256 + byte] = c;
    }
  }
  const lenPrice = new Float64Array(n + 2);
  for (let l = MIN_REP; l <= n; l++) lenPrice[l] = numPrice(P_LEN, l - MIN_REP + 1);
  const cost = new Float64Array(n + 1).fill(Infinity);
  const from = new Int32Array(n + 1);
  const tlen = new Int32Array(n + 1); // 0: literal
  const tdist = new Int32Array(n + 1); // 0: previous distance
  const rep = new Int32Array(n + 1); // the previous distance on the best path
  const wasMatch = new Uint8Array(n + 1);
  cost[0] = 0;
  const relax = (i, j, c, len, dist, r) => {
    if (c < cost[j]) {
      cost[j] = c;
      from[j] = i;
      tlen[j] = len;
      tdist[j] = dist;
      rep[j] = r;
      wasMatch[j] = len > 0 ? 1 : 0;
    }
  };
  for (let i = 0; i < n; i++) {
    const base = cost[i];
    const ctx = matchCtx(img, i, wasMatch[i]);
    const matchBase = base + bitPrice(P_ISMATCH + ctx, 1);
    const r = repLength(img, i, rep[i]);
    const m = find(i);
    const longest = m.length > 0 ? m[m.length - 1] : [0, 0];
    if (r >= NICE || longest[0] >= NICE) {
      // a long match: taken whole, the positions inside it are not expanded
      if (r >= longest[0]) relax(i, i + r, matchBase + bitPrice(P_ISREP + ctx, 1) + lenPrice[r], r, 0, rep[i]);
      else relax(i, i + longest[0], matchBase + bitPrice(P_ISREP + ctx, 0) + numPrice(distBase(longest[0]), longest[1]) + lenPrice[longest[0]], longest[0], longest[1], longest[1]);
      const to = i + Math.max(r, longest[0]);
      while (i + 1 < to) i++;
      continue;
    }
    relax(i, i + 1, base + bitPrice(P_ISMATCH + ctx, 0) + litPrice[litBase(img, i) - P_LIT + img[i]], 0, 0, rep[i]);
    if (r >= MIN_REP) {
      const c0 = matchBase + bitPrice(P_ISREP + ctx, 1);
      for (let l = MIN_REP; l <= r; l++) relax(i, i + l, c0 + lenPrice[l], l, 0, rep[i]);
    }
    let lo = MIN_MATCH;
    for (const [l, d] of m) {
      const c0 = matchBase + bitPrice(P_ISREP + ctx, 0);
      const short = numPrice(distBase(3), d);
      const long = numPrice(distBase(4), d);
      for (let k = lo; k <= l; k++) relax(i, i + k, c0 + (k > 3 ? long : short) + lenPrice[k], k, d, d);
      lo = l + 1;
    }
  }
  const tokens = [];
  for (let j = n; j > 0; j = from[j]) {
    const i = from[j];
    if (tlen[j] === 0) tokens.push([0, img[i]]);
    else if (tdist[j] === 0) tokens.push([2, tlen[j]]);
    else tokens.push([1, tlen[j], tdist[j]]);
  }
  return tokens.reverse();
}

/** The LZ stage: codes the bytes `t` (deterministic). The parse: the greedy one, then the
 *  cheapest one under the bit prices of the parse before (`rounds` rounds), whichever codes
 *  shortest. */
function lzCompress(t, rounds) {
  const find = matchFinder(t);
  let tokens = greedyParse(t, find);
  let counts = new Float64Array(2 * P_COUNT);
  let best = encodeTokens(t, tokens, counts);
  for (let round = 0; round < rounds; round++) {
    tokens = optimalParse(t, find, counts);
    counts = new Float64Array(2 * P_COUNT);
    const out = encodeTokens(t, tokens, counts);
    if (out.length < best.length) best = out;
  }
  return best;
}

// ---- the records: static objects without their headers ----------------------------------
// Before the LZ stage the image is rewritten as records, each a number v (LEB128) and bytes,
// n = v >> 2:
//   v & 3 = 1: n bytes as they are;
//   v & 3 = 0: an AssemblyScript static string of n code units, all below 256, from its n low
//      bytes: the object is ((2n + 19) & ~15) + 16 bytes: mmInfo = that - 4, gcInfo = gcInfo2 =
//      0, rtId = 2, rtSize = 2n, the text as UTF-16, zeros to the end;
//   v & 3 = 2: a static ArrayBuffer (rtId 1) of n 32-bit words (static arrays: mostly pointers
//      to strings laid out one after another), each as its difference from the word before
//      (the first from 0), 4 bytes little-endian; the object as a string's with 4n bytes.
// An object is recognized at every fourth offset of the image (the first one too) where its
// bytes are exactly that; everything else is raw. The records cover the image in order (the
// last object's zeros may run past its end, into memory that is zero anyway).

const u32At = (img, k) => (img[k] | (img[k + 1] << 8) | (img[k + 2] << 16) | (img[k + 3] << 24)) >>> 0;
const objectSize = (payload) => ((payload + 19) & ~15) + 16;

/** The record kind (0 or 2) and element count of the object at `s`, or null if there is none. */
function objectAt(img, s) {
  if (s + 20 > img.length) return null;
  const sz = u32At(img, s + 16);
  const rt = u32At(img, s + 12);
  if (u32At(img, s + 4) !== 0 || u32At(img, s + 8) !== 0 || u32At(img, s) !== objectSize(sz) - 4 || s + 20 + sz > img.length) return null;
  for (let k = s + 20 + sz; k < Math.min(s + objectSize(sz), img.length); k++) if (img[k] !== 0) return null;
  if (rt === 2 && sz % 2 === 0) {
    for (let k = s + 21; k < s + 20 + sz; k += 2) if (img[k] !== 0) return null;
    return { kind: 0, n: sz / 2, size: objectSize(sz) };
  }
  if (rt === 1 && sz % 4 === 0) return { kind: 2, n: sz / 4, size: objectSize(sz) };
  return null;
}

function toRecords(img) {
  const out = [];
  const leb = (v) => out.push(...uleb(v));
  let s = 0;
  let raw = 0;
  const flush = (to) => {
    if (to <= raw) return;
    leb((to - raw) * 4 + 1);
    for (let k = raw; k < to; k++) out.push(img[k]);
  };
  while (s < img.length) {
    const obj = objectAt(img, s);
    if (obj === null) {
      s += 4;
      continue;
    }
    flush(s);
    leb(obj.n * 4 + obj.kind);
    if (obj.kind === 0) for (let k = 0; k < obj.n; k++) out.push(img[s + 20 + 2 * k]);
    else {
      let prev = 0;
      for (let k = 0; k < obj.n; k++) {
        const w = u32At(img, s + 20 + 4 * k);
        const d = (w - prev) >>> 0;
        prev = w;
        out.push(d & 0xff, (d >>> 8) & 0xff, (d >>> 16) & 0xff, d >>> 24);
      }
    }
    s += obj.size;
    raw = s;
  }
  flush(img.length);
  return Uint8Array.from(out);
}

/** Reads the record at `r` of `t` (its first `tLength` bytes): [kind, n, where its bytes start,
 *  where it ends, how many image bytes it makes], or null if it is not complete. */
function recordAt(t, r, tLength) {
  let v = 0;
  let sh = 0;
  let x;
  do {
    if (r >= tLength) return null;
    x = t[r++];
    v += (x & 0x7f) * 2 ** sh;
    sh += 7;
  } while (x & 0x80);
  const kind = v % 4;
  const n = Math.floor(v / 4);
  const bytes = kind === 1 ? n : kind === 0 ? n : 4 * n;
  if (r + bytes > tLength) return null;
  return [kind, n, r, r + bytes, kind === 1 ? n : objectSize(kind === 0 ? 2 * n : 4 * n)];
}

/** Expands records into an image of `n` bytes. */
function fromRecords(t, tLength, n) {
  const img = new Uint8Array(n + 16);
  let r = 0;
  let o = 0;
  while (r < tLength && o < n) {
    const rec = recordAt(t, r, tLength);
    if (rec === null) throw new Error("incomplete records");
    const [kind, len, at, end, size] = rec;
    const w = (k, x) => {
      for (let j = 0; j < 4; j++) img[o + k + j] = (x >>> (8 * j)) & 0xff;
    };
    if (kind === 1) img.set(t.subarray(at, end), o);
    else {
      w(0, size - 4);
      w(12, kind === 0 ? 2 : 1);
      w(16, kind === 0 ? 2 * len : 4 * len);
      let acc = 0;
      for (let k = 0; k < len; k++) {
        if (kind === 0) img[o + 20 + 2 * k] = t[at + k];
        else w(20 + 4 * k, (acc = (acc + u32At(t, at + 4 * k)) >>> 0));
      }
    }
    o += size;
    r = end;
  }
  return img.subarray(0, n);
}

/** Compresses `img` (a Uint8Array): records, then the LZ stage. Deterministic. `rounds`: rounds
 *  of the priced parse (0: the greedy parse only). */
export function compress(img, rounds = 2) {
  return lzCompress(toRecords(img), rounds);
}

/** The LZ stage's decoder: `src` to `tLength` bytes, or (tLength null) until the records in the
 *  output make an image of `n` bytes. Returns the records. */
function lzDecompress(src, tLength, n = 0) {
  let dst = new Uint8Array(1024);
  const p = new Uint16Array(P_COUNT).fill(1024);
  let s = 0;
  let range = 0xffffffff;
  let code = 0;
  const next = () => (s < src.length ? src[s++] : 0);
  for (let k = 0; k < 5; k++) code = ((code << 8) | next()) >>> 0;
  const bit = (i) => {
    const pr = p[i];
    const bound = (range >>> 11) * pr;
    let b = 0;
    if (code < bound) {
      range = bound;
      p[i] = pr + ((2048 - pr) >> SHIFT);
    } else {
      code = (code - bound) >>> 0;
      range = (range - bound) >>> 0;
      p[i] = pr - (pr >> SHIFT);
      b = 1;
    }
    if (range < 0x1000000) {
      range = (range * 256) >>> 0;
      code = ((code << 8) | next()) >>> 0;
    }
    return b;
  };
  const num = (base) => {
    let nb = 1;
    while (nb < 32 && bit(base + nb - 1)) nb++;
    let v = 1;
    for (let k = nb - 2; k >= 0; k--) v = (v * 2 + bit(base + 32 + nb * 32 + k)) >>> 0;
    return v;
  };
  const put = (o, x) => {
    if (o >= dst.length) {
      const bigger = new Uint8Array(dst.length * 2);
      bigger.set(dst);
      dst = bigger;
    }
    dst[o] = x;
  };
  let o = 0;
  let rep = 0;
  let wasMatch = 0;
  // without tLength: follows the records as they are completed, up to an image of n bytes
  let recAt = 0;
  let imgAt = 0;
  const done = () => {
    if (tLength !== null) return o >= tLength;
    while (imgAt < n) {
      const rec = recordAt(dst, recAt, o);
      if (rec === null) return false;
      recAt = rec[3];
      imgAt += rec[4];
    }
    return true;
  };
  while (!done()) {
    if (s > src.length + 8) throw new Error("the packed data ends early");
    const ctx = matchCtx(dst, o, wasMatch);
    if (!bit(P_ISMATCH + ctx)) {
      const lb = litBase(dst, o);
      let sym = 1;
      while (sym < 256) sym = sym * 2 + bit(lb + sym);
      put(o++, sym - 256);
      wasMatch = 0;
    } else {
      const isRep = bit(P_ISREP + ctx);
      const len = num(P_LEN) + MIN_REP - 1;
      if (!isRep) rep = num(distBase(len));
      for (let k = 0; k < len; k++, o++) put(o, o >= rep ? dst[o - rep] : 0);
      wasMatch = 1;
    }
  }
  return dst.subarray(0, o);
}

/** The reference decoder (the module's start function does the same in WebAssembly). */
export function decompress(src, n) {
  const t = lzDecompress(src, null, n);
  return n === 0 ? new Uint8Array(0) : fromRecords(t, t.length, n);
}

// ---- reading and writing the module ---------------------------------------------------------

function uleb(v) {
  const out = [];
  do {
    const x = v & 0x7f;
    v >>>= 7;
    out.push(v ? x | 0x80 : x);
  } while (v);
  return out;
}

function sleb(v) {
  const out = [];
  while (true) {
    const x = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (x & 0x40) === 0) || (v === -1 && (x & 0x40) !== 0)) {
      out.push(x);
      return out;
    }
    out.push(x | 0x80);
  }
}

class Cursor {
  constructor(bytes, at = 0) {
    this.b = bytes;
    this.p = at;
  }
  u() {
    let r = 0;
    let sh = 0;
    let x;
    do {
      x = this.b[this.p++];
      r += (x & 0x7f) * 2 ** sh;
      sh += 7;
    } while (x & 0x80);
    return r;
  }
  s32() {
    let r = 0;
    let sh = 0;
    let x;
    do {
      x = this.b[this.p++];
      r |= (x & 0x7f) << sh;
      sh += 7;
    } while (x & 0x80);
    if (sh < 32 && x & 0x40) r |= -1 << sh;
    return r;
  }
}

function readSections(bytes) {
  if (bytes.length < 8 || bytes.readUInt32LE(0) !== 0x6d736100 || bytes.readUInt32LE(4) !== 1) throw new Error("not a WebAssembly module (version 1)");
  const sections = [];
  const c = new Cursor(bytes, 8);
  while (c.p < bytes.length) {
    const id = bytes[c.p++];
    const len = c.u();
    sections.push({ id, body: bytes.subarray(c.p, c.p + len) });
    c.p += len;
  }
  return sections;
}

/** The unpacking function in WebAssembly text: the decoder above, with the addresses as constants.
 *  `scratch`: where memory.init puts the `length` packed bytes; `probs`: the probability table;
 *  `records`: where the LZ stage writes the `tLength` bytes of records (zeros before it); `image`,
 *  `size`: where the records expand to. Ends by clearing all it used past the image (the image
 *  itself is rewritten whole by the records) and dropping the segment. */
function unpackerText(scratch, length, probs, records, tLength, image, size) {
  const c = (v) => `(i32.const ${v | 0})`;
  const g = (l) => `(local.get $${l})`;
  // decodes one bit with the probability at byte address `addr` into $b
  const bit = (addr) => `
    (local.set $pa ${addr})
    (local.set $pr (i32.load16_u ${g("pa")}))
    (local.set $bound (i32.mul (i32.shr_u ${g("range")} ${c(11)}) ${g("pr")}))
    (if (i32.lt_u ${g("code")} ${g("bound")})
      (then
        (local.set $range ${g("bound")})
        (i32.store16 ${g("pa")} (i32.add ${g("pr")} (i32.shr_u (i32.sub ${c(2048)} ${g("pr")}) ${c(SHIFT)})))
        (local.set $b ${c(0)}))
      (else
        (local.set $code (i32.sub ${g("code")} ${g("bound")}))
        (local.set $range (i32.sub ${g("range")} ${g("bound")}))
        (i32.store16 ${g("pa")} (i32.sub ${g("pr")} (i32.shr_u ${g("pr")} ${c(SHIFT)})))
        (local.set $b ${c(1)})))
    (if (i32.lt_u ${g("range")} ${c(0x1000000)})
      (then
        (local.set $range (i32.shl ${g("range")} ${c(8)}))
        (local.set $code (i32.or (i32.shl ${g("code")} ${c(8)}) (i32.load8_u ${g("s")})))
        (local.set $s (i32.add ${g("s")} ${c(1)}))))`;
  const prob = (index) => `(i32.add ${c(probs)} (i32.shl ${index} ${c(1)}))`;
  const probsEnd = probs + P_COUNT * 2;
  const clearFrom = image + size;
  const clearTo = Math.max(clearFrom, records + tLength, scratch + length, probsEnd);
  return `(module
  (memory 1)
  (data "")
  (func $unpack
    (local $s i32) (local $range i32) (local $code i32) (local $o i32) (local $rep i32) (local $wm i32)
    (local $b i32) (local $pa i32) (local $pr i32) (local $bound i32) (local $sym i32) (local $nb i32)
    (local $v i32) (local $k i32) (local $base i32) (local $ctx i32) (local $q i32) (local $len i32)
    (memory.init 0 ${c(scratch)} ${c(0)} ${c(length)})
    ;; every probability starts at one half
    (local.set $pa ${c(probs)})
    (loop $fill
      (i32.store16 ${g("pa")} ${c(1024)})
      (local.set $pa (i32.add ${g("pa")} ${c(2)}))
      (br_if $fill (i32.lt_u ${g("pa")} ${c(probsEnd)})))
    ;; the coder's first five bytes
    (local.set $s ${c(scratch)})
    (local.set $range ${c(-1)})
    (local.set $k ${c(5)})
    (loop $first
      (local.set $code (i32.or (i32.shl ${g("code")} ${c(8)}) (i32.load8_u ${g("s")})))
      (local.set $s (i32.add ${g("s")} ${c(1)}))
      (local.set $k (i32.sub ${g("k")} ${c(1)}))
      (br_if $first ${g("k")}))
    ;; the LZ stage: the records
    (local.set $o ${c(records)})
    (block $done
      (loop $next
        (br_if $done (i32.ge_u ${g("o")} ${c(records + tLength)}))
        ;; $sym: the byte before
        (local.set $sym (i32.load8_u (i32.sub ${g("o")} ${c(1)})))
        (local.set $ctx (i32.or (i32.le_u ${g("sym")} ${c(32)}) (i32.shl ${g("wm")} ${c(1)})))
        ${bit(prob(`(i32.add ${c(P_ISMATCH)} ${g("ctx")})`))}
        (if (i32.eqz ${g("b")})
          (then
            ;; a literal byte, on the tree of the byte before's top 3 bits
            (local.set $base (i32.add ${c(P_LIT)} (i32.shl (i32.shr_u ${g("sym")} ${c(5)}) ${c(8)})))
            (local.set $sym ${c(1)})
            (loop $lit
              ${bit(prob(`(i32.add ${g("base")} ${g("sym")})`))}
              (local.set $sym (i32.or (i32.shl ${g("sym")} ${c(1)}) ${g("b")}))
              (br_if $lit (i32.lt_u ${g("sym")} ${c(256)})))
            (i32.store8 ${g("o")} ${g("sym")})
            (local.set $o (i32.add ${g("o")} ${c(1)}))
            (local.set $wm ${c(0)}))
          (else
            ;; a match: the length, then a new distance unless isRep
            ${bit(prob(`(i32.add ${c(P_ISREP)} ${g("ctx")})`))}
            (local.set $q (i32.eqz ${g("b")}))
            (local.set $base ${c(P_LEN)})
            (loop $number
              (local.set $nb ${c(1)})
              (block $counted
                (loop $count
                  (br_if $counted (i32.ge_u ${g("nb")} ${c(32)}))
                  ${bit(prob(`(i32.sub (i32.add ${g("base")} ${g("nb")}) ${c(1)})`))}
                  (br_if $counted (i32.eqz ${g("b")}))
                  (local.set $nb (i32.add ${g("nb")} ${c(1)}))
                  (br $count)))
              (local.set $v ${c(1)})
              (local.set $k (i32.sub ${g("nb")} ${c(1)}))
              (block $read
                (loop $bits
                  (br_if $read (i32.eqz ${g("k")}))
                  (local.set $k (i32.sub ${g("k")} ${c(1)}))
                  ${bit(prob(`(i32.add (i32.add (i32.add ${g("base")} ${c(32)}) (i32.shl ${g("nb")} ${c(5)})) ${g("k")})`))}
                  (local.set $v (i32.or (i32.shl ${g("v")} ${c(1)}) ${g("b")}))
                  (br $bits)))
              (if ${g("q")}
                (then
                  (if (i32.eq ${g("base")} ${c(P_LEN)})
                    (then
                      ;; matches of 4 bytes or more have their own distance probabilities
                      (local.set $len ${g("v")})
                      (local.set $base (select ${c(P_DIST + NUM_PROBS)} ${c(P_DIST)} (i32.gt_u ${g("v")} ${c(3 - MIN_REP + 1)})))
                      (br $number)))
                  (local.set $rep ${g("v")})
                  (local.set $v ${g("len")}))))
            (local.set $k (i32.add ${g("v")} ${c(MIN_REP - 1)}))
            (loop $copy
              (i32.store8 ${g("o")} (i32.load8_u (i32.sub ${g("o")} ${g("rep")})))
              (local.set $o (i32.add ${g("o")} ${c(1)}))
              (local.set $k (i32.sub ${g("k")} ${c(1)}))
              (br_if $copy ${g("k")}))
            (local.set $wm ${c(1)})))
        (br $next)))
    ;; the records to the image: $s reads, $o writes
    (local.set $s ${c(records)})
    (local.set $o ${c(image)})
    (block $expanded
      (loop $record
        (br_if $expanded (i32.ge_u ${g("s")} ${c(records + tLength)}))
        (local.set $v ${c(0)})
        (local.set $k ${c(0)})
        (loop $leb
          (local.set $b (i32.load8_u ${g("s")}))
          (local.set $s (i32.add ${g("s")} ${c(1)}))
          (local.set $v (i32.or ${g("v")} (i32.shl (i32.and ${g("b")} ${c(0x7f)}) ${g("k")})))
          (local.set $k (i32.add ${g("k")} ${c(7)}))
          (br_if $leb (i32.and ${g("b")} ${c(0x80)})))
        (local.set $len (i32.shr_u ${g("v")} ${c(2)}))
        (if (i32.and ${g("v")} ${c(1)})
          (then
            ;; raw bytes
            (memory.copy ${g("o")} ${g("s")} ${g("len")})
            (local.set $o (i32.add ${g("o")} ${g("len")}))
            (local.set $s (i32.add ${g("s")} ${g("len")})))
          (else
            ;; an object of $len elements: $q = 1 for a string (2-byte units from bytes), 0 for
            ;; an ArrayBuffer (words from differences); $nb: the payload's bytes
            (local.set $q (i32.eqz (i32.and ${g("v")} ${c(2)})))
            (local.set $nb (i32.shl ${g("len")} (i32.sub ${c(2)} ${g("q")})))
            (local.set $k (i32.add (i32.and (i32.add ${g("nb")} ${c(19)}) ${c(-16)}) ${c(16)}))
            (memory.fill ${g("o")} ${c(0)} ${g("k")})
            (i32.store ${g("o")} (i32.sub ${g("k")} ${c(4)}))
            (i32.store offset=12 ${g("o")} (i32.add ${g("q")} ${c(1)}))
            (i32.store offset=16 ${g("o")} ${g("nb")})
            (local.set $pa (i32.add ${g("o")} ${c(20)}))
            (local.set $o (i32.add ${g("o")} ${g("k")}))
            (local.set $v ${c(0)})
            (block $payload
              (loop $element
                (br_if $payload (i32.eqz ${g("len")}))
                (if ${g("q")}
                  (then
                    (i32.store8 ${g("pa")} (i32.load8_u ${g("s")}))
                    (local.set $pa (i32.add ${g("pa")} ${c(2)}))
                    (local.set $s (i32.add ${g("s")} ${c(1)})))
                  (else
                    (local.set $v (i32.add ${g("v")} (i32.load ${g("s")})))
                    (i32.store ${g("pa")} ${g("v")})
                    (local.set $pa (i32.add ${g("pa")} ${c(4)}))
                    (local.set $s (i32.add ${g("s")} ${c(4)}))))
                (local.set $len (i32.sub ${g("len")} ${c(1)}))
                (br $element)))))
        (br $record)))
    ;; clear what was used past the image, as in a fresh memory, and drop the segment
    (memory.fill ${c(clearFrom)} ${c(0)} ${c(clearTo - clearFrom)})
    (data.drop 0))
  (export "unpack" (func $unpack)))`;
}

/** Assembles the unpacking function and returns its body (locals and code), with a call to
 *  `oldStart` (the module's own start function, if any) at the end. */
function unpackerBody(layout, oldStart) {
  const { scratch, length, probs, records, tLength, image, size } = layout;
  const m = binaryen.parseText(unpackerText(scratch, length, probs, records, tLength, image, size));
  try {
    m.setFeatures(binaryen.Features.MVP | binaryen.Features.BulkMemory | binaryen.Features.BulkMemoryOpt);
    if (!m.validate()) throw new Error("internal error: the unpacking function does not validate");
    const sections = readSections(Buffer.from(m.emitBinary()));
    const code = sections.find((s) => s.id === 10);
    const c = new Cursor(code.body);
    if (c.u() !== 1) throw new Error("internal error: the unpacking module has more than one function");
    const len = c.u();
    const body = code.body.subarray(c.p, c.p + len);
    if (body[body.length - 1] !== 0x0b) throw new Error("internal error: the unpacking function's body does not end with end");
    return [...body.subarray(0, body.length - 1), ...(oldStart === null ? [] : [0x10, ...uleb(oldStart)]), 0x0b];
  } finally {
    m.dispose();
  }
}

/** Returns the packed module's bytes and figures, or throws if the module is not one it can pack. */
export function packWasm(input) {
  const bytes = Buffer.from(input);
  const sections = readSections(bytes);
  const find = (id) => sections.find((s) => s.id === id);
  const data = find(11);
  if (!data) return { bytes, packed: false };
  // the data segments: all active, memory 0, at constant addresses
  const c = new Cursor(data.body);
  const segments = [];
  for (let n = c.u(); n > 0; n--) {
    const flag = c.u();
    if (flag !== 0) throw new Error("only active data segments of memory 0 can be packed");
    if (data.body[c.p++] !== 0x41) throw new Error("a data segment's offset is not an i32.const");
    const at = c.s32();
    if (data.body[c.p++] !== 0x0b) throw new Error("a data segment's offset is not a constant");
    const len = c.u();
    segments.push({ at: at >>> 0, bytes: data.body.subarray(c.p, c.p + len) });
    c.p += len;
  }
  if (segments.length === 0) return { bytes, packed: false };
  const lo = Math.min(...segments.map((s) => s.at));
  const hi = Math.max(...segments.map((s) => s.at + s.bytes.length));
  const image = new Uint8Array(hi - lo);
  for (const s of segments) image.set(s.bytes, s.at - lo);
  const records = toRecords(image);
  const packed = lzCompress(records, 2);
  const check = decompress(packed, image.length);
  if (!Buffer.from(check).equals(Buffer.from(image))) throw new Error("internal error: the packed image does not unpack to the original");
  // the scratch space for the packed bytes: after the image, within the initial memory
  const mem = find(5);
  if (!mem) throw new Error("the module defines no memory");
  const mc = new Cursor(mem.body);
  if (mc.u() !== 1) throw new Error("expected one memory");
  const limitsFlag = mc.u();
  if (limitsFlag > 1) throw new Error("unsupported memory limits");
  let initial = mc.u();
  const maximum = limitsFlag === 1 ? mc.u() : null;
  // Where things go: the records after the image, past the zeros that the last object may run
  // into (and a zero byte before them: the first literal's context); the packed bytes and the
  // probabilities inside the image (rewritten whole after the LZ stage) where they fit, else
  // after the records. Where that needs more than the initial memory, the records go inside
  // the image, far enough up that no record's output reaches a record byte not yet read (and
  // an object's output not its own bytes), and
  // the packed bytes and the probabilities after both.
  const align = (v) => (v + 15) & ~15;
  const layout = { length: packed.length, tLength: records.length, image: lo, size: image.length };
  const place = (recordsAt, scratchInside) => {
    layout.records = recordsAt;
    layout.scratch = scratchInside ? align(lo) : align(Math.max(hi, recordsAt + records.length));
    layout.probs = align(layout.scratch + packed.length);
    return Math.max(recordsAt + records.length, layout.probs + P_COUNT * 2);
  };
  let used = place(align(hi) + 32, true);
  if (layout.probs + P_COUNT * 2 > hi) used = place(align(hi) + 32, false);
  if (used > initial * 65536) {
    let reach = 0;
    for (let r = 0, o = 0; r < records.length; ) {
      // an object's zeros are written before its bytes are read; raw bytes are copied as by
      // memmove (the record's own bytes may overlap)
      const [kind, , at, end, size] = recordAt(records, r, records.length);
      o += size;
      reach = Math.max(reach, o - (kind === 1 ? end : at));
      r = end;
    }
    const inside = align(lo + reach + 1);
    if (inside < align(hi) + 32) used = place(inside, false);
  }
  const pages = Math.ceil(used / 65536);
  if (pages > initial) {
    if (maximum !== null && pages > maximum) throw new Error("no room in memory for the packed data");
    initial = pages;
  }
  // types: find or add () -> ()
  const typeSec = find(1);
  const tc = new Cursor(typeSec.body);
  const ntypes = tc.u();
  let voidType = -1;
  for (let t = 0; t < ntypes; t++) {
    if (typeSec.body[tc.p++] !== 0x60) throw new Error("unexpected type form");
    const np = tc.u();
    tc.p += np;
    const nr = tc.u();
    tc.p += nr;
    if (np === 0 && nr === 0 && voidType < 0) voidType = t;
  }
  const typesAt = new Cursor(typeSec.body);
  typesAt.u();
  const newTypes = voidType < 0 ? [...uleb(ntypes + 1), ...typeSec.body.subarray(typesAt.p), 0x60, 0x00, 0x00] : null;
  if (voidType < 0) voidType = ntypes;
  // imported functions shift the function index space
  let importedFuncs = 0;
  const imp = find(2);
  if (imp) {
    const ic = new Cursor(imp.body);
    for (let n = ic.u(); n > 0; n--) {
      ic.p += ic.u();
      ic.p += ic.u();
      const kind = imp.body[ic.p++];
      if (kind === 0) {
        ic.u();
        importedFuncs++;
      } else if (kind === 1) {
        ic.p++;
        const f = ic.u();
        ic.u();
        if (f & 1) ic.u();
      } else if (kind === 2) {
        const f = ic.u();
        ic.u();
        if (f & 1) ic.u();
      } else if (kind === 3) ic.p += 2;
      else throw new Error("unexpected import kind");
    }
  }
  const funcSec = find(3);
  const fc = new Cursor(funcSec.body);
  const nfuncs = fc.u();
  const funcTypes = funcSec.body.subarray(fc.p);
  const unpacker = importedFuncs + nfuncs;
  const start = find(8);
  const oldStart = start ? new Cursor(start.body).u() : null;
  const code = find(10);
  const cc = new Cursor(code.body);
  const nbodies = cc.u();
  const body = unpackerBody(layout, oldStart);

  // the new sections, in the order the binary format requires (custom sections kept at the end)
  const replaced = new Map();
  replaced.set(1, newTypes ?? [...typeSec.body]);
  replaced.set(3, [...uleb(nfuncs + 1), ...funcTypes, ...uleb(voidType)]);
  replaced.set(5, [...uleb(1), ...uleb(limitsFlag), ...uleb(initial), ...(maximum === null ? [] : uleb(maximum))]);
  replaced.set(8, uleb(unpacker));
  replaced.set(12, uleb(1));
  replaced.set(10, [...uleb(nbodies + 1), ...code.body.subarray(cc.p), ...uleb(body.length), ...body]);
  replaced.set(11, [...uleb(1), 0x01, ...uleb(packed.length), ...packed]);
  const out = [];
  const emit = (id, content) => out.push(Buffer.from([id, ...uleb(content.length)]), Buffer.from(content));
  for (const id of [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 10, 11]) {
    if (replaced.has(id)) emit(id, replaced.get(id));
    else for (const s of sections) if (s.id === id) emit(id, s.body);
  }
  for (const s of sections) if (s.id === 0) emit(0, s.body);
  const result = Buffer.concat([bytes.subarray(0, 8), ...out]);
  return { bytes: result, packed: true, segments: segments.length, imageBytes: image.length, recordBytes: records.length, packedBytes: packed.length, dataSectionBytes: data.body.length, unpackerBytes: body.length };
}

/** Instantiates both modules and compares every byte of their memory after the start functions ran. */
export async function sameMemoryAfterStart(a, b) {
  const ia = (await WebAssembly.instantiate(a, {})).instance;
  const ib = (await WebAssembly.instantiate(b, {})).instance;
  const ma = new Uint8Array(ia.exports.memory.buffer);
  const mb = new Uint8Array(ib.exports.memory.buffer);
  return Buffer.from(ma).equals(Buffer.from(mb));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const file of process.argv.slice(2)) {
    const before = fs.readFileSync(file);
    const r = packWasm(before);
    if (!r.packed) {
      console.log(`${file}: no data to pack`);
      continue;
    }
    if (!(await sameMemoryAfterStart(before, r.bytes))) {
      console.error(`${file}: the packed module's memory differs from the original's after start; not written`);
      process.exit(1);
    }
    fs.writeFileSync(file, r.bytes);
    console.log(`${file}: ${before.length} -> ${r.bytes.length} bytes (${r.segments} data segments, ${r.dataSectionBytes} bytes, -> one packed segment of ${r.packedBytes} bytes for a ${r.imageBytes}-byte image, ${r.recordBytes} bytes of records; unpacker ${r.unpackerBytes} bytes)`);
  }
}
