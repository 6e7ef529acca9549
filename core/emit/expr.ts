// Tile IR expressions -> MSL expressions. The operator mapping is a table; constants are folded
// only where the folded value is exactly what the device would compute (i32 arithmetic with the
// IR's wrapping semantics, casts, correctly rounded f32 + - * /, sizes); transcendental
// functions never. Where Metal's operator differs from the IR's semantics (f32 min/max and NaN,
// i32 overflow, division by zero, f32 -> i32 casts) the expression calls a helper (helpers.ts).

import { Expr } from "../ir/ast";
import { formatF32, formatI32 } from "../util/num";
import { Ctx } from "./context";
import { castF32ToI32, i32Binary, i32Unary } from "../ir/fold";
import { I32_LO, Range, exactBinary, rangeOf } from "./ranges";
import { keptSlot } from "./reuse";
import { stripeDim } from "../analysis/stripe";

// ---------------------------------------------------------------------------------------------
// The operator table: IR op -> form and spelling ("infix": a OP b, "prefix": OP a, "call":
// NAME(a, ...); the i32 spelling differs from the f32 one for abs and mod).

const OP_NAMES: Array<string> = [
  "add", "sub", "mul", "div", "mod", "min", "max", "neg", "abs",
  "exp", "log", "sqrt", "rsqrt", "tanh", "erf",
  "lt", "le", "gt", "ge", "eq", "ne", "and", "or", "not",
];
const OP_FORMS: Array<string> = [
  "infix", "infix", "infix", "infix", "call", "call", "call", "prefix", "call",
  "call", "call", "call", "call", "call", "call",
  "infix", "infix", "infix", "infix", "infix", "infix", "infix", "infix", "prefix",
];
const OP_F32: Array<string> = [
  "+", "-", "*", "/", "tile_mod", "min", "max", "-", "fabs",
  "precise::exp", "precise::log", "precise::sqrt", "precise::rsqrt", "precise::tanh", "tile_erf",
  "<", "<=", ">", ">=", "==", "!=", "&&", "||", "!",
];
const OP_I32: Array<string> = [
  "+", "-", "*", "/", "tile_mod", "min", "max", "-", "abs",
  "", "", "", "", "", "",
  "<", "<=", ">", ">=", "==", "!=", "&&", "||", "!",
];

/** An emitted expression: its text, and its value when it is a compile-time constant. */
export class Val {
  text: string;
  /** `text` is "(" + inner + ")" and `inner` may stand alone (assignment, condition). */
  inner: string;
  known: bool = false;
  ival: i32 = 0;
  fval: f64 = 0.0;

  constructor(text: string, inner: string) {
    this.text = text;
    this.inner = inner;
  }
}

const I32_MIN: f64 = -2147483648.0;
const I32_MAX: f64 = 2147483647.0;

export function mslType(ty: string): string {
  if (ty == "f32") return "float";
  if (ty == "i32") return "int";
  if (ty == "f16") return "half";
  if (ty == "bf16") return "bfloat";
  return "bool";
}

/** True for the 16-bit float dtypes: stored as half or bfloat, computed on as float. */
export function isNarrowFloat(dtype: string): bool {
  return dtype == "f16" || dtype == "bf16";
}

/** The element `buffer[index]` itself (an lvalue, in the buffer's own type). */
export function elementRef(e: Expr, cx: Ctx): string {
  return cx.names.buf(e.name) + "[" + indexText(e.name, e.args, cx) + "]";
}

/** `buffer[at] = value;` with the value rounded to a 16-bit float buffer's type (nearest even). */
export function storeText(buffer: string, at: Array<Expr>, value: string, cx: Ctx): string {
  const dtype = cx.doc.params[cx.doc.paramIndex(buffer)].dtype;
  const v = isNarrowFloat(dtype) ? mslType(dtype) + "(" + value + ")" : value;
  return cx.names.buf(buffer) + "[" + indexText(buffer, at, cx) + "] = " + v + ";";
}

/** An i32 as an MSL integer literal (negative values parenthesized). */
export function intText(v: i32): string {
  if (v == -2147483647 - 1) return "(-2147483647 - 1)";
  if (v < 0) return "(" + formatI32(v) + ")";
  return formatI32(v);
}

/** An f32 (widened) as an MSL float literal that parses back to the same bits: "1.0f", "0.1f". */
export function floatText(v: f64): string {
  const s: string = formatF32(v);
  if (s == "NaN") return "NAN";
  if (s == "Infinity") return "INFINITY";
  if (s == "-Infinity") return "(-INFINITY)";
  let t: string = s;
  if (s.indexOf(".") < 0 && s.indexOf("e") < 0) t = s + ".0";
  else if (s.indexOf(".") < 0) {
    // "1e-7" -> "1.0e-7": C accepts both; keep the mantissa readable as a float
    const e: i32 = s.indexOf("e");
    t = s.substring(0, e) + ".0" + s.substring(e);
  }
  t = t + "f";
  return s.charCodeAt(0) == 45 ? "(" + t + ")" : t;
}

export function intVal(v: i32): Val {
  const t = intText(v);
  const r = new Val(t, t);
  r.known = true;
  r.ival = v;
  return r;
}

function floatVal(v: f64): Val {
  const t = floatText(v);
  const r = new Val(t, t);
  r.known = true;
  r.fval = v;
  return r;
}

function plain(t: string): Val {
  return new Val(t, t);
}

function wrapped(inner: string): Val {
  return new Val("(" + inner + ")", inner);
}

function isFinite32(x: f64): bool {
  return x == x && x < 3.4028234663852886e38 && x > -3.4028234663852886e38;
}

function inI32(x: f64): bool {
  return x >= I32_MIN && x <= I32_MAX;
}

/** Folds an i32 operation of two constants, with the IR's semantics (wrapping, x div 0 = 0). */
function foldI32(op: string, a: i32, b: i32): Val | null {
  if (op == "add" || op == "sub" || op == "mul" || op == "div" || op == "mod" || op == "min" || op == "max") {
    return intVal(i32Binary(op, a, b));
  }
  return null;
}

/** Folds f32 + - * / of two constants (f64 then one rounding: correctly rounded). */
function foldF32(op: string, a: f64, b: f64): Val | null {
  let x: f64 = 0.0;
  if (op == "add") x = a + b;
  else if (op == "sub") x = a - b;
  else if (op == "mul") x = a * b;
  else if (op == "div") {
    if (b == 0.0) return null;
    x = a / b;
  } else return null;
  const r: f64 = <f64>f32(x);
  return isFinite32(r) ? floatVal(r) : null;
}

/** The flattened (row-major, constant strides) element index of a load or store. */
export function indexText(buffer: string, at: Array<Expr>, cx: Ctx): string {
  const pi = cx.doc.paramIndex(buffer);
  if (cx.doc.elementCount(pi) > I32_MAX) return wideIndexText(pi, at, cx);
  const terms = new Array<string>();
  let c: f64 = 0.0;
  let stride: f64 = 1.0;
  const strides = new Array<f64>();
  for (let d: i32 = at.length - 1; d >= 0; d--) {
    strides.unshift(stride);
    stride = stride * <f64>cx.doc.dim(pi, d);
  }
  for (let d: i32 = 0; d < at.length; d++) {
    const v = emitExpr(at[d], cx);
    const s: f64 = strides[d];
    if (v.known) {
      c = c + <f64>v.ival * s;
    } else if (s == 1.0) {
      terms.push(v.text);
    } else {
      terms.push(v.text + " * " + formatI32(i32(s)));
    }
  }
  if (!inI32(c)) c = 0.0; // not reachable for checked in-bounds accesses
  if (terms.length == 0) return formatI32(i32(c));
  let t: string = terms.join(" + ");
  if (c > 0.0) t = t + " + " + formatI32(i32(c));
  else if (c < 0.0) t = t + " - " + formatI32(i32(-c));
  return t;
}

/**
 * The flattened index of a buffer of 2^31 elements or more: every term in 64-bit (`long`), so
 * the offset is exact (tile-ir.md: flattened offsets cannot overflow). Strides are written as
 * products of the dimensions, each a 32-bit literal.
 */
function wideIndexText(pi: i32, at: Array<Expr>, cx: Ctx): string {
  const terms = new Array<string>();
  for (let d: i32 = 0; d < at.length; d++) {
    const v = emitExpr(at[d], cx);
    let t: string = "long(" + v.inner + ")";
    for (let q: i32 = d + 1; q < at.length; q++) t = t + " * " + formatI32(cx.doc.dim(pi, q));
    terms.push(t);
  }
  return terms.join(" + ");
}

/** The packed vector type of a buffer's element type (4 elements, the element's alignment). */
export function packedType(dtype: string): string {
  if (dtype == "i32") return "packed_int4";
  if (dtype == "f16") return "packed_half4";
  if (dtype == "bf16") return "packed_bfloat4";
  return "packed_float4";
}


/** The register-cache slot text for a load, or "" when the load is not served from a cache. */
export function cacheSlot(e: Expr, cx: Ctx): string {
  if (cx.stripeVar == "" || e.args.length == 0) return "";
  const ci = cx.cacheBufs.indexOf(e.name);
  if (ci < 0 || !cx.cacheFilled[ci]) return "";
  if (cx.cacheMin[ci] != cx.stripeMin || cx.cacheExt[ci] != cx.stripeExt) return "";
  if (stripeDim(e, cx.stripeVar) != cx.cacheDim[ci]) return "";
  return "cache_" + cx.names.buf(e.name) + "[" + cx.cacheIndex + "]";
}

/** A load's value: a 16-bit float element converts to float (exactly). */
export function emitLoad(e: Expr, cx: Ctx): string {
  if (isNarrowFloat(cx.doc.params[cx.doc.paramIndex(e.name)].dtype)) return "float(" + elementRef(e, cx) + ")";
  return elementRef(e, cx);
}

/**
 * The helper a binary operation needs instead of Metal's operator, or "": f32 min/max (NaN),
 * i32 add/sub/mul whose exact result may leave the i32 range (wrap), i32 div whose divisor may
 * be 0 or -1 with a dividend that may be INT_MIN, i32 mod (floor modulo, never traps).
 */
function helperFor(e: Expr, cx: Ctx): string {
  const op = e.op;
  if (e.ty == "f32") {
    if (op == "min") return "tile_min";
    if (op == "max") return "tile_max";
    return "";
  }
  if (e.ty != "i32") return "";
  if (op == "mod") return "tile_mod";
  if (op == "add" || op == "sub" || op == "mul") {
    const x = exactBinary(op, rangeOf(e.args[0], cx.doc, cx.ranges), rangeOf(e.args[1], cx.doc, cx.ranges));
    return x === null ? "tile_" + op + "_wrap" : "";
  }
  if (op == "div") {
    const a: Range = rangeOf(e.args[0], cx.doc, cx.ranges);
    const b: Range = rangeOf(e.args[1], cx.doc, cx.ranges);
    const zero: bool = b.lo <= 0.0 && b.hi >= 0.0;
    const minusOne: bool = b.lo <= -1.0 && b.hi >= -1.0 && a.lo <= I32_LO;
    return zero || minusOne ? "tile_div" : "";
  }
  return "";
}

/** Emits `e` (folding constants); the text is an atom or fully parenthesized. */
export function emitExpr(e: Expr, cx: Ctx): Val {
  const op = e.op;
  if (op == "int") return intVal(e.ival);
  if (op == "f32") return floatVal(e.fval);
  if (op == "name") {
    if (e.ref == "size") return intVal(cx.doc.size(e.name));
    if (cx.overrideName != "" && e.name == cx.overrideName) return plain(cx.overrideText);
    return plain(cx.names.of(e.name));
  }
  if (op == "load") {
    const slot = cacheSlot(e, cx);
    if (slot != "") return plain(slot);
    const pk = cx.packLoads.indexOf(e);
    if (pk >= 0) {
      // a lane of a packed load; a 16-bit float lane converts to float (exactly)
      const lane = cx.packLoadVars[pk] + "[j]";
      return plain(isNarrowFloat(cx.doc.params[cx.doc.paramIndex(e.name)].dtype) ? "float(" + lane + ")" : lane);
    }
    return plain(emitLoad(e, cx));
  }
  if (cx.keepStmt.length > 0 && cx.stripeVar != "") {
    const kept = keptSlot(e, cx);
    if (kept != "") return plain(kept);
  }
  if (op == "select") {
    const c = emitExpr(e.args[0], cx);
    const a = emitExpr(e.args[1], cx);
    const b = emitExpr(e.args[2], cx);
    return wrapped(c.text + " ? " + a.text + " : " + b.text);
  }
  if (op == "cast") {
    const a = emitExpr(e.args[0], cx);
    const from = e.args[0].ty;
    if (e.name == from) return a;
    // bool -> 0 or 1
    if (from == "bool") return plain((e.name == "f32" ? "float(" : "int(") + a.inner + ")");
    if (a.known && e.name == "f32") return floatVal(<f64>f32(<f64>a.ival));
    if (a.known && e.name == "i32") return intVal(castF32ToI32(a.fval));
    if (e.name == "f32") return plain("float(" + a.inner + ")");
    // f32 -> i32 saturates and maps NaN to 0; int(x) is undefined outside the i32 range
    cx.use("tile_f32_to_i32");
    return plain("tile_f32_to_i32(" + a.inner + ")");
  }
  const k = OP_NAMES.indexOf(op);
  if (k < 0) return plain("0 /* unknown operator " + op + " */");
  const isInt: bool = e.ty == "i32" || (e.args.length > 0 && e.args[0].ty == "i32");
  const spell: string = isInt ? OP_I32[k] : OP_F32[k];
  const form: string = OP_FORMS[k];
  if (e.args.length == 1) {
    const a = emitExpr(e.args[0], cx);
    if ((op == "neg" || op == "abs") && a.known && isInt) return intVal(i32Unary(op, a.ival));
    if (op == "neg" && a.known && e.ty == "f32") return floatVal(-a.fval);
    if ((op == "neg" || op == "abs") && isInt && rangeOf(e.args[0], cx.doc, cx.ranges).lo <= I32_LO) {
      // -INT_MIN overflows: wrap on uint (abs(INT_MIN) = INT_MIN)
      const h = op == "neg" ? "tile_neg_wrap" : "tile_abs_wrap";
      cx.use(h);
      return plain(h + "(" + a.inner + ")");
    }
    if (op == "erf") cx.use("tile_erf");
    if (form == "prefix") return wrapped(spell + a.text);
    return plain(spell + "(" + a.inner + ")");
  }
  const a = emitExpr(e.args[0], cx);
  const b = emitExpr(e.args[1], cx);
  if (a.known && b.known && e.ty == "i32") {
    const f = foldI32(op, a.ival, b.ival);
    if (f !== null) return changetype<Val>(f);
  }
  if (a.known && b.known && e.ty == "f32") {
    const f = foldF32(op, a.fval, b.fval);
    if (f !== null) return changetype<Val>(f);
  }
  const helper = helperFor(e, cx);
  if (helper != "") {
    cx.use(helper);
    return plain(helper + "(" + a.inner + ", " + b.inner + ")");
  }
  if (form == "infix") return wrapped(a.text + " " + spell + " " + b.text);
  return plain(spell + "(" + a.inner + ", " + b.inner + ")");
}
