// Values a later stage would compute again. A cooperative reduction's program runs its stages one
// after another over the same stripe of elements; softmax's sum stage computes exp(x - m) for
// every element, and its output stage computes exp(x - m) again. When a distributed reduce's
// per-element value reads only register-cached input, and every later read of one of those
// buffers is inside a recomputation of that same value over the same range, the reduce writes
// each element's value into that buffer's cache slot, and the later stages read the slot instead
// of computing it again. The arithmetic is the same f32 operations on the same operands, so every
// result is bit-identical; no register is added (the slot's old value is dead). Measured on an
// H200 (evidence/h200/README.md, run 13): softmax 768x6144 11.56 -> 11.10 us.
// Decided from the IR's structure only (expression trees, loop ranges, where buffers are read).

import { Expr, Stmt, valueType } from "../ir/ast";
import { RUN_DISTRIBUTED } from "../analysis/distribution";
import { Ctx } from "./context";
import { emitExpr } from "./expr";
import { stripeDim } from "../analysis/stripe";
import { siblingJoins, siblingRunLength } from "../analysis/siblings";

/** `a` (in a stage over variable `va`) and `b` (over `vb`) are the same computation. */
export function sameExpr(a: Expr, va: string, b: Expr, vb: string): bool {
  if (a.op != b.op || a.ty != b.ty || a.args.length != b.args.length) return false;
  if (a.op == "int") return a.ival == b.ival;
  if (a.op == "f32") return a.fval == b.fval && (a.fval != 0.0 || 1.0 / a.fval == 1.0 / b.fval);
  if (a.op == "name") {
    if (va != "" && a.name == va) return b.name == vb;
    if (vb != "" && b.name == vb) return false;
    return a.name == b.name && a.ref == b.ref;
  }
  if (a.name != b.name) return false;
  for (let i: i32 = 0; i < a.args.length; i++) if (!sameExpr(a.args[i], va, b.args[i], vb)) return false;
  return true;
}

/** Loads of `buf` in `e` outside recomputations of `x` (over `xv`); `e`'s stage variable is `ev`
 *  ("" where no stripe element is current); occurrences are counted in occ[0]. */
function loadsOutside(e: Expr, ev: string, x: Expr, xv: string, buf: string, occ: Array<i32>): bool {
  if (ev != "" && sameExpr(e, ev, x, xv)) {
    occ[0] = occ[0] + 1;
    return false;
  }
  if (e.op == "load" && e.name == buf) return true;
  for (let i: i32 = 0; i < e.args.length; i++) if (loadsOutside(e.args[i], ev, x, xv, buf, occ)) return true;
  return false;
}

function sameRange(a: Stmt, b: Stmt): bool {
  return sameExpr(a.min, "", b.min, "") && sameExpr(a.extent, "", b.extent, "");
}

/** Loads of `buf` in statement `s` (and all it holds) outside recomputations of reduce `r`'s value. */
function stmtLoadsOutside(s: Stmt, ev: string, r: Stmt, buf: string, cx: Ctx, occ: Array<i32>): bool {
  let inner: string = ev;
  if (ev == "" && cx.roles.roleOf(s) == RUN_DISTRIBUTED && sameRange(s, r)) {
    if (s.kind == "reduce") {
      if (loadsOutside(s.min, "", r.value, r.axis, buf, occ) || loadsOutside(s.extent, "", r.value, r.axis, buf, occ)) return true;
      return loadsOutside(s.value, s.axis, r.value, r.axis, buf, occ);
    }
    if (s.kind == "for") inner = s.name;
  }
  if (loadsOutside(s.min, "", r.value, r.axis, buf, occ) || loadsOutside(s.extent, "", r.value, r.axis, buf, occ)) return true;
  if (loadsOutside(s.step, "", r.value, r.axis, buf, occ)) return true;
  if (loadsOutside(s.value, s.kind == "reduce" ? "" : inner, r.value, r.axis, buf, occ)) return true;
  if (loadsOutside(s.cond, inner, r.value, r.axis, buf, occ)) return true;
  for (let k: i32 = 0; k < s.at.length; k++) if (loadsOutside(s.at[k], inner, r.value, r.axis, buf, occ)) return true;
  for (let k: i32 = 0; k < s.body.length; k++) if (stmtLoadsOutside(s.body[k], inner, r, buf, cx, occ)) return true;
  for (let k: i32 = 0; k < s.orelse.length; k++) if (stmtLoadsOutside(s.orelse[k], inner, r, buf, cx, occ)) return true;
  return false;
}

/** Every load in `e` is one the stripe of `r` serves from a register cache; the first one's buffer, or "". */
function cachedOnly(e: Expr, r: Stmt, minText: string, extText: string, cx: Ctx): string {
  if (e.op == "load") {
    const ci = cx.cacheBufs.indexOf(e.name);
    if (ci < 0 || cx.cacheMin[ci] != minText || cx.cacheExt[ci] != extText || e.args.length == 0) return "";
    if (stripeDim(e, r.axis) != cx.cacheDim[ci]) return "";
    return e.name;
  }
  let first: string = "";
  for (let i: i32 = 0; i < e.args.length; i++) {
    if (e.args[i].op == "int" || e.args[i].op == "f32" || e.args[i].op == "name") continue;
    const b = cachedOnly(e.args[i], r, minText, extText, cx);
    if (b == "") return "";
    if (first == "") first = b;
  }
  return first;
}

/** Finds the reduces of the program body whose per-element value later stages reuse (ctx.keep*). */
export function findKept(list: Array<Stmt>, cx: Ctx): void {
  const joins = siblingJoins(list);
  for (let i: i32 = 0; i < list.length; i++) {
    const r = list[i];
    if (r.kind != "reduce" || cx.roles.roleOf(r) != RUN_DISTRIBUTED || r.value.ty != "f32") continue;
    // a sibling run's member shares its pass (and the cache slots it reads) with the others
    if (cx.plan.fuseSiblings && (joins[i] || siblingRunLength(joins, i) > 1)) continue;
    const op = r.value.op;
    if (op == "load" || op == "name" || op == "int" || op == "f32") continue;
    const minText = emitExpr(r.min, cx).text;
    const extText = emitExpr(r.extent, cx).text;
    const buf = cachedOnly(r.value, r, minText, extText, cx);
    if (buf == "" || cx.keepBuf.indexOf(buf) >= 0) continue;
    // the value (f32) goes into the buffer's register stripe: only a stripe of f32 slots holds it
    // (an i32 buffer's stripe is int: 0.3 * A would be truncated there for the later stages)
    if (valueType(cx.doc.params[cx.doc.paramIndex(buf)].dtype) != "f32") continue;
    const occ = new Array<i32>();
    occ.push(0);
    let outside: bool = false;
    for (let j: i32 = i + 1; j < list.length && !outside; j++) outside = stmtLoadsOutside(list[j], "", r, buf, cx, occ);
    if (outside || occ[0] == 0) continue;
    cx.keepStmt.push(r);
    cx.keepBuf.push(buf);
    cx.keepMin.push(minText);
    cx.keepExt.push(extText);
    cx.keepOn.push(false);
  }
}

/** The cache slot holding `e`'s value at the current stripe element, or "". */
export function keptSlot(e: Expr, cx: Ctx): string {
  for (let k: i32 = 0; k < cx.keepStmt.length; k++) {
    if (!cx.keepOn[k] || cx.stripeMin != cx.keepMin[k] || cx.stripeExt != cx.keepExt[k]) continue;
    const r = cx.keepStmt[k];
    if (sameExpr(e, cx.stripeVar, r.value, r.axis)) return "cache_" + cx.names.buf(cx.keepBuf[k]) + "[" + cx.cacheIndex + "]";
  }
  return "";
}
