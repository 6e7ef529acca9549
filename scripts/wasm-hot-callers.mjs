// Writes scripts/opt-wasm-callers.json, the callers each hot function of scripts/opt-wasm.mjs
// (HOT) is inlined into, and scripts/opt-wasm-warm.json, the functions that always inlining of
// 3-12 units may copy into, from a CPU profile (see ARCHITECTURE.md, "Code of the release build").
//
//   1. a build without flexible inlining, names kept: node scripts/opt-wasm.mjs --profile-build
//      on the module asc writes (the release target)
//   2. node --cpu-prof --cpu-prof-interval 200 test/bench/core-bench.mjs --dist DIR --rounds 10
//   3. node scripts/wasm-hot-callers.mjs <profile.cpuprofile> [--warm-only]
//
// A caller is listed for a hot function when the profile has at least one sample of that
// function called from it ("(host)": called from JavaScript). A function is warm when it has at
// least WARM_MIN of the profile's WebAssembly samples as self time. --warm-only writes the warm
// list only.
import fs from "node:fs";
import { HOT } from "./opt-wasm.mjs";

export const WARM_MIN = 0.0005;

const prof = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const samples = new Map();
for (const s of prof.samples) samples.set(s, (samples.get(s) ?? 0) + 1);
const isWasm = (n) => n.callFrame.url.startsWith("wasm://") || /^(core\/|~lib\/|start:)/.test(n.callFrame.functionName);
const hot = new Set(HOT);
const callers = {};
const self = new Map();
let total = 0;
for (const n of prof.nodes) {
  if (!samples.has(n.id) || !isWasm(n)) continue;
  const name = n.callFrame.functionName;
  self.set(name, (self.get(name) ?? 0) + samples.get(n.id));
  total += samples.get(n.id);
  if (!hot.has(name)) continue;
  const p = byId.get(parent.get(n.id));
  const caller = p !== undefined && isWasm(p) ? p.callFrame.functionName : "(host)";
  (callers[name] ??= new Set()).add(caller);
}
const warm = [...self.keys()].filter((name) => self.get(name) >= WARM_MIN * total).sort();
fs.writeFileSync(new URL("./opt-wasm-warm.json", import.meta.url), JSON.stringify(warm, null, 1) + "\n");
console.log(`scripts/opt-wasm-warm.json: ${warm.length} of ${self.size} functions with samples (${total} WebAssembly samples)`);
if (!process.argv.includes("--warm-only")) {
  const out = {};
  for (const name of Object.keys(callers).sort()) out[name] = [...callers[name]].sort();
  fs.writeFileSync(new URL("./opt-wasm-callers.json", import.meta.url), JSON.stringify(out, null, 1) + "\n");
  console.log(`scripts/opt-wasm-callers.json: ${Object.keys(out).length} hot functions, ${Object.values(out).reduce((a, l) => a + l.length, 0)} callers`);
}
