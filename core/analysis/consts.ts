// The value of an i32 expression of sizes and literals, with Tile IR's semantics of values
// (tile-ir.md): wrapping add, sub, mul, neg and abs; div truncating toward zero with x div 0 = 0
// and INT_MIN div -1 = INT_MIN; floor mod with x mod 0 = 0. Used for the program loop's bounds,
// whose minimum may be negative or computed (["mod", 7, 4]) and must still be exact.

import { Doc, Expr } from "../ir/ast";

const INT_MIN: i32 = -2147483647 - 1;

/** A constant, when `ok`. */
export class ConstI32 {
  ok: bool = false;
  value: i32 = 0;
}

function done(v: i32): ConstI32 {
  const r = new ConstI32();
  r.ok = true;
  r.value = v;
  return r;
}

function fail(): ConstI32 {
  return new ConstI32();
}

/** Tile IR i32 division: truncating, x / 0 = 0, INT_MIN / -1 = INT_MIN. */
export function tileDiv(a: i32, b: i32): i32 {
  if (b == 0) return 0;
  if (a == INT_MIN && b == -1) return INT_MIN;
  return i32(<f64>a / <f64>b);
}

/** Tile IR i32 floor modulo (sign of b): x mod 0 = 0, INT_MIN mod -1 = 0. */
export function tileMod(a: i32, b: i32): i32 {
  if (b == 0 || b == -1) return 0;
  const q: i32 = i32(<f64>a / <f64>b);
  let m: i32 = i32(<f64>a - <f64>q * <f64>b);
  if (m != 0 && ((m < 0) != (b < 0))) m = i32(<f64>m + <f64>b);
  return m;
}

function wrap(x: f64): i32 {
  // x is an exact integer with |x| < 2^53: reduce modulo 2^32 into the signed range
  let r: f64 = x - Math.floor(x / 4294967296.0) * 4294967296.0;
  if (r >= 2147483648.0) r = r - 4294967296.0;
  return i32(r);
}

function cmp(op: string, a: i32, b: i32): bool {
  if (op == "lt") return a < b;
  if (op == "le") return a <= b;
  if (op == "gt") return a > b;
  if (op == "ge") return a >= b;
  if (op == "eq") return a == b;
  return a != b;
}

/** 1/0 for a bool expression of constants, -1 when not constant. */
function evalBool(e: Expr, doc: Doc, depth: i32): i32 {
  if (depth > 64) return -1;
  const op = e.op;
  if (op == "lt" || op == "le" || op == "gt" || op == "ge" || op == "eq" || op == "ne") {
    if (e.args[0].ty != "i32") return -1;
    const a = evalConstI32(e.args[0], doc, depth + 1);
    const b = evalConstI32(e.args[1], doc, depth + 1);
    if (!a.ok || !b.ok) return -1;
    return cmp(op, a.value, b.value) ? 1 : 0;
  }
  if (op == "not") {
    const a = evalBool(e.args[0], doc, depth + 1);
    return a < 0 ? -1 : 1 - a;
  }
  if (op == "and" || op == "or") {
    const a = evalBool(e.args[0], doc, depth + 1);
    const b = evalBool(e.args[1], doc, depth + 1);
    if (a < 0 || b < 0) return -1;
    if (op == "and") return a == 1 && b == 1 ? 1 : 0;
    return a == 1 || b == 1 ? 1 : 0;
  }
  return -1;
}

/** The value of `e` when it is an i32 expression of literals and sizes only. */
export function evalConstI32(e: Expr, doc: Doc, depth: i32): ConstI32 {
  if (depth > 64) return fail();
  const op = e.op;
  if (op == "int") return done(e.ival);
  if (op == "name") return e.ref == "size" || (e.ref == "" && doc.sizeIndex(e.name) >= 0) ? done(doc.size(e.name)) : fail();
  if (op == "cast") {
    if (e.name != "i32") return fail();
    if (e.args[0].ty == "i32") return evalConstI32(e.args[0], doc, depth + 1);
    if (e.args[0].op != "f32") return fail();
    const x: f64 = e.args[0].fval;
    if (x != x) return done(0);
    const t: f64 = Math.trunc(x);
    if (t <= -2147483648.0) return done(INT_MIN);
    if (t >= 2147483647.0) return done(2147483647);
    return done(i32(t));
  }
  if (op == "select") {
    const c = evalBool(e.args[0], doc, depth + 1);
    if (c < 0) return fail();
    return evalConstI32(e.args[c == 1 ? 1 : 2], doc, depth + 1);
  }
  if (op == "neg" || op == "abs") {
    const a = evalConstI32(e.args[0], doc, depth + 1);
    if (!a.ok) return fail();
    if (op == "abs" && a.value >= 0) return a;
    return done(wrap(-<f64>a.value));
  }
  if (e.args.length != 2) return fail();
  const a = evalConstI32(e.args[0], doc, depth + 1);
  const b = evalConstI32(e.args[1], doc, depth + 1);
  if (!a.ok || !b.ok) return fail();
  const x: f64 = <f64>a.value;
  const y: f64 = <f64>b.value;
  if (op == "add") return done(wrap(x + y));
  if (op == "sub") return done(wrap(x - y));
  if (op == "mul") {
    // exact below 2^53 only: split one operand so every partial product stays exact
    const hi: f64 = Math.floor(y / 65536.0);
    const lo: f64 = y - hi * 65536.0;
    return done(wrap(<f64>wrap(x * hi) * 65536.0 + x * lo));
  }
  if (op == "div") return done(tileDiv(a.value, b.value));
  if (op == "mod") return done(tileMod(a.value, b.value));
  if (op == "min") return done(a.value < b.value ? a.value : b.value);
  if (op == "max") return done(a.value > b.value ? a.value : b.value);
  return fail();
}
