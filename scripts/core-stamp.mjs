// Skips `npm run build:core` when its outputs are up to date (README "Tests and benchmarks").
//
//   node scripts/core-stamp.mjs write     record the inputs and outputs (the last step of build:core)
//   node scripts/core-stamp.mjs check     exit 0 when the record matches, 1 (and why) when not
//   node scripts/core-stamp.mjs ensure    check; when stale, run `npm run build:core` (pretest)
//
// The record (dist/core-stamp.json) holds one SHA-256 over every input of build:core: each file
// under core/ and shell-node/src/ (path and bytes), asconfig.json, package.json (the build
// commands), this script, every file that the build's commands name (read from package.json:
// build:core and the `npm run` scripts it calls, e.g. scripts/pack-wasm.mjs, rollup.config.mjs), the
// installed versions of the compilers (assemblyscript, binaryen, rollup, @swc/core) and of Node;
// and the SHA-256 of each output. Any change to an input, a missing or altered output, or no record at all means stale.
// The record is written only after every build step succeeded, so a failed build stays stale.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";

export const INPUT_DIRS = ["core", "shell-node/src"];
export const INPUT_FILES = ["asconfig.json", "package.json", "scripts/core-stamp.mjs"];
export const TOOLS = ["assemblyscript", "binaryen", "rollup", "@swc/core"];
export const OUTPUTS = [
  "dist/tile-core.wasm",
  "dist/tile-core.small.wasm",
  "dist/tile-core.mjs",
  "dist/tile-core.mjs.map",
  "dist/tile-shell.mjs",
  "dist/tile-shell.mjs.map",
];
export const STAMP = "dist/core-stamp.json";

function listFiles(root, rel, out) {
  const abs = path.join(root, rel);
  if (!fs.existsSync(abs)) return;
  for (const ent of fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const child = rel + "/" + ent.name;
    if (ent.isDirectory()) listFiles(root, child, out);
    else if (ent.isFile()) out.push(child);
  }
}

function toolVersion(root, name) {
  try {
    return JSON.parse(fs.readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return "absent";
  }
}

/** The files (relative, outside dist/) that build:core's commands name, following `npm run X`. */
export function commandFiles(root) {
  let scripts = {};
  try {
    scripts = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).scripts ?? {};
  } catch {
    return [];
  }
  const files = new Set();
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name) || typeof scripts[name] !== "string") return;
    seen.add(name);
    const words = scripts[name].split(/\s+/);
    words.forEach((w, i) => {
      if (w === "run" && words[i - 1] === "npm") visit(words[i + 1]);
      const rel = path.posix.normalize(w.replace(/^\.\//, ""));
      if (!rel || rel.startsWith("..") || rel.startsWith("dist/") || path.isAbsolute(rel)) return;
      const abs = path.join(root, rel);
      if (fs.existsSync(abs) && fs.statSync(abs).isFile()) files.add(rel);
    });
  };
  visit("build:core");
  return [...files].sort();
}

/** Every input file of build:core under `root` (relative paths, sorted, no repeats). */
export function inputFiles(root) {
  const files = [];
  for (const d of INPUT_DIRS) listFiles(root, d, files);
  return [...new Set([...files, ...INPUT_FILES, ...commandFiles(root)])].sort();
}

/** The hash of every input of build:core under `root`. */
export function inputsHash(root) {
  const h = crypto.createHash("sha256");
  const files = inputFiles(root);
  for (const f of files) {
    const abs = path.join(root, f);
    h.update(f + "\0");
    h.update(fs.existsSync(abs) ? fs.readFileSync(abs) : "\u0001absent");
    h.update("\0");
  }
  for (const t of TOOLS) h.update(`${t}@${toolVersion(root, t)}\0`);
  h.update(`node@${process.version}\0`);
  return h.digest("hex");
}

function outputHashes(root) {
  const out = {};
  for (const f of OUTPUTS) {
    const abs = path.join(root, f);
    out[f] = fs.existsSync(abs) ? crypto.createHash("sha256").update(fs.readFileSync(abs)).digest("hex") : null;
  }
  return out;
}

export function writeStamp(root) {
  const outputs = outputHashes(root);
  const missing = Object.keys(outputs).filter((f) => outputs[f] === null);
  if (missing.length) throw new Error(`build:core left no ${missing.join(", ")}`);
  fs.writeFileSync(path.join(root, STAMP), JSON.stringify({ inputs: inputsHash(root), outputs }, null, 1) + "\n");
}

/** null when build:core's outputs are up to date under `root`, else the reason they are not. */
export function staleReason(root) {
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(path.join(root, STAMP), "utf8"));
  } catch {
    return "no build record";
  }
  if (stamp.inputs !== inputsHash(root)) return "its inputs changed";
  const outputs = outputHashes(root);
  for (const f of OUTPUTS) {
    if (outputs[f] === null) return `${f} is missing`;
    if (!stamp.outputs || stamp.outputs[f] !== outputs[f]) return `${f} changed`;
  }
  return null;
}

function main(argv) {
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
  const cmd = argv[0];
  if (cmd === "write") {
    writeStamp(root);
    return 0;
  }
  if (cmd === "check" || cmd === "ensure") {
    const why = staleReason(root);
    if (why === null) {
      if (cmd === "ensure") console.log("build:core is up to date (dist/core-stamp.json); not rebuilt");
      return 0;
    }
    if (cmd === "check") {
      console.log(`build:core is out of date: ${why}`);
      return 1;
    }
    console.log(`build:core: ${why}; rebuilding`);
    const r = spawnSync("npm", ["run", "build:core"], { cwd: root, stdio: "inherit", shell: process.platform === "win32" });
    return r.status === 0 ? 0 : 1;
  }
  console.error("usage: node scripts/core-stamp.mjs write|check|ensure");
  return 2;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  process.exitCode = main(process.argv.slice(2));
}
