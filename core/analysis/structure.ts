// Family recognition, from the structure of the IR alone (never a name):
//  - reduction family: the single top-level statement is a parallel loop (the program loop) whose
//    body holds at least one `reduce`, directly or inside serial wrapper loops; one logical
//    program per iteration.
//  - element family: nested parallel loops whose bodies hold only parallel loops, let, if and
//    store (several sibling nests are allowed; the fusion rule same-domain decides whether they
//    share one grid). `domainLoops` is the first nest, outermost first.
//  - otherwise the serial program-per-worker fallback (one worker per iteration of the top-level
//    parallel loop, or a single worker when the top level is not one parallel loop).

import { Doc, Stmt } from "../ir/ast";
import { collectAccess } from "../ir/access";
import { Distribution, containsReduce, distribute } from "./distribution";

export { containsReduce };

export class Structure {
  /** "reduction", "element" or "serial". */
  family: string = "serial";
  /** Why the document is not in a packable family (empty when it is). */
  why: string = "";
  /** The statement `why` is about (its JSON pointer), or "" for the top level. */
  whyPtr: string = "";
  /** The top-level parallel loop, or null when the top level is not a single parallel loop. */
  programLoop: Stmt | null = null;
  /** Reduction family: every reduce under the program loop, in program order. */
  reduces: Array<Stmt> = new Array<Stmt>();
  /** Reduction family: serial loops between the program loop and a reduce (each listed once). */
  wrappers: Array<Stmt> = new Array<Stmt>();
  /** Element family: the first chain of nested parallel loops, outermost first. */
  domainLoops: Array<Stmt> = new Array<Stmt>();
  /** Element family: the body of the innermost loop of that chain. */
  leaf: Array<Stmt> = new Array<Stmt>();
  /** Reduction family: where each program-level statement runs (distributed, every worker,
   *  worker 0); read by the legality facts and the emitter alike. Empty otherwise. */
  distribution: Distribution = new Distribution();
  /** Buffers stored anywhere in the document, in first-store order. */
  outputs: Array<string> = new Array<string>();
  /** Buffers loaded anywhere in the document, in first-load order. */
  inputs: Array<string> = new Array<string>();
}


/** Collects reduces reachable through serial loops only; returns false if one hides elsewhere. */
function reducesThroughSerial(list: Array<Stmt>, st: Structure): bool {
  let ok = true;
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "reduce") st.reduces.push(s);
    else if (s.kind == "for" && !s.parallel && containsReduce(s.body)) {
      st.wrappers.push(s);
      if (!reducesThroughSerial(s.body, st)) ok = false;
    } else if ((s.kind == "for" || s.kind == "if") && (containsReduce(s.body) || containsReduce(s.orelse))) {
      if (ok) {
        st.why = s.kind == "if" ? "a reduce sits inside a conditional below the program loop (the if at " + s.ptr + ")"
          : "a reduce sits inside a parallel loop below the program loop (the loop over \"" + s.name + "\" at " + s.ptr + "), and the loops above it are not flattened into one program per index tuple (they are not a perfect nest with constant bounds, or the flattened programs are not proven apart)";
        st.whyPtr = s.ptr;
      }
      ok = false;
    }
  }
  return ok;
}

/** Element-family bodies: parallel loops, let, if and store only (no reduce, no serial loop). */
function onlyParallelLetIfStore(list: Array<Stmt>): bool {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "let" || s.kind == "store") continue;
    if (s.kind == "if" && onlyParallelLetIfStore(s.body) && onlyParallelLetIfStore(s.orelse)) continue;
    if (s.kind == "for" && s.parallel && onlyParallelLetIfStore(s.body)) continue;
    return false;
  }
  return true;
}

/** The pointer of the first statement that keeps `list` from being an element-family body (a
 *  serial loop, or a loop or if holding one), innermost; "" where there is none. */
function notElementBody(list: Array<Stmt>): string {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "let" || s.kind == "store") continue;
    if (s.kind == "for" && !s.parallel) return s.ptr;
    const inner = notElementBody(s.body);
    if (inner.length > 0) return inner;
    const other = notElementBody(s.orelse);
    if (other.length > 0) return other;
  }
  return "";
}

/** The first parallel loop directly in `list`, or null. */
function firstParallelLoop(list: Array<Stmt>): Stmt | null {
  for (let i: i32 = 0; i < list.length; i++) {
    if (list[i].kind == "for" && list[i].parallel) return list[i];
  }
  return null;
}

export function recognize(doc: Doc): Structure {
  const st = new Structure();
  collectAccess(doc.body, st.inputs, st.outputs);
  if (doc.body.length != 1 || doc.body[0].kind != "for" || !doc.body[0].parallel) {
    st.why = "the top level is not a single parallel loop, so the whole body runs as one serial program";
    return st;
  }
  const top = doc.body[0];
  st.programLoop = top;
  if (containsReduce(top.body)) {
    if (reducesThroughSerial(top.body, st)) {
      st.family = "reduction";
      st.distribution = distribute(top);
    } else {
      st.reduces = new Array<Stmt>();
      st.wrappers = new Array<Stmt>();
    }
    return st;
  }
  if (onlyParallelLetIfStore(top.body)) {
    st.family = "element";
    let loop = top;
    st.domainLoops.push(loop);
    while (true) {
      const inner = firstParallelLoop(loop.body);
      if (inner === null) break;
      loop = changetype<Stmt>(inner);
      st.domainLoops.push(loop);
    }
    st.leaf = loop.body;
  } else {
    const culprit = notElementBody(top.body);
    st.why = "a serial loop sits below the top-level parallel loop of a program without reductions" + (culprit.length > 0 ? " (the loop at " + culprit + ")" : "");
    st.whyPtr = culprit;
  }
  return st;
}

/**
 * A document of the element family planned as programs, where the fused element grid is not
 * proven (a triangular row [0, r + 1), a partial or interleaved write, a read of a written buffer):
 * one program per iteration of the top-level parallel loop, its inner parallel loops spread over
 * the program's workers, as the reduction family runs them (with no reduce). Null where the top
 * level is not a single parallel loop, a reduce appears, or the program body has no parallel loop
 * of its own to spread (a program of one element gains nothing over the serial program).
 */
export function programsOf(doc: Doc): Structure | null {
  if (doc.body.length != 1 || doc.body[0].kind != "for" || !doc.body[0].parallel) return null;
  const top = doc.body[0];
  if (containsReduce(top.body) || firstParallelLoop(top.body) === null) return null;
  const st = new Structure();
  collectAccess(doc.body, st.inputs, st.outputs);
  st.family = "reduction";
  st.programLoop = top;
  st.distribution = distribute(top);
  return st;
}
