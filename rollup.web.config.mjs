// Builds the planner page into dist/web/: web/app.ts bundled to app.js (TypeScript transpiled
// by @swc/core; type-checking is `tsc -p web/tsconfig.json`), index.html and style.css copied,
// and the WebAssembly core (dist/tile-core.wasm, from `npm run build:core`) copied beside them
// so the page fetches the very build the CLI runs.
import { portableTs } from "./rollup.config.mjs";
import path from "node:path";
import fs from "node:fs";

const root = path.dirname(new URL(import.meta.url).pathname);
const web = path.join(root, "web");
const core = path.join(root, "dist", "tile-core.wasm");
const STATIC = ["index.html", "style.css"];

/** Copies the page's static files and the WebAssembly core into the output. */
function pageFiles() {
  return {
    name: "web-files",
    buildStart() {
      if (!fs.existsSync(core)) this.error(`${path.relative(root, core)} is missing: run npm run build:core first`);
      for (const f of STATIC) this.addWatchFile(path.join(web, f));
      this.addWatchFile(core);
    },
    generateBundle() {
      for (const f of STATIC) this.emitFile({ type: "asset", fileName: f, source: fs.readFileSync(path.join(web, f)) });
      this.emitFile({ type: "asset", fileName: "tile-core.wasm", source: fs.readFileSync(core) });
    },
  };
}

export default {
  input: "web/app.ts",
  output: { dir: "dist/web", entryFileNames: "app.js", format: "es", sourcemap: true },
  plugins: [portableTs(), pageFiles()],
};
