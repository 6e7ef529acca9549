// Store-to-load forwarding of a program's scalar results. A program that stores one value per
// program (`S[r] = s`, with `s` a reduce's result or a `let`) and later loads that element back
// (`Y[r, c] = X[r, c] - S[r]`) reads what it has just written: in the cooperative reduction that
// load runs on every worker while the store runs on worker 0 alone, a hand-off between workers
// the proofs refuse (pure-expression). The load's value is known without memory: it is the stored
// value, so the document is planned with the load replaced by that value. Exactly the same result:
//   - the store sits directly in the program loop's body (unconditional, once per program), and
//     the load in a later statement of that body (or nested inside one), so it runs after the
//     store in program order, in the same program;
//   - the load's index is the store's index, structurally, built only from literals, sizes, the
//     program variable and scalars (names the validator keeps unique and never shadowed, so the
//     index means the same element at both places);
//   - the buffer has no other store anywhere in the document (nothing else can change the element);
//   - the stored value is a scalar's name or a literal of the buffer's own dtype, f32 or i32
//     (storing and loading it changes no bit; a 16-bit buffer would round, and is left alone).
// The oracle still evaluates the document as written, so the validation checks the rewrite.

import { Doc, Expr, Stmt, copyExpr } from "../ir/ast";
import { countStores, sameExpr } from "./vectors";

/** An index expression that means the same value everywhere in the program body after the store. */
function programUniform(e: Expr, program: string): bool {
  if (e.op == "load") return false;
  if (e.op == "name") return e.ref == "size" || e.ref == "scalar" || (e.ref == "loop" && e.name == program);
  for (let i: i32 = 0; i < e.args.length; i++) if (!programUniform(e.args[i], program)) return false;
  return true;
}

function sameIndex(a: Array<Expr>, b: Array<Expr>): bool {
  if (a.length != b.length) return false;
  for (let i: i32 = 0; i < a.length; i++) if (!sameExpr(a[i], b[i])) return false;
  return true;
}

class Forwarder {
  store: Stmt;
  count: i32 = 0;

  constructor(store: Stmt) {
    this.store = store;
  }

  /** `e` with every load of the stored element replaced by a copy of the stored value. */
  expr(e: Expr): Expr {
    if (e.op == "load" && e.name == this.store.name && sameIndex(e.args, this.store.at)) {
      this.count++;
      return copyExpr(this.store.value, e.ptr);
    }
    if (e.args.length > 0) {
      for (let i: i32 = 0; i < e.args.length; i++) e.args[i] = this.expr(e.args[i]);
    }
    return e;
  }

  list(list: Array<Stmt>): void {
    for (let i: i32 = 0; i < list.length; i++) this.stmt(list[i]);
  }

  stmt(s: Stmt): void {
    s.min = this.expr(s.min);
    s.extent = this.expr(s.extent);
    s.step = this.expr(s.step);
    s.value = this.expr(s.value);
    s.cond = this.expr(s.cond);
    for (let k: i32 = 0; k < s.at.length; k++) s.at[k] = this.expr(s.at[k]);
    this.list(s.body);
    this.list(s.orelse);
  }
}

/** Rewrites `program`'s body in place (see the file comment); one note per forwarded store. */
export function forwardProgramStores(doc: Doc, program: Stmt): Array<string> {
  const notes = new Array<string>();
  const body = program.body;
  for (let i: i32 = 0; i < body.length; i++) {
    const s = body[i];
    if (s.kind != "store") continue;
    const pi = doc.paramIndex(s.name);
    if (pi < 0) continue;
    const dtype = doc.params[pi].dtype;
    const v = s.value;
    const simple: bool = (v.op == "name" && v.ref == "scalar") || v.op == "f32" || v.op == "int";
    if (!simple || v.ty != dtype || (dtype != "f32" && dtype != "i32")) continue;
    if (countStores(doc.body, s.name) != 1) continue;
    let uniform: bool = s.at.length > 0;
    for (let k: i32 = 0; uniform && k < s.at.length; k++) uniform = programUniform(s.at[k], program.name);
    if (!uniform) continue;
    const f = new Forwarder(s);
    for (let j: i32 = i + 1; j < body.length; j++) f.stmt(body[j]);
    if (f.count == 0) continue;
    const what: string = v.op == "name" ? "\"" + v.name + "\"" : "a literal";
    const self: string = v.op == "name" ? "\"" + v.name + "\" itself" : "the literal itself";
    notes.push("The program stores " + what + " to \"" + s.name + "\" (at " + s.ptr + ") and reads that element back " + f.count.toString() +
      (f.count == 1 ? " time" : " times") + " later in the same program: " + (f.count == 1 ? "the read uses " : "the reads use ") + self +
      " instead of memory (the same " + dtype + " value), so no worker waits for another's store.");
  }
  return notes;
}
