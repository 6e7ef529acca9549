// The analytic cost model. Every coefficient is named here, once, with where its value comes
// from; every term is reported separately. Only + - * / and comparisons (no exp/log/pow), so
// the JS and WebAssembly builds agree to the bit. Units: nanoseconds, bytes.
//
// The known defect it must not have: a score in which packing two programs per group wins only
// because the per-group setup term halves. Here setup is charged per *wave* of resident groups
// (groups / (cores * groups-per-core)), so doubling T halves the groups but also halves how
// many groups a core holds: the setup term is unchanged by packing alone. Packing then has to
// win (or lose) through concurrency (does the grid fill the GPU?), fence coupling (P programs
// wait at one barrier) and the extra reads of replayed tail slots.

import { Device } from "../device/device";
import { Cost, Mapping, lanesCombineInSimd, lanesPartialsRead, partialsPerGroup } from "../plan/plan";
import { Stage, Work } from "./work";
import { packWidth, packs } from "../analysis/vectors";
import { ceilDiv, idiv } from "../util/text";
import { wholeChunkEnd } from "../analysis/hoist";

/** One named coefficient of the cost model, with where its value comes from. */
export class Coefficient {
  name: string;
  value: f64;
  source: string;

  constructor(name: string, value: f64, source: string) {
    this.name = name;
    this.value = value;
    this.source = source;
  }
}

/** Every coefficient, in one place, with where its default comes from. The values a score uses
 *  are the device's (Device.cost, "costModel" in a device description: these defaults unless
 *  `tile calibrate` fitted them to measurements); this list documents the defaults. */
export const COEFFICIENTS: Array<Coefficient> = [
  new Coefficient("setupNs", 1500.0, "per-threadgroup launch and setup latency; order of magnitude of published Apple GPU dispatch overheads (estimate)"),
  new Coefficient("barrierNs", 40.0, "threadgroup_barrier round trip, ~50 cycles at 1.3 GHz (estimate)"),
  new Coefficient("simdNs", 8.0, "one simd_sum/max/min, ~10 cycles (estimate)"),
  new Coefficient("loadIssueCycles", 4.0, "issue cost of one memory instruction: a scalar load or store, or one packed 4-wide access (estimate)"),
  new Coefficient("loopOverheadCycles", 3.0, "per stripe-chunk loop iteration, divided by the unroll U (estimate)"),
  new Coefficient("couplingFraction", 0.15, "share of a stage's worker time lost per extra program waiting at the same barrier (estimate)"),
  new Coefficient("underfillWeight", 1.0, "memory time lost per unit of missing occupancy when the grid does not fill the GPU (estimate)"),
  new Coefficient("uncoalescedFactor", 8.0, "memory cost multiplier for an access whose neighbouring threads are not on neighbouring elements: one-thread-per-row serial access, a strided stripe (estimate; a 32-byte sector per 4-byte element)"),
  new Coefficient("threadSetupCycles", 8.0, "per-thread index arithmetic and edge predicate of the element grid, shared by its V elements (estimate)"),
  new Coefficient("vectorChainFraction", 0.0, "share of the memory term added per packed vector beyond the first that one thread of the element grid takes in sequence (0: not measured on Apple GPUs)"),
  new Coefficient("partialLineFraction", 0.1, "programs on lanes: share of a byte's memory time added per 128-byte line segment a SIMD access leaves unread (P < 32 programs per SIMD row read P-element segments); measured on the H200, run 49: P = 8 and 16 took 1.28-1.35 and 1.01-1.12 times P = 32's time"),
  new Coefficient("storeChainNs", 0.0, "programs on lanes: wait per iteration of a distributed loop that loads and stores, whose next load cannot move above its store (0: not measured on Apple GPUs; an iteration that computes its U chunks' values first waits once for the U)"),
  new Coefficient("memoryFactor", 1.0, "multiplier of the memory term: 1 / the share of the device bandwidth the kernels reach (1: the full bandwidth)"),
];

/** Registers one thread of a group holds: the device's base estimate plus `stripeScalars` cached
 *  scalars plus `extraLoads` times the device's registers per extra load, rounded up to the
 *  device's granule (0: the device gives no register figures). */
export function registersPerThread(d: Device, stripeScalars: i32, extraLoads: i32): i32 {
  if (d.registersPerCore <= 0) return 0;
  const need: i32 = d.registersPerThreadBase + stripeScalars + extraLoads * d.registersPerExtraLoad;
  const g: i32 = d.registerGranule > 1 ? d.registerGranule : 1;
  return ceilDiv(need, g) * g;
}

/** Groups one core can hold at this T, threadgroup memory and (where the device gives a register
 *  file) registers per thread: a group takes whole SIMD groups of registers. */
export function groupsPerCore(d: Device, T: i32, tgBytes: i32, regsPerThread: i32): i32 {
  let g: i32 = T > 0 ? idiv(d.maxThreadsPerCore, T) : 1;
  if (tgBytes > 0) {
    const byMem: i32 = idiv(d.threadgroupMemoryPerCore, tgBytes);
    if (byMem < g) g = byMem;
  }
  if (d.registersPerCore > 0 && regsPerThread > 0 && T > 0) {
    const lanes: i32 = ceilDiv(T, d.simdWidth) * d.simdWidth;
    const byRegs: i32 = idiv(d.registersPerCore, regsPerThread * lanes);
    if (byRegs < g) g = byRegs;
  }
  if (d.maxGroupsPerCore < g) g = d.maxGroupsPerCore;
  return g < 1 ? 1 : g;
}

/** The most registers per thread that keep `perCore` groups of T threads on one core: the register
 *  file over the group's whole SIMD groups, rounded down to the granule (0: no register file). */
export function registerLimit(d: Device, T: i32, perCore: i32): i32 {
  if (d.registersPerCore <= 0 || T <= 0 || perCore <= 0) return 0;
  const lanes: i32 = ceilDiv(T, d.simdWidth) * d.simdWidth;
  const g: i32 = d.registerGranule > 1 ? d.registerGranule : 1;
  return idiv(idiv(d.registersPerCore, lanes * perCore), g) * g;
}

class Shape {
  groups: f64 = 0.0;
  T: i32 = 0;
  /** Threads of a group that hold at least one element of a distinct program (T unless a row is
   *  shorter than the workers' vectors, or tail slots replay a program; a mean over groups): only
   *  these count as resident work in the concurrency term. 0: T. */
  activeT: f64 = 0.0;
  tgBytes: i32 = 0;
  bytesRead: f64 = 0.0;
  bytesWritten: f64 = 0.0;
  ops: f64 = 0.0;
  /** Critical-path cycles of one group (one worker's serial work). */
  pathCycles: f64 = 0.0;
  syncNsPerGroup: f64 = 0.0;
  couplingNsPerGroup: f64 = 0.0;
  memoryFactor: f64 = 1.0;
  /** Scalars of a cached stripe each thread holds in registers (the residency bound). */
  stripeScalars: i32 = 0;
  /** Buffers beyond the first that one stage of the cached stripe loads from memory. */
  extraLoads: i32 = 0;
  /** Element grid: packed vectors beyond the first that one thread takes in sequence. */
  chainedVectors: f64 = 0.0;
  /** Extra bytes the memory system moves for strided accesses (Work.stridedBytes). */
  uncoalescedBytes: f64 = 0.0;
  /** Programs on lanes: threadgroup reads each thread makes to combine its program's partials. A
   *  core's threadgroup memory serves one SIMD-wide read per cycle, so the resident threads of a
   *  core take (threads / simdWidth) * reads cycles per wave, after the stripe's last load. */
  tgReadsPerThread: f64 = 0.0;
  /** Loads one resident thread keeps in flight, as the concurrency term counts them (1: a loop of
   *  loads, one after another). Programs on lanes with a cached stripe: the fill's loads are
   *  independent of one another, so a thread has its whole stripe in flight at once, and a core
   *  with few resident threads is still busy (run 57, the column softmax at 4096x4096, P = 8,
   *  cached, one group per core: 63.3, 66.8 and 70.5 us at 512, 768 and 1024 threads, where
   *  counting threads predicted 57.3, 52.8 and 52.1, the underfill falling from 10.5 to 3.5). */
  loadsInFlight: f64 = 1.0;
  /** Of pathCycles, the cycles of stripe loops that only load (no store), whose loads overlap the
   *  memory time: only what they take beyond the memory term counts as latency (programs on
   *  lanes; runs 50 and 52). */
  overlapCycles: f64 = 0.0;
}

/** A fresh record per score: module-level scratch would be data a request mutates, which the
 *  WebAssembly arena forbids (core/index-wasm.ts). */
function freshShape(): Shape {
  return resetShape(new Shape());
}

function resetShape(s: Shape): Shape {
  s.groups = 0.0;
  s.T = 0;
  s.activeT = 0.0;
  s.tgBytes = 0;
  s.bytesRead = 0.0;
  s.bytesWritten = 0.0;
  s.ops = 0.0;
  s.pathCycles = 0.0;
  s.syncNsPerGroup = 0.0;
  s.couplingNsPerGroup = 0.0;
  s.memoryFactor = 1.0;
  s.stripeScalars = 0;
  s.extraLoads = 0;
  s.chainedVectors = 0.0;
  s.uncoalescedBytes = 0.0;
  s.tgReadsPerThread = 0.0;
  s.loadsInFlight = 1.0;
  s.overlapCycles = 0.0;
  return s;
}

/** Records one search reuses for every candidate it only ranks (owned by the search, so by one
 *  request: never module-level). */
export class CostScratch {
  shape: Shape = new Shape();
  cost: Cost = new Cost();
  filled: Array<string> = new Array<string>();
}

function finish(d: Device, s: Shape, cost: Cost): Cost {
  const clockGhz: f64 = <f64>d.clockMhz / 1000.0;
  const perCore: i32 = groupsPerCore(d, s.T, s.tgBytes, registersPerThread(d, s.stripeScalars, s.extraLoads));
  const slots: f64 = <f64>d.gpuCores * <f64>perCore;
  const waves: f64 = <f64>ceilDiv(<i32>s.groups, <i32>slots);
  const memory: f64 = (s.bytesRead + s.bytesWritten + s.uncoalescedBytes) * s.memoryFactor * d.cost.memoryFactor / <f64>d.bandwidthBytesPerNs;
  const arithmetic: f64 = s.ops / (<f64>d.gpuCores * <f64>d.lanesPerCore * clockGhz);
  // the element grid's vectors of one thread run one after another (load, compute, store): a
  // share of the memory time per vector beyond the first, as measured (vectorChainFraction)
  let latency: f64 = waves * (s.pathCycles - s.overlapCycles) / clockGhz + s.chainedVectors * d.cost.vectorChainFraction * memory;
  if (s.overlapCycles > 0.0) {
    const stripe: f64 = waves * s.overlapCycles / clockGhz;
    if (stripe > memory) latency += stripe - memory;
  }
  if (s.tgReadsPerThread > 0.0) {
    // the combine's threadgroup reads: one SIMD-wide read per cycle per core, for every thread
    // resident on a core in a wave
    const perCoreGroups: f64 = <f64>ceilDiv(<i32>s.groups, d.gpuCores);
    const residentGroups: f64 = perCoreGroups < <f64>perCore ? perCoreGroups : <f64>perCore;
    const simdGroups: f64 = residentGroups * <f64>ceilDiv(s.T, d.simdWidth);
    latency += waves * simdGroups * s.tgReadsPerThread / clockGhz;
  }
  const sync: f64 = waves * s.syncNsPerGroup;
  const setup: f64 = d.cost.setupNs * s.groups / slots;
  // threads that hold no element occupy their slot (groupsPerCore counts T) but do no work
  const active: f64 = s.activeT > 0.0 && s.activeT < <f64>s.T ? s.activeT : <f64>s.T;
  const resident: f64 = (s.groups < slots ? s.groups : slots) * active * s.loadsInFlight;
  const capacity: f64 = <f64>d.gpuCores * <f64>d.maxThreadsPerCore;
  const fill: f64 = resident >= capacity ? 1.0 : resident / capacity;
  const concurrency: f64 = fill >= 1.0 ? 0.0 : d.cost.underfillWeight * memory * (1.0 / fill - 1.0);
  const coupling: f64 = waves * s.couplingNsPerGroup;
  cost.bytesRead = s.bytesRead;
  cost.bytesWritten = s.bytesWritten;
  cost.uncoalescedBytes = s.uncoalescedBytes;
  cost.memory = memory;
  cost.arithmetic = arithmetic;
  cost.latency = latency;
  cost.collectivesAndBarriers = sync;
  cost.setup = setup;
  cost.concurrency = concurrency;
  cost.fenceCoupling = coupling;
  cost.groupsPerCore = <f64>perCore;
  cost.waves = waves;
  cost.registerLimit = <f64>registerLimit(d, s.T, perCore);
  cost.total = memory + arithmetic + latency + sync + setup + concurrency + coupling;
  return cost;
}

/** Bytes one program reads: cached buffers come from memory once, later stages read registers;
 *  broadcast buffers (Work.broadcast: the same elements in every program) are not counted here but
 *  once for the whole launch (Work.broadcastBytes), later programs finding them in the cache. */
function programReadBytes(w: Work, cacheBuffers: Array<string>): f64 {
  // keyed by the list itself: the solver shares one list among all its cached candidates
  const at = w.readKeys.indexOf(cacheBuffers);
  if (at >= 0) return w.readValues[at];
  const seen = new Array<string>();
  let bytes: f64 = 0.0;
  for (let i: i32 = 0; i < w.stages.length; i++) {
    const st = w.stages[i];
    let loadBytes: f64 = st.loadBytes;
    for (let b: i32 = 0; b < st.buffers.length; b++) {
      if (w.broadcast.indexOf(st.buffers[b]) >= 0) {
        loadBytes -= (st.bufferLoads[b] - st.bufferShared[b]) * st.bufferBytes[b];
        continue;
      }
      if (cacheBuffers.indexOf(st.buffers[b]) >= 0) {
        if (seen.indexOf(st.buffers[b]) >= 0) loadBytes -= st.bufferBytes[b];
        else seen.push(st.buffers[b]);
      }
    }
    if (loadBytes < 0.0) loadBytes = 0.0;
    bytes += loadBytes * <f64>st.extent;
  }
  w.readKeys.push(cacheBuffers);
  w.readValues.push(bytes);
  return bytes;
}

/**
 * Memory instructions one worker issues per chunk of V elements of a stage, as emitted: a packed
 * access (core/analysis/vectors.ts) is one instruction per Q = 4 elements, shared by the packed
 * loads of one address, any other access one per element; a cached buffer is read from registers, except in the stage that fills the cache
 * (one packed read per vector, or V scalar reads). `filled` collects the cached buffers already
 * filled by earlier stages.
 */
export function chunkIssues(st: Stage, V: i32, cacheBuffers: Array<string>, filled: Array<string>): f64 {
  const v: f64 = <f64>V;
  const perVector: f64 = packs(V) ? v / <f64>packWidth(V) : v;
  let n: f64 = 0.0;
  const cached = st.cachedIn(cacheBuffers);
  for (let b: i32 = 0; b < st.buffers.length; b++) {
    const name = st.buffers[b];
    if (cached[b]) {
      if (filled.indexOf(name) < 0) {
        filled.push(name);
        n += perVector;
      }
      continue;
    }
    const packed: f64 = packs(V) ? st.bufferPacked[b] : 0.0;
    const shared: f64 = packs(V) ? st.bufferShared[b] : 0.0;
    n += (packed - shared) * perVector + (st.bufferLoads[b] - packed) * v;
  }
  let packedStores: f64 = packs(V) ? st.packedStores : 0.0;
  // a store to a buffer cached and written in place is packed where this plan caches it
  if (packs(V)) for (let k: i32 = 0; k < st.cachedStoreBufs.length; k++) if (cacheBuffers.indexOf(st.cachedStoreBufs[k]) >= 0) packedStores += st.cachedStoreTimes[k];
  n += packedStores * perVector + (st.stores - packedStores) * v;
  return n;
}

/** Memory instructions one thread of the element grid issues for its V elements. */
export function elementIssues(st: Stage, V: i32): f64 {
  const v: f64 = <f64>V;
  const perVector: f64 = packs(V) ? v / <f64>packWidth(V) : v;
  let packed: f64 = 0.0;
  let shared: f64 = 0.0;
  if (packs(V)) {
    for (let b: i32 = 0; b < st.buffers.length; b++) {
      packed += st.bufferPacked[b];
      shared += st.bufferShared[b];
    }
  }
  const packedStores: f64 = packs(V) ? st.packedStores : 0.0;
  return (packed - shared) * perVector + (st.loads - packed) * v + packedStores * perVector + (st.stores - packedStores) * v;
}

/** Workers of one program that hold at least one element: a stage of extent E gives worker w the
 *  V-wide chunks w, w + W, ...; ceil(E / V) chunks keep at most that many workers busy. The most
 *  over the program's distributed stages (a program with none, or with an extent that is not a
 *  constant: every worker). */
export function activeWorkers(w: Work, W: i32, V: i32): i32 {
  let most: i32 = 0;
  let distributed = false;
  for (let i: i32 = 0; i < w.stages.length; i++) {
    const st = w.stages[i];
    if (st.scalar) continue;
    if (!st.extentKnown) return W; // an extent that varies by program: assume every worker busy
    distributed = true;
    const n: i32 = ceilDiv(st.extent, V > 1 ? V : 1);
    if (n > most) most = n;
  }
  if (!distributed || most > W) return W;
  return most;
}

/** Buffers beyond the first that one distributed stage loads from memory rather than from the
 *  cached stripe (the most over the stages): with a cached stripe, a stage that also reads weight
 *  vectors holds their V-wide values beside its own (run 22's register counts). */
export function extraStageLoads(w: Work, cacheBuffers: Array<string>): i32 {
  let most: i32 = 0;
  for (let i: i32 = 0; i < w.stages.length; i++) {
    const st = w.stages[i];
    if (st.scalar) continue;
    const cached = st.cachedIn(cacheBuffers);
    let n: i32 = 0;
    for (let b: i32 = 0; b < st.buffers.length; b++) if (!cached[b]) n++;
    if (n - 1 > most) most = n - 1;
  }
  return most;
}

/** Whether each iteration of a storing stage waits for a load from memory: a values-first loop
 *  (core/analysis/hoist.ts) that loads, at an index moving with its variable, a buffer it does
 *  not read from a cached stripe; any other storing loop that loads an uncached buffer. */
function loadsMemory(st: Stage, cacheBuffers: Array<string>): bool {
  if (st.valuesFirst) {
    for (let b: i32 = 0; b < st.varying.length; b++) if (cacheBuffers.indexOf(st.varying[b]) < 0) return true;
    return false;
  }
  const cached = st.cachedIn(cacheBuffers);
  for (let b: i32 = 0; b < st.buffers.length; b++) if (!cached[b]) return true;
  return false;
}

/** The loads a worker of a storing stage waits for in turn: one per chunk, or, where the emitter
 *  computes the U chunks' values first (whole chunks of a known extent), one per U of them and one
 *  per chunk of the guarded last U (core/emit/cooperative.ts emitStripe). */
function storeWaits(st: Stage, m: Mapping): f64 {
  const per: i32 = m.W * m.V;
  const chunks: i32 = ceilDiv(st.extent, per);
  if (!st.valuesFirst || m.U <= 1 || m.V != 1 || !st.extentKnown) return <f64>chunks;
  const mainEnd: i32 = wholeChunkEnd(st.extent, per, m.U);
  return <f64>(idiv(mainEnd, m.U) + chunks - mainEnd);
}

/** Cost of the cooperative reduction realization with mapping `m`. */
export function costCooperative(d: Device, w: Work, m: Mapping, cacheBuffers: Array<string>): Cost {
  return costCooperativeInto(d, w, m, cacheBuffers, new Cost());
}

/** costCooperative, written into `out`, with the working records of `scratch` where one is given
 *  (a search reuses them while it only ranks). */
export function costCooperativeInto(d: Device, w: Work, m: Mapping, cacheBuffers: Array<string>, out: Cost, scratch: CostScratch | null = null): Cost {
  const s = scratch === null ? freshShape() : resetShape(changetype<CostScratch>(scratch).shape);
  s.groups = <f64>m.groups;
  s.T = m.T;
  s.tgBytes = w.reduces * partialsPerGroup(m.P, m.S, m.lanes) * 4;
  // busy threads per group: the workers holding elements, times the distinct programs a group
  // runs on average (replayed tail slots repeat a program: they add reads, not parallel work)
  const perGroup: f64 = m.groups > 0 ? <f64>m.programs / <f64>m.groups : <f64>m.P;
  s.activeT = (perGroup < <f64>m.P ? perGroup : <f64>m.P) * <f64>activeWorkers(w, m.W, m.V);
  const slotsRun: f64 = <f64>m.groups * <f64>m.P; // programs run, including replayed tail slots
  const readPerProgram: f64 = programReadBytes(w, cacheBuffers);
  let path: f64 = 0.0;
  let stripePath: f64 = 0.0; // the part of path in distributed stages that only load
  let stageNs: f64 = 0.0;
  const clockGhz: f64 = <f64>d.clockMhz / 1000.0;
  // cached buffers already filled by an earlier stage
  let filled: Array<string>;
  if (scratch === null) filled = new Array<string>();
  else {
    filled = changetype<CostScratch>(scratch).filled;
    if (filled.length > 0) filled.length = 0; // setting a length is a runtime call in V8
  }
  for (let i: i32 = 0; i < w.stages.length; i++) {
    const st = w.stages[i];
    if (st.scalar) {
      path += st.ops + (st.loads + st.stores) * d.cost.loadIssueCycles;
      continue;
    }
    const chunks: f64 = <f64>ceilDiv(st.extent, m.W * m.V);
    const issues: f64 = chunkIssues(st, m.V, cacheBuffers, filled);
    let cyc: f64 = chunks * (<f64>m.V * st.ops + issues * d.cost.loadIssueCycles + d.cost.loopOverheadCycles / <f64>m.U);
    if (m.lanes && st.stores > 0.0 && d.cost.storeChainNs > 0.0 && loadsMemory(st, cacheBuffers)) {
      // programs on lanes: each iteration waits for its load (the next one cannot move above the
      // store), once per U chunks where their values come first (the emitter's whole chunks: the
      // last, guarded ones go one by one); run 67
      cyc += storeWaits(st, m) * d.cost.storeChainNs * clockGhz;
    }
    path += cyc;
    // a loop that stores cannot move its next loads above its stores (nothing tells the compiler
    // the buffers do not alias), so only a loop of loads overlaps the memory time
    if (st.stores == 0.0) stripePath += cyc;
    if (st.reduce) stageNs += cyc / clockGhz;
  }
  s.bytesRead = readPerProgram * slotsRun + w.broadcastBytes;
  s.bytesWritten = w.writeBytesPerProgram() * <f64>m.programs;
  s.ops = w.opsPerProgram() * slotsRun;
  s.pathCycles = path;
  s.stripeScalars = m.cached ? m.cacheScalars : 0;
  if (m.cached && d.registersPerExtraLoad > 0) s.extraLoads = extraStageLoads(w, cacheBuffers);
  // neighbouring threads on strided elements: the memory system moves a sector per element
  const strided: f64 = w.stridedBytes(cacheBuffers, m.lanes);
  if (strided > 0.0) s.uncoalescedBytes = strided * slotsRun * (d.cost.uncoalescedFactor - 1.0);
  if (m.lanes) {
    // programs on lanes: one barrier, then each worker reads its program's W partials (on its
    // path); the P programs of a group run the same steps side by side on lanes, so none waits
    // for another (no fence coupling)
    // (where P divides 32, a SIMD group first combines its workers of each program across lanes,
    // log2(32 / P) shuffles, and a worker then reads T / 32 partials: lanesPartialsRead)
    const G: f64 = <f64>lanesPartialsRead(m.P, m.S);
    let shuffles: f64 = 0.0;
    if (lanesCombineInSimd(m.P)) for (let o: i32 = m.P; o < 32; o = o * 2) shuffles += 1.0;
    s.pathCycles = path + <f64>w.reduces * G * d.cost.loadIssueCycles;
    s.syncNsPerGroup = <f64>w.reduces * (d.cost.barrierNs + d.cost.simdNs * shuffles / 5.0);
    s.tgReadsPerThread = <f64>w.reduces * G;
    s.overlapCycles = stripePath;
    if (m.cached && m.cacheScalars > 0) s.loadsInFlight = <f64>m.cacheScalars;
    // fewer than simdWidth programs per SIMD row read a line in segments of P elements
    const partial: f64 = w.partialLineBytes(cacheBuffers, m.P, d.simdWidth);
    if (partial > 0.0) s.uncoalescedBytes += partial * slotsRun * d.cost.partialLineFraction;
  } else {
    s.syncNsPerGroup = <f64>w.reduces * (2.0 * d.cost.simdNs + d.cost.barrierNs);
    s.couplingNsPerGroup = <f64>(m.P - 1) * d.cost.couplingFraction * stageNs;
  }
  return finish(d, s, out);
}

/** Cost of the fused element grid. */
export function costElement(d: Device, w: Work, m: Mapping): Cost {
  const s = freshShape();
  s.groups = <f64>m.groups;
  s.T = m.T;
  const elements: f64 = <f64>m.domainRows * <f64>m.domainCols;
  const st = w.stages[0];
  s.bytesRead = st.loadBytes * elements;
  s.bytesWritten = st.storeBytes * elements;
  const V: f64 = <f64>(m.V > 1 ? m.V : 1);
  // U chunks of V columns per thread: U times the work and issues behind one thread's setup
  const U: f64 = <f64>(m.U > 1 ? m.U : 1);
  s.ops = (st.ops * V * U + d.cost.threadSetupCycles) * <f64>m.groups * <f64>m.T;
  s.pathCycles = d.cost.threadSetupCycles + U * (V * st.ops + elementIssues(st, m.V > 1 ? m.V : 1) * d.cost.loadIssueCycles);
  s.chainedVectors = <f64>(idiv(m.V > 1 ? m.V : 1, packWidth(m.V > 1 ? m.V : 1)) * (m.U > 1 ? m.U : 1) - 1);
  return finish(d, s, new Cost());
}

/** Cost of the serial program-per-worker realization (uncoalesced, one thread per program). */
export function costSerial(d: Device, w: Work, m: Mapping): Cost {
  const s = freshShape();
  s.groups = <f64>m.groups;
  s.T = m.T;
  const st = w.stages[0];
  const programs: f64 = <f64>(m.programs > 0 ? m.programs : 1);
  s.bytesRead = st.loadBytes * programs;
  s.bytesWritten = st.storeBytes * programs;
  s.ops = st.ops * programs;
  // one thread per program, or (T = 1, one group) one thread running every program in order
  const perThread: f64 = m.T == 1 && m.groups == 1 ? programs : 1.0;
  s.pathCycles = perThread * (st.ops + (st.loads + st.stores) * d.cost.loadIssueCycles);
  s.memoryFactor = d.cost.uncoalescedFactor;
  return finish(d, s, new Cost());
}
