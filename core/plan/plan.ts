// The plan: which realization, which widths, which rules held or failed and why, at what cost.
// Produced by core/pipeline.ts from the legality report, the solver and the cost model; read by
// the emitter (which needs nothing else besides the document) and printed as JSON.

import { Diagnostic } from "../diag/diagnostic";
import { Stmt } from "../ir/ast";
import { Distribution } from "../analysis/distribution";

export const REALIZATION_COOPERATIVE: string = "cooperative-reduction";
export const REALIZATION_FUSED: string = "fused-elementwise";
export const REALIZATION_SERIAL: string = "serial-program";

/** How a cooperative group's P x W slots sit on its threads (`Mapping.lanes`): the workers of a
 *  program on neighbouring threads (the design's formulas), or the programs (a program's workers
 *  one SIMD row apart). */
export const LAYOUT_WORKERS: string = "workers-on-lanes";
export const LAYOUT_PROGRAMS: string = "programs-on-lanes";

export const VERDICT_HOLDS: string = "holds";
export const VERDICT_FAILS: string = "fails";
export const VERDICT_UNKNOWN: string = "unknown";

/** One thing a rule could not prove, with the node it is about. */
export class Violation {
  reason: string;
  pointer: string;

  constructor(reason: string, pointer: string) {
    this.reason = reason;
    this.pointer = pointer;
  }
}

/** A rule's verdict. `fails` and `unknown` carry every violation found; `holds` carries why. */
export class RuleResult {
  id: string;
  verdict: string;
  /** For "holds": the argument that proved it. */
  proof: string;
  violations: Array<Violation> = new Array<Violation>();

  constructor(id: string, verdict: string, proof: string) {
    this.id = id;
    this.verdict = verdict;
    this.proof = proof;
  }

  holds(): bool {
    return this.verdict == VERDICT_HOLDS;
  }
}

export class Rejection {
  realization: string;
  failed: Array<string>;
  message: string;

  constructor(realization: string, failed: Array<string>, message: string) {
    this.realization = realization;
    this.failed = failed;
    this.message = message;
  }
}

/** The empty buffer list every uncached mapping shares (never mutated). */
export const NO_BUFFERS: Array<string> = new Array<string>();
/** The empty extent list every cooperative mapping shares (never pushed into). */
export const NO_EXTENTS: Array<i32> = new Array<i32>();

/** Widths and grid of one realization. Fields that do not apply are 0 / false. */
export class Mapping {
  /** Programs per group, SIMD groups per program, workers per program, threads per group. */
  P: i32 = 0;
  S: i32 = 0;
  W: i32 = 0;
  T: i32 = 0;
  /** Vector width and unroll of the per-worker stripes. */
  V: i32 = 1;
  U: i32 = 1;
  /** Physical threadgroups dispatched (1-D grid). */
  groups: i32 = 0;
  cached: bool = false;
  /** Buffers whose stripes are held in registers (cached input). */
  /** Shared lists: assign a new array rather than pushing into the default. */
  cacheBuffers: Array<string> = NO_BUFFERS;
  /** Scalars per worker held in registers for cached stripes. */
  cacheScalars: i32 = 0;
  /** Logical programs (rows) and the program loop's first coordinate. */
  programs: i32 = 0;
  programMin: i32 = 0;
  /** Element grid: elements per block (1 x 256), blocks per row, rows of the flattened domain. */
  block: i32 = 0;
  blocksPerRow: i32 = 0;
  /** Element grid: rows a group takes (1: one row, or part of one, per group). Where a row needs
   *  at most half a block (rowThreads threads of V * U columns), a group takes block / rowThreads
   *  rows, so that short rows (3, 32, 77 columns) do not leave most of a 256-thread group idle. */
  rowsPerGroup: i32 = 1;
  rowThreads: i32 = 0;
  domainRows: i32 = 0;
  domainCols: i32 = 0;
  /** Element grid: the proven extent of each domain loop, outermost first (the emitter decodes a
   *  row into the outer coordinates with these, the grid is sized with them). */
  /** Shared while empty: assign a new array rather than pushing into the default. */
  domainExtents: Array<i32> = NO_EXTENTS;
  /** Threadgroup memory bytes per reduction allocation. */
  partialBytes: i32 = 0;
  /** Cooperative layout: false = workers on lanes (thread = program * W + worker), true =
   *  programs on lanes (thread = worker * P + program; V = 1). T = 32 * S * P either way. */
  lanes: bool = false;
}

/** Threadgroup partials per reduce: one per SIMD group of each program (workers on lanes, P * S);
 *  programs on lanes, one per SIMD group and program where a SIMD group first combines each
 *  program's workers (lanesCombineInSimd: slot sg * P + program over the T / 32 = S * P groups,
 *  S * P * P; before session 33 this declared T, 32 / P times what the kernel touches: red team),
 *  else one per worker (P * W = T). */
export function partialsPerGroup(P: i32, S: i32, lanes: bool): i32 {
  if (!lanes) return P * S;
  return lanesCombineInSimd(P) ? S * P * P : 32 * S * P;
}

/** Programs on lanes: whether each SIMD group first combines the 32 / P workers it holds of each
 *  program across its lanes (P a power of two below 32: lane l holds program l % P), so a worker
 *  then reads one partial per SIMD group (T / 32) instead of one per worker (W). */
export function lanesCombineInSimd(P: i32): bool {
  return P > 0 && P < 32 && 32 % P == 0;
}

/** Partials a worker of the programs-on-lanes layout combines after the barrier. */
export function lanesPartialsRead(P: i32, S: i32): i32 {
  return lanesCombineInSimd(P) ? S * P : 32 * S;
}

/** The layout's name (LAYOUT_WORKERS or LAYOUT_PROGRAMS). */
export function layoutName(lanes: bool): string {
  return lanes ? LAYOUT_PROGRAMS : LAYOUT_WORKERS;
}

export class CostTerm {
  name: string;
  value: f64;

  constructor(name: string, value: f64) {
    this.name = name;
    this.value = value;
  }
}

/** A score and its terms (ns, bytes). Plain numbers, so scoring a candidate allocates little. */
export class Cost {
  total: f64 = 0.0;
  bytesRead: f64 = 0.0;
  bytesWritten: f64 = 0.0;
  /** Extra bytes moved for accesses whose neighbouring threads are not on neighbouring elements
   *  (reported only where there are any). */
  uncoalescedBytes: f64 = 0.0;
  memory: f64 = 0.0;
  arithmetic: f64 = 0.0;
  latency: f64 = 0.0;
  collectivesAndBarriers: f64 = 0.0;
  setup: f64 = 0.0;
  concurrency: f64 = 0.0;
  fenceCoupling: f64 = 0.0;
  groupsPerCore: f64 = 0.0;
  waves: f64 = 0.0;
  /** The most registers per thread that keep `groupsPerCore` groups on a core (whole SIMD groups,
   *  rounded down to the device's granule): what a runtime whose compiler takes a register limit
   *  holds the kernel to, so that it is resident as scored. 0: the device gives no register file. */
  registerLimit: f64 = 0.0;

  /** Every term, in the order they are reported. */
  terms(): Array<CostTerm> {
    const t = new Array<CostTerm>();
    t.push(new CostTerm("bytesRead", this.bytesRead));
    t.push(new CostTerm("bytesWritten", this.bytesWritten));
    if (this.uncoalescedBytes > 0.0) t.push(new CostTerm("uncoalescedBytes", this.uncoalescedBytes));
    t.push(new CostTerm("memory", this.memory));
    t.push(new CostTerm("arithmetic", this.arithmetic));
    t.push(new CostTerm("latency", this.latency));
    t.push(new CostTerm("collectivesAndBarriers", this.collectivesAndBarriers));
    t.push(new CostTerm("setup", this.setup));
    t.push(new CostTerm("concurrency", this.concurrency));
    t.push(new CostTerm("fenceCoupling", this.fenceCoupling));
    t.push(new CostTerm("groupsPerCore", this.groupsPerCore));
    t.push(new CostTerm("waves", this.waves));
    if (this.registerLimit > 0.0) t.push(new CostTerm("registerLimit", this.registerLimit));
    return t;
  }
}

export class Candidate {
  mapping: Mapping;
  cost: Cost;
  /** Rule ids this candidate failed (mapping-dependent rules), empty when admissible. */
  failed: Array<string>;
  note: string;
  /** cost.total, kept apart so a search can score without keeping every term. */
  total: f64;
  /** Why a cacheable stripe was read uncached, kept as numbers and written out only where a
   *  plan reports it (noteText): 0 none, UNCACHED_BUDGET or UNCACHED_SPILL. */
  uncachedWhy: i32 = 0;
  stripeNeed: i32 = 0;
  stripeRegs: i32 = 0;
  stripeRoom: i32 = 0;
  stripeBudget: i32 = 0;

  constructor(mapping: Mapping, cost: Cost, failed: Array<string>, note: string) {
    this.mapping = mapping;
    this.cost = cost;
    this.failed = failed;
    this.note = note;
    this.total = cost.total;
  }

  /** The candidate's note: the one it was given, else why its stripe is read uncached, or "". */
  noteText(): string {
    if (this.note.length > 0 || this.uncachedWhy == 0) return this.note;
    if (this.uncachedWhy == UNCACHED_BUDGET)
      return "uncached: the stripe needs " + this.stripeNeed.toString() + " scalars per worker, over the private budget of " + this.stripeBudget.toString();
    return "uncached: with the stripe of " + this.stripeNeed.toString() + " scalars a thread would hold about " + this.stripeRegs.toString() +
      " registers, over the " + this.stripeRoom.toString() + " the register file gives each of " + this.mapping.T.toString() + " threads (the stripe would spill)";
  }
}

/** Candidate.uncachedWhy: the stripe is over the device's private budget. */
export const UNCACHED_BUDGET: i32 = 1;
/** Candidate.uncachedWhy: the stripe would spill past the register file's share of a thread. */
export const UNCACHED_SPILL: i32 = 2;

/** Kernel parameter binding: one per buffer (threadgroup memory is declared in the kernel body). */
export class Binding {
  kind: string; // "buffer"
  index: i32;
  name: string;
  /** "read", "write" or "readwrite". */
  access: string;
  /** Exact byte count (f64: a buffer may hold 2^31 elements or more). */
  bytes: f64;

  constructor(kind: string, index: i32, name: string, access: string, bytes: f64) {
    this.kind = kind;
    this.index = index;
    this.name = name;
    this.access = access;
    this.bytes = bytes;
  }
}

export class Plan {
  realization: string = REALIZATION_SERIAL;
  family: string = "serial";
  kernelName: string = "";
  mapping: Mapping = new Mapping();
  rules: Array<RuleResult> = new Array<RuleResult>();
  rejections: Array<Rejection> = new Array<Rejection>();
  cost: Cost = new Cost();
  candidates: Array<Candidate> = new Array<Candidate>();
  bindings: Array<Binding> = new Array<Binding>();
  diags: Array<Diagnostic> = new Array<Diagnostic>();
  /** Plain-language notes (why the family is what it is). */
  notes: Array<string> = new Array<string>();
  /** The top-level parallel loop (null for a single-worker serial program). */
  programLoop: Stmt | null = null;
  /** Element family: the nested parallel loops, outermost first, and the leaf body. */
  domainLoops: Array<Stmt> = new Array<Stmt>();
  /** Reduction family: the reduces, in program order (each owns one threadgroup array, `tgK`). */
  reduces: Array<Stmt> = new Array<Stmt>();
  /** Reduction family: where each program-level statement runs; the legality facts read the
   *  same record (core/analysis/distribution.ts). */
  distribution: Distribution = new Distribution();
  /** Reduction family: sibling reduces (core/analysis/siblings.ts) share one pass of the stripe;
   *  false with --no-fuse (options.fuse = false): each reduce in its own pass. */
  fuseSiblings: bool = true;
}
