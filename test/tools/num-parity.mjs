// Parity check for core/util/num.ts: runs one deterministic batch through the WebAssembly build
// (asc) and the JS build (swc), and compares the outputs byte for byte.
//
//   node test/tools/num-parity.mjs [count-per-kind]   (default 50000)
//
// Works in a scratch directory (NUM_PARITY_DIR or /tmp/numcheck); writes nothing in the repo.
import "assemblyscript/std/portable/index.js";
import { transform } from "@swc/core";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const work = process.env.NUM_PARITY_DIR || "/tmp/numcheck";
const count = Number(process.argv[2] || 50000);
const CHUNK = 500;
const KINDS = 8;
fs.mkdirSync(work, { recursive: true });

const numTs = path.join(root, "core/util/num.ts");
let rel = path.relative(work, numTs).replace(/\.ts$/, "");
if (!rel.startsWith(".")) rel = "./" + rel;

// The batch: portable TypeScript compiled by both asc and swc.
const batch = `
import { parseDecimalToF32, formatF32, formatF64Fixed, formatHexF32, formatF32Bits,
  parseI32, isI32Text, formatI32 } from "${rel}";
import { f32FromBits, f64FromParts } from "${path.relative(work, path.join(root, "core/glue/wasm"))}";

let st: i32 = 1;
function next(): i32 {
  let x: i32 = st;
  x = x ^ (x << 13);
  x = x ^ (x >>> 17);
  x = x ^ (x << 5);
  st = x;
  return x;
}
function below(n: i32): i32 {
  return (next() & 0x7fffffff) % n;
}
function digits(n: i32): string {
  let s: string = "";
  for (let i: i32 = 0; i < n; i++) s = s + String.fromCharCode(48 + below(10));
  return s;
}
function decimal(maxDigits: i32, expLo: i32, expHi: i32): string {
  let s: string = below(4) == 0 ? "-" : "";
  const n: i32 = 1 + below(maxDigits);
  const d: string = digits(n);
  if (below(3) == 0) {
    const p: i32 = below(n + 1);
    const a: string = p == 0 ? "0" : d.substring(0, p);
    const b: string = p == n ? "0" : d.substring(p);
    s = s + a + "." + b;
  } else {
    s = s + d;
  }
  if (below(4) != 0) {
    const e: i32 = expLo + below(expHi - expLo + 1);
    s = s + (below(2) == 0 ? "e" : "E") + formatI32(e);
  }
  return s;
}
function finiteF32(): f64 {
  let b: i32 = next();
  if (((b >> 23) & 0xff) == 0xff) b = b & 0xbfffffff;
  return f32FromBits(b);
}
function one(kind: i32, index: i32): string {
  st = (index + 1) * 7919 + kind * 1000003;
  next();
  next();
  if (kind == 0) {
    const s: string = decimal(40, -60, 50);
    return s + " " + formatF32Bits(parseDecimalToF32(s));
  }
  if (kind == 1) {
    const x: f64 = finiteF32();
    return formatF32(x);
  }
  if (kind == 2) {
    const x: f64 = finiteF32();
    return formatF32Bits(parseDecimalToF32(formatF32(x)));
  }
  if (kind == 3) {
    const hi: i32 = (next() & 0x800fffff) | ((1023 - 40 + below(100)) << 20);
    const x: f64 = f64FromParts(hi, next());
    return formatF64Fixed(x, below(10));
  }
  if (kind == 4) {
    const x: f64 = f64FromParts(next(), next());
    return formatF64Fixed(x, below(10));
  }
  if (kind == 5) {
    const x: f64 = finiteF32();
    return formatHexF32(x) + " " + formatF32Bits(x);
  }
  if (kind == 6) {
    const v: i32 = next();
    const s: string = formatI32(v);
    const t: string = digits(1 + below(12));
    return s + " " + (isI32Text(s) ? "1" : "0") + formatI32(parseI32(s)) + " " + t + (isI32Text(t) ? "1" : "0") + formatI32(parseI32(t));
  }
  // long decimals (fewer of them are cheap enough)
  const s2: string = digits(1 + below(900)) + "e" + formatI32(-950 + below(960));
  return formatF32Bits(parseDecimalToF32(s2));
}
export function runBatch(kind: i32, start: i32, count: i32): string {
  let out: string = "";
  for (let i: i32 = 0; i < count; i++) out = out + one(kind, start + i) + "\\n";
  return out;
}
`;
fs.writeFileSync(path.join(work, "batch.ts"), batch);

// --- WebAssembly builds (run from the scratch directory so no asconfig.json applies)
const asc = path.join(root, "node_modules/.bin/asc");
const variants = [
  ["O3", ["--optimizeLevel", "3", "--shrinkLevel", "0"]],
  ["Oz", ["--optimizeLevel", "2", "--shrinkLevel", "2"]],
];
const wasmRunners = [];
for (const [name, flags] of variants) {
  const out = path.join(work, "batch-" + name + ".wasm");
  execFileSync(asc, ["batch.ts", "--outFile", out, "--runtime", "minimal", "--exportRuntime", ...flags], {
    cwd: work,
    stdio: "inherit",
  });
  const mod = new WebAssembly.Module(fs.readFileSync(out));
  const inst = new WebAssembly.Instance(mod, {
    env: {
      abort: () => {
        throw new Error("wasm abort");
      },
    },
  });
  const ex = inst.exports;
  wasmRunners.push([
    name,
    (kind, start, n) => {
      const ptr = ex.runBatch(kind, start, n) >>> 0;
      const mem = new Uint8Array(ex.memory.buffer);
      const len = new Uint32Array(ex.memory.buffer, ptr - 4, 1)[0];
      const s = Buffer.from(mem.subarray(ptr, ptr + len)).toString("utf16le");
      ex.__collect();
      return s;
    },
  ]);
}

// --- JS build (swc, glue swapped to core/glue/js.ts)
async function swc(file, outName, replacements) {
  let code = (await transform(fs.readFileSync(file, "utf8"), {
    filename: file,
    jsc: { parser: { syntax: "typescript" }, target: "es2022" },
  })).code;
  for (const [from, to] of replacements) code = code.split('"' + from + '"').join('"' + to + '"');
  fs.writeFileSync(path.join(work, outName), code);
}
await swc(path.join(root, "core/glue/js.ts"), "glue-js.mjs", []);
await swc(path.join(root, "core/util/text.ts"), "text.mjs", []);
await swc(numTs, "num.mjs", [["../glue/wasm", "./glue-js.mjs"], ["./text", "./text.mjs"]]);
await swc(path.join(work, "batch.ts"), "batch.mjs", [
  [rel, "./num.mjs"],
  [path.relative(work, path.join(root, "core/glue/wasm")), "./glue-js.mjs"],
]);
const js = await import(pathToFileURL(path.join(work, "batch.mjs")).href);

// --- compare
const hash = createHash("sha256");
let mismatches = 0;
let lines = 0;
const t0 = Date.now();
for (let kind = 0; kind < KINDS; kind++) {
  const n = kind === 7 ? Math.ceil(count / 10) : count;
  for (let start = 0; start < n; start += CHUNK) {
    const m = Math.min(CHUNK, n - start);
    const a = js.runBatch(kind, start, m);
    hash.update(a);
    lines += m;
    for (const [name, run] of wasmRunners) {
      const b = run(kind, start, m);
      if (a !== b) {
        const la = a.split("\n");
        const lb = b.split("\n");
        for (let i = 0; i < la.length; i++) {
          if (la[i] !== lb[i]) {
            mismatches++;
            if (mismatches <= 20) console.log("MISMATCH " + name + " kind " + kind + " #" + (start + i) + "\n  js:   " + la[i] + "\n  wasm: " + lb[i]);
          }
        }
      }
    }
  }
}
console.log(
  lines + " outputs per build, " + wasmRunners.length + " wasm variants, " + mismatches + " mismatches, sha256 " +
    hash.digest("hex").slice(0, 16) + ", " + (Date.now() - t0) + " ms",
);
process.exit(mismatches === 0 ? 0 : 1);
