// What one logical program (or one element) does, counted from the IR: the stages, their
// extents, arithmetic, and the loads and stores per element. The cost model reads only this.

import { Doc, Expr, Stmt, dtypeBytes } from "../ir/ast";
import { Affine, AffineEnv, affineOf } from "../ir/affine";
import { evalConstI32 } from "../analysis/consts";
import { VectorAccesses, contiguousDecoded, contiguousIn, contiguousSum, holdsLoad, mentionsAny, uniformDecoded, sameExpr, vectorAccessesOfGrid, vectorAccessesOfList, vectorAccessesOfReduce } from "../analysis/vectors";
import { loadIn, loadsOf, siblingJoins } from "../analysis/siblings";
import { valuesBeforeStores, varyingLoads } from "../analysis/hoist";

/** Arithmetic weight of one operation, in issue slots (transcendentals cost more). */
export function opWeight(op: string): f64 {
  if (op == "exp" || op == "log" || op == "tanh") return 8.0;
  if (op == "erf") return 16.0; // a degree-7 polynomial and an exp (tile_erf)
  if (op == "sqrt" || op == "rsqrt" || op == "div") return 4.0;
  if (op == "int" || op == "f32" || op == "name" || op == "none") return 0.0;
  return 1.0;
}

export class Stage {
  /** "reduce", "loop" (distributed or element loop) or "scalar" (once per program). */
  kind: string;
  /** Elements the stage visits per program (1 for "scalar"). */
  extent: i32;
  /** False when the extent is not a constant (it varies by program): `extent` is then the mean
   *  over the programs where the extent is affine in the program variable (meanExtent), else 1. */
  extentKnown: bool = true;
  /** The largest extent over the programs: `extent` where it is constant; for an extent affine in
   *  the program variable, its largest max(0, extent) (at the first or the last program); else
   *  I32 max (unknown). A register stripe is sized for it (core/solver/solver.ts widestExtents). */
  most: i32 = 0;
  /** Reduces of a sibling run computed in this stage's one pass (1 for any other stage). */
  members: i32 = 1;
  /** A distributed loop whose U chunks the emitter computes before storing any of them
   *  (core/analysis/hoist.ts). */
  valuesFirst: bool = false;
  /** Of a values-first loop, the buffers it loads at an index that moves with the loop variable
   *  (core/analysis/hoist.ts varyingLoads): the loads a storing iteration waits for. */
  varying: Array<string> = new Array<string>();
  /** Weighted operations, loads and stores per element of the stage. */
  ops: f64 = 0.0;
  loads: f64 = 0.0;
  stores: f64 = 0.0;
  /** Bytes loaded and stored per element of the stage (each access at its buffer's dtype size). */
  loadBytes: f64 = 0.0;
  storeBytes: f64 = 0.0;
  /** Buffers loaded in this stage (each once), with their loads per element. */
  buffers: Array<string> = new Array<string>();
  bufferLoads: Array<f64> = new Array<f64>();
  /** Element size in bytes of each of `buffers`. */
  bufferBytes: Array<f64> = new Array<f64>();
  /** Of those loads, the ones read Q-wide as packed vectors (core/analysis/vectors.ts). */
  bufferPacked: Array<f64> = new Array<f64>();
  /** Of the packed loads, those at an address another packed load of the site already reads
   *  (`(X[c] - m) * (X[c] - m)`): the emitter reads it once, so they cost no instruction and no
   *  bytes (core/emit/vector.ts: one packed load per distinct address). */
  bufferShared: Array<f64> = new Array<f64>();
  /** Stores per element written Q-wide as packed vectors. */
  packedStores: f64 = 0.0;
  /** Stores per element packed only where the plan caches their buffer (VectorAccesses
   *  cachedStores): the buffer of each, and its count per element. */
  cachedStoreBufs: Array<string> = new Array<string>();
  cachedStoreTimes: Array<f64> = new Array<f64>();
  /** Per buffer of `buffers`, its loads per element whose neighbouring threads are not on
   *  neighbouring (or the same) elements: in the stripe variable (workers on lanes: neighbouring
   *  workers take neighbouring elements of the stripe), and in the program variable (programs on
   *  lanes: neighbouring threads run neighbouring programs). See `accessStride`. */
  bufferStripeStrided: Array<f64> = new Array<f64>();
  bufferProgramStrided: Array<f64> = new Array<f64>();
  /** Bytes per element of the stage's stores that are strided in the same two senses. */
  stripeStridedStoreBytes: f64 = 0.0;
  programStridedStoreBytes: f64 = 0.0;

  /** Index of `b` in `buffers`, added when absent. */
  slot(b: string, bytes: f64): i32 {
    let i = this.buffers.indexOf(b);
    if (i < 0) {
      this.buffers.push(b);
      this.bufferBytes.push(bytes);
      this.bufferLoads.push(0.0);
      this.bufferPacked.push(0.0);
      this.bufferShared.push(0.0);
      this.bufferStripeStrided.push(0.0);
      this.bufferProgramStrided.push(0.0);
      i = this.buffers.length - 1;
    }
    return i;
  }

  /** kind == "scalar" and kind == "reduce", kept as flags: the cost model asks for every
   *  candidate, and a flag costs no string comparison in the WebAssembly build. */
  scalar: bool;
  reduce: bool;
  /** Per set of cached buffers (keyed by the list itself, as Work.readKeys): whether each of
   *  `buffers` is cached. */
  cachedKeys: Array<Array<string>> = new Array<Array<string>>();
  cachedFlags: Array<Array<bool>> = new Array<Array<bool>>();

  /** Whether each of `buffers` is in `cacheBuffers` (memoized per list). */
  cachedIn(cacheBuffers: Array<string>): Array<bool> {
    const at = this.cachedKeys.indexOf(cacheBuffers);
    if (at >= 0) return this.cachedFlags[at];
    const flags = new Array<bool>();
    for (let b: i32 = 0; b < this.buffers.length; b++) flags.push(cacheBuffers.indexOf(this.buffers[b]) >= 0);
    this.cachedKeys.push(cacheBuffers);
    this.cachedFlags.push(flags);
    return flags;
  }

  constructor(kind: string, extent: i32) {
    this.kind = kind;
    this.extent = extent;
    this.most = extent;
    this.scalar = kind == "scalar";
    this.reduce = kind == "reduce";
  }
}

export class Work {
  stages: Array<Stage> = new Array<Stage>();
  reduces: i32 = 0;
  /** Bytes read per program, memoized per set of cached buffers (see cost/model.ts). */
  readKeys: Array<Array<string>> = new Array<Array<string>>();
  readValues: Array<f64> = new Array<f64>();
  /** Broadcast buffers: read by every program at the same elements (no index of any of their
   *  loads depends on the program variable) and never stored; their bytes are charged once per
   *  launch (`broadcastBytes`), not once per program. */
  broadcast: Array<string> = new Array<string>();
  /** Bytes of the broadcast buffers, each read once for the whole launch (set by reductionWork). */
  broadcastBytes: f64 = 0.0;
  /** Strided bytes per program (stridedBytes), memoized per set of cached buffers and layout. */
  stridedKeys: Array<Array<string>> = new Array<Array<string>>();
  stridedLanes: Array<bool> = new Array<bool>();
  stridedValues: Array<f64> = new Array<f64>();

  /** Whether a stage's access to buffer `name` reads memory per program: not a broadcast buffer
   *  (charged once per launch), and a cached buffer only in the first stage that reads it (`seen`
   *  collects those, in stage order). */
  readsFromMemory(name: string, cacheBuffers: Array<string>, seen: Array<string>): bool {
    if (this.broadcast.indexOf(name) >= 0) return false;
    if (cacheBuffers.indexOf(name) >= 0) {
      if (seen.indexOf(name) >= 0) return false;
      seen.push(name);
    }
    return true;
  }

  /**
   * Bytes one program moves through accesses whose neighbouring threads are not on neighbouring
   * elements, for the layout (`lanes`: programs on lanes, else workers on lanes): a cached buffer
   * counts in the stage that fills its cache only, a broadcast buffer not at all (charged once per
   * launch). With workers on lanes a once-per-program statement runs on one thread and counts
   * nothing here.
   */
  stridedBytes(cacheBuffers: Array<string>, lanes: bool): f64 {
    for (let i: i32 = 0; i < this.stridedKeys.length; i++) {
      if (this.stridedKeys[i] == cacheBuffers && this.stridedLanes[i] == lanes) return this.stridedValues[i];
    }
    const seen = new Array<string>();
    let bytes: f64 = 0.0;
    for (let i: i32 = 0; i < this.stages.length; i++) {
      const st = this.stages[i];
      if (st.scalar && !lanes) continue;
      let per: f64 = lanes ? st.programStridedStoreBytes : st.stripeStridedStoreBytes;
      for (let b: i32 = 0; b < st.buffers.length; b++) {
        const name = st.buffers[b];
        if (!this.readsFromMemory(name, cacheBuffers, seen)) continue;
        per += (lanes ? st.bufferProgramStrided[b] : st.bufferStripeStrided[b]) * st.bufferBytes[b];
      }
      bytes += per * <f64>st.extent;
    }
    this.stridedKeys.push(cacheBuffers);
    this.stridedLanes.push(lanes);
    this.stridedValues.push(bytes);
    return bytes;
  }

  /**
   * Programs on lanes with P programs per SIMD row (P < the SIMD width): a SIMD access to a
   * buffer whose neighbouring programs take neighbouring elements reads simdWidth / P rows of
   * P elements, so a 128-byte line is read in segments of P * elementBytes. Returns, per
   * program, the bytes of such accesses times the segments of a line each leaves unread
   * (128 / (P * elementBytes) - 1, at least 0): the program-strided accesses (stridedBytes) and
   * broadcast buffers are not counted, a cached buffer counts in the stage that fills it only.
   */
  partialLineBytes(cacheBuffers: Array<string>, P: i32, simdWidth: i32): f64 {
    const p: f64 = <f64>(P < simdWidth ? P : simdWidth);
    const seen = new Array<string>();
    let bytes: f64 = 0.0;
    for (let i: i32 = 0; i < this.stages.length; i++) {
      const st = this.stages[i];
      let per: f64 = 0.0;
      for (let b: i32 = 0; b < st.buffers.length; b++) {
        const name = st.buffers[b];
        if (!this.readsFromMemory(name, cacheBuffers, seen)) continue;
        const contiguous: f64 = st.bufferLoads[b] - st.bufferProgramStrided[b];
        if (contiguous > 0.0) per += contiguous * st.bufferBytes[b] * unreadSegments(p, st.bufferBytes[b]);
      }
      // the stage's stores that are not program-strided, at the mean element size of its stores
      const stored: f64 = st.storeBytes - st.programStridedStoreBytes;
      if (stored > 0.0 && st.stores > 0.0) per += stored * unreadSegments(p, st.storeBytes / st.stores);
      bytes += per * <f64>st.extent;
    }
    return bytes;
  }

  /** Per broadcast buffer, its element size times the largest extent of a stage that loads it. */
  sumBroadcastBytes(): f64 {
    let total: f64 = 0.0;
    for (let k: i32 = 0; k < this.broadcast.length; k++) {
      let most: f64 = 0.0;
      for (let i: i32 = 0; i < this.stages.length; i++) {
        const st = this.stages[i];
        const b = st.buffers.indexOf(this.broadcast[k]);
        if (b >= 0 && st.bufferBytes[b] * <f64>st.extent > most) most = st.bufferBytes[b] * <f64>st.extent;
      }
      total += most;
    }
    return total;
  }

  /** Whether a distributed stage loads and stores with its U chunks' values computed first: what
   *  an unroll buys beyond loop overhead where the device charges storeChainNs. */
  hasValuesFirstStage(): bool {
    for (let i: i32 = 0; i < this.stages.length; i++) {
      const st = this.stages[i];
      if (!st.scalar && !st.reduce && st.valuesFirst && st.stores > 0.0 && st.varying.length > 0) return true;
    }
    return false;
  }

  writeBytesPerProgram(): f64 {
    let b: f64 = 0.0;
    for (let i: i32 = 0; i < this.stages.length; i++) b += this.stages[i].storeBytes * <f64>this.stages[i].extent;
    return b;
  }

  opsPerProgram(): f64 {
    let n: f64 = 0.0;
    for (let i: i32 = 0; i < this.stages.length; i++) n += this.stages[i].ops * <f64>this.stages[i].extent;
    return n;
  }
}

/** Segments of a 128-byte line left unread by a run of p elements of `bytes` each (0 when the
 *  run fills the line). */
function unreadSegments(p: f64, bytes: f64): f64 {
  const run: f64 = p * bytes;
  return run >= 128.0 ? 0.0 : 128.0 / run - 1.0;
}

/** Element size of buffer `name` (4 when it is not a parameter: an invalid document). */
function elementBytes(doc: Doc, name: string): f64 {
  const pi = doc.paramIndex(name);
  return pi < 0 ? 4.0 : <f64>dtypeBytes(doc.params[pi].dtype);
}

function countExpr(doc: Doc, e: Expr, st: Stage, times: f64): void {
  st.ops += opWeight(e.op) * times;
  if (e.op == "load") {
    st.loads += times;
    st.loadBytes += times * elementBytes(doc, e.name);
    const b = st.slot(e.name, elementBytes(doc, e.name));
    st.bufferLoads[b] = st.bufferLoads[b] + times;
  }
  for (let i: i32 = 0; i < e.args.length; i++) countExpr(doc, e.args[i], st, times);
}

/** The constant value of an integer expression of sizes, or -1 when it is not constant. */
export function constValue(doc: Doc, e: Expr): i32 {
  return constValueWith(doc, e, NO_NAMES, NO_VALUES);
}

const NO_NAMES: Array<string> = new Array<string>();
const NO_VALUES: Array<i32> = new Array<i32>();

/** The sizes and the variables `names` bound to `values`, as constants of affine forms. */
function constEnv(doc: Doc, names: Array<string>, values: Array<i32>): AffineEnv {
  const env = new AffineEnv();
  for (let i: i32 = 0; i < doc.sizeNames.length; i++) {
    env.constNames.push(doc.sizeNames[i]);
    env.constValues.push(doc.sizeValues[i]);
  }
  for (let i: i32 = 0; i < names.length; i++) {
    env.constNames.push(names[i]);
    env.constValues.push(values[i]);
  }
  return env;
}

/** constValue with the variables `names` bound to `values` besides the sizes: the variables of
 *  serial wrapper loops that run once (constant min, extent 1), whose one value is their min. */
function constValueWith(doc: Doc, e: Expr, names: Array<string>, values: Array<i32>): i32 {
  const a = affineOf(e, constEnv(doc, names, values), 0);
  if (a === null) {
    // a constant that is not affine (["min", "C", 100], ["div", "R", 2]): its Tile IR value, as
    // the legality rules' exact ranges take it (analysis/ranges boundAffine)
    const k = evalConstI32(e, doc, 0);
    return k.ok && k.value >= 0 ? k.value : -1;
  }
  const c = changetype<Affine>(a);
  if (!c.isConst()) return -1;
  if (c.c < -2147483648.0 || c.c > 2147483647.0) {
    // an exact constant outside i32: the extent is the value its arithmetic wraps to
    const k = evalConstI32(e, doc, 0);
    return k.ok && k.value >= 0 ? k.value : -1;
  }
  if (c.c < 0.0) return -1;
  return i32(c.c);
}

/** An extent for counting: the constant extent, or `fallback` when it varies. */
function extentOf(doc: Doc, e: Expr, fallback: i32): i32 {
  const v = constValue(doc, e);
  return v < 0 ? fallback : v;
}

/** The counted extent of a stage whose extent is not a constant: meanExtent, else 1. */
function varyingExtent(doc: Doc, e: Expr, pv: ProgramRange, wrapNames: Array<string>, wrapValues: Array<i32>): i32 {
  const m = meanExtent(doc, e, pv, wrapNames, wrapValues);
  return m < 0 ? 1 : m;
}

/** Counts statements executed `times` times; with `domain`, parallel loops are the grid (x1). */
function countBody(doc: Doc, list: Array<Stmt>, st: Stage, times: f64, domain: bool): void {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "let") {
      countExpr(doc, s.value, st, times);
    } else if (s.kind == "store") {
      countExpr(doc, s.value, st, times);
      for (let k: i32 = 0; k < s.at.length; k++) countExpr(doc, s.at[k], st, times);
      st.stores += times;
      st.storeBytes += times * elementBytes(doc, s.name);
    } else if (s.kind == "if") {
      countExpr(doc, s.cond, st, times);
      countBody(doc, s.body, st, times, domain);
      countBody(doc, s.orelse, st, times, domain);
    } else if (s.kind == "for") {
      const n: f64 = (domain && s.parallel) ? 1.0 : <f64>extentOf(doc, s.extent, 1);
      countBody(doc, s.body, st, times * n, domain);
      // the grid's innermost loop: a thread's vector of columns
      if (domain && s.parallel && !holdsParallel(s.body)) addPacked(doc, vectorAccessesOfGrid(doc, s.name, s.body), st, times);
    } else if (s.kind == "reduce") {
      countExpr(doc, s.value, st, times * <f64>extentOf(doc, s.extent, 1));
    }
  }
}

function holdsParallel(list: Array<Stmt>): bool {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "for" && s.parallel) return true;
    if (holdsParallel(s.body) || holdsParallel(s.orelse)) return true;
  }
  return false;
}

/** Counts the packed accesses of one vector site (each runs once per element); a packed load at
 *  the address of an earlier one of the site is shared (read once: no bytes, no instruction). */
function addPacked(doc: Doc, acc: VectorAccesses, st: Stage, times: f64): void {
  for (let i: i32 = 0; i < acc.loads.length; i++) {
    const e = acc.loads[i];
    const b = st.slot(e.name, elementBytes(doc, e.name));
    st.bufferPacked[b] = st.bufferPacked[b] + times;
    let shared = false;
    for (let k: i32 = 0; k < i && !shared; k++) if (sameExpr(acc.loads[k], e)) shared = true;
    if (shared) {
      st.bufferShared[b] = st.bufferShared[b] + times;
      st.loadBytes -= times * elementBytes(doc, e.name);
    }
  }
  st.packedStores += <f64>acc.stores.length * times;
  for (let i: i32 = 0; i < acc.cachedStores.length; i++) {
    st.cachedStoreBufs.push(acc.cachedStores[i].name);
    st.cachedStoreTimes.push(times);
  }
}

/** Stages of one logical program of the reduction family (the program loop's body, `v` its
 *  variable, taking `programs` values from `programMin`; with no programs given, a stage whose
 *  extent varies counts one element). */
export function reductionWork(doc: Doc, body: Array<Stmt>, v: string, fuse: bool, programMin: i32 = 0, programs: i32 = 0): Work {
  const w = new Work();
  const pv = new ProgramRange(v, programMin, programs);
  addProgramStages(doc, body, w, fuse, NO_NAMES, NO_VALUES, pv);
  const deps = findBroadcast(doc, body, v, w.broadcast);
  w.broadcastBytes = w.sumBroadcastBytes();
  addStrides(doc, body, v, deps, w, fuse);
  return w;
}

// ------------------------------------------------------------------------------ access strides
// Whether the neighbouring threads of a SIMD group touch neighbouring elements. An access is
// coalesced in a variable x when its index list is contiguous in x (vectors.ts contiguousIn: x,
// or x plus a constant, in the last index and in no other) or mentions neither x nor a name that
// varies with it (every thread the same element); anything else (a stride, a gather, a name bound
// from x) is strided, and the cost model charges its bytes at the uncoalesced factor.

/** A flattened nest's decoded index (vectors.ts contiguousDecoded) counts as contiguous when its
 *  runs of neighbouring programs are at least this long: programs on lanes put at most 32
 *  neighbouring programs on a SIMD row (the solver's LANE_PROGRAMS), so such a row meets at most
 *  one end of a run. */
const DECODED_RUN: i32 = 32;

/** 1 when the access `at` is strided in `x` (names in `bound` vary with x), else 0: not when it
 *  is contiguous in x (also as a flat sum r * C + x, or as a decoding x / K, x % K with runs of
 *  K >= DECODED_RUN), or the same element for runs of DECODED_RUN values of x (x / M alone). */
function strided(doc: Doc, at: Array<Expr>, x: string, bound: Array<string>): f64 {
  if (contiguousIn(at, x, bound) || contiguousSum(at, x, bound)) return 0.0;
  if (contiguousDecoded(doc, at, x, bound, DECODED_RUN) || uniformDecoded(doc, at, x, bound, DECODED_RUN)) return 0.0;
  for (let d: i32 = 0; d < at.length; d++) if (mentionsAny(at[d], x, bound) || holdsLoad(at[d])) return 1.0;
  return 0.0;
}


/** Strides of the loads in `e` into stage `st`: in the stripe variable `sv` (inner names bound
 *  below it: `inner`) and in the program variable `pv` (names varying with it: `deps`). */
function strideLoads(doc: Doc, e: Expr, st: Stage, times: f64, sv: string, inner: Array<string>, pv: string, deps: Array<string>): void {
  if (e.op == "load") {
    const b = st.slot(e.name, elementBytes(doc, e.name));
    if (sv.length > 0) st.bufferStripeStrided[b] = st.bufferStripeStrided[b] + times * strided(doc, e.args, sv, inner);
    st.bufferProgramStrided[b] = st.bufferProgramStrided[b] + times * strided(doc, e.args, pv, deps);
  }
  for (let i: i32 = 0; i < e.args.length; i++) strideLoads(doc, e.args[i], st, times, sv, inner, pv, deps);
}

/** strideLoads of a sibling run's later member: a load at an address of `earlier` is skipped. */
function strideLoadsAfter(doc: Doc, e: Expr, st: Stage, sv: string, pv: string, deps: Array<string>, earlier: Array<Expr>): void {
  if (loadIn(e, earlier)) return;
  if (e.op == "load") {
    const b = st.slot(e.name, elementBytes(doc, e.name));
    st.bufferStripeStrided[b] = st.bufferStripeStrided[b] + strided(doc, e.args, sv, new Array<string>());
    st.bufferProgramStrided[b] = st.bufferProgramStrided[b] + strided(doc, e.args, pv, deps);
  }
  for (let i: i32 = 0; i < e.args.length; i++) strideLoadsAfter(doc, e.args[i], st, sv, pv, deps, earlier);
}

/** strideLoads over a statement list run `times` per element (loop extents multiply, as countBody). */
function strideList(doc: Doc, list: Array<Stmt>, st: Stage, times: f64, sv: string, inner: Array<string>, pv: string, deps: Array<string>): void {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "let" || s.kind == "store") strideLoads(doc, s.value, st, times, sv, inner, pv, deps);
    if (s.kind == "store") {
      for (let k: i32 = 0; k < s.at.length; k++) strideLoads(doc, s.at[k], st, times, sv, inner, pv, deps);
      const bytes: f64 = times * elementBytes(doc, s.name);
      if (sv.length > 0) st.stripeStridedStoreBytes += bytes * strided(doc, s.at, sv, inner);
      st.programStridedStoreBytes += bytes * strided(doc, s.at, pv, deps);
    } else if (s.kind == "if") {
      strideLoads(doc, s.cond, st, times, sv, inner, pv, deps);
      strideList(doc, s.body, st, times, sv, inner, pv, deps);
      strideList(doc, s.orelse, st, times, sv, inner, pv, deps);
    } else if (s.kind == "for") {
      strideList(doc, s.body, st, times * <f64>extentOf(doc, s.extent, 1), sv, inner, pv, deps);
    } else if (s.kind == "reduce") {
      strideLoads(doc, s.value, st, times * <f64>extentOf(doc, s.extent, 1), sv, inner, pv, deps);
    }
  }
}

/** Names a statement list binds, nested (lets, loop and axis variables, reduce results). */
function namesBound(list: Array<Stmt>, out: Array<string>): void {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "let" || s.kind == "for") out.push(s.name);
    if (s.kind == "reduce") {
      out.push(s.name);
      out.push(s.axis);
    }
    namesBound(s.body, out);
    namesBound(s.orelse, out);
  }
}

/** Fills the stride counts of the stages addProgramStages made from `body`, in the same order. */
function addStrides(doc: Doc, body: Array<Stmt>, pv: string, deps: Array<string>, w: Work, fuse: bool): void {
  strideStages(doc, body, pv, deps, w, 0, fuse);
}

function strideStages(doc: Doc, body: Array<Stmt>, pv: string, deps: Array<string>, w: Work, at: i32, fuse: bool): i32 {
  const joins = siblingJoins(body);
  let next: i32 = at;
  for (let i: i32 = 0; i < body.length; i++) {
    const s = body[i];
    if (s.kind == "for" && !s.parallel) {
      next = strideStages(doc, s.body, pv, deps, w, next, fuse);
      continue;
    }
    if (fuse && joins[i]) {
      // the previous member's stage (addProgramStages), its repeated loads not counted again
      strideLoadsAfter(doc, s.value, w.stages[next - 1], s.axis, pv, deps, runLoadsBefore(body, joins, i));
      continue;
    }
    const st = w.stages[next];
    next++;
    const inner = new Array<string>();
    if (s.kind == "reduce") {
      strideLoads(doc, s.value, st, 1.0, s.axis, inner, pv, deps);
    } else if (s.kind == "for") {
      namesBound(s.body, inner);
      strideList(doc, s.body, st, 1.0, s.name, inner, pv, deps);
    } else {
      const one = new Array<Stmt>();
      one.push(s);
      strideList(doc, one, st, 1.0, "", inner, pv, deps);
    }
  }
  return next;
}

// ------------------------------------------------------------------------------ broadcast buffers
// A buffer is broadcast when every load of it in the program body has indices that are the same
// in every program: no index mentions the program variable, a name bound from it (a let, a loop
// or reduce bound, a reduce's value), or a loaded value (a gather is data-dependent), and the
// kernel never stores it. Derived from the IR's index structure alone.

/** True when `e` mentions a name of `deps` or holds a load. */
function programVarying(e: Expr, deps: Array<string>): bool {
  if (e.op == "load") return true;
  if (e.op == "name" && e.ref != "size" && deps.indexOf(e.name) >= 0) return true;
  for (let i: i32 = 0; i < e.args.length; i++) if (programVarying(e.args[i], deps)) return true;
  return false;
}

/** Adds to `deps` the names bound in `list` whose value can differ between programs. */
function collectVarying(list: Array<Stmt>, deps: Array<string>): void {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "let" && programVarying(s.value, deps)) deps.push(s.name);
    if (s.kind == "for" && (programVarying(s.min, deps) || programVarying(s.extent, deps) || programVarying(s.step, deps))) deps.push(s.name);
    if (s.kind == "reduce") {
      if (programVarying(s.min, deps) || programVarying(s.extent, deps) || programVarying(s.step, deps)) deps.push(s.axis);
      if (programVarying(s.value, deps) || deps.indexOf(s.axis) >= 0) deps.push(s.name);
    }
    collectVarying(s.body, deps);
    collectVarying(s.orelse, deps);
  }
}

/** Buffers of loads in `e`: `all` every loaded buffer, `varying` those with a program-varying index. */
function collectLoads(e: Expr, deps: Array<string>, all: Array<string>, varying: Array<string>): void {
  if (e.op == "load") {
    if (all.indexOf(e.name) < 0) all.push(e.name);
    for (let k: i32 = 0; k < e.args.length; k++) {
      if (programVarying(e.args[k], deps) && varying.indexOf(e.name) < 0) varying.push(e.name);
    }
  }
  for (let i: i32 = 0; i < e.args.length; i++) collectLoads(e.args[i], deps, all, varying);
}

function collectListLoads(list: Array<Stmt>, deps: Array<string>, all: Array<string>, varying: Array<string>, stored: Array<string>): void {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    collectLoads(s.min, deps, all, varying);
    collectLoads(s.extent, deps, all, varying);
    collectLoads(s.step, deps, all, varying);
    collectLoads(s.value, deps, all, varying);
    collectLoads(s.cond, deps, all, varying);
    for (let k: i32 = 0; k < s.at.length; k++) collectLoads(s.at[k], deps, all, varying);
    if (s.kind == "store" && stored.indexOf(s.name) < 0) stored.push(s.name);
    collectListLoads(s.body, deps, all, varying, stored);
    collectListLoads(s.orelse, deps, all, varying, stored);
  }
}

/** Adds the broadcast buffers to `out`; returns the names that vary with the program (`v` first). */
function findBroadcast(doc: Doc, body: Array<Stmt>, v: string, out: Array<string>): Array<string> {
  const deps = new Array<string>();
  deps.push(v);
  // names bound from other varying names: repeat until nothing is added (a later let can feed an
  // earlier loop's bound only through a name already collected, so a few passes suffice)
  let before: i32 = -1;
  while (before != deps.length) {
    before = deps.length;
    collectVarying(body, deps);
    // drop duplicates added by a repeated pass
    const seen = new Array<string>();
    for (let i: i32 = 0; i < deps.length; i++) if (seen.indexOf(deps[i]) < 0) seen.push(deps[i]);
    deps.length = 0;
    for (let i: i32 = 0; i < seen.length; i++) deps.push(seen[i]);
  }
  const all = new Array<string>();
  const varying = new Array<string>();
  const stored = new Array<string>();
  collectListLoads(doc.body, deps, new Array<string>(), new Array<string>(), stored);
  collectListLoads(body, deps, all, varying, stored);
  for (let i: i32 = 0; i < all.length; i++) {
    if (varying.indexOf(all[i]) < 0 && stored.indexOf(all[i]) < 0 && doc.paramIndex(all[i]) >= 0) out.push(all[i]);
  }
  return deps;
}

/** The loads of the values of body[i]'s sibling run members before it. */
function runLoadsBefore(body: Array<Stmt>, joins: Array<bool>, i: i32): Array<Expr> {
  const out = new Array<Expr>();
  let h: i32 = i;
  while (h > 0 && joins[h]) h = h - 1;
  for (let k: i32 = h; k < i; k++) loadsOf(body[k].value, out);
  return out;
}

/** countExpr once per element, but a load at an address of `earlier` (and all it holds) is not
 *  counted: the element block already holds it. */
function countExprAfter(doc: Doc, e: Expr, st: Stage, earlier: Array<Expr>): void {
  if (loadIn(e, earlier)) return;
  st.ops += opWeight(e.op);
  if (e.op == "load") {
    st.loads += 1.0;
    st.loadBytes += elementBytes(doc, e.name);
    const b = st.slot(e.name, elementBytes(doc, e.name));
    st.bufferLoads[b] = st.bufferLoads[b] + 1.0;
  }
  for (let i: i32 = 0; i < e.args.length; i++) countExprAfter(doc, e.args[i], st, earlier);
}

/** The program loop's variable and the values it takes (min, min + 1, ..., count of them). */
class ProgramRange {
  name: string;
  min: i32;
  count: i32;
  /** Set by meanExtent: the largest extent over the programs (I32_MAX: unknown). */
  most: i32 = 0;
  constructor(name: string, min: i32, count: i32) {
    this.name = name;
    this.min = min;
    this.count = count;
  }
}

/** How many program values meanExtent samples, evenly spaced from the first to the last. */
const EXTENT_SAMPLES: i32 = 65;

/** An unknown largest extent. */
const I32_MAX: i32 = 2147483647;

/**
 * A stage extent that varies by program (a causal row [0, r + 1), a band [r, C - 2r)): the mean,
 * over the programs, of max(0, extent), where the extent is affine in the program variable (sizes
 * and run-once wrapper values besides); -1 otherwise. Sampled at up to EXTENT_SAMPLES program
 * values, so its cost does not grow with the program count. The cost model counts a stage's work
 * by this estimate (it still treats the extent as unknown where it decides how many workers are
 * busy or which chunks are whole); without it, such a stage counted one element.
 */
function meanExtent(doc: Doc, e: Expr, pv: ProgramRange, wrapNames: Array<string>, wrapValues: Array<i32>): i32 {
  pv.most = I32_MAX;
  if (pv.count <= 0) return -1;
  const env = constEnv(doc, wrapNames, wrapValues);
  env.symbols.push(pv.name);
  const a = affineOf(e, env, 0);
  if (a === null) return -1;
  const f = changetype<Affine>(a);
  const sup = f.support();
  if (sup.length != 1 || sup[0] != pv.name) return -1;
  const k: f64 = f.coef(pv.name);
  // the largest: an affine extent is largest at the first or the last program
  const ends: f64 = Math.max(k * <f64>pv.min + f.c, k * (<f64>pv.min + <f64>pv.count - 1.0) + f.c);
  pv.most = ends <= 0.0 ? 0 : (ends > 2147483647.0 ? I32_MAX : <i32>ends);
  const n: i32 = pv.count < EXTENT_SAMPLES ? pv.count : EXTENT_SAMPLES;
  const span: f64 = <f64>pv.count - 1.0;
  let sum: f64 = 0.0;
  for (let i: i32 = 0; i < n; i++) {
    const p: f64 = <f64>pv.min + (n == 1 ? 0.0 : Math.floor(span * <f64>i / <f64>(n - 1)));
    const x: f64 = k * p + f.c;
    if (x > 0.0) sum += x;
  }
  const mean: f64 = Math.floor(sum / <f64>n + 0.5);
  if (mean < 1.0) return 1;
  return mean > 2147483647.0 ? 2147483647 : <i32>mean;
}

function addProgramStages(doc: Doc, body: Array<Stmt>, w: Work, fuse: bool, wrapNames: Array<string>, wrapValues: Array<i32>, pv: ProgramRange): void {
  const joins = siblingJoins(body);
  for (let i: i32 = 0; i < body.length; i++) {
    const s = body[i];
    if (fuse && joins[i]) {
      // a sibling run's later member (core/analysis/siblings.ts): the same stripe pass, so the
      // previous member's stage; a load at an address an earlier member reads costs nothing
      const st = w.stages[w.stages.length - 1];
      const earlier = runLoadsBefore(body, joins, i);
      countExprAfter(doc, s.value, st, earlier);
      const acc = vectorAccessesOfReduce(doc, s);
      const fresh = new VectorAccesses();
      for (let k: i32 = 0; k < acc.loads.length; k++) if (!loadIn(acc.loads[k], earlier)) fresh.loads.push(acc.loads[k]);
      addPacked(doc, fresh, st, 1.0);
      st.members++;
      w.reduces++;
    } else if (s.kind == "reduce") {
      const n: i32 = constValueWith(doc, s.extent, wrapNames, wrapValues);
      const st = new Stage("reduce", n < 0 ? varyingExtent(doc, s.extent, pv, wrapNames, wrapValues) : n);
      st.extentKnown = n >= 0;
      if (n < 0) st.most = pv.most;
      countExpr(doc, s.value, st, 1.0);
      addPacked(doc, vectorAccessesOfReduce(doc, s), st, 1.0);
      w.stages.push(st);
      w.reduces++;
    } else if (s.kind == "for" && s.parallel) {
      const n: i32 = constValueWith(doc, s.extent, wrapNames, wrapValues);
      const st = new Stage("loop", n < 0 ? varyingExtent(doc, s.extent, pv, wrapNames, wrapValues) : n);
      st.extentKnown = n >= 0;
      if (n < 0) st.most = pv.most;
      st.valuesFirst = valuesBeforeStores(s.body);
      if (st.valuesFirst) st.varying = varyingLoads(s.body, s.name);
      countBody(doc, s.body, st, 1.0, false);
      addPacked(doc, vectorAccessesOfList(doc, s.name, s.body), st, 1.0);
      w.stages.push(st);
    } else if (s.kind == "for") {
      // a serial wrapper: its body is more of the program (legality admits unit extents only);
      // run once, its variable is its min wherever a range inside uses it
      const names = wrapNames.slice(0);
      const values = wrapValues.slice(0);
      const min: i32 = constValueWith(doc, s.min, wrapNames, wrapValues);
      if (min >= 0 && constValue(doc, s.extent) == 1) {
        names.push(s.name);
        values.push(min);
      }
      addProgramStages(doc, s.body, w, fuse, names, values, pv);
    } else {
      const st = new Stage("scalar", 1);
      const one = new Array<Stmt>();
      one.push(s);
      countBody(doc, one, st, 1.0, false);
      w.stages.push(st);
    }
  }
}

/** One stage per element for the element family: every statement under the domain loops. */
export function elementWork(doc: Doc, top: Stmt): Work {
  const w = new Work();
  const st = new Stage("loop", 1);
  countBody(doc, top.body, st, 1.0, true);
  w.stages.push(st);
  return w;
}

/** The serial program's work: the program loop's body run by one thread. */
export function serialWork(doc: Doc, body: Array<Stmt>): Work {
  const w = new Work();
  const st = new Stage("scalar", 1);
  countBody(doc, body, st, 1.0, false);
  w.stages.push(st);
  return w;
}
