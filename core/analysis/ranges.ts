// Sound integer bounds of every loop and reduce variable, and of each loop's end
// `min + extent * step`, over the whole iteration space (exact integers, f64). A bound is known
// when min, extent and step are affine in sizes and enclosing variables whose bounds are known,
// or (min and extent) built from such forms by div, mod, min and max (exprRange).
// The emitter reads them to choose a type that cannot overflow (64-bit where a bound leaves
// i32); the legality facts read them to know that an i32 index expression cannot wrap.

import { Doc, Expr, Stmt } from "../ir/ast";
import { Affine, AffineEnv, affineOf, exactTerms } from "../ir/affine";
import { evalConstI32 } from "./consts";

export const I32_LO: f64 = -2147483648.0;
export const I32_HI: f64 = 2147483647.0;

export function fitsI32(lo: f64, hi: f64): bool {
  return lo >= I32_LO && hi <= I32_HI;
}

/** Bounds of one variable, by name, as seen at some point of the walk. */
export class VarBounds {
  names: Array<string> = new Array<string>();
  known: Array<bool> = new Array<bool>();
  los: Array<f64> = new Array<f64>();
  his: Array<f64> = new Array<f64>();

  push(name: string, known: bool, lo: f64, hi: f64): void {
    this.names.push(name);
    this.known.push(known);
    this.los.push(lo);
    this.his.push(hi);
  }

  pop(): void {
    this.names.length = this.names.length - 1;
    this.known.length = this.known.length - 1;
    this.los.length = this.los.length - 1;
    this.his.length = this.his.length - 1;
  }

  /** [lo, hi] of `a` into `out`; false when a variable has no known bound. */
  range(a: Affine, out: Array<f64>): bool {
    let lo: f64 = a.c;
    let hi: f64 = a.c;
    for (let i: i32 = 0; i < a.vars.length; i++) {
      const k: f64 = a.coefs[i];
      if (k == 0.0) continue;
      const j = this.names.lastIndexOf(a.vars[i]);
      if (j < 0 || !this.known[j]) return false;
      const tl: f64 = k > 0.0 ? k * this.los[j] : k * this.his[j];
      const th: f64 = k > 0.0 ? k * this.his[j] : k * this.los[j];
      lo += tl;
      hi += th;
      if (!exactTerms(tl, th, lo, hi)) return false;
    }
    out.push(lo);
    out.push(hi);
    return true;
  }

  /** True when every variable of `a` has a known bound inside i32 and so has `a`'s value. */
  noWrap(a: Affine): bool {
    for (let i: i32 = 0; i < a.vars.length; i++) {
      if (a.coefs[i] == 0.0) continue;
      const j = this.names.lastIndexOf(a.vars[i]);
      if (j < 0 || !this.known[j] || !fitsI32(this.los[j], this.his[j])) return false;
    }
    const r = new Array<f64>();
    return this.range(a, r) && fitsI32(r[0], r[1]);
  }
}

/** The affine form of a loop bound, or its Tile IR value for a constant non-affine one. A bound
 *  is an i32 expression, which wraps where its exact value leaves i32 (affine forms are exact):
 *  an exact constant outside i32 is taken at its wrapped value, and a form of variables only
 *  where `vb` proves it cannot wrap (null otherwise: the bound is unknown). */
export function boundAffine(e: Expr, env: AffineEnv, doc: Doc, vb: VarBounds): Affine | null {
  const a = affineOf(e, env, 0);
  if (a !== null) {
    const f = changetype<Affine>(a);
    if (f.isConst() ? fitsI32(f.c, f.c) : vb.noWrap(f)) return a;
    if (!f.isConst()) return null;
  }
  const c = evalConstI32(e, doc, 0);
  if (!c.ok) return null;
  const r = new Affine();
  r.c = <f64>c.value;
  return r;
}

/**
 * [lo, hi] of the i32 expression `e` into `out`, or false: an affine form through `vb` (as
 * boundAffine takes it), else add, sub, mul, min, max and neg of such ranges, and div and mod by a
 * divisor whose range is positive (`div` truncates, monotone in each argument: its extremes are at
 * the corners; floor `mod` by b >= 1 lies in [0, b - 1], and is the dividend itself where that
 * lies in [0, b_lo - 1]), each result exact inside i32, so that no operation wraps. A batch and row
 * decoded from one program index (`p / R`, `p % R`) have their bounds this way.
 */
export function exprRange(e: Expr, env: AffineEnv, doc: Doc, vb: VarBounds, out: Array<f64>, depth: i32): bool {
  if (depth > 32) return false;
  const a = boundAffine(e, env, doc, vb);
  if (a !== null) return vb.range(changetype<Affine>(a), out);
  if (e.op == "name") {
    const li = env.letNames.lastIndexOf(e.name);
    return li >= 0 && exprRange(env.letValues[li], env, doc, vb, out, depth + 1);
  }
  const x = new Array<f64>();
  if (e.op == "neg" && e.args.length == 1) {
    if (!exprRange(e.args[0], env, doc, vb, x, depth + 1) || !fitsI32(-x[1], -x[0])) return false;
    out.push(-x[1]);
    out.push(-x[0]);
    return true;
  }
  if (e.args.length != 2) return false;
  const op = e.op;
  if (op != "add" && op != "sub" && op != "mul" && op != "min" && op != "max" && op != "div" && op != "mod") return false;
  const y = new Array<f64>();
  if (!exprRange(e.args[0], env, doc, vb, x, depth + 1) || !exprRange(e.args[1], env, doc, vb, y, depth + 1)) return false;
  let lo: f64 = 0.0;
  let hi: f64 = 0.0;
  if (op == "add") {
    lo = x[0] + y[0];
    hi = x[1] + y[1];
  } else if (op == "sub") {
    lo = x[0] - y[1];
    hi = x[1] - y[0];
  } else if (op == "min") {
    lo = Math.min(x[0], y[0]);
    hi = Math.min(x[1], y[1]);
  } else if (op == "max") {
    lo = Math.max(x[0], y[0]);
    hi = Math.max(x[1], y[1]);
  } else if (op == "mul") {
    const c0: f64 = x[0] * y[0];
    const c1: f64 = x[0] * y[1];
    const c2: f64 = x[1] * y[0];
    const c3: f64 = x[1] * y[1];
    lo = Math.min(Math.min(c0, c1), Math.min(c2, c3));
    hi = Math.max(Math.max(c0, c1), Math.max(c2, c3));
  } else if (op == "div") {
    if (y[0] < 1.0) return false;
    const d0: f64 = Math.trunc(x[0] / y[0]);
    const d1: f64 = Math.trunc(x[0] / y[1]);
    const d2: f64 = Math.trunc(x[1] / y[0]);
    const d3: f64 = Math.trunc(x[1] / y[1]);
    lo = Math.min(Math.min(d0, d1), Math.min(d2, d3));
    hi = Math.max(Math.max(d0, d1), Math.max(d2, d3));
  } else {
    if (y[0] < 1.0) return false;
    if (x[0] >= 0.0 && x[1] < y[0]) {
      lo = x[0];
      hi = x[1];
    } else {
      lo = 0.0;
      hi = x[0] >= 0.0 && x[1] < y[1] - 1.0 ? x[1] : y[1] - 1.0;
    }
  }
  if (!fitsI32(lo, hi)) return false;
  out.push(lo);
  out.push(hi);
  return true;
}

/** [lo, hi] of a loop bound: its affine form's range, else exprRange's. */
function boundRange(e: Expr, env: AffineEnv, doc: Doc, vb: VarBounds, out: Array<f64>): bool {
  const a = boundAffine(e, env, doc, vb);
  if (a !== null) return vb.range(changetype<Affine>(a), out);
  return exprRange(e, env, doc, vb, out, 0);
}

/**
 * Bounds of the variable of loop/reduce `s` (whose step is `stepE`, or 1) and of its end, given
 * the bounds of the enclosing variables: out = [known, lo, hi, endKnown, endLo, endHi,
 * extentKnown, extentHi] as 0/1 and numbers. A loop that may not run still gets sound bounds (its variable is never used).
 */
export function loopBounds(s: Stmt, isReduce: bool, env: AffineEnv, vb: VarBounds, doc: Doc, out: Array<f64>): void {
  let st: Affine | null = null;
  if (isReduce || s.step.op == "none") {
    st = new Affine();
    changetype<Affine>(st).c = 1.0;
  } else st = boundAffine(s.step, env, doc, vb);
  const m = new Array<f64>();
  const x = new Array<f64>();
  const p = new Array<f64>();
  const ok = st !== null && boundRange(s.min, env, doc, vb, m) && boundRange(s.extent, env, doc, vb, x) && vb.range(changetype<Affine>(st), p);
  if (!ok) {
    out.push(0.0); out.push(0.0); out.push(0.0); out.push(0.0); out.push(0.0); out.push(0.0);
    out.push(0.0); out.push(0.0);
    return;
  }
  // values: min + k*step for 0 <= k < extent; end: min + extent*step (extent may be <= 0)
  const xhi: f64 = x[1];
  const plo: f64 = p[0] < 1.0 ? 1.0 : p[0];
  const phi: f64 = p[1] < 1.0 ? 1.0 : p[1];
  const last: f64 = xhi >= 1.0 ? (xhi - 1.0) * phi : 0.0;
  out.push(1.0);
  out.push(m[0]);
  out.push(m[1] + last);
  // the end over every (min, extent, step) in their ranges: extremes at the corners
  const c0: f64 = x[0] * plo;
  const c1: f64 = x[0] * phi;
  const c2: f64 = x[1] * plo;
  const c3: f64 = x[1] * phi;
  const elo: f64 = m[0] + Math.min(Math.min(c0, c1), Math.min(c2, c3));
  const ehi: f64 = m[1] + Math.max(Math.max(c0, c1), Math.max(c2, c3));
  out.push(1.0);
  out.push(elo);
  out.push(ehi);
  // the largest extent (its range's top; a loop's trip count for a unit step)
  out.push(1.0);
  out.push(x[1]);
}

/** Per loop/reduce statement of a document: whether its variable and end fit in i32. */
export class LoopRanges {
  stmts: Array<Stmt> = new Array<Stmt>();
  /** The variable's values and the end bound are known to lie in i32. */
  narrow: Array<bool> = new Array<bool>();
  /** The least minimum and the greatest end (min + extent * step), when known. */
  minLo: Array<f64> = new Array<f64>();
  endHi: Array<f64> = new Array<f64>();
  /** The greatest extent over every program, when known (else -1). */
  extentHi: Array<f64> = new Array<f64>();

  /** True when loop `s`'s variable and end provably fit i32 (false when unknown). */
  fits(s: Stmt): bool {
    const i = this.stmts.indexOf(s);
    return i >= 0 && this.narrow[i];
  }

  /** The greatest extent of `s` over every program where `s` fits, else -1. */
  greatestExtent(s: Stmt): f64 {
    const i = this.stmts.indexOf(s);
    return i >= 0 && this.narrow[i] ? this.extentHi[i] : -1.0;
  }

  /** True when `s` fits and its end plus `margin` (a stripe's overshoot) is still an i32. */
  fitsWith(s: Stmt, margin: f64): bool {
    const i = this.stmts.indexOf(s);
    return i >= 0 && this.narrow[i] && this.endHi[i] + margin <= I32_HI;
  }
}

class RangeWalker {
  doc: Doc;
  env: AffineEnv = new AffineEnv();
  vb: VarBounds = new VarBounds();
  out: LoopRanges = new LoopRanges();

  constructor(doc: Doc) {
    this.doc = doc;
    for (let i: i32 = 0; i < doc.sizeNames.length; i++) {
      this.env.constNames.push(doc.sizeNames[i]);
      this.env.constValues.push(doc.sizeValues[i]);
    }
  }

  loop(s: Stmt, isReduce: bool, name: string, body: Array<Stmt>): void {
    const b = new Array<f64>();
    loopBounds(s, isReduce, this.env, this.vb, this.doc, b);
    this.out.stmts.push(s);
    this.out.narrow.push(b[0] == 1.0 && fitsI32(b[1], b[2]) && b[3] == 1.0 && fitsI32(b[4], b[5]));
    this.out.minLo.push(b[1]);
    this.out.endHi.push(b[5]);
    this.out.extentHi.push(b[6] == 1.0 ? b[7] : -1.0);
    this.vb.push(name, b[0] == 1.0, b[1], b[2]);
    this.env.symbols.push(name);
    this.list(body);
    this.env.symbols.length = this.env.symbols.length - 1;
    this.vb.pop();
  }

  list(list: Array<Stmt>): void {
    const mark = this.env.letNames.length;
    for (let i: i32 = 0; i < list.length; i++) {
      const s = list[i];
      if (s.kind == "for") this.loop(s, false, s.name, s.body);
      else if (s.kind == "reduce") this.loop(s, true, s.axis, new Array<Stmt>());
      else if (s.kind == "let") {
        this.env.letNames.push(s.name);
        this.env.letValues.push(s.value);
      } else if (s.kind == "if") {
        this.list(s.body);
        this.list(s.orelse);
      }
    }
    this.env.letNames.length = mark;
    this.env.letValues.length = mark;
  }
}

/** Loop bounds of the whole document (and of `extra`, a statement list the caller emits, such
 *  as a plan's program loop, when it is not the document's own), one walk each. */
export function loopRanges(doc: Doc, extra: Array<Stmt>): LoopRanges {
  const w = new RangeWalker(doc);
  w.list(doc.body);
  if (extra.length > 0 && (doc.body.length == 0 || extra[0] !== doc.body[0])) w.list(extra);
  return w.out;
}
