// Export of a planned kernel to a host framework, as a small Python module:
//   "metal"      the MSL itself (no module; today's output)
//   "mlx"        mx.fast.metal_kernel: MLX writes the signature from input and output names
//   "torch-mps"  torch.mps.compile_shader: the whole source, called with tensors
// What a target cannot express is a diagnostic (TEX0xx) that says what to do, never a different
// kernel. Both modules carry the same kernel text as the metal target (the MLX one as body and
// header, with a preamble naming MLX's attributes as Tile's thread arguments).

import { Doc, Stmt } from "../ir/ast";
import { Plan } from "../plan/plan";
import { Diagnostic, diag, hasErrors, seg } from "../diag/diagnostic";
import { KernelText } from "../emit/emit";
import { ACCESS_READ, ACCESS_READWRITE, ACCESS_WRITE, accessOf } from "../emit/abi";
import { formatI32 } from "../util/num";
import { mlxModule, MLX_ATTRIBUTES } from "./mlx";
import { torchModule } from "./torch";
import { documentFacts, initialContentsUnread, storesCoverBuffer } from "../legality/defined";
import { Facts } from "../legality/facts";
import { TK_IDENT, tokenize } from "../audit/scan";

export const TARGET_METAL: string = "metal";
export const TARGET_MLX: string = "mlx";
export const TARGET_TORCH: string = "torch-mps";
export const TARGETS: Array<string> = [TARGET_METAL, TARGET_MLX, TARGET_TORCH];

/** Threads in the one-dimensional grid both frameworks dispatch (`dispatchThreads`). */
export const MAX_GRID_THREADS: f64 = 2147483647.0;

export class Exported {
  text: string = "";
  diags: Array<Diagnostic> = new Array<Diagnostic>();
}

/** The module text for `target`, or the diagnostics that say why the kernel cannot go there. */
export function exportModule(doc: Doc, plan: Plan, k: KernelText, msl: string, target: string, version: string): Exported {
  const r = new Exported();
  const threads: f64 = f64(plan.mapping.groups) * f64(plan.mapping.T);
  if (threads > MAX_GRID_THREADS) {
    r.diags.push(diag("TEX003", "/sizes", "The kernel's grid has " + formatI32(plan.mapping.groups) + " threadgroups of " + formatI32(plan.mapping.T) +
      " threads, more than the 2147483647 threads a " + target + " dispatch takes; emit it with smaller sizes (--size) or use --target metal."));
  }
  // the document's accesses, collected once for the questions asked of every parameter
  const facts = documentFacts(doc);
  if (target == TARGET_MLX) {
    let outputs: i32 = 0;
    for (let p: i32 = 0; p < doc.params.length; p++) {
      const a = accessOf(doc, p);
      if (a != ACCESS_READ) outputs++;
      // a buffer read only where it has already been written (a scratch buffer) is an output
      // like any other: its initial contents reach no result (core/legality/defined.ts)
      if (a == ACCESS_READWRITE && !initialContentsUnread(facts, doc.params[p].name)) {
        r.diags.push(diag("TEX001", "/params/" + formatI32(p), "The buffer \"" + doc.params[p].name + "\" is both read and written, and not every load of it is proven to read an element the kernel has already written (one unconditional store, then loads of the element it wrote in the same iteration), so its initial contents may reach a result; MLX gives a kernel read-only inputs and fresh output arrays, so it cannot update a buffer in place; in the document, read one parameter and store to another, or emit with --target torch-mps (which updates the tensor in place) or --target metal."));
      }
    }
    if (outputs == 0) {
      r.diags.push(diag("TEX004", "/params", "The document stores to no buffer, and an MLX kernel needs at least one output; store a result, or emit with --target metal."));
    }
    nameConflicts(doc, k, r.diags);
    if (!hasErrors(r.diags)) {
      // every buffer the kernel writes comes back as a fresh array (TEX001 refused the others)
      for (let p: i32 = 0; p < doc.params.length; p++) {
        if (accessOf(doc, p) != ACCESS_READ) partialOutput(doc, facts, p, target, r.diags);
      }
      r.text = mlxModule(doc, plan, k, version);
    }
  } else if (target == TARGET_TORCH) {
    if (!hasErrors(r.diags)) {
      // a buffer both read and written is updated in place; one only written is a fresh tensor
      for (let p: i32 = 0; p < doc.params.length; p++) {
        if (accessOf(doc, p) == ACCESS_WRITE) partialOutput(doc, facts, p, target, r.diags);
      }
      r.text = torchModule(doc, plan, k, version, msl);
    }
  }
  return r;
}

/** TEX005 (a warning) where the module returns parameter `p` as a fresh zero-filled array and no
 *  store is proven to write every element of it: the elements the kernel does not store are then
 *  0 in the result, where `tile run` and the metal target keep what the buffer held. */
function partialOutput(doc: Doc, f: Facts, p: i32, target: string, diags: Array<Diagnostic>): void {
  const name = doc.params[p].name;
  if (storesCoverBuffer(doc, f, name)) return;
  const keep = target == TARGET_TORCH
    ? "to update the caller's tensor instead, read the element in the document (for example store [\"select\", cond, v, [\"load\", \"" + name + "\", at]]), which makes it an argument updated in place"
    : "to keep the caller's contents, emit with --target torch-mps and read the element in the document (for example store [\"select\", cond, v, [\"load\", \"" + name + "\", at]]), which updates the tensor in place";
  diags.push(diag("TEX005", "/params/" + formatI32(p), "The buffer \"" + name + "\" is returned as a new " + (target == TARGET_TORCH ? "tensor" : "array") + " filled with 0, and no store is proven to write every element of it (one store, not under an if, whose loops have constant ranges and whose index covers each dimension exactly), so any element the kernel does not store is 0 in the result, where tile run and --target metal keep what the buffer held; if that is meant, nothing needs to change; " + keep + "."));
}

/** The JSON pointer of where the document declares `name`: a parameter's name, a size, or the
 *  name of a loop, let, reduce or reduce axis (the first found); "" where none does. */
function declarationOf(doc: Doc, name: string): string {
  for (let p: i32 = 0; p < doc.params.length; p++) if (doc.params[p].name == name) return "/params/" + formatI32(p) + "/name";
  for (let i: i32 = 0; i < doc.sizeNames.length; i++) if (doc.sizeNames[i] == name) return "/sizes" + seg(name);
  return declaredIn(doc.body, name);
}

function declaredIn(list: Array<Stmt>, name: string): string {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "for" && s.name == name) return s.ptr + "/for";
    if (s.kind == "let" && s.name == name) return s.ptr + "/let";
    if (s.kind == "reduce" && s.name == name) return s.ptr + "/reduce";
    if (s.kind == "reduce" && s.axis == name) return s.ptr + "/over/0";
    const a = declaredIn(s.body, name);
    if (a.length > 0) return a;
    const b = declaredIn(s.orelse, name);
    if (b.length > 0) return b;
  }
  return "";
}

/** Object-like macros of the headers MLX puts before every custom kernel (mlx/backend/metal/
 *  kernels/utils.h, defines.h): an identifier with one of these names would be replaced. */
const MLX_MACROS: Array<string> = ["MLX_MTL_PRAGMA_UNROLL", "MTL_CONST"];

/** MLX adds an argument for every attribute name and every `<input>_shape`, `_strides` and
 *  `_ndim` that the body's text contains; a document name that is one of them would be declared
 *  twice, and one that is a macro of MLX's headers would be replaced. */
function nameConflicts(doc: Doc, k: KernelText, diags: Array<Diagnostic>): void {
  const generated = new Array<string>();
  for (let i: i32 = 0; i < MLX_MACROS.length; i++) generated.push(MLX_MACROS[i]);
  for (let i: i32 = 0; i < MLX_ATTRIBUTES.length; i++) generated.push(MLX_ATTRIBUTES[i]);
  for (let p: i32 = 0; p < doc.params.length; p++) {
    if (accessOf(doc, p) != ACCESS_READ) continue;
    const b = k.names.buf(doc.params[p].name);
    generated.push(b + "_shape");
    generated.push(b + "_strides");
    generated.push(b + "_ndim");
  }
  // MLX's typedefs of its signature's 16-bit types: an argument of that name, declared before
  // one of that type, would hide the type
  generated.push("float16_t");
  generated.push("bfloat16_t");
  const reported = new Array<string>();
  for (let i: i32 = 0; i < k.names.idents.length; i++) {
    const id = k.names.idents[i];
    if (generated.indexOf(id) < 0) continue;
    const key = k.names.irNames[i];
    reported.push(id);
    diags.push(diag("TEX002", declarationOf(doc, key.substring(2)), "The name \"" + key.substring(2) + "\" becomes the identifier " + id + ", which MLX's kernel source already defines (an argument MLX declares when the body mentions it, a type or a macro of its headers); rename it in the document, or emit with --target torch-mps or --target metal."));
  }
  // identifiers the emitter derives from a document name (acc_<reduce>, cache_<buffer>, ...):
  // one that is an input's `_shape`, `_strides` or `_ndim` (MLX finds those in the body's text
  // and declares them as arguments) or MLX's own name would be declared twice
  const t = tokenize(k.body);
  for (let i: i32 = 0; i < t.length; i++) {
    if (t.kind(i) != TK_IDENT) continue;
    const id = t.text(k.body, i);
    if (generated.indexOf(id) < 0 || reported.indexOf(id) >= 0) continue;
    reported.push(id);
    let owner = "";
    for (let p: i32 = 0; p < doc.params.length && owner.length == 0; p++) {
      if (accessOf(doc, p) != ACCESS_READ) continue;
      const b = k.names.buf(doc.params[p].name);
      if (id == b + "_shape" || id == b + "_strides" || id == b + "_ndim") owner = doc.params[p].name;
    }
    const why = owner.length > 0 ? "an argument MLX declares for the input \"" + owner + "\" when the body mentions it" : "a name MLX's kernel source already defines";
    diags.push(diag("TEX002", owner.length > 0 ? declarationOf(doc, owner) : "/body", "The kernel's body declares the identifier " + id + " (made from a name in the document), which is " + why + "; rename " + (owner.length > 0 ? "the input \"" + owner + "\" or the document's name that the identifier ends with" : "the document's name that the identifier ends with") + ", or emit with --target torch-mps or --target metal."));
  }
}
