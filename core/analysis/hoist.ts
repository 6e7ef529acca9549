// Which distributed parallel loops may compute the values of several chunks before storing any
// of them (core/emit/cooperative.ts, "values first"). In a loop that loads and stores, the
// compiler keeps every load below the stores before it (nothing tells it the buffers do not
// alias), so each chunk waits for its load: one load in flight per thread (run 67: the column
// softmax and scaled mean at 16384x512, 74-87 us with U = 8 as before, 42-63 us with the eight
// chunks' values computed first). Computing the values first reorders loads above stores; that
// is the program's meaning where the loop body is only stores, no load in it reads a buffer the
// body stores, and the parameters are distinct memory (the cooperative realization requires the
// noalias rule). Shared by the emitter and the cost model (core/cost/work.ts), so what is scored
// is what is emitted.

import { Expr, Stmt } from "../ir/ast";
import { mentionsAny } from "./vectors";
import { idiv } from "../util/text";

const NO_NAMES: Array<string> = new Array<string>();

function loadsBuffer(e: Expr, names: Array<string>): bool {
  if (e.op == "load" && names.indexOf(e.name) >= 0) return true;
  for (let i: i32 = 0; i < e.args.length; i++) if (loadsBuffer(e.args[i], names)) return true;
  return false;
}

/** Whether `body` (a distributed parallel loop's) is one or more stores whose values and indices
 *  load no buffer any of them stores. */
export function valuesBeforeStores(body: Array<Stmt>): bool {
  if (body.length == 0) return false;
  const stored = new Array<string>();
  for (let i: i32 = 0; i < body.length; i++) {
    const s = body[i];
    if (s.kind != "store") return false;
    if (stored.indexOf(s.name) < 0) stored.push(s.name);
  }
  for (let i: i32 = 0; i < body.length; i++) {
    const s = body[i];
    if (loadsBuffer(s.value, stored)) return false;
    for (let k: i32 = 0; k < s.at.length; k++) if (loadsBuffer(s.at[k], stored)) return false;
  }
  return true;
}

function collectVaryingLoads(e: Expr, v: string, out: Array<string>): void {
  if (e.op == "load" && out.indexOf(e.name) < 0) {
    let varies = false;
    for (let i: i32 = 0; i < e.args.length; i++) if (mentionsAny(e.args[i], v, NO_NAMES)) varies = true;
    if (varies) out.push(e.name);
  }
  for (let i: i32 = 0; i < e.args.length; i++) collectVaryingLoads(e.args[i], v, out);
}

/** The buffers a loop body over `v` loads at an index that moves with `v` (each once): the loads
 *  that go to memory every iteration. A load at an index without `v` reads the same element in
 *  every iteration, from the cache after the first. */
export function varyingLoads(body: Array<Stmt>, v: string): Array<string> {
  const out = new Array<string>();
  for (let i: i32 = 0; i < body.length; i++) {
    const s = body[i];
    if (s.kind != "store") continue;
    collectVaryingLoads(s.value, v, out);
    for (let k: i32 = 0; k < s.at.length; k++) collectVaryingLoads(s.at[k], v, out);
  }
  return out;
}

/** Of a stripe of `extent` elements in chunks of `per` (W * V) run U at a time: the chunks the
 *  unguarded loop takes (whole U-chunk iterations of whole chunks); the rest are the guarded
 *  last chunks, one at a time. The emitter lays the stripe out by it, the cost model counts its
 *  waits by it. */
export function wholeChunkEnd(extent: i32, per: i32, U: i32): i32 {
  const full: i32 = per > 0 ? idiv(extent, per) : 0;
  return U > 1 ? full - full % U : full;
}
