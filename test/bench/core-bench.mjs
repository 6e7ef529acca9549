// npm run bench:core — times the core in both engines (a benchmark, not a test).
// For every built-in case (and a set of plan option variants, and the validation matrix's
// reductions) it measures, per engine, the median time of one warm `validate`, `plan` and `emit`
// request (emit = plan, MSL and audit) through the public interfaces (the WebAssembly module by
// its bytes-in/bytes-out export, the JS module by `call`). A second group, "fuzz", times `plan`
// and `emit` for fuzz documents: a fixed number of documents from each generator the fuzz tests
// use (test/fuzz/gen.ts `caseArb`, test/fuzz/structural.ts `structArb`), drawn with a fixed seed.
// Every request is warmed in both engines first. Per group and kind it prints the median over
// documents of each engine's per-document median, the "slowest": the largest per-document median
// (so one burst of load from other jobs during a few rounds does not decide it) and which document
// that is, the raw maximum of all single rounds beside it, the median WASM/JS ratio of the same
// requests in the same run, and both WebAssembly sizes.
// Arguments: --rounds N (default 30), --fuzz N documents per generator (default 50, 0 for none),
// --seed S (default 20261201), --dist DIR (time another build: DIR holds tile-shell.mjs,
// tile-core.mjs and the .wasm files, and DIR/.. tile's package.json), --json (one JSON object).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { VARIANTS, fuzzDocs } from "./fuzz-docs.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const args = process.argv.slice(2);
function arg(name, fallback) {
  const i = args.indexOf(name);
  return i < 0 ? fallback : args[i + 1];
}
function count(name, fallback) {
  const v = arg(name, String(fallback));
  if (!/^\d+$/.test(v ?? "")) {
    console.error(`bench:core: ${name} expects a non-negative integer`);
    process.exit(2);
  }
  return Number(v);
}
const rounds = Math.max(1, count("--rounds", 30));
const fuzzCount = count("--fuzz", 50);
const seed = count("--seed", 20261201);
const dist = path.resolve(arg("--dist", path.join(root, "dist")));
const { loadEngine } = await import(pathToFileURL(path.join(dist, "tile-shell.mjs")).href);
const wasm = await loadEngine("wasm");
const js = await loadEngine("js");
const cases = wasm.call({ command: "cases" }).cases;
const variants = VARIANTS;
const requests = [];
for (const c of cases) {
  requests.push({ group: "built-in", label: c.name, kind: "validate", req: JSON.stringify({ command: "validate", document: c.text }) });
  for (const options of variants) {
    for (const kind of ["plan", "emit"]) requests.push({ group: "built-in", label: c.name + " " + JSON.stringify(options), kind, req: JSON.stringify({ command: kind, document: c.text, options }) });
  }
}
const matrixFile = path.join(root, "shell-node", "matrix.json");
if (fs.existsSync(matrixFile)) {
  const matrix = JSON.parse(fs.readFileSync(matrixFile, "utf8"));
  for (const m of matrix.reductions ?? []) {
    const c = cases.find((x) => x.name === m.case);
    if (c) for (const kind of ["plan", "emit"]) requests.push({ group: "built-in", label: m.id, kind, req: JSON.stringify({ command: kind, document: c.text, options: m.options }) });
  }
}

// the fuzz generators' documents (fuzz-docs.mjs transpiles the test suite's TypeScript modules)
if (fuzzCount > 0) {
  const docs = await fuzzDocs(root, seed, fuzzCount);
  for (const d of docs) {
    const document = JSON.stringify(d.doc);
    for (const kind of ["plan", "emit"]) requests.push({ group: "fuzz", label: d.label, kind, req: JSON.stringify({ command: kind, document, options: d.options }) });
  }
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Per request of the list: the median of its rounds and the largest single round. */
function timeAll(engine, list) {
  const med = [];
  const max = [];
  for (const r of list) {
    for (let i = 0; i < 3; i++) engine.callText(r.req); // warm-up
    const samples = [];
    for (let i = 0; i < rounds; i++) {
      const t0 = process.hrtime.bigint();
      engine.callText(r.req);
      samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    med.push(median(samples));
    max.push(Math.max(...samples));
  }
  return { med, max };
}

// warm both engines on every request first (the JS engine's JIT tiers up over many calls), so
// "warm" means warm for the first document timed as much as for the last
for (let pass = 0; pass < 10; pass++) for (const r of requests) { wasm.callText(r.req); js.callText(r.req); }

// alternate the engine order per kind so neither always runs first
const out = [];
const slots = [["built-in", "validate", [wasm, js]], ["built-in", "plan", [js, wasm]], ["built-in", "emit", [wasm, js]], ["fuzz", "plan", [wasm, js]], ["fuzz", "emit", [js, wasm]]];
for (const [group, kind, order] of slots) {
  const list = requests.filter((x) => x.group === group && x.kind === kind);
  if (list.length === 0) continue;
  const res = {};
  for (const e of order) res[e.name] = timeAll(e, list);
  const o = { group, kind, requests: list.length, medianRatio: median(res.wasm.med.map((w, i) => w / res.js.med[i])) };
  for (const name of ["wasm", "js"]) {
    const { med, max } = res[name];
    const at = med.indexOf(Math.max(...med));
    o[name] = { medianMs: median(med), slowestMs: med[at], slowest: list[at].label, rawMaxMs: Math.max(...max), sumOfMediansMs: med.reduce((a, b) => a + b, 0) };
  }
  out.push(o);
}
// overall emit slowest per engine: built-in and fuzz documents together
const overall = {};
for (const name of ["wasm", "js"]) {
  const emits = out.filter((o) => o.kind === "emit");
  const worst = emits.reduce((a, b) => (b[name].slowestMs > a[name].slowestMs ? b : a));
  overall[name] = { slowestMs: worst[name].slowestMs, slowest: `${worst.group}: ${worst[name].slowest}`, rawMaxMs: Math.max(...emits.map((o) => o[name].rawMaxMs)) };
}
const wasmBytes = fs.statSync(path.join(dist, "tile-core.wasm")).size;
const smallBytes = fs.statSync(path.join(dist, "tile-core.small.wasm")).size;
if (args.includes("--json")) {
  console.log(JSON.stringify({ rounds, fuzzPerGenerator: fuzzCount, seed, wasmBytes, smallBytes, loadAverage: os.loadavg(), kinds: out, emitSlowest: overall }, null, 1));
} else {
  const ms = (x) => x.toFixed(4) + " ms";
  console.log(`core sizes: release ${wasmBytes} bytes (${(wasmBytes / 1024).toFixed(1)} KiB), small ${smallBytes} bytes (${(smallBytes / 1024).toFixed(1)} KiB); rounds ${rounds}; fuzz: ${fuzzCount} documents per generator, seed ${seed}`);
  console.log(`"slowest" = the largest per-document median over the rounds; "raw max" = the largest single round`);
  for (const o of out) {
    console.log(`${(o.group + " " + o.kind).padEnd(17)} ${String(o.requests).padStart(4)} requests  median: wasm ${ms(o.wasm.medianMs)}, js ${ms(o.js.medianMs)}; median wasm/js ratio ${o.medianRatio.toFixed(3)}`);
    for (const name of ["wasm", "js"]) console.log(`${"".padEnd(23)}${name.padEnd(4)} slowest ${ms(o[name].slowestMs)} (${o[name].slowest}), raw max ${ms(o[name].rawMaxMs)}, sum of medians ${o[name].sumOfMediansMs.toFixed(3)} ms`);
  }
  for (const name of ["wasm", "js"]) console.log(`emit slowest, built-in or fuzz, ${name.padEnd(4)}: ${ms(overall[name].slowestMs)} (${overall[name].slowest}); raw max ${ms(overall[name].rawMaxMs)}`);
  console.log(`load average at the end: ${os.loadavg().map((x) => x.toFixed(2)).join(", ")}`);
}
