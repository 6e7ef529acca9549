// One vector of Q consecutive values of a walking variable (a stripe's vector in the cooperative
// reduction, a thread's vector of columns in the fused element grid), with the accesses that
// core/analysis/vectors.ts proved packable read and written Q-wide:
//
//   const packed_float4 tile_x0 = *((device const packed_float4*)(&X[r * 4096 + tile_v0]));
//   packed_float4 tile_y0;
//   for (int j = 0; j < 4; ++j) {
//     const int c = tile_v0 + j;
//     tile_y0[j] = ...tile_x0[j]...;
//   }
//   if (live) { *((device packed_float4*)(&Y[r * 4096 + tile_v0])) = tile_y0; }
//
// Packed types need only the element's alignment (4 bytes), so no alignment is assumed. The
// caller emits this only for a vector whose Q values are all in range.

import { Expr, Stmt } from "../ir/ast";
import { VectorAccesses, packs, vectorAccessesOfGrid } from "../analysis/vectors";
import { Ctx } from "./context";
import { cacheSlot, emitLoad, indexText, packedType } from "./expr";
import { emitList, freshName, num, stripeCombine } from "./stmt";
import { emitExpr } from "./expr";

/** The accesses of `acc` that this vector packs: loads not already served by a register cache. */
export class Packed {
  loads: Array<Expr> = new Array<Expr>();
  stores: Array<Stmt> = new Array<Stmt>();

  any(): bool {
    return this.loads.length > 0 || this.stores.length > 0;
  }
}

export function packedIn(acc: VectorAccesses, cx: Ctx): Packed {
  const p = new Packed();
  for (let i: i32 = 0; i < acc.loads.length; i++) if (cacheSlot(acc.loads[i], cx) == "") p.loads.push(acc.loads[i]);
  for (let i: i32 = 0; i < acc.stores.length; i++) p.stores.push(acc.stores[i]);
  return p;
}

/** `&B[index]` of a packed access, with the walking variable `v` at the vector's first value. */
function addressAt(buffer: string, at: Array<Expr>, v: string, start: string, cx: Ctx): string {
  cx.overrideName = v;
  cx.overrideText = start;
  const t = "&" + cx.names.buf(buffer) + "[" + indexText(buffer, at, cx) + "]";
  cx.overrideName = "";
  cx.overrideText = "";
  return t;
}

function dtypeOf(buffer: string, cx: Ctx): string {
  return cx.doc.params[cx.doc.paramIndex(buffer)].dtype;
}

/**
 * The Q values of `v` from `start` (an atom), with `p`'s accesses packed. For reduces (`reduces`
 * not empty) each value is combined into each one's `accNames`; otherwise `body` runs once per
 * value.
 */
export function emitPackedVector(p: Packed, v: string, start: string, Q: i32, reduces: Array<Stmt>, accNames: Array<string>, signs: Array<bool>, body: Array<Stmt>, cx: Ctx): void {
  const saveLoads = cx.packLoads;
  const saveLoadVars = cx.packLoadVars;
  const saveStores = cx.packStores;
  const saveStoreVars = cx.packStoreVars;
  const loads = new Array<Expr>();
  const loadVars = new Array<string>();
  const addrs = new Array<string>();
  for (let i: i32 = 0; i < p.loads.length; i++) {
    const e = p.loads[i];
    const a = addressAt(e.name, e.args, v, start, cx);
    // one packed load per distinct address (`(X[c] - m) * (X[c] - m)` reads X once)
    const seen = addrs.indexOf(a);
    if (seen >= 0) {
      loads.push(e);
      loadVars.push(loadVars[seen]);
      addrs.push(a);
      continue;
    }
    const t = packedType(dtypeOf(e.name, cx));
    const x = freshName("x", cx);
    cx.line("const " + t + " " + x + " = *((device const " + t + "*)(" + a + "));");
    loads.push(e);
    loadVars.push(x);
    addrs.push(a);
  }
  const storeVars = new Array<string>();
  const storeAddrs = new Array<string>();
  for (let i: i32 = 0; i < p.stores.length; i++) {
    const s = p.stores[i];
    const y = freshName("y", cx);
    cx.line(packedType(dtypeOf(s.name, cx)) + " " + y + ";");
    storeVars.push(y);
    storeAddrs.push(addressAt(s.name, s.at, v, start, cx));
  }
  cx.packLoads = loads;
  cx.packLoadVars = loadVars;
  cx.packStores = p.stores;
  cx.packStoreVars = storeVars;
  cx.open("for (int j = 0; j < " + num(Q) + "; ++j) {");
  cx.line("const int " + cx.names.of(v) + " = " + start + " + j;");
  if (reduces.length > 0) {
    // each reduce of a sibling run in program order (core/analysis/siblings.ts), reading the
    // packed values above
    for (let r: i32 = 0; r < reduces.length; r++) {
      cx.zeroSign = signs[r];
      stripeCombine(reduces[r], accNames[r], emitExpr(reduces[r].value, cx), cx);
    }
    cx.zeroSign = false;
  } else {
    emitList(body, cx);
  }
  cx.close("}");
  cx.packLoads = saveLoads;
  cx.packLoadVars = saveLoadVars;
  cx.packStores = saveStores;
  cx.packStoreVars = saveStoreVars;
  for (let i: i32 = 0; i < p.stores.length; i++) {
    const t = packedType(dtypeOf(p.stores[i].name, cx));
    const st = "*((device " + t + "*)(" + storeAddrs[i] + ")) = " + storeVars[i] + ";";
    cx.line(cx.liveStores ? "if (live) { " + st + " }" : st);
  }
}

/**
 * The innermost loop of the fused element grid over a thread's vector of gridQ columns starting
 * at `first` (the loop's min plus the thread's column `col`): packed where the analysis allows.
 * Where the row length is not a multiple of gridQ, a row's last vector is ragged: it runs element
 * by element, each column checked against the row length.
 */
export function emitGridVector(s: Stmt, first: string, cx: Ctx): void {
  const Q = cx.gridQ;
  const cols = cx.gridRaggedCols;
  cx.open("{");
  let start: string = first;
  if (first != "col") {
    cx.line("const int tile_v0 = " + first + ";");
    start = "tile_v0";
  }
  const p = packs(Q) ? packedIn(vectorAccessesOfGrid(cx.doc, s.name, s.body), cx) : new Packed();
  if (p.any()) {
    if (cols > 0) cx.open("if (col <= " + num(cols - Q) + ") {");
    emitPackedVector(p, s.name, start, Q, new Array<Stmt>(), new Array<string>(), new Array<bool>(), s.body, cx);
    if (cols > 0) {
      cx.ind = cx.ind - 1;
      cx.open("} else {");
      cx.line("// the row's ragged last vector, element by element");
    }
  }
  if (!p.any() || cols > 0) {
    cx.open("for (int j = 0; j < " + num(Q) + "; ++j) {");
    if (cols > 0) cx.line("if (col + j >= " + num(cols) + ") break;");
    cx.line("const int " + cx.names.of(s.name) + " = " + start + " + j;");
    emitList(s.body, cx);
    cx.close("}");
    if (p.any()) cx.close("}");
  }
  cx.close("}");
}
