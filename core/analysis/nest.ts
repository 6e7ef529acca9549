// Several parallel loops above a reduction (batch, heads, rows) as one program per index tuple.
//
// A document whose top level is a perfect nest of k >= 2 parallel loops with constant bounds,
// the innermost of which holds a reduce, e.g.
//     for b in [0, B): for h in [0, H): for i in [0, S): { reduce ... over j; for j: store Y[b,h,i,j] }
// is planned as the equivalent document with one program loop over the tuple's linear index
//     for p in [0, B*H*S): { same body, b = p / (H*S), h = (p / S) % H, i = p % S }
// and then goes through the very same recognition, proofs, search and emitter as a 2-D document.
//
// To keep the proofs affine, a buffer whose every access indexes its k leading dimensions with
// exactly b, h, i (in order, loops starting at 0, extents equal to those dimensions) is viewed
// with the k leading dimensions merged into one of extent B*H*S, indexed by p: the row-major
// offset ((b*H + h)*S + i)*S + j equals p*S + j, so memory, bindings and byte sizes are
// unchanged. Every other use of b, h or i becomes its decoding from p (div and mod of a
// non-negative p by positive constants), which the rules see as a non-affine index: loads of
// buffers the kernel never writes need no proof (they may also be uncached), while a written
// buffer accessed that way leaves its proof unknown, so nothing unproven is admitted.
//
// The result is a new Doc (the input is not changed); nodes keep their source pointers, so every
// diagnostic and rule still points into the document as written.

import { Doc, Expr, Param, Stmt, copyExpr, intLit } from "../ir/ast";
import { constValue } from "../cost/work";
import { containsReduce } from "./structure";
import { countStores, loadsIn } from "./vectors";
import { Affine, AffineEnv, affineOf } from "../ir/affine";
import { wrapI32 } from "../ir/fold";
import { VarBounds } from "./ranges";

export class FlatNest {
  /** The rewritten document, or null when the pattern does not apply. */
  doc: Doc | null = null;
  /** The nest's loop variables, outermost first, and the program count. */
  vars: Array<string> = new Array<string>();
  programs: i32 = 0;
  /** Buffers whose leading dimensions were merged. */
  merged: Array<string> = new Array<string>();
  /** Buffers viewed with a dimension split (splitBuffers): a column group g * K + e of [.., G*K]
   *  as [.., G, K], merged with the leading ones; and each one's K. */
  split: Array<string> = new Array<string>();
  splitK: Array<i32> = new Array<i32>();
  /** The loops are not in written order (innermostLast). */
  reordered: bool = false;
}

/** Below this, sums and products of integers in f64 are exact (linearIndex's constant). */
const EXACT_LIMIT: f64 = 4503599627370496.0; // 2^52

class Rewrite {
  loops: Array<Stmt>;
  mins: Array<i32>;
  extents: Array<i32>;
  /** Product of the extents of the loops after each one. */
  strides: Array<i32>;
  pv: string;
  merged: Array<string>;
  split: Array<string> = new Array<string>();
  splitK: Array<i32> = new Array<i32>();
  total: i32;
  /** The nest's variables, the body's loop and axis variables and the sizes, for the affine
   *  forms of indices (linearIndex). */
  indexEnv: AffineEnv = new AffineEnv();

  constructor(loops: Array<Stmt>, mins: Array<i32>, extents: Array<i32>, pv: string, merged: Array<string>, total: i32) {
    this.loops = loops;
    this.mins = mins;
    this.extents = extents;
    this.pv = pv;
    this.merged = merged;
    this.total = total;
    this.strides = new Array<i32>();
    for (let d: i32 = 0; d < loops.length; d++) {
      let s: i32 = 1;
      for (let e: i32 = d + 1; e < loops.length; e++) s = i32(Math.imul(s, extents[e]));
      this.strides.push(s);
    }
  }

  level(name: string): i32 {
    for (let d: i32 = 0; d < this.loops.length; d++) if (this.loops[d].name == name) return d;
    return -1;
  }

  programVar(ptr: string): Expr {
    const e = new Expr("name", ptr);
    e.name = this.pv;
    e.ty = "i32";
    e.ref = "loop";
    return e;
  }

  binary(op: string, a: Expr, b: Expr, ptr: string): Expr {
    const e = new Expr(op, ptr);
    e.args = new Array<Expr>();
    e.args.push(a);
    e.args.push(b);
    e.ty = "i32";
    return e;
  }

  /** min_d + (p / stride_d) % extent_d, without the trivial parts. */
  decode(d: i32, ptr: string): Expr {
    let e = this.programVar(ptr);
    if (this.strides[d] != 1) e = this.binary("div", e, intLit(this.strides[d], ptr), ptr);
    if (d > 0) e = this.binary("mod", e, intLit(this.extents[d], ptr), ptr);
    if (this.mins[d] != 0) e = this.binary("add", e, intLit(this.mins[d], ptr), ptr);
    return e;
  }

  expr(e: Expr): Expr {
    if (e.op == "name" && e.ref == "loop") {
      const d = this.level(e.name);
      if (d >= 0) return this.decode(d, e.ptr);
    }
    if (e.op == "load") {
      const c = this.copy(e);
      c.args = this.indices(e.name, e.args);
      return c;
    }
    if (e.args.length == 0) return e; // a leaf that does not name the nest: shared, never mutated
    const c = this.copy(e);
    c.args = new Array<Expr>();
    for (let i: i32 = 0; i < e.args.length; i++) c.args.push(this.expr(e.args[i]));
    return c;
  }

  copy(e: Expr): Expr {
    return copyExpr(e, e.ptr);
  }

  /** Indices of an access: [p, rest...] for a merged buffer, else each index rewritten (an index
   *  that is the nest's row-major linear index, scaled and offset, as p: linearIndex). */
  indices(buffer: string, at: Array<Expr>): Array<Expr> {
    const out = new Array<Expr>();
    const k: i32 = this.loops.length;
    if (this.merged.indexOf(buffer) >= 0) {
      out.push(this.programVar(at[0].ptr));
      for (let i: i32 = k; i < at.length; i++) out.push(this.expr(at[i]));
      return out;
    }
    const si = this.split.indexOf(buffer);
    if (si >= 0) {
      // [v0, ..., g * K + e, rest...] as [p, e, rest...]: the same offset (p * K + e)
      const e = groupRest(at[k - 1], this.loops[k - 1].name, this.splitK[si], this.indexEnv);
      out.push(this.programVar(at[0].ptr));
      out.push(this.expr(changetype<Expr>(e)));
      for (let i: i32 = k; i < at.length; i++) out.push(this.expr(at[i]));
      return out;
    }
    for (let i: i32 = 0; i < at.length; i++) {
      const lin = this.linearIndex(at[i]);
      out.push(lin !== null ? changetype<Expr>(lin) : this.expr(at[i]));
    }
    return out;
  }

  /**
   * An index `e` that is affine in the nest's variables with coefficients c * stride_d for every
   * level d from some j on (and 0 above j): the levels' part sum over d >= j of stride_d * (v_d -
   * min_d) is the linear index of those levels, p for j = 0 and p % (extent_j * stride_j) below,
   * so `e` is c * that + e with v_d = min_d. A flat output Y[b * H + h] of a nest over b and h
   * becomes Y[p], which the rules separate by p, where the decodings (p / H) * H + p % H could
   * not be. The value is the same in i32: e is evaluated with + - * only (an affine form), which
   * wrap as integers modulo 2^32 do, and the linear index is exact. Null where `e` is not of
   * that form.
   */
  linearIndex(e: Expr): Expr | null {
    const f0 = affineOf(e, this.indexEnv, 0);
    if (f0 === null) return null;
    const f = changetype<Affine>(f0);
    const k: i32 = this.loops.length;
    let j: i32 = -1;
    for (let d: i32 = 0; d < k; d++) {
      if (f.coef(this.loops[d].name) != 0.0) {
        j = d;
        break;
      }
    }
    if (j < 0) return null;
    const c: f64 = f.coef(this.loops[j].name) / <f64>this.strides[j];
    if (c != Math.floor(c) || c == 0.0 || Math.abs(c) > 2147483647.0) return null;
    for (let d: i32 = j; d < k; d++) if (f.coef(this.loops[d].name) != c * <f64>this.strides[d]) return null;
    const ptr = e.ptr;
    let lin = this.programVar(ptr);
    if (j > 0) lin = this.binary("mod", lin, intLit(i32(Math.imul(this.extents[j], this.strides[j])), ptr), ptr);
    if (c != 1.0) lin = this.binary("mul", intLit(i32(c), ptr), lin, ptr);
    // the rest: e at v_d = min_d (a constant where nothing else varies, else e with the nest's
    // variables replaced by their mins)
    let other = false;
    for (let i: i32 = 0; i < f.vars.length; i++) if (f.coefs[i] != 0.0 && this.level(f.vars[i]) < 0) other = true;
    if (!other) {
      // the constant at the mins, summed exactly: every product and partial sum below 2^52 (a
      // coefficient times a min near 2^31 can pass 2^53 and round; then no rewrite: red team)
      let rest: f64 = f.c;
      for (let d: i32 = 0; d < k; d++) {
        const term: f64 = f.coef(this.loops[d].name) * <f64>this.mins[d];
        if (Math.abs(term) >= EXACT_LIMIT) return null;
        rest += term;
        if (Math.abs(rest) >= EXACT_LIMIT) return null;
      }
      // the i32 value of the constant (congruent modulo 2^32)
      const w: i32 = wrapI32(rest);
      return w == 0 ? lin : this.binary("add", lin, intLit(w, ptr), ptr);
    }
    return this.binary("add", lin, this.atMins(e), ptr);
  }

  /** `e` with the nest's variables replaced by their mins (int literals). */
  atMins(e: Expr): Expr {
    if (e.op == "name" && e.ref == "loop") {
      const d = this.level(e.name);
      if (d >= 0) return intLit(this.mins[d], e.ptr);
    }
    if (e.args.length == 0) return e;
    const c = this.copy(e);
    c.args = new Array<Expr>();
    for (let i: i32 = 0; i < e.args.length; i++) c.args.push(this.atMins(e.args[i]));
    return c;
  }

  stmts(list: Array<Stmt>): Array<Stmt> {
    const out = new Array<Stmt>();
    for (let i: i32 = 0; i < list.length; i++) out.push(this.stmt(list[i]));
    return out;
  }

  stmt(s: Stmt): Stmt {
    const c = new Stmt(s.kind, s.ptr);
    c.name = s.name;
    c.parallel = s.parallel;
    c.min = this.expr(s.min);
    c.extent = this.expr(s.extent);
    c.step = this.expr(s.step);
    c.hasStep = s.hasStep;
    c.axis = s.axis;
    c.combiner = s.combiner;
    // an i32 let holding the nest's linear index (let i = b * H + h) is rewritten as an index is
    // (linearIndex): the same i32 value, which the rules then separate by p where an index `i`
    // reads it
    const lin = s.kind == "let" && s.value.ty == "i32" ? this.linearIndex(s.value) : null;
    c.value = lin !== null ? changetype<Expr>(lin) : this.expr(s.value);
    c.at = s.kind == "store" ? this.indices(s.name, s.at) : this.stmts_exprs(s.at);
    c.cond = this.expr(s.cond);
    c.body = this.stmts(s.body);
    c.orelse = this.stmts(s.orelse);
    c.hasElse = s.hasElse;
    return c;
  }

  stmts_exprs(list: Array<Expr>): Array<Expr> {
    const out = new Array<Expr>();
    for (let i: i32 = 0; i < list.length; i++) out.push(this.expr(list[i]));
    return out;
  }
}

/** True when `e` is the loop variable `name`: the name itself, or an affine form of the nest's
 *  variables, sizes and the lets before it that equals it exactly (`c + 0`, `1 * c`, `cc` after
 *  `let cc = c`). */
function isVar(e: Expr, name: string, env: AffineEnv): bool {
  if (e.op == "name" && e.ref == "loop" && e.name == name) return true;
  const a = affineOf(e, env, 0);
  if (a === null || a.c != 0.0) return false;
  for (let i: i32 = 0; i < a.vars.length; i++) if (a.coefs[i] != (a.vars[i] == name ? 1.0 : 0.0)) return false;
  return a.coef(name) == 1.0;
}

/** Every access of `buffer` in the list has indices [v0, ..., v(k-1), ...]. */
function leadingInStmts(list: Array<Stmt>, buffer: string, loops: Array<Stmt>, env: AffineEnv): bool {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    // a let's value stands for its name in the indices after it (scalar names are unique in a
    // document, so the binding never needs removing)
    if (s.kind == "let" && env.letNames.indexOf(s.name) < 0) {
      env.letNames.push(s.name);
      env.letValues.push(s.value);
    }
    if (s.kind == "store" && s.name == buffer && !leadingIndices(s.at, loops, env)) return false;
    if (!leadingInExpr(s.value, buffer, loops, env) || !leadingInExpr(s.cond, buffer, loops, env)) return false;
    if (!leadingInExpr(s.min, buffer, loops, env) || !leadingInExpr(s.extent, buffer, loops, env)) return false;
    for (let j: i32 = 0; j < s.at.length; j++) if (!leadingInExpr(s.at[j], buffer, loops, env)) return false;
    if (!leadingInStmts(s.body, buffer, loops, env) || !leadingInStmts(s.orelse, buffer, loops, env)) return false;
  }
  return true;
}

function leadingInExpr(e: Expr, buffer: string, loops: Array<Stmt>, env: AffineEnv): bool {
  if (e.op == "load" && e.name == buffer && !leadingIndices(e.args, loops, env)) return false;
  for (let i: i32 = 0; i < e.args.length; i++) if (!leadingInExpr(e.args[i], buffer, loops, env)) return false;
  return true;
}

function leadingIndices(at: Array<Expr>, loops: Array<Stmt>, env: AffineEnv): bool {
  if (at.length < loops.length) return false;
  for (let d: i32 = 0; d < loops.length; d++) if (!isVar(at[d], loops[d].name, env)) return false;
  return true;
}

/** Every name bound or used anywhere (so the program variable's name is fresh). */
function collectNames(list: Array<Stmt>, out: Array<string>): void {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    out.push(s.name);
    out.push(s.axis);
    collectNames(s.body, out);
    collectNames(s.orelse, out);
  }
}

/** Whether `list` holds a parallel loop, at any depth. */
function holdsParallelLoop(list: Array<Stmt>): bool {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "for" && s.parallel) return true;
    if (holdsParallelLoop(s.body) || holdsParallelLoop(s.orelse)) return true;
  }
  return false;
}

/** The nest flattened into one program loop, when the pattern applies (see the header). With
 *  `element`, the nest of an element-family document (no reduce) as programs: every loop of the
 *  perfect nest whose body still holds a parallel loop, so that the innermost parallel loops stay
 *  in the program body, spread over its workers (pipeline step 5b). */
export function flattenProgramNest(doc: Doc, element: bool = false): FlatNest {
  const r = new FlatNest();
  if (doc.body.length != 1) return r;
  const loops = new Array<Stmt>();
  let s = doc.body[0];
  while (s.kind == "for" && s.parallel) {
    loops.push(s);
    if (s.body.length != 1) break;
    const inner = s.body[0];
    if (inner.kind != "for" || !inner.parallel) break;
    if (element ? !holdsParallelLoop(inner.body) : !containsReduce(inner.body)) break;
    s = inner;
  }
  if (loops.length < 2) return r;
  const lastBody = loops[loops.length - 1].body;
  if (element ? containsReduce(lastBody) || !holdsParallelLoop(lastBody) : !containsReduce(lastBody)) return r;
  const body = loops[loops.length - 1].body;
  const mins = new Array<i32>();
  const extents = new Array<i32>();
  let total: f64 = 1.0;
  for (let d: i32 = 0; d < loops.length; d++) {
    const m = constValue(doc, loops[d].min);
    const n = constValue(doc, loops[d].extent);
    if (m < 0 || n < 1) return r;
    mins.push(m);
    extents.push(n);
    total *= <f64>n;
  }
  // the program index and every merged dimension must stay exact in i32
  if (total > 2147483647.0) return r;
  const programs = i32(total);
  // merged buffers: every access indexes the k leading dimensions with the nest, in order (each
  // index the loop variable, or an affine form of the nest's variables and sizes equal to it)
  const env = new AffineEnv();
  for (let d: i32 = 0; d < loops.length; d++) env.symbols.push(loops[d].name);
  for (let i: i32 = 0; i < doc.sizeNames.length; i++) {
    env.constNames.push(doc.sizeNames[i]);
    env.constValues.push(doc.sizeValues[i]);
  }
  let merged = mergedBuffers(doc, body, loops, mins, extents, env);
  // the loop that indexes the largest buffer's innermost dimension goes last, where that merges
  // as many written buffers (innermostLast)
  const written = loops.slice(0);
  const last = innermostLast(doc, body, loops);
  if (last >= 0) {
    const order = new Array<i32>();
    for (let d: i32 = 0; d < loops.length; d++) if (d != last) order.push(d);
    order.push(last);
    const l2 = new Array<Stmt>();
    const m2 = new Array<i32>();
    const e2 = new Array<i32>();
    for (let d: i32 = 0; d < order.length; d++) {
      l2.push(loops[order[d]]);
      m2.push(mins[order[d]]);
      e2.push(extents[order[d]]);
    }
    const merged2 = mergedBuffers(doc, body, l2, m2, e2, env);
    if (storedCount(body, merged2) >= storedCount(body, merged)) {
      for (let d: i32 = 0; d < order.length; d++) {
        loops[d] = l2[d];
        mins[d] = m2[d];
        extents[d] = e2[d];
      }
      merged = merged2;
    }
  }
  // a fresh name for the program variable
  const used = new Array<string>();
  collectNames(doc.body, used);
  for (let i: i32 = 0; i < doc.sizeNames.length; i++) used.push(doc.sizeNames[i]);
  for (let i: i32 = 0; i < doc.params.length; i++) used.push(doc.params[i].name);
  let pv = "";
  for (let d: i32 = 0; d < loops.length; d++) pv += (d > 0 ? "_" : "") + loops[d].name;
  while (used.indexOf(pv) >= 0) pv += "_";

  const splitK = new Array<i32>();
  const split = splitBuffers(doc, body, loops, mins, extents, env, merged, splitK);
  const rw = new Rewrite(loops, mins, extents, pv, merged, programs);
  rw.split = split;
  rw.splitK = splitK;
  const inner = new Array<string>();
  collectNames(body, inner);
  for (let d: i32 = 0; d < loops.length; d++) rw.indexEnv.symbols.push(loops[d].name);
  for (let i: i32 = 0; i < inner.length; i++) if (inner[i].length > 0) rw.indexEnv.symbols.push(inner[i]);
  rw.indexEnv.constNames = env.constNames;
  rw.indexEnv.constValues = env.constValues;
  const out = new Doc();
  out.version = doc.version;
  out.name = doc.name;
  out.noalias = doc.noalias;
  out.noaliasPtr = doc.noaliasPtr;
  out.sizeNames = doc.sizeNames;
  out.sizeValues = doc.sizeValues;
  for (let p: i32 = 0; p < doc.params.length; p++) {
    const prm = doc.params[p];
    const si = split.indexOf(prm.name);
    if (si >= 0) {
      // [.., G*K, rest...] viewed as [N*G..., K, rest...]
      const q = new Param(prm.name, prm.dtype, prm.ptr);
      q.shape.push(intLit(programs, prm.ptr + "/shape/0"));
      q.shape.push(intLit(splitK[si], prm.ptr + "/shape/" + (loops.length - 1).toString()));
      for (let d: i32 = loops.length; d < prm.shape.length; d++) q.shape.push(prm.shape[d]);
      out.params.push(q);
      continue;
    }
    if (merged.indexOf(prm.name) < 0) {
      out.params.push(prm);
      continue;
    }
    const q = new Param(prm.name, prm.dtype, prm.ptr);
    q.shape.push(intLit(programs, prm.ptr + "/shape/0"));
    for (let d: i32 = loops.length; d < prm.shape.length; d++) q.shape.push(prm.shape[d]);
    out.params.push(q);
  }
  const top = new Stmt("for", written[0].ptr);
  top.name = pv;
  top.parallel = true;
  top.min = intLit(0, written[0].ptr + "/in/0");
  top.extent = intLit(programs, written[0].ptr + "/in/1");
  top.step = written[0].step;
  top.body = rw.stmts(body);
  out.body.push(top);
  r.doc = out;
  r.programs = programs;
  r.merged = merged;
  r.split = split;
  r.splitK = splitK;
  for (let d: i32 = 0; d < loops.length; d++) {
    r.vars.push(loops[d].name);
    if (loops[d] !== written[d]) r.reordered = true;
  }
  return r;
}

/**
 * Which loop should be the nest's last so that neighbouring programs are neighbouring elements:
 * the one whose variable alone indexes the last dimension of the largest buffer the body
 * accesses (for c: for b: over X[b, r, c], c), or -1 where that is already the last loop or no
 * loop does (X[b, c, r]: r is innermost, the order changes nothing). flattenProgramNest moves it
 * last only where that merges as many written buffers as the written order. The loops are
 * parallel with constant bounds and their programs are proven independent on the flattened
 * document whatever the order, so the order only decides which programs are neighbours.
 */
function innermostLast(doc: Doc, body: Array<Stmt>, loops: Array<Stmt>): i32 {
  let best: i32 = -1;
  let most: f64 = 0.0;
  for (let p: i32 = 0; p < doc.params.length; p++) {
    const n = doc.elementCount(p);
    if (n > most && accessed(body, doc.params[p].name)) {
      most = n;
      best = p;
    }
  }
  if (best < 0) return -1;
  const name = doc.params[best].name;
  const innermost: i32 = doc.params[best].shape.length - 1;
  for (let d: i32 = 0; d + 1 < loops.length; d++) {
    if (dimensionOf(body, name, loops[d].name) == innermost) return d;
  }
  return -1;
}

/** Buffers whose every access indexes the k leading dimensions with the nest's variables in the
 *  order of `loops` (each index the loop variable, or an affine form equal to it), loops from 0
 *  over those dimensions' extents. */
function mergedBuffers(doc: Doc, body: Array<Stmt>, loops: Array<Stmt>, mins: Array<i32>, extents: Array<i32>, env: AffineEnv): Array<string> {
  const merged = new Array<string>();
  for (let p: i32 = 0; p < doc.params.length; p++) {
    const prm = doc.params[p];
    if (prm.shape.length < loops.length) continue;
    let fits = true;
    for (let d: i32 = 0; d < loops.length; d++) {
      if (mins[d] != 0 || doc.dim(p, d) != extents[d]) fits = false;
    }
    if (fits && leadingInStmts(body, prm.name, loops, env)) merged.push(prm.name);
  }
  return merged;
}

/**
 * Buffers not merged whose leading dimensions are the nest's but the last, and whose next
 * dimension, of extent G * K (G the last loop's extent, K > 1 a whole number), every access
 * indexes as g * K + e (g the last loop's variable itself, K a literal or size; e anything): a
 * column group of a row, as group norm and per-head norms over [T, H * D] index it. Viewed as
 * [.., G, K], merged with the leading ones into [programs, K, rest...] and indexed [p, e, rest...]:
 * the offset ((v0 * ... + g) * K + e) is the same expression's value, whatever e is (the rules
 * then judge e against K, which is stricter than the buffer's own bounds). Appends each K to
 * `ks`.
 */
function splitBuffers(doc: Doc, body: Array<Stmt>, loops: Array<Stmt>, mins: Array<i32>, extents: Array<i32>, env: AffineEnv, merged: Array<string>, ks: Array<i32>): Array<string> {
  const out = new Array<string>();
  const k: i32 = loops.length;
  for (let d: i32 = 0; d < k; d++) if (mins[d] != 0) return out;
  const inner = loops.slice(0, k - 1);
  const ranges = new InnerRanges();
  ranges.collect(doc, body);
  // the body's own loop and axis variables are variables of the index forms too
  const genv = new AffineEnv();
  for (let i: i32 = 0; i < env.symbols.length; i++) genv.symbols.push(env.symbols[i]);
  for (let i: i32 = 0; i < ranges.names.length; i++) genv.symbols.push(ranges.names[i]);
  for (let i: i32 = 0; i < ranges.bad.length; i++) genv.symbols.push(ranges.bad[i]);
  genv.constNames = env.constNames;
  genv.constValues = env.constValues;
  const bounds = ranges.bounds();
  for (let p: i32 = 0; p < doc.params.length; p++) {
    const prm = doc.params[p];
    if (merged.indexOf(prm.name) >= 0 || prm.shape.length < k) continue;
    let fits = true;
    for (let d: i32 = 0; d < k - 1; d++) if (doc.dim(p, d) != extents[d]) fits = false;
    const whole: i32 = doc.dim(p, k - 1);
    if (!fits || whole % extents[k - 1] != 0) continue;
    const K: i32 = whole / extents[k - 1];
    if (K < 2) continue;
    if (groupedInStmts(body, prm.name, inner, loops[k - 1].name, K, genv, bounds)) {
      out.push(prm.name);
      ks.push(K);
    }
  }
  return out;
}

/** `e` is g * K or K * g: the loop variable `g` itself times a constant equal to K. */
function isGroupTerm(e: Expr, g: string, K: i32, env: AffineEnv): bool {
  if (e.op != "mul" || e.args.length != 2) return false;
  for (let i: i32 = 0; i < 2; i++) {
    const v = e.args[i];
    if (v.op != "name" || v.ref != "loop" || v.name != g) continue;
    // a literal or a size (never a let: the rewrite reads the same index without the lets)
    const m = e.args[1 - i];
    if (m.op != "int" && !(m.op == "name" && m.ref == "size")) continue;
    const c = affineOf(m, env, 0);
    if (c !== null && changetype<Affine>(c).isConst() && changetype<Affine>(c).c == <f64>K) return true;
  }
  return false;
}

/** The e of an index g * K + e (or e + g * K, or g * K alone: 0), or null. */
function groupRest(e: Expr, g: string, K: i32, env: AffineEnv): Expr | null {
  if (isGroupTerm(e, g, K, env)) return intLit(0, e.ptr);
  if (e.op != "add" || e.args.length != 2) return null;
  if (isGroupTerm(e.args[0], g, K, env)) return e.args[1];
  if (isGroupTerm(e.args[1], g, K, env)) return e.args[0];
  return null;
}

/** Every access of `buffer` has indices [v0, ..., v(k-2), g * K + e, ...] (groupRest). */
function groupedInStmts(list: Array<Stmt>, buffer: string, inner: Array<Stmt>, g: string, K: i32, env: AffineEnv, ranges: VarBounds): bool {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "let" && env.letNames.indexOf(s.name) < 0) {
      env.letNames.push(s.name);
      env.letValues.push(s.value);
    }
    if (s.kind == "store" && s.name == buffer && !groupedIndices(s.at, inner, g, K, env, ranges)) return false;
    if (!groupedInExpr(s.value, buffer, inner, g, K, env, ranges) || !groupedInExpr(s.cond, buffer, inner, g, K, env, ranges)) return false;
    if (!groupedInExpr(s.min, buffer, inner, g, K, env, ranges) || !groupedInExpr(s.extent, buffer, inner, g, K, env, ranges)) return false;
    for (let j: i32 = 0; j < s.at.length; j++) if (!groupedInExpr(s.at[j], buffer, inner, g, K, env, ranges)) return false;
    if (!groupedInStmts(s.body, buffer, inner, g, K, env, ranges) || !groupedInStmts(s.orelse, buffer, inner, g, K, env, ranges)) return false;
  }
  return true;
}

function groupedInExpr(e: Expr, buffer: string, inner: Array<Stmt>, g: string, K: i32, env: AffineEnv, ranges: VarBounds): bool {
  if (e.op == "load" && e.name == buffer && !groupedIndices(e.args, inner, g, K, env, ranges)) return false;
  for (let i: i32 = 0; i < e.args.length; i++) if (!groupedInExpr(e.args[i], buffer, inner, g, K, env, ranges)) return false;
  return true;
}

function groupedIndices(at: Array<Expr>, inner: Array<Stmt>, g: string, K: i32, env: AffineEnv, ranges: VarBounds): bool {
  if (at.length < inner.length + 1) return false;
  for (let d: i32 = 0; d < inner.length; d++) if (!isVar(at[d], inner[d].name, env)) return false;
  const rest = groupRest(at[inner.length], g, K, env);
  if (rest === null) return false;
  // e must stay in [0, K): the view's rules judge the offset p * K + e by p, which is sound only
  // where e never reaches another group (the buffer's own bounds allow any e in [-g * K, ...))
  const a = affineOf(changetype<Expr>(rest), env, 0);
  if (a === null) return false;
  const r = new Array<f64>();
  return ranges.range(changetype<Affine>(a), r) && r[0] >= 0.0 && r[1] <= <f64>(K - 1);
}

/** The constant ranges [min, min + extent - 1] of the loops and reduce axes of a nest's body, by
 *  name (every binding of a name, joined; a name with a binding whose range is not constant, or
 *  whose step is not 1, has none). */
class InnerRanges {
  names: Array<string> = new Array<string>();
  los: Array<f64> = new Array<f64>();
  his: Array<f64> = new Array<f64>();
  bad: Array<string> = new Array<string>();

  collect(doc: Doc, list: Array<Stmt>): void {
    for (let i: i32 = 0; i < list.length; i++) {
      const s = list[i];
      if (s.kind == "for" || s.kind == "reduce") {
        const name = s.kind == "for" ? s.name : s.axis;
        const m = constValue(doc, s.min);
        const n = constValue(doc, s.extent);
        const unitStep = s.kind == "reduce" || s.step.op == "none" || (s.step.op == "int" && s.step.ival == 1);
        if (m < 0 || n < 1 || !unitStep) this.bad.push(name);
        else {
          const j = this.names.indexOf(name);
          if (j < 0) {
            this.names.push(name);
            this.los.push(<f64>m);
            this.his.push(<f64>m + <f64>n - 1.0);
          } else {
            if (<f64>m < this.los[j]) this.los[j] = <f64>m;
            if (<f64>m + <f64>n - 1.0 > this.his[j]) this.his[j] = <f64>m + <f64>n - 1.0;
          }
        }
      }
      this.collect(doc, s.body);
      this.collect(doc, s.orelse);
    }
  }

  /** These ranges as bounds of the variables (a name with a range that is not constant: none),
   *  so that VarBounds.range gives an affine form's range over them. */
  bounds(): VarBounds {
    const b = new VarBounds();
    for (let i: i32 = 0; i < this.names.length; i++) b.push(this.names[i], this.bad.indexOf(this.names[i]) < 0, this.los[i], this.his[i]);
    return b;
  }
}

/** How many of `names` the statements store to. */
function storedCount(body: Array<Stmt>, names: Array<string>): i32 {
  let n: i32 = 0;
  for (let i: i32 = 0; i < names.length; i++) if (countStores(body, names[i]) > 0) n++;
  return n;
}

/** Whether the statements load or store `buffer`. */
function accessed(list: Array<Stmt>, buffer: string): bool {
  if (countStores(list, buffer) > 0) return true;
  const found = new Array<Expr>();
  loadsIn(list, buffer, found);
  return found.length > 0;
}

/** The dimension of `buffer` that an access indexing it with `v` alone uses (its loads first,
 *  then its stores), or -1. */
function dimensionOf(list: Array<Stmt>, buffer: string, v: string): i32 {
  const found = new Array<Expr>();
  loadsIn(list, buffer, found);
  for (let i: i32 = 0; i < found.length; i++) {
    const d = dimIn(found[i].args, v);
    if (d >= 0) return d;
  }
  return storeDimensionOf(list, buffer, v);
}

function storeDimensionOf(list: Array<Stmt>, buffer: string, v: string): i32 {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    const d = s.kind == "store" && s.name == buffer ? dimIn(s.at, v) : -1;
    if (d >= 0) return d;
    const b = storeDimensionOf(s.body, buffer, v);
    if (b >= 0) return b;
    const e = storeDimensionOf(s.orelse, buffer, v);
    if (e >= 0) return e;
  }
  return -1;
}

function dimIn(at: Array<Expr>, v: string): i32 {
  for (let d: i32 = 0; d < at.length; d++) if (at[d].op == "name" && at[d].ref == "loop" && at[d].name == v) return d;
  return -1;
}
