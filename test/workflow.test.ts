// .github/workflows/macos-metal.yml: valid YAML (a strict subset, read by test/helpers/yaml-subset.ts
// and, where PyYAML is installed, by it too), the shape GitHub Actions needs, the commands the
// issue asks for, and every command working here: the non-Metal ones as written, the Metal ones
// (steps whose id starts with "metal-") with the host runtime instead. `npm install` and
// `npm test` are what built and is running this very test.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { ROOT } from "./helpers/files";
import { parseYamlSubset } from "./helpers/yaml-subset";

const FILE = path.join(ROOT, ".github", "workflows", "macos-metal.yml");
const text = fs.readFileSync(FILE, "utf8");
let tmp = "";
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tile-workflow-"));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function steps(): any[] {
  return (parseYamlSubset(text) as any).jobs.metal.steps;
}

describe("the YAML subset reader", () => {
  it("reads mappings, sequences, literal blocks and scalars as YAML does", () => {
    expect(parseYamlSubset("a: 1\nb:\n  - x\n  - k: v\n    n: true\nc: |\n  one\n  two\nd: 'it''s'\n")).toEqual({ a: 1, b: ["x", { k: "v", n: true }], c: "one\ntwo\n", d: "it's" });
  });

  it("refuses what it cannot read exactly", () => {
    for (const bad of ["a: b: c\n", "a:\n\t- x\n", "a: [1, 2]\n", "a: *x\n", "a: 1\na: 2\n", "a: yes\n", "a: x #c\n  b: 1\n", "- a\nb: 1\n"]) {
      expect(() => parseYamlSubset(bad), JSON.stringify(bad)).toThrow();
    }
  });
});

describe(".github/workflows/macos-metal.yml", () => {
  it("is valid YAML with the shape of a GitHub Actions workflow on an arm64 macOS runner", () => {
    const doc = parseYamlSubset(text) as any;
    expect(typeof doc.name).toBe("string");
    expect(Object.keys(doc.on)).toEqual(["workflow_dispatch", "push", "pull_request"]);
    expect(doc.jobs.metal["runs-on"]).toBe("macos-14");
    for (const s of steps()) {
      expect(("uses" in s) !== ("run" in s), JSON.stringify(s)).toBe(true);
      if (s.uses) expect(s.uses).toMatch(/^actions\/[a-z-]+@v\d+$/);
    }
    const ids = steps().map((s) => s.id).filter(Boolean);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("agrees with PyYAML where it is installed", () => {
    const py = spawnSync("python3", ["-c", "import json,sys,yaml\nd=yaml.safe_load(open(sys.argv[1]))\nd={('on' if k is True else k): v for k, v in d.items()}\nprint(json.dumps(d))", FILE], { encoding: "utf8" });
    if (py.status !== 0) {
      console.warn(`PyYAML not available (${(py.stderr || "").trim().split("\n").pop()}); the subset reader alone checked the file`);
      return;
    }
    expect(JSON.parse(py.stdout)).toEqual(parseYamlSubset(text));
  });

  it("runs what the issue lists, in order: install, test, Metal smoke, npm start on Metal, bench on Metal, audit, upload", () => {
    const runs = steps().filter((s) => s.run).map((s) => `${s.id}: ${s.run.trim()}`);
    const want = [
      /^install: npm install$/,
      /^test: npm test$/,
      /^metal-smoke: node shell-native\/metal\/smoke\.mjs$/,
      /^metal-start: npm start -- --runtime metal$/,
      /^metal-bench: node shell-node\/bin\/tile\.mjs bench bench\/protocols\/smoke\.json --runtime metal -o (\S+)$/,
      /^audit: set -o pipefail\nnode shell-node\/bin\/tile\.mjs audit (\S+) \| tee \S+\/audit-receipt\.json$/,
    ];
    let at = 0;
    for (const r of runs) if (at < want.length && want[at].test(r)) at++;
    expect(at, runs.join("\n---\n")).toBe(want.length);
    const out = /-o (\S+)$/.exec(runs.find((r) => r.startsWith("metal-bench"))!)![1];
    expect(runs.find((r) => r.startsWith("audit"))).toContain(`audit ${out} |`);
    const upload = steps().find((s) => s.uses?.startsWith("actions/upload-artifact"));
    expect(out.startsWith(upload.with.path.replace(/\/$/, ""))).toBe(true);
    expect(upload.if).toContain("always()");
    // the place left for the reference-framework exports
    expect(text).toMatch(/# ---- reference frameworks \(MLX \/ PyTorch exports/);
  });

  it("every command works here: the non-Metal ones as written, the Metal ones on the host runtime", () => {
    const out = path.join(tmp, "results");
    for (const s of steps()) {
      if (!s.run || s.id === "install" || s.id === "test") continue;
      let cmd: string = s.run.replace(/bench\/results\/smoke-metal/g, out);
      if (s.id.startsWith("metal-")) {
        cmd = cmd.replace(/--runtime metal/g, "--runtime host").replace(/smoke\.mjs$/m, "smoke.mjs host");
        expect(cmd).not.toMatch(/metal(?!\/smoke)/i);
      }
      const r = spawnSync("bash", ["-eo", "pipefail", "-c", cmd], { encoding: "utf8", cwd: ROOT, maxBuffer: 64 << 20 });
      expect(r.status, `${s.id}: ${cmd}\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`).toBe(0);
      if (s.id === "audit") expect(JSON.parse(fs.readFileSync(path.join(out, "audit-receipt.json"), "utf8")).verdict).toBe("clean");
    }
  }, 600_000);
});
