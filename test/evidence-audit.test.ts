// The independent audit against adversarial edits of a real results file: one smoke run on the
// host runtime, copied and mutated once per finding. The untouched copy must pass; each mutation
// must be rejected with its own finding id.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./helpers/files";
import { runBench } from "../shell-node/src/bench/run";
import { auditResults, Receipt } from "../shell-node/src/audit/audit";
import { FINDINGS } from "../shell-node/src/audit/findings";

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
      const inverted = (1 / s.ratio).toFixed(3);
      expect(printed).not.toBe(inverted);
      c.md = c.md.replace(`| ${printed} |`, `| ${inverted} |`);
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

  it("exits 2 on unreadable input", () => {
    const junk = path.join(tmp, "junk.json");
    fs.writeFileSync(junk, "[1, 2");
    expect(auditResults(junk).exitCode).toBe(2);
    expect(auditResults(path.join(tmp, "nope.json")).exitCode).toBe(2);
  });
});
