// The independent audit against adversarial edits of a real results file: one smoke run on the
// host runtime, copied and mutated once per finding. The untouched copy must pass; each mutation
// must be rejected with its own finding id.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./helpers/files";
import { runBench } from "../shell-node/src/bench/run";
import { auditResults, Receipt } from "../shell-node/src/audit/audit";
import { FINDINGS } from "../shell-node/src/audit/findings";
import { deriveGpu } from "../shell-node/src/audit/context";
import { spawnSync } from "node:child_process";

const SMOKE = path.join(ROOT, "bench", "protocols", "smoke.json");
let tmp = "";
let base = "";
let copies = 0;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tile-evidence-"));
  base = path.join(tmp, "base");
  const out = await runBench({ protocolFile: SMOKE, runtime: "host", outDir: base, argv: ["bench", SMOKE, "--runtime", "host", "-o", base], progress: false });
  expect(out.ok).toBe(true);
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Copy {
  dir: string;
  results: any;
  md: string;
}

/** Copies the base run, lets `mutate` edit results.json / results.md, writes them back, audits. */
function audited(mutate: (c: Copy) => void): Receipt {
  const dir = path.join(tmp, `copy-${copies++}`);
  fs.cpSync(base, dir, { recursive: true });
  const c: Copy = { dir, results: JSON.parse(fs.readFileSync(path.join(dir, "results.json"), "utf8")), md: fs.readFileSync(path.join(dir, "results.md"), "utf8") };
  mutate(c);
  fs.writeFileSync(path.join(dir, "results.json"), JSON.stringify(c.results, null, 1));
  if (c.md !== "") fs.writeFileSync(path.join(dir, "results.md"), c.md);
  else fs.rmSync(path.join(dir, "results.md"));
  return auditResults(path.join(dir, "results.json"));
}

const run = (r: any, round: number, caseIndex: number, variant: string): any =>
  r.rounds[round].runs.find((x: any) => x.case === r.cases[caseIndex].id && x.variant === variant);

function rejectedWith(receipt: Receipt, id: string): void {
  expect(receipt.verdict).toBe("rejected");
  expect(receipt.exitCode).toBe(1);
  expect(receipt.findingIds).toContain(id);
}

describe("the audit of a real smoke run", () => {
  it("passes the untouched copy", () => {
    const receipt = audited(() => {});
    expect(receipt.findings).toEqual([]);
    expect(receipt.exitCode).toBe(0);
  });

  it("recomputes the figures results.md prints, to the printed precision", () => {
    const receipt = auditResults(path.join(base, "results.json"));
    const md = fs.readFileSync(path.join(base, "results.md"), "utf8");
    expect(receipt.figures.length).toBe(4);
    for (const f of receipt.figures) {
      const section = md.split("\n## ").find((s) => s.startsWith(f.case + "\n"))!;
      const row = section.split("\n").find((l) => l.startsWith(`| \`${f.metric}\``))!;
      const cells = row.split("|").slice(1, -1).map((x) => x.trim());
      expect(cells[1]).toBe(f.ratio.toFixed(3));
      expect(cells[2]).toBe(`${f.range[0].toFixed(3)}–${f.range[1].toFixed(3)}`);
      expect(cells[3]).toBe(f.medianA.toFixed(2));
      expect(cells[4]).toBe(f.medianB.toFixed(2));
      expect(f.ratio).toBeGreaterThanOrEqual(f.range[0]);
      expect(f.ratio).toBeLessThanOrEqual(f.range[1]);
    }
  });

  it("defines every finding id once", () => {
    const ids = FINDINGS.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ["missing-case", "duplicate-samples", "failed-validation", "partial-output", "changed-artifact", "wrong-denominator", "missing-source", "unbalanced-order"]) expect(ids).toContain(id);
  });
});

describe("adversarial mutations", () => {
  it("missing-case: a case dropped from the results", () => {
    const receipt = audited(({ results }) => {
      const id = results.cases[1].id;
      results.cases.splice(1, 1);
      for (const round of results.rounds) {
        round.runs = round.runs.filter((x: any) => x.case !== id);
        round.order = round.order.filter((x: any) => x.case !== id);
      }
      results.summary = results.summary.filter((s: any) => s.case !== id);
    });
    rejectedWith(receipt, "missing-case");
  });

  it("missing-case: one variant's run removed from one round", () => {
    const receipt = audited(({ results }) => {
      const victim = run(results, 1, 0, "B");
      results.rounds[1].runs = results.rounds[1].runs.filter((x: any) => x !== victim);
    });
    rejectedWith(receipt, "missing-case");
  });

  it("duplicate-samples: one round's samples copied into another round", () => {
    const receipt = audited(({ results }) => {
      run(results, 1, 0, "A").samples.hostSingle = [...run(results, 0, 0, "A").samples.hostSingle];
    });
    rejectedWith(receipt, "duplicate-samples");
  });

  it("failed-validation: a timed run whose validation failed", () => {
    const receipt = audited(({ results }) => {
      const r = run(results, 0, 1, "B");
      r.validation.passed = false;
      r.validation.error = "1 mismatch";
    });
    rejectedWith(receipt, "failed-validation");
    expect(receipt.findings.find((f) => f.id === "failed-validation")!.message).toMatch(/^timed although/);
  });

  it("partial-output: a phase with fewer samples than the protocol requires", () => {
    const receipt = audited(({ results }) => {
      run(results, 0, 0, "A").samples.hostBatch.pop();
    });
    rejectedWith(receipt, "partial-output");
  });

  it("partial-output: results.md missing", () => {
    rejectedWith(audited((c) => (c.md = "")), "partial-output");
  });

  it("partial-output: the summary missing", () => {
    rejectedWith(audited(({ results }) => delete results.summary), "partial-output");
  });

  it("partial-output: a metric row missing from results.md", () => {
    rejectedWith(audited((c) => (c.md = c.md.split("\n").filter((l) => !l.startsWith("| `hostSingle`")).join("\n"))), "partial-output");
  });

  it("changed-artifact: a core build fingerprint that does not match the file on disk", () => {
    const receipt = audited(({ results }) => {
      results.artifacts[0].sha256 = "0".repeat(64);
    });
    rejectedWith(receipt, "changed-artifact");
  });

  it("changed-artifact: fingerprints that differ between rounds", () => {
    const receipt = audited(({ results }) => {
      results.rounds[1].artifacts[2].sha256 = "f".repeat(64);
    });
    expect(receipt.findings.filter((f) => f.id === "changed-artifact").map((f) => f.where)).toEqual(["round 1 dist/tile-core.mjs"]);
    rejectedWith(receipt, "changed-artifact");
  });

  it("changed-artifact: the embedded protocol edited after the run", () => {
    const receipt = audited(({ results }) => {
      results.protocol.text = results.protocol.text.replace('"samples": 3', '"samples": 2');
    });
    rejectedWith(receipt, "changed-artifact");
  });

  it("wrong-denominator: a summary ratio inverted (A/B instead of B/A)", () => {
    const receipt = audited(({ results }) => {
      const m = results.summary[0].metrics.hostBatch;
      m.ratio = 1 / m.ratio;
    });
    rejectedWith(receipt, "wrong-denominator");
  });

  it("wrong-denominator: a printed ratio in results.md that is not B/A", () => {
    const receipt = audited((c) => {
      const s = c.results.summary[0].metrics.hostSingle;
      const printed = s.ratio.toFixed(3);
      // A/B printed for B/A; where the host times gave a ratio that prints as 1.000 both ways (it
      // happened), another wrong value
      const inverted = (1 / s.ratio).toFixed(3);
      const wrong = inverted !== printed ? inverted : (s.ratio * 1.5).toFixed(3);
      expect(wrong).not.toBe(printed);
      expect(c.md).toContain(`| ${printed} |`);
      c.md = c.md.replace(`| ${printed} |`, `| ${wrong} |`);
    });
    rejectedWith(receipt, "wrong-denominator");
  });

  it("wrong-denominator: batch totals divided by a count other than the calibrated batch", () => {
    const receipt = audited(({ results }) => {
      run(results, 0, 0, "B").dispatchesPerSample.hostBatch *= 2;
    });
    rejectedWith(receipt, "wrong-denominator");
  });

  it("missing-source: an MSL hash whose source text is not in the results", () => {
    const receipt = audited(({ results }) => {
      delete results.sources[run(results, 0, 0, "A").mslSha256];
    });
    rejectedWith(receipt, "missing-source");
  });

  it("missing-source: a plan missing", () => {
    const receipt = audited(({ results }) => {
      delete results.plans[run(results, 0, 1, "B").planSha256];
    });
    rejectedWith(receipt, "missing-source");
  });

  it("unbalanced-order: one case run A-first in every round (a consistent forgery)", () => {
    const receipt = audited(({ results }) => {
      for (const round of results.rounds) {
        const id = results.cases[0].id;
        const a = round.runs.find((x: any) => x.case === id && x.variant === "A");
        const b = round.runs.find((x: any) => x.case === id && x.variant === "B");
        if (a.seq > b.seq) {
          [a.seq, b.seq] = [b.seq, a.seq];
          round.first[id] = "A";
          round.order[a.seq] = { case: id, variant: "A" };
          round.order[b.seq] = { case: id, variant: "B" };
        }
      }
    });
    expect(receipt.findingIds).toEqual(["unbalanced-order"]);
    rejectedWith(receipt, "unbalanced-order");
  });

  it("unbalanced-order: a recorded order that disagrees with the runs", () => {
    const receipt = audited(({ results }) => {
      results.rounds[0].order.reverse();
    });
    rejectedWith(receipt, "unbalanced-order");
  });

  it("gpu-from-host: host times filled into a GPU metric", () => {
    const receipt = audited(({ results }) => {
      const r = run(results, 0, 0, "A");
      r.samples.gpuSingle = [...r.samples.hostSingle];
      r.dispatchesPerSample.gpuSingle = 1;
    });
    rejectedWith(receipt, "gpu-from-host");
  });

  it("gpu-from-host: a forged results file (host samples in the GPU metrics, timesAreGpu: true)", () => {
    const receipt = audited(({ results }) => {
      results.runtime.timesAreGpu = true;
      for (const round of results.rounds) {
        for (const r of round.runs) {
          r.samples.gpuBatch = r.samples.hostBatch.map((x: number) => x * 0.5);
          r.samples.gpuSingle = r.samples.hostSingle.map((x: number) => x * 0.5);
          r.dispatchesPerSample.gpuBatch = r.dispatchesPerSample.hostBatch;
          r.dispatchesPerSample.gpuSingle = 1;
          r.unavailable = {};
        }
      }
    });
    rejectedWith(receipt, "gpu-from-host");
    expect(receipt.findings.find((f) => f.where === "runtime")!.message).toMatch(/timesAreGpu is true, but the runtime kind "host" is not a GPU runtime/);
    // the forged GPU figures are not recomputed as figures either
    expect(receipt.figures.map((f) => f.metric).filter((m) => m.startsWith("gpu"))).toEqual([]);
  });

  it("gpu-from-host: the runtime kind forged to metal, the library still the host runtime's", () => {
    const receipt = audited(({ results }) => {
      results.runtime.timesAreGpu = true;
      results.runtime.kind = "metal";
    });
    rejectedWith(receipt, "gpu-from-host");
    expect(receipt.findings.find((f) => f.where === "runtime")!.message).toMatch(/libtile_host\.so is not the metal runtime's/);
  });

  it("gpu-from-host: the host library copied under the Metal library's name, every fingerprint consistent", () => {
    const receipt = audited(({ dir, results }) => {
      // a whole fake root: the core builds and the host library renamed libtile_metal.dylib
      const root = path.join(dir, "root");
      for (const a of results.artifacts) {
        const to = path.join(root, a.path.replace("libtile_host.so", "libtile_metal.dylib"));
        fs.mkdirSync(path.dirname(to), { recursive: true });
        fs.copyFileSync(path.join(results.root, a.path), to);
      }
      const rename = (a: any): void => { if (a.path.endsWith("libtile_host.so")) a.path = a.path.replace("libtile_host.so", "libtile_metal.dylib"); };
      results.artifacts.forEach(rename);
      for (const round of results.rounds) round.artifacts.forEach(rename);
      rename(results.runtime.library);
      results.root = root;
      results.runtime.kind = "metal";
      results.runtime.timesAreGpu = true;
    });
    expect(receipt.findingIds).toEqual(["gpu-from-host"]);
    expect(receipt.findings[0].message).toMatch(/is the host runtime's/);
  });

  it("failed-validation: guards breached while `passed` still says true; the run enters no figure", () => {
    const receipt = audited(({ results }) => {
      run(results, 0, 0, "A").validation.guards = "Y: 1 guard element(s) changed";
    });
    rejectedWith(receipt, "failed-validation");
    expect(receipt.findings.find((f) => f.id === "failed-validation")!.message).toMatch(/^timed although its validation failed \(guards: Y: 1 guard element\(s\) changed\)/);
    const first = JSON.parse(fs.readFileSync(path.join(base, "results.json"), "utf8")).cases[0].id;
    expect(receipt.figures.filter((f) => f.case === first)).toEqual([]);
    expect(receipt.figures.length).toBe(2);
  });

  it("failed-validation: an output with mismatches while `passed` still says true", () => {
    const receipt = audited(({ results }) => {
      run(results, 1, 1, "B").validation.outputs[0].mismatches = 3;
    });
    rejectedWith(receipt, "failed-validation");
    expect(receipt.findings.find((f) => f.id === "failed-validation")!.message).toMatch(/3 mismatch/);
  });

  it("failed-validation: no output checked against the oracle", () => {
    rejectedWith(audited(({ results }) => (run(results, 0, 1, "A").validation.outputs = [])), "failed-validation");
  });

  it("wrong-denominator: a calibrated batch doubled together with its dispatch counts (a consistent forgery)", () => {
    const receipt = audited(({ results }) => {
      const r = run(results, 1, 0, "A");
      r.calibration.batch *= 2;
      r.dispatchesPerSample.hostBatch = r.calibration.batch;
    });
    expect(receipt.findingIds).toContain("wrong-denominator");
    expect(receipt.findings.some((f) => f.where === "round 1 " + receipt.figures[0].case + " A calibration" && /the trials give/.test(f.message))).toBe(true);
  });

  it("wrong-denominator: calibration trials that do not follow the doubling rule", () => {
    const receipt = audited(({ results }) => {
      const r = run(results, 0, 1, "B");
      const trials = r.calibration.trials;
      expect(trials.length).toBeGreaterThan(0);
      // the first trial already filled the window, so the rule stops there; the file went on
      trials[0].us = r.calibration.windowMs * 1000 + 1;
      // (on a loaded machine the real run may have stopped at its first trial: the forgery then
      // adds the doubled trial the rule forbids)
      if (trials.length === 1) trials.push({ ...trials[0], repeat: 2 });
    });
    rejectedWith(receipt, "wrong-denominator");
    expect(receipt.findings.find((f) => /calibration$/.test(f.where))!.message).toMatch(/does not follow the documented rule/);
  });

  it("tile audit rejects the forged results file (exit 1, gpu-from-host)", () => {
    const dir = path.join(tmp, `copy-${copies++}`);
    fs.cpSync(base, dir, { recursive: true });
    const file = path.join(dir, "results.json");
    const results = JSON.parse(fs.readFileSync(file, "utf8"));
    results.runtime.timesAreGpu = true;
    for (const round of results.rounds) {
      for (const r of round.runs) {
        r.samples.gpuSingle = [...r.samples.hostSingle];
        r.dispatchesPerSample.gpuSingle = 1;
      }
    }
    fs.writeFileSync(file, JSON.stringify(results, null, 1));
    const cli = spawnSync(process.execPath, [path.join(ROOT, "shell-node", "bin", "tile.mjs"), "audit", dir], { encoding: "utf8", cwd: ROOT });
    expect(cli.status).toBe(1);
    expect(JSON.parse(cli.stdout).findingIds).toContain("gpu-from-host");
    expect(cli.stderr).toMatch(/gpu-from-host/);
  });

  it("exits 2 on unreadable input", () => {
    const junk = path.join(tmp, "junk.json");
    fs.writeFileSync(junk, "[1, 2");
    expect(auditResults(junk).exitCode).toBe(2);
    expect(auditResults(path.join(tmp, "nope.json")).exitCode).toBe(2);
  });
});

describe("GPU-ness is derived from the runtime kind and library, never read", () => {
  const sha = (b: Buffer): string => crypto.createHash("sha256").update(b).digest("hex");
  function resultsWith(kind: string, file: string, bytes: Buffer, claimed: boolean): { root: string; results: any } {
    const root = fs.mkdtempSync(path.join(tmp, "root-"));
    fs.mkdirSync(path.join(root, "build", "native"), { recursive: true });
    fs.writeFileSync(path.join(root, "build", "native", file), bytes);
    const library = { path: `build/native/${file}`, sha256: sha(bytes), bytes: bytes.length };
    return { root, results: { runtime: { kind, timesAreGpu: claimed, library }, artifacts: [library] } };
  }
  const hostBytes = (): Buffer => fs.readFileSync(path.join(ROOT, "build", "native", process.platform === "darwin" ? "libtile_host.dylib" : "libtile_host.so"));

  it("a Metal library (its import of MTLCreateSystemDefaultDevice, no host marker) is a GPU runtime", () => {
    const { root, results } = resultsWith("metal", "libtile_metal.dylib", Buffer.from("\0_MTLCreateSystemDefaultDevice\0_objc_msgSend\0"), true);
    expect(deriveGpu(results, root)).toMatchObject({ gpu: true, claimed: true });
  });

  it("a CUDA library is a GPU runtime; the host kind never is", () => {
    const cuda = resultsWith("cuda", "libtile_cuda.so", Buffer.from("\0cuLaunchKernel\0"), true);
    expect(deriveGpu(cuda.results, cuda.root).gpu).toBe(true);
    const host = resultsWith("host", "libtile_host.so", hostBytes(), true);
    expect(deriveGpu(host.results, host.root)).toMatchObject({ gpu: false, claimed: true });
  });

  it("rejects the host library under a GPU name, a Metal library without its import, a wrong name, an unfingerprinted or missing file", () => {
    const renamed = resultsWith("cuda", "libtile_cuda.so", hostBytes(), true);
    expect(deriveGpu(renamed.results, renamed.root).reason).toMatch(/is the host runtime's/);
    const hollow = resultsWith("metal", "libtile_metal.dylib", Buffer.from("just bytes"), true);
    expect(deriveGpu(hollow.results, hollow.root).reason).toMatch(/does not hold "MTLCreateSystemDefaultDevice"/);
    const misnamed = resultsWith("metal", "libtile_cuda.so", Buffer.from("\0cuLaunchKernel\0"), true);
    expect(deriveGpu(misnamed.results, misnamed.root).gpu).toBe(false);
    const loose = resultsWith("cuda", "libtile_cuda.so", Buffer.from("\0cuLaunchKernel\0"), true);
    loose.results.artifacts = [];
    expect(deriveGpu(loose.results, loose.root).reason).toMatch(/not among the fingerprinted artifacts/);
    const gone = resultsWith("cuda", "libtile_cuda.so", Buffer.from("\0cuLaunchKernel\0"), true);
    fs.rmSync(path.join(gone.root, "build"), { recursive: true });
    expect(deriveGpu(gone.results, gone.root).reason).toMatch(/is not under/);
  });
});
