// Issue 17's tools on the host runtime (host times are CPU wall clock: these tests check the
// machinery and the arithmetic, never a speed): bench overrides and their audit, tile sweep,
// tile time, the PyTorch side-by-side script in its dry mode, the GPU driver script's syntax.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./helpers/files";
import { runBench } from "../shell-node/src/bench/run";
import { auditResults } from "../shell-node/src/audit/audit";
import { UsageError } from "../shell-node/src/io";
import { BoundedMap, ranks, spearman, timingOrder } from "../shell-node/src/bench/timing";
import { candidateKey, selectCandidates, summarizeSweep } from "../shell-node/src/bench/sweep";

const SMOKE = path.join(ROOT, "bench", "protocols", "smoke.json");
const BIN = path.join(ROOT, "shell-node", "bin", "tile.mjs");
let tmp = "";

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tile-evidence-tools-"));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function tile(args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: "utf8", timeout: 120000 });
}

describe("tile bench: command-line overrides bound a run and the audit applies them", () => {
  let dir = "";
  let results: any;
  const argv = () => ["bench", SMOKE, "--runtime", "host", "-o", dir, "--rounds", "4", "--samples", "2", "--batch-window-ms", "1", "--metrics", "hostBatch"];
  beforeAll(async () => {
    dir = path.join(tmp, "overrides");
    await runBench({ protocolFile: SMOKE, runtime: "host", outDir: dir, argv: argv(), progress: false, overrides: { rounds: 4, samples: 2, batchWindowMs: 1, metrics: ["hostBatch"] } });
    results = JSON.parse(fs.readFileSync(path.join(dir, "results.json"), "utf8"));
  });

  it("runs the overridden rounds, samples, window and metrics, and records them", () => {
    expect(results.overrides).toEqual({ rounds: 4, samples: 2, batchWindowMs: 1, metrics: ["hostBatch"] });
    // the protocol text is kept as written (2 rounds, 3 samples)
    expect(JSON.parse(results.protocol.text).rounds).toBe(2);
    expect(results.rounds).toHaveLength(4);
    for (const run of results.rounds.flatMap((r: any) => r.runs)) {
      expect(run.samples.hostBatch).toHaveLength(2);
      expect(run.samples.hostSingle).toBeNull();
      expect(run.calibration.windowMs).toBe(1);
    }
    expect(fs.readFileSync(path.join(dir, "results.md"), "utf8")).toMatch(/overridden on the command line.*rounds 4, samples 2, batchWindowMs 1, metrics hostBatch/);
  });

  it("audits clean: rounds, samples and the batch window are checked against the overrides", () => {
    const receipt = auditResults(dir);
    expect(receipt.findings).toEqual([]);
    expect(receipt.checked.rounds).toBe(4);
    expect(receipt.figures).toHaveLength(2); // two cases x hostBatch only
  });

  it("an override the recorded command line does not show is a bad-override and is not applied", () => {
    const forged = { ...results, overrides: { ...results.overrides, samples: 1 } };
    const file = path.join(tmp, "forged-overrides.json");
    fs.copyFileSync(path.join(dir, "results.md"), path.join(tmp, "results.md"));
    fs.writeFileSync(file, JSON.stringify(forged));
    const receipt = auditResults(file, ROOT);
    expect(receipt.findingIds).toContain("bad-override");
    expect(receipt.findings.find((f) => f.id === "bad-override")!.where).toBe("overrides.samples");
  });

  it("an override removed from results.json leaves the protocol as written: fewer rounds than it requires is partial-output", () => {
    const { overrides, ...rest } = results;
    expect(overrides).toBeDefined();
    const file = path.join(tmp, "no-overrides.json");
    fs.writeFileSync(file, JSON.stringify({ ...rest, rounds: results.rounds.slice(0, 2) }));
    const receipt = auditResults(file, ROOT);
    // the protocol as written wants 3 samples per run and all four metrics' host rows
    expect(receipt.findingIds).toContain("partial-output");
  });

  it("unknown keys and invalid values are findings", () => {
    const file = path.join(tmp, "bad-keys.json");
    fs.writeFileSync(file, JSON.stringify({ ...results, overrides: { ...results.overrides, seed: 3, rounds: -2 } }));
    const receipt = auditResults(file, ROOT);
    const where = receipt.findings.filter((f) => f.id === "bad-override").map((f) => f.where).sort();
    expect(where).toEqual(["overrides.rounds", "overrides.seed"]);
  });

  it("an odd --rounds and an unknown metric are usage errors (exit 2)", async () => {
    await expect(runBench({ protocolFile: SMOKE, runtime: "host", outDir: path.join(tmp, "odd"), argv: [], progress: false, overrides: { rounds: 3 } })).rejects.toThrow(UsageError);
    const r = tile(["bench", SMOKE, "--runtime", "host", "--metrics", "gpuBatch,wallClock", "-o", path.join(tmp, "x")]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--metrics expects/);
  });
});

describe("timing order and the sweep's statistics", () => {
  it("pairs rounds forwards and backwards: every entry's mean position is the middle over each pair", () => {
    for (const n of [2, 3, 5]) {
      for (let pair = 0; pair < 3; pair++) {
        const a = timingOrder(2 * pair, n);
        const b = timingOrder(2 * pair + 1, n);
        expect([...a].sort()).toEqual([...Array(n).keys()]);
        expect(b).toEqual([...a].reverse());
        for (let e = 0; e < n; e++) expect(a.indexOf(e) + b.indexOf(e)).toBe(n - 1);
      }
      // the starting entry moves from pair to pair
      if (n > 1) expect(timingOrder(2, n)[0]).not.toBe(timingOrder(0, n)[0]);
    }
  });

  it("the oracle cache of a time list keeps the two most recent documents only", () => {
    const m = new BoundedMap<string, number>(2);
    m.set("a", 1).set("b", 2).set("a", 3); // a key set again is not a new key
    expect([...m.entries()]).toEqual([["a", 3], ["b", 2]]);
    m.set("c", 4);
    expect([...m.keys()]).toEqual(["b", "c"]);
  });

  it("Spearman: +1 for the same order, -1 reversed, mean ranks for ties, null when undefined", () => {
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 40])).toBeCloseTo(1, 12);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 12);
    expect(ranks([5, 1, 5, 2])).toEqual([3.5, 1, 3.5, 2]);
    // a hand-computed case: ranks [1,2,3,4,5] vs [2,1,4,3,5]: 1 - 6*4/(5*24) = 0.8
    expect(spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])).toBeCloseTo(0.8, 12);
    expect(spearman([1, 2], [2, 1])).toBeNull();
    expect(spearman([1, 1, 1], [1, 2, 3])).toBeNull();
  });

  it("selects the pick plus an even spread of the predicted ranking, first and last included", () => {
    expect(selectCandidates(5, 2, 10)).toEqual([0, 1, 2, 3, 4]);
    const s = selectCandidates(100, 37, 5);
    expect(s).toHaveLength(5);
    expect(s).toContain(37);
    expect(s).toContain(0);
    expect(s).toContain(99);
    expect(selectCandidates(100, 37, 0)).toHaveLength(100); // 0 = all
  });

  it("summarizes regret, the pick's rank and per-round regrets from the medians", () => {
    const s = summarizeSweep([
      { key: "a", predicted: 1, medianUs: 30, roundMedians: [30, 31] },
      { key: "b", predicted: 2, medianUs: 10, roundMedians: [9, 12] },
      { key: "c", predicted: 3, medianUs: 20, roundMedians: [20, 10] },
    ], "a", 7, 4);
    expect(s.best).toBe("b");
    expect(s.pickIsBest).toBe(false);
    expect(s.regret).toBeCloseTo(3, 12);
    expect(s.roundRegrets).toEqual([30 / 9, 31 / 10]);
    expect(s.pickMeasuredRank).toBe(3);
    expect(s.spearman).toBeCloseTo(-0.5, 12);
    expect(s.candidatesScored).toBe(7);
    expect(s.admissible).toBe(4);
  });
});

describe("tile sweep on the host runtime", () => {
  let sweep: any;
  let r: ReturnType<typeof tile>;
  const dir = () => path.join(tmp, "sweep");
  beforeAll(() => {
    r = tile(["sweep", "rmsnorm", "--size", "R=6", "--size", "C=256", "--runtime", "host", "--device", "nvidia-h200", "--max-candidates", "5", "--rounds", "2", "--samples", "2", "--batch-window-ms", "1", "-o", dir()]);
    sweep = JSON.parse(fs.readFileSync(path.join(dir(), "sweep.json"), "utf8"));
  });

  it("times the pick and the selected candidates, each validated, with host times marked as such", () => {
    expect(r.status).toBe(0);
    expect(sweep.format).toBe("tile-sweep/1");
    expect(sweep.metric).toBe("hostBatch");
    expect(sweep.timesAreGpu).toBe(false);
    expect(sweep.device.arg).toBe("nvidia-h200");
    const timed = sweep.candidates.filter((c: any) => c.selected);
    expect(timed).toHaveLength(5);
    expect(timed.some((c: any) => c.pick)).toBe(true);
    for (const c of timed) {
      expect(c.timing.validation.passed).toBe(true);
      expect(c.timing.timed).toBe(true);
      expect(c.timing.roundMedians).toHaveLength(2);
      expect(c.timing.samples.every((s: number[]) => s.length === 2)).toBe(true);
      // the kernel timed is the candidate asked for
      expect(candidateKey(sweep.candidates.find((x: any) => x.key === c.key).mapping)).toBe(c.key);
      expect(sweep.sources[c.timing.mslSha256]).toBeTypeOf("string");
    }
    expect(sweep.selection.admissible).toBeGreaterThan(5);
    expect(sweep.summary.admissible).toBe(sweep.selection.admissible);
    expect(fs.readFileSync(path.join(dir(), "sweep.md"), "utf8")).toMatch(/not GPU times/);
  });

  it("its summary is recomputable from the raw samples", () => {
    const timed = sweep.candidates.filter((c: any) => c.selected);
    const med = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
    for (const c of timed) {
      const rm = c.timing.samples.map((s: number[]) => med(s.map((x) => x / c.timing.dispatchesPerSample)));
      expect(rm).toEqual(c.timing.roundMedians);
      expect(med(rm)).toBe(c.timing.medianUs);
    }
    const best = Math.min(...timed.map((c: any) => c.timing.medianUs));
    const pick = timed.find((c: any) => c.pick);
    expect(sweep.summary.regret).toBeCloseTo(pick.timing.medianUs / best, 12);
    expect(sweep.summary.spearman).toBeCloseTo(spearman(timed.map((c: any) => c.predicted), timed.map((c: any) => c.timing.medianUs))!, 12);
    // predictions are those of the H200 record, not the default device
    const plan = JSON.parse(tile(["plan", "cases/rmsnorm.json", "--size", "R=6", "--size", "C=256", "--device", "nvidia-h200", "--json"]).stdout);
    expect(sweep.summary.pick).toBe(candidateKey(plan.mapping));
  });

  it("a candidate whose compiled pipeline holds fewer threads is recorded as not launchable, not timed, and the sweep still exits 0", () => {
    const d = path.join(tmp, "sweep-replanned");
    const x = spawnSync(process.execPath, [BIN, "sweep", "softmax", "--size", "R=4", "--size", "C=256", "--runtime", "host", "--max-candidates", "6", "--samples", "1", "--batch-window-ms", "1", "-o", d],
      { cwd: ROOT, encoding: "utf8", env: { ...process.env, TILE_HOST_TEST_PIPELINE_MAX_THREADS: "512" }, timeout: 120000 });
    expect(x.status).toBe(0);
    expect(x.stderr).toMatch(/not launchable as planned/);
    const s = JSON.parse(fs.readFileSync(path.join(d, "sweep.json"), "utf8"));
    const sel = s.candidates.filter((c: any) => c.selected);
    const wide = sel.filter((c: any) => c.mapping.T > 512);
    expect(wide.length).toBeGreaterThan(0);
    for (const c of wide) {
      expect(c.timing.timed).toBe(false);
      expect(c.timing.replanned).toMatch(/allows 512 threads/);
    }
    for (const c of sel.filter((c: any) => c.mapping.T <= 512)) expect(c.timing.timed).toBe(true);
  });

  it("refuses an odd --rounds (exit 2)", () => {
    const x = tile(["sweep", "softmax", "--size", "R=4", "--size", "C=64", "--runtime", "host", "--rounds", "3", "-o", path.join(tmp, "odd-sweep")]);
    expect(x.status).toBe(2);
    expect(x.stderr).toMatch(/--rounds must be even/);
  });
});

describe("tile time", () => {
  it("times a list of plans, each validated, and writes tile-times/1", () => {
    const list = path.join(tmp, "list.json");
    fs.writeFileSync(list, JSON.stringify({ format: "tile-time-list/1", entries: [
      { id: "softmax P1", case: "softmax", sizes: { R: 4, C: 256 }, options: { programsPerGroup: 1, threads: 128 } },
      { id: "gelu", case: "gelu_pair", sizes: { R: 4, C: 256 }, options: {} },
    ] }));
    const out = path.join(tmp, "times.json");
    const r = tile(["time", list, "--runtime", "host", "--samples", "2", "--batch-window-ms", "1", "-o", out]);
    expect(r.status).toBe(0);
    const t = JSON.parse(fs.readFileSync(out, "utf8"));
    expect(t.format).toBe("tile-times/1");
    expect(t.timesAreGpu).toBe(false);
    expect(t.entries.map((e: any) => e.id)).toEqual(["softmax P1", "gelu"]);
    expect(t.entries[0].mapping).toMatch(/^P=1 S=4 T=128 /);
    expect(t.entries[1].realization).toBe("fused-elementwise");
    for (const e of t.entries) {
      expect(e.validated).toBe(true);
      expect(e.timed).toBe(true);
      expect(e.medianUs).toBeGreaterThan(0);
    }
  });

  it("a list takes the plan options given on the command line (--device, --size) under each entry's own", () => {
    // session 19: `tile time LIST --device D` planned every entry for the default device
    const list = path.join(tmp, "list-device.json");
    fs.writeFileSync(list, JSON.stringify({ format: "tile-time-list/1", entries: [
      { id: "auto", case: "softmax", sizes: { R: 4 }, options: {} },
      { id: "own threads", case: "softmax", sizes: { R: 4, C: 512 }, options: { threads: 64 } },
    ] }));
    const out = path.join(tmp, "times-device.json");
    const r = tile(["time", list, "--device", "nvidia-h200-calibrated", "--size", "C=256", "--threads", "128", "--runtime", "host", "--samples", "1", "--batch-window-ms", "1", "-o", out]);
    expect(r.status, r.stderr).toBe(0);
    const t = JSON.parse(fs.readFileSync(out, "utf8"));
    const planned = (size: string, extra: string[]) => JSON.parse(tile(["plan", path.join(ROOT, "cases", "softmax.json"), "--json", "--device", "nvidia-h200-calibrated", "--size", "R=4", "--size", size, ...extra]).stdout);
    const a = planned("C=256", ["--threads", "128"]);
    const b = planned("C=512", ["--threads", "64"]);
    expect(t.entries[0].sizes).toEqual({ C: 256, R: 4 });
    expect(t.entries[0].options.device.name).toBe("NVIDIA H200 (SXM, 132 SMs)");
    expect(t.entries[0].predicted).toBe(a.cost.total);
    expect(t.entries[0].mapping).toMatch(/T=128 /);
    expect(t.entries[1].sizes).toEqual({ C: 512, R: 4 });
    expect(t.entries[1].predicted).toBe(b.cost.total);
    expect(t.entries[1].mapping).toMatch(/T=64 /);
    // without --device the default device's plan, another cost
    expect(JSON.parse(tile(["plan", path.join(ROOT, "cases", "softmax.json"), "--json", "--size", "R=4", "--size", "C=256", "--threads", "128"]).stdout).cost.total).not.toBe(a.cost.total);
  });

  it("a single case with plan options; an unplannable request is not timed (exit 1)", () => {
    const ok = tile(["time", "softmax", "--size", "R=4", "--size", "C=256", "--threads", "64", "--runtime", "host", "--samples", "1", "--batch-window-ms", "1", "--json"]);
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout).entries[0].mapping).toMatch(/T=64/);
    const bad = tile(["time", "softmax", "--size", "R=4", "--size", "C=256", "--threads", "96", "--programs-per-group", "2", "--runtime", "host", "--samples", "1", "--json"]);
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout).entries[0].timed).toBe(false);
  });
});

describe("the GPU evidence scripts", () => {
  const py = spawnSync("python3", ["--version"], { encoding: "utf8" });
  it.skipIf(py.status !== 0)("torch-side-by-side.py compiles, and its dry mode runs Tile through tile time (no ratio from host times)", () => {
    expect(spawnSync("python3", ["-m", "py_compile", path.join(ROOT, "bench", "torch-side-by-side.py")]).status).toBe(0);
    const out = path.join(tmp, "torch.json");
    const r = spawnSync("python3", [path.join(ROOT, "bench", "torch-side-by-side.py"), "--dry", "--runtime", "host", "--shapes", "4x256", "--cases", "softmax,sigmoid_pair",
      "--samples", "1", "--batch-window-ms", "1", "--device", "nvidia-h200", "--out", out], { cwd: ROOT, encoding: "utf8", env: { ...process.env, TILE_NODE: process.execPath }, timeout: 120000 });
    expect(r.status).toBe(0);
    const t = JSON.parse(fs.readFileSync(out, "utf8"));
    expect(t.torch_missing).toMatch(/--dry/);
    expect(t.tile_device).toBe("nvidia-h200");
    expect(t.tile_times_are_gpu).toBe(false);
    expect(t.rows).toHaveLength(4); // softmax: auto, P1/T256, P2/T512; sigmoid_pair: auto
    for (const row of t.rows) {
      expect(row.tile_validated).toBe(true);
      expect(row.tile_over_torch).toBeNull();
      expect(row.bw_frac_tile).toBeNull();
    }
    expect(t.rows[3].min_bytes).toBe(3 * 4 * 256 * 4);
  });

  it("cuda-evidence-3.sh is valid bash and keeps every step under the one budget", () => {
    const file = path.join(ROOT, "scripts", "cuda-evidence-3.sh");
    expect(spawnSync("bash", ["-n", file]).status).toBe(0);
    const text = fs.readFileSync(file, "utf8");
    expect(text).toMatch(/budget=\$\{BUDGET:-560\}/);
    // every measuring command goes through step (its time limit), none directly
    for (const line of text.split("\n").filter((l) => /"\$tile" (bench|sweep|suite|audit|run)\b/.test(l))) expect(line).toMatch(/^\s*step /);
    // a pack:gpu layout (bin/node, tile, pkg/) made of links to this checkout; only the smoke
    // and one sweep run, on the host runtime: the budget, SKIP and steps.txt work
    const pack = path.join(tmp, "tile-gpu");
    fs.mkdirSync(path.join(pack, "bin"), { recursive: true });
    fs.symlinkSync(process.execPath, path.join(pack, "bin", "node"));
    fs.symlinkSync(ROOT, path.join(pack, "pkg"));
    fs.writeFileSync(path.join(pack, "tile"), '#!/bin/sh\nhere=$(cd "$(dirname "$0")" && pwd)\nexec "$here/bin/node" "$here/pkg/shell-node/bin/tile.mjs" "$@"\n', { mode: 0o755 });
    const out = path.join(tmp, "driver");
    const r = spawnSync("bash", [path.join(pack, "pkg", "scripts", "cuda-evidence-3.sh"), out], { cwd: tmp, encoding: "utf8", timeout: 120000,
      env: { ...process.env, RUNTIME: "host", SHAPES: "4x64", BUDGET: "100", MAX_CANDIDATES: "2", SKIP: "setup suite bench audit torch" } });
    expect(r.status).toBe(0);
    const steps = fs.readFileSync(path.join(out, "steps.txt"), "utf8");
    expect(steps).toMatch(/smoke: tile run softmax\s+exit 0 /);
    expect(steps).toMatch(/bench packing\s+skipped \(SKIP\)/);
    expect(steps).toMatch(/sweep rmsnorm 4x64\s+exit 0 /);
    expect(JSON.parse(fs.readFileSync(path.join(out, "sweeps", "rmsnorm-4x64", "sweep.json"), "utf8")).device.arg).toBe("nvidia-h200");
  });
});
