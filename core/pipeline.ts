// The compiler, as one readable function:
//   parse + validate -> recognize the family -> legality + solve widths + score -> emit -> audit
// Each stage is a pure function of data in its own folder (see ARCHITECTURE.md).

import { Diagnostic, diag, hasErrors } from "./diag/diagnostic";
import { Doc, Stmt } from "./ir/ast";
import { Loaded, loadDocument } from "./ir/load";
import { locateDiagnostics } from "./ir/locate";
import { Options } from "./options";
import { Device, readDevice } from "./device/device";
import { Structure, programsOf, recognize } from "./analysis/structure";
import { FlatNest, flattenProgramNest } from "./analysis/nest";
import { forwardProgramStores } from "./analysis/forward";
import { writeConflictsIn } from "./legality/index";
import { Facts, collectFacts } from "./legality/facts";
import { Plan, REALIZATION_COOPERATIVE, REALIZATION_FUSED, REALIZATION_SERIAL } from "./plan/plan";
import { solve } from "./solver/solver";
import { bindingsFor, kernelName } from "./emit/abi";
import { emitKernel, mslOf } from "./emit/emit";
import { unifySiblingAxes } from "./analysis/siblings";
import { TARGET_METAL, exportModule } from "./export/export";
import { AuditReport, auditMsl } from "./audit/audit";

export class Compiled {
  ok: bool = false;
  doc: Doc = new Doc();
  diags: Array<Diagnostic> = new Array<Diagnostic>();
  plan: Plan = new Plan();
  device: Device = new Device();
  msl: string = "";
  audit: AuditReport | null = null;
  /** The module for `options.target` ("" for metal). */
  python: string = "";
  /** "document" when the IR itself is invalid, "plan" when it was understood but not plannable,
   *  "export" when the kernel cannot be expressed on the requested target. */
  failedAt: string = "";
}

function append(to: Array<Diagnostic>, from: Array<Diagnostic>): void {
  for (let i: i32 = 0; i < from.length; i++) to.push(from[i]);
}

/** TPL007 for each kind of kernel argument the plan binds more often than the device accepts. */
function argumentLimits(plan: Plan, device: Device): Array<Diagnostic> {
  const out = new Array<Diagnostic>();
  let buffers: i32 = 0;
  let threadgroups: i32 = 0;
  for (let i: i32 = 0; i < plan.bindings.length; i++) {
    if (plan.bindings[i].kind == "buffer") buffers++;
    else if (plan.bindings[i].kind == "threadgroup") threadgroups++;
  }
  if (buffers > device.maxBufferArguments) {
    out.push(diag("TPL007", "/params", "The kernel binds " + buffers.toString() + " buffers, one per parameter, but " + device.name +
      " accepts at most " + device.maxBufferArguments.toString() + " buffer arguments; split the document or pack parameters together."));
  }
  if (threadgroups > device.maxThreadgroupArguments) {
    out.push(diag("TPL007", "/body", "The kernel binds " + threadgroups.toString() + " threadgroup-memory arguments but " + device.name +
      " accepts at most " + device.maxThreadgroupArguments.toString() + "."));
  }
  return out;
}

function nestNote(n: FlatNest): string {
  let s = "The parallel loops " + n.vars.join(", ") + " above the reductions are one program per index tuple: " + n.programs.toString() + " programs in one program loop";
  if (n.reordered) s += " (in this order, not as written: the last one indexes the largest buffer's innermost dimension, so neighbouring programs read neighbouring elements)";
  return s + viewDetail(n) + ".";
}

/** The buffers a nest's flattening views another way (same memory): leading dimensions merged,
 *  and a column group split off (g * K + e as [.., G, K]). */
function viewDetail(n: FlatNest): string {
  let s = "";
  if (n.merged.length > 0) s += "; " + n.merged.join(", ") + " viewed with " + n.vars.length.toString() + " leading dimensions merged into one of " + n.programs.toString() + " (same memory)";
  for (let i: i32 = 0; i < n.split.length; i++) {
    s += "; " + n.split[i] + "'s column groups (" + n.vars[n.vars.length - 1] + " * " + n.splitK[i].toString() + " + ...) viewed as rows of " + n.splitK[i].toString() + ", one per program (same memory)";
  }
  return s;
}

/** What an element nest's flattening changed: the loop order, the buffers' views ("" if nothing). */
function elementNestDetail(n: FlatNest): string {
  let s = "";
  if (n.reordered) s += "; the loops in this order, not as written: the last one indexes the largest buffer's innermost dimension, so neighbouring programs touch neighbouring elements";
  return s + viewDetail(n);
}

/** Legality, widths and cost of `doc` into `plan` (returned); the solver's legality context
 *  takes `facts` where they are the ones it would collect. */
function planFor(doc: Doc, st: Structure, device: Device, o: Options, plan: Plan, facts: Facts | null): Plan {
  plan.programLoop = st.programLoop;
  plan.domainLoops = st.domainLoops;
  plan.reduces = st.reduces;
  plan.distribution = st.distribution;
  solve(doc, st, device, o, plan, facts);
  return plan;
}

/** Runs the pipeline; `emit` also produces and audits the MSL. Every diagnostic that points
 *  into the document also gets the line and column of the node it points at. */
export function compile(text: string, o: Options, emit: bool, version: string = ""): Compiled {
  const r = new Compiled();
  // 1. parse + validate: strict JSON, Tile IR shape, sizes (with overrides), scopes, types, bounds
  const loaded = loadDocument(text, o.sizeNames, o.sizeValues);
  stages(r, loaded, o, emit, version);
  locateDiagnostics(loaded.json, r.diags);
  return r;
}

/** The stages after loading, in order; each may stop the pipeline with its diagnostics. */
function stages(r: Compiled, loaded: Loaded, o: Options, emit: bool, version: string): void {
  r.doc = loaded.doc;
  append(r.diags, loaded.diags);
  if (!loaded.ok) {
    r.failedAt = "document";
    return;
  }
  // 2. the device description (data; the rules and the solver read only this record)
  const dev = readDevice(o.device);
  r.device = dev.device;
  append(r.diags, dev.diags);
  if (hasErrors(dev.diags)) {
    r.failedAt = "plan";
    return;
  }
  // 3. analyse: the family, from the structure of the IR alone (sibling reduces over one range
  //    first take one axis name: core/analysis/siblings.ts)
  unifySiblingAxes(r.doc.body);
  let st: Structure = recognize(r.doc);
  // 3b. a program's stored scalar read back later in the same program takes the stored value
  //     (core/analysis/forward.ts); the structure is recognized again without those loads
  const stPl = st.programLoop;
  const forwarded = stPl === null ? new Array<string>() : forwardProgramStores(r.doc, changetype<Stmt>(stPl));
  if (forwarded.length > 0) st = recognize(r.doc);
  if (st.outputs.length == 0) {
    r.diags.push(diag("TPL012", "/body", "The document stores to no buffer: its kernel computes nothing that anyone can observe (every `let` and `reduce` result is discarded). Add a `store` of the result to an output parameter."));
  }
  // 4. a proven write conflict between parallel iterations rejects the document outright
  const pl = st.programLoop;
  const facts = collectFacts(r.doc, pl === null ? null : changetype<Stmt>(pl), st.distribution);
  const conflicts = writeConflictsIn(facts);
  append(r.diags, conflicts);
  if (conflicts.length > 0) {
    r.plan.family = st.family;
    r.failedAt = "plan";
    return;
  }
  // 4b. several parallel loops above a reduction: one program per index tuple, planned as the
  //     equivalent document with a single program loop (same proofs, same emitter)
  const written = r.doc;
  const writtenSt = st;
  let flattened = false;
  let reordered = false;
  let flatForwarded = new Array<string>();
  if (st.family == "serial") {
    const nest = flattenProgramNest(r.doc);
    const flat = nest.doc;
    if (flat !== null) {
      const flatDoc = changetype<Doc>(flat);
      let fst = recognize(flatDoc);
      if (fst.family == "reduction") {
        // 3b again on the flattened document: a stored scalar M[b, c] read back in the same
        // program is a program-level store there (the nest's inner loops are gone)
        const fpl = fst.programLoop;
        if (fpl !== null) flatForwarded = forwardProgramStores(flatDoc, changetype<Stmt>(fpl));
        if (flatForwarded.length > 0) fst = recognize(flatDoc);
      }
      if (fst.family == "reduction") {
        r.doc = flatDoc;
        st = fst;
        r.plan.notes.push(nestNote(nest));
        flattened = true;
        reordered = nest.reordered;
      }
    }
  }
  // 5. legality per candidate + bounded width search + cost model -> the plan
  let plan = planFor(r.doc, st, r.device, o, r.plan, facts);
  // 5b. an element-family document whose fused grid is not proven runs as programs (one per
  //     iteration of the top-level loop, its inner loops spread over the workers) where the
  //     cooperative rules prove that, before the serial program (core/analysis/structure.ts
  //     programsOf); not under --no-fuse, which asks for no multi-output kernel
  //     Where the top level is a perfect nest of parallel loops with constant bounds (batch, row,
  //     column), the loops above the innermost parallel ones may instead be one program per index
  //     tuple (4b's flattening, element form): both are planned and the cheaper one is kept
  //     Where the programs are not admitted only because of the width requests (P, T, V, U, the
  //     layout, --max-threads, --no-cache-input: without them they would be cooperative), their
  //     own verdict is reported (TPL009, TPL002, or the serial plan with its reason), as for a
  //     reduction, not the grid's; under --no-fuse with several outputs a note says that the
  //     option is what keeps the document from running as programs (red team, session 30)
  if (st.family == "element" && plan.realization == REALIZATION_SERIAL && !hasErrors(plan.diags) && !o.fuse && st.outputs.length > 1) {
    const fused = o.copy();
    fused.fuse = true;
    // what runs without the option: the fused grid where its rules hold (red team, session 32:
    // the note named the programs where the grid would run), else the programs
    const grid = planFor(r.doc, st, r.device, fused, new Plan(), null);
    if (!hasErrors(grid.diags) && grid.realization == REALIZATION_FUSED) {
      plan.notes.push("Without --no-fuse this document would run as the fused element grid (one thread per element of the domain, all its outputs written by one kernel); --no-fuse asks for no multi-output kernel, so the serial program runs.");
    } else {
      const npst = programsOf(r.doc);
      if (npst !== null) {
        const np = planFor(r.doc, changetype<Structure>(npst), r.device, fused, new Plan(), null);
        if (!hasErrors(np.diags) && np.realization == REALIZATION_COOPERATIVE) {
          plan.notes.push("Without --no-fuse this document would run as programs (one per iteration of the top-level parallel loop, its inner parallel loops spread over the workers, all its outputs written by one kernel); --no-fuse asks for no multi-output kernel, so the serial program runs.");
        }
      }
    }
  }
  if (st.family == "element" && plan.realization == REALIZATION_SERIAL && !hasErrors(plan.diags) && (o.fuse || st.outputs.length <= 1)) {
    let refused: Plan | null = null;
    let best: Plan | null = null;
    let bestSt: Structure | null = null;
    let bestDoc: Doc = r.doc;
    let bestNote = "";
    const pst = programsOf(r.doc);
    if (pst !== null) {
      const programs = planFor(r.doc, changetype<Structure>(pst), r.device, o, new Plan(), null);
      if (!hasErrors(programs.diags) && programs.realization == REALIZATION_COOPERATIVE) {
        best = programs;
        bestSt = pst;
        bestNote = "The fused element grid is not used (see the rejection), so the document runs as programs: one per iteration of the top-level parallel loop \"" + changetype<Stmt>(changetype<Structure>(pst).programLoop).name + "\", its inner parallel loops spread over the program's workers (the cooperative realization, with no reduce).";
      } else if (o.asksWidths()) {
        refused = programs;
        bestSt = pst;
      }
    }
    const nest = flattenProgramNest(r.doc, true);
    const flat = nest.doc;
    if (flat !== null) {
      const fpst = programsOf(changetype<Doc>(flat));
      if (fpst !== null) {
        const fprograms = planFor(changetype<Doc>(flat), changetype<Structure>(fpst), r.device, o, new Plan(), null);
        if (!hasErrors(fprograms.diags) && fprograms.realization == REALIZATION_COOPERATIVE && (best === null || fprograms.cost.total < changetype<Plan>(best).cost.total)) {
          best = fprograms;
          bestSt = fpst;
          bestDoc = changetype<Doc>(flat);
          bestNote = "The fused element grid is not used (see the rejection), so the document runs as programs: one per index tuple of the parallel loops " + nest.vars.join(", ") + " (" + nest.programs.toString() + " programs), the inner parallel loops spread over the program's workers (the cooperative realization, with no reduce)" + elementNestDetail(nest) + ".";
        }
      }
    }
    if (best === null && refused !== null) {
      const free = planFor(r.doc, changetype<Structure>(bestSt), r.device, o.withoutWidths(), new Plan(), null);
      if (!hasErrors(free.diags) && free.realization == REALIZATION_COOPERATIVE) {
        best = refused;
        bestNote = "The fused element grid is not used (see the rejection); the document would run as programs (one per iteration of the top-level parallel loop \"" + changetype<Stmt>(changetype<Structure>(bestSt).programLoop).name + "\", its inner parallel loops spread over the program's workers), but not with the requested widths: see the diagnostics.";
      }
    }
    if (best === null && pst === null) {
      const under = ifAroundParallelLoop(r.doc);
      if (under.length > 0) {
        plan.notes.push("Programs (one per iteration of the top-level parallel loop, its inner parallel loops spread over the program's workers) are not planned: the parallel loops of the program sit under the `if` at " + under + ", which one worker would run alone. To spread them, put the condition inside the loops: an `if` around the store, or a `select` in the stored value.");
      }
    }
    if (best !== null) {
      const programs = changetype<Plan>(best);
      for (let i: i32 = plan.rejections.length - 1; i >= 0; i--) programs.rejections.unshift(plan.rejections[i]);
      programs.notes.unshift(bestNote);
      r.plan = programs;
      plan = programs;
      st = changetype<Structure>(bestSt);
      r.doc = bestDoc;
    }
  }
  if (flattened && plan.realization == REALIZATION_SERIAL && !hasErrors(plan.diags)) {
    // the flattened nest is not proven either (where its extents differ from the buffers' leading
    // dimensions, each index decodes the loop variables from the program with div and mod, which
    // the proofs cannot separate): the document as written may still run one thread per program
    // of its outer loop; the cheaper of the two serial plans is used. Where the loops were
    // reordered and the programs are not proven apart, the serial program (one thread, every
    // program in turn) would run them in the reordered order, where the oracle and the document
    // run them as written, and programs that write one element would leave another last value
    // (red team, session 25): then the document as written, whatever the cost
    const outOfOrder = reordered && plan.mapping.T == 1 && plan.mapping.groups == 1 && plan.mapping.programs > 1;
    const asWritten = planFor(written, writtenSt, r.device, o, new Plan(), facts);
    if (!hasErrors(asWritten.diags) && (outOfOrder || asWritten.cost.total < plan.cost.total)) {
      asWritten.notes.push(outOfOrder
        ? "The parallel loops above the reductions are not flattened into one program loop: the flattened programs are not proven independent, and a serial program must run them in the written order, which the flattened loop (reordered) does not keep."
        : "The parallel loops above the reductions are not flattened into one program loop: the flattened programs are not proven either (an index that decodes the loop variables from the program with div and mod, where the loops' extents differ from the buffers' leading dimensions, that no rule separates), and the document as written is the cheaper serial program.");
      r.doc = written;
      st = writtenSt;
      r.plan = asWritten;
      plan = asWritten;
      flattened = false;
    }
  }
  for (let i: i32 = 0; i < forwarded.length; i++) plan.notes.push(forwarded[i]);
  if (flattened) for (let i: i32 = 0; i < flatForwarded.length; i++) plan.notes.push(flatForwarded[i]);
  append(r.diags, plan.diags);
  if (hasErrors(plan.diags)) {
    r.failedAt = "plan";
    return;
  }
  plan.kernelName = kernelName(r.doc, plan.realization);
  plan.bindings = bindingsFor(r.doc, plan);
  // Metal's argument tables are device data: more arguments than the device accepts is a plan
  // error here, not a compile error on the Mac
  const limits = argumentLimits(plan, r.device);
  append(r.diags, limits);
  if (limits.length > 0) {
    r.failedAt = "plan";
    return;
  }
  r.ok = true;
  if (!emit) return;
  // 6. emit MSL from the document and the plan alone
  const kernel = emitKernel(r.doc, plan);
  r.msl = mslOf(kernel);
  // 7. audit the emitted text against what the plan promised
  const expected: i32 = plan.realization == "cooperative-reduction" ? plan.reduces.length : 0;
  r.audit = auditMsl(r.msl, plan.realization, expected);
  // 8. export for a host framework (MLX, PyTorch): the same kernel, or a diagnostic saying why not
  if (o.target != TARGET_METAL) {
    // the document as written: its parameters keep their shapes (a flattened nest, 4b, only
    // changes how the kernel indexes the same memory)
    const x = exportModule(loaded.doc, plan, kernel, r.msl, o.target, version);
    append(r.diags, x.diags);
    r.python = x.text;
    if (hasErrors(x.diags)) {
      r.ok = false;
      r.failedAt = "export";
    }
  }
}

/** The pointer of an `if` at the top of the one top-level parallel loop's body whose branches
 *  hold a parallel loop (red team, session 32: programs are planned only where the program body
 *  has a parallel loop of its own, core/analysis/structure.ts programsOf), else "". */
function ifAroundParallelLoop(doc: Doc): string {
  if (doc.body.length != 1 || doc.body[0].kind != "for" || !doc.body[0].parallel) return "";
  const body = doc.body[0].body;
  for (let i: i32 = 0; i < body.length; i++) {
    const s = body[i];
    if (s.kind != "if") continue;
    for (let j: i32 = 0; j < s.body.length; j++) if (s.body[j].kind == "for" && s.body[j].parallel) return s.ptr;
    for (let j: i32 = 0; j < s.orelse.length; j++) if (s.orelse[j].kind == "for" && s.orelse[j].parallel) return s.ptr;
  }
  return "";
}
