// The paired benchmark end to end on the host runtime: the smoke protocol, written to a temp
// folder, audited clean. No test asserts a wall-clock time.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./helpers/files";
import { runBench, BenchOutcome } from "../shell-node/src/bench/run";
import { roundSchedule } from "../shell-node/src/bench/schedule";
import { UsageError } from "../shell-node/src/io";
import { auditResults } from "../shell-node/src/audit/audit";
import { measureRun } from "../shell-node/src/bench/measure";
import { checkProtocol, caseId } from "../shell-node/src/bench/protocol";
import { loadEngine } from "../shell-node/src/engine";
import { openRuntime, Runtime } from "../shell-node/src/native";

const SMOKE = path.join(ROOT, "bench", "protocols", "smoke.json");
const BIN = path.join(ROOT, "shell-node", "bin", "tile.mjs");
const sha = (b: string | Buffer): string => crypto.createHash("sha256").update(b).digest("hex");

let tmp = "";
let out: BenchOutcome;
let results: any;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tile-bench-"));
  out = await runBench({ protocolFile: SMOKE, runtime: "host", outDir: path.join(tmp, "smoke"), argv: ["bench", SMOKE, "--runtime", "host", "-o", path.join(tmp, "smoke")], progress: false });
  results = JSON.parse(fs.readFileSync(out.resultsFile, "utf8"));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

const runs = (): any[] => results.rounds.flatMap((r: any) => r.runs);

describe("tile bench on the host runtime (smoke protocol)", () => {
  it("validates and times every run and writes both files", () => {
    expect(out.ok).toBe(true);
    expect(fs.existsSync(out.markdownFile)).toBe(true);
    expect(results.format).toBe("tile-bench-results/1");
    expect(results.rounds).toHaveLength(2);
    expect(runs()).toHaveLength(2 * 2 * 2);
    for (const r of runs()) {
      expect(r.validation.passed).toBe(true);
      expect(r.timed).toBe(true);
      expect(r.samples.hostBatch).toHaveLength(3);
      expect(r.samples.hostSingle).toHaveLength(3);
      expect(r.dispatchesPerSample.hostSingle).toBe(1);
      expect(r.dispatchesPerSample.hostBatch).toBe(r.calibration.batch);
      // the calibration doubled until the window was filled or maxBatch reached
      const last = r.calibration.trials[r.calibration.trials.length - 1];
      expect(last.repeat).toBe(r.calibration.batch);
      expect(last.us >= 2000 || last.repeat === 64).toBe(true);
      r.calibration.trials.forEach((t: any, i: number) => expect(t.repeat).toBe(2 ** i));
    }
  });

  it("audits clean", () => {
    const receipt = auditResults(out.resultsFile);
    expect(receipt.findings).toEqual([]);
    expect(receipt.verdict).toBe("clean");
    expect(receipt.exitCode).toBe(0);
    expect(receipt.checked.runs).toBe(8);
    expect(receipt.figures).toHaveLength(2 * 2); // two cases x the two host metrics
  });

  it("records GPU metrics as null with a reason on the host, never host times", () => {
    expect(results.runtime.kind).toBe("host");
    expect(results.runtime.timesAreGpu).toBe(false);
    for (const r of runs()) {
      for (const m of ["gpuBatch", "gpuSingle"]) {
        expect(r.samples[m]).toBeNull();
        expect(r.dispatchesPerSample[m]).toBeNull();
        expect(r.unavailable[m]).toMatch(/no GPU timestamps/);
      }
    }
    for (const s of results.summary) {
      for (const m of ["gpuBatch", "gpuSingle"]) {
        expect(s.metrics[m].available).toBe(false);
        expect(s.metrics[m].ratio).toBeNull();
        expect(s.metrics[m].medianA).toBeNull();
      }
    }
    const md = fs.readFileSync(out.markdownFile, "utf8");
    expect(md).toMatch(/\| `gpuBatch` [^|]*\| n\/a \| n\/a \| n\/a \| n\/a \|/);
    expect(md).toContain("host runtime: CPU execution of the MSL, not GPU times");
  });

  it("balances A-first and B-first per case and rotates the starting case", () => {
    for (const c of results.cases) {
      let aFirst = 0;
      let bFirst = 0;
      for (const round of results.rounds) {
        const a = round.runs.find((x: any) => x.case === c.id && x.variant === "A");
        const b = round.runs.find((x: any) => x.case === c.id && x.variant === "B");
        const first = a.seq < b.seq ? "A" : "B";
        expect(round.first[c.id]).toBe(first);
        if (first === "A") aFirst++;
        else bFirst++;
      }
      expect(aFirst).toBe(1);
      expect(bFirst).toBe(1);
    }
    expect(results.rounds[0].caseOrder[0]).not.toBe(results.rounds[1].caseOrder[0]);
    expect(results.rounds.map((r: any) => r.order.map((o: any) => `${o.case} ${o.variant}`))).toEqual(
      results.rounds.map((r: any) => [...r.runs].sort((p: any, q: any) => p.seq - q.seq).map((x: any) => `${x.case} ${x.variant}`)),
    );
  });

  it("balances the schedule for any even number of rounds and any number of cases", () => {
    for (const n of [1, 2, 3, 4, 7]) {
      for (const rounds of [2, 4, 6, 10]) {
        const a = new Array(n).fill(0);
        const starts = new Set<number>();
        for (let r = 0; r < rounds; r++) {
          const s = roundSchedule(r, n);
          expect(s.map((x) => x.case).sort((p, q) => p - q)).toEqual([...Array(n).keys()]);
          starts.add(s[0].case);
          for (const x of s) if (x.first === "A") a[x.case]++;
        }
        expect(a).toEqual(new Array(n).fill(rounds / 2));
        expect(starts.size).toBe(Math.min(n, rounds));
      }
    }
  });

  it("writes results.md with ratio and range columns and the caveats near the table", () => {
    const md = fs.readFileSync(out.markdownFile, "utf8");
    expect(md).toContain("| metric | ratio B/A (median of round ratios) | range (min–max of round ratios) | A median (µs) | B median (µs) | rounds |");
    expect(md).not.toMatch(/confidence interval[^)]/);
    for (const c of results.cases) {
      expect(md).toContain(`## ${c.id}`);
      expect(md).toMatch(new RegExp("\\| `hostBatch` [^|]*\\| \\d+\\.\\d{3} \\| \\d+\\.\\d{3}–\\d+\\.\\d{3} \\| \\d+\\.\\d{2} \\| \\d+\\.\\d{2} \\| 2 \\|"));
    }
    expect(md.indexOf("Caveats:")).toBeLessThan(md.indexOf("| metric |"));
    expect(md).toContain("smoke protocol: 2 rounds and 3 samples");
  });

  it("reports paired medians of per-round ratios, not ratios of pooled medians", () => {
    const med = (xs: number[]): number => {
      const s = [...xs].sort((p, q) => p - q);
      const h = s.length >> 1;
      return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
    };
    for (const s of results.summary) {
      const m = s.metrics.hostSingle;
      const per = results.rounds.map((round: any) => {
        const a = round.runs.find((x: any) => x.case === s.case && x.variant === "A").samples.hostSingle;
        const b = round.runs.find((x: any) => x.case === s.case && x.variant === "B").samples.hostSingle;
        return med(b) / med(a);
      });
      expect(m.roundRatios).toEqual(per);
      expect(m.ratio).toBe(med(per));
      expect(m.range).toEqual([Math.min(...per), Math.max(...per)]);
    }
  });

  it("records argv, protocol, plans, MSL hashes, fingerprints, machine and runtime", () => {
    expect(results.command.argv).toEqual(["bench", SMOKE, "--runtime", "host", "-o", path.join(tmp, "smoke")]);
    expect(results.protocol.text).toBe(fs.readFileSync(SMOKE, "utf8"));
    expect(results.protocol.sha256).toBe(sha(fs.readFileSync(SMOKE)));
    const paths = results.artifacts.map((a: any) => a.path);
    expect(paths.slice(0, 3)).toEqual(["dist/tile-core.wasm", "dist/tile-core.small.wasm", "dist/tile-core.mjs"]);
    expect(paths[3]).toMatch(/^build\/native\/libtile_host\./);
    for (const a of results.artifacts) expect(a.sha256).toBe(sha(fs.readFileSync(path.join(ROOT, a.path))));
    for (const round of results.rounds) expect(round.artifacts).toEqual(results.artifacts);
    expect(results.runtime.library.path).toBe(paths[3]);
    expect(results.machine.node).toBe(process.version);
    expect(typeof results.machine.cpu).toBe("string");
    for (const r of runs()) {
      expect(sha(results.sources[r.mslSha256])).toBe(r.mslSha256);
      expect(sha(JSON.stringify(results.plans[r.planSha256]))).toBe(r.planSha256);
      expect(r.validation.mslSha256).toBe(r.mslSha256);
      expect(r.planMatchesExpect).toBe(true);
      const plan = results.plans[r.planSha256];
      expect(plan.mapping.P).toBe(r.variant === "A" ? 1 : 2);
      expect(plan.mapping.W).toBe(256);
    }
  });

  it("recompiles every round and records host cache hits honestly", () => {
    for (const r of runs()) {
      expect(r.compile).not.toBeNull();
      expect(r.compile.cacheHit).toBe(r.compile.compilerInvocations === 0);
    }
    // the validation compiled the same source first, so the timing compile finds it cached
    expect(runs().every((r) => r.compile.cacheHit)).toBe(true);
  });

  it("rejects an odd number of rounds with a usage error", async () => {
    const odd = path.join(tmp, "odd.json");
    fs.writeFileSync(odd, JSON.stringify({ ...JSON.parse(fs.readFileSync(SMOKE, "utf8")), rounds: 3 }));
    await expect(runBench({ protocolFile: odd, runtime: "host", outDir: path.join(tmp, "odd"), argv: [], progress: false })).rejects.toThrow(UsageError);
    await expect(runBench({ protocolFile: odd, runtime: "host", outDir: path.join(tmp, "odd"), argv: [], progress: false })).rejects.toThrow(/rounds must be even/);
    expect(fs.existsSync(path.join(tmp, "odd"))).toBe(false);
  });
});

describe("a run whose validation fails", () => {
  it("is recorded with the failure and not timed", async () => {
    const engine = await loadEngine("wasm");
    const known = engine.call({ command: "cases" }).cases;
    const protocol = checkProtocol(JSON.parse(fs.readFileSync(SMOKE, "utf8")), known.map((c: any) => c.name));
    const real = openRuntime("host");
    // a runtime whose reads come back as zeros: the outputs (and guards) no longer match
    const broken: Runtime = Object.assign(Object.create(Object.getPrototypeOf(real)), real, { read: (_b: unknown, bytes: number) => new ArrayBuffer(bytes) });
    try {
      const c = protocol.cases[0];
      const ctx = { engine, runtime: broken, protocol, sources: {}, plans: {} };
      const r = measureRun(ctx, 0, 0, { id: caseId(c), text: known.find((k: any) => k.name === c.case).text, sizes: c.sizes }, "A");
      expect(r.validation.passed).toBe(false);
      expect(r.timed).toBe(false);
      expect(r.error).toMatch(/^validation failed/);
      expect(r.samples).toEqual({ gpuBatch: null, gpuSingle: null, hostBatch: null, hostSingle: null });
      expect(r.compile).toBeNull();
      expect(r.mslSha256).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      real.close();
    }
  });
});

describe("the CLI", () => {
  const tile = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: "utf8", timeout: 60000 });

  it("bench exits 2 on an odd number of rounds, quietly without a terminal", () => {
    const odd = path.join(tmp, "odd-cli.json");
    fs.writeFileSync(odd, JSON.stringify({ ...JSON.parse(fs.readFileSync(SMOKE, "utf8")), rounds: 1 }));
    const r = tile("bench", odd, "--runtime", "host", "-o", path.join(tmp, "odd-cli"));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/rounds must be even/);
  });

  it("audit prints a clean receipt (exit 0) and exits 2 on unreadable input", () => {
    const ok = tile("audit", out.resultsFile);
    expect(ok.status).toBe(0);
    const receipt = JSON.parse(ok.stdout);
    expect(receipt.verdict).toBe("clean");
    const junk = path.join(tmp, "junk.json");
    fs.writeFileSync(junk, "{ not json");
    const bad = tile("audit", junk);
    expect(bad.status).toBe(2);
    expect(JSON.parse(bad.stdout).verdict).toBe("unreadable");
  });
});
