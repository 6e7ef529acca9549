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
// fixed, then couplingFraction alone, alternated until nothing moves. uncoalescedFactor,
// threadSetupCycles, vectorChainFraction, partialLineFraction and storeChainNs are not exercised by the
// workers-on-lanes sweeps it fits and keep their values.
//
// Regularisation. The fit above (λ = 0) chases every candidate of the sweeps it sees and can
// generalise worse than the record it started from. So the fit is also made as a ridge on the
// log-coefficients toward the base record's (the prior θ0):
//   minimise  mean_i ((T_i(θ) - m_i) / m_i)²  +  λ · Σ_k (ln θ_k - ln θ0_k)²
// over the seven free coefficients (memoryFactor, underfillWeight, the barrier/SIMD scale,
// setupNs, loadIssueCycles, loopOverheadCycles, couplingFraction), solved by Levenberg-Marquardt
// in ln θ (so every coefficient stays > 0; a prior of 0 is taken as 1e-3 x the built-in value).
// λ = ∞ is the prior itself. λ is chosen from LAMBDAS by the leave-one-shape-out error itself:
// the smallest mean regret of the left-out sweeps' picks, then the smallest median error between
// candidates of a left-out sweep, then the larger λ. Because λ = ∞ (the prior) is one of the
// choices, the chosen fit is never worse than the prior by that measure on the sweeps it saw.
// Leaving a "shape" out leaves out every sweep of one size (R x C): two sweeps of one size, of
// one case repeated or of different cases, never inform each other's fit. Choosing λ on the same
// folds that report it flatters the result, so the report also gives a nested estimate: for each
// left-out size, λ is chosen by leave-one-size-out on the other sizes only (needs 3 sizes).
//
// The model's error (written as costModel.error) is, over the left-out shapes, the median of the
// median |T/measured ÷ the shape's median T/measured − 1|: how far the calibrated model misjudges
// candidates of one shape relative to each other (a shape-wide offset does not change a pick).
import fs from "node:fs";
import path from "node:path";
import { Engine } from "../engine";
import { UsageError } from "../io";
import { candidateKey } from "./sweep";
import { readSweepText, sweepFile } from "./sweep-file";
import { median } from "./stats";
import { spearman } from "./timing";

export const CALIBRATION_FORMAT = "tile-calibration/1";

/** The coefficients the fit moves, and their built-in values (core/device/device.ts). */
export const DEFAULTS = {
  setupNs: 1500, barrierNs: 40, simdNs: 8, loadIssueCycles: 4, loopOverheadCycles: 3, couplingFraction: 0.15,
  underfillWeight: 1, uncoalescedFactor: 8, threadSetupCycles: 8, memoryFactor: 1, vectorChainFraction: 0, partialLineFraction: 0.1, storeChainNs: 0,
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
  /** The sizes ("R=1024 C=4096"): sweeps of one size are left out together. */
  group: string;
  dir: string;
  candidates: Features[];
  /** The sweep's times are GPU times (false: the host runtime's CPU wall clock). */
  gpu: boolean;
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
  const file = sweepFile(dir);
  let s: any;
  try {
    s = JSON.parse(readSweepText(file));
  } catch {
    throw new UsageError(`cannot read a sweep at ${file}`);
  }
  if (s?.format !== "tile-sweep/1") throw new UsageError(`${file} is not a tile-sweep/1 file`);
  const d0 = withCost(baseDevice, {});
  const base = scored(engine, s.document, s.sizes, d0);
  const li = scored(engine, s.document, s.sizes, withCost(baseDevice, { loadIssueCycles: DEFAULTS.loadIssueCycles + 1 }));
  const lo = scored(engine, s.document, s.sizes, withCost(baseDevice, { loopOverheadCycles: DEFAULTS.loopOverheadCycles + 1 }));
  const D = DEFAULTS;
  const candidates: Features[] = [];
  for (const c of s.candidates ?? []) {
    if (!c.selected || !c.timing?.timed || !(c.timing.medianUs > 0)) continue;
    // programs on lanes: its stripe overlaps the memory term (a max, not a sum: core/cost/model.ts),
    // which these linear features cannot split; its own coefficient (partialLineFraction) is
    // measured, not fitted. The fit takes workers-on-lanes candidates only.
    if (c.mapping?.layout === "programs-on-lanes") continue;
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
  if (candidates.length === 0) {
    const lanes = (s.candidates ?? []).filter((c: any) => c.selected && c.timing?.timed && c.mapping?.layout === "programs-on-lanes").length;
    throw new UsageError(`${file}: no timed workers-on-lanes candidate to fit` + (lanes > 0
      ? ` (its ${lanes} timed programs-on-lanes candidate${lanes === 1 ? " is" : "s are"} left out: tile calibrate fits the workers-on-lanes terms only); sweep a shape whose candidates include workers on lanes, or leave this sweep out`
      : ""));
  }
  const sizes = Object.entries(s.sizes).map(([k, v]) => `${k}=${v}`).join(" ");
  return { id: `${s.case} ${sizes}`, group: sizes, dir, candidates, gpu: !!s.timesAreGpu };
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

// ------------------------------------------------------------------ the regularised fit (ridge)

/** The λ the leave-one-shape-out error chooses from: 0 (the unregularised fit) to ∞ (the prior). */
export const LAMBDAS: number[] = [0, 1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3, 1, 3, 10, Infinity];

/** The free coefficients of the ridge fit, in order (barrierNs stands for the barrier/SIMD scale:
 *  simdNs keeps its ratio to barrierNs in the prior). */
const FREE = ["memoryFactor", "underfillWeight", "barrierNs", "setupNs", "loadIssueCycles", "loopOverheadCycles", "couplingFraction"] as const;

/** ∂T/∂θ_k · θ_k (the derivative in ln θ_k) for the FREE coefficients. */
function logGradient(f: Features, c: Coefficients): number[] {
  const sigma = (2 * c.simdNs + c.barrierNs) / (2 * DEFAULTS.simdNs + DEFAULTS.barrierNs);
  return [
    c.memoryFactor * (f.mem + c.underfillWeight * f.conc),
    c.underfillWeight * c.memoryFactor * f.conc,
    sigma * f.sync,
    c.setupNs * f.setup,
    c.loadIssueCycles * (f.li + c.couplingFraction * f.cli),
    c.loopOverheadCycles * (f.lo + c.couplingFraction * f.clo),
    c.couplingFraction * (f.c0 + c.loadIssueCycles * f.cli + c.loopOverheadCycles * f.clo),
  ];
}

/** The prior in the ridge's terms: every free coefficient > 0 (a 0 becomes 1e-3 x the built-in). */
export function positivePrior(prior: Coefficients): Coefficients {
  const c: any = { ...prior };
  for (const k of FREE) if (!(c[k] > 0)) c[k] = 1e-3 * (DEFAULTS as any)[k];
  if (!(c.simdNs > 0)) c.simdNs = 1e-3 * DEFAULTS.simdNs;
  return c;
}

function fromLog(u: number[], prior: Coefficients): Coefficients {
  const c: any = { ...prior };
  FREE.forEach((k, j) => (c[k] = Math.exp(u[j])));
  c.simdNs = prior.simdNs * (c.barrierNs / prior.barrierNs);
  return c;
}

/** Solves the small dense system M x = y (Gaussian elimination with partial pivoting). */
function solve(M: number[][], y: number[]): number[] {
  const n = y.length;
  const A = M.map((r, i) => [...r, y[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(A[r][c]) > Math.abs(A[p][c])) p = r;
    [A[c], A[p]] = [A[p], A[c]];
    if (Math.abs(A[c][c]) < 1e-300) continue;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const q = A[r][c] / A[c][c];
      for (let k = c; k <= n; k++) A[r][k] -= q * A[c][k];
    }
  }
  return A.map((r, i) => (Math.abs(r[i]) < 1e-300 ? 0 : r[n] / r[i]));
}

/** The ridge objective: mean squared relative error plus λ Σ (ln θ - ln θ0)². */
export function ridgeObjective(shapes: Shape[], c: Coefficients, prior: Coefficients, lambda: number): number {
  const rows = shapes.flatMap((s) => s.candidates);
  const p0 = positivePrior(prior);
  let data = 0;
  for (const f of rows) data += ((predict(f, c) - f.measuredNs) / f.measuredNs) ** 2;
  let pen = 0;
  for (const k of FREE) pen += (Math.log((c as any)[k]) - Math.log((p0 as any)[k])) ** 2;
  return data / rows.length + lambda * pen;
}

/**
 * The fit at one λ: 0 is the unregularised non-negative least squares (`fit`), ∞ the prior, and
 * anything between the ridge on log-coefficients toward the prior (Levenberg-Marquardt).
 */
export function fitRegularised(shapes: Shape[], prior: Coefficients, lambda: number): Coefficients {
  if (lambda === Infinity) return { ...prior };
  if (lambda === 0) return fit(shapes, prior);
  const rows = shapes.flatMap((s) => s.candidates);
  if (rows.length === 0) throw new UsageError("no timed candidate to fit");
  const p0 = positivePrior(prior);
  const u0 = FREE.map((k) => Math.log((p0 as any)[k]));
  const n = FREE.length;
  const objective = (u: number[]): number => ridgeObjective(shapes, fromLog(u, p0), prior, lambda);
  let u = [...u0];
  let obj = objective(u);
  let mu = 1e-3;
  for (let it = 0; it < 200; it++) {
    const c = fromLog(u, p0);
    // normal equations of the residuals r_i / sqrt(N) and sqrt(λ) (u - u0)
    const JtJ = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    const Jtr = new Array<number>(n).fill(0);
    for (const f of rows) {
      const r = (predict(f, c) - f.measuredNs) / f.measuredNs;
      const g = logGradient(f, c).map((v) => v / f.measuredNs);
      for (let a = 0; a < n; a++) {
        Jtr[a] += (g[a] * r) / rows.length;
        for (let b = 0; b < n; b++) JtJ[a][b] += (g[a] * g[b]) / rows.length;
      }
    }
    for (let a = 0; a < n; a++) {
      JtJ[a][a] += lambda;
      Jtr[a] += lambda * (u[a] - u0[a]);
    }
    let improved = false;
    for (let tries = 0; tries < 30 && !improved; tries++) {
      const M = JtJ.map((row, a) => row.map((v, b) => (a === b ? v + mu * (JtJ[a][a] || 1) : v)));
      const step = solve(M, Jtr.map((v) => -v));
      // a step of at most e^4 per coefficient keeps exp() finite
      const next = u.map((v, a) => v + Math.max(-4, Math.min(4, step[a])));
      const o = objective(next);
      if (o < obj) {
        improved = true;
        const rel = (obj - o) / Math.max(obj, 1e-300);
        u = next;
        obj = o;
        mu = Math.max(mu / 3, 1e-12);
        if (rel < 1e-12) return fromLog(u, p0);
      } else {
        mu *= 4;
      }
    }
    if (!improved) break;
  }
  return fromLog(u, p0);
}

// ------------------------------------------------------------------ leave one shape (size) out

export interface LeftOut extends ShapeCheck {
  /** The size left out with this sweep (every sweep of that size was out of the fit). */
  group: string;
  /** Sweeps the fit saw. */
  trainedOn: number;
  errorOfFit: number;
  coefficients: Coefficients;
}

/** The groups (sizes) of the shapes, in first-seen order. */
export function groupsOf(shapes: Shape[]): string[] {
  const out: string[] = [];
  for (const s of shapes) if (!out.includes(s.group)) out.push(s.group);
  return out;
}

/** Every sweep checked by a fit at λ that saw none of the sweeps of its size. */
export function leaveShapesOut(shapes: Shape[], prior: Coefficients, lambda: number): LeftOut[] {
  const out: LeftOut[] = new Array(shapes.length);
  for (const g of groupsOf(shapes)) {
    const train = shapes.filter((s) => s.group !== g);
    const c = asRead(fitRegularised(train, prior, lambda));
    const err = median(train.map((t) => shapeError(t, c)));
    shapes.forEach((s, i) => {
      if (s.group === g) out[i] = { ...checkShape(s, c, err), group: g, trainedOn: train.length, errorOfFit: shapeError(s, c), coefficients: c };
    });
  }
  return out;
}

export interface LambdaScore {
  /** λ; null stands for ∞ (the prior) in JSON. */
  lambda: number | null;
  meanRegret: number;
  medianRegret: number;
  worstRegret: number;
  medianSpearman: number | null;
  minSpearman: number | null;
  /** Median over left-out sweeps of the error between candidates. */
  error: number;
}

function scoreOf(lambda: number, loo: LeftOut[]): LambdaScore {
  const regrets = loo.map((x) => x.regret);
  const rho = loo.map((x) => x.spearman).filter((x): x is number => x !== null);
  return {
    lambda: lambda === Infinity ? null : lambda,
    meanRegret: regrets.reduce((a, b) => a + b, 0) / regrets.length, medianRegret: median(regrets), worstRegret: Math.max(...regrets),
    medianSpearman: rho.length ? median(rho) : null, minSpearman: rho.length ? Math.min(...rho) : null,
    error: median(loo.map((x) => x.errorOfFit)),
  };
}

/** True when score a is better than b (the order that chooses λ; see the file comment). */
function better(a: LambdaScore, b: LambdaScore): boolean {
  if (Math.abs(a.meanRegret - b.meanRegret) > 1e-9) return a.meanRegret < b.meanRegret;
  if (Math.abs(a.error - b.error) > 1e-9) return a.error < b.error;
  return (a.lambda ?? Infinity) > (b.lambda ?? Infinity);
}

/** λ chosen by leaving one size out at a time, with every λ's leave-out results. */
export function chooseLambda(shapes: Shape[], prior: Coefficients, lambdas: number[] = LAMBDAS): { lambda: number; scores: LambdaScore[]; runs: LeftOut[][] } {
  const runs = lambdas.map((l) => leaveShapesOut(shapes, prior, l));
  const scores = runs.map((r, i) => scoreOf(lambdas[i], r));
  let bi = 0;
  for (let i = 1; i < scores.length; i++) if (better(scores[i], scores[bi])) bi = i;
  return { lambda: lambdas[bi], scores, runs };
}

export interface CalibrationResult {
  coefficients: Coefficients;
  error: number;
  /** The chosen λ (null: ∞, the prior kept) and every λ's leave-one-size-out figures. */
  lambda: number | null;
  lambdas: LambdaScore[];
  baseline: ShapeCheck[];
  inSample: ShapeCheck[];
  leaveOneOut: LeftOut[];
  /** Nested: each size's sweeps checked by a fit whose λ was chosen without that size (null with
   *  fewer than 3 sizes). */
  nested: (LeftOut & { lambda: number | null })[] | null;
  summary: { shapes: number; groups: number; candidates: number; lambda: number | null; looMedianRegret: number; looWorstRegret: number; looMedianSpearman: number | null; looMinSpearman: number | null;
    looMedianRegretTieBreak: number; looWorstRegretTieBreak: number; baselineMedianRegret: number; baselineWorstRegret: number; baselineMedianSpearman: number | null; baselineMinSpearman: number | null;
    nestedMedianRegret: number | null; nestedWorstRegret: number | null; nestedMedianSpearman: number | null; nestedMinSpearman: number | null;
    targets: { medianRegret: number; worstRegret: number; spearman: number }; met: { medianRegret: boolean; worstRegret: boolean; spearman: boolean } };
}

export function calibrate(shapes: Shape[], base: Coefficients, lambdas: number[] = LAMBDAS): CalibrationResult {
  if (groupsOf(shapes).length < 2) throw new UsageError("calibrate needs sweeps of at least two sizes (R x C): every sweep of one size is left out at a time");
  const baseline = shapes.map((s) => checkShape(s, base, 0));
  const chosen = chooseLambda(shapes, base, lambdas);
  const loo = chosen.runs[lambdas.indexOf(chosen.lambda)];
  const coefficients = asRead(fitRegularised(shapes, base, chosen.lambda));
  const error = Math.fround(median(loo.map((x) => x.errorOfFit)));
  const inSample = shapes.map((s) => checkShape(s, coefficients, error));
  // nested: λ chosen on the other sizes only, then that fit checks the left-out size
  const groups = groupsOf(shapes);
  let nested: CalibrationResult["nested"] = null;
  if (groups.length >= 3) {
    nested = new Array(shapes.length);
    for (const g of groups) {
      const train = shapes.filter((s) => s.group !== g);
      const inner = chooseLambda(train, base, lambdas).lambda;
      const c = asRead(fitRegularised(train, base, inner));
      const err = median(train.map((t) => shapeError(t, c)));
      shapes.forEach((s, i) => {
        if (s.group === g) nested![i] = { ...checkShape(s, c, err), group: g, trainedOn: train.length, errorOfFit: shapeError(s, c), coefficients: c, lambda: inner === Infinity ? null : inner };
      });
    }
  }
  const rhoOf = (xs: ShapeCheck[]): number[] => xs.map((x) => x.spearman).filter((x): x is number => x !== null);
  const rho = rhoOf(loo);
  const brho = rhoOf(baseline);
  const regrets = loo.map((x) => x.regret);
  const nrho = nested ? rhoOf(nested) : [];
  const summary = {
    shapes: shapes.length, groups: groups.length, candidates: shapes.reduce((a, s) => a + s.candidates.length, 0),
    lambda: chosen.lambda === Infinity ? null : chosen.lambda,
    looMedianRegret: median(regrets), looWorstRegret: Math.max(...regrets),
    looMedianSpearman: rho.length ? median(rho) : null, looMinSpearman: rho.length ? Math.min(...rho) : null,
    looMedianRegretTieBreak: median(loo.map((x) => x.regretTieBreak)), looWorstRegretTieBreak: Math.max(...loo.map((x) => x.regretTieBreak)),
    baselineMedianRegret: median(baseline.map((x) => x.regret)), baselineWorstRegret: Math.max(...baseline.map((x) => x.regret)),
    baselineMedianSpearman: brho.length ? median(brho) : null, baselineMinSpearman: brho.length ? Math.min(...brho) : null,
    nestedMedianRegret: nested ? median(nested.map((x) => x.regret)) : null, nestedWorstRegret: nested ? Math.max(...nested.map((x) => x.regret)) : null,
    nestedMedianSpearman: nrho.length ? median(nrho) : null, nestedMinSpearman: nrho.length ? Math.min(...nrho) : null,
    targets: { medianRegret: 1.1, worstRegret: 1.25, spearman: 0.8 },
    met: { medianRegret: false, worstRegret: false, spearman: false },
  };
  // the targets are judged on the honest figures: nested where there are 3 sizes or more
  const judged: ShapeCheck[] = nested ?? loo;
  const jr = judged.map((x) => x.regret);
  const jrho = rhoOf(judged);
  summary.met = { medianRegret: median(jr) <= 1.1, worstRegret: Math.max(...jr) <= 1.25, spearman: jrho.length === judged.length && jrho.every((r) => r >= 0.8) };
  return { coefficients, error, lambda: summary.lambda, lambdas: chosen.scores, baseline, inSample, leaveOneOut: loo, nested, summary };
}

/** λ as the report writes it. */
export function lambdaText(l: number | null): string {
  return l === null || l === Infinity ? "∞ (the prior)" : l === 0 ? "0 (unregularised)" : String(l);
}

export function renderCalibration(r: CalibrationResult, input: { command: string; sweeps: string[]; out: string; base: string; verify: string[] }): string {
  const f = (x: number | null, d = 3): string => (x === null ? "n/a" : x.toFixed(d));
  const s = r.summary;
  const out = [`# Calibration of the cost model`, ""];
  out.push(`- command: \`${input.command}\``);
  out.push(`- sweeps (${s.shapes} sweeps of ${s.groups} sizes, ${s.candidates} timed candidates): ${input.sweeps.map((x) => `\`${x}\``).join(", ")}`);
  out.push(`- base device record (the prior): ${input.base}; written: \`${input.out}\``);
  out.push("- method (`shell-node/src/bench/calibrate.ts`): the model's own terms, fitted to the squared relative errors by a ridge on the log-coefficients toward the base record's, λ chosen by leaving one size (R x C) out at a time: every sweep of that size is out of the fit that judges it (repeats and other cases of one size never leak); λ = ∞ keeps the prior, so the chosen fit is never worse than the prior by that measure. Picks are among the left-out sweep's timed candidates.");
  out.push(`- chosen λ: **${lambdaText(r.lambda)}**${r.lambda === null ? " (no fit beat the base record leaving sizes out: the written record keeps its coefficients)" : ""}`);
  out.push("");
  out.push("| | median regret | worst regret | median Spearman | lowest Spearman |", "| --- | --- | --- | --- | --- |");
  out.push(`| uncalibrated (base record) | ${f(s.baselineMedianRegret)} | ${f(s.baselineWorstRegret)} | ${f(s.baselineMedianSpearman)} | ${f(s.baselineMinSpearman)} |`);
  out.push(`| calibrated at the chosen λ, size left out (λ chosen on these same folds: optimistic) | ${f(s.looMedianRegret)} | ${f(s.looWorstRegret)} | ${f(s.looMedianSpearman)} | ${f(s.looMinSpearman)} |`);
  out.push(`| calibrated, size left out, with the fewer-programs tie-break | ${f(s.looMedianRegretTieBreak)} | ${f(s.looWorstRegretTieBreak)} | | |`);
  out.push(r.nested
    ? `| nested: λ chosen without the left-out size, then that fit judges it | ${f(s.nestedMedianRegret)} | ${f(s.nestedWorstRegret)} | ${f(s.nestedMedianSpearman)} | ${f(s.nestedMinSpearman)} |`
    : `| nested (λ chosen without the left-out size) | n/a: needs sweeps of 3 sizes | | | |`);
  out.push(`| target (judged on the ${r.nested ? "nested" : "left-out"} figures) | <= ${s.targets.medianRegret} ${s.met.medianRegret ? "(met)" : "(**not met**)"} | <= ${s.targets.worstRegret} ${s.met.worstRegret ? "(met)" : "(**not met**)"} | >= ${s.targets.spearman} per sweep ${s.met.spearman ? "(met)" : "(**not met**)"} | |`);
  out.push("");
  out.push("Every λ, leaving one size out at a time (λ is chosen by the smallest mean regret, then the smallest error between candidates, then the larger λ):", "");
  out.push("| λ | mean regret | median regret | worst regret | median Spearman | lowest Spearman | error between candidates |", "| --- | --- | --- | --- | --- | --- | --- |");
  for (const x of r.lambdas) {
    const mark = x.lambda === r.lambda ? " **(chosen)**" : "";
    out.push(`| ${lambdaText(x.lambda)}${mark} | ${f(x.meanRegret, 4)} | ${f(x.medianRegret)} | ${f(x.worstRegret)} | ${f(x.medianSpearman)} | ${f(x.minSpearman)} | ${f(x.error)} |`);
  }
  out.push("");
  out.push("Per left-out sweep (chosen λ; every sweep of its size out of the fit):", "");
  out.push(`| sweep | timed | pick (calibrated) | measured best | regret | Spearman | error between candidates | pick with tie-break | its regret | uncalibrated pick | its regret | its Spearman |${r.nested ? " nested λ | nested regret | nested Spearman |" : ""}`);
  out.push(`| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |${r.nested ? " --- | --- | --- |" : ""}`);
  r.leaveOneOut.forEach((x, i) => {
    const b = r.baseline[i];
    const n = r.nested ? r.nested[i] : null;
    out.push(`| ${x.shape} | ${x.timed} | ${x.pick} | ${x.best} | ${f(x.regret)} | ${f(x.spearman)} | ${f(x.errorOfFit)} | ${x.pickTieBreak} | ${f(x.regretTieBreak)} | ${b.pick} | ${f(b.regret)} | ${f(b.spearman)} |${n ? ` ${lambdaText(n.lambda)} | ${f(n.regret)} | ${f(n.spearman)} |` : ""}`);
  });
  out.push("");
  out.push(`Coefficients fitted on all ${s.shapes} sweeps at λ = ${lambdaText(r.lambda)} (written to the record, f32 precision), and the model's error between candidates (median over left-out sweeps): **${f(r.error)}**`, "");
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
