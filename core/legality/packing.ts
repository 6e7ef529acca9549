// Packing rules (reduction family, cooperative packed realization). Each check is a pure
// function of the context; see RULES.md for what each proves and why that suffices.
//
// Realization model the rules assume: W = 32*S workers cooperate on one logical program (one
// iteration of the program loop); P programs share a threadgroup; empty slots of a partial last
// group replay the last valid program (reads and computation only, stores predicated off). At
// program level, the first parallel loop met (and every reduce axis) is distributed over the W
// workers in stripes that depend only on the loop's [min, extent]; loops nested in it run per
// worker. Program-level lets run redundantly on every worker; program-level stores (outside a
// distributed loop) are done by worker 0.

import { Doc, Expr, Stmt } from "../ir/ast";
import { sameExpr } from "../analysis/vectors";
import { idiv } from "../util/text";
import { Affine, AffineEnv, addScaled, affineOf } from "../ir/affine";
import { RuleResult, lanesCombineInSimd, partialsPerGroup } from "../plan/plan";
import { LegalityContext } from "./context";
import { Facts, LOOP_PROGRAM, LoopInfo, Site, addRanges, affineEqual, affineRange, affineSub, loopLevel, renameApart } from "./facts";
import { Verdict, num, quoted } from "./verdict";
import { gcdF64 } from "../util/num";
import { stripeDimIn } from "../analysis/stripe";
import { RUN_EVERY, RUN_ONE } from "../analysis/distribution";

const I32_MAX: i32 = 2147483647;

/** The widest vector width of the device: a worker's consecutive iterations in a stripe. */
function widestVector(ctx: LegalityContext): f64 {
  let v: i32 = 1;
  const ws = ctx.device.vectorWidths;
  for (let i: i32 = 0; i < ws.length; i++) if (ws[i] > v) v = ws[i];
  return <f64>v;
}

/** Who runs an access, for messages. */
function runsText(s: Site): string {
  if (s.runs == RUN_ONE) return "worker 0 alone";
  if (s.runs == RUN_EVERY) return "every worker";
  return "the worker that owns its iteration";
}

function notReduction(ctx: LegalityContext, id: string): RuleResult {
  const v = new Verdict(id);
  v.unknown("The document is not in the reduction family (" + (ctx.structure.why.length > 0 ? ctx.structure.why : "family " + ctx.structure.family) + "), so no cooperative program exists to check.", "/body");
  return v.result("");
}

function programVar(ctx: LegalityContext): string {
  const pl = ctx.structure.programLoop;
  return pl === null ? "" : changetype<Stmt>(pl).name;
}

function programPtr(ctx: LegalityContext): string {
  const pl = ctx.structure.programLoop;
  return pl === null ? "" : changetype<Stmt>(pl).ptr;
}

/** `a` without its `v` term. */
function without(a: Affine, v: string): Affine {
  const r = new Affine();
  r.c = a.c;
  for (let i: i32 = 0; i < a.vars.length; i++) {
    if (a.vars[i] == v) continue;
    r.vars.push(a.vars[i]);
    r.coefs.push(a.coefs[i]);
  }
  return r;
}

/** True when every variable with a nonzero coefficient is `pv`. */
function onlyProgramVar(a: Affine, pv: string): bool {
  const sup = a.support();
  for (let i: i32 = 0; i < sup.length; i++) if (sup[i] != pv) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// noalias (shared with fusion)

export function checkNoalias(ctx: LegalityContext): RuleResult {
  const v = new Verdict("noalias");
  if (!ctx.doc.noalias) {
    v.fail("The document does not state \"attrs\": {\"noalias\": true}, so two parameters may share memory and no access can be proven independent of another.", ctx.doc.noaliasPtr);
  }
  return v.result("The document states attrs.noalias = true: no two parameters share memory.");
}

// ---------------------------------------------------------------------------------------------
// pure-expression

const PAIR_OK: i32 = 0;
const PAIR_UNKNOWN: i32 = 1;
const PAIR_FAILS: i32 = 2;

/**
 * Whether access `l` (a load, or a store) and store `s` of one buffer may touch one element from
 * two different workers of the same program. Both accesses may be the same store statement (two
 * of its iterations).
 */
function classifyPair(l: Site, s: Site, pv: string, span: f64): i32 {
  const n = l.forms.length < s.forms.length ? l.forms.length : s.forms.length;
  // 0. Both run on worker 0 alone (the shared Distribution's RUN_ONE): one thread, program order.
  if (l.runs == RUN_ONE && s.runs == RUN_ONE) return PAIR_OK;
  // 1. The same element, read and written by one store statement (same worker, same iteration).
  if (l.kind == "load" && l.store !== null && l.store === s.store && l.allAffine() && s.allAffine()) {
    let same = true;
    for (let d: i32 = 0; d < n; d++) {
      if (!affineEqual(changetype<Affine>(l.forms[d]), changetype<Affine>(s.forms[d]))) same = false;
    }
    if (same) return PAIR_OK;
  }
  // 2. Disjoint: in some dimension the two index sets never meet within one program.
  const names = new Array<string>();
  const los = new Array<f64>();
  const his = new Array<f64>();
  addRanges(l, "l:", pv, names, los, his);
  addRanges(s, "s:", pv, names, los, his);
  for (let d: i32 = 0; d < n; d++) {
    const lf = l.forms[d];
    const sf = s.forms[d];
    if (lf === null || sf === null) continue;
    const diff = affineSub(renameApart(changetype<Affine>(lf), "l:", pv), renameApart(changetype<Affine>(sf), "s:", pv));
    const r = new Array<f64>();
    if (affineRange(diff, names, los, his, r) && (r[0] > 0.0 || r[1] < 0.0)) return PAIR_OK;
    if (neverZero(diff)) return PAIR_OK;
  }
  // 3. Owner-local: both distributed with one owner for each value (sameOwners), and one
  //    dimension pins the distributed variable (a*v + g with the same a != 0 and the same
  //    program-uniform g).
  const ld = l.dist;
  const sd = s.dist;
  if (ld !== null && sd !== null) {
    const lv = changetype<LoopInfo>(ld);
    const sv = changetype<LoopInfo>(sd);
    if (sameOwners(lv, sv, pv)) {
      for (let d: i32 = 0; d < n; d++) {
        const lf = l.forms[d];
        const sf = s.forms[d];
        if (lf === null || sf === null) continue;
        const la = changetype<Affine>(lf);
        const sa = changetype<Affine>(sf);
        const a: f64 = la.coef(lv.name);
        if (a == 0.0 || a != sa.coef(sv.name)) continue;
        const lg = without(la, lv.name);
        const sg = without(sa, sv.name);
        if (onlyProgramVar(lg, pv) && onlyProgramVar(sg, pv) && affineEqual(lg, sg)) return PAIR_OK;
      }
    }
  }
  // 4. Disjoint by ranges that vary by program (apartInProgram), tried last: the pairs above are
  //    the common ones, and this one builds forms
  for (let d: i32 = 0; d < n; d++) {
    const lf = l.forms[d];
    const sf = s.forms[d];
    if (lf !== null && sf !== null && apartInProgram(l, s, changetype<Affine>(lf), changetype<Affine>(sf), pv)) return PAIR_OK;
  }
  if (!l.allAffine() || !s.allAffine()) return PAIR_UNKNOWN;
  return provenShared(l, s, span) ? PAIR_FAILS : PAIR_UNKNOWN;
}

/**
 * The least and the greatest value of index form `f` of site `a` within one program, as two
 * affine forms of the program variable `pv` ([lo, hi]), or null: every other variable of `f` must
 * be a loop or axis of `a` with step 1 whose minimum and extent are each constant or affine in
 * `pv` alone (a causal row [0, r + 1) takes 0 .. r; the rest of it [r + 1, C - r - 1) takes
 * r + 1 .. C - 1). A loop that does not run in a program gives hi < lo there and touches nothing.
 */
function programBounds(a: Site, f: Affine, pv: string): Array<Affine> | null {
  let lo: Affine | null = constForm(f.c);
  let hi: Affine | null = constForm(f.c);
  for (let i: i32 = 0; i < f.vars.length; i++) {
    const k: f64 = f.coefs[i];
    if (k == 0.0) continue;
    if (f.vars[i] == pv) {
      const one = new Affine();
      one.vars.push(pv);
      one.coefs.push(1.0);
      lo = addScaled(changetype<Affine>(lo), one, k);
      hi = addScaled(changetype<Affine>(hi), one, k);
    } else {
      const at = loopLevel(a.loops, f.vars[i]);
      if (at < 0) return null;
      const li = a.loops[at];
      if (li.kind == LOOP_PROGRAM || !li.stepConst || li.step != 1.0) return null;
      // (a constant minimum or extent has its constant form too)
      const mf = li.minForm;
      const ef = li.extentForm;
      if (mf === null || ef === null || !onlyProgramVar(changetype<Affine>(mf), pv) || !onlyProgramVar(changetype<Affine>(ef), pv)) return null;
      // the values min .. min + extent - 1
      const end = addScaled(changetype<Affine>(mf), changetype<Affine>(ef), 1.0);
      if (end === null) return null;
      const last = changetype<Affine>(end);
      last.c = last.c - 1.0;
      lo = addScaled(changetype<Affine>(lo), k > 0.0 ? changetype<Affine>(mf) : last, k);
      if (lo === null) return null;
      hi = addScaled(changetype<Affine>(hi), k > 0.0 ? last : changetype<Affine>(mf), k);
    }
    if (lo === null || hi === null) return null;
  }
  const out = new Array<Affine>();
  out.push(changetype<Affine>(lo));
  out.push(changetype<Affine>(hi));
  return out;
}

function constForm(c: f64): Affine {
  const a = new Affine();
  a.c = c;
  return a;
}

/**
 * Within one program, the index sets of `lf` (site `l`) and `sf` (site `s`) in one dimension never
 * meet: one's greatest value lies below the other's least in every program (programBounds, each a
 * form of the program variable, compared over the program loop's range). A causal row's store
 * Y[r, c], c in [0, r + 1), and the zeros after it, c in [r + 1, C - r - 1), are apart so.
 */
function apartInProgram(l: Site, s: Site, lf: Affine, sf: Affine, pv: string): bool {
  const at = loopLevel(l.loops, pv);
  if (at < 0 || l.loops[at].kind != LOOP_PROGRAM || !l.loops[at].exact) return false;
  const lb = programBounds(l, lf, pv);
  if (lb === null) return false;
  const sb = programBounds(s, sf, pv);
  if (sb === null) return false;
  const lbs = changetype<Array<Affine>>(lb);
  const sbs = changetype<Array<Affine>>(sb);
  const prog = l.loops[at];
  const r = new Array<f64>();
  // s's least minus l's greatest > 0 in every program, or l's least minus s's greatest
  if (overPrograms(affineSub(sbs[0], lbs[1]), pv, prog, r) && r[0] > 0.0) return true;
  const q = new Array<f64>();
  return overPrograms(affineSub(lbs[0], sbs[1]), pv, prog, q) && q[0] > 0.0;
}

/** The range [lo, hi] of form `f` of the program variable `pv` over the program loop `prog`'s
 *  exact range (into `out`); false where `f` has another variable. */
function overPrograms(f: Affine, pv: string, prog: LoopInfo, out: Array<f64>): bool {
  const names = new Array<string>();
  const los = new Array<f64>();
  const his = new Array<f64>();
  names.push(pv);
  los.push(prog.lo);
  his.push(prog.hi);
  return affineRange(f, names, los, his, out);
}

/**
 * Whether an affine difference of two indices is never 0 for integer values of its variables:
 * its coefficients share a divisor that its constant is not a multiple of (2c - 2c' - 1 is odd:
 * the even and odd elements T[r, 2c] and T[r, 2c + 1] of one loop never meet). Ranges play no
 * part; the forms are exact i32 arithmetic (a form that may wrap is not affine).
 */
function neverZero(a: Affine): bool {
  let g: f64 = 0.0;
  for (let i: i32 = 0; i < a.coefs.length; i++) g = gcdF64(g, Math.abs(a.coefs[i]));
  return g > 1.0 && Math.abs(a.c) % g != 0.0;
}

/**
 * Whether two distributed loops give each value of their variables to one worker. The emitter's
 * stripes (core/emit/cooperative.ts, emitStripe) give iteration v to the worker that the offset
 * v - min alone decides (chunks of W*V elements, worker w's V elements in each), whatever the
 * extent: the extent only decides where the stripe ends. So two loops of step 1 whose minimum is
 * one value in every worker of a program (the same constant, or the same form of the program
 * variable alone: a triangular or causal row [r, ...) or [0, r + 1)) share their owners. A
 * minimum that depends on another loop variable may differ between that loop's iterations, and
 * with it the owner of one element.
 */
function sameOwners(a: LoopInfo, b: LoopInfo, pv: string): bool {
  if (a.sameRange(b)) return true;
  if (!a.stepConst || !b.stepConst || a.step != 1.0 || b.step != 1.0) return false;
  if (a.minConst || b.minConst) return a.minConst && b.minConst && a.min == b.min;
  const am = a.minForm;
  const bm = b.minForm;
  if (am === null || bm === null) return false;
  const af = changetype<Affine>(am);
  const bf = changetype<Affine>(bm);
  return onlyProgramVar(af, pv) && onlyProgramVar(bf, pv) && affineEqual(af, bf);
}

/** Every loop of the access runs and has an exact range (constant min, extent >= 1, step). */
function allExact(a: Site): bool {
  for (let i: i32 = 0; i < a.loops.length; i++) if (!a.loops[i].exact) return false;
  return true;
}

/**
 * Which workers provably run an access: 2 = at least two workers (every worker, or a distributed
 * loop longer than the widest vector V, whose iterations min and min + V go to worker 0 and to
 * another worker in the emitter's stripe layout), 1 = at least worker 0, 0 = nothing known.
 */
function workersAtLeast(a: Site, span: f64): i32 {
  if (a.runs == RUN_EVERY) return 2;
  if (a.runs == RUN_ONE) return 1;
  const d = a.dist;
  if (d === null) return 0;
  const li = changetype<LoopInfo>(d);
  if (!li.exact) return 0;
  return li.extent > span ? 2 : 1;
}

/**
 * A proven cross-worker conflict (the only case reported as `fails`): two unguarded accesses in
 * loops that all run, touching the very same element (identical index forms in the program
 * variable only), run by two different workers: one side is run by two workers at least,
 * the other by some worker (`span` is the widest vector the device allows).
 */
function provenShared(l: Site, s: Site, span: f64): bool {
  const wl = workersAtLeast(l, span);
  const ws = workersAtLeast(s, span);
  if (wl == 0 || ws == 0 || (wl < 2 && ws < 2)) return false;
  if (l.guarded || s.guarded || !allExact(l) || !allExact(s)) return false;
  if (l.forms.length != s.forms.length) return false;
  for (let d: i32 = 0; d < l.forms.length; d++) {
    const a = changetype<Affine>(l.forms[d]);
    const b = changetype<Affine>(s.forms[d]);
    if (!affineEqual(a, b)) return false;
    const sup = a.support();
    for (let k: i32 = 0; k < sup.length; k++) {
      const li = l.loopOf(sup[k]);
      if (li === null || changetype<LoopInfo>(li).kind != LOOP_PROGRAM) return false;
    }
  }
  return true;
}

export function checkPureExpression(ctx: LegalityContext): RuleResult {
  if (ctx.structure.family != "reduction") return notReduction(ctx, "pure-expression");
  const v = new Verdict("pure-expression");
  const f = ctx.facts();
  for (let i: i32 = 0; i < f.impure.length; i++) {
    v.unknown("The operator \"" + f.impureOps[i] + "\" is not a pure Tile IR v1 operator, so its value may depend on when or by which worker it runs.", f.impure[i]);
  }
  const pv = programVar(ctx);
  let readsWritten = false;
  let pairs: i32 = 0;
  for (let i: i32 = 0; i < f.loads.length && pairs <= MAX_ACCESS_PAIRS; i++) {
    const l = f.loads[i];
    if (!l.inProgram) continue;
    const stores = f.storesTo(l.buffer);
    for (let j: i32 = 0; j < stores.length; j++) {
      const s = stores[j];
      if (!s.inProgram) continue;
      readsWritten = true;
      pairs = pairs + 1;
      if (pairs > MAX_ACCESS_PAIRS) {
        v.unknown(tooManyPairs("loads and stores of one buffer"), l.ptr);
        break;
      }
      const k = classifyPair(l, s, pv, widestVector(ctx));
      if (k == PAIR_OK) continue;
      if (k == PAIR_UNKNOWN) {
        const why = !l.allAffine() || !s.allAffine()
          ? "use an index that is not affine in the loop variables (or one that may wrap around in i32)"
          : (runsText(l) == runsText(s)
            ? "are each run by " + runsText(l) + " (not shown to be the same worker for the same element)"
            : "are run by " + runsText(l) + " and " + runsText(s)) + ", and no index shows they touch different elements or that one worker does both";
        v.unknown("The load of " + quoted(l.buffer) + " and the store at " + s.ptr + " " + why + ", so it cannot be shown that no worker reads an element another worker writes.", l.ptr);
      } else if (s.dist === null || l.dist === null) {
        v.fail("The load of " + quoted(l.buffer) + " (run by " + runsText(l) + ") may read an element that the store at " + s.ptr + " (run by " + runsText(s) + ") writes from another worker, without a device fence between them (a cross-worker hand-off).", l.ptr);
      } else {
        v.fail("The load of " + quoted(l.buffer) + " may read an element that another worker writes by the store at " + s.ptr + " (the distributed loops differ in range or the indices do not pin the same distributed iteration).", l.ptr);
      }
    }
  }
  if (readsWritten) {
    return v.result("Every expression uses pure Tile IR operators, and every read of a buffer the program writes is of an element that only the same worker writes (same distributed iteration) or that no store of the program can write.");
  }
  return v.result("Every expression uses pure Tile IR operators, and no buffer written inside a program is read inside it, so no worker can read another worker's write.");
}

// ---------------------------------------------------------------------------------------------
// independent-store

/**
 * Programs r1 != r2 never write one element through stores `a` and `b` (possibly the same
 * statement): some dimension is k*r + g in both with the same k != 0 and |g_a - g_b| < |k| over
 * all iterations, so equal indices would need |k*(r1 - r2)| < |k|.
 */
function separatesPrograms(a: Site, b: Site, pv: string): bool {
  const names = new Array<string>();
  const los = new Array<f64>();
  const his = new Array<f64>();
  addRanges(a, "a:", "", names, los, his);
  addRanges(b, "b:", "", names, los, his);
  for (let d: i32 = 0; d < a.forms.length && d < b.forms.length; d++) {
    const fa = a.forms[d];
    const fb = b.forms[d];
    if (fa === null || fb === null) continue;
    const x = changetype<Affine>(fa);
    const y = changetype<Affine>(fb);
    const k: f64 = x.coef(pv);
    if (k == 0.0 || y.coef(pv) != k) continue;
    const diff = affineSub(renameApart(without(x, pv), "a:", ""), renameApart(without(y, pv), "b:", ""));
    const r = new Array<f64>();
    if (affineRange(diff, names, los, his, r) && r[0] > -Math.abs(k) && r[1] < Math.abs(k)) return true;
    if (multipleApart(a, diff, k, pv)) return true;
  }
  return false;
}

/**
 * The other terms move in steps wider than the program variable's whole reach: every coefficient
 * of g_a - g_b and its constant are multiples of some M > |k| * (hi - lo), [lo, hi] the program
 * variable's exact range. Equal indices k*p1 + g_a = k*p2 + g_b need k*(p1 - p2) = g_b - g_a, a
 * multiple of M no larger than |k| * (hi - lo) in size, so 0: p1 = p2. This is the transposed
 * flat store Y[c * R + r] over programs r in [0, R) (M = R > R - 1).
 */
function multipleApart(a: Site, diff: Affine, k: f64, pv: string): bool {
  const loop = a.loopOf(pv);
  if (loop === null || !changetype<LoopInfo>(loop).exact) return false;
  const reach: f64 = Math.abs(k) * (changetype<LoopInfo>(loop).hi - changetype<LoopInfo>(loop).lo);
  let g: f64 = Math.abs(diff.c);
  for (let i: i32 = 0; i < diff.coefs.length; i++) g = gcdF64(g, Math.abs(diff.coefs[i]));
  return g > reach;
}

/**
 * Programs p1 != p2 never touch one element through accesses `a` and `b` because the dimensions
 * where both index with the same expression of the program variable alone (literals, div and mod)
 * together determine it: the decoding of a flattened nest (analysis/nest.ts: b = p / (H*S),
 * h = (p / S) % H, i = p % S, each plus its loop's min), or the same written by hand. The program
 * variable must be exactly non-negative over its range, where truncating div and floor mod agree
 * with floor division: then p = K * (p / K) + p % K and (p / M) / K = p / (M * K) for positive
 * literals K and M, so equal indices in those dimensions would need p1 = p2.
 */
function decodedApart(a: Site, b: Site, pv: string, consts: AffineEnv): bool {
  const loop = a.loopOf(pv);
  if (loop === null || !changetype<LoopInfo>(loop).exact || changetype<LoopInfo>(loop).lo < 0.0) return false;
  const lo: f64 = changetype<LoopInfo>(loop).lo;
  const hi: f64 = changetype<LoopInfo>(loop).hi;
  const same = new Array<Expr>();
  for (let d: i32 = 0; d < a.index.length && d < b.index.length; d++) {
    if (!sameExpr(a.index[d], b.index[d])) continue;
    const e = withoutOffset(a.index[d]);
    if (ofProgramOnly(e, pv)) same.push(e);
    else radixParts(a.index[d], pv, lo, hi, consts, same);
  }
  return same.length > 0 && determines(same, pv, 1);
}

/**
 * An index that is a sum of terms c_i * t_i plus constants, each t_i of the program variable
 * alone (div and mod of it by int literals: a flattened nest's decodings) and each c_i a constant
 * (sizes, literals), determines every t_i where the multipliers keep the terms apart: ordered by
 * |c_i|, each |c_i| exceeds the sum of |c_j| * (span of t_j) over the terms before it (a mixed
 * radix, as Y[b * A + a] with a = p / B in [0, A) and b = p % B is). Two programs with equal
 * values then have equal t_i: at the first term from the largest where they differ, that term's
 * difference is at least |c_i|, more than all smaller terms' differences together. Every term's
 * magnitude sums below 2^31, so the i32 value is the exact sum (a constant added to both wraps
 * alike). Appends the t_i to `out` when it applies; appends nothing otherwise.
 */
function radixParts(e: Expr, pv: string, lo: f64, hi: f64, consts: AffineEnv, out: Array<Expr>): void {
  const terms = new Array<Expr>();
  const coefs = new Array<f64>();
  if (!sumTerms(e, 1.0, pv, consts, terms, coefs, 0) || terms.length == 0) return;
  const spans = new Array<f64>();
  const tops = new Array<f64>();
  for (let i: i32 = 0; i < terms.length; i++) {
    const r = new Array<f64>();
    if (!programRange(terms[i], pv, lo, hi, r)) return;
    spans.push(r[1] - r[0]);
    tops.push(r[1]);
  }
  // order by |c| (insertion sort over a handful of terms)
  const order = new Array<i32>();
  for (let i: i32 = 0; i < terms.length; i++) {
    order.push(i);
    for (let at: i32 = order.length - 1; at > 0 && Math.abs(coefs[order[at - 1]]) > Math.abs(coefs[order[at]]); at--) {
      const t = order[at];
      order[at] = order[at - 1];
      order[at - 1] = t;
    }
  }
  let below: f64 = 0.0;
  let total: f64 = 0.0;
  for (let k: i32 = 0; k < order.length; k++) {
    const i = order[k];
    const c: f64 = Math.abs(coefs[i]);
    total += c * tops[i];
    if (total >= 2147483648.0) return;
    // a part of one value (a loop of extent 1) is the same in both programs: it separates
    // nothing and needs no room
    if (spans[i] == 0.0) continue;
    if (c <= below) return;
    below += c * spans[i];
  }
  for (let i: i32 = 0; i < terms.length; i++) out.push(terms[i]);
}

/** Splits `e` (times `scale`) into constant parts, which it drops, and terms c * t with t of the
 *  program variable alone (not a literal), multiplying through constant factors; false where
 *  some part is neither. */
function sumTerms(e: Expr, scale: f64, pv: string, consts: AffineEnv, terms: Array<Expr>, coefs: Array<f64>, depth: i32): bool {
  if (depth > 32 || scale == 0.0 || Math.abs(scale) >= 2147483648.0) return false;
  const k = affineOf(e, consts, 0);
  if (k !== null && changetype<Affine>(k).isConst()) return true;
  if (e.op == "add" || e.op == "sub") {
    return sumTerms(e.args[0], scale, pv, consts, terms, coefs, depth + 1) &&
      sumTerms(e.args[1], e.op == "add" ? scale : -scale, pv, consts, terms, coefs, depth + 1);
  }
  if (e.op == "neg") return sumTerms(e.args[0], -scale, pv, consts, terms, coefs, depth + 1);
  if (e.op == "mul") {
    const x = affineOf(e.args[0], consts, 0);
    if (x !== null && changetype<Affine>(x).isConst()) return sumTerms(e.args[1], scale * changetype<Affine>(x).c, pv, consts, terms, coefs, depth + 1);
    const y = affineOf(e.args[1], consts, 0);
    if (y !== null && changetype<Affine>(y).isConst()) return sumTerms(e.args[0], scale * changetype<Affine>(y).c, pv, consts, terms, coefs, depth + 1);
    return false;
  }
  if (e.op == "int" || !ofProgramOnly(e, pv)) return false;
  terms.push(e);
  coefs.push(scale);
  return true;
}

/** The exact range [lo, hi] of `e`, built of the program variable (in [lo, hi], lo >= 0), int
 *  literals, and div and mod by positive int literals (every value non-negative, where truncating
 *  and floor division agree). False for anything else. */
function programRange(e: Expr, pv: string, lo: f64, hi: f64, r: Array<f64>): bool {
  if (e.op == "name" && e.name == pv) {
    r.push(lo);
    r.push(hi);
    return true;
  }
  if (e.op == "int") {
    if (e.ival < 0) return false;
    r.push(<f64>e.ival);
    r.push(<f64>e.ival);
    return true;
  }
  if ((e.op != "div" && e.op != "mod") || e.args[1].op != "int" || e.args[1].ival <= 0) return false;
  const x = new Array<f64>();
  if (!programRange(e.args[0], pv, lo, hi, x) || x[0] < 0.0) return false;
  const K: f64 = <f64>e.args[1].ival;
  if (e.op == "div") {
    r.push(Math.floor(x[0] / K));
    r.push(Math.floor(x[1] / K));
  } else if (x[1] < K) {
    r.push(x[0]);
    r.push(x[1]);
  } else {
    r.push(0.0);
    r.push(K - 1.0);
  }
  return true;
}

/** `e` without an added (or subtracted) int literal, the min a nest's decoding adds. */
function withoutOffset(e: Expr): Expr {
  if ((e.op == "add" || e.op == "sub") && e.args.length == 2 && e.args[1].op == "int") return e.args[0];
  if (e.op == "add" && e.args.length == 2 && e.args[0].op == "int") return e.args[1];
  return e;
}

/** Built of `pv`, int literals, div and mod only. */
function ofProgramOnly(e: Expr, pv: string): bool {
  if (e.op == "name") return e.name == pv && e.ref == "loop";
  if (e.op == "int") return true;
  if (e.op != "div" && e.op != "mod") return false;
  return ofProgramOnly(e.args[0], pv) && ofProgramOnly(e.args[1], pv);
}

/** `e` is pv / M (pv itself for M = 1), M a positive int. */
function isQuotient(e: Expr, pv: string, M: i32): bool {
  if (M == 1 && e.op == "name") return e.name == pv;
  return e.op == "div" && e.args[0].op == "name" && e.args[0].name == pv && e.args[1].op == "int" && e.args[1].ival == M;
}

/** Whether the expressions in `es` (each of pv alone) determine pv / M for pv >= 0: one of them
 *  is pv / M, or one is (pv / M) % K with K > 0 and they determine pv / (M * K). */
function determines(es: Array<Expr>, pv: string, M: i32): bool {
  for (let i: i32 = 0; i < es.length; i++) if (isQuotient(es[i], pv, M)) return true;
  for (let i: i32 = 0; i < es.length; i++) {
    const e = es[i];
    if (e.op != "mod" || e.args[1].op != "int" || !isQuotient(e.args[0], pv, M)) continue;
    const K: i32 = e.args[1].ival;
    if (K <= 0 || K > idiv(I32_MAX, M)) continue;
    if (K == 1) continue; // p % 1 is 0: it determines nothing
    if (determines(es, pv, M * K)) return true;
  }
  return false;
}

/**
 * Accesses `a` and `b` never touch one element, in any two programs (the program variable renamed
 * apart too): in some dimension the exact range of a - b excludes 0, or a - b is never 0
 * (neverZero). Stores to O[r] and O[r + R] with r in [0, R) are disjoint the first way, the even
 * and odd elements F[2 * (c * R + r)] and F[2 * (c * R + r) + 1] the second.
 */
function disjointEverywhere(a: Site, b: Site): bool {
  const names = new Array<string>();
  const los = new Array<f64>();
  const his = new Array<f64>();
  addRanges(a, "a:", "", names, los, his);
  addRanges(b, "b:", "", names, los, his);
  for (let d: i32 = 0; d < a.forms.length && d < b.forms.length; d++) {
    const fa = a.forms[d];
    const fb = b.forms[d];
    if (fa === null || fb === null) continue;
    const diff = affineSub(renameApart(changetype<Affine>(fa), "a:", ""), renameApart(changetype<Affine>(fb), "b:", ""));
    const r = new Array<f64>();
    if (affineRange(diff, names, los, his, r) && (r[0] > 0.0 || r[1] < 0.0)) return true;
    // every variable renamed apart, the program variable too: never 0 in any two programs
    if (neverZero(diff)) return true;
  }
  return false;
}

function dependsOn(s: Site, pv: string): bool {
  for (let d: i32 = 0; d < s.forms.length; d++) {
    const fd = s.forms[d];
    if (fd !== null && changetype<Affine>(fd).coef(pv) != 0.0) return true;
  }
  return false;
}

/**
 * Comparisons of pairs of accesses one rule makes at most (a documented limit: beyond it the
 * rule answers unknown rather than spend quadratic time and memory on one document).
 */
export const MAX_ACCESS_PAIRS: i32 = 20000;

function tooManyPairs(what: string): string {
  return "The document has more than " + num(MAX_ACCESS_PAIRS) + " pairs of " + what +
    " to compare, the documented limit of this proof, so it is not attempted.";
}

/** The range of `f` without its `pv` term over the exact loop ranges of `s`, or null. */
function restRange(s: Site, f: Affine, pv: string): Array<f64> | null {
  const names = new Array<string>();
  const los = new Array<f64>();
  const his = new Array<f64>();
  addRanges(s, "", pv, names, los, his);
  const r = new Array<f64>();
  if (!affineRange(without(f, pv), names, los, his, r)) return null;
  return r;
}

/**
 * Linear fast paths of independent-store, decided once per buffer:
 * - across programs: some dimension is k*pv + g in every in-program store to the buffer (the
 *   same k != 0) and every g lies in one interval narrower than |k|; then every pair's
 *   renamed-apart difference g_a - g_b lies in (-|k|, |k|), which is what separatesPrograms
 *   proves pair by pair;
 * - across programs, loads of stored buffers: the same test over the buffer's in-program stores
 *   and loads together (readsApart), which is what separatesPrograms proves load by store;
 * - within a program: every in-program store to the buffer runs on worker 0 alone (program
 *   order), which is classifyPair's first case for every pair.
 */
class FastBuffers {
  pv: string;
  names: Array<string> = new Array<string>();
  across: Array<bool> = new Array<bool>();
  worker0: Array<bool> = new Array<bool>();
  readNames: Array<string> = new Array<string>();
  reads: Array<bool> = new Array<bool>();

  constructor(pv: string) {
    this.pv = pv;
  }

  at(stores: Array<Site>, buffer: string): i32 {
    const k = this.names.indexOf(buffer);
    if (k >= 0) return k;
    const mine = new Array<Site>();
    for (let i: i32 = 0; i < stores.length; i++) if (stores[i].inProgram && stores[i].buffer == buffer) mine.push(stores[i]);
    let one = true;
    for (let i: i32 = 0; i < mine.length; i++) if (mine[i].runs != RUN_ONE) one = false;
    this.names.push(buffer);
    this.across.push(uniformProgramDim(mine, this.pv));
    this.worker0.push(one);
    return this.names.length - 1;
  }

  acrossPrograms(stores: Array<Site>, buffer: string): bool {
    return this.across[this.at(stores, buffer)];
  }

  /** Across programs, loads included: the same linear test over every in-program store and load
   *  of the buffer (then no load of one program meets a store of another). */
  readsApart(f: Facts, buffer: string): bool {
    const k = this.readNames.indexOf(buffer);
    if (k >= 0) return this.reads[k];
    const mine = new Array<Site>();
    for (let i: i32 = 0; i < f.stores.length; i++) if (f.stores[i].inProgram && f.stores[i].buffer == buffer) mine.push(f.stores[i]);
    for (let i: i32 = 0; i < f.loads.length; i++) if (f.loads[i].inProgram && f.loads[i].buffer == buffer) mine.push(f.loads[i]);
    const apart = uniformProgramDim(mine, this.pv);
    this.readNames.push(buffer);
    this.reads.push(apart);
    return apart;
  }

  allWorkerZero(stores: Array<Site>, buffer: string): bool {
    return this.worker0[this.at(stores, buffer)];
  }
}

function uniformProgramDim(mine: Array<Site>, pv: string): bool {
  if (mine.length == 0 || pv == "") return false;
  const dims = mine[0].forms.length;
  for (let d: i32 = 0; d < dims; d++) {
    let k: f64 = 0.0;
    let lo: f64 = 0.0;
    let hi: f64 = 0.0;
    let ok = true;
    for (let i: i32 = 0; ok && i < mine.length; i++) {
      const s = mine[i];
      const fd = d < s.forms.length ? s.forms[d] : null;
      if (fd === null) {
        ok = false;
        break;
      }
      const fa = changetype<Affine>(fd);
      const c: f64 = fa.coef(pv);
      if (c == 0.0 || (i > 0 && c != k)) {
        ok = false;
        break;
      }
      k = c;
      const r = restRange(s, fa, pv);
      if (r === null) {
        ok = false;
        break;
      }
      const rr = changetype<Array<f64>>(r);
      if (i == 0 || rr[0] < lo) lo = rr[0];
      if (i == 0 || rr[1] > hi) hi = rr[1];
    }
    if (ok && hi - lo < Math.abs(k)) return true;
  }
  return false;
}

/**
 * Across programs: no two programs write one element, and no program reads an element another
 * program writes. Adds every pair it cannot prove (unknown) or that is a proven violation (fails)
 * to `v`. Shared by independent-store and the serial fallback (core/legality/programs.ts), which
 * runs one thread per program only when this finds nothing to report.
 */
export function checkAcrossPrograms(f: Facts, pv: string, v: Verdict): void {
  // Buffers whose stores need no pairwise comparison (linear fast path, see FastBuffers).
  const fast = new FastBuffers(pv);
  // the sizes alone, for the constant multipliers of a decoded index (radixParts)
  const consts = new AffineEnv();
  const doc = f.doc;
  if (doc !== null) {
    consts.constNames = changetype<Doc>(doc).sizeNames;
    consts.constValues = changetype<Doc>(doc).sizeValues;
  }
  let pairs: i32 = 0;
  for (let i: i32 = 0; i < f.stores.length && pairs <= MAX_ACCESS_PAIRS; i++) {
    const a = f.stores[i];
    if (!a.inProgram) continue;
    if (!dependsOn(a, pv) && a.allAffine() && !a.guarded && allExact(a)) {
      v.fail("The store to " + quoted(a.buffer) + " has no index that depends on the program variable " + quoted(pv) + ", so every program writes the same elements.", a.ptr);
      continue;
    }
    if (fast.acrossPrograms(f.stores, a.buffer)) continue;
    for (let j: i32 = 0; j <= i; j++) {
      const b = f.stores[j];
      if (!b.inProgram || b.buffer != a.buffer) continue;
      pairs = pairs + 1;
      if (pairs > MAX_ACCESS_PAIRS) {
        v.unknown(tooManyPairs("stores to one buffer"), a.ptr);
        break;
      }
      if (j < i && !dependsOn(b, pv) && b.allAffine() && !b.guarded && allExact(b)) continue; // reported for b itself
      if (separatesPrograms(a, b, pv) || decodedApart(a, b, pv, consts) || disjointEverywhere(a, b)) continue;
      const what = i == j ? "the store to " + quoted(a.buffer) : "this store and the store at " + b.ptr;
      if (!a.allAffine() || !b.allAffine()) {
        v.unknown("For " + what + ", an index is not affine in the loop variables (a div, mod, min or max of them, an address loaded from memory, or a product that may wrap in i32), so it cannot be shown that different programs write different elements.", a.ptr);
      } else {
        v.unknown("For " + what + ", no index separates programs: no dimension is k*" + pv + " + g in both with the other terms g differing by less than |k| (or a loop range is not constant).", a.ptr);
      }
    }
  }
  // Programs run concurrently in every parallel realization (in different groups even at
  // P = 1), with no ordering: a read of another program's write would depend on timing.
  for (let i: i32 = 0; i < f.loads.length && pairs <= MAX_ACCESS_PAIRS; i++) {
    const l = f.loads[i];
    if (!l.inProgram) continue;
    if (fast.readsApart(f, l.buffer)) continue;
    const stores = f.storesTo(l.buffer);
    for (let j: i32 = 0; j < stores.length; j++) {
      const s = stores[j];
      if (!s.inProgram) continue;
      pairs = pairs + 1;
      if (pairs > MAX_ACCESS_PAIRS) {
        v.unknown(tooManyPairs("loads and stores of one buffer"), l.ptr);
        break;
      }
      if (separatesPrograms(l, s, pv) || decodedApart(l, s, pv, consts) || disjointEverywhere(l, s)) continue;
      v.unknown("This load of " + quoted(l.buffer) + " may read an element that another program writes by the store at " + s.ptr + " (no index is k*" + pv + " + g in both with g differing by less than |k|, and no index range keeps them apart); programs run concurrently, so the value read would depend on timing.", l.ptr);
    }
  }
}

export function checkIndependentStore(ctx: LegalityContext): RuleResult {
  if (ctx.structure.family != "reduction") return notReduction(ctx, "independent-store");
  const v = new Verdict("independent-store");
  const f = ctx.facts();
  const pv = programVar(ctx);
  // Across programs (skipped when there is one program).
  if (ctx.programs != 1) checkAcrossPrograms(f, pv, v);
  // Buffers whose stores need no pairwise comparison (worker-0 fast path, see FastBuffers).
  const fast = new FastBuffers(pv);
  let pairs: i32 = 0;
  // Within one program: no two workers write one element (write-write between stripes).
  for (let i: i32 = 0; i < f.stores.length && pairs <= MAX_ACCESS_PAIRS; i++) {
    const a = f.stores[i];
    if (!a.inProgram) continue;
    if (fast.allWorkerZero(f.stores, a.buffer)) continue;
    for (let j: i32 = 0; j <= i; j++) {
      const b = f.stores[j];
      if (!b.inProgram || b.buffer != a.buffer) continue;
      pairs = pairs + 1;
      if (pairs > MAX_ACCESS_PAIRS) {
        v.unknown(tooManyPairs("stores to one buffer"), a.ptr);
        break;
      }
      const k = classifyPair(a, b, pv, widestVector(ctx));
      if (k == PAIR_OK) continue;
      const what = i == j ? "two iterations of this store" : "this store and the store at " + b.ptr;
      if (k == PAIR_UNKNOWN) {
        const ra = runsText(a);
        const rb = runsText(b);
        v.unknown("Within one program, " + what + " (" + (ra == rb ? "each run by " + ra : "run by " + ra + " and " + rb) + ") cannot be shown to write different elements of " + quoted(a.buffer) + " or to be written by one worker only (an index is not affine or may wrap, or none pins one distributed iteration).", a.ptr);
      } else {
        v.fail("Within one program, " + what + " may write one element of " + quoted(a.buffer) + " from two different workers (the index does not pin one distributed iteration), so the final value would depend on timing.", a.ptr);
      }
    }
  }
  const across = ctx.programs == 1
    ? "There is one logical program, so no two programs can write one element"
    : "For every pair of stores to one buffer (a store with itself included), and every load of a stored buffer with each of its stores, some index is k*" + pv + " + g in both with g differing by less than |k|, or the indices that are the same div and mod of " + pv + " in both (each alone, or in a sum whose constant multipliers keep them apart) determine it, or the index ranges never meet, so distinct programs touch distinct elements of what is written";
  return v.result(across + "; within a program each element is written by one worker only (its stripe owner, or worker 0 in program order).");
}

// ---------------------------------------------------------------------------------------------
// private-ownership

/** Every index of the access lies in its dimension for every iteration of its loops (exact ranges). */
function inBounds(l: Site, pi: i32, ctx: LegalityContext): bool {
  if (!l.allAffine()) return false;
  const names = new Array<string>();
  const los = new Array<f64>();
  const his = new Array<f64>();
  // exact ranges, and the value box of a range that varies by program ([0, r + 1): 0 to R - 1)
  for (let i: i32 = 0; i < l.loops.length; i++) {
    const li = l.loops[i];
    if (!li.exact && !li.boxKnown) continue;
    names.push(li.name);
    los.push(li.exact ? li.lo : li.boxLo);
    his.push(li.exact ? li.hi : li.boxHi);
  }
  for (let d: i32 = 0; d < l.forms.length; d++) {
    const r = new Array<f64>();
    if (!affineRange(changetype<Affine>(l.forms[d]), names, los, his, r)) return false;
    if (r[0] < 0.0 || r[1] >= <f64>ctx.doc.dim(pi, d)) return false;
  }
  return true;
}

/** A form (of a loop's minimum or extent) that is affine in the program variable alone. */
function programForm(f: Affine | null, pv: string): bool {
  return f !== null && onlyProgramVar(changetype<Affine>(f), pv);
}

/** A distributed range a register stripe can follow: unit step, a minimum and an extent that are
 *  each constant or affine in the program variable alone (a causal row [0, r + 1), a window
 *  [r, r + K), a band [r, C - r)). The emitter's stripe gives element v to the worker that v - min
 *  decides, so an element's slot does not depend on where the range starts or ends; the register
 *  stripe is sized for the largest extent over the programs, each element guarded by its
 *  program's end. */
function stripeRange(l: LoopInfo, pv: string): bool {
  if (!l.stepConst || l.step != 1.0 || !l.boxKnown) return false;
  return (l.minConst || programForm(l.minForm, pv)) && (l.extentConst || programForm(l.extentForm, pv));
}

/**
 * Past the last element a program's register fill and stages compute (in 32-bit ints): the
 * minimum plus the extent where both are constant; where they vary by program, the largest
 * minimum plus the largest extent (each program runs the chunks of the largest extent from its
 * own minimum, guarded); +infinity when the program variable's range is not known.
 */
function stripeTop(a: Site, li: LoopInfo, pv: string): f64 {
  if (li.minConst && li.extentConst) return li.min + li.extent;
  const at = loopLevel(a.loops, pv);
  if (at < 0 || !a.loops[at].exact) return Infinity;
  const mf = li.minForm;
  const ef = li.extentForm;
  if (mf === null || ef === null) return Infinity;
  const m = new Array<f64>();
  const e = new Array<f64>();
  if (!overPrograms(changetype<Affine>(mf), pv, a.loops[at], m) || !overPrograms(changetype<Affine>(ef), pv, a.loops[at], e)) return Infinity;
  return m[1] + (e[1] > 0.0 ? e[1] : 0.0);
}

/** Two stripe ranges (stripeRange) that are the same for every program: the same minimum and the
 *  same extent (each the same constant, or the same affine form of the program variable). */
function sameStripeRange(a: LoopInfo, b: LoopInfo): bool {
  if (a.sameRange(b)) return true;
  const am = a.minForm;
  const bm = b.minForm;
  const ae = a.extentForm;
  const be = b.extentForm;
  return am !== null && bm !== null && ae !== null && be !== null &&
    affineEqual(changetype<Affine>(am), changetype<Affine>(bm)) && affineEqual(changetype<Affine>(ae), changetype<Affine>(be));
}

/** The one dimension of an affine access whose index has a nonzero coefficient of `v`, or -1
 *  (none, or more than one). */
function stripeDimOf(l: Site, v: string): i32 {
  let at: i32 = -1;
  for (let d: i32 = 0; d < l.forms.length; d++) {
    if (changetype<Affine>(l.forms[d]).coef(v) == 0.0) continue;
    if (at >= 0) return -1;
    at = d;
  }
  return at;
}

/** The stripe dimension of a site through its distributed variable `dv` (stripeDimOf), where the
 *  variable stands alone in that index (stripeDimIn), and every other index is the reference's. */
function sameStripeElement(a: Site, r: Site, pv: string): bool {
  const dd = a.dist;
  const rd = r.dist;
  if (dd === null || rd === null || !a.allAffine() || a.forms.length != r.forms.length) return false;
  const dv = changetype<LoopInfo>(dd);
  const rv = changetype<LoopInfo>(rd);
  const cd = stripeDimOf(a, dv.name);
  if (cd < 0 || cd != stripeDimOf(r, rv.name) || stripeDimIn(a.index, dv.name) != cd || !sameStripeRange(dv, rv)) return false;
  for (let d: i32 = 0; d < a.forms.length; d++) {
    const x = changetype<Affine>(a.forms[d]);
    if (x.coef(dv.name) != (d == cd ? 1.0 : 0.0)) return false;
    const rest = without(x, dv.name);
    if (!onlyProgramVar(rest, pv) || !affineEqual(rest, without(changetype<Affine>(r.forms[d]), rv.name))) return false;
  }
  return true;
}

/** Whether the only loops around an access are the program loop and its own distributed loop or
 *  axis (nothing runs it twice). */
function onlyOwnLoops(a: Site): bool {
  for (let k: i32 = 0; k < a.loops.length; k++) {
    const l = a.loops[k];
    if (l.kind != LOOP_PROGRAM && l !== a.dist) return false;
  }
  return true;
}

/**
 * A cached buffer that the program also writes (an in-place LayerNorm or softmax, `X[r, c] =
 * f(X[r, c], ...)` after the reduces over X; red team, session 32: it was never kept in registers).
 * The registers hold what memory held before the first store, so the stripe is what memory holds
 * wherever the program reads it when: every store is unguarded, in a distributed loop, at the
 * stripe element of its own iteration (the distributed variable itself in the stripe dimension,
 * over the stripe's range, the reference read's other indices), so the worker that holds an
 * element is the one that writes it; and every read of the buffer comes before the first store in
 * program order, or is part of the first store's value at that store's own element (read before
 * it is written, and before any store). Another worker's element, a read after a store, or a
 * later store's read of its own element (which sees what an earlier store wrote) stays a
 * violation.
 */
function inPlaceStripe(name: string, stores: Array<Site>, loads: Array<Site>, ref: Site | null, pv: string, v: Verdict): void {
  let first: i32 = 2147483647;
  let firstStore: Site | null = null;
  for (let i: i32 = 0; i < stores.length; i++) {
    if (stores[i].seq < first) {
      first = stores[i].seq;
      firstStore = stores[i];
    }
  }
  // program order is the order of execution only where no other loop repeats an access: a serial
  // wrapper around a reduce and an in-place loop would read, in its second pass, what the first wrote
  for (let i: i32 = 0; i < stores.length; i++) {
    if (!onlyOwnLoops(stores[i])) v.fail("The cached buffer " + quoted(name) + " is written here inside a loop that repeats the store after later reads, so a register copy of its stripe would go stale.", stores[i].ptr);
  }
  for (let i: i32 = 0; i < loads.length; i++) {
    if (!onlyOwnLoops(loads[i])) v.fail("This read of the cached buffer " + quoted(name) + ", which the program also writes, is inside a loop that repeats it after the store, so the registers (filled before the store) would not hold what memory holds.", loads[i].ptr);
  }
  for (let i: i32 = 0; i < stores.length; i++) {
    const s = stores[i];
    if (ref === null || s.guarded || !sameStripeElement(s, changetype<Site>(ref), pv)) {
      v.fail("The cached buffer " + quoted(name) + " is written here, and not (unconditionally, in a distributed loop) at the element of the stripe that the writing worker holds, so a register copy of its stripe would go stale.", s.ptr);
    }
  }
  for (let i: i32 = 0; i < loads.length; i++) {
    const l = loads[i];
    if (l.seq < first) continue;
    // only the first store's own read: a later store's read sees what an earlier store wrote
    // (red team, session 32: X[r, c] = X[r, c] - s, then X[r, c] = X[r, c] * 2 read the old value)
    let own = false;
    if (firstStore !== null) {
      const s = changetype<Site>(firstStore);
      if (l.store !== null && l.store === s.store && l.allAffine() && l.forms.length == s.forms.length) {
        own = true;
        for (let d: i32 = 0; d < l.forms.length; d++) {
          if (!affineEqual(changetype<Affine>(l.forms[d]), changetype<Affine>(s.forms[d]))) own = false;
        }
      }
    }
    if (!own) {
      v.fail("This read of the cached buffer " + quoted(name) + " comes after a store to it and is not the element the first store writes, read by that store itself, so the registers (filled before any store) would not hold what memory holds.", l.ptr);
    }
  }
}

export function checkPrivateOwnership(ctx: LegalityContext): RuleResult {
  const v = new Verdict("private-ownership");
  if (ctx.cacheBuffers.length == 0) return v.result("No buffer is kept in registers, so there is no private stripe to protect.");
  if (ctx.structure.family != "reduction") return notReduction(ctx, "private-ownership");
  const f = ctx.facts();
  const pv = programVar(ctx);
  let varying = false;
  let gathers = false;
  let inPlace = false;
  for (let b: i32 = 0; b < ctx.cacheBuffers.length; b++) {
    const name = ctx.cacheBuffers[b];
    if (ctx.doc.paramIndex(name) < 0) {
      v.fail("The cached buffer " + quoted(name) + " is not a parameter of the document.", "/params");
      continue;
    }
    // a buffer also written: its stores are checked after the reads (inPlaceStripe, below)
    const stores = f.storesTo(name);
    const loads = f.loadsOf(name);
    let ref: Site | null = null;
    const before = v.violations.length;
    let memoryReads = false;
    for (let i: i32 = 0; i < loads.length; i++) {
      const l = loads[i];
      const dd = l.dist;
      if (dd === null) {
        // a read outside every distributed loop and reduce (a gathered element X[r, Lab[r]], at
        // program level or in a statement one worker runs) is not served from the registers: the
        // emitter serves only loads inside a stripe (core/emit/expr.ts cacheSlot), so it reads
        // memory, which holds what the registers hold where the buffer is never written (red
        // team, session 32: such a read kept the whole buffer out of registers)
        if (stores.length == 0) {
          memoryReads = true;
          continue;
        }
        v.fail("This read of the cached buffer " + quoted(name) + " is not in a loop or reduce distributed over the workers (it is run by " + runsText(l) + "), so it is not confined to one worker's stripe.", l.ptr);
        continue;
      }
      const dv = changetype<LoopInfo>(dd);
      if (l.guarded) {
        v.unknown("This read of the cached buffer " + quoted(name) + " sits under an if: the register fill (stage 0) would read its element for every iteration of the stripe, also where the condition excludes it, and that is not proven to be inside the buffer.", l.ptr);
        continue;
      }
      if (!inBounds(l, ctx.doc.paramIndex(name), ctx)) {
        v.unknown("This read of the cached buffer " + quoted(name) + " is not proven inside the buffer for every iteration of its loops (a range is not constant), so the register fill (stage 0) could read past it.", l.ptr);
        continue;
      }
      if (!l.allAffine()) {
        v.unknown("This read of the cached buffer " + quoted(name) + " has an index that is not affine, so its owner cannot be determined.", l.ptr);
        continue;
      }
      const nd = l.forms.length;
      // the stripe's dimension: the one index where the distributed variable appears (coefficient
      // 1); a column stripe ([v, c]) is owned exactly as a row stripe ([r, v]) is, only its fill
      // reads element by element
      const cd = stripeDimOf(l, dv.name);
      let shaped = nd > 0 && cd >= 0;
      for (let d: i32 = 0; d < nd && shaped; d++) {
        const a = changetype<Affine>(l.forms[d]);
        const want: f64 = d == cd ? 1.0 : 0.0;
        if (a.coef(dv.name) != want || !onlyProgramVar(without(a, dv.name), pv)) shaped = false;
      }
      if (!shaped) {
        v.fail("This read of the cached buffer " + quoted(name) + " is not of the form [program-uniform indices, " + dv.name + " + program-uniform offset in one dimension] with the distributed variable " + quoted(dv.name) + " (coefficient 1) in exactly one dimension and every other index program-uniform.", l.ptr);
        continue;
      }
      // the register stripe holds the element at the variable itself (the emitter serves a load
      // from it only where the index is the bare name, core/analysis/stripe.ts): an offset, or a
      // let that names the variable, reads memory, so the buffer is not kept in registers
      if (stripeDimIn(l.index, dv.name) != cd) {
        v.fail("This read of the cached buffer " + quoted(name) + " indexes its stripe dimension with an expression of " + quoted(dv.name) + " (an offset, or a let), not " + quoted(dv.name) + " itself: the register stripe holds the elements at " + quoted(dv.name) + " only, so this buffer is read from memory.", l.ptr);
        continue;
      }
      if (ref === null) {
        // the fill computes stripe elements in 32-bit, up to one chunk of W*V past the range
        const over: f64 = <f64>ctx.device.maxThreadsPerGroup * 8.0;
        if (!stripeRange(dv, pv)) {
          v.unknown("The range of " + quoted(dv.name) + " has a minimum or an extent that is neither constant nor affine in the program variable alone (or a step other than 1), so the stripe a worker holds cannot be shown to be the same in every stage.", l.ptr);
          continue;
        }
        // the end of the stripe: min + extent, or past the largest value of a varying range
        const bottom: f64 = dv.minConst ? dv.min : dv.boxLo;
        const top: f64 = stripeTop(l, dv, pv);
        if (bottom < -2147483648.0 || !(top + over <= 2147483647.0)) {
          v.unknown("The range of " + quoted(dv.name) + " reaches the end of the 32-bit integers, where the register fill's element arithmetic is not exact.", l.ptr);
          continue;
        }
        if (!dv.minConst || !dv.extentConst) varying = true;
        ref = l;
        continue;
      }
      const r = changetype<Site>(ref);
      const rv = changetype<LoopInfo>(r.dist);
      let same = sameStripeRange(dv, rv) && cd == stripeDimOf(r, rv.name);
      for (let d: i32 = 0; d < nd && same; d++) {
        const a = without(changetype<Affine>(l.forms[d]), dv.name);
        const c = without(changetype<Affine>(r.forms[d]), rv.name);
        if (!affineEqual(a, c)) same = false;
      }
      if (!same) {
        v.fail("This read of the cached buffer " + quoted(name) + " covers a different stripe than the read at " + r.ptr + " (another range of the distributed variable or other indices), so a worker would need columns it does not own.", l.ptr);
      }
    }
    if (stores.length > 0) {
      inPlaceStripe(name, stores, loads, ref, pv, v);
      inPlace = true;
    }
    if (ref === null && v.violations.length == before) {
      v.unknown("No read of the cached buffer " + quoted(name) + " is in a loop or reduce distributed over the workers, so there is no stripe to keep in registers.", "/params/" + ctx.doc.paramIndex(name).toString());
    }
    if (memoryReads) gathers = true;
  }
  let memory = gathers ? " Its reads outside every distributed loop and reduce (at program level, or run by one worker) read memory, which holds the same values." : "";
  if (inPlace) memory += " A cached buffer that the program also writes is written only unconditionally, at the stripe element of the writing worker's own iteration, and read before its first store or by the first store at its own element: the registers hold what memory holds wherever they are read.";
  if (varying) return v.result("Every cached buffer is read only with v itself in one dimension (the same in every read) and program-uniform indices elsewhere, v distributed over one identical range per program (a minimum and an extent each constant or affine in the program variable, each the same form in every read, so the register stripe is sized for the largest extent and each element's slot, decided by v - min, does not depend on where the range ends), so worker w always holds and reads the same elements." + memory);
  return v.result("Every cached buffer is read only with v itself in one dimension (the same in every read) and program-uniform indices elsewhere, v distributed over one identical constant range, so worker w always holds and reads the same elements." + memory);
}

// ---------------------------------------------------------------------------------------------
// reduction-loop-shape

function dependsText(a: Affine): string {
  const sup = a.support();
  return sup.join(", ");
}

export function checkReductionLoopShape(ctx: LegalityContext): RuleResult {
  if (ctx.structure.family != "reduction") return notReduction(ctx, "reduction-loop-shape");
  const v = new Verdict("reduction-loop-shape");
  const f = ctx.facts();
  const ws = ctx.structure.wrappers;
  for (let i: i32 = 0; i < ws.length; i++) {
    const w = ws[i];
    const lr = f.loopFor(w);
    if (lr === null) {
      v.unknown("The loop enclosing a reduce was not analysed.", w.ptr);
      continue;
    }
    const li = changetype<LoopInfo>(lr);
    if (li.extentConst) {
      if (li.extent != 1.0) {
        v.fail("The loop " + quoted(w.name) + " around a reduce runs " + num(li.extent) + " times; a repeated reduce would reuse its threadgroup partials without a read-before-next-write fence proof. Only a single-iteration wrapper is packed.", w.extent.ptr);
      }
    } else if (li.extentForm !== null) {
      v.fail("The extent of the loop " + quoted(w.name) + " around a reduce depends on " + dependsText(changetype<Affine>(li.extentForm)) + ", so it varies between programs (row-varying) and the collectives would not be uniform.", w.extent.ptr);
    } else {
      v.unknown("The extent of the loop " + quoted(w.name) + " around a reduce is not an affine expression, so it cannot be shown to be the constant 1.", w.extent.ptr);
    }
    if (!li.minConst) {
      if (li.minForm !== null) v.fail("The minimum of the loop " + quoted(w.name) + " around a reduce depends on " + dependsText(changetype<Affine>(li.minForm)) + "; it must be a constant.", w.min.ptr);
      else v.unknown("The minimum of the loop " + quoted(w.name) + " around a reduce is not an affine expression, so it cannot be shown to be constant.", w.min.ptr);
    }
    if (!li.stepConst || li.step != 1.0) {
      v.fail("The loop " + quoted(w.name) + " around a reduce must step by 1.", w.hasStep ? w.step.ptr : w.ptr);
    }
  }
  if (ws.length == 0) return v.result("Every reduce sits directly in the program body; no loop encloses one inside the program.");
  return v.result("Every loop enclosing a reduce runs exactly once (constant extent 1, constant minimum, step 1), so each reduce runs once per program with uniform control flow.");
}

// ---------------------------------------------------------------------------------------------
// tail-read-write

export function checkTailReadWrite(ctx: LegalityContext): RuleResult {
  const v = new Verdict("tail-read-write");
  if (ctx.P <= 0) {
    v.fail("The mapping has " + ctx.P.toString() + " programs per group; it must be positive.", programPtr(ctx));
    return v.result("");
  }
  if (ctx.programs <= 0) {
    v.unknown("The number of logical programs is not a known constant, so it cannot be shown that the last group is full.", programPtr(ctx));
    return v.result("");
  }
  const rem: i32 = ctx.programs % ctx.P;
  if (rem == 0) {
    return v.result(ctx.programs.toString() + " programs fill groups of " + ctx.P.toString() + " exactly, so no slot replays a program.");
  }
  const f = ctx.facts();
  const st = ctx.structure;
  for (let i: i32 = 0; i < st.outputs.length; i++) {
    const b = st.outputs[i];
    if (st.inputs.indexOf(b) < 0) continue;
    const stores = f.storesTo(b);
    const loads = f.loadsOf(b);
    const at = stores.length > 0 ? stores[0].ptr : programPtr(ctx);
    v.fail("The last group holds " + rem.toString() + " of " + ctx.P.toString() + " programs; its replaying slots read " + quoted(b) + (loads.length > 0 ? " (at " + loads[0].ptr + ")" : "") + " while the last real program writes it here.", at);
  }
  return v.result("The last group is partial (" + rem.toString() + " of " + ctx.P.toString() + " slots), but no buffer is both read and written, so replayed reads see only data no program changes.");
}

// ---------------------------------------------------------------------------------------------
// thread-limit

export function checkThreadLimit(ctx: LegalityContext): RuleResult {
  const v = new Verdict("thread-limit");
  const dev = ctx.device;
  const at = programPtr(ctx);
  const want: f64 = <f64>dev.simdWidth * <f64>ctx.S * <f64>ctx.P;
  if (ctx.T <= 0 || ctx.S <= 0 || ctx.P <= 0) {
    v.fail("The mapping needs positive T, S and P (T = " + ctx.T.toString() + ", S = " + ctx.S.toString() + ", P = " + ctx.P.toString() + ").", at);
  } else if (<f64>ctx.T != want) {
    v.fail("T = " + ctx.T.toString() + " is not " + dev.simdWidth.toString() + " * S * P = " + num(want) + ".", at);
  }
  if (ctx.T > dev.maxThreadsPerGroup) {
    v.fail(ctx.T.toString() + " threads per group exceed the device limit of " + dev.maxThreadsPerGroup.toString() + ".", at);
  }
  if (ctx.maxThreads > 0 && ctx.T > ctx.maxThreads) {
    v.fail(ctx.T.toString() + " threads per group exceed the requested cap of " + ctx.maxThreads.toString() + ".", at);
  }
  let limit: i32 = dev.maxThreadsPerGroup;
  if (ctx.maxThreads > 0 && ctx.maxThreads < limit) limit = ctx.maxThreads;
  return v.result("T = " + ctx.T.toString() + " = " + dev.simdWidth.toString() + " * S * P is within the limit of " + limit.toString() + " threads per group.");
}

// ---------------------------------------------------------------------------------------------
// threadgroup-memory

export function checkThreadgroupMemory(ctx: LegalityContext): RuleResult {
  const v = new Verdict("threadgroup-memory");
  const n: i32 = ctx.structure.reduces.length;
  // one partial per SIMD group of each program; programs on lanes, one per SIMD group and program
  // where each SIMD group first combines its lanes of a program (P divides 32: S * P groups, slot
  // sg * P + program), else one per thread: partialsPerGroup, what the emitter declares
  const simd: bool = ctx.lanes && lanesCombineInSimd(ctx.P);
  const per: f64 = <f64>partialsPerGroup(ctx.P, ctx.S, ctx.lanes);
  const bytes: f64 = <f64>n * per * 4.0;
  const what: string = (n == 1 ? " reduction" : " reductions") + (ctx.lanes ? (simd ? " * S * P * P partials" : " * T partials") : " * P * S partials");
  const cap: i32 = ctx.device.threadgroupMemoryBytes;
  if (bytes > <f64>cap) {
    v.fail(n.toString() + what + " of 4 bytes need " + num(bytes) + " bytes of threadgroup memory; the device has " + cap.toString() + ".", programPtr(ctx));
  }
  return v.result(n.toString() + what + " of 4 bytes need " + num(bytes) + " bytes, within the device's " + cap.toString() + " bytes of threadgroup memory.");
}
