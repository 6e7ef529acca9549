// No silent fallback: when the plan falls back to the serial program, a TPL008 warning names the
// cause (the rule that failed, or the structure that is not recognized) and the change to the
// document or the options that would avoid it. With options.serial = false the same text is a
// TPL010 error instead. The advice is a table keyed by rule id (data, not code paths).

import { Diagnostic, diag } from "../diag/diagnostic";
import { RuleResult } from "../plan/plan";
import { Doc, Stmt } from "../ir/ast";
import { containsReduce } from "../analysis/structure";
import { FlatNest, flattenProgramNest } from "../analysis/nest";

/** Rule id, then the change that would let that rule hold. */
const ADVICE: Array<string> = [
  "noalias", "add \"attrs\": {\"noalias\": true} to the document if no two parameters share memory (it asserts that every parameter is a distinct allocation: no two bindings alias or overlap, so one buffer's stores never change another's loads)",
  "pure-expression", "let each worker read only elements it writes itself: do not load a buffer that the same program stores (keep the value in a `let`, or write it in one kernel and read it in the next)",
  "independent-store", "index every store by the program variable (e.g. Y[r, c] inside the loop over r), so that distinct programs write distinct elements, and within a program write each element from one store (a store at a fixed index such as Y[r, 5] beside a loop that stores Y[r, c] writes that element twice: fold it into the loop's store with `select`)",
  "private-ownership", "read the cached buffer only with the distributed loop or reduce variable alone in one index (as [row, c] or [r, col]) and program-uniform indices elsewhere, or pass --no-cache-input",
  "reduction-loop-shape", "put each reduce directly in the program body (no serial loop with an extent other than 1 around it); fold such a loop into the parallel loops above",
  "tail-read-write", "use a program count that is a multiple of the programs per group, or do not load and store the same buffer",
  "thread-limit", "request fewer threads per group (32 * S * P within the device's limit and any --max-threads cap)",
  "threadgroup-memory", "use fewer reductions per program or fewer threads per group (the partials must fit the device's threadgroup memory: 4 bytes per reduction for each SIMD group, P * S; with programs on lanes, for each SIMD group and program, S * P * P, where P divides 32, else for each thread, T)",
  "same-domain", "store every output inside the same nest of parallel loops, with identical constant ranges",
  "injective-compact-store", "store each output exactly once, unconditionally, with one loop variable per dimension covering the whole buffer (e.g. Y[r, c]); a flattened index such as r*C + c is not proven injective, give the buffer a 2-D shape; an index read from a buffer at run time is not proven either: a value known when the kernel is planned (a position, an offset) can be a size",
  "no-read-of-written", "load a buffer the kernel stores only at the element its one store writes (an update in place before the store, or a read of the thread's own write after it); otherwise keep the value in a `let`, or split the kernel in two",
  "single-writer", "write each output with one store statement (merge alternatives with `select`)",
];

export function adviceFor(ruleId: string): string {
  for (let i: i32 = 0; i + 1 < ADVICE.length; i += 2) {
    if (ADVICE[i] == ruleId) return ADVICE[i + 1];
  }
  return "";
}

function trimDot(s: string): string {
  return s.endsWith(".") ? s.substring(0, s.length - 1) : s;
}

/** "cause; to avoid it: fix" for every rule that did not hold, and the pointer of the first. */
export class FallbackCause {
  cause: string = "";
  fix: string = "";
  pointer: string = "";
}

export function causeFromRules(results: Array<RuleResult>): FallbackCause {
  const c = new FallbackCause();
  const causes = new Array<string>();
  const fixes = new Array<string>();
  for (let i: i32 = 0; i < results.length; i++) {
    const r = results[i];
    if (r.holds()) continue;
    const why = r.violations.length > 0 ? r.violations[0].reason : r.proof;
    causes.push(r.id + " " + r.verdict + ": " + trimDot(why));
    const fix = adviceFor(r.id);
    if (fix.length > 0 && fixes.indexOf(fix) < 0) fixes.push(fix);
    if (c.pointer.length == 0 && r.violations.length > 0) c.pointer = r.violations[0].pointer;
  }
  c.cause = causes.join("; ");
  c.fix = fixes.join("; ");
  return c;
}

export function causeText(cause: string, fix: string, pointer: string): FallbackCause {
  const c = new FallbackCause();
  c.cause = cause;
  c.fix = fix;
  c.pointer = pointer;
  return c;
}

/** The TPL008 warning (or, when the serial program is refused, the TPL010 error). */
export function fallbackDiagnostic(what: string, c: FallbackCause, allowSerial: bool, ignored: string, apart: bool, whole: bool = false): Diagnostic {
  const head = allowSerial
    ? (whole ? "Falls back to the serial program (the whole body in one thread, no cooperation): "
      : apart ? "Falls back to the serial program (one thread per logical program, no cooperation): "
      : "Falls back to the serial program (one thread runs every logical program in order, no cooperation): ")
    : "Refused by --no-serial: the plan would fall back to the serial program: ";
  let msg = head + what + " because " + c.cause + ".";
  if (c.fix.length > 0) msg += " To avoid it: " + c.fix + ".";
  if (ignored.length > 0) msg += " The requested " + ignored + " has no effect on the serial program.";
  return diag(allowSerial ? "TPL008" : "TPL010", c.pointer, msg);
}

/** The names of the first `n` loops of the top-level nest, outermost first, as written. */
function writtenNest(doc: Doc, n: i32): Array<string> {
  const out = new Array<string>();
  let list = doc.body;
  while (out.length < n && list.length > 0 && list[0].kind == "for") {
    out.push(list[0].name);
    list = list[0].body;
  }
  return out;
}

/** Why a document is outside both families, from its structure, with the change that helps. */
export function structureCause(doc: Doc, why: string, whyPtr: string = ""): FallbackCause {
  let fix = "";
  const top: bool = doc.body.length == 1 && doc.body[0].kind == "for" && doc.body[0].parallel;
  const underParallel: bool = top && reduceUnderParallel(doc.body[0].body);
  // the flattened nest, computed once (null where no reduce sits under a parallel loop)
  const nest: FlatNest | null = underParallel ? flattenProgramNest(doc) : null;
  if (!top) {
    fix = "wrap the body in one top-level parallel loop whose iterations are the independent programs (rows)";
  } else if (nest !== null && changetype<FlatNest>(nest).doc !== null) {
    // the nest is already perfect with constant bounds: what blocks it is how a buffer is indexed
    // (the advice names the document's own loops, as written)
    const vars = writtenNest(doc, changetype<FlatNest>(nest).vars.length).join(", ");
    fix = "index every buffer the kernel writes with the nest's loop variables as its leading indices, in order (Y[" + vars + ", ...] for the loops " + vars + ", each starting at 0 over the buffer's leading dimension), so the nest becomes one program per index tuple with each program's elements its own (a column group g * K + k of a row is such a buffer viewed as [.., G, K]); or loop once over their product with the leading axes viewed as one (e.g. [B, H, S, S] as [B*H*S, S])";
  } else if (underParallel && reduceAtTop(doc.body[0].body)) {
    // the program also reduces at its own level (a row max, then a reduce per element): no perfect
    // nest exists (red team, session 32: the advice asked for one)
    fix = "the program reduces at its own level too, so its loops cannot be one perfect nest: split the document into two kernels, the first storing the program-level reduce to a buffer (one element per program), the second reading it, with the per-element reduce in a perfect nest of parallel loops";
  } else if (underParallel) {
    fix = "nest the parallel loops above the reduction perfectly (each loop's body is only the next loop, bounds constant), so they become one program per index tuple, or loop once over their product with the leading axes viewed as one (e.g. [B, H, S, S] as [B*H*S, S])";
  } else if (containsReduce(doc.body[0].body)) {
    fix = "keep each reduce out of `if` (reduce unconditionally and `select` the result)";
  } else {
    fix = "make the serial loop parallel if its iterations are independent, or express its accumulation as a reduce";
  }
  return causeText(why, fix, whyPtr.length > 0 ? whyPtr : "/body/0");
}

/** True when a reduce sits inside a parallel loop nested in `list` (below the program loop). */
function reduceUnderParallel(list: Array<Stmt>): bool {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "for" && s.parallel && containsReduce(s.body)) return true;
    if (reduceUnderParallel(s.body) || reduceUnderParallel(s.orelse)) return true;
  }
  return false;
}

/** True when `list` holds a reduce of its own (not nested in a loop or if). */
function reduceAtTop(list: Array<Stmt>): bool {
  for (let i: i32 = 0; i < list.length; i++) if (list[i].kind == "reduce") return true;
  return false;
}
