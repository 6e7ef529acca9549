// Fusion rules (element family: every output computed by one thread per element of a grid of
// 1x256 blocks over the domain). Each check is a pure function of the context; see RULES.md.

import { Affine } from "../ir/affine";
import { RuleResult } from "../plan/plan";
import { LegalityContext } from "./context";
import { LoopInfo, Site, affineRange } from "./facts";
import { Verdict, num, quoted } from "./verdict";

function notElement(ctx: LegalityContext, id: string): RuleResult {
  const v = new Verdict(id);
  v.unknown("The document is not in the element family (" + (ctx.structure.why.length > 0 ? ctx.structure.why : "family " + ctx.structure.family) + "), so there is no element grid to fuse into.", "/body");
  return v.result("");
}

// ---------------------------------------------------------------------------------------------
// same-domain

export function checkSameDomain(ctx: LegalityContext): RuleResult {
  if (ctx.structure.family != "element") return notElement(ctx, "same-domain");
  const v = new Verdict("same-domain");
  const f = ctx.facts();
  const dom = new Array<LoopInfo>();
  for (let i: i32 = 0; i < ctx.structure.domainLoops.length; i++) {
    const lr = f.loopFor(ctx.structure.domainLoops[i]);
    if (lr !== null) dom.push(changetype<LoopInfo>(lr));
  }
  for (let i: i32 = 0; i < f.stores.length; i++) {
    const s = f.stores[i];
    if (s.loops.length != dom.length) {
      v.fail("The store to " + quoted(s.buffer) + " sits in " + s.loops.length.toString() + " nested parallel loops, but the domain has " + dom.length.toString() + ", so it is not stored over the same iteration domain.", s.ptr);
      continue;
    }
    for (let k: i32 = 0; k < dom.length; k++) {
      const a = s.loops[k];
      const b = dom[k];
      if (a === b) continue;
      if (!a.isParallel()) {
        v.fail("The store to " + quoted(s.buffer) + " is inside the serial loop " + quoted(a.name) + ".", a.stmt.ptr);
      } else if (!a.minConst || !a.extentConst || !b.minConst || !b.extentConst) {
        v.unknown("The loop " + quoted(a.name) + " around the store to " + quoted(s.buffer) + " and the domain loop " + quoted(b.name) + " do not both have a constant [min, extent], so they cannot be shown to be the same range.", a.stmt.ptr);
      } else if (a.min != b.min || a.extent != b.extent) {
        v.fail("The loop " + quoted(a.name) + " around the store to " + quoted(s.buffer) + " ranges over [" + num(a.min) + ", +" + num(a.extent) + "), but the domain loop " + quoted(b.name) + " at level " + k.toString() + " ranges over [" + num(b.min) + ", +" + num(b.extent) + ").", a.stmt.ptr);
      }
    }
  }
  return v.result("Every store is enclosed by " + dom.length.toString() + " parallel loops with the same constant [min, extent] per level as the domain, so all outputs share one iteration domain.");
}

// ---------------------------------------------------------------------------------------------
// injective-compact-store

/** Checks one store's index map; records violations on `v`. */
function checkCompact(ctx: LegalityContext, s: Site, v: Verdict): void {
  const pi = ctx.doc.paramIndex(s.buffer);
  if (pi < 0) {
    v.fail("The store writes " + quoted(s.buffer) + ", which is not a parameter.", s.ptr);
    return;
  }
  const names = new Array<string>();
  const los = new Array<f64>();
  const his = new Array<f64>();
  let domain: f64 = 1.0;
  for (let k: i32 = 0; k < s.loops.length; k++) {
    const l = s.loops[k];
    if (!l.exact || l.step != 1.0) {
      const empty: bool = l.minConst && l.extentConst && l.extent < 1.0;
      v.unknown("The loop " + quoted(l.name) + " around the store to " + quoted(s.buffer) + (empty ? " runs no iteration (extent " + num(l.extent) + ")" : " has no constant range") + ", so the store's image cannot be computed.", l.stmt.ptr);
      return;
    }
    names.push(l.name);
    los.push(l.lo);
    his.push(l.hi);
    domain = domain * l.extent;
  }
  let elems: f64 = 1.0;
  for (let d: i32 = 0; d < s.forms.length; d++) elems = elems * <f64>ctx.doc.dim(pi, d);
  const used = new Array<string>();
  let ok = true;
  for (let d: i32 = 0; d < s.forms.length; d++) {
    const fd = s.forms[d];
    const ip = s.index[d].ptr;
    if (fd === null) {
      v.unknown("Index " + d.toString() + " of the store to " + quoted(s.buffer) + " is not affine in the domain variables, so the store cannot be shown injective.", ip);
      ok = false;
      continue;
    }
    const a = changetype<Affine>(fd);
    const sup = a.support();
    const extent: f64 = <f64>ctx.doc.dim(pi, d);
    if (sup.length > 1 || (sup.length == 1 && Math.abs(a.coef(sup[0])) != 1.0)) {
      v.unknown("Index " + d.toString() + " of the store to " + quoted(s.buffer) + " is not one domain variable with coefficient +1 or -1 plus an offset, so it is not proven injective and compact.", ip);
      ok = false;
      continue;
    }
    if (sup.length == 1) {
      if (used.indexOf(sup[0]) >= 0) {
        v.unknown("Index " + d.toString() + " of the store to " + quoted(s.buffer) + " reuses the domain variable " + quoted(sup[0]) + " of another dimension.", ip);
        ok = false;
        continue;
      }
      used.push(sup[0]);
    }
    const r = new Array<f64>();
    if (!affineRange(a, names, los, his, r)) {
      v.unknown("Index " + d.toString() + " of the store to " + quoted(s.buffer) + " uses a variable without a constant range.", ip);
      ok = false;
      continue;
    }
    if (r[0] != 0.0 || r[1] != extent - 1.0) {
      v.fail("Index " + d.toString() + " of the store to " + quoted(s.buffer) + " covers [" + num(r[0]) + ", " + num(r[1]) + "] but the dimension is [0, " + num(extent - 1.0) + "], so the store does not cover the buffer exactly.", ip);
      ok = false;
    }
  }
  if (domain != elems) {
    v.fail("The domain of the store to " + quoted(s.buffer) + " has " + num(domain) + " elements but the buffer has " + num(elems) + (domain > elems ? ", so two iterations write one element." : ", so part of the buffer is never written."), s.ptr);
  }
}

export function checkInjectiveCompactStore(ctx: LegalityContext): RuleResult {
  if (ctx.structure.family != "element") return notElement(ctx, "injective-compact-store");
  const v = new Verdict("injective-compact-store");
  const f = ctx.facts();
  const outs = ctx.structure.outputs;
  for (let b: i32 = 0; b < outs.length; b++) {
    const stores = f.storesTo(outs[b]);
    for (let i: i32 = 1; i < stores.length; i++) {
      v.fail("The buffer " + quoted(outs[b]) + " has " + stores.length.toString() + " stores; fusion needs exactly one per output (first at " + stores[0].ptr + ").", stores[i].ptr);
    }
    if (stores.length == 0) continue;
    const s = stores[0];
    if (s.guarded) {
      v.fail("The store to " + quoted(s.buffer) + " is under an if, so some elements of the output may never be written.", s.ptr);
    }
    checkCompact(ctx, s, v);
  }
  return v.result("Each output has exactly one unconditional store whose index maps every domain variable (coefficient +1 or -1) onto a distinct buffer dimension exactly, and the domain has as many elements as the buffer: a bijection.");
}

// ---------------------------------------------------------------------------------------------
// no-read-of-written

/** Whether two affine index forms are the same function of the loop variables. */
function sameForm(a: Affine | null, b: Affine | null): bool {
  if (a === null || b === null) return false;
  const x = changetype<Affine>(a);
  const y = changetype<Affine>(b);
  if (x.c != y.c) return false;
  const sx = x.support();
  const sy = y.support();
  if (sx.length != sy.length) return false;
  for (let i: i32 = 0; i < sx.length; i++) if (x.coef(sx[i]) != y.coef(sx[i])) return false;
  return true;
}

/** The segments of a JSON pointer ("/body/0/value" -> ["body", "0", "value"]). */
function segments(ptr: string): Array<string> {
  const parts = ptr.split("/");
  const out = new Array<string>();
  for (let i: i32 = 1; i < parts.length; i++) out.push(parts[i]);
  return out;
}

function isIndexSegment(s: string): bool {
  if (s.length == 0) return false;
  for (let i: i32 = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Whether the load at `load` runs before the store statement at `store` in program order: it is
 *  part of the store (its value or index, read before the element is written), or it sits in an
 *  earlier statement of a statement list that holds both. Anything else (a later statement,
 *  another branch of an if) is not shown to run before it. */
function loadBeforeStore(load: string, store: string): bool {
  if (load.startsWith(store + "/")) return true;
  const a = segments(load);
  const b = segments(store);
  let i: i32 = 0;
  while (i < a.length && i < b.length && a[i] == b[i]) i++;
  if (i == 0 || i >= a.length || i >= b.length) return false;
  const list = a[i - 1];
  if (list != "body" && list != "else") return false;
  if (!isIndexSegment(a[i]) || !isIndexSegment(b[i])) return false;
  return a[i].length < b[i].length || (a[i].length == b[i].length && a[i] < b[i]);
}

export function checkNoReadOfWritten(ctx: LegalityContext): RuleResult {
  const v = new Verdict("no-read-of-written");
  const f = ctx.facts();
  let inPlace: i32 = 0;
  for (let i: i32 = 0; i < f.loads.length; i++) {
    const l = f.loads[i];
    const stores = f.storesTo(l.buffer);
    if (stores.length == 0) continue;
    // an update in place: the buffer's one store writes exactly the element this load reads (the
    // same affine index in every dimension), and the load runs first in the same iteration, so
    // each thread reads only the element it writes itself, before writing it
    if (stores.length == 1) {
      const s = stores[0];
      let same: bool = l.forms.length == s.forms.length && l.forms.length > 0;
      for (let d: i32 = 0; same && d < l.forms.length; d++) same = sameForm(l.forms[d], s.forms[d]);
      if (same && loadBeforeStore(l.ptr, s.ptr)) {
        inPlace++;
        continue;
      }
      if (same) {
        v.fail("This reads " + quoted(l.buffer) + " at the element its store (at " + s.ptr + ") writes, but not before the store in program order; the fused grid's vector form reads before it writes, so a read after the write is not fused.", l.ptr);
        continue;
      }
    }
    v.fail("This reads " + quoted(l.buffer) + ", which the kernel writes (at " + stores[0].ptr + "), at an element the store may not write in the same iteration; in one fused grid the read may see another element's write or miss it (RAW / WAR).", l.ptr);
  }
  return v.result(inPlace > 0
    ? "Every load of a buffer the kernel writes (" + inPlace.toString() + ") reads the element that buffer's one store writes in the same iteration, before the store: each thread updates only its own elements."
    : "No buffer that the kernel writes is read anywhere in it.");
}

// ---------------------------------------------------------------------------------------------
// single-writer

export function checkSingleWriter(ctx: LegalityContext): RuleResult {
  const v = new Verdict("single-writer");
  const f = ctx.facts();
  for (let i: i32 = 0; i < f.stores.length; i++) {
    const s = f.stores[i];
    for (let j: i32 = 0; j < i; j++) {
      if (f.stores[j].buffer == s.buffer) {
        v.fail("A second store writes " + quoted(s.buffer) + " (first at " + f.stores[j].ptr + "); two writers of one buffer (WAW) are not fused.", s.ptr);
        break;
      }
    }
  }
  return v.result("Every written buffer has exactly one store statement.");
}
