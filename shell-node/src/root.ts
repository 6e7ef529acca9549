// Locates the package root from this module's location (works from shell-node/src in tests
// and from dist/ after bundling).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let cached = "";

export function packageRoot(): string {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pj = path.join(dir, "package.json");
    if (fs.existsSync(pj)) {
      try {
        if (JSON.parse(fs.readFileSync(pj, "utf8")).name === "tile") return (cached = dir);
      } catch {
        /* keep walking */
      }
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error("cannot find the tile package root above " + fileURLToPath(import.meta.url));
    dir = up;
  }
}
