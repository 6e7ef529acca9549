// Usage guards of the CLI found by the red team (s15): `emit -o` naming its own document, and an
// unknown `audit-msl --realization`, and a benchmark of GPU metrics on the host runtime are usage errors (exit 2) that change no file.
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./helpers/files";

const CLI = path.join(ROOT, "shell-node", "bin", "tile.mjs");
const tile = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", cwd: ROOT });

describe("CLI usage guards", () => {
  it("emit -o the document itself (by its path or another name of it) is exit 2 and leaves the document as it was", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tile-guard-"));
    try {
      const doc = path.join(dir, "sum.json");
      const text = fs.readFileSync(path.join(ROOT, "cases", "sum.json"), "utf8");
      fs.writeFileSync(doc, text);
      fs.symlinkSync(doc, path.join(dir, "alias.json"));
      for (const out of [doc, path.join(dir, ".", "sum.json"), path.join(dir, "alias.json")]) {
        const r = tile("emit", doc, "-o", out);
        expect(r.status, out).toBe(2);
        expect(r.stderr).toContain("is the document being emitted");
        expect(fs.readFileSync(doc, "utf8")).toBe(text);
      }
      expect(tile("emit", doc, "-o", "").status).toBe(2);
      const ok = tile("emit", doc, "-o", path.join(dir, "sum.metal"));
      expect(ok.status).toBe(0);
      expect(fs.readFileSync(path.join(dir, "sum.metal"), "utf8")).toContain("kernel void");
      const bad = tile("audit-msl", path.join(dir, "sum.metal"), "--realization", "foo");
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain("--realization must be one of");
      expect(tile("audit-msl", path.join(dir, "sum.metal"), "--realization", "cooperative-reduction").status).toBe(0);
      // a benchmark whose every metric is a GPU timestamp times nothing on the host runtime
      const b = tile("bench", "bench/protocols/smoke.json", "--runtime", "host", "--metrics", "gpuBatch,gpuSingle", "-o", path.join(dir, "b"));
      expect(b.status).toBe(2);
      expect(b.stderr).toContain("nothing would be timed");
      expect(fs.existsSync(path.join(dir, "b"))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
