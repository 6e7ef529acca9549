import os from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";
import LongestFirstSequencer from "./test/tools/sequencer.mjs";

// Test-only settings that keep `npm test` fast (README "Tests and benchmarks"):
// - one worker per core: vitest's default in run mode is cores - 1 (a single worker on a 2-core
//   machine), but the main process only waits, so every core can run a test file.
// - the longest files start first (test/tools/sequencer.mjs), so that no long file runs alone at
//   the end while the other core idles.
// - a worker runs its files one after another in one process (isolate: false): no new process,
//   module graph and WebAssembly compile per file. No test relies on a fresh process: files that
//   change process.env or the output streams restore them.
// - host kernels compile at -O0 (test/tools/cxx-O0.sh) unless TILE_CXX is set or TILE_TEST_O1=1.
const root = path.dirname(new URL(import.meta.url).pathname);
const env = {};
if (!process.env.TILE_CXX && process.env.TILE_TEST_O1 !== "1") {
  env.TILE_TEST_CXX = process.platform === "darwin" ? "clang++" : "g++";
  env.TILE_CXX = path.join(root, "test", "tools", "cxx-O0.sh");
  env.TILE_TEST_UNAME = os.type(); // `uname -s`, which cxx-O0.sh would otherwise run per unit
}

// Core sources imported by tests run on the JS glue, as in the JS build (rollup.config.mjs): the
// WebAssembly glue (AssemblyScript builtins) cannot run under Node. Resolved here, once for every
// importer, rather than by each file's vi.mock alone: with isolate: false a worker keeps a core
// module that an earlier file imported, so a file without the mock would otherwise leave the
// WebAssembly glue in place for the files after it.
const wasmGlue = path.join(root, "core", "glue", "wasm.ts");
const jsGlue = path.join(root, "core", "glue", "js.ts");
const jsGluePlugin = {
  name: "tile-js-glue",
  enforce: "pre",
  resolveId(source, importer) {
    if (!importer || !source.startsWith(".")) return null;
    const base = path.resolve(path.dirname(importer.split("?")[0]), source);
    return base === wasmGlue || base + ".ts" === wasmGlue ? jsGlue : null;
  },
};

export default defineConfig({
  plugins: [jsGluePlugin],
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["./test/setup.ts"],
    testTimeout: 120000,
    hookTimeout: 120000,
    pool: "forks",
    isolate: false,
    maxWorkers: Math.max(1, os.availableParallelism?.() ?? os.cpus().length),
    env,
    sequence: { sequencer: LongestFirstSequencer },
  },
});
