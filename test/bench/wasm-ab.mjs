// node test/bench/wasm-ab.mjs A.wasm B.wasm [--rounds N] [--fuzz N] [--seed S] [--json]
//   [--save-requests FILE] [--requests FILE]   (write the request list / read it instead of
//                                               making it: then neither node_modules nor the
//                                               JS build is needed)
// Compares two builds of the WebAssembly core in one process, request by request: for every
// request of `npm run bench:core` (plan and emit of the built-in cases, option variants and
// matrix reductions, and of the fuzz documents) it times N rounds of A, then N of B, then N of B,
// then N of A, the next request B A A B (so neither always runs first), and reports per kind the median over
// requests of B's median / A's median, and the ratio of the sums of medians. Load from other jobs
// hits both modules alike, which is what makes this steadier than two bench:core runs.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const args = process.argv.slice(2);
function arg(name, fallback) {
  const i = args.indexOf(name);
  return i < 0 ? fallback : args[i + 1];
}
const valued = new Set(["--rounds", "--fuzz", "--seed", "--save-requests", "--requests"]);
const files = args.filter((a, i) => !a.startsWith("--") && !(i > 0 && valued.has(args[i - 1])));
if (files.length !== 2) {
  console.error("usage: node test/bench/wasm-ab.mjs A.wasm B.wasm [--rounds N] [--fuzz N] [--seed S] [--json]");
  process.exit(2);
}
const rounds = Number(arg("--rounds", "20"));
const fuzzCount = Number(arg("--fuzz", "50"));
const seed = Number(arg("--seed", "20261201"));

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });
function engine(file) {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(file)), {});
  const e = instance.exports;
  if (typeof e._initialize === "function") e._initialize();
  return (bytes) => {
    const ptr = e.tile_alloc(bytes.length) >>> 0;
    new Uint8Array(e.memory.buffer, ptr, bytes.length).set(bytes);
    const n = e.tile_call(bytes.length);
    const at = e.tile_result() >>> 0;
    return new Uint8Array(e.memory.buffer, at, n).slice();
  };
}
const A = engine(files[0]);
const B = engine(files[1]);
const call = (f, req) => JSON.parse(decoder.decode(f(encoder.encode(JSON.stringify(req)))));

let requests = [];
if (arg("--requests", null) !== null) requests = JSON.parse(fs.readFileSync(arg("--requests", null), "utf8"));
else {
  const cases = call(A, { command: "cases" }).cases;
  const { VARIANTS: variants } = await import("./fuzz-docs.mjs");
  for (const c of cases) for (const options of variants) for (const kind of ["plan", "emit"]) requests.push({ group: "built-in", kind, req: { command: kind, document: c.text, options } });
  const matrixFile = path.join(root, "shell-node", "matrix.json");
  if (fs.existsSync(matrixFile)) {
    const matrix = JSON.parse(fs.readFileSync(matrixFile, "utf8"));
    for (const m of matrix.reductions ?? []) {
      const c = cases.find((x) => x.name === m.case);
      if (c) for (const kind of ["plan", "emit"]) requests.push({ group: "built-in", kind, req: { command: kind, document: c.text, options: m.options } });
    }
  }
  if (fuzzCount > 0) {
    const { fuzzDocs } = await import("./fuzz-docs.mjs");
    const docs = await fuzzDocs(root, seed, fuzzCount);
    for (const d of docs) for (const kind of ["plan", "emit"]) requests.push({ group: "fuzz", kind, req: { command: kind, document: JSON.stringify(d.doc), options: d.options } });
  }
}
if (arg("--save-requests", null) !== null) fs.writeFileSync(arg("--save-requests", null), JSON.stringify(requests));
for (const r of requests) r.bytes = encoder.encode(JSON.stringify(r.req));

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
function time(f, bytes, n, into) {
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    f(bytes);
    into.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}
// the same responses from both, and warm both
for (const r of requests) {
  const a = A(r.bytes);
  const b = B(r.bytes);
  if (Buffer.compare(Buffer.from(a), Buffer.from(b)) !== 0) throw new Error("the two modules answer differently: " + JSON.stringify(r.req).slice(0, 200));
}
for (let pass = 0; pass < 5; pass++) for (const r of requests) { A(r.bytes); B(r.bytes); }
const half = Math.max(1, Math.ceil(rounds / 2));
const res = {};
for (const [k, r] of requests.entries()) {
  const sa = [];
  const sb = [];
  // A B B A, then B A A B for the next request: neither module always runs first on a request
  const [x, sx, y, sy] = k % 2 === 0 ? [A, sa, B, sb] : [B, sb, A, sa];
  time(x, r.bytes, half, sx);
  time(y, r.bytes, half, sy);
  time(y, r.bytes, half, sy);
  time(x, r.bytes, half, sx);
  const key = r.group + " " + r.kind;
  (res[key] ??= []).push({ a: median(sa), b: median(sb) });
}
const out = {};
for (const [key, list] of Object.entries(res)) {
  out[key] = {
    requests: list.length,
    medianA: median(list.map((x) => x.a)),
    medianB: median(list.map((x) => x.b)),
    medianRatio: median(list.map((x) => x.b / x.a)),
    sumRatio: list.reduce((s, x) => s + x.b, 0) / list.reduce((s, x) => s + x.a, 0),
  };
}
const sizes = files.map((f) => fs.statSync(f).size);
if (args.includes("--json")) console.log(JSON.stringify({ files, sizes, rounds: 4 * half, loadAverage: os.loadavg(), kinds: out }));
else {
  console.log(`A ${files[0]} (${sizes[0]} B), B ${files[1]} (${sizes[1]} B), ${2 * half} rounds each per request`);
  for (const [key, o] of Object.entries(out)) console.log(`${key.padEnd(15)} ${String(o.requests).padStart(4)} requests  median A ${o.medianA.toFixed(4)} ms, B ${o.medianB.toFixed(4)} ms; B/A median ${o.medianRatio.toFixed(3)}, sums ${o.sumRatio.toFixed(3)}`);
  console.log(`load average: ${os.loadavg().map((x) => x.toFixed(2)).join(", ")}`);
}
