// Proven write conflicts between parallel iterations (TPL001). These reject a document outright:
// the author's `parallel` claim is false whatever the realization.
//
// A store conflicts when it is unconditional, every index is affine, and for some enclosing
// parallel loop p with constant extent >= 2 every index has coefficient 0 for p's variable,
// while every other enclosing loop provably runs (constant extent >= 1) and the loops inside p
// have constant min, extent and step. Then any two iterations of p write the same elements
// (for instance the element at the inner loops' first iteration).

import { Doc, Stmt } from "../ir/ast";
import { Affine } from "../ir/affine";
import { Structure } from "../analysis/structure";
import { Diagnostic, diag } from "../diag/diagnostic";
import { Facts, Site, collectFacts } from "./facts";
import { num, quoted } from "./verdict";

/** Index k of the outermost parallel loop over which store `s` provably conflicts, or -1. */
function conflictLoop(s: Site): i32 {
  if (s.guarded || !s.allAffine()) return -1;
  for (let k: i32 = 0; k < s.loops.length; k++) {
    const p = s.loops[k];
    if (!p.isParallel() || !p.extentConst || p.extent < 2.0) continue;
    let independent = true;
    for (let d: i32 = 0; d < s.forms.length; d++) {
      if (changetype<Affine>(s.forms[d]).coef(p.name) != 0.0) independent = false;
    }
    if (!independent) continue;
    let runs = true;
    for (let j: i32 = 0; j < s.loops.length; j++) {
      if (j == k) continue;
      const l = s.loops[j];
      if (!l.extentConst || l.extent < 1.0) runs = false;
      if (j > k && (!l.minConst || !l.stepConst)) runs = false;
    }
    if (runs) return k;
  }
  return -1;
}

/** One TPL001 diagnostic per store that two iterations of a parallel loop provably share. */
export function writeConflicts(doc: Doc, structure: Structure): Array<Diagnostic> {
  const pl = structure.programLoop;
  return writeConflictsIn(collectFacts(doc, pl === null ? null : changetype<Stmt>(pl), structure.distribution));
}

/** writeConflicts over facts already collected (for the structure's program loop and roles). */
export function writeConflictsIn(f: Facts): Array<Diagnostic> {
  const out = new Array<Diagnostic>();
  for (let i: i32 = 0; i < f.stores.length; i++) {
    const s = f.stores[i];
    const k = conflictLoop(s);
    if (k < 0) continue;
    const p = s.loops[k];
    out.push(diag("TPL001", s.ptr, "Every one of the " + num(p.extent) + " iterations of the parallel loop " + quoted(p.name) + " stores to the same elements of " + quoted(s.buffer) + " (no index depends on " + quoted(p.name) + "); index the store by " + quoted(p.name) + " or make the loop serial."));
  }
  return out;
}
