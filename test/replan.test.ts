// The re-planning path of `tile run`, `tile suite` and `tile bench`, on a host runtime made to
// report (and enforce, as Metal does) a lower per-pipeline thread limit through its test-only
// variable TILE_HOST_TEST_PIPELINE_MAX_THREADS. Metal reports maxTotalThreadsPerThreadgroup per
// compiled pipeline; a plan wider than that must be planned again exactly once, and the kernel
// that is then validated is the one recorded and timed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { ROOT } from "./helpers/files";
import { loadEngine, Engine } from "../shell-node/src/engine";
import { openRuntime, Pipeline, Runtime } from "../shell-node/src/native";
import { runAndValidate } from "../shell-node/src/validate-run";
import { ensureHostLibrary } from "./helpers/host";

const CLI = path.join(ROOT, "shell-node", "bin", "tile.mjs");
const LIMIT_VAR = "TILE_HOST_TEST_PIPELINE_MAX_THREADS";
const sha = (s: string): string => crypto.createHash("sha256").update(s).digest("hex");

function tile(args: string[], limit: number | null) {
  const env = { ...process.env };
  delete env[LIMIT_VAR];
  if (limit !== null) env[LIMIT_VAR] = String(limit);
  return spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", cwd: ROOT, env, maxBuffer: 64 << 20 });
}

let tmp = "";
let wasm: Engine;
let runtime: Runtime;
beforeAll(async () => {
  ensureHostLibrary();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tile-replan-"));
  wasm = await loadEngine("wasm");
  runtime = openRuntime("host");
});
afterAll(() => {
  runtime?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const caseText = (name: string): string => fs.readFileSync(path.join(ROOT, "cases", name + ".json"), "utf8");

/** The host runtime, wrapped to report `limit(plannedThreads, call)` and to count pipelines. */
function limited(limit: (call: number) => number): { rt: Runtime; pipelines: () => number } {
  let calls = 0;
  const rt: Runtime = Object.create(runtime);
  rt.pipeline = (lib, entry): Pipeline => ({ ...runtime.pipeline(lib, entry), maxThreads: limit(calls++) });
  return { rt, pipelines: () => calls };
}

describe("runAndValidate re-plans once", () => {
  it("a limit that the second plan meets: two pipelines, the validated plan fits, its MSL is returned", () => {
    const { rt, pipelines } = limited(() => 256);
    const r = runAndValidate({ engine: wasm, runtime: rt, text: caseText("softmax"), options: {}, seed: 3 });
    expect(pipelines()).toBe(2);
    expect(r.passed).toBe(true);
    expect(r.replanned).toBe("re-planned: the pipeline allows 256 threads per group, the plan had 512");
    expect(r.plan.dispatch.threads).toBeLessThanOrEqual(256);
    expect((r.options as any).maxThreads).toBe(256);
    // the returned MSL is the re-planned kernel's, not the first one's
    const first = wasm.call({ command: "emit", document: caseText("softmax"), options: {} });
    const second = wasm.call({ command: "emit", document: caseText("softmax"), options: { maxThreads: 256 } });
    expect(r.msl).toBe(second.msl);
    expect(r.msl).not.toBe(first.msl);
  });

  it("a caller's emit response is not reused for the re-plan (the suite passes one)", () => {
    const { rt, pipelines } = limited(() => 256);
    const emitted = wasm.call({ command: "emit", document: caseText("sum"), options: {} });
    expect(emitted.plan.dispatch.threads).toBeGreaterThan(256);
    const r = runAndValidate({ engine: wasm, runtime: rt, text: caseText("sum"), options: {}, seed: 3, emitted });
    expect(pipelines()).toBe(2);
    expect(r.passed).toBe(true);
    expect(r.plan.dispatch.threads).toBeLessThanOrEqual(256);
  });

  it("a limit that keeps shrinking: still exactly two pipelines, then a clear failure (no recursion)", () => {
    // every pipeline reports half of what the one before allowed: an endless re-planner would
    // go on until the stack runs out
    const { rt, pipelines } = limited((call) => 256 >> call);
    const r = runAndValidate({ engine: wasm, runtime: rt, text: caseText("softmax"), options: {}, seed: 3 });
    expect(pipelines()).toBe(2);
    expect(r.passed).toBe(false);
    expect(r.replanned).toBe("re-planned: the pipeline allows 256 threads per group, the plan had 512");
    expect(r.error).toMatch(/^the re-planned kernel still does not fit its pipeline: \d+ threads per group, the pipeline allows 128 \(no further re-plan\)$/);
  });

  it("a plan that fits is not re-planned", () => {
    const { rt, pipelines } = limited(() => 1024);
    const r = runAndValidate({ engine: wasm, runtime: rt, text: caseText("softmax"), options: {}, seed: 3 });
    expect(pipelines()).toBe(1);
    expect(r.replanned).toBeUndefined();
    expect(r.passed).toBe(true);
  });
});

describe("the host runtime's test-only pipeline limit", () => {
  it("tile run: re-plans under the reported limit; without the variable nothing is re-planned", () => {
    const limitedRun = tile(["run", "cases/softmax.json", "--runtime", "host", "--json"], 256);
    expect(limitedRun.status).toBe(0);
    const j = JSON.parse(limitedRun.stdout);
    expect(j.passed).toBe(true);
    expect(j.replanned).toBe("re-planned: the pipeline allows 256 threads per group, the plan had 512");
    expect(j.plan.dispatch.threads).toBeLessThanOrEqual(256);
    const plain = JSON.parse(tile(["run", "cases/softmax.json", "--runtime", "host", "--json"], null).stdout);
    expect(plain.replanned).toBeNull();
    expect(plain.plan.dispatch.threads).toBe(512);
  });

  it("tile run: under 16 threads the re-plan is the serial program in groups of 16, and it passes", () => {
    // no cooperative mapping fits 16 threads (W >= 32); the serial fallback honours the limit
    // (its groups were 64 threads whatever --max-threads said), so the one re-plan fits and no
    // "still does not fit" error arises from a fixed limit
    const plain = JSON.parse(tile(["plan", "cases/sum.json", "--json"], null).stdout);
    const r = tile(["run", "cases/sum.json", "--runtime", "host", "--json"], 16);
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.replanned).toBe(`re-planned: the pipeline allows 16 threads per group, the plan had ${plain.dispatch.threads}`);
    expect(j.error).toBeNull();
    expect(j.plan.realization).toBe("serial-program");
    expect(j.plan.dispatch.threads).toBe(16);
    expect(j.passed).toBe(true);
    // and the fallback says why, with the limit (the cause was empty: "not proven because .")
    expect(j.warnings.some((w: string) => w.includes("no cooperative mapping fits the thread limit of 16"))).toBe(true);
    expect(r.stderr).not.toMatch(/call stack/);
  });

  it("tile run: the element grid's block follows the re-planned limit (issue 21: --max-threads is honoured there too)", () => {
    const r = tile(["run", "cases/add.json", "--runtime", "host", "--json"], 128);
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.replanned).toBe("re-planned: the pipeline allows 128 threads per group, the plan had 256");
    expect(j.plan.mapping.block).toBe(128);
    expect(j.passed).toBe(true);
  });

  it("tile suite: rows re-plan once and pass; both builds of the core agree on the re-planned kernel", () => {
    const r = tile(["suite", "--runtime", "host", "--json", "--filter", "/default"], 256);
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    const wide = j.rows.filter((x: any) => x.replanned);
    expect(wide.length).toBeGreaterThanOrEqual(3);
    for (const row of j.rows) {
      expect(row.verdict, row.id).toBe("pass");
      expect(row.enginesAgree).toBe(true);
      // widths are printed as "P.. S.. T.. ..." for reductions
      const t = /\bT(\d+)\b/.exec(row.widths);
      if (t) expect(Number(t[1]), row.id).toBeLessThanOrEqual(256);
    }
    for (const row of wide) expect(row.replanned).toMatch(/^re-planned: the pipeline allows 256 threads per group, the plan had \d+$/);
  });

  it("tile suite: under 16 threads explicit widths are refused (TPL009), the others re-plan once and pass; the suite ends", () => {
    const r = tile(["suite", "--runtime", "host", "--json", "--filter", "sum/"], 16);
    expect(r.status).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.rows.length).toBeGreaterThan(0);
    for (const row of j.rows) {
      expect(row.replanned).toMatch(/^re-planned: the pipeline allows 16 threads per group/);
      // a row with explicit widths that cannot fit 16 threads is refused (TPL009, issue 21)
      if (row.verdict === "fail") expect(row.error).toMatch(/TPL009 Cannot honour/);
    }
    expect(j.rows.some((row: any) => row.verdict === "pass")).toBe(true);
    expect(j.rows.some((row: any) => row.verdict === "fail")).toBe(true);
  });

  it("tile bench: times and records the validated (re-planned) kernel; the audit is clean", () => {
    const protocol = {
      format: "tile-bench-protocol/1",
      name: "replan",
      question: "Is the re-planned kernel the one timed? (test)",
      cases: [{ case: "softmax", sizes: { R: 8, C: 512 } }],
      variants: {
        A: { label: "P=1", options: { programsPerGroup: 1 }, expect: { P: 1 } },
        B: { label: "P=2", options: { programsPerGroup: 2 }, expect: { P: 2 } },
      },
      rounds: 2, samples: 2, batchWindowMs: 1, maxBatch: 4, warmup: 0, seed: 1,
      metrics: ["hostBatch", "hostSingle"],
      caveats: ["test protocol"],
    };
    const file = path.join(tmp, "replan.json");
    fs.writeFileSync(file, JSON.stringify(protocol, null, 2));
    const out = path.join(tmp, "bench");
    const b = tile(["bench", file, "--runtime", "host", "-o", out], 256);
    expect(b.stderr).toBe("");
    expect(b.status).toBe(0);
    const results = JSON.parse(fs.readFileSync(path.join(out, "results.json"), "utf8"));
    const runs = results.rounds.flatMap((r: any) => r.runs);
    expect(runs).toHaveLength(4);
    for (const run of runs) {
      expect(run.timed).toBe(true);
      expect(run.error).toBeNull();
      // the automatic T at 8 x 512: 512 for P = 1 (one worker per element), 1024 for P = 2
      expect(run.replanned).toBe(`re-planned: the pipeline allows 256 threads per group, the plan had ${run.variant === "A" ? 512 : 1024}`);
      // the recorded plan and MSL are the validated ones, and they are the re-planned kernel
      expect(run.validation.planSha256).toBe(run.planSha256);
      expect(run.validation.mslSha256).toBe(run.mslSha256);
      const plan = results.plans[run.planSha256];
      expect(plan.dispatch.threads).toBeLessThanOrEqual(256);
      expect(sha(results.sources[run.mslSha256])).toBe(run.mslSha256);
      const expected = wasm.call({ command: "emit", document: caseText("softmax"), options: { ...protocol.variants[run.variant as "A" | "B"].options, sizes: { R: 8, C: 512 }, maxThreads: 256 } });
      expect(results.sources[run.mslSha256]).toBe(expected.msl);
      expect(run.samples.hostSingle).toHaveLength(2);
    }
    expect(fs.readFileSync(path.join(out, "results.md"), "utf8")).toContain("(re-planned: the pipeline allows 256 threads per group, the plan had 1024; the re-planned kernel is the one validated and timed)");
    const audit = tile(["audit", out], null);
    expect(JSON.parse(audit.stdout).findings).toEqual([]);
    expect(audit.status).toBe(0);
  });
});
