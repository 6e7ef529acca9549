// Writes scripts/opt-wasm-callers.json, the callers each hot function of scripts/opt-wasm.mjs
// (HOT) is inlined into, from a CPU profile (see ARCHITECTURE.md, "Code of the release build").
//
//   1. a build without flexible inlining, names kept: the release module through
//      scripts/opt-wasm.mjs's pipeline with flexible inlining 0 and debug info on
//   2. node --cpu-prof --cpu-prof-interval 200 test/bench/core-bench.mjs --dist DIR --rounds 10
//   3. node scripts/wasm-hot-callers.mjs <profile.cpuprofile>
//
// A caller is listed for a hot function when the profile has at least one sample of that
// function called from it ("(host)": called from JavaScript).
import fs from "node:fs";
import { HOT } from "./opt-wasm.mjs";

const prof = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const sampled = new Set(prof.samples);
const isWasm = (n) => n.callFrame.url.startsWith("wasm://") || /^(core\/|~lib\/|start:)/.test(n.callFrame.functionName);
const hot = new Set(HOT);
const callers = {};
for (const n of prof.nodes) {
  if (!sampled.has(n.id) || !isWasm(n) || !hot.has(n.callFrame.functionName)) continue;
  const p = byId.get(parent.get(n.id));
  const caller = p !== undefined && isWasm(p) ? p.callFrame.functionName : "(host)";
  (callers[n.callFrame.functionName] ??= new Set()).add(caller);
}
const out = {};
for (const name of Object.keys(callers).sort()) out[name] = [...callers[name]].sort();
fs.writeFileSync(new URL("./opt-wasm-callers.json", import.meta.url), JSON.stringify(out, null, 1) + "\n");
console.log(`scripts/opt-wasm-callers.json: ${Object.keys(out).length} hot functions, ${Object.values(out).reduce((a, l) => a + l.length, 0)} callers`);
