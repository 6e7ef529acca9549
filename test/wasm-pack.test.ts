// scripts/pack-wasm.mjs (run by `npm run build:core`) stores a module's static data as one
// compressed passive segment that a prepended start function unpacks. These check that it is a
// storage change only: after instantiation every byte of memory is what the unpacked module
// had, the module's own start function sees the unpacked data, and the built core is packed.
import { describe, expect, test } from "vitest";
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import binaryen from "binaryen";
import { compress, decompress, packWasm, sameMemoryAfterStart } from "../scripts/pack-wasm.mjs";
import { DIST_DIR } from "./helpers/files";

/** Bytes like AssemblyScript's static data: object headers, ASCII text as UTF-16, zero runs. */
function asLikeImage(rand: () => number, n: number): Uint8Array {
  const out: number[] = [];
  const words = ["tile", "threadgroup", "float", " = ", "kernel", "\n", "simd_sum(", "noalias", "[[thread_position_in_grid]]"];
  while (out.length < n) {
    const r = rand();
    if (r < 0.5) {
      let s = "";
      const k = 1 + Math.floor(rand() * 8);
      for (let i = 0; i < k; i++) s += words[Math.floor(rand() * words.length)];
      out.push(s.length * 2 + 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, (s.length * 2) & 255, (s.length * 2) >> 8, 0, 0);
      for (const ch of s) out.push(ch.charCodeAt(0), 0);
      while (out.length % 16) out.push(0);
    } else if (r < 0.7) {
      for (let i = Math.floor(rand() * 40); i > 0; i--) out.push(0);
    } else {
      for (let i = Math.floor(rand() * 60); i > 0; i--) out.push(Math.floor(rand() * 256));
    }
  }
  return Uint8Array.from(out.slice(0, n));
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** A module with active data segments at `at`, exported memory, and (optionally) a start
 *  function that copies `copyLen` bytes from the first segment's address to `copyTo` (so it shows
 *  whether it ran after the data was in place). */
function makeModule(segments: { at: number; bytes: Uint8Array }[], start: null | { copyTo: number; copyLen: number }, pages = 2, maxPages = pages): Uint8Array {
  const m = new binaryen.Module();
  m.setFeatures(binaryen.Features.MVP | binaryen.Features.BulkMemory | binaryen.Features.BulkMemoryOpt | binaryen.Features.SignExt | binaryen.Features.MutableGlobals);
  m.setMemory(pages, maxPages, "memory", segments.map((s) => ({ offset: m.i32.const(s.at), data: s.bytes, passive: false })));
  if (start) {
    const f = m.addFunction("init", binaryen.none, binaryen.none, [], m.memory.copy(m.i32.const(start.copyTo), m.i32.const(segments[0].at), m.i32.const(start.copyLen)));
    m.setStart(f);
  }
  m.addFunction("answer", binaryen.none, binaryen.i32, [], m.i32.const(42));
  m.addFunctionExport("answer", "answer");
  if (!m.validate()) throw new Error("invalid test module");
  const bytes = m.emitBinary();
  m.dispose();
  return bytes;
}

function dataSegments(bytes: Uint8Array): { count: number; flags: number[] } {
  // walks the sections for the data section (id 11) and reads each segment's flag
  let p = 8;
  const leb = (): number => {
    let r = 0;
    let sh = 0;
    let x: number;
    do {
      x = bytes[p++];
      r += (x & 0x7f) * 2 ** sh;
      sh += 7;
    } while (x & 0x80);
    return r;
  };
  while (p < bytes.length) {
    const id = bytes[p++];
    const len = leb();
    if (id === 11) {
      const count = leb();
      const flags: number[] = [];
      for (let i = 0; i < count; i++) {
        const flag = leb();
        flags.push(flag);
        if (flag === 0) {
          while (bytes[p] !== 0x0b) p++;
          p++;
        }
        p += leb();
      }
      return { count, flags };
    }
    p += len;
  }
  return { count: 0, flags: [] };
}

describe("the data packer's encoding", () => {
  test("decompress(compress(x)) is x for arbitrary bytes and for text-like images", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), (x) => {
        expect(Buffer.from(decompress(compress(x), x.length)).equals(Buffer.from(x))).toBe(true);
      }),
      { numRuns: 200 },
    );
    for (let seed = 1; seed <= 20; seed++) {
      const img = asLikeImage(seeded(seed), 5000 + seed * 100);
      const packed = compress(img);
      expect(Buffer.from(decompress(packed, img.length)).equals(Buffer.from(img))).toBe(true);
      expect(packed.length).toBeLessThan(img.length / 2);
    }
  });
});

describe("packing a module", () => {
  test("memory after instantiation is byte for byte the unpacked module's, with one passive segment", async () => {
    for (let seed = 1; seed <= 8; seed++) {
      const rand = seeded(seed);
      const segments: { at: number; bytes: Uint8Array }[] = [];
      let at = 1024 + Math.floor(rand() * 64);
      for (let i = 0; i < 30; i++) {
        const bytes = asLikeImage(rand, 8 + Math.floor(rand() * 900));
        segments.push({ at, bytes });
        at += bytes.length + Math.floor(rand() * 50);
      }
      const original = makeModule(segments, { copyTo: 100000, copyLen: 300 }, 2);
      const r = packWasm(original);
      expect(r.packed).toBe(true);
      expect(r.bytes.length).toBeLessThan(original.length);
      expect(dataSegments(r.bytes)).toEqual({ count: 1, flags: [1] });
      expect(await sameMemoryAfterStart(original, r.bytes)).toBe(true);
      // the module's own start function ran after the unpacking: it copied unpacked bytes
      const { instance } = await WebAssembly.instantiate(new Uint8Array(r.bytes), {});
      const mem = new Uint8Array((instance.exports.memory as WebAssembly.Memory).buffer);
      expect(Buffer.from(mem.subarray(100000, 100300)).equals(Buffer.from(mem.subarray(segments[0].at, segments[0].at + 300)))).toBe(true);
      expect(mem.subarray(100000, 100300).some((b) => b !== 0)).toBe(true);
      expect((instance.exports.answer as () => number)()).toBe(42);
    }
  });

  test("the priced parse codes a text-like image shorter than the greedy parse, and unpacks the same", () => {
    const rand = seeded(5);
    const img = asLikeImage(rand, 20000);
    const greedy = compress(img, 0);
    const priced = compress(img);
    expect(priced.length).toBeLessThan(greedy.length); 
    expect(Buffer.from(decompress(priced, img.length)).equals(Buffer.from(img))).toBe(true);
    expect(Buffer.from(decompress(greedy, img.length)).equals(Buffer.from(img))).toBe(true);
  });

  test("a module without a start function gets one; the scratch space is cleared; memory grows if needed", async () => {
    const rand = seeded(7);
    const big = new Uint8Array(60000).map(() => Math.floor(rand() * 256)); // incompressible
    const original = makeModule([{ at: 4096, bytes: big }], null, 1, 4);
    const r = packWasm(original);
    const { instance } = await WebAssembly.instantiate(new Uint8Array(r.bytes), {});
    const mem = new Uint8Array((instance.exports.memory as WebAssembly.Memory).buffer);
    expect(Buffer.from(mem.subarray(4096, 4096 + big.length)).equals(Buffer.from(big))).toBe(true);
    // everything else is zero, as in a fresh memory: the packed bytes were cleared after use
    expect(mem.subarray(0, 4096).every((b) => b === 0)).toBe(true);
    expect(mem.subarray(4096 + big.length).every((b) => b === 0)).toBe(true);
    expect(mem.length).toBeGreaterThan(65536); // one page could not hold the image and the packed bytes
  });

  test("long distances and long matches (numbers of many bits) unpack in WebAssembly as in the reference decoder", async () => {
    // 3 pages: a text-like block, 120 KB of zeros, then the block again with one byte changed and
    // a stretch copied from far back, so distances above 2^16 and lengths in the thousands occur
    const rand = seeded(11);
    const block = asLikeImage(rand, 9000);
    const img = new Uint8Array(150000);
    img.set(block, 0);
    img.set(block, 130000);
    img[134567] ^= 0x5a;
    img.set(block.subarray(100, 4100), 140000);
    const original = makeModule([{ at: 1024, bytes: img }], null, 4, 8);
    const r = packWasm(original);
    expect(r.packedBytes).toBeLessThan(block.length);
    expect(Buffer.from(decompress(compress(img), img.length)).equals(Buffer.from(img))).toBe(true);
    expect(await sameMemoryAfterStart(original, r.bytes)).toBe(true);
  });

  test("AssemblyScript's static objects (strings, wide strings, ArrayBuffers of pointers) unpack exactly, in less than the image", async () => {
    // objects laid out as asc does: mmInfo, gcInfo, gcInfo2, rtId, rtSize, payload, zeros to 16
    const out: number[] = [];
    const u32 = (v: number) => out.push(v & 255, (v >>> 8) & 255, (v >>> 16) & 255, v >>> 24);
    const object = (rtId: number, payload: number[]) => {
      const size = ((payload.length + 19) & ~15) + 16;
      u32(size - 4), u32(0), u32(0), u32(rtId), u32(payload.length);
      out.push(...payload);
      while (out.length % 16) out.push(0);
    };
    const pointers: number[] = [];
    for (let n = 0; n < 60; n++) {
      pointers.push(1024 + out.length + 20);
      const text = Array.from({ length: n }, (_, k) => "kernel tile "[k % 12].charCodeAt(0));
      if (n === 33) text[5] = 0x2192; // a code unit of 16 bits: stays raw
      object(2, text.flatMap((c) => [c & 255, c >> 8]));
    }
    object(1, pointers.flatMap((p) => [p & 255, (p >> 8) & 255, (p >> 16) & 255, p >>> 24]));
    for (let k = 0; k < 12; k++) out.push(k * 37);
    const img = Uint8Array.from(out);
    const original = makeModule([{ at: 1024, bytes: img }], null, 1);
    const r = packWasm(original);
    expect(r.recordBytes).toBeLessThan(img.length / 2);
    expect(Buffer.from(decompress(compress(img), img.length)).equals(Buffer.from(img))).toBe(true);
    expect(await sameMemoryAfterStart(original, r.bytes)).toBe(true);
  });

  test("the built core is packed (one passive data segment) in both WebAssembly builds", () => {
    for (const file of ["tile-core.wasm", "tile-core.small.wasm"]) {
      const bytes = fs.readFileSync(path.join(DIST_DIR, file));
      expect(dataSegments(bytes)).toEqual({ count: 1, flags: [1] });
    }
  });
});
