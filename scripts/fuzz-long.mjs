#!/usr/bin/env node
// The long fuzz mode, for a person: the same properties as the CI fuzz tests (test/fuzz.test.ts:
// both engines; test/fuzz/host.test.ts: the host runtime against the FP64 oracle), with a chosen
// seed and count.
//   node scripts/fuzz-long.mjs --count N --seed S [--host-count M] [--admitted-docs D] [--engines-only | --host-only]
// (npm run fuzz:long runs it with the defaults)
// --count is the number of documents through both engines (default 100000); --host-count the
// number run on the host runtime (default count / 10). A failure prints the seed and the shrunk
// document and saves it under test/fixtures/fuzz-regressions/ (commit it: a test replays it).
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const value = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const v = args[i + 1];
  if (!/^\d+$/.test(v ?? "")) {
    console.error(`fuzz-long: ${name} expects a non-negative integer`);
    process.exit(2);
  }
  return Number(v);
};
if (args.includes("--help")) {
  console.log("usage: node scripts/fuzz-long.mjs --count N --seed S [--host-count M] [--admitted-docs D] [--engines-only | --host-only]");
  process.exit(0);
}
const count = value("--count", 100000);
const seed = value("--seed", Math.floor(Math.random() * 2 ** 31));
const hostCount = value("--host-count", Math.ceil(count / 10));
// every admitted candidate of structurally generated documents (test/fuzz/admitted.test.ts): ten times CI's 300
const admittedDocs = value("--admitted-docs", 3000);
const files = [];
if (!args.includes("--host-only")) files.push("test/fuzz.test.ts");
if (!args.includes("--engines-only")) files.push("test/fuzz/host.test.ts", "test/fuzz/admitted.test.ts");
console.log(`fuzz-long: seed ${seed}, ${count} documents through both engines, ${hostCount} on the host runtime, every admitted candidate of ${admittedDocs} structural documents`);
const t0 = Date.now();
const r = spawnSync(process.execPath, [path.join(root, "node_modules", "vitest", "vitest.mjs"), "run", ...files, "-t", "fuzz"], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, FUZZ_SEED: String(seed), FUZZ_COUNT: String(count), FUZZ_HOST_COUNT: String(hostCount), FUZZ_ADMITTED_DOCS: String(admittedDocs) },
});
console.log(`fuzz-long: seed ${seed}: ${r.status === 0 ? "passed" : "FAILED"} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
process.exit(r.status ?? 1);
