// Builds the portable core (core/index-js.ts) to an ES module, and the Node shell to a CLI bundle.
// TypeScript is transpiled by @swc/core (type-checking is `tsc --noEmit`, run by `npm test`).
// The one difference between targets: imports of core/glue/wasm are redirected to core/glue/js.
import { transform } from "@swc/core";
import path from "node:path";
import fs from "node:fs";

const root = path.dirname(new URL(import.meta.url).pathname);
const wasmGlue = path.join(root, "core/glue/wasm.ts");
const jsGlue = path.join(root, "core/glue/js.ts");

function resolveTs(source, importer) {
  if (!importer || !source.startsWith(".")) return null;
  const base = path.resolve(path.dirname(importer), source);
  for (const candidate of [base, base + ".ts", path.join(base, "index.ts")]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Resolves extension-less TypeScript imports, swaps the target glue, and transpiles with swc. */
export function portableTs() {
  return {
    name: "portable-ts",
    resolveId(source, importer) {
      const file = resolveTs(source, importer);
      if (file === null) return null;
      return file === wasmGlue ? jsGlue : file;
    },
    async transform(code, id) {
      if (!id.endsWith(".ts")) return null;
      const out = await transform(code, {
        filename: id,
        sourceMaps: true,
        jsc: { parser: { syntax: "typescript" }, target: "es2022" },
      });
      return { code: out.code, map: out.map };
    },
  };
}

export default [
  {
    input: "core/index-js.ts",
    output: { file: "dist/tile-core.mjs", format: "es", sourcemap: true },
    plugins: [portableTs()],
    external: ["assemblyscript/std/portable/index.js"],
    treeshake: { moduleSideEffects: (id) => id.includes("assemblyscript/std/portable") },
  },
  {
    input: "shell-node/src/cli.ts",
    output: { file: "dist/tile-shell.mjs", format: "es", sourcemap: true },
    plugins: [portableTs()],
    external: (id) => !id.startsWith(".") && !path.isAbsolute(id),
  },
];
