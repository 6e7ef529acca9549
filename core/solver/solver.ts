// The bounded width solver. For the reduction family it enumerates every candidate mapping in
// the documented space, checks the packing rules on each, scores each with the cost model and
// picks the lowest score under a total order (cost, then P, S, V, U ascending), so ties never
// depend on iteration order. The element family gets the fused 1x256 grid when the fusion
// rules hold. Anything unproven falls back: packed -> unpacked P = 1 -> serial program.

import { siblingJoins, siblingRunLength } from "../analysis/siblings";
import { Doc, Stmt } from "../ir/ast";
import { Structure } from "../analysis/structure";
import { Device } from "../device/device";
import { Options } from "../options";
import { diag, hasErrors } from "../diag/diagnostic";
import { ceilDiv, idiv } from "../util/text";
import { formatF64Fixed } from "../util/num";
import {
  Candidate,
  UNCACHED_BUDGET,
  UNCACHED_SPILL, Cost, LAYOUT_PROGRAMS, Mapping, NO_BUFFERS, Plan, Rejection, RuleResult, partialsPerGroup,
  REALIZATION_COOPERATIVE, REALIZATION_FUSED, REALIZATION_SERIAL,
} from "../plan/plan";
import { Work, constValue, elementWork, reductionWork, serialWork } from "../cost/work";
import { evalConstI32 } from "../analysis/consts";
import { CostScratch, costCooperative, costCooperativeInto, costElement, costSerial, extraStageLoads, registerLimit, registersPerThread } from "../cost/model";
import { LegalityContext } from "../legality/context";
import { Facts, LoopInfo } from "../legality/facts";
import { FallbackCause, causeFromRules, causeText, fallbackDiagnostic, structureCause } from "./fallback";
import { checkFusion, checkPacking, failedIds, isWidthDependent, recheckPackingWidths } from "../legality/index";
import { checkProgramsIndependent } from "../legality/programs";

/** Placeholder verdicts of a candidate not yet checked (never mutated). */
const NO_RULES: Array<RuleResult> = new Array<RuleResult>();
/** Placeholder cost of a candidate whose terms were not kept (never mutated). */
const PENDING_COST: Cost = new Cost();

/** Programs per group the automatic family tries with programs on lanes: 8 f32 programs fill a
 *  32-byte memory sector, 32 fill a SIMD group. */
const LANE_PROGRAMS: Array<i32> = [8, 16, 32];

/** Threads per group of the serial realization (one thread per logical program). */
export const SERIAL_THREADS: i32 = 64;
/** Elements per block of the fused element grid (1 x 256). */
export const ELEMENT_BLOCK: i32 = 256;

/** True when every failed rule is one whose verdict depends on the widths. */
function onlyWidthRulesFailed(failed: Array<string>): bool {
  for (let i: i32 = 0; i < failed.length; i++) if (!isWidthDependent(failed[i])) return false;
  return true;
}

/** Total order on candidates: cost, then workers on lanes before programs on lanes, then P, S, V, U. */
function better(a: Candidate, b: Candidate): bool {
  if (a.total != b.total) return a.total < b.total;
  if (a.mapping.lanes != b.mapping.lanes) return !a.mapping.lanes;
  if (a.mapping.P != b.mapping.P) return a.mapping.P < b.mapping.P;
  if (a.mapping.S != b.mapping.S) return a.mapping.S < b.mapping.S;
  if (a.mapping.V != b.mapping.V) return a.mapping.V < b.mapping.V;
  return a.mapping.U < b.mapping.U;
}

function joinIds(ids: Array<string>): string {
  return ids.join(", ");
}

/** Buffers worth caching: loaded two or more times in the program (also where the program writes
 *  them: private-ownership decides, core/legality/packing.ts inPlaceStripe), counting a
 *  stage that computes a sibling run once per member (`Stage.members`): a cached stripe's fill
 *  issues every load before the run's accumulators combine registers (run 64: the row max+min in
 *  one pass, 5.57 us cached at 1024x4096 where the uncached pass took 5.80). */
function cacheCandidates(w: Work, st: Structure): Array<string> {
  const out = new Array<string>();
  for (let i: i32 = 0; i < w.stages.length; i++) {
    const bs = w.stages[i].buffers;
    for (let b: i32 = 0; b < bs.length; b++) {
      const name = bs[b];
      if (out.indexOf(name) >= 0) continue;
      if (readsOf(w, name, true) >= 2) out.push(name);
    }
  }
  return out;
}

/** The non-scalar stages that load `name`, a sibling run's stage counted once per member where
 *  `members` is set. */
function readsOf(w: Work, name: string, members: bool): i32 {
  let n: i32 = 0;
  for (let k: i32 = 0; k < w.stages.length; k++) {
    if (!w.stages[k].scalar && w.stages[k].buffers.indexOf(name) >= 0) n += members ? w.stages[k].members : 1;
  }
  return n;
}

/** Of `buffers`, those loaded in two or more stages (read again after a combine, not only by the
 *  members of one sibling run). */
function reusedAcrossStages(w: Work, buffers: Array<string>): Array<string> {
  const out = new Array<string>();
  for (let b: i32 = 0; b < buffers.length; b++) if (readsOf(w, buffers[b], false) >= 2) out.push(buffers[b]);
  return out;
}

/** The widest extent of a non-scalar stage that loads each of `buffers` (0: none; a stage whose
 *  extent varies by program counts its largest, Stage.most). */
function widestExtents(w: Work, buffers: Array<string>): Array<i32> {
  const out = new Array<i32>();
  for (let b: i32 = 0; b < buffers.length; b++) {
    let ext: i32 = 0;
    for (let k: i32 = 0; k < w.stages.length; k++) {
      if (!w.stages[k].scalar && w.stages[k].buffers.indexOf(buffers[b]) >= 0 && w.stages[k].most > ext) ext = w.stages[k].most;
    }
    out.push(ext);
  }
  return out;
}

/** Scalars per worker that hold the stripes of buffers whose widest extents are `widest`. */
function stripeScalarsOf(widest: Array<i32>, W: i32, V: i32): i32 {
  let total: i32 = 0;
  for (let b: i32 = 0; b < widest.length; b++) total += ceilDiv(widest[b], W * V) * V;
  return total;
}

/** The program loop's trip count (its extent, exactly as a kernel computes it; 0 when negative). */
export function programExtent(doc: Doc, loop: Stmt): i32 {
  const e = evalConstI32(loop.extent, doc, 0);
  if (!e.ok) return constValue(doc, loop.extent);
  return e.value < 0 ? 0 : e.value;
}

/** The program loop's first coordinate: any i32 (negative, or computed as ["mod", 7, 4]). */
export function programStart(doc: Doc, loop: Stmt): i32 {
  const e = evalConstI32(loop.min, doc, 0);
  return e.ok ? e.value : 0;
}

class Search {
  doc: Doc;
  st: Structure;
  device: Device;
  o: Options;
  work: Work;
  programs: i32;
  programMin: i32;
  cacheable: Array<string>;
  /** What programs on lanes cache: the cacheable buffers read in two or more stages. A column
   *  stripe read only by one sibling run is slower cached (run 65, column max+min: 4096x4096 P=8
   *  T=512 38.00 us cached, 28.14 uncached; 2048x8192 P=16 T=512 31.28 and 24.23). `cacheable`
   *  itself where the two are the same. */
  cacheableLanes: Array<string>;
  plan: Plan;
  all: Array<Candidate> = new Array<Candidate>();
  /** A P whose groups * P slots pass the kernel's int slot index was left out (its value, or 0). */
  slotsTooMany: i32 = 0;
  rules: Array<Array<RuleResult>> = new Array<Array<RuleResult>>();
  checked: Array<bool> = new Array<bool>();
  /** One legality context for the whole search (its access facts are computed once). */
  ctx: LegalityContext;
  /** Verdicts already computed, per cached-buffer set (width-independent rules are reused). */
  memoKeys: Array<Array<string>> = new Array<Array<string>>();
  memoResults: Array<Array<RuleResult>> = new Array<Array<RuleResult>>();
  /** widestExtents of `cacheable`, for the list it was computed from (the same for every candidate). */
  widestOf: Array<string> = new Array<string>();
  widest: Array<i32> = new Array<i32>();
  /** Extra loads beside the cached stripes (cost/model.ts extraStageLoads) of `widestOf`. */
  widestExtra: i32 = 0;
  /** The unroll the automatic search also scores with programs on lanes, uncached (0: none):
   *  where the device charges storeChainNs and a storing stage computes its chunks' values
   *  first (core/analysis/hoist.ts), U chunks wait for their loads once (run 67). */
  laneUnroll: i32 = 0;
  /** The cost model's working records, reused for every candidate scored only to rank it. */
  scratch: CostScratch = new CostScratch();

  constructor(doc: Doc, st: Structure, device: Device, o: Options, plan: Plan, facts: Facts | null) {
    this.doc = doc;
    this.st = st;
    this.device = device;
    this.o = o;
    this.plan = plan;
    const loop = changetype<Stmt>(st.programLoop);
    const programs = programExtent(doc, loop);
    const programMin = programStart(doc, loop);
    this.work = reductionWork(doc, loop.body, loop.name, o.fuse, programMin, programs);
    this.programs = programs;
    this.programMin = programMin;
    const none = new Array<string>();
    this.cacheable = none;
    this.cacheableLanes = none;
    this.ctx = new LegalityContext(doc, st, device);
    if (facts !== null) this.ctx.useFacts(changetype<Facts>(facts));
    this.ctx.maxThreads = o.maxThreads;
  }

  /** The packing verdicts for mapping `m`, reusing width-independent verdicts. */
  check(m: Mapping): Array<RuleResult> {
    const c = this.ctx;
    c.P = m.P;
    c.S = m.S;
    c.T = m.T;
    c.lanes = m.lanes;
    c.programs = m.programs;
    c.cacheBuffers = m.cacheBuffers;
    // keyed by the list itself: every cached candidate shares `cacheable`, every uncached one NO_BUFFERS
    const at = this.memoKeys.indexOf(m.cacheBuffers);
    if (at >= 0) return recheckPackingWidths(c, this.memoResults[at]);
    const results = checkPacking(c);
    this.memoKeys.push(m.cacheBuffers);
    this.memoResults.push(results);
    return results;
  }

  /** Decides which candidate buffers can be cached (private-ownership proven for each). */
  findCacheable(): void {
    if (!this.o.cacheInput) return;
    const wanted = cacheCandidates(this.work, this.st);
    let single: Array<string> = NO_BUFFERS;
    for (let i: i32 = 0; i < wanted.length; i++) {
      const m = new Mapping();
      m.P = 1;
      m.S = 1;
      m.T = 32;
      m.programs = this.programs;
      m.cacheBuffers = new Array<string>();
      m.cacheBuffers.push(wanted[i]);
      const results = this.check(m);
      let owned = true;
      for (let k: i32 = 0; k < results.length; k++) {
        if (results[k].id == "private-ownership" && !results[k].holds()) owned = false;
      }
      if (owned) {
        this.cacheable.push(wanted[i]);
        single = m.cacheBuffers;
      } else {
        // say why a buffer read in two or more stages stays in memory (red team, session 32: an
        // in-place row and a gathered element dropped the cache with nothing said)
        for (let k: i32 = 0; k < results.length; k++) {
          if (results[k].id != "private-ownership" || results[k].violations.length == 0) continue;
          const first = results[k].violations[0];
          this.plan.notes.push("\"" + wanted[i] + "\" is read in " + readsOf(this.work, wanted[i], true).toString() + " stages but is not kept in registers (private-ownership): " + first.reason + " (" + first.pointer + ")");
        }
      }
    }
    // one cacheable buffer: share the list already checked, so its verdicts are reused
    if (this.cacheable.length == 1) this.cacheable = single;
    const reused = reusedAcrossStages(this.work, this.cacheable);
    this.cacheableLanes = reused.length == this.cacheable.length ? this.cacheable : reused;
  }

  add(P: i32, S: i32, V: i32, U: i32, lanes: bool = false, uncached: bool = false): void {
    const m = new Mapping();
    m.lanes = lanes;
    m.P = P;
    m.S = S;
    m.W = 32 * S;
    m.T = 32 * S * P;
    m.V = V;
    m.U = U;
    m.programs = this.programs;
    m.programMin = this.programMin;
    m.groups = ceilDiv(this.programs, P);
    // the kernel's slot index group * P + program_in_group is an int: every slot must be one
    if (<f64>m.groups * <f64>P > 2147483648.0) {
      this.slotsTooMany = P;
      return;
    }
    m.partialBytes = partialsPerGroup(P, S, lanes) * 4;
    let why: i32 = 0;
    let need: i32 = 0;
    let regs: i32 = 0;
    let room: i32 = 0;
    const cacheable = uncached ? NO_BUFFERS : lanes ? this.cacheableLanes : this.cacheable;
    if (cacheable.length > 0) {
      if (this.widestOf !== cacheable) {
        this.widest = widestExtents(this.work, cacheable);
        this.widestExtra = this.device.registersPerCore > 0 ? extraStageLoads(this.work, cacheable) : 0;
        this.widestOf = cacheable;
      }
      need = stripeScalarsOf(this.widest, m.W, V);
      // where the device gives its register file: a thread of a T-thread group holds at most the
      // file over the group's lanes; a stripe past that would spill to memory
      regs = registersPerThread(this.device, need, this.widestExtra);
      room = registerLimit(this.device, m.T, 1);
      if (need > this.device.privateBudget) {
        why = UNCACHED_BUDGET;
      } else if (regs > 0 && regs > room) {
        why = UNCACHED_SPILL;
      } else {
        m.cached = true;
        m.cacheBuffers = cacheable;
        m.cacheScalars = need;
      }
    }
    // scored now; checked by the rules only when the search needs its verdict (ensureChecked)
    // ranked by total now; the full cost record is kept only for candidates that are reported
    const total: f64 = costCooperativeInto(this.device, this.work, m, m.cacheBuffers, this.scratch.cost, this.scratch).total;
    // the note's text is written only where a plan reports it (Candidate.noteText)
    const cand = new Candidate(m, PENDING_COST, NO_BUFFERS, "");
    cand.total = total;
    cand.uncachedWhy = why;
    cand.stripeNeed = need;
    cand.stripeRegs = regs;
    cand.stripeRoom = room;
    cand.stripeBudget = this.device.privateBudget;
    this.all.push(cand);
    this.rules.push(NO_RULES);
    this.checked.push(false);
  }

  /** Runs the packing rules on candidate `i` once. */
  ensureChecked(i: i32): void {
    if (this.checked[i]) return;
    const results = this.check(this.all[i].mapping);
    this.rules[i] = results;
    this.all[i].failed = failedIds(results);
    this.checked[i] = true;
  }

  checkAll(): void {
    for (let i: i32 = 0; i < this.all.length; i++) {
      this.ensureChecked(i);
      this.costOf(i);
    }
  }

  /** The full cost record of candidate `i` (recomputed once: scoring is deterministic). */
  costOf(i: i32): Cost {
    const c = this.all[i];
    if (c.cost == PENDING_COST) c.cost = costCooperative(this.device, this.work, c.mapping, c.mapping.cacheBuffers);
    return c.cost;
  }

  enumerate(P: i32, T: i32, widths: Array<i32>, U: i32, limit: i32): void {
    if (this.o.layout == LAYOUT_PROGRAMS) {
      this.enumerateLanes(P, T, U, limit);
      return;
    }
    for (let v: i32 = 0; v < widths.length; v++) {
      const V = widths[v];
      if (T > 0) {
        if (P > 0) this.add(P, idiv(T, 32 * P), V, U);
        else {
          this.add(1, idiv(T, 32), V, U);
          if (idiv(T, 32) > 1) this.add(idiv(T, 32), 1, V, U);
        }
        continue;
      }
      if (P > 0) {
        let S: i32 = 1;
        this.add(P, 1, V, U); // always considered, so an over-limit P is reported by thread-limit
        S = 2;
        while (32 * S * P <= limit) {
          this.add(P, S, V, U);
          S++;
        }
      } else {
        // automatic family: only single-subgroup programs are packed; wider programs run alone
        let p: i32 = 1;
        while (32 * p <= limit) {
          this.add(p, 1, V, U);
          p++;
        }
        let S: i32 = 2;
        while (32 * S <= limit) {
          this.add(1, S, V, U);
          S++;
        }
      }
    }
    // the automatic family also scores programs on lanes (one element per worker per step)
    if (P == 0 && T == 0 && this.o.layout == "" && widths.indexOf(1) >= 0) this.enumerateLanes(0, 0, U, limit);
  }

  /**
   * Programs on lanes: P neighbouring programs on neighbouring threads, so that one SIMD access
   * reads 32 / P rows of P neighbouring programs' elements; W = 32 * S workers per program, V = 1.
   * Automatic: P in LANE_PROGRAMS, every S that fits. An explicit P or T is taken as given.
   */
  enumerateLanes(P: i32, T: i32, U: i32, limit: i32): void {
    if (P > 0 && T > 0) {
      this.add(P, idiv(T, 32 * P), 1, U, true);
      return;
    }
    for (let i: i32 = 0; i < LANE_PROGRAMS.length; i++) {
      const p: i32 = P > 0 ? P : LANE_PROGRAMS[i];
      if (T > 0) {
        if (T % (32 * p) == 0) this.addLanes(p, idiv(T, 32 * p), U);
      } else {
        // an explicit P is always considered, so an over-limit P is reported by thread-limit
        if (P > 0 || 32 * p <= limit) this.addLanes(p, 1, U);
        let S: i32 = 2;
        while (32 * S * p <= limit) {
          this.addLanes(p, S, U);
          S++;
        }
      }
      if (P > 0) return;
    }
  }

  /** A programs-on-lanes candidate, and with the automatic unroll its uncached laneUnroll twin. */
  addLanes(P: i32, S: i32, U: i32): void {
    this.add(P, S, 1, U, true);
    if (this.laneUnroll > 1 && U == 1) this.add(P, S, 1, this.laneUnroll, true, true);
  }

  /**
   * The admissible candidate with the fewest programs per group (then the cheapest) whose
   * predicted cost is within `error` of candidate `chosen` (total <= chosen's * (1 + error)),
   * whose P is smaller than chosen's, whose vector is at least chosen's and whose layout is
   * chosen's, or -1.
   */
  fewerPrograms(chosen: i32, error: f64): i32 {
    const c = this.all[chosen];
    const limit: f64 = c.total * (1.0 + error);
    let bi: i32 = -1;
    for (let i: i32 = 0; i < this.all.length; i++) {
      const x = this.all[i];
      // never a narrower vector for fewer programs: V decides the memory transactions, which
      // the model's error does not cover (run 84: a KV append at P = 1 V = 1 took 12.2 us, at the
      // cheapest P = 2 V = 4 7.2 us)
      if (x.mapping.P >= c.mapping.P || x.total > limit || x.mapping.lanes != c.mapping.lanes || x.mapping.V < c.mapping.V) continue;
      this.ensureChecked(i);
      if (x.failed.length > 0) continue;
      if (bi < 0 || x.mapping.P < this.all[bi].mapping.P || (x.mapping.P == this.all[bi].mapping.P && better(x, this.all[bi]))) bi = i;
    }
    return bi;
  }

  /** Index of the cheapest candidate in [from, all.length) under the total order, or -1. */
  best(from: i32): i32 {
    let bi: i32 = -1;
    for (let i: i32 = from; i < this.all.length; i++) {
      if (bi < 0 || better(this.all[i], this.all[bi])) bi = i;
    }
    return bi;
  }

  /**
   * Index of the cheapest admissible candidate in [from, all.length), or -1. Candidates are
   * checked in the total order until one holds every rule, so usually one or two are checked;
   * a failed width-independent rule fails every candidate of the same cache set, which ends
   * the search early. The result is the same as checking all and taking the cheapest admissible.
   */
  bestAdmissible(from: i32): i32 {
    const excluded = new Array<bool>(this.all.length);
    while (true) {
      let bi: i32 = -1;
      for (let i: i32 = from; i < this.all.length; i++) {
        if (excluded[i]) continue;
        if (this.checked[i] && this.all[i].failed.length > 0) continue;
        if (bi < 0 || better(this.all[i], this.all[bi])) bi = i;
      }
      if (bi < 0) return -1;
      this.ensureChecked(bi);
      if (this.all[bi].failed.length == 0) return bi;
      excluded[bi] = true;
      if (!onlyWidthRulesFailed(this.all[bi].failed)) {
        // the same verdict holds for every candidate with the same cached buffers
        const key = this.all[bi].mapping.cacheBuffers;
        for (let i: i32 = from; i < this.all.length; i++) {
          if (this.all[i].mapping.cacheBuffers == key) excluded[i] = true;
        }
      }
    }
  }
}

/** The explicit width request, as the user wrote it. */
function requested(o: Options): string {
  const parts = new Array<string>();
  if (o.programsPerGroup > 0) parts.push("--programs-per-group " + o.programsPerGroup.toString());
  if (o.threads > 0) parts.push("--threads " + o.threads.toString());
  if (o.vector > 0) parts.push("--vector " + o.vector.toString());
  if (o.unroll > 0) parts.push("--unroll " + o.unroll.toString());
  if (o.layout.length > 0) parts.push("--layout " + o.layout);
  return parts.join(" ");
}

/** The width requests the serial program has no use for ("--vector 4 --unroll 3"), or "". */
function ignoredWidths(o: Options): string {
  const w = requested(o);
  if (o.cacheInput) return w;
  return w.length > 0 ? w + " and --no-cache-input" : "--no-cache-input";
}

function describe(m: Mapping): string {
  return "P=" + m.P.toString() + " S=" + m.S.toString() + " T=" + m.T.toString() + " V=" + m.V.toString() + " U=" + m.U.toString() + (m.lanes ? " (programs on lanes)" : "");
}

function reasons(results: Array<RuleResult>): string {
  const parts = new Array<string>();
  for (let i: i32 = 0; i < results.length; i++) {
    const r = results[i];
    if (r.holds()) continue;
    let why = r.violations.length > 0 ? r.violations[0].reason : r.proof;
    if (why.endsWith(".")) why = why.substring(0, why.length - 1);
    parts.push(r.id + " " + r.verdict + ": " + why);
  }
  return parts.join("; ");
}

/**
 * The serial program's dispatch. `apart`: the programs are proven independent, so one thread per
 * program (groups of SERIAL_THREADS); otherwise one thread runs every program in order (T = 1,
 * one group), the oracle's order.
 */
function serialMapping(doc: Doc, st: Structure, apart: bool, limit: i32): Mapping {
  const m = new Mapping();
  m.S = 0;
  m.P = 0;
  m.V = 1;
  m.U = 1;
  if (st.programLoop === null) {
    m.T = 1;
    m.groups = 1;
    m.programs = 1;
    return m;
  }
  const loop = changetype<Stmt>(st.programLoop);
  m.programs = programExtent(doc, loop);
  m.programMin = programStart(doc, loop);
  // one thread per program, in groups of SERIAL_THREADS or of the thread limit where lower
  const t: i32 = limit < SERIAL_THREADS ? (limit < 1 ? 1 : limit) : SERIAL_THREADS;
  m.T = apart ? t : 1;
  m.groups = apart ? ceilDiv(m.programs, t) : 1;
  return m;
}

function useSerial(doc: Doc, st: Structure, device: Device, o: Options, plan: Plan, what: string, cause: FallbackCause): void {
  // the document's `parallel` is not evidence: programs run apart only when proven independent
  const programs: i32 = st.programLoop === null ? 1 : programExtent(doc, changetype<Stmt>(st.programLoop));
  const indep = checkProgramsIndependent(doc, st, programs);
  const apart = st.programLoop !== null && indep.holds();
  plan.diags.push(fallbackDiagnostic(what, cause, o.serial, ignoredWidths(o), apart, st.programLoop === null));
  plan.realization = REALIZATION_SERIAL;
  let limit: i32 = device.maxThreadsPerGroup;
  if (o.maxThreads > 0 && o.maxThreads < limit) limit = o.maxThreads;
  plan.mapping = serialMapping(doc, st, apart, limit);
  if (st.programLoop !== null && programs > 1) {
    plan.notes.push(apart
      ? "The serial program runs one thread per program: " + indep.proof
      : "The serial program runs every program in one thread, in order (the oracle's order), because distinct programs are not proven independent: " + (indep.violations.length > 0 ? indep.violations[0].reason : indep.proof));
  }
  const body = st.programLoop === null ? doc.body : changetype<Stmt>(st.programLoop).body;
  plan.cost = costSerial(device, serialWork(doc, body), plan.mapping);
}

function validateOptions(o: Options, device: Device, plan: Plan): bool {
  if (o.vector > 0 && device.vectorWidths.indexOf(o.vector) < 0) {
    plan.diags.push(diag("TPL002", "/options/vector", "Choose a vector width the device allows (" + device.vectorWidths.join(", ") + "), not " + o.vector.toString() + "."));
  } else if (o.vector > 1 && o.layout == LAYOUT_PROGRAMS) {
    plan.diags.push(diag("TPL002", "/options/vector", "With programs on lanes a worker takes one element per step (V = 1): neighbouring threads hold neighbouring programs, not neighbouring elements; omit --vector or use --vector 1."));
  }
  if (o.threads > 0) {
    // P <= MAX_PROGRAMS_PER_GROUP (optionsInLimits), so 32 * P cannot overflow
    const unit: i32 = 32 * (o.programsPerGroup > 0 ? o.programsPerGroup : 1);
    if (o.threads % unit != 0) {
      plan.diags.push(diag("TPL002", "/options/threads", "threads_per_group " + o.threads.toString() + " is not a multiple of 32 * P = " + unit.toString() + "; T fixes S = T / (32 P)."));
    }
  }
  return plan.diags.length == 0;
}

/** TPL009 for explicit widths whose mapping, candidate `i` of the search, fails a width rule. */
function notHonoured(s: Search, o: Options, plan: Plan, i: i32): void {
  const why = reasons(s.rules[i]);
  const c = causeFromRules(s.rules[i]);
  let msg = "Cannot honour " + requested(o) + ": the mapping " + describe(s.all[i].mapping) + " is rejected (" + why + ").";
  if (c.fix.length > 0) msg += " To honour it: " + c.fix + ";";
  msg += " or leave the widths to the solver (omit --programs-per-group and --threads).";
  plan.diags.push(diag("TPL009", o.programsPerGroup > 0 ? "/options/programsPerGroup" : "/options/threads", msg));
  plan.rules = s.rules[i];
}

function solveReduction(doc: Doc, st: Structure, device: Device, o: Options, plan: Plan, facts: Facts | null): void {
  if (!validateOptions(o, device, plan)) return;
  const loop = changetype<Stmt>(st.programLoop);
  const runs = siblingRunsText(loop.body);
  plan.fuseSiblings = o.fuse;
  if (!o.fuse && runs.length == 0) plan.diags.push(diag("TPL011", "/options/fuse", "--no-fuse has no effect: it applies to element graphs with several outputs and to sibling reduces (neighbouring reduces over one range that read none of each other's results), and this reduction has none; omit the option."));
  if (runs.length > 0) {
    plan.notes.push(o.fuse ? "The reduces " + runs + " walk the same range and read none of each other's results: each run is computed in one pass of the stripe, every element read once."
      : "The reduces " + runs + " could share one pass of the stripe; with --no-fuse each is computed in its own pass.");
  }
  const s = new Search(doc, st, device, o, plan, facts);
  s.findCacheable();
  let limit: i32 = device.maxThreadsPerGroup;
  if (o.maxThreads > 0 && o.maxThreads < limit) limit = o.maxThreads;
  let widths = new Array<i32>();
  if (o.vector > 0) widths.push(o.vector);
  else widths = device.vectorWidths;
  const U: i32 = o.unroll > 0 ? o.unroll : 1;
  if (o.unroll == 0 && device.cost.storeChainNs > 0.0 && s.work.hasValuesFirstStage()) s.laneUnroll = LANE_UNROLL;
  s.enumerate(o.programsPerGroup, o.threads, widths, U, limit);
  if (s.all.length == 0 && o.programsPerGroup > 1 && s.slotsTooMany > 0) {
    plan.diags.push(diag("TPL009", "/options/programsPerGroup", "Cannot honour --programs-per-group " + o.programsPerGroup.toString() + ": " +
      ceilDiv(s.programs, o.programsPerGroup).toString() + " groups of " + o.programsPerGroup.toString() + " program slots pass 2^31 (the kernel's int slot index); choose a P that divides the " + s.programs.toString() + " programs, or leave it to the solver."));
    return;
  }
  if (o.candidates) s.checkAll();
  const preferred = s.best(0);
  if (preferred >= 0) s.ensureChecked(preferred);
  let chosen = s.bestAdmissible(0);
  if (preferred >= 0 && s.all[preferred].failed.length > 0) {
    plan.rejections.push(new Rejection(REALIZATION_COOPERATIVE, s.all[preferred].failed,
      "The " + (s.all[preferred].mapping.P > 1 ? "packed" : "unpacked") + " mapping " + describe(s.all[preferred].mapping) + " is rejected: " + reasons(s.rules[preferred]) + "."));
  }
  if (chosen < 0 && (o.programsPerGroup > 0 || o.threads > 0) && preferred >= 0 && onlyWidthRulesFailed(s.all[preferred].failed)) {
    // explicit widths that are themselves impossible are never silently replaced by others
    notHonoured(s, o, plan, preferred);
    return;
  }
  if (chosen < 0 && o.programsPerGroup != 1) {
    // packed (or the requested widths) unproven: the unpacked form P = 1 by the bounded search;
    // a --threads given without --programs-per-group is kept (programs on lanes at T = 96: no P
    // of 8, 16 or 32 divides it, and the request was silently replaced by the search's T)
    const from: i32 = s.all.length;
    s.enumerate(1, o.programsPerGroup == 0 ? o.threads : 0, widths, U, limit);
    if (o.candidates) s.checkAll();
    chosen = s.bestAdmissible(from);
    // --threads alone that formed no candidate of its own: the P = 1 form at that T stands for the
    // request, and a width rule failing there is a request not honoured (red team, session 26:
    // programs on lanes at T = 128 on a device of 256 bytes of threadgroup memory fell back to the
    // serial program with no rule listed)
    if (chosen < 0 && preferred < 0 && o.threads > 0 && o.programsPerGroup == 0) {
      const alt = s.best(from);
      if (alt >= 0) {
        s.ensureChecked(alt);
        if (s.all[alt].failed.length > 0 && onlyWidthRulesFailed(s.all[alt].failed)) {
          notHonoured(s, o, plan, alt);
          return;
        }
      }
    }
  }
  if (chosen < 0) {
    const rules = preferred >= 0 ? s.rules[preferred] : new Array<RuleResult>();
    plan.rules = rules;
    // no candidate at all: say why rather than give an empty cause
    const cause = preferred >= 0 ? causeFromRules(rules)
      : limit < 32 && limit < device.maxThreadsPerGroup ? causeText("no cooperative mapping fits the thread limit of " + limit.toString() + " (a program needs at least one SIMD group of 32 threads)", "allow at least 32 threads per group (--max-threads)", "/options/maxThreads")
      : limit < 32 ? causeText("no cooperative mapping fits the device's limit of " + limit.toString() + " threads per group (maxThreadsPerGroup; a program needs at least one SIMD group of 32 threads)", "use a device description whose maxThreadsPerGroup is at least 32", "/options/device/maxThreadsPerGroup")
      : causeText("no cooperative mapping can be formed with the widths asked for", "leave the widths to the solver (omit --programs-per-group, --threads and --vector)", "");
    useSerial(doc, st, device, o, plan, preferred >= 0 ? "the cooperative reduction is not proven" : "no cooperative reduction applies", cause);
    plan.rules = rules;
    return;
  }
  if (device.cost.error > 0.0 && o.programsPerGroup == 0 && o.threads == 0 && s.all[chosen].mapping.P > 1 && !s.all[chosen].mapping.lanes) {
    // the calibrated model cannot tell candidates apart within its error: fewer programs per
    // group (less fence coupling, no replayed tail slots) is the safer choice there. Not with
    // programs on lanes: its programs share no fence, and fewer of them per SIMD row read memory
    // in shorter segments (run 49: P = 8 took 1.3 times P = 32's time)
    const alt = s.fewerPrograms(chosen, device.cost.error);
    if (alt >= 0) {
      const a = s.all[chosen];
      const b = s.all[alt];
      plan.notes.push("The cheapest candidate " + describe(a.mapping) + " (predicted " + formatF64Fixed(a.total, 0) + " ns) is within the calibrated model's error (" +
        formatF64Fixed(device.cost.error * 100.0, 1) + "%) of " + describe(b.mapping) + " (predicted " + formatF64Fixed(b.total, 0) + " ns, +" +
        formatF64Fixed((b.total / a.total - 1.0) * 100.0, 1) + "%): the plan takes the one with fewer programs per group.");
      chosen = alt;
    }
  }
  plan.realization = REALIZATION_COOPERATIVE;
  plan.mapping = s.all[chosen].mapping;
  plan.cost = s.costOf(chosen);
  plan.rules = s.rules[chosen];
  const cm = s.all[chosen].mapping;
  if (s.laneUnroll > 1 && cm.lanes && cm.U == s.laneUnroll) {
    plan.notes.push("U = " + cm.U.toString() + " (the automatic unroll): the loop that stores computes " + cm.U.toString() + " chunks' values before storing them, so their loads are in flight together; read uncached, as the loop's loads then are.");
  }
  const note = s.all[chosen].noteText();
  if (note.length > 0) plan.diags.push(diag("TPL004", "/options/cacheInput", "Cached input does not fit: " + note + "; the input is read uncached."));
  if (o.candidates) plan.candidates = s.all;
}

/** The sibling runs of a program body (and of its serial wrappers), as "m and n; a and b", or ""
 *  when there is none. */
function siblingRunsText(list: Array<Stmt>): string {
  let out: string = "";
  const joins = siblingJoins(list);
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "for" && !s.parallel) {
      const inner = siblingRunsText(s.body);
      if (inner.length > 0) out = out.length > 0 ? out + "; " + inner : inner;
      continue;
    }
    const n = siblingRunLength(joins, i);
    if (n < 2) continue;
    let run: string = "";
    for (let k: i32 = 0; k < n; k++) run = k == 0 ? list[i + k].name : run + (k == n - 1 ? " and " : ", ") + list[i + k].name;
    out = out.length > 0 ? out + "; " + run : run;
    i = i + n - 1;
  }
  return out;
}

/** The domain loops' extents as the legality facts have them (injective-compact-store holds only where
 *  every loop around a store is an exact constant range), so the grid is sized by what was proven. */
function domainExtents(c: LegalityContext, st: Structure): Array<i32> {
  const out = new Array<i32>();
  const f = c.facts();
  for (let i: i32 = 0; i < st.domainLoops.length; i++) {
    const li = f.loopFor(st.domainLoops[i]);
    out.push(li !== null && changetype<LoopInfo>(li).exact ? <i32>changetype<LoopInfo>(li).extent : -1);
  }
  return out;
}

/** Whether the element grid's group count and every column index it forms (up to a row's
 *  blocks times T * V * U) fit the kernel's int. */
function elementGridFits(extents: Array<i32>, V: i32, block: i32, U: i32): bool {
  const n: i32 = extents.length;
  let rows: f64 = 1.0;
  for (let i: i32 = 0; i + 1 < n; i++) rows *= <f64>extents[i];
  const span: f64 = <f64>block * <f64>V * <f64>U;
  const perRow: f64 = Math.ceil(<f64>extents[n - 1] / span);
  return rows * perRow <= 2147483647.0 && perRow * span <= 2147483648.0;
}

/** The element grid with V columns per thread, U such chunks per thread (the row length must be
 *  a multiple of V). */
function elementMapping(extents: Array<i32>, V: i32, block: i32, U: i32): Mapping {
  const m = new Mapping();
  const n: i32 = extents.length;
  m.V = V;
  m.U = U;
  m.block = block;
  m.T = block;
  m.domainCols = extents[n - 1];
  const domain = new Array<i32>();
  for (let i: i32 = 0; i < n; i++) domain.push(extents[i]);
  m.domainExtents = domain;
  m.domainRows = 1;
  for (let i: i32 = 0; i + 1 < n; i++) m.domainRows = i32(Math.imul(m.domainRows, extents[i]));
  m.blocksPerRow = ceilDiv(m.domainCols, block * V * U);
  m.groups = i32(Math.imul(m.domainRows, m.blocksPerRow));
  m.programs = m.domainRows;
  // short rows: a group takes several whole rows, rowThreads threads each (neighbouring rows on
  // neighbouring threads, so a row-major buffer is still read in one run of addresses)
  // (the kernel's row index group * rowsPerGroup + tid / rowThreads is an int: every group's
  // first row must be one, so groups * rowsPerGroup stays within 2^31; rowThreads may be near
  // 2^31 itself, so it is compared with half the block, never doubled)
  const rowThreads: i32 = ceilDiv(m.domainCols, V * U);
  if (m.domainRows > 1 && rowThreads > 0 && rowThreads <= idiv(block, 2)) {
    const rows: i32 = idiv(block, rowThreads);
    const groups: i32 = ceilDiv(m.domainRows, rows);
    if (<f64>groups * <f64>rows <= 2147483648.0) {
      m.rowThreads = rowThreads;
      m.rowsPerGroup = rows;
      m.groups = groups;
    }
  }
  return m;
}

function solveElement(doc: Doc, st: Structure, device: Device, o: Options, plan: Plan, facts: Facts | null): void {
  const c = new LegalityContext(doc, st, device);
  if (facts !== null) c.useFacts(changetype<Facts>(facts));
  const results = checkFusion(c);
  const failed = failedIds(results);
  plan.rules = results;
  if (o.vector > 0 && device.vectorWidths.indexOf(o.vector) < 0) {
    plan.diags.push(diag("TPL002", "/options/vector", "Choose a vector width the device allows (" + device.vectorWidths.join(", ") + "), not " + o.vector.toString() + "."));
    return;
  }
  // the grid has one thread per chunk of elements: programs per group have no meaning here
  // (--unroll sets U, the chunks of V columns each thread takes)
  if (o.programsPerGroup > 0) plan.diags.push(diag("TPL011", "/options/programsPerGroup", "--programs-per-group " + o.programsPerGroup.toString() + " has no effect: this document is in the element family (one thread per element, no programs); omit the option."));
  if (o.layout.length > 0) plan.diags.push(diag("TPL011", "/options/layout", "--layout " + o.layout + " has no effect: this document is in the element family (one thread per element, no cooperating programs); omit the option."));
  if (!o.fuse && st.outputs.length <= 1) plan.diags.push(diag("TPL011", "/options/fuse", "--no-fuse has no effect: this document has one output, so there is nothing to fuse; omit the option."));
  let limit: i32 = device.maxThreadsPerGroup;
  if (o.maxThreads > 0 && o.maxThreads < limit) limit = o.maxThreads;
  // --threads sets the block (threads per group) of the element grid
  let block: i32 = ELEMENT_BLOCK < limit ? ELEMENT_BLOCK : limit;
  if (o.threads > 0) {
    if (o.threads > limit || o.threads % device.simdWidth != 0) {
      plan.diags.push(diag("TPL009", "/options/threads", "Cannot honour --threads " + o.threads.toString() + " for the element grid: threads per group must be a multiple of " + device.simdWidth.toString() + " and at most " + limit.toString() + "."));
    }
    block = o.threads;
  }
  if (hasErrors(plan.diags)) return;
  if (failed.length == 0 && (o.fuse || st.outputs.length <= 1)) {
    // V columns per thread; where the row length is not a multiple of V a row's last vector is
    // ragged (the emitter runs it element by element)
    const work = elementWork(doc, changetype<Stmt>(st.programLoop));
    const extents = domainExtents(c, st);
    let best: Candidate | null = null;
    for (let i: i32 = 0; i < device.vectorWidths.length; i++) {
      const V = device.vectorWidths[i];
      if (o.vector > 0 && V != o.vector) continue;
      // the kernel's group index and column index are ints: the grid must fit them
      if (!elementGridFits(extents, V, block, o.unroll > 0 ? o.unroll : 1)) continue;
      // U chunks of V columns per thread: 1 unless --unroll asks for more (measured on the H200,
      // run 32, more chunks per thread were never faster than one)
      const m = elementMapping(extents, V, block, o.unroll > 0 ? o.unroll : 1);
      const cand = new Candidate(m, costElement(device, work, m), new Array<string>(), "");
      plan.candidates.push(cand);
      if (best === null || better(cand, changetype<Candidate>(best))) best = cand;
    }
    if (best === null) {
      // every width was skipped for its size: the grid would not fit the kernel's int indices
      plan.rejections.push(new Rejection(REALIZATION_FUSED, new Array<string>(), "The fused element grid does not fit: its threadgroups or a row's columns would pass 2^31 - 1 (the kernel's int indices)."));
      useSerial(doc, st, device, o, plan, "the fused element grid does not fit", causeText("the element grid would need more than 2^31 - 1 threadgroups or column indices", "split the domain into smaller documents", ""));
      return;
    }
    const chosen = changetype<Candidate>(best);
    if (!o.cacheInput) plan.diags.push(diag("TPL011", "/options/cacheInput", "--no-cache-input has no effect: the element grid reads each element once and caches nothing; omit the option."));
    plan.realization = REALIZATION_FUSED;
    plan.mapping = chosen.mapping;
    plan.cost = chosen.cost;
    if (!o.candidates) plan.candidates = new Array<Candidate>();
    return;
  }
  if (failed.length > 0) {
    plan.rejections.push(new Rejection(REALIZATION_FUSED, failed, "The fused element grid is rejected: " + reasons(results) + "."));
    useSerial(doc, st, device, o, plan, "the fused element grid is not proven", causeFromRules(results));
  } else {
    plan.rejections.push(new Rejection(REALIZATION_FUSED, new Array<string>(), "Fusion of " + st.outputs.length.toString() + " outputs is disabled (--no-fuse)."));
    useSerial(doc, st, device, o, plan, "the fused element grid is not used", causeText("fusion of " + st.outputs.length.toString() + " outputs is disabled (--no-fuse)", "drop --no-fuse (options.fuse = false)", ""));
  }
}

/** Solves widths and scores: fills realization, mapping, rules, rejections and cost. `facts`,
 *  when given, are access facts already collected: the legality context takes them where they are
 *  its own (LegalityContext.useFacts), and collects its own otherwise. */
export function solve(doc: Doc, st: Structure, device: Device, o: Options, plan: Plan, facts: Facts | null = null): void {
  plan.family = st.family;
  if (!optionsInLimits(o, plan)) return;
  if (!programLoopPlannable(doc, st, plan)) return;
  if (st.family == "reduction") {
    solveReduction(doc, st, device, o, plan, facts);
  } else if (st.family == "element") {
    solveElement(doc, st, device, o, plan, facts);
  } else {
    plan.notes.push("No packed or fused realization applies: " + st.why + ".");
    useSerial(doc, st, device, o, plan, "no cooperative or fused realization applies", structureCause(doc, st.why, st.whyPtr));
  }
}

/** Documented limits of the plan options: every width product then stays far inside i32. */
export const MAX_PROGRAMS_PER_GROUP: i32 = 65536;
export const MAX_UNROLL: i32 = 64;
/** The unroll the automatic search scores beside U = 1 for programs on lanes that store
 *  (Search.laneUnroll): run 67, the column softmax and scaled mean at three shapes, U = 8 with
 *  the values first 0.57-0.86 of U = 1's time, U = 4 0.59-0.96. */
export const LANE_UNROLL: i32 = 8;
export const MAX_THREADS_OPTION: i32 = 1048576;

function optionsInLimits(o: Options, plan: Plan): bool {
  if (o.programsPerGroup > MAX_PROGRAMS_PER_GROUP) {
    plan.diags.push(diag("TPL002", "/options/programsPerGroup", "programs per group " + o.programsPerGroup.toString() +
      " is over the limit of " + MAX_PROGRAMS_PER_GROUP.toString() + " (a group holds 32 * P threads); choose a smaller P or 0 for the automatic family."));
  }
  if (o.unroll > MAX_UNROLL) {
    plan.diags.push(diag("TPL002", "/options/unroll", "unroll " + o.unroll.toString() + " is over the limit of " +
      MAX_UNROLL.toString() + " independent accumulators; choose a smaller U."));
  }
  if (o.threads > MAX_THREADS_OPTION) {
    plan.diags.push(diag("TPL002", "/options/threads", "threads per group " + o.threads.toString() + " is over the limit of " +
      MAX_THREADS_OPTION.toString() + "; no device has groups that large."));
  }
  return plan.diags.length == 0;
}

/**
 * The program loop (the top-level parallel loop) must have a constant range with at least one
 * iteration: its extent is the number of programs every realization dispatches. Extents that
 * fold to a constant (`["min", "R", 4]`, `["div", "R", 2]`) are fine; 0, a negative extent or a
 * range that is not constant is TPL006 (a loop with no iteration has nothing to dispatch).
 */
function programLoopPlannable(doc: Doc, st: Structure, plan: Plan): bool {
  if (st.programLoop === null) return true;
  const loop = changetype<Stmt>(st.programLoop);
  const ext = evalConstI32(loop.extent, doc, 0);
  const min = evalConstI32(loop.min, doc, 0);
  if (!ext.ok || !min.ok) {
    plan.diags.push(diag("TPL006", loop.ptr + "/in", "The range of the top-level parallel loop \"" + loop.name +
      "\" must be constant after sizes are substituted; it sets how many programs are dispatched."));
    return false;
  }
  if (ext.value < 1) {
    plan.diags.push(diag("TPL006", loop.ptr + "/in/1", "The top-level parallel loop \"" + loop.name + "\" has extent " +
      ext.value.toString() + " for these sizes, so it runs no iteration and there is nothing to dispatch; give it a positive extent."));
    return false;
  }
  return true;
}

export { Cost };
