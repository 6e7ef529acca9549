// Whether the programs of the top-level parallel loop are proven independent of one another,
// for the serial fallback. The document's `parallel` is never taken as evidence: the serial
// program runs one thread per program (concurrently, in no order) only when distinct programs are
// proven to touch distinct elements of every buffer written (no write-write and no read-write
// between programs, the same proof independent-store makes across programs); otherwise one thread
// runs every program in order, the oracle's order, which is correct by construction.

import { Doc, Stmt } from "../ir/ast";
import { RuleResult } from "../plan/plan";
import { Structure } from "../analysis/structure";
import { collectFacts } from "./facts";
import { checkAcrossPrograms } from "./packing";
import { Verdict } from "./verdict";

export const PROGRAMS_INDEPENDENT: string = "independent-programs";

/** `holds` when distinct programs provably never touch one element that one of them writes. */
export function checkProgramsIndependent(doc: Doc, st: Structure, programs: i32): RuleResult {
  const v = new Verdict(PROGRAMS_INDEPENDENT);
  const pl = st.programLoop;
  if (pl === null) {
    v.unknown("The top level is not a single parallel loop, so there are no programs to run apart.", "/body");
    return v.result("");
  }
  const loop = changetype<Stmt>(pl);
  if (programs == 1) return v.result("There is one program.");
  if (!doc.noalias) {
    v.unknown("The document does not state \"attrs\": {\"noalias\": true}, so two parameters may share memory and no two programs can be shown to touch different elements.", doc.noaliasPtr);
    return v.result("");
  }
  checkAcrossPrograms(collectFacts(doc, loop, st.distribution), loop.name, v);
  return v.result("Distinct programs touch distinct elements of every buffer written (each pair of stores, and each load with the stores of its buffer, is separated by the program variable " +
    "\"" + loop.name + "\" or by disjoint index ranges), so they may run concurrently in any order.");
}
