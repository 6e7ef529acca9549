// Sibling reduces: neighbouring reduce statements of one program list that walk the same range
// with the same axis variable, none reading a result of the others, are computed in one pass of
// the stripe (core/emit/cooperative.ts): each element is loaded once and combined into every
// accumulator of the run. A column or row max and min (two reduces of X over r) then read X once
// instead of twice. The cost model (core/cost/work.ts) reads the same decision and charges the
// run as one stage, an access repeated in a later member at the same address costing nothing
// (the emitted element block holds both loads, with no store between them, so the compiler keeps
// one; packed loads are shared explicitly, core/emit/vector.ts).
//
// Why the result is unchanged: each accumulator sees the same elements in the same order,
// combined by the same operation, as in its own pass; a member's value, range and axis depend on
// nothing the run computes (no member reads another member's result), and between the members
// there is no statement. Only the order in which the accumulators are updated interleaves, and
// they are separate registers. Decided from the IR's structure only (statement kinds, expression
// trees, names).

import { Expr, Stmt } from "../ir/ast";
import { sameExpr } from "./vectors";

/** True when `e` mentions one of `names` (as a name, at any depth). */
function mentionsOneOf(e: Expr, names: Array<string>): bool {
  if (e.op == "name" && names.indexOf(e.name) >= 0) return true;
  for (let i: i32 = 0; i < e.args.length; i++) if (mentionsOneOf(e.args[i], names)) return true;
  return false;
}

/** For each statement of `list`, whether it is a reduce computed in the same stripe pass as the
 *  one before it (a sibling run's member after the first). One pass over the list: callers
 *  compute it once per list and index it. */
export function siblingJoins(list: Array<Stmt>): Array<bool> {
  const out = new Array<bool>();
  // the results of the run so far: none may be read by the next member, nor rebound by it
  let results = new Array<string>();
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    let joins: bool = false;
    if (i > 0 && s.kind == "reduce" && list[i - 1].kind == "reduce") {
      const p = list[i - 1];
      joins = s.axis == p.axis && sameExpr(s.min, p.min) && sameExpr(s.extent, p.extent)
        && results.indexOf(s.name) < 0 && s.name != s.axis
        && !mentionsOneOf(s.value, results) && !mentionsOneOf(s.min, results) && !mentionsOneOf(s.extent, results);
    }
    if (!joins) results = new Array<string>();
    results.push(s.name);
    out.push(joins);
  }
  return out;
}

/** The number of statements from index i on in its sibling run, from `siblingJoins` of the list
 *  (1 when the statement is alone or not a reduce). */
export function siblingRunLength(joins: Array<bool>, i: i32): i32 {
  let n: i32 = 1;
  while (i + n < joins.length && joins[i + n]) n = n + 1;
  return n;
}

/** Loads in `e` at addresses not already in `out`, in evaluation order, appended to `out`. */
export function loadsOf(e: Expr, out: Array<Expr>): void {
  if (e.op == "load" && !loadIn(e, out)) out.push(e);
  for (let i: i32 = 0; i < e.args.length; i++) loadsOf(e.args[i], out);
}

/** True when `e` is a load at the address of one of `earlier` (the same buffer, the same index
 *  expressions). */
export function loadIn(e: Expr, earlier: Array<Expr>): bool {
  if (e.op != "load") return false;
  for (let i: i32 = 0; i < earlier.length; i++) if (sameExpr(earlier[i], e)) return true;
  return false;
}
