// The compiler, as one readable function:
//   parse + validate -> recognize the family -> legality + solve widths + score -> emit -> audit
// Each stage is a pure function of data in its own folder (see ARCHITECTURE.md).

import { Diagnostic, diag, hasErrors } from "./diag/diagnostic";
import { Doc } from "./ir/ast";
import { loadDocument } from "./ir/load";
import { Options } from "./options";
import { Device, readDevice } from "./device/device";
import { Structure, recognize } from "./analysis/structure";
import { writeConflicts } from "./legality/index";
import { Plan } from "./plan/plan";
import { solve } from "./solver/solver";
import { bindingsFor, kernelName } from "./emit/abi";
import { emitKernel, mslOf } from "./emit/emit";
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

/** Runs the pipeline; `emit` also produces and audits the MSL. */
export function compile(text: string, o: Options, emit: bool, version: string = ""): Compiled {
  const r = new Compiled();
  // 1. parse + validate: strict JSON, Tile IR shape, sizes (with overrides), scopes, types, bounds
  const loaded = loadDocument(text, o.sizeNames, o.sizeValues);
  r.doc = loaded.doc;
  append(r.diags, loaded.diags);
  if (!loaded.ok) {
    r.failedAt = "document";
    return r;
  }
  // 2. the device description (data; the rules and the solver read only this record)
  const dev = readDevice(o.device);
  r.device = dev.device;
  append(r.diags, dev.diags);
  if (hasErrors(dev.diags)) {
    r.failedAt = "plan";
    return r;
  }
  // 3. analyse: the family, from the structure of the IR alone
  const st: Structure = recognize(r.doc);
  // 4. a proven write conflict between parallel iterations rejects the document outright
  const conflicts = writeConflicts(r.doc, st);
  append(r.diags, conflicts);
  if (conflicts.length > 0) {
    r.plan.family = st.family;
    r.failedAt = "plan";
    return r;
  }
  // 5. legality per candidate + bounded width search + cost model -> the plan
  const plan = r.plan;
  plan.programLoop = st.programLoop;
  plan.domainLoops = st.domainLoops;
  plan.reduces = st.reduces;
  plan.distribution = st.distribution;
  solve(r.doc, st, r.device, o, plan);
  append(r.diags, plan.diags);
  if (hasErrors(plan.diags)) {
    r.failedAt = "plan";
    return r;
  }
  plan.kernelName = kernelName(r.doc, plan.realization);
  plan.bindings = bindingsFor(r.doc, plan);
  // Metal's argument tables are device data: more arguments than the device accepts is a plan
  // error here, not a compile error on the Mac
  const limits = argumentLimits(plan, r.device);
  append(r.diags, limits);
  if (limits.length > 0) {
    r.failedAt = "plan";
    return r;
  }
  r.ok = true;
  if (!emit) return r;
  // 6. emit MSL from the document and the plan alone
  const kernel = emitKernel(r.doc, plan);
  r.msl = mslOf(kernel);
  // 7. audit the emitted text against what the plan promised
  const expected: i32 = plan.realization == "cooperative-reduction" ? plan.reduces.length : 0;
  r.audit = auditMsl(r.msl, plan.realization, expected);
  // 8. export for a host framework (MLX, PyTorch): the same kernel, or a diagnostic saying why not
  if (o.target != TARGET_METAL) {
    const x = exportModule(r.doc, plan, kernel, r.msl, o.target, version);
    append(r.diags, x.diags);
    r.python = x.text;
    if (x.diags.length > 0) {
      r.ok = false;
      r.failedAt = "export";
    }
  }
  return r;
}
