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
import { LoopInfo, Site, collectFacts, loopLevel } from "./facts";

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

export function initialContentsUnread(doc: Doc, buffer: string): bool {
  const st = recognize(doc);
  const pl = st.programLoop;
  const f = collectFacts(doc, pl === null ? null : changetype<Stmt>(pl), st.distribution);
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
