// Affine forms of integer index expressions over loop variables: c + sum(k_i * v_i).
// Coefficients are f64 holding exact integers (|x| < 2^53); anything else is "not affine".

import { Expr } from "./ast";

/** The variable lists of every constant form affineOf returns (never pushed into). */
const NO_VARS: Array<string> = new Array<string>();
const NO_COEFS: Array<f64> = new Array<f64>();

/** c + sum(coefs[i] * vars[i]). `new Affine()` has lists of its own, to push into; a constant form
 *  from affineOf (constantForm) shares two empty lists: code that adds terms builds a new Affine
 *  (addScaled) and never pushes into a form it did not make. */
export class Affine {
  vars: Array<string>;
  coefs: Array<f64>;
  c: f64 = 0.0;

  constructor(shared: bool = false) {
    this.vars = shared ? NO_VARS : new Array<string>();
    this.coefs = shared ? NO_COEFS : new Array<f64>();
  }

  coef(v: string): f64 {
    const i = this.vars.indexOf(v);
    return i < 0 ? 0.0 : this.coefs[i];
  }

  isConst(): bool {
    for (let i: i32 = 0; i < this.coefs.length; i++) if (this.coefs[i] != 0.0) return false;
    return true;
  }

  /** Variables with a nonzero coefficient. */
  support(): Array<string> {
    const out = new Array<string>();
    for (let i: i32 = 0; i < this.vars.length; i++) if (this.coefs[i] != 0.0) out.push(this.vars[i]);
    return out;
  }
}

const LIMIT: f64 = 4503599627370496.0; // 2^52: beyond this, give up rather than lose exactness

function inRange(x: f64): bool {
  return x < LIMIT && x > -LIMIT;
}

/** Whether four values (a range's two new terms and its two running bounds) are all integers f64
 *  holds exactly with room for one more sum: a range [lo, hi] of c + sum k * [lo_v, hi_v] built
 *  term by term must give up (unknown) where a product or a partial sum passes 2^52, as
 *  addScaled does, or a rounded term can bring a wrong bound back into range. */
export function exactTerms(a: f64, b: f64, lo: f64, hi: f64): bool {
  return inRange(a) && inRange(b) && inRange(lo) && inRange(hi);
}

/** a + k * b, or null where a coefficient or the constant leaves the exact range. */
export function addScaled(a: Affine, b: Affine, k: f64): Affine | null {
  const r = new Affine();
  for (let i: i32 = 0; i < a.vars.length; i++) {
    r.vars.push(a.vars[i]);
    r.coefs.push(a.coefs[i]);
  }
  // every product is checked before it is added: an f64 product past 2^52 may have been rounded
  // (1073741825^2 comes out as 1073741824 * 1073741826), and a sum of rounded terms can land back
  // in range with the wrong value
  const kc: f64 = k * b.c;
  if (!inRange(kc)) return null;
  r.c = a.c + kc;
  if (!inRange(r.c)) return null;
  for (let i: i32 = 0; i < b.vars.length; i++) {
    const j = r.vars.indexOf(b.vars[i]);
    const add: f64 = k * b.coefs[i];
    if (!inRange(add)) return null;
    if (j < 0) {
      r.vars.push(b.vars[i]);
      r.coefs.push(add);
    } else {
      r.coefs[j] = r.coefs[j] + add;
      if (!inRange(r.coefs[j])) return null;
    }
  }
  return r;
}

/** k * a: addScaled(0, a, k) without the zero form (a form's variables are distinct, so each
 *  term is scaled in place of being merged). */
function scale(a: Affine, k: f64): Affine | null {
  const r = new Affine();
  const kc: f64 = k * a.c;
  if (!inRange(kc)) return null;
  r.c = 0.0 + kc; // as addScaled: 0 + -0 is 0
  for (let i: i32 = 0; i < a.vars.length; i++) {
    const add: f64 = k * a.coefs[i];
    if (!inRange(add)) return null;
    r.vars.push(a.vars[i]);
    r.coefs.push(add);
  }
  return r;
}

/** The constant form c (shared empty lists: never pushed into). */
function constantForm(c: f64): Affine {
  const a = new Affine(true);
  a.c = c;
  return a;
}

/** How names are resolved while building affine forms. */
export class AffineEnv {
  /** Names that are loop or axis variables (symbols). */
  symbols: Array<string> = new Array<string>();
  /** Names with a known constant value (sizes). */
  constNames: Array<string> = new Array<string>();
  constValues: Array<i32> = new Array<i32>();
  /** Scalars bound by let to an expression that may itself be affine. */
  letNames: Array<string> = new Array<string>();
  letValues: Array<Expr> = new Array<Expr>();
}

/**
 * The affine form of `e`, or null when `e` is not affine in the environment's symbols. A let's
 * form is computed once per call (`LetMemo`): a chain of lets that each name the one before
 * several times (`i2 = i1 + i1 - i1`) would otherwise be expanded once per path, 3^n times
 * (red team, session 33: 14 such lets took 9 s and 2 GB, and the WebAssembly core trapped).
 */
export function affineOf(e: Expr, env: AffineEnv, depth: i32): Affine | null {
  // a memo of its own per call where there are lets (a module-level one would be module data that
  // a request mutates, which the WebAssembly arena forbids); without lets it is never touched
  return affineIn(e, env, depth, env.letNames.length > 0 ? new LetMemo() : NO_LETS);
}

/** Per call of affineOf: each let's form (by its index in the environment), once computed. */
class LetMemo {
  done: Array<bool> = new Array<bool>();
  forms: Array<Affine | null> = new Array<Affine | null>();
}

/** Passed where the environment has no lets: affineIn returns before it reads or writes it. */
const NO_LETS: LetMemo = new LetMemo();

function affineIn(e: Expr, env: AffineEnv, depth: i32, memo: LetMemo): Affine | null {
  if (depth > 64) return null;
  if (e.op == "int") return constantForm(<f64>e.ival);
  if (e.op == "name") {
    if (env.symbols.indexOf(e.name) >= 0) {
      const a = new Affine();
      a.vars.push(e.name);
      a.coefs.push(1.0);
      return a;
    }
    const ci = env.constNames.indexOf(e.name);
    if (ci >= 0) return constantForm(<f64>env.constValues[ci]);
    const li = env.letNames.lastIndexOf(e.name);
    if (li < 0) return null;
    if (memo.done.length == 0) {
      for (let i: i32 = 0; i < env.letNames.length; i++) {
        memo.done.push(false);
        memo.forms.push(null);
      }
    }
    if (memo.done[li]) return memo.forms[li];
    const f = affineIn(env.letValues[li], env, depth + 1, memo);
    memo.done[li] = true;
    memo.forms[li] = f;
    return f;
  }
  if (e.op == "add" || e.op == "sub") {
    const a = affineIn(e.args[0], env, depth + 1, memo);
    const b = affineIn(e.args[1], env, depth + 1, memo);
    if (a === null || b === null) return null;
    return addScaled(changetype<Affine>(a), changetype<Affine>(b), e.op == "add" ? 1.0 : -1.0);
  }
  if (e.op == "neg") {
    const a = affineIn(e.args[0], env, depth + 1, memo);
    if (a === null) return null;
    return scale(changetype<Affine>(a), -1.0);
  }
  if (e.op == "mul") {
    const a = affineIn(e.args[0], env, depth + 1, memo);
    const b = affineIn(e.args[1], env, depth + 1, memo);
    if (a === null || b === null) return null;
    const aa = changetype<Affine>(a);
    const bb = changetype<Affine>(b);
    if (aa.isConst()) return scale(bb, aa.c);
    if (bb.isConst()) return scale(aa, bb.c);
    return null;
  }
  return null;
}
