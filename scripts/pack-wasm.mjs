// Stores a WebAssembly module's static data compactly (part of `npm run build:core`; see
// ARCHITECTURE.md, "Size of the WebAssembly build").
//
//   node scripts/pack-wasm.mjs <module.wasm>...     rewrites each module in place
//
// AssemblyScript lays out every static string as a 20-byte object header plus UTF-16 text, in
// thousands of active data segments. This replaces all of them with one passive segment holding
// the same memory image, LZ-compressed, and a start function (a few hundred bytes of hand-written
// code) that unpacks the image to the addresses the segments named, clears the scratch space it
// used, drops the segment and then calls the module's own start function. Storage only: no code
// of the module changes, and after instantiation memory holds exactly the bytes it held without
// packing. The script checks that on every module it writes (instantiating both and comparing
// every byte of memory) and refuses to write one that differs.
import fs from "node:fs";
import { pathToFileURL } from "node:url";

// ---- the encoding ---------------------------------------------------------------------------
// A sequence of commands, each an unsigned LEB128 number c with k = c >>> 2:
//   c & 3 == 0: k literal bytes follow;
//   c & 3 == 1: k bytes follow, each written followed by a zero byte (ASCII text stored as UTF-16);
//   c & 3 == 2: k zero bytes (memory is zero already: the output position just moves on);
//   c & 3 == 3: a LEB128 distance d follows; copy k bytes from d bytes back (may overlap).

const MIN_MATCH = 4;
const CHAIN = 256;

/** Compresses `img` (a Uint8Array) into the command sequence above. Deterministic. */
export function compress(img) {
  const out = [];
  const leb = (v) => {
    do {
      const x = v & 0x7f;
      v >>>= 7;
      out.push(v ? x | 0x80 : x);
    } while (v);
  };
  const n = img.length;
  const head = new Map();
  const prev = new Int32Array(n).fill(-1);
  const key = (i) => (img[i] | (img[i + 1] << 8) | (img[i + 2] << 16) | (img[i + 3] << 24)) >>> 0;
  const insert = (i) => {
    if (i + MIN_MATCH > n) return;
    const k = key(i);
    const h = head.get(k);
    prev[i] = h === undefined ? -1 : h;
    head.set(k, i);
  };
  const longest = (i) => {
    let bestLen = 0;
    let bestDist = 0;
    if (i + MIN_MATCH > n) return [0, 0];
    let j = head.get(key(i));
    let steps = 0;
    while (j !== undefined && j >= 0 && steps++ < CHAIN) {
      let l = 0;
      while (i + l < n && img[j + l] === img[i + l]) l++;
      if (l > bestLen) {
        bestLen = l;
        bestDist = i - j;
      }
      j = prev[j];
    }
    return [bestLen, bestDist];
  };
  const wideAt = (lit, k) => {
    let w = 0;
    while (k + 2 * w + 1 < lit.length && lit[k + 2 * w + 1] === 0 && lit[k + 2 * w] !== 0) w++;
    return w;
  };
  const zerosAt = (lit, k) => {
    let z = 0;
    while (k + z < lit.length && lit[k + z] === 0) z++;
    return z;
  };
  let lit = [];
  const flush = () => {
    let k = 0;
    while (k < lit.length) {
      const w = wideAt(lit, k);
      if (w >= 3) {
        leb((w << 2) | 1);
        for (let q = 0; q < w; q++) out.push(lit[k + 2 * q]);
        k += 2 * w;
        continue;
      }
      const z = zerosAt(lit, k);
      if (z >= 3) {
        leb((z << 2) | 2);
        k += z;
        continue;
      }
      let e = k + 1;
      while (e < lit.length && wideAt(lit, e) < 3 && zerosAt(lit, e) < 3) e++;
      leb(((e - k) << 2) | 0);
      for (let q = k; q < e; q++) out.push(lit[q]);
      k = e;
    }
    lit = [];
  };
  let i = 0;
  while (i < n) {
    const [l, d] = longest(i);
    if (l >= MIN_MATCH && longest(i + 1)[0] <= l + 1) {
      flush();
      leb((l << 2) | 3);
      leb(d);
      for (let q = 0; q < l; q++) insert(i + q);
      i += l;
    } else {
      lit.push(img[i]);
      insert(i);
      i++;
    }
  }
  flush();
  return Uint8Array.from(out);
}

/** The reference decoder (the module's start function does the same in WebAssembly). */
export function decompress(src, n) {
  const dst = new Uint8Array(n);
  let s = 0;
  let o = 0;
  const leb = () => {
    let r = 0;
    let sh = 0;
    let x;
    do {
      x = src[s++];
      r |= (x & 0x7f) << sh;
      sh += 7;
    } while (x & 0x80);
    return r >>> 0;
  };
  while (s < src.length) {
    const c = leb();
    const k = c >>> 2;
    if ((c & 3) === 0) for (let q = 0; q < k; q++) dst[o++] = src[s++];
    else if ((c & 3) === 1) for (let q = 0; q < k; q++, o += 2) dst[o] = src[s++];
    else if ((c & 3) === 2) o += k;
    else {
      const d = leb();
      for (let q = 0; q < k; q++, o++) dst[o] = dst[o - d];
    }
  }
  return dst;
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

function vec(items) {
  return [...uleb(items.length), ...items.flat()];
}

/** Builds the unpacking function's body (locals and code). */
function unpackerBody(scratch, length, imageStart, oldStart) {
  // locals: 0 s (source), 1 e (source end), 2 o (output), 3 c (command), 4 k (count),
  // 5 x (byte), 6 sh (shift), 7 d (distance)
  const [S, E, O, C, K, X, SH, D] = [0, 1, 2, 3, 4, 5, 6, 7];
  const get = (l) => [0x20, l];
  const set = (l) => [0x21, l];
  const i32 = (v) => [0x41, ...sleb(v)];
  const ADD = 0x6a, SUB = 0x6b, AND = 0x71, OR = 0x72, SHL = 0x74, SHRU = 0x76, GEU = 0x4f;
  const load8 = [0x2d, 0x00, 0x00];
  const store8 = [0x3a, 0x00, 0x00];
  const BLOCK = [0x02, 0x40], LOOP = [0x03, 0x40], END = 0x0b;
  const br = (d) => [0x0c, d];
  const brIf = (d) => [0x0d, d];
  // reads a LEB128 number at s into `into` (a loop at depth +1 of where it is placed)
  const readLeb = (into) => [
    ...i32(0), ...set(into), ...i32(0), ...set(SH),
    ...LOOP,
    ...get(S), ...load8, ...set(X),
    ...get(S), ...i32(1), ADD, ...set(S),
    ...get(into), ...get(X), ...i32(0x7f), AND, ...get(SH), SHL, OR, ...set(into),
    ...get(SH), ...i32(7), ADD, ...set(SH),
    ...get(X), ...i32(0x80), AND, ...brIf(0),
    END,
  ];
  const code = [
    // memory.init 0: the packed bytes to the scratch space
    ...i32(scratch), ...i32(0), ...i32(length), 0xfc, 0x08, 0x00, 0x00,
    ...i32(scratch), ...set(S), ...i32(scratch + length), ...set(E), ...i32(imageStart), ...set(O),
    ...BLOCK, // $done (depth from the command loop: 1)
    ...LOOP, // $next (depth from inside it: 0)
    ...get(S), ...get(E), GEU, ...brIf(1),
    ...readLeb(C),
    ...get(C), ...i32(2), SHRU, ...set(K),
    ...BLOCK, ...BLOCK, ...BLOCK, ...BLOCK, // $b3 $b2 $b1 $b0
    ...get(C), ...i32(3), AND, 0x0e, 0x03, 0x00, 0x01, 0x02, 0x03,
    END,
    // 0: literal bytes (depths: $b1 0, $b2 1, $b3 2, $next 3, $done 4)
    ...get(O), ...get(S), ...get(K), 0xfc, 0x0a, 0x00, 0x00,
    ...get(O), ...get(K), ADD, ...set(O), ...get(S), ...get(K), ADD, ...set(S),
    ...br(3),
    END,
    // 1: bytes each followed by a zero (depths: $b2 0, $b3 1, $next 2)
    ...LOOP,
    ...get(O), ...get(S), ...load8, ...store8,
    ...get(O), ...i32(2), ADD, ...set(O), ...get(S), ...i32(1), ADD, ...set(S),
    ...get(K), ...i32(1), SUB, 0x22, K, ...brIf(0),
    END,
    ...br(2),
    END,
    // 2: zero bytes (depths: $b3 0, $next 1)
    ...get(O), ...get(K), ADD, ...set(O),
    ...br(1),
    END,
    // 3: a copy from d bytes back (depths: $next 0)
    ...readLeb(D),
    ...LOOP,
    ...get(O), ...get(O), ...get(D), SUB, ...load8, ...store8,
    ...get(O), ...i32(1), ADD, ...set(O),
    ...get(K), ...i32(1), SUB, 0x22, K, ...brIf(0),
    END,
    ...br(0),
    END, // $next
    END, // $done
    // clear the scratch space, drop the segment, run the module's own start function
    ...i32(scratch), ...i32(0), ...i32(length), 0xfc, 0x0b, 0x00,
    0xfc, 0x09, 0x00,
    ...(oldStart === null ? [] : [0x10, ...uleb(oldStart)]),
    END,
  ];
  return [...uleb(1), ...uleb(8), 0x7f, ...code];
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
  const packed = compress(image);
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
  const scratch = (hi + 15) & ~15;
  const pages = Math.ceil((scratch + packed.length) / 65536);
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
  const body = unpackerBody(scratch, packed.length, lo, oldStart);

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
  return { bytes: result, packed: true, segments: segments.length, imageBytes: image.length, packedBytes: packed.length, dataSectionBytes: data.body.length };
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
    console.log(`${file}: ${before.length} -> ${r.bytes.length} bytes (${r.segments} data segments, ${r.dataSectionBytes} bytes, -> one packed segment of ${r.packedBytes} bytes for a ${r.imageBytes}-byte image)`);
  }
}
