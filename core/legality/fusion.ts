// Fusion rules (element family: every output computed by one thread per element of a grid of
// 1x256 blocks over the domain). Each check is a pure function of the context; see RULES.md.

import { Affine } from "../ir/affine";
import { RuleResult } from "../plan/plan";
import { LegalityContext } from "./context";
import { LoopInfo, Site, affineRange, loopLevel } from "./facts";
import { Verdict, num, quoted } from "./verdict";
import { gcdF64 } from "../util/num";
import { Expr } from "../ir/ast";

/** The first load in `e` (depth first), or null. */
function firstLoad(e: Expr): Expr | null {
  if (e.op == "load") return e;
  for (let i: i32 = 0; i < e.args.length; i++) {
    const f = firstLoad(e.args[i]);
    if (f !== null) return f;
  }
  return null;
}

/** Why store index `d` (expression `e`) is not proven injective: not affine in the domain
 *  variables, or (named, since a user writes it on purpose) read from a buffer at run time. */
function notAffineIndex(e: Expr, d: i32, buffer: string): string {
  const at = "Index " + d.toString() + " of the store to " + quoted(buffer);
  const load = firstLoad(e);
  if (load !== null) {
    return at + " reads " + quoted(changetype<Expr>(load).name) + " at run time, so the store cannot be shown injective (a value known when the kernel is planned, such as a position, can be a size instead).";
  }
  return at + " is not affine in the domain variables, so the store cannot be shown injective.";
}

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
      v.unknown(notAffineIndex(s.index[d], d, s.buffer), ip);
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

/** The image of one store of a partitioned output (several stores to one buffer): per dimension
 *  the interval [lo, hi] of its index over the domain, and the domain's element count. */
class StoreImage {
  lo: Array<f64> = new Array<f64>();
  hi: Array<f64> = new Array<f64>();
  /** Per dimension the distance between neighbouring elements of the image: |k| of its index
   *  k*v + c (0 for a constant index). */
  step: Array<f64> = new Array<f64>();
  count: f64 = 1.0;
}

/** Whether two images of one dimension never meet: their intervals do not overlap, or the
 *  elements of each are lo + step*t and the steps' common divisor does not divide the distance
 *  between their starts (the interleaved halves 2i and 2i + 1 of a rotary embedding). */
function apartIn(a: StoreImage, b: StoreImage, d: i32): bool {
  if (a.hi[d] < b.lo[d] || b.hi[d] < a.lo[d]) return true;
  const g = gcdF64(a.step[d], b.step[d]);
  return g > 1.0 && Math.abs(a.lo[d] - b.lo[d]) % g != 0.0;
}

/** The image of store `s` when its index map is injective (each dimension one domain variable
 *  with a nonzero integer coefficient plus an offset, or a constant; no variable in two
 *  dimensions; every domain variable of more than one iteration used) and inside the buffer; else
 *  null, with the reason recorded on `v`. */
function injectiveImage(ctx: LegalityContext, s: Site, v: Verdict): StoreImage | null {
  const pi = ctx.doc.paramIndex(s.buffer);
  if (pi < 0) {
    v.fail("The store writes " + quoted(s.buffer) + ", which is not a parameter.", s.ptr);
    return null;
  }
  const names = new Array<string>();
  const los = new Array<f64>();
  const his = new Array<f64>();
  const img = new StoreImage();
  for (let k: i32 = 0; k < s.loops.length; k++) {
    const l = s.loops[k];
    if (!l.exact || l.step != 1.0) {
      v.unknown("The loop " + quoted(l.name) + " around the store to " + quoted(s.buffer) + " has no constant range with step 1, so the store's image cannot be computed.", l.stmt.ptr);
      return null;
    }
    names.push(l.name);
    los.push(l.lo);
    his.push(l.hi);
    img.count = img.count * l.extent;
  }
  let imageCount: f64 = 1.0;
  const used = new Array<string>();
  for (let d: i32 = 0; d < s.forms.length; d++) {
    const fd = s.forms[d];
    const ip = s.index[d].ptr;
    if (fd === null) {
      v.unknown(notAffineIndex(s.index[d], d, s.buffer), ip);
      return null;
    }
    const a = changetype<Affine>(fd);
    const sup = a.support();
    const k: f64 = sup.length == 1 ? Math.abs(a.coef(sup[0])) : 0.0;
    if (sup.length > 1 || (sup.length == 1 && (k < 1.0 || k != Math.floor(k))) || (sup.length == 1 && used.indexOf(sup[0]) >= 0)) {
      v.unknown("Index " + d.toString() + " of the store to " + quoted(s.buffer) + " is not a domain variable of its own with a nonzero integer coefficient plus an offset, so the store is not proven injective.", ip);
      return null;
    }
    if (sup.length == 1) used.push(sup[0]);
    const r = new Array<f64>();
    if (!affineRange(a, names, los, his, r)) {
      v.unknown("Index " + d.toString() + " of the store to " + quoted(s.buffer) + " uses a variable without a constant range.", ip);
      return null;
    }
    const extent: f64 = <f64>ctx.doc.dim(pi, d);
    if (r[0] < 0.0 || r[1] > extent - 1.0) {
      v.fail("Index " + d.toString() + " of the store to " + quoted(s.buffer) + " covers [" + num(r[0]) + ", " + num(r[1]) + "], outside the dimension [0, " + num(extent - 1.0) + "].", ip);
      return null;
    }
    img.lo.push(r[0]);
    img.hi.push(r[1]);
    img.step.push(k);
    imageCount = imageCount * (k > 0.0 ? (r[1] - r[0]) / k + 1.0 : 1.0);
  }
  if (imageCount != img.count) {
    v.fail("The store to " + quoted(s.buffer) + " does not use every domain variable of more than one iteration in its index, so two iterations write one element.", s.ptr);
    return null;
  }
  return img;
}

/** Several unconditional stores to one buffer: each injective, the images pairwise disjoint (some
 *  dimension where their intervals do not meet) and, where `cover`, together exactly the buffer's
 *  elements. */
function checkPartition(ctx: LegalityContext, stores: Array<Site>, v: Verdict, cover: bool = true): void {
  const images = new Array<StoreImage>();
  let total: f64 = 0.0;
  for (let i: i32 = 0; i < stores.length; i++) {
    const s = stores[i];
    if (s.guarded) {
      v.fail("The store to " + quoted(s.buffer) + " is under an if, so some elements of the output may never be written.", s.ptr);
      return;
    }
    const img = injectiveImage(ctx, s, v);
    if (img === null) return;
    const im = changetype<StoreImage>(img);
    for (let j: i32 = 0; j < images.length; j++) {
      const o = images[j];
      let apart = false;
      for (let d: i32 = 0; d < im.lo.length && !apart; d++) apart = apartIn(im, o, d);
      // two injective stores onto the same elements both write every one of them
      let same: bool = im.lo.length == o.lo.length;
      for (let d: i32 = 0; same && d < im.lo.length; d++) same = im.lo[d] == o.lo[d] && im.hi[d] == o.hi[d] && (im.step[d] == o.step[d] || im.lo[d] == im.hi[d]);
      if (same) {
        v.fail("The stores to " + quoted(s.buffer) + " at " + stores[j].ptr + " and " + s.ptr + " write the same elements, so each is written twice (WAW).", s.ptr);
        return;
      }
      if (!apart) {
        v.unknown("The stores to " + quoted(s.buffer) + " at " + stores[j].ptr + " and " + s.ptr + " have index ranges that meet in every dimension (and no dimension interleaves them, as 2i and 2i + 1 do), so they are not shown to write different elements.", s.ptr);
        return;
      }
    }
    images.push(im);
    total += im.count;
  }
  if (!cover) return;
  const pi = ctx.doc.paramIndex(stores[0].buffer);
  let elems: f64 = 1.0;
  for (let d: i32 = 0; d < stores[0].forms.length; d++) elems = elems * <f64>ctx.doc.dim(pi, d);
  if (total != elems) {
    v.fail("The " + stores.length.toString() + " stores to " + quoted(stores[0].buffer) + " write " + num(total) + " distinct elements but the buffer has " + num(elems) + ", so part of the buffer is never written.", stores[0].ptr);
  }
}

/** Whether the stores of one buffer write pairwise different elements of it (checkPartition,
 *  without its coverage check: whether they write the whole buffer is injective-compact-store's). */
function partitioned(ctx: LegalityContext, stores: Array<Site>): bool {
  const v = new Verdict("injective-compact-store");
  checkPartition(ctx, stores, v, false);
  return v.result("").verdict == "holds";
}

export function checkInjectiveCompactStore(ctx: LegalityContext): RuleResult {
  if (ctx.structure.family != "element") return notElement(ctx, "injective-compact-store");
  const v = new Verdict("injective-compact-store");
  const f = ctx.facts();
  const outs = ctx.structure.outputs;
  let shared: i32 = 0;
  for (let b: i32 = 0; b < outs.length; b++) {
    const stores = f.storesTo(outs[b]);
    if (stores.length == 0) continue;
    if (stores.length > 1) {
      // a partitioned output (the two halves of a rotary embedding): one thread writes one
      // element of each store's image, and the images are disjoint
      checkPartition(ctx, stores, v);
      shared++;
      continue;
    }
    const s = stores[0];
    if (s.guarded) {
      v.fail("The store to " + quoted(s.buffer) + " is under an if, so some elements of the output may never be written.", s.ptr);
    }
    checkCompact(ctx, s, v);
  }
  if (shared > 0) {
    return v.result("Each output has one unconditional store whose index maps every domain variable (coefficient +1 or -1) onto a distinct buffer dimension exactly, a bijection, or (" + shared.toString() +
      (shared == 1 ? " output" : " outputs") + ") several unconditional stores, each injective, whose images are disjoint in some dimension (apart as ranges, or interleaved: 2i and 2i + 1) and together are the whole buffer: every element written once by one thread.");
  }
  return v.result("Each output has exactly one unconditional store whose index maps every domain variable (coefficient +1 or -1) onto a distinct buffer dimension exactly, and the domain has as many elements as the buffer: a bijection.");
}

// ---------------------------------------------------------------------------------------------
// no-read-of-written

/** Whether the index form `a` of an access inside `loopsA` and `b` inside `loopsB` name the same
 *  element for the same thread of the fused grid: the grid gives each thread one value per domain
 *  level, so the variables are compared by their loop's level, not by name (sibling nests may
 *  name their loops differently, or the same names at other levels). */
function sameFormByLevel(a: Affine | null, loopsA: Array<LoopInfo>, b: Affine | null, loopsB: Array<LoopInfo>): bool {
  if (a === null || b === null || loopsA.length != loopsB.length) return false;
  const x = changetype<Affine>(a);
  const y = changetype<Affine>(b);
  if (x.c != y.c) return false;
  const sx = x.support();
  const sy = y.support();
  if (sx.length != sy.length) return false;
  for (let i: i32 = 0; i < sx.length; i++) {
    const k = loopLevel(loopsA, sx[i]);
    if (k < 0) return false;
    const other = loopsB[k];
    if (loopLevel(loopsB, other.name) != k) return false;
    if (y.coef(other.name) != x.coef(sx[i])) return false;
    // the two loops of that level have the same range (the thread's value means the same there)
    if (!loopsA[k].exact || !other.exact || loopsA[k].lo != other.lo || loopsA[k].hi != other.hi) return false;
  }
  return true;
}

/** Whether load `l` runs before store `s` in program order: it is part of the store (its value
 *  or index, read before the element is written), or the walk reached it first (an earlier
 *  statement, a let or a condition before the store). */
function loadBeforeStore(l: Site, s: Site): bool {
  return (l.store !== null && l.store === s.store) || l.seq < s.seq;
}

export function checkNoReadOfWritten(ctx: LegalityContext): RuleResult {
  const v = new Verdict("no-read-of-written");
  const f = ctx.facts();
  let inPlace: i32 = 0;
  let own: i32 = 0;
  for (let i: i32 = 0; i < f.loads.length; i++) {
    const l = f.loads[i];
    const stores = f.storesTo(l.buffer);
    if (stores.length == 0) continue;
    // the buffer's one store writes exactly the element this load reads (the same affine index in
    // every dimension, compared by grid level), so the load reads an element only the same thread
    // writes: an update in place where the load runs first in the same iteration, else a read of
    // the thread's own write, after it in program order. Neither reads or overwrites another
    // thread's element. The vector form keeps that order (core/analysis/vectors.ts): a buffer
    // loaded after its store is read and written element by element in the vector's loop, in
    // program order; only a buffer every load of which precedes its store is packed.
    if (stores.length == 1) {
      const s = stores[0];
      let same: bool = l.forms.length == s.forms.length && l.forms.length > 0;
      for (let d: i32 = 0; same && d < l.forms.length; d++) same = sameFormByLevel(l.forms[d], l.loops, s.forms[d], s.loops);
      if (same) {
        if (loadBeforeStore(l, s)) inPlace++;
        else own++;
        continue;
      }
    }
    v.fail("This reads " + quoted(l.buffer) + ", which the kernel writes (at " + stores[0].ptr + "), at an element the store may not write in the same iteration; in one fused grid the read may see another element's write or miss it (RAW / WAR).", l.ptr);
  }
  if (inPlace + own == 0) return v.result("No buffer that the kernel writes is read anywhere in it.");
  let why: string = "Every load of a buffer the kernel writes (" + (inPlace + own).toString() + ") reads the element that buffer's one store writes in the same iteration";
  if (own == 0) why += ", before the store: each thread updates only its own elements.";
  else if (inPlace == 0) why += ", after the store: each thread reads back only what it wrote itself.";
  else why += " (" + inPlace.toString() + " before the store, " + own.toString() + " after it): each thread reads only its own elements.";
  return v.result(why);
}

// ---------------------------------------------------------------------------------------------
// single-writer

export function checkSingleWriter(ctx: LegalityContext): RuleResult {
  const v = new Verdict("single-writer");
  const f = ctx.facts();
  let shared: i32 = 0;
  const seen = new Array<string>();
  for (let i: i32 = 0; i < f.stores.length; i++) {
    const buffer = f.stores[i].buffer;
    if (seen.indexOf(buffer) >= 0) continue;
    seen.push(buffer);
    const all = f.storesTo(buffer);
    if (all.length < 2) continue;
    // several stores of one buffer: fused only where they write different elements
    if (ctx.structure.family == "element" && partitioned(ctx, all)) {
      shared++;
      continue;
    }
    for (let k: i32 = 1; k < all.length; k++) {
      // (stores in the branches of an if may each run for other elements, but the grid proves
      // nothing about conditions: say how to write it so that it fuses)
      const guarded = all[0].guarded || all[k].guarded ? " A store under an `if` is not told apart from the other by its condition; one unconditional store whose value is a `select` is fused." : "";
      v.fail("A second store writes " + quoted(buffer) + " (first at " + all[0].ptr + ") and the two are not shown to write different elements; two writers of one element (WAW) are not fused." + guarded, all[k].ptr);
    }
  }
  return v.result(shared > 0
    ? "Every written buffer has one store statement, or several whose index ranges are disjoint (each element has one writer)."
    : "Every written buffer has exactly one store statement.");
}
