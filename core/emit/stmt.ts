// Statements executed by one thread as written: lets, stores, ifs, serial loops and serial
// reductions. Shared by all three realizations (the serial program's body, the fused grid's
// body, a cooperative worker's per-element body and its worker-0 sections). In the fused grid,
// a parallel loop binds its variable from the thread's coordinate at its depth instead.

import { Stmt } from "../ir/ast";
import { formatI32 } from "../util/num";
import { Ctx } from "./context";
import { Val, emitExpr, indexText, intText, isNarrowFloat, mslType, storeText } from "./expr";
import { emitGridVector } from "./vector";

/** Identity of a combiner for a type, as MSL text. */
export function identityText(combiner: string, ty: string): string {
  if (ty == "i32") {
    // literals rather than INT_MIN / INT_MAX: no reliance on which limit macros a toolchain defines
    if (combiner == "max") return "(-2147483647 - 1)";
    if (combiner == "min") return "2147483647";
    return "0";
  }
  if (combiner == "max") return "-INFINITY";
  if (combiner == "min") return "INFINITY";
  return "0.0f";
}

/**
 * `a` combined with `b` for a reduce of type `ty` (b's text is an atom or parenthesized; a is an
 * identifier): f32 max/min propagate NaN (tile_max, tile_min), i32 sums wrap (tile_add_wrap).
 */
export function combineText(combiner: string, ty: string, a: string, b: Val, cx: Ctx): string {
  if (combiner == "max" || combiner == "min") {
    if (ty == "i32") return combiner + "(" + a + ", " + b.inner + ")";
    cx.use("tile_" + combiner);
    return "tile_" + combiner + "(" + a + ", " + b.inner + ")";
  }
  if (ty == "i32") {
    cx.use("tile_add_wrap");
    return "tile_add_wrap(" + a + ", " + b.inner + ")";
  }
  return a + " + " + b.text;
}

/**
 * An f32 max/min reduce whose per-worker partial defers the NaN test: each element is combined
 * with Metal's max/min (which returns the other operand of a NaN), and the largest
 * `bits & 0x7fffffff` seen is kept beside it; once after the stripe, a flag above 0x7f800000 (some
 * element was NaN) makes the partial NaN; a sign word (zeroSignName) gives a zero partial the
 * sign that -0 < +0 gives it. The result is the one tile_max/tile_min gives (the SIMD step turns
 * any NaN partial into NAN), at four operations per element instead of eight (the NaN flag
 * measured on an H200: evidence/h200/README.md, run 12).
 */
export function defersNan(combiner: string, ty: string): bool {
  return (combiner == "max" || combiner == "min") && ty == "f32";
}

/** The flag beside accumulator `acc` ("acc_m" -> "tile_nan_m"; "tile_" names are never IR names). */
export function nanFlagName(acc: string): string {
  return "tile_nan" + acc.substring(3);
}

/**
 * The sign word beside a deferred max/min accumulator ("acc_m" -> "tile_zs_m"): Metal's max and
 * min may return either zero of -0 and +0, so the sign of a zero partial is taken from the
 * elements. A max partial that is zero is +0 where some element had its sign bit clear (the AND
 * of the bits: every other element is negative, -0 or NaN); a min partial that is zero is -0
 * where some element had it set (the OR). A NaN element makes the partial NaN anyway.
 */
export function zeroSignName(acc: string): string {
  return "tile_zs" + acc.substring(3);
}

/** The declaration of `acc`'s sign word (the AND's identity for max, the OR's for min). */
export function zeroSignDecl(combiner: string, acc: string): string {
  return "uint " + zeroSignName(acc) + " = " + (combiner == "max" ? "0xffffffffu" : "0u") + ";";
}

/** After the stripe: a zero partial takes the sign the elements give it. */
export function zeroSignFix(acc: string): string {
  return "if (" + acc + " == 0.0f) { " + acc + " = as_type<float>(" + zeroSignName(acc) + " & 0x80000000u); }";
}

/** One element `b` into a per-worker partial `acc` of reduce `r`, as statements. */
export function stripeCombine(r: Stmt, acc: string, b: Val, cx: Ctx): void {
  const ty = r.value.ty;
  const defer = defersNan(r.combiner, ty);
  if (!defer && cx.keepInto == "") {
    cx.line(acc + " = " + combineText(r.combiner, ty, acc, b, cx) + ";");
    return;
  }
  const e = freshName("e", cx);
  cx.open("{");
  cx.line("const float " + e + " = " + b.inner + ";");
  // kept for the later stages that compute the same value (reuse.ts)
  if (cx.keepInto != "") cx.line(cx.keepInto + "[" + cx.cacheIndex + "] = " + e + ";");
  if (defer) {
    const flag = nanFlagName(acc);
    cx.line(acc + " = " + r.combiner + "(" + acc + ", " + e + ");");
    cx.line(flag + " = max(" + flag + ", as_type<uint>(" + e + ") & 0x7fffffffu);");
    if (cx.zeroSign) cx.line(zeroSignName(acc) + (r.combiner == "max" ? " &= " : " |= ") + "as_type<uint>(" + e + ");");
  } else {
    cx.line(acc + " = " + combineText(r.combiner, ty, acc, new Val(e, e), cx) + ";");
  }
  cx.close("}");
}

/** The SIMD collective for a combiner (f32 max/min: the NaN-propagating helpers). */
export function simdText(combiner: string, ty: string, cx: Ctx): string {
  if (combiner == "sum") return "simd_sum";
  if (ty == "i32") return "simd_" + combiner;
  cx.use("tile_simd_" + combiner);
  return "tile_simd_" + combiner;
}

/** `min + extent * step` folded when every part is constant and the result is an i32. */
export function endText(minV: Val, extV: Val, stepV: Val): string {
  if (minV.known && extV.known && stepV.known) {
    const x: f64 = <f64>minV.ival + <f64>extV.ival * <f64>stepV.ival;
    if (x >= -2147483648.0 && x <= 2147483647.0) return intText(i32(x));
  }
  let span: string = extV.text;
  if (!(stepV.known && stepV.ival == 1)) span = extV.text + " * " + stepV.text;
  if (minV.known && minV.ival == 0) return span;
  return minV.text + " + " + span;
}

export function emitStore(s: Stmt, cx: Ctx): void {
  const v = emitExpr(s.value, cx);
  const pk = cx.packStores.indexOf(s);
  if (pk >= 0) {
    // a packed store: element j of the vector, written Q-wide after the loop (core/emit/vector.ts)
    const dtype = cx.doc.params[cx.doc.paramIndex(s.name)].dtype;
    cx.line(cx.packStoreVars[pk] + "[j] = " + (isNarrowFloat(dtype) ? mslType(dtype) + "(" + v.inner + ")" : v.inner) + ";");
    return;
  }
  const st = storeText(s.name, s.at, v.inner, cx);
  if (cx.liveStores) cx.line("if (live) { " + st + " }");
  else cx.line(st);
}

/** A fresh generated name (the "tile_" prefix is reserved from IR names). */
export function freshName(stem: string, cx: Ctx): string {
  const n = "tile_" + stem + num(cx.serial);
  cx.serial = cx.serial + 1;
  return n;
}

/**
 * A loop whose variable or end `min + extent * step` may leave i32 (tile-ir.md: loop bounds are
 * exact): a 64-bit counter, compared with a 64-bit end, binding the i32 variable per iteration.
 */
function emitWideFor(v: string, minV: Val, extV: Val, stepV: Val, body: Array<Stmt>, reduceAcc: string, reduce: Stmt | null, cx: Ctx): void {
  const ctr = freshName("i", cx);
  const end = "long(" + minV.inner + ") + long(" + extV.inner + ") * long(" + stepV.inner + ")";
  cx.line("// 64-bit counter: the loop's end may not fit in 32 bits");
  cx.open("for (long " + ctr + " = long(" + minV.inner + "); " + ctr + " < " + end + "; " + ctr + " += long(" + stepV.inner + ")) {");
  cx.line("const int " + v + " = int(" + ctr + ");");
  if (reduce !== null) {
    const r = changetype<Stmt>(reduce);
    cx.line(reduceAcc + " = " + combineText(r.combiner, r.value.ty, reduceAcc, emitExpr(r.value, cx), cx) + ";");
  } else emitList(body, cx);
  cx.close("}");
}

function emitSerialFor(s: Stmt, cx: Ctx): void {
  const v = cx.names.of(s.name);
  const minV = emitExpr(s.min, cx);
  const extV = emitExpr(s.extent, cx);
  const stepV = s.step.op == "none" ? oneVal() : emitExpr(s.step, cx);
  if (!cx.loopRanges.fits(s)) {
    emitWideFor(v, minV, extV, stepV, s.body, "", null, cx);
    return;
  }
  const inc = stepV.known && stepV.ival == 1 ? "++" + v : v + " += " + stepV.text;
  cx.open("for (int " + v + " = " + minV.inner + "; " + v + " < " + endText(minV, extV, stepV) + "; " + inc + ") {");
  emitList(s.body, cx);
  cx.close("}");
}

function emitGridFor(s: Stmt, cx: Ctx): void {
  const d = cx.gridDepth;
  const minV = emitExpr(s.min, cx);
  const coord = cx.gridCoords[d];
  const bind = minV.known && minV.ival == 0 ? coord : minV.text + " + " + coord;
  if (cx.gridQ > 1 && d == cx.gridCoords.length - 1) {
    cx.gridDepth = d + 1;
    emitGridVector(s, bind, cx);
    cx.gridDepth = d;
    return;
  }
  cx.open("{");
  cx.line("const int " + cx.names.of(s.name) + " = " + bind + ";");
  cx.gridDepth = d + 1;
  emitList(s.body, cx);
  cx.gridDepth = d;
  cx.close("}");
}

/** A reduction run by one thread: an accumulator over the axis, then the bound name. */
function emitSerialReduce(s: Stmt, cx: Ctx): void {
  const n = cx.names.of(s.name);
  const v = cx.names.of(s.axis);
  const t = mslType(s.value.ty);
  const acc = "acc_" + n;
  const minV = emitExpr(s.min, cx);
  const extV = emitExpr(s.extent, cx);
  cx.line(t + " " + acc + " = " + identityText(s.combiner, s.value.ty) + ";");
  if (!cx.loopRanges.fits(s)) {
    emitWideFor(v, minV, extV, oneVal(), new Array<Stmt>(), acc, s, cx);
  } else {
    cx.open("for (int " + v + " = " + minV.inner + "; " + v + " < " + endText(minV, extV, oneVal()) + "; ++" + v + ") {");
    cx.line(acc + " = " + combineText(s.combiner, s.value.ty, acc, emitExpr(s.value, cx), cx) + ";");
    cx.close("}");
  }
  cx.line("const " + t + " " + n + " = " + acc + ";");
}

function oneVal(): Val {
  const r = new Val("1", "1");
  r.known = true;
  r.ival = 1;
  return r;
}

export function emitStmt(s: Stmt, cx: Ctx): void {
  if (s.kind == "let") {
    const v = emitExpr(s.value, cx);
    cx.line("const " + mslType(s.value.ty) + " " + cx.names.of(s.name) + " = " + v.inner + ";");
  } else if (s.kind == "store") {
    emitStore(s, cx);
  } else if (s.kind == "if") {
    cx.open("if (" + emitExpr(s.cond, cx).inner + ") {");
    emitList(s.body, cx);
    if (s.hasElse && s.orelse.length > 0) {
      cx.ind = cx.ind - 1;
      cx.open("} else {");
      emitList(s.orelse, cx);
    }
    cx.close("}");
  } else if (s.kind == "for") {
    if (s.parallel && cx.gridDepth >= 0 && cx.gridDepth < cx.gridCoords.length) emitGridFor(s, cx);
    else emitSerialFor(s, cx);
  } else if (s.kind == "reduce") {
    emitSerialReduce(s, cx);
  }
}

export function emitList(list: Array<Stmt>, cx: Ctx): void {
  for (let i: i32 = 0; i < list.length; i++) emitStmt(list[i], cx);
}

/** Integer text of a compile-time value. */
export function num(v: i32): string {
  return formatI32(v);
}
