#!/usr/bin/env node
// pack-gpu.mjs: one folder with everything the shell needs on a Linux x86-64 machine that has
// no Node.js and no package registry (a GPU machine with CUDA): `npm run pack:gpu [-- OUT]`.
//
//   OUT/node.xz           this machine's Node binary (`process.execPath`), stripped where `strip`
//                         exists, xz -9e
//   OUT/pkg.tar.xz        the package, unpacked by setup.sh into OUT/pkg/: package.json, dist/ (no source maps), shell-node/, devices/,
//                         cases/, bench/, scripts/, shell-native/ (sources: the native runtimes
//                         are built THERE, against that machine's glibc and CUDA toolkit), and
//                         node_modules/ with the runtime dependencies only (koffi with its
//                         linux-x64 glibc prebuild alone; fast-check for the evidence tool,
//                         scripts/gpu-evidence.ts bundled as pkg/scripts/gpu-evidence.mjs)
//   OUT/setup.sh          unpacks pkg/ and node (OUT/bin/node) and builds pkg/build/native/ with
//                         shell-native/build.mjs (g++; libtile_cuda.so where a toolkit is found)
//   OUT/tile              runs the CLI: `./tile suite --runtime cuda`
// Default OUT: .gpu/tile-gpu. Needs xz here; the target needs xz or python3, g++ and glibc >= 2.28.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const out = path.resolve(process.argv[2] ?? path.join(root, ".gpu", "tile-gpu"));
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));

if (process.platform !== "linux" || process.arch !== "x64") {
  console.error(`pack:gpu packs this machine's Node binary, so it must run on linux-x64 (this is ${process.platform}-${process.arch})`);
  process.exit(1);
}
if (!fs.existsSync(path.join(root, "dist", "tile-shell.mjs"))) {
  console.error("dist/ is not built: run `npm run build` first");
  process.exit(1);
}
// A dist/ older than its sources would carry yesterday's shell to the GPU machine: refuse it.
function newest(dir) {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return t;
}
const built = Math.min(...["tile-shell.mjs", "tile-core.mjs", "tile-core.wasm"].map((f) => fs.statSync(path.join(root, "dist", f)).mtimeMs));
if (newest(path.join(root, "core")) > built || newest(path.join(root, "shell-node", "src")) > built) {
  console.error("dist/ is older than core/ or shell-node/src/: run `npm run build` first");
  process.exit(1);
}

// node.xz is kept when it was made from this very binary (xz takes minutes on a small machine)
const hasStrip = (() => { try { execFileSync("strip", ["--version"], { stdio: "ignore" }); return true; } catch { return false; } })();
const x86 = process.arch === "x64";
const stamp = `${process.execPath} ${process.version} ${fs.statSync(process.execPath).size} ${fs.statSync(process.execPath).mtimeMs} ${hasStrip ? "stripped" : "as-is"} xz-9e${x86 ? "-x86" : ""}`;
const keepNode = fs.existsSync(path.join(out, "node.xz")) && fs.existsSync(path.join(out, "node.stamp")) &&
  fs.readFileSync(path.join(out, "node.stamp"), "utf8") === stamp;
for (const f of fs.existsSync(out) ? fs.readdirSync(out) : [])
  if (!(keepNode && (f === "node.xz" || f === "node.stamp"))) fs.rmSync(path.join(out, f), { recursive: true, force: true });
const tile = path.join(out, "pkg");
fs.mkdirSync(tile, { recursive: true });

const skip = (p) => /\.map$/.test(p) || p.includes(`${path.sep}.tile-cache`) || p.endsWith(`${path.sep}node_modules`);
function copy(rel, dest = rel) {
  const from = path.join(root, rel);
  if (!fs.existsSync(from)) return;
  fs.cpSync(from, path.join(tile, dest), { recursive: true, filter: (p) => !skip(p) });
}
for (const rel of ["package.json", "dist", "shell-node", "cases", "bench", "scripts", "shell-native", "devices", "README.md"]) copy(rel);
copy(path.join("test", "export", "fake_frameworks.py")); // for gpu-evidence.mjs exports
fs.rmSync(path.join(tile, "bench", "results"), { recursive: true, force: true });

// runtime dependencies: package.json "dependencies" and their closure, as installed here
const seen = new Set();
function addPackage(name) {
  if (seen.has(name)) return;
  const dir = path.join(root, "node_modules", name);
  if (!fs.existsSync(dir)) return; // an optional dependency of another platform
  seen.add(name);
  const meta = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  // paths relative to the package: no nested node_modules, no docs, sources or maps
  let keep = (rel) => !rel.split(path.sep).includes("node_modules") && !/\.(md|map|ts)$/.test(rel);
  // the JS engine (dist/tile-core.mjs) needs only AssemblyScript's portable standard library
  if (name === "assemblyscript") keep = (rel) => rel === "" || rel === "package.json" || rel === "std" || rel.startsWith(`std${path.sep}portable`);
  if (name === "koffi") keep = (rel) => !/^(doc|vendor)(\/|$)/.test(rel) && !/\.(md|cc|hh|h|txt)$/.test(rel);
  if (name.startsWith("@koromix/koffi-")) {
    if (name !== "@koromix/koffi-linux-x64") return;
    keep = (rel) => !rel.startsWith("musl_x64");
  }
  fs.cpSync(dir, path.join(tile, "node_modules", name), { recursive: true, filter: (p) => keep(path.relative(dir, p)) });
  if (name === "assemblyscript") return; // its own dependencies are the compiler's
  for (const d of Object.keys({ ...meta.dependencies, ...meta.optionalDependencies })) addPackage(d);
}
for (const d of Object.keys(pkg.dependencies)) addPackage(d);
// the evidence tool (scripts/gpu-evidence.ts: fuzz, compile times, sanitizer controls), bundled
// here; its fuzz generator needs fast-check, which is packed for it
addPackage("fast-check");
const { rollup } = await import("rollup");
const { portableTs } = await import(path.join(root, "rollup.config.mjs"));
const bundle = await rollup({
  input: path.join(root, "scripts", "gpu-evidence.ts"),
  plugins: [portableTs()],
  external: (id) => !id.startsWith(".") && !path.isAbsolute(id),
  onwarn: () => {},
});
await bundle.write({ file: path.join(tile, "scripts", "gpu-evidence.mjs"), format: "es" });
await bundle.close();

if (!keepNode) {
  // a copy without its symbol and debug sections (the binary here carries them: 99 -> 86 MB), then
  // xz -9e: 24 MB -> 21.9 MB; the device tool carries at most 64 MiB with the tracked tree
  let bin = process.execPath;
  if (hasStrip) {
    bin = path.join(out, "node.stripped.tmp");
    execFileSync("strip", ["-o", bin, process.execPath]);
  }
  console.log(`compressing ${process.execPath} (node ${process.version}${hasStrip ? ", stripped" : ""}) ...`);
  // on x86-64 the BCJ filter (--x86) first turns relative call targets absolute, which LZMA2 then
  // matches better: 21.85 -> 21.10 MB for Node 20's binary; xz and Python's lzma both decode it
  execFileSync("sh", ["-c", `xz -T0 ${x86 ? "--x86 --lzma2=preset=9e" : "-9e"} -c "${bin}" > "${path.join(out, "node.xz")}.tmp"`], { stdio: "inherit" });
  if (hasStrip) fs.rmSync(bin);
  fs.renameSync(path.join(out, "node.xz.tmp"), path.join(out, "node.xz"));
  fs.writeFileSync(path.join(out, "node.stamp"), stamp);
}

// the package travels as one pkg.tar.xz (6 MB -> under 1 MB); setup.sh unpacks it
execFileSync("tar", ["-cJf", "pkg.tar.xz", "pkg"], { cwd: out });
fs.rmSync(tile, { recursive: true, force: true });

fs.writeFileSync(path.join(out, "setup.sh"), `#!/bin/sh
# Unpacks Node and builds the native runtimes for this machine (host; CUDA where a toolkit is found).
set -e
here=$(cd "$(dirname "$0")" && pwd)
[ -d "$here/pkg" ] || (cd "$here" && tar -xJf pkg.tar.xz)
mkdir -p "$here/bin"
if [ ! -x "$here/bin/node" ]; then
  if command -v xz >/dev/null 2>&1; then xz -dc "$here/node.xz" > "$here/bin/node"
  else python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],'wb'))" "$here/node.xz" "$here/bin/node"; fi
  chmod +x "$here/bin/node"
fi
"$here/bin/node" --version
cd "$here/pkg" && "$here/bin/node" shell-native/build.mjs
`, { mode: 0o755 });
fs.writeFileSync(path.join(out, "tile"), `#!/bin/sh
# The Tile CLI with the packed Node (run setup.sh once first).
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/bin/node" "$here/pkg/shell-node/bin/tile.mjs" "$@"
`, { mode: 0o755 });

function size(p) {
  const st = fs.statSync(p);
  return st.isDirectory() ? fs.readdirSync(p).reduce((a, f) => a + size(path.join(p, f)), 0) : st.size;
}
console.log(`packed ${out}: ${(size(out) / 1048576).toFixed(1)} MiB (runtime packages: ${[...seen].sort().join(", ")})`);
console.log(`on the target: sh ${path.basename(out)}/setup.sh && ${path.basename(out)}/tile suite --runtime cuda`);
