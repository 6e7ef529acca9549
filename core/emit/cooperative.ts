// The cooperative-reduction realization: P logical programs share a threadgroup of T = 32*S*P
// threads; each program's W = 32*S workers split every reduction and every parallel loop of
// the program into stripes (chunk k of W*V elements, a worker's V elements as vectors of Q
// consecutive ones, neighbouring workers on neighbouring vectors; U chunks per iteration), with
// packed Q-wide accesses where core/analysis/vectors.ts allows. A reduction is four stages with
// exactly one unconditional barrier; a slot past the last program replays the last one (reads
// stay valid) and never stores.

import { Expr, Stmt } from "../ir/ast";
import { RUN_DISTRIBUTED, RUN_EVERY, distribute, isWrapper } from "../analysis/distribution";
import { ceilDiv, idiv } from "../util/text";
import { Ctx } from "./context";
import { Val, elementRef, emitExpr, emitLoad, indexText, intText, isNarrowFloat, mslType, packedType, storeText } from "./expr";
import { mentions, stripeDim } from "../analysis/stripe";
import { valueType } from "../ir/ast";
import { VectorAccesses, packWidth, packs, vectorAccessesOfList, vectorAccessesOfReduce } from "../analysis/vectors";
import { emitPackedVector, packedIn } from "./vector";
import { storedBuffers, threadgroupDecls } from "./abi";
import { zeroSignObservable } from "../analysis/zerosign";
import { combineText, defersNan, emitList, emitStmt, freshName, identityText, nanFlagName, num, simdText, stripeCombine, zeroSignDecl, zeroSignFix } from "./stmt";
import { formatF64Fixed } from "../util/num";
import { findKept } from "./reuse";
import { lanesCombineInSimd, lanesPartialsRead } from "../plan/plan";
import { siblingJoins, siblingRunLength } from "../analysis/siblings";
import { valuesBeforeStores, wholeChunkEnd } from "../analysis/hoist";

// ---------------------------------------------------------------------------------------------
// Register caches (cached input)

/** The first load of `buffer` in `e` with v alone in one index (the last: a row stripe; another:
 *  a column stripe) and in no other, and no other index naming one of `inner` (names bound inside
 *  the site: the fill runs before the site, where they are not declared). */
function cacheLoadIn(e: Expr, buffer: string, v: string, inner: Array<string> = new Array<string>()): Expr | null {
  if (e.op == "load" && e.name == buffer && e.args.length > 0) {
    const at = stripeDim(e, v);
    let ok: bool = at >= 0;
    for (let d: i32 = 0; ok && d < e.args.length; d++) {
      if (d == at) continue;
      for (let k: i32 = 0; ok && k < inner.length; k++) if (mentions(e.args[d], inner[k])) ok = false;
    }
    if (ok) return e;
  }
  for (let i: i32 = 0; i < e.args.length; i++) {
    const r = cacheLoadIn(e.args[i], buffer, v, inner);
    if (r !== null) return r;
  }
  return null;
}

/** Every name a statement list binds (lets, loop and axis variables, reduce results), nested. */
function boundInside(list: Array<Stmt>, out: Array<string>): void {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "let" || s.kind == "for") out.push(s.name);
    if (s.kind == "reduce") {
      out.push(s.name);
      out.push(s.axis);
    }
    boundInside(s.body, out);
    boundInside(s.orelse, out);
  }
}

function cacheLoadInList(list: Array<Stmt>, buffer: string, v: string, inner: Array<string>): Expr | null {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    const exprs = new Array<Expr>();
    exprs.push(s.min);
    exprs.push(s.extent);
    exprs.push(s.value);
    exprs.push(s.cond);
    for (let k: i32 = 0; k < s.at.length; k++) exprs.push(s.at[k]);
    for (let k: i32 = 0; k < exprs.length; k++) {
      const r = cacheLoadIn(exprs[k], buffer, v, inner);
      if (r !== null) return r;
    }
    const b = cacheLoadInList(s.body, buffer, v, inner);
    if (b !== null) return b;
    const o = cacheLoadInList(s.orelse, buffer, v, inner);
    if (o !== null) return o;
  }
  return null;
}

/** A parallel loop the shared Distribution splits over the program's workers. */
function isDistributed(s: Stmt, cx: Ctx): bool {
  return s.kind == "for" && cx.roles.roleOf(s) == RUN_DISTRIBUTED;
}

/** The load of `buffer` a stripe statement would serve from the cache, or null. */
function siteLoad(s: Stmt, buffer: string, cx: Ctx): Expr | null {
  if (s.kind == "reduce") return cacheLoadIn(s.value, buffer, s.axis);
  if (isDistributed(s, cx)) {
    const inner = new Array<string>();
    boundInside(s.body, inner);
    return cacheLoadInList(s.body, buffer, s.name, inner);
  }
  return null;
}

/** The first stripe statement (through wrappers) that can use a cache of `buffer`. */
function findSite(list: Array<Stmt>, buffer: string, cx: Ctx): Stmt | null {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (siteLoad(s, buffer, cx) !== null) return s;
    if (isWrapper(s)) {
      const r = findSite(s.body, buffer, cx);
      if (r !== null) return r;
    }
  }
  return null;
}

function holdsSite(s: Stmt, site: Stmt): bool {
  if (s == site) return true;
  if (!isWrapper(s)) return false;
  for (let i: i32 = 0; i < s.body.length; i++) if (holdsSite(s.body[i], site)) return true;
  return false;
}

/** The largest extent of stripe statement `st` over the programs: its extent where constant (a
 *  window [r, r + K) too); for an extent that varies by program (a causal row [0, r + 1), a band
 *  [r, C - r)), the top of its range over the programs (core/analysis/ranges.ts); -1 when not
 *  known. */
function mostExtent(st: Stmt, extV: Val, cx: Ctx): i32 {
  if (extV.known) return extV.ival;
  const e: f64 = cx.loopRanges.greatestExtent(st);
  return e >= 1.0 && e <= 2147483647.0 ? <i32>e : -1;
}

/** Registers the plan's cache buffers that can be realized (never written, or written in place as
 *  private-ownership proved; a constant stripe extent,
 *  or one that varies by program, the stripe sized for the largest). */
function setupCaches(cx: Ctx, body: Array<Stmt>): void {
  const m = cx.plan.mapping;
  const stored = storedBuffers(cx.doc);
  for (let i: i32 = 0; i < m.cacheBuffers.length; i++) {
    const b = m.cacheBuffers[i];
    // (a buffer the program also writes is cached only where private-ownership proved it in place)
    if (cx.doc.paramIndex(b) < 0 || cx.cacheBufs.indexOf(b) >= 0) continue;
    const site = findSite(body, b, cx);
    if (site === null) continue;
    const st = changetype<Stmt>(site);
    const minV = emitExpr(st.min, cx);
    const extV = emitExpr(st.extent, cx);
    const most = mostExtent(st, extV, cx);
    if (most <= 0) continue;
    cx.cacheBufs.push(b);
    cx.cacheMin.push(minV.text);
    cx.cacheExt.push(extV.text);
    cx.cacheSize.push(ceilDiv(most, m.W * m.V) * m.V);
    cx.cacheMost.push(most);
    const at = siteLoad(st, b, cx);
    cx.cacheDim.push(stripeDim(changetype<Expr>(at), st.kind == "reduce" ? st.axis : st.name));
    cx.cacheSite.push(st);
    cx.cacheWritten.push(stored.indexOf(b) >= 0);
    cx.cacheDeclared.push(false);
    cx.cacheFilled.push(false);
  }
}

function declareCaches(s: Stmt, cx: Ctx): void {
  for (let i: i32 = 0; i < cx.cacheBufs.length; i++) {
    if (cx.cacheDeclared[i] || !holdsSite(s, cx.cacheSite[i])) continue;
    const pi = cx.doc.paramIndex(cx.cacheBufs[i]);
    const t = mslType(valueType(cx.doc.params[pi].dtype));
    cx.line("// stage 0: this worker's stripe of " + cx.names.buf(cx.cacheBufs[i]) + " in registers");
    cx.line(t + " cache_" + cx.names.buf(cx.cacheBufs[i]) + "[" + num(cx.cacheSize[i]) + "];");
    cx.cacheDeclared[i] = true;
  }
}

function fillCaches(s: Stmt, cx: Ctx): void {
  const m = cx.plan.mapping;
  for (let i: i32 = 0; i < cx.cacheBufs.length; i++) {
    if (cx.cacheFilled[i] || cx.cacheSite[i] != s) continue;
    const b = cx.cacheBufs[i];
    const load = changetype<Expr>(siteLoad(s, b, cx));
    const v = s.kind == "reduce" ? s.axis : s.name;
    const minV = emitExpr(s.min, cx);
    const extV = emitExpr(s.extent, cx);
    const chunks = ceilDiv(cx.cacheMost[i], m.W * m.V);
    const full: i32 = extV.known ? idiv(extV.ival, m.W * m.V) : 0;
    cx.line("// fill: the same stripe layout as the stages below; 0 outside the range");
    if (full > 0) {
      cx.open("for (int k = 0; k < " + num(full) + "; ++k) {");
      fillChunk(i, load, v, minV, extV, true, cx);
      cx.close("}");
    }
    if (!extV.known) {
      // a range that varies by program: every chunk up to the largest extent, guarded
      cx.open("for (int k = 0; k < " + num(chunks) + "; ++k) {");
      cx.line("// this program's range ends at " + guardEnd(minV, extV) + ": the slots past it stay 0");
      fillChunk(i, load, v, minV, extV, false, cx);
      cx.close("}");
    } else if (chunks > full) {
      cx.open("{");
      cx.line("// the last chunk: a vector may be ragged or past the end");
      cx.line("const int k = " + num(full) + ";");
      fillChunk(i, load, v, minV, extV, false, cx);
      cx.close("}");
    }
    cx.cacheFilled[i] = true;
  }
}

/** Whether the plan keeps `buffer` in a register stripe that the program also writes. */
function cachedWritten(buffer: string, cx: Ctx): bool {
  const i = cx.cacheBufs.indexOf(buffer);
  return i >= 0 && cx.cacheWritten[i];
}

/** Chunk k of cache i's fill; `allWhole`: every vector of the chunk is in range (no guard). */
function fillChunk(i: i32, load: Expr, v: string, minV: Val, extV: Val, allWhole: bool, cx: Ctx): void {
  const m = cx.plan.mapping;
  const id = cx.names.buf(cx.cacheBufs[i]);
  const pi = cx.doc.paramIndex(cx.cacheBufs[i]);
  const zero = cx.doc.params[pi].dtype == "i32" ? "0" : "0.0f";
  const Q = packWidth(m.V);
  const H: i32 = idiv(m.V, Q);
  const ident = cx.names.of(v);
  const end = guardEnd(minV, extV);
  if (H > 1) cx.open("for (int tile_h = 0; tile_h < " + num(H) + "; ++tile_h) {");
  const base = m.V == 1 ? "k" : "k * " + num(m.V) + (H > 1 ? " + tile_h * " + num(Q) : "");
  // a row stripe's vector is Q consecutive elements, read packed (through a const pointer, which
  // the audit reads as a load, also for a buffer the program writes in place); a column stripe's
  // are a column's, read one by one
  const packed = packs(m.V) && cx.cacheDim[i] == load.args.length - 1;
  if (Q == 1) {
    cx.line("const int " + ident + " = " + vectorStartText(vectorIndexText("k", H), minV, cx) + ";");
    if (allWhole) {
      cx.line("cache_" + id + "[" + base + "] = " + emitLoad(load, cx) + ";");
    } else {
      cx.line("if (" + ident + " < " + end + ") cache_" + id + "[" + base + "] = " + emitLoad(load, cx) + ";");
      cx.line("else cache_" + id + "[" + base + "] = " + zero + ";");
    }
  } else {
    cx.line("const int tile_v0 = " + vectorStartText(vectorIndexText("k", H), minV, cx) + ";");
    if (packed) {
      // a whole vector in range is read Q-wide: packed vectors need only 4-byte alignment
      const vec = packedType(cx.doc.params[pi].dtype);
      cx.overrideName = v;
      cx.overrideText = "tile_v0";
      const addr = elementRef(load, cx);
      const narrow = isNarrowFloat(cx.doc.params[pi].dtype);
      cx.overrideName = "";
      cx.overrideText = "";
      if (!allWhole) cx.open("if (tile_v0 + " + num(Q) + " <= " + end + ") {");
      cx.line("const " + vec + " w0 = *((device const " + vec + "*)(&" + addr + "));");
      for (let l: i32 = 0; l < Q; l++) {
        // a 16-bit lane converts to float (exactly)
        const lane = "w0[" + num(l) + "]";
        cx.line("cache_" + id + "[" + base + " + " + num(l) + "] = " + (narrow ? "float(" + lane + ")" : lane) + ";");
      }
      if (!allWhole) {
        cx.ind = cx.ind - 1;
        cx.open("} else {");
        cx.line("// the ragged last vector (or one past the end), element by element; 0 outside");
      }
    }
    if (!packed || !allWhole) {
      cx.open("for (int j = 0; j < " + num(Q) + "; ++j) {");
      cx.line("const int " + ident + " = tile_v0 + j;");
      if (allWhole) {
        cx.line("cache_" + id + "[" + base + " + j] = " + emitLoad(load, cx) + ";");
      } else {
        cx.line("if (" + ident + " < " + end + ") cache_" + id + "[" + base + " + j] = " + emitLoad(load, cx) + ";");
        cx.line("else cache_" + id + "[" + base + " + j] = " + zero + ";");
      }
      cx.close("}");
    }
    if (packed && !allWhole) cx.close("}");
  }
  if (H > 1) cx.close("}");
}

// ---------------------------------------------------------------------------------------------
// Stripes

/**
 * Stripe layout. A chunk is W*V elements; a worker's V elements in it are H = V/Q vectors of Q
 * consecutive elements (Q = 4 when packed accesses apply, else V), and vector h of chunk k is
 * global vector (k*H + h) of the range, of which worker w takes the w-th: neighbouring workers
 * touch neighbouring vectors in every access. For V <= 4 this is `(k*W + worker)*V + j`.
 */
function vectorIndexText(chunk: string, H: i32): string {
  return H > 1 ? "(" + chunk + " * " + num(H) + " + tile_h)" : chunk;
}

/** The first element of a worker's vector number `vec` (vectorIndexText) of the range. */
function vectorStartText(vec: string, minV: Val, cx: Ctx): string {
  const m = cx.plan.mapping;
  const Q = packWidth(m.V);
  let core: string = vec + " * " + num(m.W) + " + worker";
  if (Q > 1) core = "(" + core + ") * " + num(Q);
  if (minV.known && minV.ival == 0) return core;
  return minV.text + " + " + core;
}

function guardEnd(minV: Val, extV: Val): string {
  if (minV.known && extV.known) {
    const x: f64 = <f64>minV.ival + <f64>extV.ival;
    if (x >= -2147483648.0 && x <= 2147483647.0) return intText(i32(x));
  }
  if (minV.known && minV.ival == 0) return extV.text;
  return "(" + minV.text + " + " + extV.text + ")";
}

/**
 * A worker's stripe over [min, min + extent): chunks of W*V elements, the worker's V elements in
 * each as H vectors of Q (see vectorIndexText), U chunks per iteration. For a reduce, copy u
 * accumulates into `accs[u]`; for a parallel loop, each element runs the loop body. A vector whose
 * Q elements are all in range reads and writes the packable accesses (core/analysis/vectors.ts)
 * Q-wide; a ragged last vector runs element by element.
 */
function emitStripe(s: Stmt, isReduce: bool, run: Array<Stmt>, accs: Array<Array<string>>, signs: Array<bool>, cx: Ctx): void {
  const m = cx.plan.mapping;
  const v = isReduce ? s.axis : s.name;
  const ident = cx.names.of(v);
  const minV = emitExpr(s.min, cx);
  const extV = emitExpr(s.extent, cx);
  const per: i32 = m.W * m.V;
  const Q = packWidth(m.V);
  // 64-bit element arithmetic where the stripe (with its overshoot of up to U chunks) may leave i32
  const wide: bool = !cx.loopRanges.fitsWith(s, <f64>per * <f64>(m.U + 1));
  let chunks: string = "";
  let chunkCount: i32 = -1;
  // the register cache of a range that varies by program, where this stripe is its range
  const cached: i32 = extV.known || wide ? -1 : cachedRange(minV, extV, cx);
  if (extV.known && wide) {
    chunks = extV.ival <= 0 ? "0" : formatF64Fixed(Math.ceil(<f64>extV.ival / <f64>per), 0);
  } else if (extV.known) {
    chunkCount = extV.ival <= 0 ? 0 : ceilDiv(extV.ival, per);
    chunks = num(chunkCount);
  } else if (cached >= 0) {
    // a range that varies by program, served from a register stripe: the stripe's chunks up to
    // the largest extent (constant indices into the registers), each element guarded
    chunks = num(ceilDiv(cx.cacheMost[cached], per));
  } else {
    chunks = "chunks_" + num(cx.serial);
    cx.serial = cx.serial + 1;
    if (wide) cx.line("const int " + chunks + " = int((long(" + extV.inner + ") + " + num(per - 1) + ") / " + num(per) + ");");
    else cx.line("const int " + chunks + " = (" + extV.text + " + " + num(per - 1) + ") / " + num(per) + ";");
  }
  const end = wide ? "long(" + minV.inner + ") + long(" + extV.inner + ")" : guardEnd(minV, extV);
  // packed accesses: not in a 64-bit stripe (its elements are computed in long)
  let acc: VectorAccesses = new VectorAccesses();
  if (!wide && packs(m.V) && isReduce) {
    // a sibling run's members share one vector's packed loads (one per distinct address)
    for (let r: i32 = 0; r < run.length; r++) {
      const one = vectorAccessesOfReduce(cx.doc, run[r]);
      for (let k: i32 = 0; k < one.loads.length; k++) acc.loads.push(one.loads[k]);
    }
  } else if (!wide && packs(m.V)) {
    acc = vectorAccessesOfList(cx.doc, v, s.body);
    // a store to a buffer this plan keeps in registers and writes in place (core/analysis/vectors.ts)
    for (let k: i32 = 0; k < acc.cachedStores.length; k++) {
      if (cachedWritten(acc.cachedStores[k].name, cx)) acc.stores.push(acc.cachedStores[k]);
    }
  }
  const saveVar = cx.stripeVar;
  const saveMin = cx.stripeMin;
  const saveExt = cx.stripeExt;
  const saveIdx = cx.cacheIndex;
  cx.stripeVar = v;
  cx.stripeMin = minV.text;
  cx.stripeExt = extV.text;
  const st = new StripeText(s, isReduce, run, accs, signs, v, minV, end, wide, acc, extV.known && extV.ival % Q == 0);
  const step: string = m.U == 1 ? "++k" : "k += " + num(m.U);
  if (chunkCount > 0) {
    // whole chunks (every vector in range: no guard) in a loop, then the last U chunks, guarded
    const mainEnd: i32 = wholeChunkEnd(extV.ival, per, m.U);
    if (mainEnd > 0) {
      cx.open("for (int k = 0; k < " + num(mainEnd) + "; " + step + ") {");
      emitChunks(st, true, cx);
      cx.close("}");
    }
    if (chunkCount > mainEnd) {
      cx.open("{");
      cx.line("// the last " + (m.U > 1 ? "chunks" : "chunk") + ": a vector may be ragged or past the end");
      cx.line("const int k = " + num(mainEnd) + ";");
      emitChunks(st, false, cx);
      cx.close("}");
    }
  } else {
    cx.open("for (int k = 0; k < " + chunks + "; " + step + ") {");
    emitChunks(st, false, cx);
    cx.close("}");
  }
  cx.stripeVar = saveVar;
  cx.stripeMin = saveMin;
  cx.stripeExt = saveExt;
  cx.cacheIndex = saveIdx;
}

/** The register cache whose range is the stripe's (the same min and extent texts, as cacheSlot
 *  requires to serve a load from it), filled already, or -1. */
function cachedRange(minV: Val, extV: Val, cx: Ctx): i32 {
  for (let i: i32 = 0; i < cx.cacheBufs.length; i++) {
    if (cx.cacheFilled[i] && cx.cacheMin[i] == minV.text && cx.cacheExt[i] == extV.text) return i;
  }
  return -1;
}

/** What the chunks of one stripe need (AssemblyScript has no closures). */
class StripeText {
  s: Stmt;
  isReduce: bool;
  /** A reduce's sibling run (core/analysis/siblings.ts: s first), each member's U accumulators,
   *  and whether each tracks the sign of a zero result; empty for a parallel loop. */
  run: Array<Stmt>;
  accs: Array<Array<string>>;
  signs: Array<bool>;
  v: string;
  minV: Val;
  end: string;
  wide: bool;
  acc: VectorAccesses;
  /** Every vector is whole or entirely past the end (no ragged vector). */
  noRagged: bool;

  constructor(s: Stmt, isReduce: bool, run: Array<Stmt>, accs: Array<Array<string>>, signs: Array<bool>, v: string, minV: Val, end: string, wide: bool, acc: VectorAccesses, noRagged: bool) {
    this.s = s;
    this.isReduce = isReduce;
    this.run = run;
    this.accs = accs;
    this.signs = signs;
    this.v = v;
    this.minV = minV;
    this.end = end;
    this.wide = wide;
    this.acc = acc;
    this.noRagged = noRagged;
  }
}

/** The U chunks k, k + 1, ... of a stripe; `allWhole`: every vector in range, no guard. */
function emitChunks(t: StripeText, allWhole: bool, cx: Ctx): void {
  const m = cx.plan.mapping;
  const s = t.s;
  const v = t.v;
  const ident = cx.names.of(v);
  const minV = t.minV;
  const end = t.end;
  const Q = packWidth(m.V);
  const H: i32 = idiv(m.V, Q);
  const noRagged = t.noRagged;
  if (!t.isReduce && m.U > 1 && Q == 1 && !t.wide && allWhole && valuesBeforeStores(s.body)) {
    emitValuesFirst(t, cx);
    return;
  }
  for (let u: i32 = 0; u < m.U; u++) {
    const chunk = u == 0 ? "k" : "(k + " + num(u) + ")";
    const vec = vectorIndexText(chunk, H);
    if (m.U > 1) cx.open("{");
    if (H > 1) cx.open("for (int tile_h = 0; tile_h < " + num(H) + "; ++tile_h) {");
    let slot: string = chunk;
    if (m.V > 1) slot = chunk + " * " + num(m.V) + (H > 1 ? " + tile_h * " + num(Q) : "") + " + j";
    cx.cacheIndex = slot;
    const accNames = new Array<string>();
    for (let r: i32 = 0; r < t.run.length; r++) accNames.push(t.accs[r][u]);
    if (t.wide) {
      const e = freshName("e", cx);
      if (Q > 1) cx.open("for (int j = 0; j < " + num(Q) + "; ++j) {");
      let at: string = "(long(" + vec + ") * " + num(m.W) + " + long(worker))";
      if (Q > 1) at = at + " * " + num(Q) + " + long(j)";
      cx.line("const long " + e + " = long(" + minV.inner + ") + " + at + ";");
      cx.open("if (" + e + " < " + end + ") {");
      cx.line("const int " + ident + " = int(" + e + ");");
      stripeElement(s, t, accNames, cx);
      cx.close("}");
      if (Q > 1) cx.close("}");
    } else if (Q == 1) {
      cx.line("const int " + ident + " = " + vectorStartText(vec, minV, cx) + ";");
      if (!allWhole) cx.open("if (" + ident + " < " + end + ") {");
      stripeElement(s, t, accNames, cx);
      if (!allWhole) cx.close("}");
    } else {
      cx.line("const int tile_v0 = " + vectorStartText(vec, minV, cx) + ";");
      const p = packedIn(t.acc, cx);
      if (p.any()) {
        if (!allWhole) cx.open("if (tile_v0 + " + num(Q) + " <= " + end + ") {");
        emitPackedVector(p, v, "tile_v0", Q, t.run, accNames, t.signs, s.body, cx);
        if (!allWhole && noRagged) cx.close("}");
        if (!allWhole && !noRagged) {
          cx.ind = cx.ind - 1;
          cx.open("} else {");
          cx.line("// the ragged last vector, element by element");
        }
      }
      if (!p.any() || (!allWhole && !noRagged)) {
        cx.open("for (int j = 0; j < " + num(Q) + "; ++j) {");
        cx.line("const int " + ident + " = tile_v0 + j;");
        if (!allWhole) cx.open("if (" + ident + " < " + end + ") {");
        stripeElement(s, t, accNames, cx);
        if (!allWhole) cx.close("}");
        cx.close("}");
        if (p.any()) cx.close("}");
      }
    }
    if (H > 1) cx.close("}");
    if (m.U > 1) cx.close("}");
  }
}

/**
 * The U whole chunks of a distributed loop whose body is only stores that read nothing they store
 * (core/analysis/hoist.ts): every chunk's values first, then the stores in program order. The
 * compiler keeps a load below any store before it, so chunk by chunk each load would wait for the
 * store before it; this way the U chunks' loads are in flight together (run 67).
 */
function emitValuesFirst(t: StripeText, cx: Ctx): void {
  const s = t.s;
  const ident = cx.names.of(t.v);
  const m = cx.plan.mapping;
  const held = new Array<string>();
  cx.line("// the " + num(m.U) + " chunks' values first, then their stores: no store comes between two loads");
  for (let u: i32 = 0; u < m.U; u++) {
    for (let j: i32 = 0; j < s.body.length; j++) {
      const h = freshName("hv", cx);
      held.push(h);
      cx.line(mslType(s.body[j].value.ty) + " " + h + ";");
    }
  }
  for (let phase: i32 = 0; phase < 2; phase++) {
    for (let u: i32 = 0; u < m.U; u++) {
      const chunk = u == 0 ? "k" : "(k + " + num(u) + ")";
      cx.open("{");
      cx.cacheIndex = chunk;
      cx.line("const int " + ident + " = " + vectorStartText(chunk, t.minV, cx) + ";");
      for (let j: i32 = 0; j < s.body.length; j++) {
        const st = s.body[j];
        const h = held[u * s.body.length + j];
        if (phase == 0) {
          cx.line(h + " = " + emitExpr(st.value, cx).inner + ";");
        } else {
          const text = storeText(st.name, st.at, h, cx);
          cx.line(cx.liveStores ? "if (live) { " + text + " }" : text);
        }
      }
      cx.close("}");
    }
  }
}

/** One element of a stripe, scalar: each reduce's combine (a sibling run's in order: a load
 *  repeated at one address, with no store between, is one read for the compiler), or the loop
 *  body. */
function stripeElement(s: Stmt, t: StripeText, accNames: Array<string>, cx: Ctx): void {
  if (t.isReduce) {
    for (let r: i32 = 0; r < t.run.length; r++) {
      cx.zeroSign = t.signs[r];
      stripeCombine(t.run[r], accNames[r], emitExpr(t.run[r].value, cx), cx);
    }
    cx.zeroSign = false;
  } else {
    emitList(s.body, cx);
  }
}

/**
 * A reduce, or a sibling run of reduces (core/analysis/siblings.ts: the same range and axis, none
 * reading another's result): stage 1 is one pass of the stripe that combines each element into
 * every member's accumulators; stages 2 to 4 follow for each member in program order, each with
 * its one barrier, as for a reduce alone.
 */
function emitReduceRun(run: Array<Stmt>, cx: Ctx): void {
  const m = cx.plan.mapping;
  const s = run[0];
  const accs = new Array<Array<string>>();
  const signs = new Array<bool>();
  if (run.length > 1) {
    cx.line("// stage 1 of " + num(run.length) + " reduces over the same range, in one pass: each element is read once and");
    cx.line("// combined into every accumulator, in program order");
  }
  for (let r: i32 = 0; r < run.length; r++) {
    const one = new Array<string>();
    const sign = reducePreamble(run[r], one, cx);
    accs.push(one);
    signs.push(sign);
  }
  // a run's members keep no value for later stages (reuse.ts declines them)
  const kept = run.length == 1 ? cx.keepStmt.indexOf(s) : -1;
  if (kept >= 0) {
    cx.keepInto = "cache_" + cx.names.buf(cx.keepBuf[kept]);
    cx.line("// each element's value goes into " + cx.keepInto + " (dead there): the stages below read it back");
  }
  emitStripe(s, true, run, accs, signs, cx);
  cx.keepInto = "";
  if (kept >= 0) cx.keepOn[kept] = true;
  for (let r: i32 = 0; r < run.length; r++) reduceCombine(run[r], accs[r], signs[r], cx);
}

/** A reduce's stage-1 declarations (its U accumulators into `accs`, the NaN and zero-sign words);
 *  returns whether it tracks the sign of a zero result. */
function reducePreamble(s: Stmt, accs: Array<string>, cx: Ctx): bool {
  const m = cx.plan.mapping;
  const n = cx.names.of(s.name);
  const ty = s.value.ty;
  const t = mslType(ty);
  const id = identityText(s.combiner, ty);
  const acc = "acc_" + n;
  cx.line("// stage 1: per-worker partial over its stripe");
  if (m.U == 1) {
    accs.push(acc);
  } else {
    for (let u: i32 = 0; u < m.U; u++) accs.push(acc + "_" + num(u));
  }
  for (let u: i32 = 0; u < accs.length; u++) cx.line(t + " " + accs[u] + " = " + id + ";");
  const defer = defersNan(s.combiner, ty);
  // the sign word only where an output can see the sign of a zero result
  const sign = defer && zeroSignObservable(cx.doc.body, s.name);
  if (defer) {
    if (sign) {
      cx.line("// NaN noted on the bits per element (the largest |bits|), and the sign a zero partial takes");
      cx.line("// (-0 below +0), applied once after the stripe");
    } else {
      cx.line("// NaN noted on the bits per element (the largest |bits|), applied once after the stripe; no");
      cx.line("// output depends on the sign of a zero result, so the stripe does not track it");
    }
    for (let u: i32 = 0; u < accs.length; u++) {
      cx.line("uint " + nanFlagName(accs[u]) + " = 0u;");
      if (sign) cx.line(zeroSignDecl(s.combiner, accs[u]));
    }
  }
  return sign;
}

/** After the stripe: a reduce's NaN and zero-sign fixes, its U partials combined, then the
 *  combine across workers (stages 2 to 4, or the programs-on-lanes combine). */
function reduceCombine(s: Stmt, accs: Array<string>, sign: bool, cx: Ctx): void {
  const m = cx.plan.mapping;
  const n = cx.names.of(s.name);
  const ty = s.value.ty;
  const t = mslType(ty);
  const id = identityText(s.combiner, ty);
  let K: i32 = cx.plan.reduces.indexOf(s);
  if (K < 0) K = 0;
  const tg = "tg" + num(K);
  const acc = "acc_" + n;
  const defer = defersNan(s.combiner, ty);
  if (defer) {
    for (let u: i32 = 0; u < accs.length; u++) {
      if (sign) cx.line(zeroSignFix(accs[u]));
      cx.line("if (" + nanFlagName(accs[u]) + " > 0x7f800000u) { " + accs[u] + " = NAN; }");
    }
  }
  if (m.U > 1) {
    let c: string = accs[0];
    for (let u: i32 = 1; u < accs.length; u++) {
      if (s.combiner == "sum" && ty == "f32") c = u == 1 ? c + " + " + accs[u] : "(" + c + ") + " + accs[u];
      else c = combineText(s.combiner, ty, c, new Val(accs[u], accs[u]), cx);
    }
    cx.line("const " + t + " " + acc + " = " + c + ";");
  }
  if (m.lanes) {
    emitLanesCombine(s, acc, cx);
    return;
  }
  cx.line("// stage 2: first SIMD reduction");
  cx.line("const " + t + " part_" + n + " = " + simdText(s.combiner, ty, cx) + "(" + acc + ");");
  cx.line("// stage 3: one partial per SIMD group to threadgroup memory");
  cx.line("if (lane == 0u) { " + tg + "[sg] = part_" + n + "; }");
  cx.line("threadgroup_barrier(mem_flags::mem_threadgroup);");
  cx.line("// stage 4: second SIMD reduction over the program's S partials");
  cx.line("const " + t + " " + n + " = " + simdText(s.combiner, ty, cx) + "(lane < " + num(m.S) + "u ? " + tg + "[partial_base + int(lane)] : " + id + ");");
}

/**
 * Programs on lanes: a SIMD group holds 32 / P workers of P programs, so a SIMD reduction would
 * mix programs. Where P is a power of two below 32, lane l holds program l % P, and shuffles by
 * xor of P, 2P, ..., 16 combine the group's workers of each program without mixing; lanes
 * 0..P-1 write one partial per SIMD group and program (slot sg * P + program_in_group), and after
 * the one barrier each worker combines its program's T / 32 partials in SIMD-group order. Other P
 * (3, 5, ...): every worker's partial goes to its thread's slot (worker * P + program_in_group =
 * tid) and each worker combines all W in worker order. Either way every worker of a program
 * reads the same partials in the same order, so all hold the same value.
 */
function emitLanesCombine(s: Stmt, acc: string, cx: Ctx): void {
  const m = cx.plan.mapping;
  const n = cx.names.of(s.name);
  const ty = s.value.ty;
  const t = mslType(ty);
  let K: i32 = cx.plan.reduces.indexOf(s);
  if (K < 0) K = 0;
  const tg = "tg" + num(K);
  const c = freshName("c", cx);
  const w = freshName("w", cx);
  if (lanesCombineInSimd(m.P)) {
    // lane l of a SIMD group holds program l % P: the xor of a multiple of P keeps the program
    const p = freshName("p", cx);
    cx.line("// stage 2: the " + num(idiv(32, m.P)) + " workers of each program in this SIMD group combined across lanes (xor of");
    cx.line("// multiples of P keeps the program), then one partial per SIMD group and program to");
    cx.line("// threadgroup memory (slot sg * P + program)");
    cx.line(t + " " + p + " = " + acc + ";");
    for (let off: i32 = m.P; off < 32; off = off * 2) {
      const sh = "simd_shuffle_xor(" + p + ", ushort(" + num(off) + "))";
      cx.line(p + " = " + combineText(s.combiner, ty, p, new Val(sh, sh), cx) + ";");
    }
    cx.line("if (lane < " + num(m.P) + "u) { " + tg + "[int(sg) * " + num(m.P) + " + program_in_group] = " + p + "; }");
    cx.line("threadgroup_barrier(mem_flags::mem_threadgroup);");
    const G = lanesPartialsRead(m.P, m.S);
    cx.line("// stage 3: each worker combines its program's " + num(G) + " partials, in SIMD-group order");
    cx.line(t + " " + c + " = " + tg + "[program_in_group];");
    const next = tg + "[" + w + " * " + num(m.P) + " + program_in_group]";
    if (G > 1) cx.line("for (int " + w + " = 1; " + w + " < " + num(G) + "; ++" + w + ") { " + c + " = " + combineText(s.combiner, ty, c, new Val(next, next), cx) + "; }");
    cx.line("const " + t + " " + n + " = " + c + ";");
    return;
  }
  cx.line("// stage 2: every worker's partial to threadgroup memory (slot worker * P + program = tid)");
  cx.line(tg + "[tid] = " + acc + ";");
  cx.line("threadgroup_barrier(mem_flags::mem_threadgroup);");
  cx.line("// stage 3: each worker combines its program's W partials, in worker order");
  cx.line(t + " " + c + " = " + tg + "[program_in_group];");
  const next = tg + "[" + w + " * " + num(m.P) + " + program_in_group]";
  cx.line("for (int " + w + " = 1; " + w + " < " + num(m.W) + "; ++" + w + ") { " + c + " = " + combineText(s.combiner, ty, c, new Val(next, next), cx) + "; }");
  cx.line("const " + t + " " + n + " = " + c + ";");
}

function emitDistributed(s: Stmt, cx: Ctx): void {
  cx.line("// parallel loop over " + cx.names.of(s.name) + ": distributed over the program's workers");
  emitStripe(s, false, new Array<Stmt>(), new Array<Array<string>>(), new Array<bool>(), cx);
}

/**
 * The program loop's body (and a wrapper's body), statement by statement as the shared
 * Distribution says: distributed (reduce, parallel loop), every worker (let, wrapper) or
 * worker 0 alone (everything else, with all it holds).
 */
function emitProgramList(list: Array<Stmt>, top: bool, cx: Ctx): void {
  const d = cx.roles;
  const joins = siblingJoins(list);
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (top) declareCaches(s, cx);
    fillCaches(s, cx);
    const role = d.roleOf(s);
    if (role == RUN_EVERY && s.kind == "let") {
      emitStmt(s, cx);
    } else if (role == RUN_DISTRIBUTED && s.kind == "reduce") {
      // a sibling run (core/analysis/siblings.ts): its later members' caches are declared and
      // filled before the one pass (their fills read nothing the run computes)
      const run = new Array<Stmt>();
      const len = cx.plan.fuseSiblings ? siblingRunLength(joins, i) : 1;
      for (let r: i32 = 0; r < len; r++) {
        run.push(list[i + r]);
        if (r == 0) continue;
        if (top) declareCaches(list[i + r], cx);
        fillCaches(list[i + r], cx);
      }
      emitReduceRun(run, cx);
      i = i + len - 1;
    } else if (role == RUN_DISTRIBUTED) {
      emitDistributed(s, cx);
    } else if (role == RUN_EVERY) {
      const minV = emitExpr(s.min, cx);
      cx.line("// serial wrapper of unit extent");
      cx.open("{");
      cx.line("const int " + cx.names.of(s.name) + " = " + minV.inner + ";");
      emitProgramList(s.body, false, cx);
      cx.close("}");
    } else if (s.kind == "store") {
      const v = emitExpr(s.value, cx);
      cx.line("if (live && worker == 0) { " + storeText(s.name, s.at, v.inner, cx) + " }");
    } else {
      cx.open("if (worker == 0) {");
      emitStmt(s, cx);
      cx.close("}");
    }
  }
}

export function emitCooperative(cx: Ctx): void {
  const m = cx.plan.mapping;
  if (cx.plan.programLoop === null) return;
  const loop = changetype<Stmt>(cx.plan.programLoop);
  const last: i32 = m.programs - 1;
  const decls = threadgroupDecls(cx.plan);
  if (decls.length > 0) {
    cx.line(m.lanes ? "// threadgroup memory, per reduce: one partial per worker of each of the P programs"
      : "// threadgroup memory, per reduce: one partial per SIMD group of each of the P programs");
    for (let i: i32 = 0; i < decls.length; i++) cx.line(decls[i]);
  }
  // the plan carries the Distribution the rules were checked with; a plan built by hand (tests)
  // gets the same pure function's result
  cx.roles = cx.plan.distribution.stmts.length > 0 ? cx.plan.distribution : distribute(loop);
  if (m.lanes) {
    cx.line("// programs on lanes: P programs on neighbouring threads, W workers per program P threads apart");
    cx.line("const int program_in_group = int(tid) % " + num(m.P) + ";");
    cx.line("const int worker = int(tid) / " + num(m.P) + ";");
  } else {
    cx.line("// P programs per group, W workers per program, S SIMD groups per program");
    cx.line("const int program_in_group = int(tid) / " + num(m.W) + ";");
    cx.line("const int worker = int(tid) % " + num(m.W) + ";");
    cx.line("const int partial_base = program_in_group * " + num(m.S) + ";");
  }
  cx.line("const int logical = int(group) * " + num(m.P) + " + program_in_group;");
  cx.line("// tail replay: a slot past the last program redoes the last one and stores nothing");
  cx.line("const bool live = logical < " + num(m.programs) + ";");
  const pick = "(live ? logical : " + num(last) + ")";
  const start = m.programMin == 0 ? pick : intText(m.programMin) + " + " + pick;
  cx.line("const int " + cx.names.of(loop.name) + " = " + start + ";");
  setupCaches(cx, loop.body);
  findKept(loop.body, cx);
  cx.liveStores = true;
  emitProgramList(loop.body, true, cx);
  cx.liveStores = false;
}
