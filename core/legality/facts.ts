// Facts the legality rules read: every load and store of the document with its enclosing loops
// (exact ranges where constant), its affine index forms, whether it sits under an `if`, and, for
// the reduction family, which loop or reduce axis distributes it over a program's workers.
// One walk, no names consulted for decisions (names are identities of loops and buffers only).

import { Doc, Expr, Stmt } from "../ir/ast";
import { Affine, AffineEnv, addScaled, affineOf, exactTerms } from "../ir/affine";
import { Distribution, RUN_DISTRIBUTED } from "../analysis/distribution";
import { VarBounds, boundAffine, loopBounds } from "../analysis/ranges";

/** Operators of Tile IR v1; all are pure (no side effects, no hidden state). */
const PURE_OPS: Array<string> = [
  "int", "f32", "name", "load", "add", "sub", "mul", "div", "min", "max", "mod", "neg", "abs",
  "exp", "log", "sqrt", "rsqrt", "tanh", "erf", "lt", "le", "gt", "ge", "eq", "ne", "and", "or", "not",
  "select", "cast",
];

export const LOOP_PROGRAM: string = "program";
export const LOOP_PARALLEL: string = "parallel";
export const LOOP_SERIAL: string = "serial";
export const LOOP_AXIS: string = "axis";

/** One enclosing loop or reduce axis. Ranges are exact only when min, extent, step are constant. */
export class LoopInfo {
  stmt: Stmt;
  name: string;
  /** LOOP_PROGRAM, LOOP_PARALLEL, LOOP_SERIAL or LOOP_AXIS. */
  kind: string;
  minConst: bool = false;
  extentConst: bool = false;
  stepConst: bool = false;
  min: f64 = 0.0;
  extent: f64 = 0.0;
  step: f64 = 1.0;
  /** Non-null min form, for messages about what it depends on. */
  minForm: Affine | null = null;
  extentForm: Affine | null = null;
  /** Exact value range [lo, hi] (constant min, extent >= 1, step >= 1). */
  exact: bool = false;
  lo: f64 = 0.0;
  hi: f64 = 0.0;
  /** Reduction family: this loop or axis is spread over the W workers of a program. */
  distributed: bool = false;
  /** A value box [boxLo, boxHi] that holds the variable in every program (core/analysis/ranges.ts
   *  loopBounds: also where the range varies by program, as [0, r + 1) does). */
  boxKnown: bool = false;
  boxLo: f64 = 0.0;
  boxHi: f64 = 0.0;

  constructor(stmt: Stmt, name: string, kind: string) {
    this.stmt = stmt;
    this.name = name;
    this.kind = kind;
  }

  isParallel(): bool {
    return this.kind == LOOP_PROGRAM || this.kind == LOOP_PARALLEL;
  }

  /** Same constant [min, extent] and unit step as `o`. */
  sameRange(o: LoopInfo): bool {
    return this.minConst && this.extentConst && this.stepConst && o.minConst && o.extentConst && o.stepConst &&
      this.min == o.min && this.extent == o.extent && this.step == 1.0 && o.step == 1.0;
  }
}

/** The level of the loop named `name` in `loops` (outermost first; the innermost of that name), or -1. */
export function loopLevel(loops: Array<LoopInfo>, name: string): i32 {
  for (let k: i32 = loops.length - 1; k >= 0; k--) if (loops[k].name == name) return k;
  return -1;
}

/** One access: a load (expression) or a store (statement). */
export class Site {
  /** "load" or "store". */
  kind: string;
  buffer: string;
  /** JSON pointer of the load expression or the store statement. */
  ptr: string;
  index: Array<Expr>;
  /** Affine form of each index (null where not affine in the enclosing loop variables). */
  forms: Array<Affine | null> = new Array<Affine | null>();
  /** Enclosing loops and axes, outermost first. */
  loops: Array<LoopInfo> = new Array<LoopInfo>();
  /** Under at least one `if`. */
  guarded: bool = false;
  /** Inside the program loop (reduction family) or not. */
  inProgram: bool = false;
  /** The distributing loop or axis (reduction family), null at program level. */
  dist: LoopInfo | null = null;
  /** Where the access runs (reduction family, from the shared Distribution): RUN_DISTRIBUTED
   *  (by the worker owning the iteration of `dist`), RUN_EVERY (every worker) or RUN_ONE
   *  (worker 0 alone, in program order); "" outside the program. */
  runs: string = "";
  /** For a store: the statement; for a load: the store statement it is part of, if any. */
  store: Stmt | null = null;
  /** Walk order: statements in program order, a let's or a condition's loads before what
   *  follows, a store's site before the loads of its value and index (which it reads first). */
  seq: i32 = 0;

  constructor(kind: string, buffer: string, ptr: string, index: Array<Expr>) {
    this.kind = kind;
    this.buffer = buffer;
    this.ptr = ptr;
    this.index = index;
  }

  allAffine(): bool {
    for (let i: i32 = 0; i < this.forms.length; i++) if (this.forms[i] === null) return false;
    return true;
  }

  loopOf(name: string): LoopInfo | null {
    for (let i: i32 = this.loops.length - 1; i >= 0; i--) if (this.loops[i].name == name) return this.loops[i];
    return null;
  }
}

export class Facts {
  /** What they were collected for (collectFacts' arguments): a legality context takes facts
   *  collected elsewhere only when these are its own (LegalityContext.useFacts). */
  doc: Doc | null = null;
  programLoop: Stmt | null = null;
  roles: Distribution | null = null;
  loads: Array<Site> = new Array<Site>();
  stores: Array<Site> = new Array<Site>();
  /** Pointers of expression nodes whose operator is not known to be pure. */
  impure: Array<string> = new Array<string>();
  impureOps: Array<string> = new Array<string>();
  /** Every loop and reduce axis, in walk order. */
  loops: Array<LoopInfo> = new Array<LoopInfo>();

  /** The loop record of a for statement or reduce, or null. */
  loopFor(s: Stmt): LoopInfo | null {
    for (let i: i32 = 0; i < this.loops.length; i++) if (this.loops[i].stmt === s) return this.loops[i];
    return null;
  }

  storesTo(buffer: string): Array<Site> {
    const out = new Array<Site>();
    for (let i: i32 = 0; i < this.stores.length; i++) if (this.stores[i].buffer == buffer) out.push(this.stores[i]);
    return out;
  }

  loadsOf(buffer: string): Array<Site> {
    const out = new Array<Site>();
    for (let i: i32 = 0; i < this.loads.length; i++) if (this.loads[i].buffer == buffer) out.push(this.loads[i]);
    return out;
  }
}

class Walker {
  facts: Facts = new Facts();
  env: AffineEnv = new AffineEnv();
  loops: Array<LoopInfo> = new Array<LoopInfo>();
  guarded: i32 = 0;
  /** Sites made so far (Site.seq). */
  sites: i32 = 0;
  inProgram: bool = false;
  dist: LoopInfo | null = null;
  store: Stmt | null = null;
  programLoop: Stmt | null;
  roles: Distribution;
  role: string = "";
  /** Sound bounds of the enclosing variables, innermost last (for the no-wrap condition). */
  vb: VarBounds = new VarBounds();

  doc: Doc;

  constructor(doc: Doc, programLoop: Stmt | null, roles: Distribution) {
    this.doc = doc;
    this.programLoop = programLoop;
    this.roles = roles;
    for (let i: i32 = 0; i < doc.sizeNames.length; i++) {
      this.env.constNames.push(doc.sizeNames[i]);
      this.env.constValues.push(doc.sizeValues[i]);
    }
  }

  site(kind: string, buffer: string, ptr: string, index: Array<Expr>): Site {
    const s = new Site(kind, buffer, ptr, index);
    for (let i: i32 = 0; i < index.length; i++) {
      // exact-integer reasoning is valid only where the i32 expression cannot wrap: its value and
      // every variable in it stay inside i32 over the iteration space (add, sub, mul and neg wrap
      // modulo 2^32, so an exact result inside i32 is the value the kernel computes)
      const a = affineOf(index[i], this.env, 0);
      s.forms.push(a !== null && this.vb.noWrap(changetype<Affine>(a)) ? a : null);
    }
    for (let i: i32 = 0; i < this.loops.length; i++) s.loops.push(this.loops[i]);
    s.guarded = this.guarded > 0;
    s.inProgram = this.inProgram;
    s.dist = this.dist;
    s.runs = this.inProgram ? this.role : "";
    s.store = this.store;
    s.seq = this.sites;
    this.sites = this.sites + 1;
    return s;
  }

  expr(e: Expr): void {
    if (e.op == "none") return;
    if (PURE_OPS.indexOf(e.op) < 0) {
      this.facts.impure.push(e.ptr);
      this.facts.impureOps.push(e.op);
    }
    if (e.op == "load") this.facts.loads.push(this.site("load", e.name, e.ptr, e.args));
    for (let i: i32 = 0; i < e.args.length; i++) this.expr(e.args[i]);
  }

  boundForm(e: Expr): Affine | null {
    return boundAffine(e, this.env, this.doc, this.vb);
  }

  loopInfo(s: Stmt, name: string, kind: string): LoopInfo {
    const li = new LoopInfo(s, name, kind);
    const mn = this.boundForm(s.min);
    const ex = this.boundForm(s.extent);
    const st: Affine | null = s.step.op == "none" ? null : this.boundForm(s.step);
    li.minForm = mn;
    li.extentForm = ex;
    if (mn !== null && changetype<Affine>(mn).isConst()) {
      li.minConst = true;
      li.min = changetype<Affine>(mn).c;
    }
    if (ex !== null && changetype<Affine>(ex).isConst()) {
      li.extentConst = true;
      li.extent = changetype<Affine>(ex).c;
    }
    if (s.step.op == "none") li.stepConst = true;
    else if (st !== null && changetype<Affine>(st).isConst()) {
      li.stepConst = true;
      li.step = changetype<Affine>(st).c;
    }
    if (li.minConst && li.extentConst && li.stepConst && li.extent >= 1.0 && li.step >= 1.0) {
      li.exact = true;
      li.lo = li.min;
      li.hi = li.min + (li.extent - 1.0) * li.step;
    }
    this.facts.loops.push(li);
    return li;
  }

  pushBounds(s: Stmt, isReduce: bool, name: string, li: LoopInfo): void {
    const b = new Array<f64>();
    loopBounds(s, isReduce, this.env, this.vb, this.doc, b);
    li.boxKnown = b[0] == 1.0;
    li.boxLo = b[1];
    li.boxHi = b[2];
    // a unit-step range whose minimum and extent are affine: its last value is min + extent - 1,
    // one form, whose range is tighter than the two ranges added where they share a variable
    // (a band [r, C - r) ends at C - 1, not at R - 1 + C - 1)
    const mf = li.minForm;
    const ef = li.extentForm;
    if (li.boxKnown && !(li.minConst && li.extentConst) && li.stepConst && li.step == 1.0 && mf !== null && ef !== null) {
      const r = new Array<f64>();
      const end = addScaled(changetype<Affine>(mf), changetype<Affine>(ef), 1.0);
      if (end !== null && this.vb.range(changetype<Affine>(end), r) && r[1] - 1.0 < li.boxHi) {
        li.boxHi = r[1] - 1.0 < li.boxLo ? li.boxLo : r[1] - 1.0;
      }
    }
    this.vb.push(name, b[0] == 1.0, b[1], b[2]);
  }

  stmts(list: Array<Stmt>): void {
    const mark = this.env.letNames.length;
    for (let i: i32 = 0; i < list.length; i++) this.stmt(list[i]);
    this.env.letNames.length = mark;
    this.env.letValues.length = mark;
  }

  stmt(s: Stmt): void {
    const savedRole = this.role;
    const r = this.inProgram ? this.roles.roleOf(s) : "";
    if (r != "") this.role = r;
    this.stmtIn(s);
    this.role = savedRole;
  }

  stmtIn(s: Stmt): void {
    if (s.kind == "for") {
      this.expr(s.min);
      this.expr(s.extent);
      this.expr(s.step);
      const isProgram = s === this.programLoop;
      const kind = isProgram ? LOOP_PROGRAM : (s.parallel ? LOOP_PARALLEL : LOOP_SERIAL);
      const li = this.loopInfo(s, s.name, kind);
      const savedDist = this.dist;
      const savedIn = this.inProgram;
      if (isProgram) this.inProgram = true;
      else if (this.inProgram && this.dist === null && s.parallel && this.role == RUN_DISTRIBUTED) {
        li.distributed = true;
        this.dist = li;
      }
      this.loops.push(li);
      this.pushBounds(s, false, s.name, li);
      this.env.symbols.push(s.name);
      this.stmts(s.body);
      this.env.symbols.length = this.env.symbols.length - 1;
      this.vb.pop();
      this.loops.length = this.loops.length - 1;
      this.dist = savedDist;
      this.inProgram = savedIn;
      return;
    }
    if (s.kind == "reduce") {
      this.expr(s.min);
      this.expr(s.extent);
      const li = this.loopInfo(s, s.axis, LOOP_AXIS);
      const savedDist = this.dist;
      if (this.inProgram && this.dist === null && this.role == RUN_DISTRIBUTED) {
        li.distributed = true;
        this.dist = li;
      }
      this.loops.push(li);
      this.pushBounds(s, true, s.axis, li);
      this.env.symbols.push(s.axis);
      this.expr(s.value);
      this.env.symbols.length = this.env.symbols.length - 1;
      this.vb.pop();
      this.loops.length = this.loops.length - 1;
      this.dist = savedDist;
      return;
    }
    if (s.kind == "let") {
      this.expr(s.value);
      this.env.letNames.push(s.name);
      this.env.letValues.push(s.value);
      return;
    }
    if (s.kind == "store") {
      this.facts.stores.push(this.site("store", s.name, s.ptr, s.at));
      const saved = this.store;
      this.store = s;
      for (let i: i32 = 0; i < s.at.length; i++) this.expr(s.at[i]);
      this.expr(s.value);
      this.store = saved;
      // the store site itself records its own statement
      this.facts.stores[this.facts.stores.length - 1].store = s;
      return;
    }
    // if
    this.expr(s.cond);
    this.guarded++;
    this.stmts(s.body);
    this.stmts(s.orelse);
    this.guarded--;
  }
}

/**
 * Walks the whole document once. `programLoop` is the reduction family's program loop or null;
 * `roles` says where each program-level statement runs (the same record the emitter reads).
 */
export function collectFacts(doc: Doc, programLoop: Stmt | null, roles: Distribution): Facts {
  const w = new Walker(doc, programLoop, roles);
  w.facts.doc = doc;
  w.facts.programLoop = programLoop;
  w.facts.roles = roles;
  w.stmts(doc.body);
  return w.facts;
}

/** a - b (null on overflow of the exact range). */
export function affineSub(a: Affine, b: Affine): Affine {
  const r = new Affine();
  r.c = a.c - b.c;
  for (let i: i32 = 0; i < a.vars.length; i++) {
    r.vars.push(a.vars[i]);
    r.coefs.push(a.coefs[i]);
  }
  for (let i: i32 = 0; i < b.vars.length; i++) {
    const j = r.vars.indexOf(b.vars[i]);
    if (j < 0) {
      r.vars.push(b.vars[i]);
      r.coefs.push(-b.coefs[i]);
    } else r.coefs[j] = r.coefs[j] - b.coefs[i];
  }
  return r;
}

/**
 * A variable's name renamed apart with `prefix` (none when `prefix` is ""): `keep`, the variable
 * both sides share, becomes "k:" + name and every other one prefix + name. Every name of the
 * renamed space then carries one two-character prefix, so no renamed name can equal another
 * variable's, whatever the document's names (a program variable named "l:c" took the range of
 * the renamed axis "l:c" before, and a worker-0 store read by a distributed reduce was admitted).
 */
function renamed(name: string, prefix: string, keep: string): string {
  if (prefix.length == 0) return name;
  return (name == keep ? "k:" : prefix) + name;
}

/** A copy of `a` with its variables renamed apart (see `renamed`). */
export function renameApart(a: Affine, prefix: string, keep: string): Affine {
  const r = new Affine();
  r.c = a.c;
  for (let i: i32 = 0; i < a.vars.length; i++) {
    r.vars.push(renamed(a.vars[i], prefix, keep));
    r.coefs.push(a.coefs[i]);
  }
  return r;
}

/** True when a and b have the same constant and the same nonzero coefficients. */
export function affineEqual(a: Affine, b: Affine): bool {
  return affineSub(a, b).isConst() && a.c == b.c;
}

/**
 * Exact [min, max] of `a` over independent variables with the given exact ranges; false when a
 * variable with a nonzero coefficient has no exact range.
 */
export function affineRange(a: Affine, names: Array<string>, los: Array<f64>, his: Array<f64>, out: Array<f64>): bool {
  let lo: f64 = a.c;
  let hi: f64 = a.c;
  for (let i: i32 = 0; i < a.vars.length; i++) {
    const k: f64 = a.coefs[i];
    if (k == 0.0) continue;
    const j = names.indexOf(a.vars[i]);
    if (j < 0) return false;
    const tl: f64 = k > 0.0 ? k * los[j] : k * his[j];
    const th: f64 = k > 0.0 ? k * his[j] : k * los[j];
    lo += tl;
    hi += th;
    if (!exactTerms(tl, th, lo, hi)) return false;
  }
  out.push(lo);
  out.push(hi);
  return true;
}

/** Adds the exact ranges of a site's loops (optionally renamed with `prefix`, except `keep`). */
export function addRanges(s: Site, prefix: string, keep: string, names: Array<string>, los: Array<f64>, his: Array<f64>): void {
  for (let i: i32 = 0; i < s.loops.length; i++) {
    const l = s.loops[i];
    if (!l.exact) continue;
    names.push(renamed(l.name, prefix, keep));
    los.push(l.lo);
    his.push(l.hi);
  }
}
