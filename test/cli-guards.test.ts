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

// Output paths that cannot be written (red team, session 25): `sweep`, `bench` and `calibrate` made
// their folders with a recursive mkdir, which retries forever under /proc, and only after all the
// timing; `time -o` wrote with a plain writeFileSync, so a bad path was exit 3, "internal error".
// Each is now a usage error (exit 2) found before any kernel is timed.
describe("output paths that cannot be written", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tile-outpaths-"));
  const file = path.join(dir, "afile");
  fs.writeFileSync(file, "x");
  const sub = path.join(dir, "adir");
  fs.mkdirSync(sub);
  // a hang would pass the limit here: spawnSync ends the process and status is null
  const run = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", cwd: ROOT, timeout: 60000 });
  const host = ["--runtime", "host"];

  it("tile time -o: a missing folder, a folder, a path through a file: exit 2 naming the path, nothing written", () => {
    for (const [out, why] of [[path.join(dir, "missing", "t.json"), /does not exist/], [sub, /is a directory/], [path.join(file, "t.json"), /is not a directory/]] as const) {
      const r = run("time", "sum", "--size", "R=2", "--size", "C=8", ...host, "--rounds", "2", "--samples", "1", "-o", out);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(why);
      expect(r.stderr).not.toMatch(/internal error/);
    }
  });

  it("tile sweep and tile bench -o a file, or a folder under /proc: exit 2, not a hang", () => {
    const targets = [file, ...(process.platform === "linux" ? ["/proc/tile-no-such-dir/out"] : [])];
    for (const out of targets) {
      const s = run("sweep", "sum", "--size", "R=2", "--size", "C=8", ...host, "--max-candidates", "2", "-o", out);
      expect(s.status, `sweep -o ${out}: ${s.stderr}`).toBe(2);
      const b = run("bench", "bench/protocols/smoke.json", ...host, "--json", "-o", out);
      expect(b.status, `bench -o ${out}: ${b.stderr}`).toBe(2);
      expect(JSON.parse(b.stdout)).toMatchObject({ ok: false, exit: 2, error: { code: "usage" } });
    }
    expect(fs.readFileSync(file, "utf8")).toBe("x");
  });

  it("tile calibrate -o through a file is exit 2 before any fit; run --dump \"\" is exit 2", () => {
    const c = run("calibrate", "evidence/h200/run14b/evidence3/sweeps/softmax-1024x4096", "-o", path.join(file, "dev.json"));
    expect(c.status, c.stderr).toBe(2);
    expect(c.stderr).toMatch(/is not a directory/);
    const d = run("run", "cases/sum.json", "--size", "R=2", "--size", "C=8", ...host, "--dump", "");
    expect(d.status, d.stderr).toBe(2);
    expect(d.stderr).toMatch(/--dump expects a folder/);
  });
});

describe("JSON inputs with a UTF-8 byte-order mark", () => {
  it("a device description and a bench protocol with a BOM are read, as documents are (red team, session 25)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tile-bom-"));
    const dev = path.join(dir, "dev.json");
    fs.writeFileSync(dev, "\ufeff" + fs.readFileSync(path.join(ROOT, "devices", "nvidia-h200.json"), "utf8"));
    const p = tile("plan", "cases/sum.json", "--device", dev, "--json");
    expect(p.status, p.stderr).toBe(0);
    expect(JSON.parse(p.stdout).ok).toBe(true);
    const proto = path.join(dir, "smoke.json");
    fs.writeFileSync(proto, "\ufeff" + fs.readFileSync(path.join(ROOT, "bench", "protocols", "smoke.json"), "utf8"));
    // the protocol is read and checked before anything runs: GPU-only metrics on the host runtime
    // are then refused for that reason, not as invalid JSON
    const b = tile("bench", proto, "--runtime", "host", "--metrics", "gpuBatch", "-o", path.join(dir, "b"));
    expect(b.status).toBe(2);
    expect(b.stderr).toContain("nothing would be timed");
  });
});
