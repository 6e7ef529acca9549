// node scripts/exports-check.mjs [-o DIR]
//
// The MLX and PyTorch exports on the machine at hand (the macOS workflow runs it): for every
// built-in case it writes `tile emit --target mlx` and `--target torch-mps` modules, checks that
// they compile (python3 -m py_compile), then runs each on the framework when it is installed
// (scripts/exports-run.py), on the validation inputs, and checks every result against the FP64
// oracle with the run tolerance |got - ref| <= 2e-6 + 2e-5 |ref| (i32 exact). A framework that
// is not installed is reported as skipped; any failure exits 1. Writes DIR/exports.json.
import { loadEngine, makeInputs, evaluate } from "../dist/tile-shell.mjs";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const dir = path.resolve(process.argv.includes("-o") ? process.argv[process.argv.indexOf("-o") + 1] : "bench/results/exports");
const engine = await loadEngine("wasm");
fs.mkdirSync(path.join(dir, "data"), { recursive: true });
const targets = { mlx: [], "torch-mps": [] };
const checks = [];
const failures = [];
const shape = (doc, p) => p.shape.map((d) => (typeof d === "number" ? d : doc.sizes[d]));
for (const c of engine.call({ command: "cases" }).cases) {
  const doc = JSON.parse(c.text);
  const inputs = makeInputs(doc, 1);
  // the FP64 reference, computed only when a framework ran (the oracle is slow on large cases)
  let cached = null;
  const ref = { get: (name) => (cached ??= evaluate(doc, new Map(inputs)).buffers).get(name) };
  for (const target of ["mlx", "torch-mps"]) {
    const r = engine.call({ command: "emit", document: c.text, options: { target } });
    if (!r.ok) {
      failures.push(`${c.name} ${target}: ${r.diagnostics.map((d) => d.code + " " + d.message).join("; ")}`);
      continue;
    }
    const tag = `${c.name}_${target === "mlx" ? "mlx" : "torch"}`;
    const module = path.join(dir, tag + ".py");
    fs.writeFileSync(module, r.python);
    const bindings = r.plan.bindings;
    const takes = (b) => (target === "mlx" ? b.access === "read" : b.access !== "write");
    const args = bindings.filter(takes).map((b) => {
      const p = doc.params[b.index];
      const file = path.join(dir, "data", `${tag}.${b.index}.in`);
      const data = inputs.get(p.name);
      fs.writeFileSync(file, Buffer.from((p.dtype === "i32" ? Int32Array.from(data) : Float32Array.from(data)).buffer));
      return { file, dtype: p.dtype, shape: shape(doc, p), inPlace: b.access === "readwrite" };
    });
    const results = bindings.filter((b) => b.access !== "read").map((b) => ({ name: doc.params[b.index].name, file: path.join(dir, "data", `${tag}.${b.index}.out`), dtype: doc.params[b.index].dtype }));
    targets[target].push({ module, args, results });
    checks.push({ case: c.name, target, results, ref });
  }
}
const modules = fs.readdirSync(dir).filter((f) => f.endsWith(".py")).map((f) => path.join(dir, f));
const compiled = spawnSync("python3", ["-m", "py_compile", ...modules], { encoding: "utf8" });
if (compiled.status !== 0) failures.push("py_compile: " + compiled.stderr.trim());
const manifest = path.join(dir, "manifest.json");
fs.writeFileSync(manifest, JSON.stringify({ targets }));
const ran = spawnSync("python3", [path.join(path.dirname(new URL(import.meta.url).pathname), "exports-run.py"), manifest], { encoding: "utf8" });
let status = {};
try {
  status = JSON.parse(ran.stdout.trim().split("\n").pop());
} catch {
  failures.push("exports-run.py: " + (ran.stderr || ran.stdout).trim().slice(-2000));
}
const rows = [];
for (const ch of checks) {
  const s = status[ch.target] ?? "not run";
  if (s !== "ran") {
    rows.push({ case: ch.case, target: ch.target, verdict: s });
    continue;
  }
  let worst = 0;
  let bad = "";
  for (const r of ch.results) {
    const bytes = fs.existsSync(r.file) ? fs.readFileSync(r.file) : Buffer.alloc(0);
    const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const got = r.dtype === "i32" ? new Int32Array(ab) : new Float32Array(ab);
    const want = ch.ref.get(r.name);
    if (got.length !== want.length) bad ||= `${r.name}: ${got.length} elements, expected ${want.length}`;
    for (let i = 0; i < want.length && !bad; i++) {
      const err = Math.abs(got[i] - want[i]);
      worst = Math.max(worst, err);
      const ok = r.dtype === "i32" ? got[i] === want[i] : err <= 2e-6 + 2e-5 * Math.abs(want[i]) || (Number.isNaN(got[i]) && Number.isNaN(want[i])) || got[i] === want[i];
      if (!ok) bad = `${r.name}[${i}] = ${got[i]}, oracle ${want[i]}`;
    }
  }
  if (bad) failures.push(`${ch.case} ${ch.target}: ${bad}`);
  rows.push({ case: ch.case, target: ch.target, verdict: bad ? "FAIL " + bad : "pass", maxAbsErr: worst });
}
for (const [t, s] of Object.entries(status)) if (s.startsWith("error")) failures.push(`${t}: ${s}`);
fs.writeFileSync(path.join(dir, "exports.json"), JSON.stringify({ status, rows, failures }, null, 1) + "\n");
for (const r of rows) console.log(`${r.case.padEnd(18)} ${r.target.padEnd(10)} ${r.verdict}${r.maxAbsErr !== undefined ? "  max abs err " + r.maxAbsErr.toExponential(2) : ""}`);
console.log(`modules: ${modules.length} written and compiled; mlx: ${status.mlx ?? "not run"}; torch-mps: ${status["torch-mps"] ?? "not run"}`);
for (const f of failures) console.error("FAIL " + f);
process.exit(failures.length ? 1 : 0);
