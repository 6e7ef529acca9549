// Value ranges of i32 names for the emitter: an i32 add, sub, mul or neg whose operands' ranges
// keep the exact result inside the i32 range is written as the plain operator (index arithmetic
// such as `r * 1537 + c`); anything else goes through a wrapping helper (helpers.ts). Ranges are
// sound over-approximations: a loop or axis variable gets [min.lo, min.hi + (extent.hi - 1) *
// step.hi], a `let` its value's range, everything else (loads, reduce results, casts) the whole
// i32 range. A name that is bound in several places gets the union of its ranges.

import { Doc, Expr, Stmt } from "../ir/ast";

export const I32_LO: f64 = -2147483648.0;
export const I32_HI: f64 = 2147483647.0;

export class Ranges {
  names: Array<string> = new Array<string>();
  lo: Array<f64> = new Array<f64>();
  hi: Array<f64> = new Array<f64>();
  changed: bool = false;

  lookup(name: string): i32 {
    return this.names.indexOf(name);
  }

  widen(name: string, lo: f64, hi: f64): void {
    let l: f64 = lo < I32_LO ? I32_LO : lo;
    let h: f64 = hi > I32_HI ? I32_HI : hi;
    if (l > h) {
      l = I32_LO;
      h = I32_HI;
    }
    const k = this.lookup(name);
    if (k < 0) {
      this.names.push(name);
      this.lo.push(l);
      this.hi.push(h);
      this.changed = true;
      return;
    }
    if (l < this.lo[k]) {
      this.lo[k] = l;
      this.changed = true;
    }
    if (h > this.hi[k]) {
      this.hi[k] = h;
      this.changed = true;
    }
  }

  setFull(): void {
    for (let i: i32 = 0; i < this.names.length; i++) {
      this.lo[i] = I32_LO;
      this.hi[i] = I32_HI;
    }
  }
}

/** A range [lo, hi] of an expression; `lo > hi` never happens. */
export class Range {
  lo: f64;
  hi: f64;
  constructor(lo: f64, hi: f64) {
    this.lo = lo;
    this.hi = hi;
  }
}

function full(): Range {
  return new Range(I32_LO, I32_HI);
}

function fits(lo: f64, hi: f64): bool {
  return lo >= I32_LO && hi <= I32_HI;
}

function lower4(a: f64, b: f64, c: f64, d: f64): f64 {
  return Math.min(Math.min(a, b), Math.min(c, d));
}

function upper4(a: f64, b: f64, c: f64, d: f64): f64 {
  return Math.max(Math.max(a, b), Math.max(c, d));
}

/** The range of the exact result of `op` on ranges a and b, or null when it may leave i32. */
export function exactBinary(op: string, a: Range, b: Range): Range | null {
  let lo: f64 = 0.0;
  let hi: f64 = 0.0;
  if (op == "add") {
    lo = a.lo + b.lo;
    hi = a.hi + b.hi;
  } else if (op == "sub") {
    lo = a.lo - b.hi;
    hi = a.hi - b.lo;
  } else if (op == "mul") {
    lo = lower4(a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi);
    hi = upper4(a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi);
  } else {
    return null;
  }
  return fits(lo, hi) ? new Range(lo, hi) : null;
}

/** The range of an i32 expression (for bool and f32 expressions: the full range, unused). */
export function rangeOf(e: Expr, doc: Doc, r: Ranges): Range {
  const op = e.op;
  if (op == "int") return new Range(<f64>e.ival, <f64>e.ival);
  if (op == "name") {
    if (e.ref == "size") {
      const v: f64 = <f64>doc.size(e.name);
      return new Range(v, v);
    }
    const k = r.lookup(e.name);
    if (k < 0) return full();
    return new Range(r.lo[k], r.hi[k]);
  }
  if (e.ty != "i32") return full();
  if (op == "add" || op == "sub" || op == "mul") {
    const x = exactBinary(op, rangeOf(e.args[0], doc, r), rangeOf(e.args[1], doc, r));
    return x === null ? full() : changetype<Range>(x);
  }
  if (op == "min" || op == "max") {
    const a = rangeOf(e.args[0], doc, r);
    const b = rangeOf(e.args[1], doc, r);
    if (op == "min") return new Range(Math.min(a.lo, b.lo), Math.min(a.hi, b.hi));
    return new Range(Math.max(a.lo, b.lo), Math.max(a.hi, b.hi));
  }
  if (op == "mod") {
    // floor modulo: |result| < |b| (0 for b = 0)
    const b = rangeOf(e.args[1], doc, r);
    const m: f64 = Math.max(Math.abs(b.lo), Math.abs(b.hi));
    return m < 1.0 ? new Range(0.0, 0.0) : new Range(1.0 - m, m - 1.0);
  }
  if (op == "div") {
    // |a div b| <= |a|, except INT_MIN div -1 = INT_MIN (inside the full range anyway)
    const a = rangeOf(e.args[0], doc, r);
    if (a.lo <= I32_LO) return full();
    const m: f64 = Math.max(Math.abs(a.lo), Math.abs(a.hi));
    return new Range(-m, m);
  }
  if (op == "neg") {
    const a = rangeOf(e.args[0], doc, r);
    return a.lo > I32_LO ? new Range(-a.hi, -a.lo) : full();
  }
  if (op == "abs") {
    const a = rangeOf(e.args[0], doc, r);
    if (a.lo <= I32_LO) return full();
    if (a.lo >= 0.0) return a;
    if (a.hi <= 0.0) return new Range(-a.hi, -a.lo);
    return new Range(0.0, Math.max(-a.lo, a.hi));
  }
  if (op == "select") {
    const a = rangeOf(e.args[1], doc, r);
    const b = rangeOf(e.args[2], doc, r);
    return new Range(Math.min(a.lo, b.lo), Math.max(a.hi, b.hi));
  }
  return full();
}

function walk(list: Array<Stmt>, doc: Doc, r: Ranges): void {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "for" || s.kind == "reduce") {
      const mn = rangeOf(s.min, doc, r);
      const ex = rangeOf(s.extent, doc, r);
      const st = s.kind == "for" ? rangeOf(s.step, doc, r) : new Range(1.0, 1.0);
      const v = s.kind == "for" ? s.name : s.axis;
      if (st.lo < 1.0) r.widen(v, I32_LO, I32_HI);
      else r.widen(v, mn.lo, ex.hi <= 1.0 ? mn.hi : mn.hi + (ex.hi - 1.0) * st.hi);
    }
    if (s.kind == "let" && s.value.ty == "i32") {
      const x = rangeOf(s.value, doc, r);
      r.widen(s.name, x.lo, x.hi);
    }
    if (s.kind == "for" || s.kind == "if") {
      walk(s.body, doc, r);
      walk(s.orelse, doc, r);
    }
  }
}

/** The ranges of every loop variable, axis and i32 `let` of `doc`. */
export function rangesFor(doc: Doc): Ranges {
  const r = new Ranges();
  // a name bound in several places may be read where only some of its ranges were known yet:
  // walk until nothing widens (each pass only widens; give up to the full range after a few)
  for (let pass: i32 = 0; pass < 8; pass++) {
    r.changed = false;
    walk(doc.body, doc, r);
    if (!r.changed) return r;
  }
  r.setFull();
  return r;
}
