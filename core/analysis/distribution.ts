// Which statements of a cooperative program run where: the one description that the legality
// rules (through core/legality/facts.ts) and the emitter (core/emit/cooperative.ts) both read, so
// what is proven and what is emitted agree by construction.
//
// Only program-level statements (the program loop's body, and the bodies of serial wrappers
// that hold a reduce) get a role; everything nested in a statement runs where that statement
// runs:
//   RUN_DISTRIBUTED  a reduce (its axis) or a parallel loop holding no reduce: its iterations are
//                    split over the program's W workers in stripes;
//   RUN_EVERY        a let, or a serial wrapper holding a reduce: every worker runs it
//                    (redundantly, on values every worker has);
//   RUN_ONE          anything else (a store, an if, a serial loop without a reduce, and every
//                    parallel loop nested in those): worker 0 alone runs it, serially, in order.

import { Stmt } from "../ir/ast";

export const RUN_DISTRIBUTED: string = "distributed";
export const RUN_EVERY: string = "every";
export const RUN_ONE: string = "one";

export class Distribution {
  /** Program-level statements, in program order (wrapper bodies follow their wrapper). */
  stmts: Array<Stmt> = new Array<Stmt>();
  /** The role of each, RUN_DISTRIBUTED, RUN_EVERY or RUN_ONE. */
  roles: Array<string> = new Array<string>();

  /** The role of a program-level statement, or "" for a statement that has none. */
  roleOf(s: Stmt): string {
    for (let i: i32 = 0; i < this.stmts.length; i++) if (this.stmts[i] === s) return this.roles[i];
    return "";
  }
}

/** True when the list and everything nested in it holds a reduce. */
export function containsReduce(list: Array<Stmt>): bool {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "reduce") return true;
    if (containsReduce(s.body) || containsReduce(s.orelse)) return true;
  }
  return false;
}

/** A serial loop holding a reduce: every worker runs its body (the reduce's collectives). */
export function isWrapper(s: Stmt): bool {
  return s.kind == "for" && !s.parallel && containsReduce(s.body);
}

function roleFor(s: Stmt): string {
  if (s.kind == "reduce") return RUN_DISTRIBUTED;
  if (s.kind == "for" && s.parallel && !containsReduce(s.body)) return RUN_DISTRIBUTED;
  if (s.kind == "let" || isWrapper(s)) return RUN_EVERY;
  return RUN_ONE;
}

function addList(list: Array<Stmt>, d: Distribution): void {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    d.stmts.push(s);
    d.roles.push(roleFor(s));
    if (isWrapper(s)) addList(s.body, d);
  }
}

/** The roles of the program loop's body (empty for a null loop). */
export function distribute(programLoop: Stmt | null): Distribution {
  const d = new Distribution();
  if (programLoop !== null) addList(changetype<Stmt>(programLoop).body, d);
  return d;
}
