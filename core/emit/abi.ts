// The calling convention of emitted kernels, in one place. The runtimes bind from the plan's
// bindings, which are built here; the kernel signature is written from the same data.
//
//   [[buffer(i)]]       parameter i of the document, in parameter order:
//                       `device const T*` when the kernel never stores it, `device T*` otherwise
//   then the thread-position arguments a realization uses, in this fixed order:
//                       tid, group, lane, sg
// Buffers are the only bindings. Threadgroup memory (one array of P*S partials per reduce, in
// program order) is declared in the kernel body with a static size (`threadgroupDecls`), so a
// host that can only bind buffers (MLX, torch.mps) dispatches every kernel.

import { Doc } from "../ir/ast";
import { collectAccess } from "../ir/access";
import { Binding, Plan, REALIZATION_COOPERATIVE, partialsPerGroup } from "../plan/plan";
import { Names, sanitize } from "./names";
import { mslType } from "./expr";
import { formatI32 } from "../util/num";

export const BINDING_BUFFER: string = "buffer";
export const ACCESS_READ: string = "read";
export const ACCESS_WRITE: string = "write";
export const ACCESS_READWRITE: string = "readwrite";
/** Bytes per element of every buffer and partial (f32 and i32). */
export const ELEMENT_BYTES: i32 = 4;

/** The thread-position arguments, in signature order. */
export const THREAD_ARGS: Array<string> = [
  "uint tid [[thread_index_in_threadgroup]]",
  "uint group [[threadgroup_position_in_grid]]",
  "uint lane [[thread_index_in_simdgroup]]",
  "uint sg [[simdgroup_index_in_threadgroup]]",
];

/** `<sanitized doc name>_<realization with '-' -> '_'>`, e.g. softmax_cooperative_reduction. */
export function kernelName(doc: Doc, realization: string): string {
  return sanitize(doc.name) + "_" + sanitize(realization);
}

/** Buffers the document stores anywhere. */
export function storedBuffers(doc: Doc): Array<string> {
  const loads = new Array<string>();
  const stores = new Array<string>();
  collectAccess(doc.body, loads, stores);
  return stores;
}

/** How parameter `p` is used: "read" (also when unused), "write" or "readwrite". */
export function accessOf(doc: Doc, p: i32): string {
  const loads = new Array<string>();
  const stores = new Array<string>();
  collectAccess(doc.body, loads, stores);
  return accessIn(doc.params[p].name, loads, stores);
}

/** accessOf for the buffer `name`, from the document's loads and stores (collectAccess). */
function accessIn(name: string, loads: Array<string>, stores: Array<string>): string {
  const st: bool = stores.indexOf(name) >= 0;
  if (!st) return ACCESS_READ;
  return loads.indexOf(name) >= 0 ? ACCESS_READWRITE : ACCESS_WRITE;
}

/** Whether the realization uses each thread-position argument (tid, group, lane, sg). */
export function usesThreadArg(realization: string, k: i32): bool {
  if (realization == REALIZATION_COOPERATIVE) return true;
  return k < 2;
}

/** The bindings of `plan`'s kernel: its buffers, in parameter order. */
export function bindingsFor(doc: Doc, plan: Plan): Array<Binding> {
  const out = new Array<Binding>();
  // the document's accesses once, not once per parameter (accessOf walks the whole body)
  const loads = new Array<string>();
  const stores = new Array<string>();
  collectAccess(doc.body, loads, stores);
  for (let p: i32 = 0; p < doc.params.length; p++) {
    out.push(new Binding(BINDING_BUFFER, p, doc.params[p].name, accessIn(doc.params[p].name, loads, stores), doc.elementCount(p) * <f64>ELEMENT_BYTES));
  }
  return out;
}

/** Bytes of threadgroup memory the kernel declares in its body (the sum of `threadgroupDecls`). */
export function threadgroupMemoryBytes(plan: Plan): i32 {
  if (plan.realization != REALIZATION_COOPERATIVE) return 0;
  return plan.reduces.length * partialsPerGroup(plan.mapping.P, plan.mapping.S, plan.mapping.lanes) * ELEMENT_BYTES;
}

/** The threadgroup arrays a cooperative kernel declares at the top of its body: per reduce, in
 *  program order, `tgK` with one partial per SIMD group of each of the group's P programs (with
 *  programs on lanes, one per worker). */
export function threadgroupDecls(plan: Plan): Array<string> {
  const out = new Array<string>();
  if (plan.realization != REALIZATION_COOPERATIVE) return out;
  const n: i32 = partialsPerGroup(plan.mapping.P, plan.mapping.S, plan.mapping.lanes);
  for (let k: i32 = 0; k < plan.reduces.length; k++) {
    out.push("threadgroup " + mslType(plan.reduces[k].value.ty) + " tg" + formatI32(k) + "[" + formatI32(n) + "];");
  }
  return out;
}

/** The kernel's argument declarations, one per line, in binding order. */
export function signatureArgs(doc: Doc, plan: Plan, names: Names): Array<string> {
  const args = new Array<string>();
  const bindings = bindingsFor(doc, plan);
  for (let i: i32 = 0; i < bindings.length; i++) {
    const b = bindings[i];
    const t = mslType(doc.params[b.index].dtype);
    const q = b.access == ACCESS_READ ? "device const " : "device ";
    args.push(q + t + "* " + names.buf(b.name) + " [[buffer(" + formatI32(b.index) + ")]]");
  }
  for (let k: i32 = 0; k < THREAD_ARGS.length; k++) {
    if (usesThreadArg(plan.realization, k)) args.push(THREAD_ARGS[k]);
  }
  return args;
}
