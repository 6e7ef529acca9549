// Whether a buffer's initial contents can reach any result: a buffer both read and written whose
// every load reads, in program order, an element the buffer's one store has already written
// (a scratch buffer `T[r, c] = f(X)` then `Y[r, c] = g(T[r, c])`) computes the same results
// whatever it held before the kernel. The export uses it (TEX001): MLX hands a kernel fresh output
// arrays, which such a buffer can be. Program order is the oracle's; an admitted plan computes
// what the oracle computes, so what holds for the program holds for the kernel.
//
// Sufficient conditions (anything else answers false):
//   - the buffer has exactly one store, not under an `if`, with an affine index in every dimension,
//     and every loop around the store runs at least once (constant extent >= 1);
//   - every load comes after the store in program order and is not part of the store itself (the
//     store's own value or index is read before the element is written);
//   - the load's index is the store's in every dimension: the same constant, the same coefficient
//     of every loop variable, where a variable of a loop around both names the same iteration,
//     and one of a loop around the load only stands for the store's loop at the same depth, with
//     the same constant range (that loop has run every iteration before the load).

import { Doc, Stmt } from "../ir/ast";
import { Affine } from "../ir/affine";
import { recognize } from "../analysis/structure";
import { Facts, LoopInfo, Site, collectFacts, loopLevel } from "./facts";

function sameConstRange(a: LoopInfo, b: LoopInfo): bool {
  return a.minConst && a.extentConst && a.stepConst && b.minConst && b.extentConst && b.stepConst &&
    a.min == b.min && a.extent == b.extent && a.step == b.step && a.extent >= 1.0;
}

/** Whether the load's index form `a` names, at the load, the element the store's form `b` wrote
 *  (the loops of depth below `shared` are the same statements around both). */
function sameElement(a: Affine, l: Site, b: Affine, s: Site, shared: i32): bool {
  if (a.c != b.c) return false;
  const sa = a.support();
  const sb = b.support();
  if (sa.length != sb.length) return false;
  for (let i: i32 = 0; i < sa.length; i++) {
    const k = loopLevel(l.loops, sa[i]);
    if (k < 0 || k >= s.loops.length) return false;
    const other = s.loops[k];
    if (loopLevel(s.loops, other.name) != k) return false;
    if (b.coef(other.name) != a.coef(sa[i])) return false;
    if (k >= shared && !sameConstRange(l.loops[k], other)) return false;
  }
  return true;
}

/** The accesses of the document as written, for the questions below (the export asks them for
 *  every parameter: collect once). */
export function documentFacts(doc: Doc): Facts {
  const st = recognize(doc);
  const pl = st.programLoop;
  return collectFacts(doc, pl === null ? null : changetype<Stmt>(pl), st.distribution);
}

export function initialContentsUnread(f: Facts, buffer: string): bool {
  const stores = f.storesTo(buffer);
  if (stores.length != 1) return false;
  const s = stores[0];
  if (s.guarded || !s.allAffine()) return false;
  for (let k: i32 = 0; k < s.loops.length; k++) {
    const lp = s.loops[k];
    if (!lp.extentConst || lp.extent < 1.0) return false;
  }
  const loads = f.loadsOf(buffer);
  for (let i: i32 = 0; i < loads.length; i++) {
    const l = loads[i];
    if ((l.store !== null && l.store === s.store) || l.seq < s.seq) return false;
    if (!l.allAffine() || l.forms.length != s.forms.length) return false;
    let shared: i32 = 0;
    while (shared < l.loops.length && shared < s.loops.length && l.loops[shared] === s.loops[shared]) shared++;
    for (let d: i32 = 0; d < l.forms.length; d++) {
      if (!sameElement(changetype<Affine>(l.forms[d]), l, changetype<Affine>(s.forms[d]), s, shared)) return false;
    }
  }
  return true;
}

/** Whether one store to `buffer` is proven to write every element of it: a store not under an
 *  `if`, whose loops all have a constant range of at least one iteration, and whose index in
 *  each dimension is one loop variable (a distinct one per dimension, unit step) with coefficient
 *  +1 or -1 plus a constant, mapping that loop's range onto the dimension's [0, extent) exactly,
 *  or the constant 0 in a dimension of extent 1. Anything else answers false (not proven: a store
 *  under an `if`, a triangular loop, two stores that write a half each). The export uses it
 *  (TEX005): a module returns such a buffer as a fresh array, so what the kernel does not store
 *  there is 0, where `tile run` and the metal target keep what the buffer held. */
export function storesCoverBuffer(doc: Doc, f: Facts, buffer: string): bool {
  const p = doc.paramIndex(buffer);
  if (p < 0) return false;
  const stores = f.storesTo(buffer);
  for (let i: i32 = 0; i < stores.length; i++) {
    if (storeCovers(doc, p, stores[i])) return true;
  }
  return false;
}

function storeCovers(doc: Doc, p: i32, s: Site): bool {
  if (s.guarded || !s.allAffine()) return false;
  for (let k: i32 = 0; k < s.loops.length; k++) {
    if (!s.loops[k].exact) return false;
  }
  const used = new Array<string>();
  for (let d: i32 = 0; d < s.forms.length; d++) {
    const a = changetype<Affine>(s.forms[d]);
    const extent: f64 = <f64>doc.dim(p, d);
    const sup = a.support();
    if (sup.length == 0) {
      if (a.c != 0.0 || extent != 1.0) return false;
      continue;
    }
    if (sup.length != 1 || used.indexOf(sup[0]) >= 0) return false;
    used.push(sup[0]);
    const k = loopLevel(s.loops, sup[0]);
    if (k < 0) return false;
    const l = s.loops[k];
    if (l.step != 1.0) return false;
    const c = a.coef(sup[0]);
    let lo: f64 = 0.0;
    let hi: f64 = 0.0;
    if (c == 1.0) {
      lo = l.lo + a.c;
      hi = l.hi + a.c;
    } else if (c == -1.0) {
      lo = a.c - l.hi;
      hi = a.c - l.lo;
    } else {
      return false;
    }
    if (lo != 0.0 || hi != extent - 1.0) return false;
  }
  return true;
}
