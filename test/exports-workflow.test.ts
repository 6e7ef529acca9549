// .github/workflows/macos-exports.yml: valid YAML (read by PyYAML where it is installed) with the
// shape of a GitHub Actions job on an arm64 macOS runner, and its check command works here:
// every module of every built-in case is written and compiles, and a framework that is not
// installed is reported as skipped (never as passed).
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { ROOT } from "./helpers/files";

const FILE = path.join(ROOT, ".github", "workflows", "macos-exports.yml");

function workflow(): any | null {
  const py = spawnSync("python3", ["-c", "import json,sys,yaml\nd=yaml.safe_load(open(sys.argv[1]))\nd={('on' if k is True else k): v for k, v in d.items()}\nprint(json.dumps(d))", FILE], { encoding: "utf8" });
  return py.status === 0 ? JSON.parse(py.stdout) : null;
}

describe(".github/workflows/macos-exports.yml", () => {
  it("is a workflow on macos-14 that installs the frameworks and runs scripts/exports-check.mjs, uploading what it writes", () => {
    const w = workflow();
    const text = fs.readFileSync(FILE, "utf8");
    if (w === null) {
      console.warn("PyYAML not available; only the text was checked");
      expect(text).toContain("runs-on: macos-14");
      expect(text).toContain("run: node scripts/exports-check.mjs -o bench/results/exports");
      return;
    }
    const job = w.jobs.exports;
    expect(job["runs-on"]).toBe("macos-14");
    const steps: any[] = job.steps;
    for (const s of steps) expect(("uses" in s) !== ("run" in s), JSON.stringify(s)).toBe(true);
    const ids = steps.map((s) => s.id).filter(Boolean);
    expect(ids).toEqual(["install", "frameworks", "exports"]);
    expect(steps.find((s) => s.id === "frameworks")["continue-on-error"]).toBe(true);
    const run = steps.find((s) => s.id === "exports").run.trim();
    const out = /^node scripts\/exports-check\.mjs -o (\S+)$/.exec(run)![1];
    const upload = steps.find((s) => s.uses?.startsWith("actions/upload-artifact"));
    expect(upload.if).toContain("always()");
    expect(upload.with.path.replace(/\/$/, "")).toBe(out);
  });

  it("its check runs here: modules written and compiled for every built-in case, frameworks not installed reported as skipped", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tile-exports-"));
    try {
      const r = spawnSync(process.execPath, [path.join(ROOT, "scripts", "exports-check.mjs"), "-o", dir], { encoding: "utf8", cwd: ROOT });
      expect(r.status, r.stderr).toBe(0);
      const cases = JSON.parse(spawnSync(process.execPath, [path.join(ROOT, "shell-node", "bin", "tile.mjs"), "cases", "--json"], { encoding: "utf8" }).stdout);
      const n = (Array.isArray(cases) ? cases : cases.cases).length;
      expect(r.stdout).toContain(`modules: ${2 * n} written and compiled`);
      const report = JSON.parse(fs.readFileSync(path.join(dir, "exports.json"), "utf8"));
      expect(report.failures).toEqual([]);
      expect(report.rows.length).toBe(2 * n);
      const installed = new Map<string, boolean>();
      for (const t of ["mlx", "torch-mps"]) installed.set(t, spawnSync("python3", ["-c", `import ${t === "mlx" ? "mlx.core" : "torch"}`]).status === 0);
      for (const row of report.rows) {
        if (!installed.get(row.target)) expect(row.verdict).toMatch(/^skipped: .* is not installed$/);
        else expect(row.verdict).toBe("pass");
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);
});
