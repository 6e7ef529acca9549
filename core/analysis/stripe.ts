// Where a stripe variable stands in a load's indices: shared by the legality rule that proves a
// register stripe (core/legality/packing.ts private-ownership) and the emitter that realizes it
// (core/emit/cooperative.ts), so a plan never claims a cache the kernel does not hold.

import { Expr } from "../ir/ast";

/** True when `e` mentions the name `n` (a loop, axis or scalar). */
export function mentions(e: Expr, n: string): bool {
  if (e.op == "name" && e.name == n) return true;
  for (let i: i32 = 0; i < e.args.length; i++) if (mentions(e.args[i], n)) return true;
  return false;
}

/** The index position of a load where the stripe variable `v` stands alone (the last for a row
 *  stripe, another for a column stripe), or -1: `v` must be exactly one index and appear in no
 *  other. */
export function stripeDim(e: Expr, v: string): i32 {
  return stripeDimIn(e.args, v);
}

/** stripeDim of a load's index list. */
export function stripeDimIn(index: Array<Expr>, v: string): i32 {
  let at: i32 = -1;
  for (let d: i32 = 0; d < index.length; d++) {
    const a = index[d];
    if (a.op == "name" && a.name == v) {
      if (at >= 0) return -1;
      at = d;
    } else if (mentions(a, v)) {
      return -1;
    }
  }
  return at;
}
