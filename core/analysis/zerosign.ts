// Whether the sign of a zero that a max or min reduce gives can reach anything the kernel
// produces (docs/tile-ir.md, "Signed zeros": max(-0, +0) = +0, min(-0, +0) = -0).
//
// The cooperative stripe of a max/min reduce combines elements with Metal's max/min, which may
// return either zero of -0 and +0, and keeps a sign word beside the partial to give a zero
// partial the sign the semantics give it: one more operation per element (measured on an H200:
// 1-4% of softmax's time, evidence/h200/README.md, run 37). Where no output can depend on that
// sign, the word is left out: the kernel's outputs are the same bits either way.
//
// A forward taint over the document, in program order (names are bound before they are used,
// and scalar names are unique): a value is CLEAN, ZERO (it may differ only as the sign of a zero)
// or ANY (it may differ in any way). The reduce's own name starts ZERO. ZERO passes through
// operations that keep a zero's sign or make a zero whose sign depends on it (neg, add, sub,
// mul, the numerator of div, min, max, select, sqrt, tanh, erf, a sum / max / min reduce of it);
// it is cleared by those that do not see the sign (abs, exp, log, a comparison, a cast to i32);
// it becomes ANY as the divisor of div (1 / -0 = -inf) and under rsqrt. ANY passes through
// everything. The sign is observable where a tainted value is stored (the bits of -0 and +0
// differ), decides an `if`, or bounds a loop or an index.

import { Expr, Stmt } from "../ir/ast";

const CLEAN: i32 = 0;
const ZERO: i32 = 1;
const ANY: i32 = 2;

class Taint {
  /** The reduce whose zero sign is followed: its own statement keeps it ZERO. */
  target: string = "";
  /** Each name's latest level (a map: a document of 2,000 sibling reduces took 30 s to emit
   *  with a scan of every binding per use, once per reduce). */
  levels: Map<string, i32> = new Map<string, i32>();

  of(name: string): i32 {
    return this.levels.has(name) ? <i32>this.levels.get(name) : CLEAN;
  }

  set(name: string, level: i32): void {
    this.levels.set(name, level);
  }
}

function maxLevel(a: i32, b: i32): i32 {
  return a > b ? a : b;
}

function argsLevel(e: Expr, t: Taint): i32 {
  let l: i32 = CLEAN;
  for (let i: i32 = 0; i < e.args.length; i++) l = maxLevel(l, level(e.args[i], t));
  return l;
}

/** ZERO stays ZERO where the operation keeps or makes a sign-dependent zero. */
function level(e: Expr, t: Taint): i32 {
  const op = e.op;
  if (op == "int" || op == "f32" || op == "none") return CLEAN;
  if (op == "name") return t.of(e.name);
  const l = argsLevel(e, t);
  if (l == CLEAN || l == ANY) return l;
  // some operand is ZERO and none is ANY
  if (op == "neg" || op == "add" || op == "sub" || op == "mul" || op == "min" || op == "max" ||
      op == "select" || op == "sqrt" || op == "tanh" || op == "erf" || op == "mod" || op == "load") {
    // (a load indexed by a ZERO value cannot happen: indices are i32, which carry no zero sign)
    return ZERO;
  }
  if (op == "div") return level(e.args[1], t) == ZERO ? ANY : ZERO;
  if (op == "abs" || op == "exp" || op == "log" || op == "lt" || op == "le" || op == "gt" ||
      op == "ge" || op == "eq" || op == "ne") {
    return CLEAN;
  }
  if (op == "cast") return e.name == "i32" ? CLEAN : ZERO;
  if (op == "and" || op == "or" || op == "not") return ZERO;
  // rsqrt(-0) = -inf, and anything not listed here
  return ANY;
}

/** True when a tainted value reaches an output, a condition or a bound in `list`. */
function observable(list: Array<Stmt>, t: Taint): bool {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "let") {
      t.set(s.name, level(s.value, t));
    } else if (s.kind == "reduce") {
      const bounds = maxLevel(level(s.min, t), level(s.extent, t));
      if (bounds != CLEAN) return true;
      t.set(s.name, maxLevel(level(s.value, t), s.name == t.target ? ZERO : CLEAN));
    } else if (s.kind == "store") {
      if (level(s.value, t) != CLEAN) return true;
      for (let j: i32 = 0; j < s.at.length; j++) if (level(s.at[j], t) != CLEAN) return true;
    } else if (s.kind == "if") {
      if (level(s.cond, t) != CLEAN) return true;
      if (observable(s.body, t) || observable(s.orelse, t)) return true;
    } else if (s.kind == "for") {
      if (level(s.min, t) != CLEAN || level(s.extent, t) != CLEAN || level(s.step, t) != CLEAN) return true;
      if (observable(s.body, t)) return true;
    } else {
      return true;
    }
  }
  return false;
}

/** Whether the sign of a zero result of the reduce binding `name` can reach what `body` stores. */
export function zeroSignObservable(body: Array<Stmt>, name: string): bool {
  const t = new Taint();
  t.target = name;
  t.set(name, ZERO);
  return observable(body, t);
}
