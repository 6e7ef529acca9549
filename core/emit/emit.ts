// The MSL emitter: a document and its plan in, one kernel's source text out. It reads nothing
// else (no names, no tables of shapes): the realization, the widths and the grid come from the
// plan; sizes (after overrides) are baked in as constants. Pure and deterministic: the JS and
// WebAssembly builds produce byte-identical text.

import { Doc, Stmt } from "../ir/ast";
import { LAYOUT_PROGRAMS, Plan, REALIZATION_COOPERATIVE, REALIZATION_FUSED } from "../plan/plan";
import { Text, idiv } from "../util/text";
import { Ctx } from "./context";
import { kernelName, signatureArgs } from "./abi";
import { emitExpr, intText } from "./expr";
import { helperPrelude } from "./helpers";
import { rangesFor } from "./ranges";
import { Names, namesFor } from "./names";
import { emitList, num } from "./stmt";
import { emitCooperative } from "./cooperative";
import { loopRanges } from "../analysis/ranges";
import { packWidth } from "../analysis/vectors";

function headerComment(doc: Doc, plan: Plan): string {
  const m = plan.mapping;
  let s: string = "// tile: " + doc.name + " / " + plan.realization + " / ";
  if (plan.realization == REALIZATION_COOPERATIVE) {
    s = s + "P=" + num(m.P) + " S=" + num(m.S) + " W=" + num(m.W) + " T=" + num(m.T) + " V=" + num(m.V) +
      " U=" + num(m.U) + " groups=" + num(m.groups) + " cached=" + (m.cacheBuffers.length == 0 ? "none" : m.cacheBuffers.join(",")) +
      (m.lanes ? " layout=" + LAYOUT_PROGRAMS : "");
  } else if (plan.realization == REALIZATION_FUSED) {
    s = s + "T=" + num(m.T) + (m.V > 1 ? " V=" + num(m.V) : "") + (m.U > 1 ? " U=" + num(m.U) : "") + " block=" + num(m.block) + " blocksPerRow=" + num(m.blocksPerRow) +
      (m.rowsPerGroup > 1 ? " rowsPerGroup=" + num(m.rowsPerGroup) : "") +
      " rows=" + num(m.domainRows) + " cols=" + num(m.domainCols) + " groups=" + num(m.groups);
  } else {
    s = s + "T=" + num(m.T) + " programs=" + num(m.programs) + " groups=" + num(m.groups);
  }
  // a document name could hold a line break; keep the comment on one line
  let control = false;
  for (let i: i32 = 0; i < s.length; i++) {
    if (s.charCodeAt(i) < 32) {
      control = true;
      break;
    }
  }
  if (!control) return s;
  const parts = new Array<string>();
  for (let i: i32 = 0; i < s.length; i++) {
    const c: i32 = s.charCodeAt(i);
    parts.push(c < 32 ? " " : String.fromCharCode(c));
  }
  return parts.join("");
}

/** Fused element grid: one thread per element, blocks of `block` along the innermost loop. */
function emitFused(cx: Ctx): void {
  const m = cx.plan.mapping;
  const loops = cx.plan.domainLoops;
  const n: i32 = loops.length;
  const rows: bool = m.rowsPerGroup > 1;
  if (rows) {
    cx.line("// one thread per element of the domain: short rows, " + num(m.rowsPerGroup) + " rows of " + num(m.rowThreads) + " threads per group");
    cx.line("const int row = int(group) * " + num(m.rowsPerGroup) + " + int(tid) / " + num(m.rowThreads) + ";");
    cx.line("// ragged edge: threads past the last row, or past the group's whole rows, have no element (no barrier in this kernel)");
    cx.line("if (row >= " + num(m.domainRows) + " || int(tid) >= " + num(m.rowsPerGroup * m.rowThreads) + ") return;");
    cx.line("const int tile_lane = int(tid) % " + num(m.rowThreads) + ";");
  } else {
    cx.line("// one thread per element of the domain, blocks of " + num(m.block) + " along the innermost loop");
    cx.line("const int row = int(group) / " + num(m.blocksPerRow) + ";");
  }
  const V: i32 = m.V > 1 ? m.V : 1;
  const U: i32 = m.U > 1 ? m.U : 1;
  const Q: i32 = packWidth(V);
  const H: i32 = idiv(V, Q) * U;
  // threads that share a row, and this thread's place among them
  const span: i32 = rows ? m.rowThreads : m.block;
  const me: string = rows ? "tile_lane" : "int(tid)";
  if (V == 1 && U == 1 && rows) {
    cx.line("const int col = tile_lane;");
    if (m.rowThreads != m.domainCols) cx.line("if (col >= " + num(m.domainCols) + ") return;");
  } else if (V == 1 && U == 1) {
    cx.line("const int col = (int(group) % " + num(m.blocksPerRow) + ") * " + num(m.block) + " + int(tid);");
    cx.line("// ragged edge: threads past the last column have no element (no barrier in this kernel)");
    cx.line("if (col >= " + num(m.domainCols) + ") return;");
  } else {
    // V columns per thread as H vectors of Q consecutive columns (U chunks of V: H = U * V / Q);
    // neighbouring threads take neighbouring vectors. A vector is all in range, all past the
    // edge, or (where the row length is not a multiple of Q) a row's ragged last vector, which
    // runs element by element (emitGridVector).
    if (V == 1) cx.line("// U = " + num(U) + " columns per thread, neighbouring threads on neighbouring columns");
    else if (U == 1) cx.line("// V = " + num(V) + " columns per thread: vectors of " + num(Q) + ", neighbouring threads on neighbouring vectors");
    else cx.line("// U = " + num(U) + " chunks of V = " + num(V) + " columns per thread: vectors of " + num(Q) + ", neighbouring threads on neighbouring vectors");
    if (!rows) cx.line("const int col0 = (int(group) % " + num(m.blocksPerRow) + ") * " + num(m.block * V * U) + ";");
    const lane = H > 1 ? "(tile_h * " + num(span) + " + " + me + ")" : me;
    if (H > 1) cx.open("for (int tile_h = 0; tile_h < " + num(H) + "; ++tile_h) {");
    cx.line("const int col = " + (rows ? "" : "col0 + ") + lane + (Q > 1 ? " * " + num(Q) : "") + ";");
    cx.line("// ragged edge: " + (Q > 1 ? "vectors" : "columns") + " past the last column have no element (no barrier in this kernel)");
    cx.line("if (col >= " + num(m.domainCols) + ") " + (H > 1 ? "break;" : "return;"));
    cx.gridQ = Q;
    cx.gridRaggedCols = m.domainCols % Q != 0 ? m.domainCols : 0;
  }
  // row -> outer coordinates, the last outer loop varying fastest, with the extents the grid
  // was sized with (the legality facts' exact ones: an extent such as B + a * 0 is 5 there)
  const extents = m.domainExtents;
  for (let d: i32 = 0; d < n - 1; d++) {
    let div: i32 = 1;
    for (let q: i32 = d + 1; q < n - 1; q++) div = div * extents[q];
    // precedence: every coordinate text can follow "min + " without parentheses
    let t: string = div > 1 ? "row / " + num(div) : "row";
    if (d > 0) t = (div > 1 ? "(" + t + ")" : t) + " % " + num(extents[d]);
    cx.gridCoords.push(t);
  }
  if (n > 0) cx.gridCoords.push("col");
  cx.gridDepth = 0;
  emitList(cx.doc.body, cx);
  cx.gridDepth = -1;
  cx.gridQ = 1;
  cx.gridRaggedCols = 0;
  if (H > 1) cx.close("}");
}

/** Serial program: one thread per iteration of the top-level parallel loop when the plan proved
 *  programs independent (T > 1), else one thread running every iteration in order (T = 1). */
function emitSerial(cx: Ctx): void {
  const m = cx.plan.mapping;
  if (cx.plan.programLoop === null) {
    cx.line("// no single top-level parallel loop: the whole body runs in one thread");
    cx.line("if (group != 0u || tid != 0u) return;");
    emitList(cx.doc.body, cx);
    return;
  }
  const loop = changetype<Stmt>(cx.plan.programLoop);
  const first: string = m.programMin == 0 ? "i" : intText(m.programMin) + " + i";
  if (m.T == 1 && m.groups == 1) {
    // the plan found no proof that programs are independent (core/legality/programs.ts)
    cx.line("// one thread runs every program (iteration of the top-level parallel loop) in order");
    cx.line("if (group != 0u || tid != 0u) return;");
    cx.open("for (int i = 0; i < " + num(m.programs) + "; ++i) {");
    cx.line("const int " + cx.names.of(loop.name) + " = " + first + ";");
    emitList(loop.body, cx);
    cx.close("}");
    return;
  }
  cx.line("// one thread per program (iteration of the top-level parallel loop), run serially");
  cx.line("const int i = int(group) * " + num(m.T) + " + int(tid);");
  cx.line("if (i >= " + num(m.programs) + ") return;");
  cx.line("const int " + cx.names.of(loop.name) + " = " + first + ";");
  emitList(loop.body, cx);
}

/** One kernel's text in parts, so that a host framework that writes its own signature (MLX's
 *  metal_kernel) can take the body and the helpers alone. */
export class KernelText {
  /** The header comment with the plan's parameters (one line). */
  comment: string = "";
  /** The Metal Shading Language version the kernel needs beyond the default ("" or "3.1"). */
  language: string = "";
  /** Helper functions the body calls, each ending with a newline ("" when none). */
  helpers: string = "";
  name: string = "";
  /** Argument declarations in binding order (abi.ts). */
  args: Array<string> = new Array<string>();
  /** The statements between the braces, indented, each line ending with a newline. */
  body: string = "";
  names: Names = new Names();
}

/** The parts of `plan`'s kernel for `doc`. */
export function emitKernel(doc: Doc, plan: Plan): KernelText {
  const names = namesFor(doc);
  const cx = new Ctx(doc, plan, names);
  cx.ranges = rangesFor(doc);
  const top = new Array<Stmt>();
  if (plan.programLoop !== null) top.push(changetype<Stmt>(plan.programLoop));
  cx.loopRanges = loopRanges(doc, top);
  if (plan.realization == REALIZATION_COOPERATIVE) emitCooperative(cx);
  else if (plan.realization == REALIZATION_FUSED) emitFused(cx);
  else emitSerial(cx);
  const k = new KernelText();
  k.comment = headerComment(doc, plan);
  k.language = languageVersion(doc);
  k.helpers = helperPrelude(cx.helpers);
  k.name = kernelName(doc, plan.realization);
  k.args = signatureArgs(doc, plan, names);
  k.body = cx.out.toString();
  k.names = names;
  return k;
}

/** The language version a document's kernel needs: bfloat buffers need MSL 3.1. */
export function languageVersion(doc: Doc): string {
  for (let i: i32 = 0; i < doc.params.length; i++) if (doc.params[i].dtype == "bf16") return "3.1";
  return "";
}

/** The MSL source of `plan`'s kernel for `doc`. */
export function emitMsl(doc: Doc, plan: Plan): string {
  return mslOf(emitKernel(doc, plan));
}

/** The whole MSL source of a kernel from its parts. */
export function mslOf(k: KernelText): string {
  const out = new Text();
  out.line("#include <metal_stdlib>");
  out.line("using namespace metal;");
  out.line("");
  out.line(k.comment);
  // read by the Metal library (shell-native/metal/tile_metal.m), which asks for this version
  if (k.language != "") out.line("// tile: language " + k.language + " (bfloat buffers)");
  out.line("");
  out.add(k.helpers);
  out.line("kernel void " + k.name + "(");
  for (let i: i32 = 0; i < k.args.length; i++) out.line("    " + k.args[i] + (i + 1 < k.args.length ? "," : ")"));
  out.line("{");
  out.add(k.body);
  out.line("}");
  return out.toString();
}
