// `tile calibrate SWEEP_DIR... -o device.json [--device base.json]`: fits the cost model's own
// coefficients (core/cost/model.ts; "costModel" of a device description) to the times of
// `tile sweep`, and reports the fit by leaving one shape (one sweep) out at a time.
//
// Method. For every swept candidate the core's cost terms are split into features, using the
// core itself (no second copy of the model): the candidate is scored at the built-in coefficient
// values, once more with loadIssueCycles + 1 and once more with loopOverheadCycles + 1. The model
// is linear in each coefficient except two products (underfillWeight x memoryFactor, and
// couplingFraction x the stage time, which holds loadIssueCycles and loopOverheadCycles), so
//   T(θ) = A + memoryFactor·Fmem + (underfillWeight·memoryFactor)·Fconc + σ·Fsync + setupNs·Fsetup
//          + loadIssueCycles·Fli + loopOverheadCycles·Flo + couplingFraction·(C0 + loadIssueCycles·Cli + loopOverheadCycles·Clo)
// where A is what no coefficient scales (arithmetic, the per-element latency) and σ scales
// barrierNs and simdNs together (they multiply the same count, so only their sum is
// identifiable; their ratio is kept). The fit minimises the sum of squared relative errors
// ((T - measured) / measured)² over every timed candidate of every sweep, with every coefficient
// >= 0: non-negative least squares (Lawson-Hanson) on the linear block with couplingFraction
// fixed, then couplingFraction alone, alternated until nothing moves. uncoalescedFactor and
// threadSetupCycles are not exercised by cooperative sweeps and keep their values.
//
// The model's error (written as costModel.error) is, over the left-out shapes, the median of the
// median |T/measured ÷ the shape's median T/measured − 1|: how far the calibrated model misjudges
// candidates of one shape relative to each other (a shape-wide offset does not change a pick).
import fs from "node:fs";
import path from "node:path";
import { Engine } from "../engine";
import { UsageError } from "../io";
import { candidateKey } from "./sweep";
import { median } from "./stats";
import { spearman } from "./timing";

export const CALIBRATION_FORMAT = "tile-calibration/1";

/** The coefficients the fit moves, and their built-in values (core/device/device.ts). */
export const DEFAULTS = {
  setupNs: 1500, barrierNs: 40, simdNs: 8, loadIssueCycles: 4, loopOverheadCycles: 3, couplingFraction: 0.15,
  underfillWeight: 1, uncoalescedFactor: 8, threadSetupCycles: 8, memoryFactor: 1,
};
export type Coefficients = typeof DEFAULTS;

export interface Features {
  key: string;
  P: number;
  measuredNs: number;
  A: number; mem: number; conc: number; sync: number; setup: number; li: number; lo: number; c0: number; cli: number; clo: number;
}

export interface Shape {
  id: string;
  dir: string;
  candidates: Features[];
}

/** T(θ) for one candidate (ns). */
export function predict(f: Features, c: Coefficients): number {
  const sigma = (2 * c.simdNs + c.barrierNs) / (2 * DEFAULTS.simdNs + DEFAULTS.barrierNs);
  return f.A + c.memoryFactor * f.mem + c.underfillWeight * c.memoryFactor * f.conc + sigma * f.sync + c.setupNs * f.setup
    + c.loadIssueCycles * f.li + c.loopOverheadCycles * f.lo + c.couplingFraction * (f.c0 + c.loadIssueCycles * f.cli + c.loopOverheadCycles * f.clo);
}

// ------------------------------------------------------------------------------------ features

function withCost(device: any, cost: Partial<Coefficients>): any {
  const { costModel, ...rest } = device ?? {};
  return { ...rest, costModel: { ...DEFAULTS, ...cost, error: 0 } };
}

function scored(engine: Engine, text: string, sizes: Record<string, number>, device: any): Map<string, any> {
  const r = engine.call({ command: "plan", document: text, options: { sizes, candidates: true, device } });
  if (!r.ok) throw new UsageError(`the sweep's document no longer plans: ${(r.diagnostics ?? []).map((d: any) => d.code).join(", ")}`);
  const out = new Map<string, any>();
  for (const c of r.candidates ?? []) if (!out.has(candidateKey(c.mapping))) out.set(candidateKey(c.mapping), c);
  return out;
}

/** Reads one sweep folder (or sweep.json) and splits its timed candidates' costs into features. */
export function readShape(engine: Engine, dir: string, baseDevice: any): Shape {
  const file = fs.existsSync(dir) && fs.statSync(dir).isDirectory() ? path.join(dir, "sweep.json") : dir;
  let s: any;
  try {
    s = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    throw new UsageError(`cannot read a sweep at ${file}`);
  }
  if (s?.format !== "tile-sweep/1") throw new UsageError(`${file} is not a tile-sweep/1 file`);
  if (!s.timesAreGpu) process.stderr.write(`tile calibrate: warning: ${file} holds host times (the CPU runtime), not GPU times\n`);
  const d0 = withCost(baseDevice, {});
  const base = scored(engine, s.document, s.sizes, d0);
  const li = scored(engine, s.document, s.sizes, withCost(baseDevice, { loadIssueCycles: DEFAULTS.loadIssueCycles + 1 }));
  const lo = scored(engine, s.document, s.sizes, withCost(baseDevice, { loopOverheadCycles: DEFAULTS.loopOverheadCycles + 1 }));
  const D = DEFAULTS;
  const candidates: Features[] = [];
  for (const c of s.candidates ?? []) {
    if (!c.selected || !c.timing?.timed || !(c.timing.medianUs > 0)) continue;
    const b = base.get(c.key);
    const x = li.get(c.key);
    const y = lo.get(c.key);
    if (!b || !x || !y) throw new UsageError(`${file}: candidate ${c.key} is no longer scored by the planner`);
    const t = b.cost.terms;
    const fli = x.cost.terms.latency - t.latency;
    const flo = y.cost.terms.latency - t.latency;
    const cli = (x.cost.terms.fenceCoupling - t.fenceCoupling) / D.couplingFraction;
    const clo = (y.cost.terms.fenceCoupling - t.fenceCoupling) / D.couplingFraction;
    const f: Features = {
      key: c.key, P: c.mapping.P ?? 1, measuredNs: c.timing.medianUs * 1000,
      A: t.arithmetic + t.latency - D.loadIssueCycles * fli - D.loopOverheadCycles * flo,
      mem: t.memory / D.memoryFactor,
      conc: t.concurrency / (D.underfillWeight * D.memoryFactor),
      sync: t.collectivesAndBarriers,
      setup: t.setup / D.setupNs,
      li: fli, lo: flo,
      c0: t.fenceCoupling / D.couplingFraction - D.loadIssueCycles * cli - D.loopOverheadCycles * clo,
      cli, clo,
    };
    // the split must give back the core's own total at the built-in values (terms are printed to 0.001 ns)
    const back = predict(f, D);
    if (Math.abs(back - b.cost.total) > 0.01 + 1e-6 * b.cost.total) throw new Error(`feature split of ${c.key} gives ${back}, the core ${b.cost.total}`);
    candidates.push(f);
  }
  const sizes = Object.entries(s.sizes).map(([k, v]) => `${k}=${v}`).join(" ");
  return { id: `${s.case} ${sizes}`, dir, candidates };
}

// ------------------------------------------------------------------------------------ the fit

/** Least squares min |Ax - b| with x >= 0 (Lawson and Hanson's active-set method). */
export function nnls(A: number[][], b: number[]): number[] {
  const m = A.length;
  const n = m ? A[0].length : 0;
  // columns scaled to unit norm (features differ by orders of magnitude)
  const scale = Array.from({ length: n }, (_, j) => Math.sqrt(A.reduce((s, r) => s + r[j] * r[j], 0)) || 1);
  const M = A.map((r) => r.map((v, j) => v / scale[j]));
  const x = new Array<number>(n).fill(0);
  const passive = new Array<boolean>(n).fill(false);
  const grad = (): number[] => {
    const r = b.map((bi, i) => bi - M[i].reduce((s, v, j) => s + v * x[j], 0));
    return Array.from({ length: n }, (_, j) => M.reduce((s, row, i) => s + row[j] * r[i], 0));
  };
  const solvePassive = (): number[] => {
    const idx = passive.map((p, j) => (p ? j : -1)).filter((j) => j >= 0);
    const z = new Array<number>(n).fill(0);
    const k = idx.length;
    const N = Array.from({ length: k }, (_, a) => Array.from({ length: k + 1 }, (_, c) =>
      c < k ? M.reduce((s, row) => s + row[idx[a]] * row[idx[c]], 0) : M.reduce((s, row, i) => s + row[idx[a]] * b[i], 0)));
    for (let c = 0; c < k; c++) {
      let p = c;
      for (let r = c + 1; r < k; r++) if (Math.abs(N[r][c]) > Math.abs(N[p][c])) p = r;
      [N[c], N[p]] = [N[p], N[c]];
      if (Math.abs(N[c][c]) < 1e-300) continue;
      for (let r = 0; r < k; r++) {
        if (r === c) continue;
        const f = N[r][c] / N[c][c];
        for (let q = c; q <= k; q++) N[r][q] -= f * N[c][q];
      }
    }
    for (let a = 0; a < k; a++) z[idx[a]] = Math.abs(N[a][a]) < 1e-300 ? 0 : N[a][k] / N[a][a];
    return z;
  };
  for (let outer = 0; outer < 3 * n + 10; outer++) {
    const w = grad();
    let t = -1;
    for (let j = 0; j < n; j++) if (!passive[j] && w[j] > 1e-12 && (t < 0 || w[j] > w[t])) t = j;
    if (t < 0) break;
    passive[t] = true;
    for (let inner = 0; inner < 3 * n + 10; inner++) {
      const z = solvePassive();
      if (passive.every((p, j) => !p || z[j] > 0)) {
        for (let j = 0; j < n; j++) x[j] = passive[j] ? z[j] : 0;
        break;
      }
      let alpha = 1;
      for (let j = 0; j < n; j++) if (passive[j] && z[j] <= 0) alpha = Math.min(alpha, x[j] / (x[j] - z[j]));
      for (let j = 0; j < n; j++) {
        x[j] += alpha * (z[j] - x[j]);
        if (passive[j] && Math.abs(x[j]) < 1e-15) {
          passive[j] = false;
          x[j] = 0;
        }
      }
    }
  }
  return x.map((v, j) => v / scale[j]);
}

export function fit(shapes: Shape[], start: Coefficients): Coefficients {
  const rows = shapes.flatMap((s) => s.candidates);
  if (rows.length === 0) throw new UsageError("no timed candidate to fit");
  let c: Coefficients = { ...start };
  const sync0 = 2 * DEFAULTS.simdNs + DEFAULTS.barrierNs;
  for (let it = 0; it < 60; it++) {
    const before = JSON.stringify(c);
    // 1. the linear block, couplingFraction fixed: x = [memoryFactor, underfill·memory, σ, setupNs, loadIssue, loopOverhead]
    const A = rows.map((f) => [f.mem, f.conc, f.sync, f.setup, f.li + c.couplingFraction * f.cli, f.lo + c.couplingFraction * f.clo].map((v) => v / f.measuredNs));
    const b = rows.map((f) => 1 - (f.A + c.couplingFraction * f.c0) / f.measuredNs);
    const x = nnls(A, b);
    const memoryFactor = Math.max(x[0], 1e-6);
    c = { ...c, memoryFactor, underfillWeight: x[1] / memoryFactor, simdNs: DEFAULTS.simdNs * x[2], barrierNs: DEFAULTS.barrierNs * x[2], setupNs: x[3], loadIssueCycles: x[4], loopOverheadCycles: x[5] };
    void sync0;
    // 2. couplingFraction alone (one non-negative unknown: the clamped least-squares solution)
    let num = 0, den = 0;
    for (const f of rows) {
      const g = (f.c0 + c.loadIssueCycles * f.cli + c.loopOverheadCycles * f.clo) / f.measuredNs;
      const r = 1 - (predict(f, { ...c, couplingFraction: 0 })) / f.measuredNs;
      num += g * r;
      den += g * g;
    }
    c = { ...c, couplingFraction: den > 0 ? Math.max(0, num / den) : c.couplingFraction };
    if (JSON.stringify(c) === before) break;
  }
  return c;
}

/** Rounds every coefficient to f32, as the core reads the written record. */
export function asRead(c: Coefficients): Coefficients {
  const out: any = {};
  for (const [k, v] of Object.entries(c)) out[k] = Math.fround(v);
  return out;
}

/** Relative error between candidates of one shape: the median |q / median(q) - 1|, q = T/measured. */
export function shapeError(s: Shape, c: Coefficients): number {
  const q = s.candidates.map((f) => predict(f, c) / f.measuredNs);
  const m = median(q);
  return median(q.map((x) => Math.abs(x / m - 1)));
}

export interface ShapeCheck {
  shape: string;
  timed: number;
  pick: string;
  pickP: number;
  best: string;
  regret: number;
  spearman: number | null;
  /** With the tie-break toward fewer programs per group at the model's error. */
  pickTieBreak: string;
  regretTieBreak: number;
}

/** The pick among the timed candidates of a shape under coefficients c (and with the tie-break). */
export function checkShape(s: Shape, c: Coefficients, error: number): ShapeCheck {
  const pred = s.candidates.map((f) => predict(f, c));
  let pi = 0;
  for (let i = 1; i < pred.length; i++) if (pred[i] < pred[pi] || (pred[i] === pred[pi] && s.candidates[i].P < s.candidates[pi].P)) pi = i;
  let ti = pi;
  if (error > 0) {
    for (let i = 0; i < pred.length; i++) {
      if (s.candidates[i].P >= s.candidates[pi].P || pred[i] > pred[pi] * (1 + error)) continue;
      if (ti === pi || s.candidates[i].P < s.candidates[ti].P || (s.candidates[i].P === s.candidates[ti].P && pred[i] < pred[ti])) ti = i;
    }
  }
  let bi = 0;
  for (let i = 1; i < pred.length; i++) if (s.candidates[i].measuredNs < s.candidates[bi].measuredNs) bi = i;
  const best = s.candidates[bi].measuredNs;
  return {
    shape: s.id, timed: s.candidates.length, pick: s.candidates[pi].key, pickP: s.candidates[pi].P, best: s.candidates[bi].key,
    regret: s.candidates[pi].measuredNs / best, spearman: spearman(pred, s.candidates.map((f) => f.measuredNs)),
    pickTieBreak: s.candidates[ti].key, regretTieBreak: s.candidates[ti].measuredNs / best,
  };
}

export interface CalibrationResult {
  coefficients: Coefficients;
  error: number;
  baseline: ShapeCheck[];
  inSample: ShapeCheck[];
  leaveOneOut: (ShapeCheck & { errorOfFit: number; coefficients: Coefficients })[];
  summary: { shapes: number; candidates: number; looMedianRegret: number; looWorstRegret: number; looMedianSpearman: number | null; looMinSpearman: number | null;
    looMedianRegretTieBreak: number; looWorstRegretTieBreak: number; baselineMedianRegret: number; baselineWorstRegret: number; baselineMedianSpearman: number | null;
    targets: { medianRegret: number; worstRegret: number; spearman: number }; met: { medianRegret: boolean; worstRegret: boolean; spearman: boolean } };
}

export function calibrate(shapes: Shape[], base: Coefficients): CalibrationResult {
  if (shapes.length < 2) throw new UsageError("calibrate needs at least two sweeps (one is left out at a time)");
  const baseline = shapes.map((s) => checkShape(s, base, 0));
  const loo = shapes.map((s, i) => {
    const train = shapes.filter((_, j) => j !== i);
    const c = asRead(fit(train, base));
    const err = median(train.map((t) => shapeError(t, c)));
    const held = shapeError(s, c);
    return { ...checkShape(s, c, err), errorOfFit: held, coefficients: c };
  });
  const coefficients = asRead(fit(shapes, base));
  const error = Math.fround(median(loo.map((x) => x.errorOfFit)));
  const inSample = shapes.map((s) => checkShape(s, coefficients, error));
  const rho = loo.map((x) => x.spearman).filter((x): x is number => x !== null);
  const brho = baseline.map((x) => x.spearman).filter((x): x is number => x !== null);
  const regrets = loo.map((x) => x.regret);
  const summary = {
    shapes: shapes.length, candidates: shapes.reduce((a, s) => a + s.candidates.length, 0),
    looMedianRegret: median(regrets), looWorstRegret: Math.max(...regrets),
    looMedianSpearman: rho.length ? median(rho) : null, looMinSpearman: rho.length ? Math.min(...rho) : null,
    looMedianRegretTieBreak: median(loo.map((x) => x.regretTieBreak)), looWorstRegretTieBreak: Math.max(...loo.map((x) => x.regretTieBreak)),
    baselineMedianRegret: median(baseline.map((x) => x.regret)), baselineWorstRegret: Math.max(...baseline.map((x) => x.regret)),
    baselineMedianSpearman: brho.length ? median(brho) : null,
    targets: { medianRegret: 1.1, worstRegret: 1.25, spearman: 0.8 },
    met: { medianRegret: median(regrets) <= 1.1, worstRegret: Math.max(...regrets) <= 1.25, spearman: rho.length === loo.length && rho.every((r) => r >= 0.8) },
  };
  return { coefficients, error, baseline, inSample, leaveOneOut: loo, summary };
}

export function renderCalibration(r: CalibrationResult, input: { command: string; sweeps: string[]; out: string; base: string; verify: string[] }): string {
  const f = (x: number | null, d = 3): string => (x === null ? "n/a" : x.toFixed(d));
  const s = r.summary;
  const out = [`# Calibration of the cost model`, ""];
  out.push(`- command: \`${input.command}\``);
  out.push(`- sweeps (${s.shapes} shapes, ${s.candidates} timed candidates): ${input.sweeps.map((x) => `\`${x}\``).join(", ")}`);
  out.push(`- base device record: ${input.base}; written: \`${input.out}\``);
  out.push("- method: non-negative least squares on the model's own terms, minimising squared relative errors (see `shell-node/src/bench/calibrate.ts`); every figure below about a left-out shape comes from a fit that did not see it; picks are among that shape's timed candidates.");
  out.push("");
  out.push("| | median regret | worst regret | median Spearman | lowest Spearman |", "| --- | --- | --- | --- | --- |");
  out.push(`| uncalibrated (base record) | ${f(s.baselineMedianRegret)} | ${f(s.baselineWorstRegret)} | ${f(s.baselineMedianSpearman)} | ${f(Math.min(...r.baseline.map((x) => x.spearman ?? Infinity)))} |`);
  out.push(`| calibrated, shape left out | ${f(s.looMedianRegret)} | ${f(s.looWorstRegret)} | ${f(s.looMedianSpearman)} | ${f(s.looMinSpearman)} |`);
  out.push(`| calibrated, left out, with the fewer-programs tie-break | ${f(s.looMedianRegretTieBreak)} | ${f(s.looWorstRegretTieBreak)} | | |`);
  out.push(`| target | <= ${s.targets.medianRegret} ${s.met.medianRegret ? "(met)" : "(**not met**)"} | <= ${s.targets.worstRegret} ${s.met.worstRegret ? "(met)" : "(**not met**)"} | >= ${s.targets.spearman} per shape ${s.met.spearman ? "(met)" : "(**not met**)"} | |`);
  out.push("");
  out.push("Per left-out shape:", "");
  out.push("| shape | timed | pick (calibrated) | measured best | regret | Spearman | error between candidates | pick with tie-break | its regret | uncalibrated pick | its regret | its Spearman |");
  out.push("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  r.leaveOneOut.forEach((x, i) => {
    const b = r.baseline[i];
    out.push(`| ${x.shape} | ${x.timed} | ${x.pick} | ${x.best} | ${f(x.regret)} | ${f(x.spearman)} | ${f(x.errorOfFit)} | ${x.pickTieBreak} | ${f(x.regretTieBreak)} | ${b.pick} | ${f(b.regret)} | ${f(b.spearman)} |`);
  });
  out.push("");
  out.push(`Coefficients fitted on all ${s.shapes} shapes (written to the record, f32 precision), and the model's error between candidates (median over left-out shapes): **${f(r.error)}**`, "");
  out.push("| coefficient | built-in | fitted |", "| --- | --- | --- |");
  for (const [k, v] of Object.entries(r.coefficients)) out.push(`| ${k} | ${(DEFAULTS as any)[k]} | ${Number(v.toPrecision(6))} |`);
  out.push("");
  if (input.verify.length) {
    out.push("The planner with the written record (`tile plan --device` on each sweep's case and shape: the product's pick among all candidates):", "");
    for (const v of input.verify) out.push(`- ${v}`);
    out.push("");
  }
  return out.join("\n");
}
