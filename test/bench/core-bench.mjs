// npm run bench:core — times the core in both engines (a benchmark, not a test).
// For every built-in case (and a set of plan option variants, and the validation matrix's
// reductions) it measures, per engine, the median time of one warm `validate`, `plan` and `emit`
// request (emit = plan, MSL and audit) through the public interfaces (the WebAssembly module by
// its bytes-in/bytes-out export, the JS module by `call`), and prints per kind: the median over
// kernels of each engine, the slowest kernel of each, the median WASM/JS ratio of the same
// requests in the same run, and both WebAssembly sizes. Arguments: --rounds N (default 30),
// --json (one JSON object on stdout instead of the table).
import { loadEngine } from "../../dist/tile-shell.mjs";
import fs from "node:fs";
import path from "node:path";

const rounds = Number(process.argv[process.argv.indexOf("--rounds") + 1]) || 30;
const wasm = await loadEngine("wasm");
const js = await loadEngine("js");
const cases = wasm.call({ command: "cases" }).cases;
const variants = [
  {},
  { programsPerGroup: 1, threads: 256, vector: 4 },
  { programsPerGroup: 2, threads: 512, vector: 4 },
  { programsPerGroup: 3 },
  { programsPerGroup: 8, threads: 256, vector: 1 },
  { cacheInput: false, unroll: 3 },
];
const matrixFile = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "..", "shell-node", "matrix.json");
const requests = [];
for (const c of cases) {
  requests.push({ label: c.name, kind: "validate", req: JSON.stringify({ command: "validate", document: c.text }) });
  for (const options of variants) {
    requests.push({ label: c.name + " " + JSON.stringify(options), kind: "plan", req: JSON.stringify({ command: "plan", document: c.text, options }) });
    requests.push({ label: c.name + " " + JSON.stringify(options), kind: "emit", req: JSON.stringify({ command: "emit", document: c.text, options }) });
  }
}
if (fs.existsSync(matrixFile)) {
  const matrix = JSON.parse(fs.readFileSync(matrixFile, "utf8"));
  for (const m of matrix.reductions ?? []) {
    const c = cases.find((x) => x.name === m.case);
    if (c) requests.push({ label: m.id, kind: "plan", req: JSON.stringify({ command: "plan", document: c.text, options: m.options }) });
    if (c) requests.push({ label: m.id, kind: "emit", req: JSON.stringify({ command: "emit", document: c.text, options: m.options }) });
  }
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

const labels = {};
function timeAll(engine, kind) {
  const perRequest = [];
  labels[kind] = requests.filter((x) => x.kind === kind).map((x) => x.label);
  for (const r of requests.filter((x) => x.kind === kind)) {
    for (let i = 0; i < 3; i++) engine.callText(r.req); // warm-up
    const samples = [];
    for (let i = 0; i < rounds; i++) {
      const t0 = process.hrtime.bigint();
      engine.callText(r.req);
      samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    perRequest.push(median(samples));
  }
  return perRequest;
}

// warm both engines on every request first (the JS engine's JIT tiers up over many calls), so
// "warm" means warm for the first kernel timed as much as for the last
for (let pass = 0; pass < 10; pass++) for (const r of requests) { wasm.callText(r.req); js.callText(r.req); }

// alternate the engine order per kind so neither always runs first
const out = [];
for (const [kind, order] of [["validate", [wasm, js]], ["plan", [js, wasm]], ["emit", [wasm, js]]]) {
  const res = {};
  for (const e of order) res[e.name] = timeAll(e, kind);
  const ratios = res.wasm.map((w, i) => w / res.js[i]);
  const sum = (xs) => xs.reduce((a, b) => a + b, 0);
  const slowestAt = res.wasm.indexOf(Math.max(...res.wasm));
  const slowestJsAt = res.js.indexOf(Math.max(...res.js));
  out.push({ kind, slowestLabel: labels[kind][slowestAt], slowestJsLabel: labels[kind][slowestJsAt], totalWasmMs: sum(res.wasm), totalJsMs: sum(res.js), requests: res.wasm.length, wasmMedianMs: median(res.wasm), jsMedianMs: median(res.js), wasmOverJsMedianRatio: median(ratios), wasmMaxMs: Math.max(...res.wasm), jsMaxMs: Math.max(...res.js) });
}
const wasmBytes = fs.statSync(new URL("../../dist/tile-core.wasm", import.meta.url)).size;
const smallBytes = fs.statSync(new URL("../../dist/tile-core.small.wasm", import.meta.url)).size;
if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ rounds, wasmBytes, smallBytes, kinds: out }, null, 1));
} else {
  console.log(`core sizes: release ${wasmBytes} bytes (${(wasmBytes / 1024).toFixed(1)} KiB), small ${smallBytes} bytes (${(smallBytes / 1024).toFixed(1)} KiB); rounds ${rounds}`);
  for (const o of out) {
    console.log(`${o.kind.padEnd(8)} ${String(o.requests).padStart(4)} kernels  median per kernel: wasm ${o.wasmMedianMs.toFixed(4)} ms, js ${o.jsMedianMs.toFixed(4)} ms; median wasm/js ratio ${o.wasmOverJsMedianRatio.toFixed(3)}`);
    console.log(`${"".padEnd(14)}slowest: wasm ${o.wasmMaxMs.toFixed(4)} ms (${o.slowestLabel}), js ${o.jsMaxMs.toFixed(4)} ms (${o.slowestJsLabel}); sum of medians: wasm ${o.totalWasmMs.toFixed(3)} ms, js ${o.totalJsMs.toFixed(3)} ms`);
  }
}
