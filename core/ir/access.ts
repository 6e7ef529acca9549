// Which buffers a document loads and which it stores, in first-use order. Shared by family
// recognition and the calling convention, so both read the same answer from one walk.

import { Expr, Stmt } from "./ast";

function exprLoads(e: Expr, out: Array<string>): void {
  if (e.op == "load" && out.indexOf(e.name) < 0) out.push(e.name);
  for (let i: i32 = 0; i < e.args.length; i++) exprLoads(e.args[i], out);
}

/** Appends every loaded buffer to `loads` and every stored buffer to `stores` (each once). */
export function collectAccess(list: Array<Stmt>, loads: Array<string>, stores: Array<string>): void {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "store" && stores.indexOf(s.name) < 0) stores.push(s.name);
    exprLoads(s.min, loads);
    exprLoads(s.extent, loads);
    exprLoads(s.step, loads);
    exprLoads(s.value, loads);
    exprLoads(s.cond, loads);
    for (let k: i32 = 0; k < s.at.length; k++) exprLoads(s.at[k], loads);
    collectAccess(s.body, loads, stores);
    collectAccess(s.orelse, loads, stores);
  }
}
