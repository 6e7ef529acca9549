// Which accesses of a worker's vector (a stripe chunk of the cooperative reduction, or a thread's
// columns in the fused element grid) are read or written Q-wide as one packed vector, with
// Q = PACK_WIDTH elements per packed access. The emitter (core/emit) and the cost model
// (core/cost/work.ts) both read this one decision, so what is charged is what is emitted.
//
// Over a vector of Q consecutive values v0, v0 + 1, ..., v0 + Q - 1 of the walking variable v,
// the scalar form runs the site once per value. A packed load replaces the Q loads of one load
// expression by one Q-wide read at the address of the first; a packed store replaces the Q
// stores of one store statement by one Q-wide write after the Q values are computed. Both are
// used only where they touch exactly the elements the scalar form touches, in an order nobody
// can observe:
//   - the access is evaluated for every value of the vector: it sits in a let's value, a
//     store's value or index, an if's condition, or a reduce's value, at the top of the site
//     (not under an if, not in a nested loop or reduce), and not in an operand that C evaluates
//     only sometimes (the arms of `select`, the right operand of `and` / `or`);
//   - its address is the same affine function of v with coefficient 1 for every value: the last
//     index is v, v + g, g + v or v - g with g a constant expression (literals and sizes), and no
//     other index mentions v or a name bound inside the site (so they are the same for every
//     value), so the Q elements are consecutive in memory;
//   - a packed load's buffer is never stored by the kernel (nothing can change it between the
//     Q scalar loads and the one packed load);
//   - a packed store's buffer is never loaded by the kernel, and this store is the only store to
//     it in the site (so writing the Q elements together, after the Q values, changes nothing
//     another access could see, and no two stores of the vector race for one element);
//   - except a store to a buffer that the cooperative reduction keeps in a register stripe and
//     writes in place (core/legality/packing.ts, inPlaceStripe): `cachedStores` lists it, and the
//     emitter and the cost model pack it only where the plan caches its buffer. Every read of such
//     a buffer after the fill reads the worker's registers, not memory, and every store writes the
//     writing worker's own stripe element, so no access can see the order of the Q writes;
//   - except, in the fused element grid, an update in place: a buffer whose one store in the
//     whole document is a statement of this site, and every load of which sits in this site at
//     or before that statement with the store's index exactly (the same expressions). Per value
//     the scalar form reads its element and then writes it, and no value reads an element
//     another value writes (the addresses are consecutive and distinct), so reading the Q
//     elements first (packed) and writing them after the Q values (packed) is the same.
// Bounds: the packed access covers exactly the Q addresses the scalar form would use; the emitter
// uses it only for a vector whose Q values are all in the loop's range (the scalar guard holds
// for each), and keeps the scalar form for a ragged last vector.

import { Doc, Expr, Stmt } from "../ir/ast";

/** Elements of one packed access (packed_float4 / packed_int4). */
export const PACK_WIDTH: i32 = 4;

/** The accesses of one site that are packed. Loads are expression nodes, stores statements. */
export class VectorAccesses {
  loads: Array<Expr> = new Array<Expr>();
  stores: Array<Stmt> = new Array<Stmt>();
  /** Stores packable only where the plan keeps their buffer, which the kernel also loads, in a
   *  cached register stripe written in place (see the file comment); not in `stores`. */
  cachedStores: Array<Stmt> = new Array<Stmt>();
}

/** Elements of one vector access for vector width V: PACK_WIDTH when it divides V, else V. */
export function packWidth(V: i32): i32 {
  return V >= PACK_WIDTH && V % PACK_WIDTH == 0 ? PACK_WIDTH : V;
}

/** True when a vector width is realized with packed accesses. */
export function packs(V: i32): bool {
  return packWidth(V) == PACK_WIDTH;
}

function collectExprAccess(e: Expr, loads: Array<string>): void {
  if (e.op == "load" && loads.indexOf(e.name) < 0) loads.push(e.name);
  for (let i: i32 = 0; i < e.args.length; i++) collectExprAccess(e.args[i], loads);
}

function collectAccess(list: Array<Stmt>, loads: Array<string>, stores: Array<string>): void {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    collectExprAccess(s.min, loads);
    collectExprAccess(s.extent, loads);
    collectExprAccess(s.step, loads);
    collectExprAccess(s.value, loads);
    collectExprAccess(s.cond, loads);
    for (let k: i32 = 0; k < s.at.length; k++) collectExprAccess(s.at[k], loads);
    if (s.kind == "store" && stores.indexOf(s.name) < 0) stores.push(s.name);
    collectAccess(s.body, loads, stores);
    collectAccess(s.orelse, loads, stores);
  }
}

/** Names bound inside a statement list (lets, loop variables, reduce names and axes). */
function collectBound(list: Array<Stmt>, out: Array<string>): void {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "let" || s.kind == "for" || s.kind == "reduce") out.push(s.name);
    if (s.kind == "reduce") out.push(s.axis);
    collectBound(s.body, out);
    collectBound(s.orelse, out);
  }
}

/** The store statements to `buffer` in `list`, nested ones included. */
export function countStores(list: Array<Stmt>, buffer: string): i32 {
  let n: i32 = 0;
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "store" && s.name == buffer) n++;
    n += countStores(s.body, buffer) + countStores(s.orelse, buffer);
  }
  return n;
}

/** True when `e` mentions the name `v` or any of `names`. */
export function mentionsAny(e: Expr, v: string, names: Array<string>): bool {
  if (e.op == "name" && (e.name == v || names.indexOf(e.name) >= 0)) return true;
  for (let i: i32 = 0; i < e.args.length; i++) if (mentionsAny(e.args[i], v, names)) return true;
  return false;
}

/** An i32 expression of literals and sizes only, with no operator that can trap or wrap oddly. */
function constantOffset(e: Expr): bool {
  if (e.ty != "i32") return false;
  if (e.op == "int") return true;
  if (e.op == "name") return e.ref == "size";
  if (e.op == "add" || e.op == "sub" || e.op == "mul" || e.op == "neg") {
    for (let i: i32 = 0; i < e.args.length; i++) if (!constantOffset(e.args[i])) return false;
    return true;
  }
  return false;
}

/** Structurally equal expressions (same operators, literals, names and operands). */
export function sameExpr(a: Expr, b: Expr): bool {
  if (a.op != b.op || a.ival != b.ival || a.fval != b.fval || a.name != b.name || a.args.length != b.args.length) return false;
  for (let i: i32 = 0; i < a.args.length; i++) if (!sameExpr(a.args[i], b.args[i])) return false;
  return true;
}

function isVar(e: Expr, v: string): bool {
  return e.op == "name" && e.name == v && e.ref != "size";
}

/** The index list addresses consecutive elements as v steps by 1 (see the file comment). */
export function contiguousIn(at: Array<Expr>, v: string, bound: Array<string>): bool {
  if (at.length == 0) return false;
  for (let d: i32 = 0; d + 1 < at.length; d++) if (mentionsAny(at[d], v, bound)) return false;
  const last = at[at.length - 1];
  if (isVar(last, v)) return true;
  if (last.op == "add" && last.args.length == 2) {
    if (isVar(last.args[0], v) && constantOffset(last.args[1])) return true;
    if (isVar(last.args[1], v) && constantOffset(last.args[0])) return true;
  }
  if (last.op == "sub" && last.args.length == 2) {
    if (isVar(last.args[0], v) && constantOffset(last.args[1])) return true;
  }
  return false;
}

/**
 * For the cost model only (nothing here is a proof): whether the index list addresses
 * consecutive elements as `v` steps by 1, except where a run of `minRun` or more values of v
 * ends. The last index is `v % K` (K a literal or a size of at least `minRun`) plus terms that
 * mention neither v nor a name of `bound` and hold no load, and every other index uses `v` only as `v / M` with M a multiple of K: a flattened
 * nest's decoding of its program index (nest.ts: b = p / C, c = p % C), or a stripe written so
 * (X[n, c, k / W, k % W]), reads K neighbouring elements for v = aK .. aK + K - 1. Names in
 * `bound` (varying with v) may appear in no index.
 */
export function contiguousDecoded(doc: Doc, at: Array<Expr>, v: string, bound: Array<string>, minRun: i32): bool {
  if (at.length == 0) return false;
  const K: i32 = modTermOf(doc, at[at.length - 1], v, bound, true);
  if (K < minRun) return false;
  for (let d: i32 = 0; d + 1 < at.length; d++) if (!onlyQuotientOf(doc, at[d], v, bound, K)) return false;
  return true;
}

/**
 * For the cost model only: whether every index uses `v` only as `v / M` with M at least
 * `minRun` (a literal or a size), and names none of `bound`: every v of a run of M reads the same
 * element (a flattened nest's I[p / D, k] for the D programs of one b), so neighbouring lanes
 * read one address.
 */
export function uniformDecoded(doc: Doc, at: Array<Expr>, v: string, bound: Array<string>, minRun: i32): bool {
  for (let d: i32 = 0; d < at.length; d++) if (!onlyQuotientOf(doc, at[d], v, bound, minRun)) return false;
  return true;
}

/** In the sum `e` (add and sub), the divisor K of its one added term `v % K`: 0 where there is
 *  none, -1 where there are several, it is subtracted, or another term mentions v or a name of
 *  `bound` or holds a load. */
function modTermOf(doc: Doc, e: Expr, v: string, bound: Array<string>, plus: bool): i32 {
  if (e.op == "add" || e.op == "sub") {
    const a: i32 = modTermOf(doc, e.args[0], v, bound, plus);
    const b: i32 = modTermOf(doc, e.args[1], v, bound, e.op == "add" ? plus : !plus);
    if (a < 0 || b < 0 || (a > 0 && b > 0)) return -1;
    return a > 0 ? a : b;
  }
  if (e.op == "mod" && e.args.length == 2 && isVar(e.args[0], v)) {
    const K: i32 = divisorOf(doc, e.args[1]);
    return plus && K > 0 ? K : -1;
  }
  return mentionsAny(e, v, bound) || holdsLoad(e) ? -1 : 0;
}

/** A positive divisor's value: an int literal or a size (0 otherwise). */
function divisorOf(doc: Doc, e: Expr): i32 {
  if (e.op == "int") return e.ival > 0 ? e.ival : 0;
  if (e.op == "name" && e.ref == "size") {
    const k: i32 = doc.size(e.name);
    return k > 0 ? k : 0;
  }
  return 0;
}

/** `e` uses `v` only inside `v / M` with M a positive multiple of K, and names none of `bound`. */
function onlyQuotientOf(doc: Doc, e: Expr, v: string, bound: Array<string>, K: i32): bool {
  if (e.op == "div" && e.args.length == 2 && isVar(e.args[0], v)) {
    const M: i32 = divisorOf(doc, e.args[1]);
    return M > 0 && M % K == 0;
  }
  if (e.op == "name" && (isVar(e, v) || bound.indexOf(e.name) >= 0)) return false;
  for (let i: i32 = 0; i < e.args.length; i++) if (!onlyQuotientOf(doc, e.args[i], v, bound, K)) return false;
  return true;
}

/**
 * For the cost model only: a flat index written by hand, X[r * C + c]: the last index is a sum
 * (add and sub) with the term `v` once, added, and other terms that mention neither `v` nor a
 * name of `bound` and hold no load; no other index mentions them. Neighbouring values of v then
 * read neighbouring elements (the other terms are the same for the lanes that differ in v).
 */
export function contiguousSum(at: Array<Expr>, v: string, bound: Array<string>): bool {
  if (at.length == 0) return false;
  for (let d: i32 = 0; d + 1 < at.length; d++) if (mentionsAny(at[d], v, bound)) return false;
  return sumTermsOf(at[at.length - 1], v, bound, true) == 1;
}

/** How many times `v` is a whole added term of the sum `e` (sign `plus`), or -1 where a term
 *  mentions v or a bound name otherwise, or holds a load. */
function sumTermsOf(e: Expr, v: string, bound: Array<string>, plus: bool): i32 {
  if (e.op == "add" || e.op == "sub") {
    const a: i32 = sumTermsOf(e.args[0], v, bound, plus);
    const b: i32 = sumTermsOf(e.args[1], v, bound, e.op == "add" ? plus : !plus);
    return a < 0 || b < 0 ? -1 : a + b;
  }
  if (isVar(e, v)) return plus ? 1 : -1;
  return mentionsAny(e, v, bound) || holdsLoad(e) ? -1 : 0;
}

/** Whether `e` holds a load anywhere. */
export function holdsLoad(e: Expr): bool {
  if (e.op == "load") return true;
  for (let i: i32 = 0; i < e.args.length; i++) if (holdsLoad(e.args[i])) return true;
  return false;
}

/** Element types with a packed vector type (packed_float4, packed_int4, packed_half4,
 *  packed_bfloat4; a 16-bit lane converts to float when read and rounds when written). */
function packable(dtype: string): bool {
  return dtype == "f32" || dtype == "i32" || dtype == "f16" || dtype == "bf16";
}

class Walk {
  doc: Doc;
  v: string;
  bound: Array<string> = new Array<string>();
  loaded: Array<string> = new Array<string>();
  stored: Array<string> = new Array<string>();
  out: VectorAccesses = new VectorAccesses();
  /** The whole site: a packed store must be the only store to its buffer in it. */
  top: Array<Stmt> = new Array<Stmt>();
  /** Buffers updated in place in this site (vectorAccessesOfGrid): packed although both loaded
   *  and stored. */
  inPlace: Array<string> = new Array<string>();

  constructor(doc: Doc, v: string) {
    this.doc = doc;
    this.v = v;
  }

  /** Loads evaluated whenever `e` is. */
  expr(e: Expr): void {
    if (e.op == "load") {
      const p = this.doc.paramIndex(e.name);
      if (p >= 0 && packable(this.doc.params[p].dtype) && (this.stored.indexOf(e.name) < 0 || this.inPlace.indexOf(e.name) >= 0) && contiguousIn(e.args, this.v, this.bound)) {
        this.out.loads.push(e);
      }
      for (let i: i32 = 0; i < e.args.length; i++) this.expr(e.args[i]);
      return;
    }
    if (e.op == "select") {
      this.expr(e.args[0]);
      return;
    }
    if (e.op == "and" || e.op == "or") {
      this.expr(e.args[0]);
      return;
    }
    for (let i: i32 = 0; i < e.args.length; i++) this.expr(e.args[i]);
  }

  list(list: Array<Stmt>): void {
    for (let i: i32 = 0; i < list.length; i++) {
      const s = list[i];
      if (s.kind == "let") {
        this.expr(s.value);
      } else if (s.kind == "if") {
        this.expr(s.cond);
      } else if (s.kind == "store") {
        this.expr(s.value);
        for (let k: i32 = 0; k < s.at.length; k++) this.expr(s.at[k]);
        const p = this.doc.paramIndex(s.name);
        if (p >= 0 && packable(this.doc.params[p].dtype) && countStores(this.top, s.name) == 1 && contiguousIn(s.at, this.v, this.bound)) {
          if (this.loaded.indexOf(s.name) < 0 || this.inPlace.indexOf(s.name) >= 0) this.out.stores.push(s);
          else this.out.cachedStores.push(s);
        }
      }
    }
  }
}

function walkFor(doc: Doc, v: string, list: Array<Stmt>): Walk {
  const w = new Walk(doc, v);
  collectAccess(doc.body, w.loaded, w.stored);
  collectBound(list, w.bound);
  w.top = list;
  return w;
}

/**
 * The packed accesses of a site whose statements `list` run once per value of `v` (the body of
 * a distributed parallel loop, or the innermost body of the element grid).
 */
export function vectorAccessesOfList(doc: Doc, v: string, list: Array<Stmt>): VectorAccesses {
  const w = walkFor(doc, v, list);
  w.list(list);
  return w.out;
}

function loadsOf(e: Expr, buffer: string, out: Array<Expr>): void {
  if (e.op == "load" && e.name == buffer) out.push(e);
  for (let i: i32 = 0; i < e.args.length; i++) loadsOf(e.args[i], buffer, out);
}

/** Every load of `buffer` in a statement list (any depth). */
export function loadsIn(list: Array<Stmt>, buffer: string, out: Array<Expr>): void {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    loadsOf(s.min, buffer, out);
    loadsOf(s.extent, buffer, out);
    loadsOf(s.step, buffer, out);
    loadsOf(s.value, buffer, out);
    loadsOf(s.cond, buffer, out);
    for (let k: i32 = 0; k < s.at.length; k++) loadsOf(s.at[k], buffer, out);
    loadsIn(s.body, buffer, out);
    loadsIn(s.orelse, buffer, out);
  }
}

function sameIndex(a: Array<Expr>, b: Array<Expr>): bool {
  if (a.length != b.length) return false;
  for (let i: i32 = 0; i < a.length; i++) if (!sameExpr(a[i], b[i])) return false;
  return true;
}

/**
 * The packed accesses of the fused element grid's innermost body `list` over `v`: as
 * vectorAccessesOfList, and a buffer updated in place in it (see the file comment) packed too.
 */
export function vectorAccessesOfGrid(doc: Doc, v: string, list: Array<Stmt>): VectorAccesses {
  const w = walkFor(doc, v, list);
  for (let k: i32 = 0; k < list.length; k++) {
    const s = list[k];
    if (s.kind != "store" || w.loaded.indexOf(s.name) < 0 || countStores(doc.body, s.name) != 1) continue;
    const all = new Array<Expr>();
    loadsIn(doc.body, s.name, all);
    const before = new Array<Expr>();
    loadsIn(list.slice(0, k + 1), s.name, before);
    if (before.length != all.length) continue;
    let same = true;
    for (let i: i32 = 0; same && i < before.length; i++) same = sameIndex(before[i].args, s.at);
    if (same) w.inPlace.push(s.name);
  }
  w.list(list);
  return w.out;
}

/** The packed loads of a reduce's value over its axis. */
export function vectorAccessesOfReduce(doc: Doc, s: Stmt): VectorAccesses {
  const w = walkFor(doc, s.axis, new Array<Stmt>());
  w.expr(s.value);
  return w.out;
}
