// Writes scripts/opt-wasm-low-strings.json: the static strings that scripts/opt-wasm.mjs's
// transform lays out first, at the lowest addresses (ARCHITECTURE.md, "Code of the release build").
//
//   1. asc core/index-wasm.ts --target release --transform ./scripts/opt-wasm.mjs -o M.wasm
//   2. node scripts/opt-wasm.mjs --names M.wasm        (the release pipeline, names kept)
//   3. node scripts/wasm-low-strings.mjs M.wasm
//
// Code refers to a static string by the address of its text, an `i32.const` of 2 LEB bytes below
// 8192 and 3 from there to 2^20. This counts those references in the optimized code, per string
// (a string object: its type id 2 and byte size in the 8 bytes before the text), and picks the
// strings with the most references per byte of their objects (20 bytes of header, the text,
// padding to 16) until the objects fill the addresses from 1024 to 8192.
import fs from "node:fs";
import binaryen from "binaryen";

const FIRST = 1024; // where asc starts static data at -O3
const LIMIT = 8192; // the first address an i32.const needs 3 LEB bytes for

binaryen.setDebugInfo(true);
const bytes = fs.readFileSync(process.argv[2]);
const m = binaryen.readBinary(bytes);
const text = m.emitText();
m.dispose();

// the memory image from the data section (active segments at constant offsets)
let p = 8;
const leb = () => {
  let r = 0, shift = 0, x;
  do { x = bytes[p++]; r |= (x & 0x7f) << shift; shift += 7; } while (x & 0x80);
  return r >>> 0;
};
const segments = [];
let top = 0;
while (p < bytes.length) {
  const id = bytes[p++];
  const size = leb();
  const end = p + size;
  if (id === 11) {
    const n = leb();
    for (let i = 0; i < n; i++) {
      if (leb() !== 0 || bytes[p++] !== 0x41) throw new Error("expected an active segment at an i32.const offset");
      const offset = leb(); // the offsets here are below 2^28, so the signed LEB reads as unsigned
      if (bytes[p++] !== 0x0b) throw new Error("expected the end of a segment's offset");
      const length = leb();
      segments.push([offset, bytes.subarray(p, p + length)]);
      top = Math.max(top, offset + length);
      p += length;
    }
  }
  p = end;
}
const image = new Uint8Array(top + 8);
for (const [offset, data] of segments) image.set(data, offset);
const view = new DataView(image.buffer);

const refs = new Map();
for (const c of text.slice(text.indexOf("\n (func ")).matchAll(/\(i32\.const (\d+)\)/g)) {
  const v = Number(c[1]);
  refs.set(v, (refs.get(v) ?? 0) + 1);
}
const strings = [];
for (const [at, n] of refs) {
  if (at < FIRST || at + 4 > top) continue;
  const size = view.getUint32(at - 4, true);
  if (view.getUint32(at - 8, true) !== 2 || (size & 1) !== 0 || at + size > top) continue;
  let s = "";
  for (let i = 0; i < size; i += 2) s += String.fromCharCode(view.getUint16(at + i, true));
  strings.push({ s, n, at, bytes: (20 + size + 15) & ~15 });
}
strings.sort((a, b) => b.n / b.bytes - a.n / a.bytes || b.n - a.n || (a.s < b.s ? -1 : a.s > b.s ? 1 : 0));
const picked = [];
let used = 16; // the first object's alignment
for (const x of strings) {
  if (FIRST + used + x.bytes > LIMIT) continue;
  picked.push(x);
  used += x.bytes;
}
// in the order the module has them (its data compresses better in the order asc chose)
picked.sort((a, b) => a.at - b.at);
const out = new URL("./opt-wasm-low-strings.json", import.meta.url);
fs.writeFileSync(out, "[\n" + picked.map((x) => "  " + JSON.stringify(x.s)).join(",\n") + "\n]\n");
console.log(`${picked.length} strings, ${used} bytes of objects, ${picked.reduce((a, x) => a + x.n, 0)} of ${strings.reduce((a, x) => a + x.n, 0)} references -> ${out.pathname}`);
