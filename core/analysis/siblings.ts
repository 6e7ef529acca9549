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
// trees, names); a later member's axis variable of another name is renamed first
// (unifySiblingAxes), so that the choice never depends on what the axes are called.

import { Expr, Stmt } from "../ir/ast";
import { sameExpr } from "./vectors";

/** True when `e` mentions one of `names` (as a name, at any depth). */
function mentionsOneOf(e: Expr, names: Array<string>): bool {
  if (e.op == "name" && names.indexOf(e.name) >= 0) return true;
  for (let i: i32 = 0; i < e.args.length; i++) if (mentionsOneOf(e.args[i], names)) return true;
  return false;
}

/** Whether reduce `s`, right after reduce `p`, joins p's run (`results`: the run's results so
 *  far), were its axis variable named `axis`. */
function joinsRun(p: Stmt, s: Stmt, results: Array<string>, axis: string): bool {
  return axis == p.axis && sameExpr(s.min, p.min) && sameExpr(s.extent, p.extent)
    && results.indexOf(s.name) < 0 && s.name != axis
    && !mentionsOneOf(s.value, results) && !mentionsOneOf(s.min, results) && !mentionsOneOf(s.extent, results);
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
    if (i > 0 && s.kind == "reduce" && list[i - 1].kind == "reduce") joins = joinsRun(list[i - 1], s, results, s.axis);
    if (!joins) results = new Array<string>();
    results.push(s.name);
    out.push(joins);
  }
  return out;
}

/** Renames `from` to `to` in `e` (every name node; an expression binds no name). */
function renameIn(e: Expr, from: string, to: string): void {
  if (e.op == "name" && e.name == from) e.name = to;
  for (let i: i32 = 0; i < e.args.length; i++) renameIn(e.args[i], from, to);
}

/** Structure, not names, decides a sibling run: a reduce that would join the run before it but
 *  for the name of its axis variable (`over: ["d", ...]` after `over: ["c", ...]`, the same range)
 *  gets the earlier axis's name, in its binding and its value, wherever that renaming captures
 *  nothing (the value does not mention the earlier name; the reduce's result is not named so).
 *  The renamed reduce computes the same value (its axis is bound only in its value). Every list
 *  of `list`'s statements, nested ones included; in place. */
export function unifySiblingAxes(list: Array<Stmt>): void {
  let results = new Array<string>();
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    let joins: bool = false;
    if (i > 0 && s.kind == "reduce" && list[i - 1].kind == "reduce") {
      const p = list[i - 1];
      joins = joinsRun(p, s, results, s.axis);
      if (!joins && s.axis != p.axis && joinsRun(p, s, results, p.axis)) {
        const names = new Array<string>();
        names.push(p.axis);
        if (!mentionsOneOf(s.value, names)) {
          renameIn(s.value, s.axis, p.axis);
          s.axis = p.axis;
          joins = true;
        }
      }
    }
    if (!joins) results = new Array<string>();
    results.push(s.name);
    unifySiblingAxes(s.body);
    unifySiblingAxes(s.orelse);
  }
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
