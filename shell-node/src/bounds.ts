// An estimate of the rounding error of f32 arithmetic, element by element (validate-run.ts).
//
// The FP64 oracle says what a document computes; a kernel computes it in f32, in an order of
// combination of its own. Where a result cancels after a reduction (softmax backward: `d = sum(Y
// * dY)`, then `Y * (dY - d)`), the reduction's rounding error, small beside its terms, is large
// beside the result, and a correct kernel can miss the tolerance where the left-to-right f32 sum
// happens to meet it. This evaluator runs the document in FP64 as the oracle does and carries,
// with every f32 value v, how far an f32 computation of it can be from v:
//
//   - each operation's rounding is at most half an ulp of its result, |e| <= u * |v| (u = 2^-24;
//     exp, log, sqrt, rsqrt, tanh and erf: FN_ULPS ulps), and is modelled as a random error of
//     variance (u * |v|)^2 / 3 (uniform on that interval), independent of the other roundings;
//   - an operand's error reaches the result through the operation's derivative (first order; a
//     division or a function near a pole, and a comparison or a cast to i32 whose outcome the
//     errors can change, make the estimate infinite: no estimate; a select on such a
//     comparison spans both operands instead: f32 may choose either);
//   - a sum over n terms adds the terms' errors and the roundings of its partial sums in the
//     kernel's order: worker stripes summed in sequence, then a pairwise tree over the workers
//     (the cooperative realization, `order`), or left to right (the serial program, and a
//     reduction inside an element); a max or min keeps the largest error of its terms;
//   - a reduction's result is then one value shared by the expressions that use it: its error
//     becomes a systematic one, LAMBDA standard deviations of its random part plus its
//     systematic part, carried linearly from there on (and so is a value stored and read back).
//
// Wherever LAMBDA standard deviations exceed the worst case of the same roundings (each at most
// half an ulp, added linearly: one rounding, or a few), the worst case counts instead.
// An element's estimate is its systematic error plus that part of its random error; an infinite
// estimate is none (validate-run.ts excuses nothing with it): a kernel outside the tolerance but
// within tolerance + estimate of the FP64 reference is
// as close as f32 arithmetic in its order of combination gets (validate-run.ts, illConditioned,
// counted as withinRoundingBound).
// An intermediate past the f32 range (x * x at x = 1e20) makes the estimate NaN from there on:
// the f32 result is not the document's value at these inputs (validate-run.ts excuses nothing
// there, by the estimate or by plain f32, and says so).
// The model assumes independent roundings, which holds for the generated inputs; inputs built
// to make roundings correlate (a row of equal values) can exceed it, and then the verdict stands.

import { erf64 } from "./erf64";
import { roundBf16, roundF16 } from "./f16";
import { Compiler, DType, Expr, Scope, Stmt, checkedSizes, fail, setUp, varRange } from "./oracle";

/** Half an ulp of 1 in binary32: the largest relative rounding error of one operation. */
export const U = 2 ** -24;
/** Standard deviations of the random part counted into a bound. */
export const LAMBDA = 6;
/** The smallest magnitude that rounds to infinity in binary32 (FLT_MAX + half its ulp). */
export const F32_OVERFLOW = 3.4028235677973366e38;
/** Error of exp, log, sqrt, rsqrt, tanh and erf in ulps (Metal's precise functions are within 4). */
const FN_ULPS = 4;

/** How the kernel combines a reduction that its programs distribute over workers. */
export interface ReductionOrder {
  /** Workers per program: element k of the reduced axis goes to worker floor(k / vector) mod workers. */
  workers: number;
  /** Consecutive elements per worker in each step of its stripe. */
  vector: number;
}

export interface BoundResult {
  /** Per param, per element: the estimate of |f32 value - FP64 value| (Infinity where none). */
  bounds: Map<string, Float64Array>;
}

/** Variance of one rounding of a value v: uniform on [-u|v|, u|v|]. */
function rounding(v: number): number {
  const e = U * v;
  return (e * e) / 3;
}

function fnRounding(v: number): number {
  const e = FN_ULPS * 2 * U * v;
  return (e * e) / 3;
}

/** The reduce statements a cooperative program distributes over its workers: those in the body
 *  of the leading parallel loops (each enclosing loop parallel, with nothing but lets beside the
 *  loop it encloses), and top-level ones. Any other reduction runs inside one worker, in order. */
function programLevel(list: unknown, out: Set<unknown>): void {
  if (!Array.isArray(list)) return;
  for (const s of list) {
    if (typeof s !== "object" || s === null) continue;
    if ("reduce" in s) out.add(s);
    if ("for" in s && s.kind === "parallel" && list.every((t) => t === s || (typeof t === "object" && t !== null && "let" in t))) programLevel(s.body, out);
  }
}

class BoundCompiler extends Compiler {
  /** The error of the value the closure just evaluated: systematic (absolute) and random (variance). */
  es = 0;
  eq = 0;
  /** The same fresh roundings' worst case (each at most half an ulp, added linearly): the random
   *  part counts min(LAMBDA standard deviations, this). */
  ew = 0;
  readonly slotS: number[] = [];
  readonly slotQ: number[] = [];
  readonly slotW: number[] = [];
  readonly errs = new Map<string, Float64Array>();
  /** Inside an `if` whose outcome the errors can change: stores there get no estimate. */
  private poison = 0;
  private readonly cache = new Map<unknown, Expr>();
  private readonly distributed = new Set<unknown>();
  private scratch = new Float64Array(0);

  constructor(sizes: Map<string, number>, private readonly order: ReductionOrder | null, body: unknown) {
    super(sizes, false);
    if (order) programLevel(body, this.distributed);
  }

  override newSlot(): number {
    this.slotS.push(0);
    this.slotQ.push(0);
    this.slotW.push(0);
    return super.newSlot();
  }

  /** The systematic bound of the value just evaluated, its random part counted in. */
  private settled(): number {
    return this.es + Math.min(LAMBDA * Math.sqrt(this.eq), this.ew);
  }

  override reduceStmt(s: Record<string, any>, scope: Scope, path: string): Stmt {
    // the value's type decides; compile it once through the cache (the base compiles it too)
    const base = super.reduceStmt(s, scope, path);
    const binding = scope.get(s.reduce)!;
    const value = this.cache.get(s.value)!;
    if (binding.type !== "f32") {
      // an i32 reduction is exact, unless its values come from f32 through a cast or a comparison
      const slot = binding.slot, slotS = this.slotS, slotQ = this.slotQ, slotW = this.slotW;
      const unsure = value.cast === true || value.decided === true;
      return () => { base(); slotS[slot] = unsure ? Infinity : 0; slotQ[slot] = 0; slotW[slot] = 0; };
    }
    const over = s.over;
    const min = this.intExpr(over[1], scope, path + "/over/1");
    const extent = this.intExpr(over[2], scope, path + "/over/2");
    const axis = this.axisSlot(s);
    const f = value.fn, slots = this.slots, slotS = this.slotS, slotQ = this.slotQ, slotW = this.slotW, out = binding.slot;
    const combiner = s.combiner;
    const stripes = this.distributed.has(s) ? this.order : null;
    return () => {
      const lo = min(), n = extent();
      varRange(lo, n, 1, path + "/over/0");
      if (combiner !== "sum") {
        const isMax = combiner === "max";
        let acc = isMax ? -Infinity : Infinity, err = 0;
        for (let k = 0; k < n; k++) {
          slots[axis] = lo + k;
          const v = f();
          acc = isMax ? Math.max(acc, v) : Math.min(acc, v);
          err = Math.max(err, this.settled());
        }
        slots[out] = acc;
        slotS[out] = err;
        slotQ[out] = 0;
        slotW[out] = 0;
        return;
      }
      let acc = 0, sys = 0, q = 0, w = 0, energy = 0, lin = 0, past = false;
      {
        // left to right is one stripe (a serial program, a reduction inside an element)
        const vector = stripes === null ? 1 : stripes.vector;
        const workers = stripes === null ? 1 : Math.max(1, Math.min(stripes.workers, Math.ceil(n / vector)));
        if (this.scratch.length < workers) this.scratch = new Float64Array(workers);
        const part = this.scratch;
        part.fill(0, 0, workers);
        const seen = new Uint8Array(workers);
        for (let k = 0; k < n; k++) {
          slots[axis] = lo + k;
          const v = f();
          sys += this.es;
          q += this.eq;
          w += this.ew;
          acc += v;
          const j = Math.floor(k / vector) % workers;
          part[j] += v;
          if (seen[j]) { energy += part[j] * part[j]; lin += Math.abs(part[j]); }
          if (Math.abs(part[j]) >= F32_OVERFLOW) past = true;
          seen[j] = 1;
        }
        // the pairwise tree over the workers' partials (SIMD groups, then their partials)
        for (let stride = 1; stride < workers; stride *= 2) {
          for (let i = 0; i + stride < workers; i += 2 * stride) {
            part[i] += part[i + stride];
            energy += part[i] * part[i];
            if (Math.abs(part[i]) >= F32_OVERFLOW) past = true;
            lin += Math.abs(part[i]);
          }
        }
      }
      slots[out] = acc;
      // the fresh roundings: LAMBDA standard deviations, at most their worst case
      slotS[out] = past ? NaN : sys + Math.min(LAMBDA * Math.sqrt(q + (U * U * energy) / 3), w + U * lin);
      slotQ[out] = 0;
      slotW[out] = 0;
    };
  }

  /** The slot of a reduction's axis variable (bound by the base reduceStmt in a scope of its own,
   *  recorded by bind below). */
  private axisSlot(s: Record<string, any>): number {
    const slot = this.axes.get(s);
    if (slot === undefined) fail("", "internal: no axis slot for a reduction");
    return slot;
  }

  /** Axis slots by reduce statement, recorded by bind (below). */
  private readonly axes = new Map<unknown, number>();
  private pendingReduce: unknown = null;

  override bind(scope: Scope, name: unknown, type: DType, path: string, scalar: boolean): number {
    const slot = super.bind(scope, name, type, path, scalar);
    if (this.pendingReduce !== null && !scalar) {
      this.axes.set(this.pendingReduce, slot);
      this.pendingReduce = null;
    }
    return slot;
  }

  override statement(s: unknown, scope: Scope, path: string): Stmt {
    if (typeof s === "object" && s !== null && "reduce" in s) this.pendingReduce = s;
    return super.statement(s, scope, path);
  }

  override letStmt(s: Record<string, any>, scope: Scope, path: string): Stmt {
    const base = super.letStmt(s, scope, path);
    const slot = scope.get(s.let)!.slot;
    const slotS = this.slotS, slotQ = this.slotQ, slotW = this.slotW;
    return () => { base(); slotS[slot] = this.es; slotQ[slot] = this.eq; slotW[slot] = this.ew; };
  }

  override storeStmt(s: Record<string, any>, scope: Scope, path: string): Stmt {
    // the base compiles the store (its checks, the oracle's flags); this one runs instead
    super.storeStmt(s, scope, path);
    const buf = this.buffer(s.store, path + "/store");
    const f = this.expr(s.value, scope, path + "/value").fn;
    const ix = this.indices(buf, s.at, scope, path + "/at");
    const tainted = { on: false };
    const fns = ix.fns.map((g) => () => { const v = g(); if (this.es > 0) tainted.on = true; return v; });
    const offset = this.offset(buf, { fns, dependent: ix.dependent }, path + "/at", "store");
    const data = buf.data, written = buf.written, err = this.errorsOf(buf.name);
    const round = buf.storage === "f16" ? roundF16 : buf.storage === "bf16" ? roundBf16 : null;
    // a 16-bit store rounds the kernel's f32 value: one unit in the last place apart at most
    const narrow = buf.storage === "f16" ? 2 ** -10 : buf.storage === "bf16" ? 2 ** -7 : 0;
    return () => {
      const v = f();
      const e = this.poison > 0 ? Infinity : this.settled() + narrow * Math.abs(v);
      tainted.on = false;
      const o = offset();
      data[o] = round === null ? v : round(Math.fround(v));
      written[o] = 1;
      err[o] = tainted.on ? Infinity : e;
    };
  }

  override ifStmt(s: Record<string, any>, scope: Scope, path: string): Stmt {
    const cond = this.expr(s.if, scope, path + "/if");
    const then = this.block(s.then, scope, path + "/then");
    const otherwise = s.else === undefined ? null : this.block(s.else, scope, path + "/else");
    const c = cond.fn;
    return () => {
      const taken = c() !== 0;
      const unsure = this.es > 0 ? 1 : 0;
      this.poison += unsure;
      if (taken) then();
      else if (otherwise) otherwise();
      this.poison -= unsure;
    };
  }

  errorsOf(name: string): Float64Array {
    let e = this.errs.get(name);
    if (e === undefined) {
      e = new Float64Array(this.buffer(name, "").data.length);
      this.errs.set(name, e);
    }
    return e;
  }

  override expr(e: unknown, scope: Scope, path: string): Expr {
    if (Array.isArray(e)) {
      const hit = this.cache.get(e);
      if (hit) return hit;
    }
    const base = super.expr(e, scope, path);
    const x = { ...base, fn: this.withError(e, base, scope, path) };
    if (Array.isArray(e)) this.cache.set(e, x);
    return x;
  }

  /** The closure of `e` (compiled as `base`, its operands already in the cache) that also sets
   *  es, eq and ew. */
  private withError(e: unknown, base: Expr, scope: Scope, path: string): () => number {
    const value = base.fn;
    if (typeof e === "number") return () => { this.es = 0; this.eq = this.ew = 0; return value(); };
    if (typeof e === "string") {
      const b = scope.get(e)!;
      if (b.slot < 0) return () => { this.es = 0; this.eq = this.ew = 0; return value(); };
      const slot = b.slot, slotS = this.slotS, slotQ = this.slotQ, slotW = this.slotW;
      return () => { const v = value(); this.es = slotS[slot]; this.eq = slotQ[slot]; this.ew = slotW[slot]; return v; };
    }
    const node = e as any[];
    const op = node[0] as string;
    const sub = (i: number): Expr => this.cache.get(node[i]) ?? this.expr(node[i], scope, path + "/" + i);
    // i32 values: exact, unless they come from f32 through a cast or a comparison
    if (base.type === "i32" && op !== "load") {
      const unsure = base.cast === true || base.decided === true;
      return () => { const v = value(); this.es = unsure ? Infinity : 0; this.eq = this.ew = 0; return v; };
    }
    switch (op) {
      case "f32": return () => { this.es = 0; this.eq = this.ew = 0; return value(); };
      case "load": {
        const buf = this.buffer(node[1], path + "/1");
        const ix = this.indices(buf, node[2], scope, path + "/2");
        const tainted = { on: false };
        const fns = ix.fns.map((g) => () => { const v = g(); if (this.es > 0) tainted.on = true; return v; });
        const offset = this.offset(buf, { fns, dependent: ix.dependent }, path + "/2", "load");
        const data = buf.data, err = this.errorsOf(buf.name);
        return () => {
          tainted.on = false;
          const o = offset();
          this.es = tainted.on ? Infinity : err[o];
          this.eq = this.ew = 0;
          return data[o];
        };
      }
      case "add": case "sub": case "mul": case "div": case "min": case "max": {
        const fa = sub(1).fn, fb = sub(2).fn;
        return () => {
          const a = fa(), sa = this.es, qa = this.eq, wa = this.ew;
          const b = fb(), sb = this.es, qb = this.eq, wb = this.ew;
          let v: number;
          if (op === "add" || op === "sub") {
            v = op === "add" ? a + b : a - b;
            this.es = sa + sb;
            this.eq = qa + qb + rounding(v);
            this.ew = wa + wb + U * Math.abs(v);
          }
          else if (op === "mul") {
            v = a * b;
            // (no estimate stays none: Infinity * 0 would be NaN; an overflow stays one)
            this.es = Number.isNaN(sa) || Number.isNaN(sb) ? NaN : sa === Infinity || sb === Infinity ? Infinity : Math.abs(b) * sa + Math.abs(a) * sb + sa * sb;
            this.eq = b * b * qa + a * a * qb + rounding(v);
            this.ew = Math.abs(b) * wa + Math.abs(a) * wb + wa * wb + U * Math.abs(v);
          } else if (op === "div") {
            v = a / b;
            const margin = Math.abs(b) - sb - Math.min(LAMBDA * Math.sqrt(qb), wb);
            if (!(margin > 0)) { this.es = Number.isNaN(sa) || Number.isNaN(sb) ? NaN : Infinity; this.eq = this.ew = 0; return v; }
            this.es = (sa + Math.abs(v) * sb) / margin;
            this.eq = (qa + v * v * qb) / (b * b) + rounding(v);
            this.ew = (wa + Math.abs(v) * wb) / margin + U * Math.abs(v);
          } else {
            v = op === "min" ? Math.min(a, b) : Math.max(a, b);
            this.es = Math.max(sa, sb);
            this.eq = Math.max(qa, qb);
            this.ew = Math.max(wa, wb);
          }
          if (Math.abs(v) >= F32_OVERFLOW) this.es = NaN;
          return v;
        };
      }
      case "neg": case "abs": case "not":
        // the operand's error (value runs the operand's closure)
        return value;
      case "exp": case "log": case "sqrt": case "rsqrt": case "tanh": case "erf": {
        const fa = sub(1).fn;
        return () => {
          const a = fa(), sa = this.es, qa = this.eq, wa = this.ew;
          const v = fnOf(op, a);
          const spread = sa + Math.min(LAMBDA * Math.sqrt(qa), wa);
          // the derivative's largest magnitude over [a - spread, a + spread]
          const d = slope(op, a, spread);
          if (!Number.isFinite(d)) { this.es = Number.isNaN(sa) ? NaN : Infinity; this.eq = this.ew = 0; return v; }
          this.es = Math.abs(v) >= F32_OVERFLOW ? NaN : d * sa;
          this.eq = d * d * qa + fnRounding(v) + (op === "log" ? (U * U) / 3 : 0);
          this.ew = d * wa + FN_ULPS * 2 * U * Math.abs(v) + (op === "log" ? U : 0);
          return v;
        };
      }
      case "lt": case "le": case "gt": case "ge": case "eq": case "ne": {
        const a = sub(1), b = sub(2);
        if (a.type !== "f32") {
          const unsure = base.cast === true || base.decided === true;
          return () => { const v = value(); this.es = unsure ? Infinity : 0; this.eq = this.ew = 0; return v; };
        }
        const fa = a.fn, fb = b.fn;
        return () => {
          const x = fa(), sx = this.settled();
          const y = fb(), sy = this.settled();
          const v = cmp(op, x, y);
          // the errors can change the outcome where the operands lie closer than their errors (two
          // exact operands decide it exactly, equal or not)
          const spread = sx + sy;
          this.es = Number.isNaN(spread) ? NaN : spread > 0 && !(Math.abs(x - y) > spread) ? Infinity : 0;
          this.eq = this.ew = 0;
          return v;
        };
      }
      case "and": case "or": {
        const fa = sub(1).fn, fb = sub(2).fn;
        return () => {
          const a = fa(), sa = this.es;
          const b = fb(), sb = this.es;
          this.es = Math.max(sa, sb);
          this.eq = this.ew = 0;
          return op === "and" ? (a !== 0 && b !== 0 ? 1 : 0) : (a !== 0 || b !== 0 ? 1 : 0);
        };
      }
      case "select": {
        const fc = sub(1).fn, fa = sub(2).fn, fb = sub(3).fn;
        return () => {
          const c = fc(), sc = this.es;
          const v = c !== 0 ? fa() : fb();
          if (sc === 0) return v;
          // a condition the errors could decide either way: f32 arithmetic may choose either
          // operand, so the estimate spans the other one too (evaluated only here; an access of it
          // out of bounds leaves no estimate)
          const chosen = this.settled();
          let other: number;
          try {
            other = c !== 0 ? fb() : fa();
          } catch {
            this.es = Infinity; this.eq = this.ew = 0;
            return v;
          }
          const spread = Math.abs(other - v) + this.settled();
          this.es = Math.max(chosen, spread);
          this.eq = this.ew = 0;
          if (this.es === -Infinity) this.es = Infinity;
          return v;
        };
      }
      case "cast": {
        // to f32 (to i32 is handled above): from i32, rounded past 2^24; from bool or f32, exact
        if (sub(2).type !== "i32") return value;
        return () => {
          const v = value();
          if (Math.abs(v) > 2 ** 24) { this.eq += rounding(v); this.ew += U * Math.abs(v); }
          return v;
        };
      }
      default:
        return () => { const v = value(); this.es = Infinity; this.eq = this.ew = 0; return v; };
    }
  }
}

function fnOf(op: string, a: number): number {
  switch (op) {
    case "exp": return Math.exp(a);
    case "log": return Math.log(a);
    case "sqrt": return Math.sqrt(a);
    case "rsqrt": return 1 / Math.sqrt(a);
    case "tanh": return Math.tanh(a);
    default: return erf64(a);
  }
}

/** The largest |f'| over [a - r, a + r]; Infinity where the interval reaches a pole or leaves
 *  the domain. */
function slope(op: string, a: number, r: number): number {
  switch (op) {
    case "exp": return Math.exp(a + r);
    case "log": return a - r > 0 ? 1 / (a - r) : Infinity;
    case "sqrt": return a - r > 0 ? 0.5 / Math.sqrt(a - r) : Infinity;
    case "rsqrt": return a - r > 0 ? 0.5 / ((a - r) * Math.sqrt(a - r)) : Infinity;
    case "tanh": {
      const m = Math.max(0, Math.abs(a) - r);
      const t = Math.tanh(m);
      return 1 - t * t;
    }
    default: {
      const m = Math.max(0, Math.abs(a) - r);
      return (2 / Math.sqrt(Math.PI)) * Math.exp(-m * m);
    }
  }
}

function cmp(op: string, x: number, y: number): number {
  switch (op) {
    case "lt": return x < y ? 1 : 0;
    case "le": return x <= y ? 1 : 0;
    case "gt": return x > y ? 1 : 0;
    case "ge": return x >= y ? 1 : 0;
    case "eq": return x === y ? 1 : 0;
    default: return x !== y ? 1 : 0;
  }
}

/**
 * Evaluates `doc` on `inputs` as the oracle does, and returns for every element of every param
 * the estimate of how far an f32 computation of it, combining reductions in `order` (null: left
 * to right), can be from the FP64 value. `initial`: the estimates the inputs start with (a buffer
 * updated in place, evaluated again on the previous evaluation's results).
 */
export function roundingBounds(doc: any, inputs: Map<string, Float64Array | Int32Array>, order: ReductionOrder | null, initial?: Map<string, Float64Array>): BoundResult & { buffers: Map<string, Float64Array | Int32Array> } {
  const compiler = new BoundCompiler(checkedSizes(doc), order, doc.body);
  setUp(doc, inputs, compiler);
  if (initial) for (const [name, e] of initial) compiler.errs.set(name, Float64Array.from(e));
  const run = compiler.block(doc.body, compiler.rootScope(), "/body");
  run();
  const bounds = new Map<string, Float64Array>();
  const buffers = new Map<string, Float64Array | Int32Array>();
  for (const [name, buf] of compiler.buffers) {
    bounds.set(name, compiler.errorsOf(name));
    buffers.set(name, buf.data);
  }
  return { bounds, buffers };
}
