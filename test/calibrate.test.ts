// The cost model's coefficients as device data ("costModel"), the solver's fewer-programs
// tie-break at the calibrated error, and `tile calibrate` on sweeps whose "measurements" are the
// model itself at known coefficients (so the fit must reproduce them exactly).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { ROOT } from "./helpers/files";
import { tileInProcess } from "./helpers/cli";
import { Engine, loadEngine } from "../shell-node/src/engine";
import { candidateKey } from "../shell-node/src/bench/sweep";
import { calibrate, chooseLambda, DEFAULTS, fitRegularised, leaveShapesOut, nnls, predict, readShape, ridgeObjective, Shape } from "../shell-node/src/bench/calibrate";

const BIN = path.join(ROOT, "shell-node", "bin", "tile.mjs");
/** `tile ARGS` in this process (test/helpers/cli.ts): where a child process would add only Node's
 *  start-up. The device-record test below spawns the real executable (calibrate, plan, device). */
const tile = async (...args: string[]) => {
  const r = await tileInProcess(...args);
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
};
const H200 = JSON.parse(fs.readFileSync(path.join(ROOT, "devices", "nvidia-h200.json"), "utf8"));
const softmax = fs.readFileSync(path.join(ROOT, "cases", "softmax.json"), "utf8");
let js: Engine;
let wasm: Engine;
let tmp = "";

beforeAll(async () => {
  js = await loadEngine("js");
  wasm = await loadEngine("wasm");
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tile-calibrate-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const plan = (e: Engine, device: unknown, sizes = { R: 256, C: 3072 }, extra: object = {}) =>
  e.call({ command: "plan", document: softmax, options: { sizes, candidates: true, device, ...extra } });

describe("costModel in a device description", () => {
  it("is read (f32 precision), scales the terms it names, and both engines agree byte for byte", () => {
    const dev = { ...H200, costModel: { setupNs: 3000, memoryFactor: 2.5, loadIssueCycles: 0.5, barrierNs: 10 } };
    const req = JSON.stringify({ command: "plan", document: softmax, options: { sizes: { R: 256, C: 3072 }, candidates: true, device: dev } });
    expect(js.callText(req)).toBe(wasm.callText(req));
    const a = plan(wasm, H200);
    const b = plan(wasm, dev);
    const ca = a.candidates[0].cost.terms;
    const cb = b.candidates.find((c: any) => candidateKey(c.mapping) === candidateKey(a.candidates[0].mapping)).cost.terms;
    expect(cb.memory).toBeCloseTo(ca.memory * 2.5, 2);
    expect(cb.setup).toBeCloseTo(ca.setup * 2, 2);
    expect(cb.collectivesAndBarriers).toBeLessThan(ca.collectivesAndBarriers);
    const shown = wasm.call({ command: "device", options: { device: dev } }).device.costModel;
    expect(shown).toMatchObject({ setupNs: 3000, memoryFactor: 2.5, loadIssueCycles: 0.5, barrierNs: 10, simdNs: 8, error: 0 });
  });

  it("the defaults leave every plan as it was (no costModel = the built-in estimates)", () => {
    const a = plan(wasm, H200);
    const { couplingFraction, ...exact } = DEFAULTS; // 0.15 is not an f32: read, it moves by 1e-8
    const b = plan(wasm, { ...H200, costModel: { ...exact, error: 0 } });
    expect(b.candidates.map((c: any) => c.cost.total)).toEqual(a.candidates.map((c: any) => c.cost.total));
    expect(b.mapping).toEqual(a.mapping);
    const c = plan(wasm, { ...H200, costModel: { couplingFraction } });
    c.candidates.forEach((x: any, i: number) => expect(Math.abs(x.cost.total / a.candidates[i].cost.total - 1)).toBeLessThan(1e-6));
  });

  it("rejects unknown coefficients and negative or non-numeric values (TPL005)", () => {
    for (const costModel of [{ setupNS: 1 }, { setupNs: -1 }, { memoryFactor: 0 }, { error: "small" }, 5]) {
      const r = plan(wasm, { ...H200, costModel });
      expect(r.ok).toBe(false);
      expect(r.diagnostics.map((d: any) => d.code)).toContain("TPL005");
    }
  });
});

describe("the fewer-programs tie-break at the calibrated error", () => {
  // at R=2048 C=32 the model with the H200 record prefers a packed candidate (P = 2)
  const sizes = { R: 2048, C: 32 };
  it("takes the candidate with fewer programs per group when the advantage is within the error, with a note", () => {
    const plain = plan(wasm, H200, sizes);
    expect(plain.mapping.P).toBeGreaterThan(1);
    const best = plain.cost.total;
    const fewer = plain.candidates.filter((c: any) => c.admissible && c.mapping.P < plain.mapping.P);
    const margin = Math.min(...fewer.map((c: any) => c.cost.total)) / best - 1;
    expect(margin).toBeGreaterThan(0);
    const wide = plan(wasm, { ...H200, costModel: { error: Math.fround(margin * 1.5 + 0.01) } }, sizes);
    expect(wide.mapping.P).toBeLessThan(plain.mapping.P);
    expect(wide.cost.total).toBeLessThanOrEqual(best * (1 + margin * 1.5 + 0.011));
    expect(wide.notes.join(" ")).toMatch(/within the calibrated model's error .* fewer programs per group/);
    // the smallest P within the band is taken
    const band = plain.candidates.filter((c: any) => c.admissible && c.cost.total <= best * (1 + Math.fround(margin * 1.5 + 0.01)));
    expect(wide.mapping.P).toBe(Math.min(...band.map((c: any) => c.mapping.P)));
    // both engines
    const req = JSON.stringify({ command: "plan", document: softmax, options: { sizes, device: { ...H200, costModel: { error: 0.5 } } } });
    expect(js.callText(req)).toBe(wasm.callText(req));
  });

  it("does nothing when the error is below the margin, or when the widths were asked for", () => {
    const plain = plan(wasm, H200, sizes);
    const narrow = plan(wasm, { ...H200, costModel: { error: 0.0000001 } }, sizes);
    expect(narrow.mapping).toEqual(plain.mapping);
    expect(narrow.notes.join(" ")).not.toMatch(/calibrated model's error/);
    const asked = plan(wasm, { ...H200, costModel: { error: 0.9 } }, sizes, { programsPerGroup: plain.mapping.P });
    expect(asked.mapping.P).toBe(plain.mapping.P);
  });
});

describe("nnls", () => {
  it("solves an unconstrained problem exactly and clamps a negative solution at 0", () => {
    const A = [[1, 0], [0, 1], [1, 1]];
    const x = nnls(A, [1, 2, 3]);
    expect(x[0]).toBeCloseTo(1, 9);
    expect(x[1]).toBeCloseTo(2, 9);
    // the least-squares solution has x0 < 0: NNLS gives x0 = 0 and fits x1 alone
    const y = nnls([[1, 1], [1, 2], [1, 3]], [3, 2, 1]);
    expect(y[0]).toBeGreaterThan(0);
    expect(y[1]).toBe(0);
  });
});

describe("tile calibrate on sweeps made of the model itself", () => {
  const truth = { setupNs: 2500, barrierNs: 25, simdNs: 5, loadIssueCycles: 1.5, loopOverheadCycles: 6, couplingFraction: 0.05, underfillWeight: 0.5, memoryFactor: 2.5 };
  const dirs: string[] = [];
  beforeAll(async () => {
    // three real sweeps (host runtime, a few candidates each); their times then replaced by the
    // core's totals under `truth`, in µs
    for (const [r, c] of [[6, 512], [4, 768], [9, 1024]]) {
      const dir = path.join(tmp, `softmax-${r}x${c}`);
      const x = await tile("sweep", "softmax", "--size", `R=${r}`, "--size", `C=${c}`, "--runtime", "host", "--device", "nvidia-h200",
        "--max-candidates", "12", "--rounds", "2", "--samples", "1", "--batch-window-ms", "1", "-o", dir);
      expect(x.status).toBe(0);
      const sweep = JSON.parse(fs.readFileSync(path.join(dir, "sweep.json"), "utf8"));
      const p = plan(wasm, { ...H200, costModel: truth }, { R: r, C: c });
      // the fit must leave programs-on-lanes candidates out: where the spread over the ranking
      // timed none, one of them is marked timed here (its time, like every other, the model's)
      if (!sweep.candidates.some((k: any) => k.selected && k.mapping.layout === "programs-on-lanes")) {
        const lanes = sweep.candidates.find((k: any) => k.mapping.layout === "programs-on-lanes");
        const timed = sweep.candidates.find((k: any) => k.selected);
        lanes.selected = true;
        lanes.timing = JSON.parse(JSON.stringify(timed.timing));
      }
      for (const cand of sweep.candidates.filter((k: any) => k.selected)) {
        const t = p.candidates.find((k: any) => candidateKey(k.mapping) === cand.key).cost.total;
        cand.timing.medianUs = t / 1000;
      }
      fs.writeFileSync(path.join(dir, "sweep.json"), JSON.stringify(sweep));
      dirs.push(dir);
    }
  });

  it("splits the core's cost into features that give back the core's totals at any coefficients", () => {
    const s = readShape(wasm, dirs[0], H200);
    // the 12 timed candidates less the programs-on-lanes ones (the fit takes workers on lanes only)
    const sweep = JSON.parse(fs.readFileSync(path.join(dirs[0], "sweep.json"), "utf8"));
    const timed = sweep.candidates.filter((k: any) => k.selected);
    const lanes = timed.filter((k: any) => k.mapping.layout === "programs-on-lanes");
    expect(timed.length).toBeGreaterThanOrEqual(12);
    expect(lanes.length).toBeGreaterThan(0);
    expect(s.candidates.length).toBe(timed.length - lanes.length);
    expect(s.candidates.map((f) => f.key)).not.toContain(lanes[0].key);
    for (const f of s.candidates) expect(predict(f, { ...DEFAULTS, ...truth })).toBeCloseTo(f.measuredNs, 0);
  });

  it("fits the predictions exactly: every left-out shape's pick is its best, rank correlation 1", () => {
    const shapes = dirs.map((d) => readShape(wasm, d, H200));
    const r = calibrate(shapes, { ...DEFAULTS });
    for (const x of r.leaveOneOut) {
      expect(x.regret).toBe(1);
      expect(x.spearman!).toBeGreaterThan(0.99);
    }
    for (const s of shapes) for (const f of s.candidates) expect(Math.abs(predict(f, r.coefficients) / f.measuredNs - 1)).toBeLessThan(1e-4);
    expect(r.error).toBeLessThan(1e-4);
    expect(r.summary.met).toEqual({ medianRegret: true, worstRegret: true, spearman: true });
  });

  /** The shapes with every time replaced by the model's under `c` (per shape: cs[i], else c). */
  const synthetic = (shapes: Shape[], c: object, cs: Record<number, object> = {}): Shape[] =>
    shapes.map((s, i) => ({ ...s, candidates: s.candidates.map((f) => ({ ...f, measuredNs: predict(f, { ...DEFAULTS, ...(cs[i] ?? c) } as any) })) }));

  it("leaves every sweep of one size out together (a repeat never informs its twin's fit)", () => {
    const shapes = dirs.map((d) => readShape(wasm, d, H200));
    expect(shapes.map((s) => s.group)).toEqual(["R=6 C=512", "R=4 C=768", "R=9 C=1024"]);
    // a repeat of the first size, its times off by a factor per candidate
    const twin: Shape = { ...shapes[0], id: shapes[0].id + " (repeat)", candidates: shapes[0].candidates.map((f, i) => ({ ...f, measuredNs: f.measuredNs * (1 + 0.3 * Math.sin(i)) })) };
    const all = [...shapes, twin];
    for (const lambda of [0, 0.01]) {
      const loo = leaveShapesOut(all, { ...DEFAULTS }, lambda);
      expect(loo[0].trainedOn).toBe(2);
      expect(loo[3].trainedOn).toBe(2);
      expect(loo[0].coefficients).toEqual(loo[3].coefficients);
      // the fit that judged the first size is the fit of the other two sizes alone
      const other = fitRegularised([shapes[1], shapes[2]], { ...DEFAULTS }, lambda);
      for (const [k, v] of Object.entries(other)) expect((loo[0].coefficients as any)[k], k).toBeCloseTo(Math.fround(v), 4);
      expect(loo[1].trainedOn).toBe(3);
    }
  });

  it("the ridge pulls toward the prior: λ = ∞ is the prior, a large λ stays near it, a small λ fits the data", () => {
    const shapes = synthetic(dirs.map((d) => readShape(wasm, d, H200)), truth);
    const prior = { ...DEFAULTS };
    expect(fitRegularised(shapes, prior, Infinity)).toEqual(prior);
    const near = fitRegularised(shapes, prior, 1e4);
    const far = fitRegularised(shapes, prior, 1e-7);
    const dist = (c: any): number => ["memoryFactor", "underfillWeight", "setupNs", "loadIssueCycles", "loopOverheadCycles", "couplingFraction", "barrierNs"]
      .reduce((a, k) => a + Math.log(c[k] / (prior as any)[k]) ** 2, 0);
    expect(dist(near)).toBeLessThan(1e-3);
    expect(dist(far)).toBeGreaterThan(dist(near));
    // the fit minimises its objective: better than the prior and than the truth at that λ
    for (const l of [1e-4, 0.1]) {
      const c = fitRegularised(shapes, prior, l);
      expect(ridgeObjective(shapes, c, prior, l)).toBeLessThan(ridgeObjective(shapes, prior, prior, l));
      expect(ridgeObjective(shapes, c, prior, l)).toBeLessThanOrEqual(ridgeObjective(shapes, { ...DEFAULTS, ...truth } as any, prior, l) + 1e-12);
    }
    // nearly unregularised, the fit reproduces the times
    for (const s of shapes) for (const f of s.candidates) expect(Math.abs(predict(f, far) / f.measuredNs - 1)).toBeLessThan(0.02);
  });

  it("chooses λ by leaving sizes out, never worse than the prior by that measure", () => {
    // the prior is exact on two sizes and the third follows other coefficients: fitting it can mislead
    const shapes = synthetic(dirs.map((d) => readShape(wasm, d, H200)), DEFAULTS, { 2: truth });
    const chosen = chooseLambda(shapes, { ...DEFAULTS });
    const prior = chosen.scores[chosen.scores.length - 1];
    expect(prior.lambda).toBeNull(); // ∞
    const r = calibrate(shapes, { ...DEFAULTS });
    const best = r.lambdas.find((x) => x.lambda === r.lambda)!;
    expect(best.meanRegret).toBeLessThanOrEqual(prior.meanRegret);
    if (best.meanRegret === prior.meanRegret) expect(best.error).toBeLessThanOrEqual(prior.error);
    // the ∞ row is the base record's own figures
    expect(prior.medianRegret).toBe(r.summary.baselineMedianRegret);
    expect(prior.worstRegret).toBe(r.summary.baselineWorstRegret);
    // three sizes: a nested estimate (λ chosen without the left-out size) is reported
    expect(r.nested).not.toBeNull();
    expect(r.nested!.every((x) => x.trainedOn === 2)).toBe(true);
  });

  it("writes a device record that --device reads, with the report beside it", () => {
    const out = path.join(tmp, "calibrated.json");
    const x = spawnSync(process.execPath, [BIN, "calibrate", ...dirs, "-o", out, "--device", "nvidia-h200", "--allow-host-times"], { cwd: ROOT, encoding: "utf8" });
    expect(x.status).toBe(0);
    const rec = JSON.parse(fs.readFileSync(out, "utf8"));
    expect(rec.gpuCores).toBe(H200.gpuCores);
    expect(rec.costModel.source).toMatch(/tile calibrate/);
    expect(rec.costModel.source).toContain("host-runtime CPU times, not GPU times");
    expect(fs.readFileSync(path.join(tmp, "calibrated.calibration.md"), "utf8")).toMatch(/size left out/);
    const p = spawnSync(process.execPath, [BIN, "plan", "cases/softmax.json", "--size", "R=6", "--size", "C=512", "--device", out, "--json"], { cwd: ROOT, encoding: "utf8" });
    expect(p.status).toBe(0);
    const again = spawnSync(process.execPath, [BIN, "device", "--device", out, "--json"], { cwd: ROOT, encoding: "utf8" });
    expect(JSON.parse(again.stdout).device.costModel.memoryFactor).toBeCloseTo(rec.costModel.memoryFactor, 5);
  });

  it("reads sweeps stored gzip-compressed (sweep.json.gz, as committed evidence holds them) like the plain files", async () => {
    const gz = dirs.map((d) => {
      const g = path.join(tmp, "gz", path.basename(d));
      fs.mkdirSync(g, { recursive: true });
      fs.writeFileSync(path.join(g, "sweep.json.gz"), zlib.gzipSync(fs.readFileSync(path.join(d, "sweep.json"))));
      return g;
    });
    expect(fs.existsSync(path.join(gz[0], "sweep.json"))).toBe(false);
    const a = readShape(wasm, dirs[0], H200);
    const b = readShape(wasm, gz[0], H200);
    expect(b.candidates).toEqual(a.candidates);
    // the gz file named directly, and `tile calibrate` on the folders: the same record as the plain sweeps
    expect(readShape(wasm, path.join(gz[1], "sweep.json.gz"), H200).candidates).toEqual(readShape(wasm, dirs[1], H200).candidates);
    const run = async (ds: string[], out: string) => {
      const x = await tile("calibrate", ...ds, "-o", out, "--allow-host-times");
      expect(x.status, x.stderr).toBe(0);
      const rec = JSON.parse(fs.readFileSync(out, "utf8"));
      delete rec.costModel.source;
      return rec;
    };
    expect(await run(gz, path.join(tmp, "from-gz.json"))).toEqual(await run(dirs, path.join(tmp, "from-plain.json")));
    // a folder with neither file is still a usage error naming the file it looked for
    const empty = path.join(tmp, "gz", "empty");
    fs.mkdirSync(empty, { recursive: true });
    const bad = await tile("calibrate", empty, gz[1], "-o", path.join(tmp, "y.json"), "--allow-host-times");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain(path.join(empty, "sweep.json"));
  });

  it("a sweep whose only timed candidates put programs on lanes is refused by name (exit 2), not an internal error", async () => {
    const d = path.join(tmp, "lanes-only");
    fs.mkdirSync(d, { recursive: true });
    const sweep = JSON.parse(fs.readFileSync(path.join(dirs[0], "sweep.json"), "utf8"));
    for (const c of sweep.candidates) if (c.mapping.layout !== "programs-on-lanes") c.selected = false;
    expect(sweep.candidates.filter((c: any) => c.selected).length).toBeGreaterThan(0);
    fs.writeFileSync(path.join(d, "sweep.json"), JSON.stringify(sweep));
    const r = await tile("calibrate", d, dirs[1], "-o", path.join(tmp, "l.json"), "--allow-host-times");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(path.join(d, "sweep.json"));
    expect(r.stderr).toContain("programs-on-lanes candidate");
    expect(r.stderr).not.toContain("internal error");
    expect(fs.existsSync(path.join(tmp, "l.json"))).toBe(false);
  });

  it("needs sweeps of two sizes and -o (exit 2)", async () => {
    const one = await tile("calibrate", dirs[0], "-o", path.join(tmp, "x.json"), "--allow-host-times");
    expect(one.status).toBe(2);
    expect(one.stderr).toMatch(/at least two sizes/);
    // two sweeps of one size are one size: nothing can be left out
    const same = await tile("calibrate", dirs[0], dirs[0], "-o", path.join(tmp, "x.json"), "--allow-host-times");
    // host-runtime sweeps (CPU wall clock) are refused without the flag, and named; with it the
    // record's source says what the times were (red team s15)
    const host = await tile("calibrate", dirs[0], dirs[1], "-o", path.join(tmp, "h.json"));
    expect(host.status).toBe(2);
    expect(host.stderr).toContain("host times");
    expect(host.stderr).toContain("--allow-host-times");
    expect(fs.existsSync(path.join(tmp, "h.json"))).toBe(false);
    expect(same.status).toBe(2);
    expect(same.stderr).toMatch(/at least two sizes/);
    expect((await tile("calibrate", dirs[0], dirs[1])).status).toBe(2);
  });
});
