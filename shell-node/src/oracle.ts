// The FP64 oracle: an independent reference evaluation of a Tile IR v1 document.
//
// It shares nothing with the core on purpose (no import from core/): a second, straightforward
// reading of docs/tile-ir.md ("Semantics of values") against which every generated kernel is checked.
//
// How it works: the document is compiled once into a tree of JavaScript closures (names are
// resolved to slots, types are checked, operators are chosen at compile time), then the tree
// runs. Values are JS numbers:
//   - f32 values are held as doubles: an f32 literal is Math.fround(x) then exact; arithmetic,
//     exp, log, tanh, sqrt and rsqrt (1 / Math.sqrt) run in double precision, erf with Cody's
//     rational approximations (./erf64.ts); a stored f32 is not rounded back to f32 (validate-run.ts
//     compares an f32 output with the reference rounded to f32), except a value past the f32
//     range, which is stored as the infinity it rounds to (a later load reads that infinity). f16 and
//     bf16 buffers hold f32 values: a load is exact, a store rounds the double to the buffer's
//     dtype (nearest, ties to even; ./f16.ts), as the kernel rounds its f32 result.
//   - i32 values have i32 semantics: add, sub, mul, neg and abs wrap ((a + b) | 0, Math.imul,
//     abs(-2^31) = -2^31); div truncates toward zero; mod is floor modulo (the result has the
//     sign of b); x div 0 = 0, x mod 0 = 0, -2^31 div -1 = -2^31, -2^31 mod -1 = 0. Nothing
//     throws on a value.
//   - bool values are 0 and 1.
//   - cast f32 -> i32 truncates toward zero (values beyond the i32 range saturate, NaN gives
//     0); cast i32 -> f32 rounds to the nearest f32 (Math.fround); bool casts to 0 or 1.
//   - reductions combine in order of the axis, in double for f32 (identities 0, -inf, +inf;
//     max and min propagate NaN and order -0 below +0, as the operators do) and with wrapping i32 arithmetic for i32 (identities 0,
//     -2^31, 2^31 - 1).
//   - `select` evaluates only the chosen operand (operands have no side effects, so the value
//     is the same; an access in the unchosen operand is not bounds-checked).
//   - a loop runs `extent` iterations v = min + k * step (none when extent <= 0); a step below 1
//     is an error, and so is a parallel loop whose step is not 1.
// Everything a document can get wrong that the oracle notices (unknown names, type
// mismatches, shadowing, wrong index counts, out-of-bounds accesses at run time) throws an
// OracleError whose message starts with the JSON pointer of the offending node.

import { erf64 } from "./erf64";
import { roundBf16, roundF16 } from "./f16";

export type OracleBuffer = Float64Array | Int32Array;

export interface OracleResult {
  /** Final contents of every param, row-major (f32 params as doubles). */
  buffers: Map<string, OracleBuffer>;
  /** 1 where at least one store wrote the element, else 0. */
  written: Map<string, Uint8Array>;
  /** i32 buffers a store writes with a value that goes through a cast from f32 (validate-run.ts
   *  compares them within the f32 tolerance plus one: the truncation of a value inside it). */
  castDerived: Set<string>;
  /** i32 buffers a store writes with a value that depends on a comparison of f32 values
   *  (validate-run.ts: an element that differs passes where it equals the plain-f32 evaluation). */
  decidedDerived: Set<string>;
  /** Buffers some store writes under an `if` decided by f32 values or at an index computed from
   *  them (validate-run.ts: an element written or not as the plain-f32 evaluation writes it,
   *  with its value, passes). */
  flowDerived: Set<string>;
  /** Outputs whose stored value reads a 16-bit buffer that the document also stores (an
   *  intermediate kept in f16 or bf16), with that dtype (bf16 where both): a kernel may round
   *  such an intermediate one unit in its last place apart from the reference, so the output is
   *  compared with that dtype's tolerance (validate-run.ts). */
  narrowDerived: Map<string, string>;
  /** f16 and bf16 buffers some store writes: the value each store computed before rounding to the dtype (the
   *  elements no store writes hold their initial values) (validate-run.ts: at the edge of the
   *  dtype's range, an f32 value within the tolerance may round to either side). */
  unrounded: Map<string, Float64Array>;
}

export class OracleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OracleError";
  }
}

export type DType = "f32" | "i32" | "bool";
export type Num = () => number;
export type Stmt = () => void;

export interface Expr {
  fn: Num;
  type: DType;
  /** The value goes through a cast from f32 to i32 (of this expression or of a bound name in it). */
  cast?: boolean;
  /** The value depends on a comparison of f32 values (`lt`, `eq`, ... of f32 operands), which
   *  f32 and FP64 arithmetic may decide differently (3 * 0.1 >= 0.3 holds in f32 only). */
  decided?: boolean;
}

export interface Binding {
  type: DType;
  /** A size's value; -1 for a slot-held name. */
  constant: number;
  slot: number;
  /** A scalar bound to a value that went through a cast from f32 to i32. */
  cast?: boolean;
  /** A scalar bound to a value that depends on a comparison of f32 values. */
  decided?: boolean;
  narrow?: string;
}

export interface Buf {
  name: string;
  /** The type of its values in expressions (f16 and bf16 buffers hold f32 values). */
  dtype: "f32" | "i32";
  /** The storage dtype: a store rounds to it (f16, bf16: nearest, ties to even). */
  storage: string;
  dims: number[];
  data: OracleBuffer;
  written: Uint8Array;
  castDerived: boolean;
  /** An i32 buffer some store writes with a value that depends on a comparison of f32 values. */
  decidedDerived: boolean;
  /** Some store writes this buffer under an `if` decided by f32 values, or at an index computed
   *  from f32 values: which elements are written may differ between f32 and FP64. */
  flowDerived: boolean;
  /** Set by the document's pre-scan: some store writes this buffer. */
  stored: boolean;
  narrowDerived: string;
  /** f16 and bf16 storage that a store writes: each store's value before the rounding to the dtype. */
  unrounded?: Float64Array;
}

export type Scope = Map<string, Binding>;

/** An access's compiled index list (Compiler.indices). */
export interface Indices {
  fns: Num[];
  /** Some index depends on f32 values: a cast from f32 or a comparison of f32 values. */
  dependent: boolean;
}

const I32_MIN = -2147483648;
const I32_MAX = 2147483647;

/** A loop or reduction variable is an i32: its last value past 2^31 - 1 is the document's error
 *  (TIR030 where the checker can decide it; here, at the sizes and inputs of this evaluation). */
export function varRange(lo: number, n: number, st: number, path: string): void {
  if (n >= 1 && lo + (n - 1) * st > 2147483647) fail(path, "the variable would reach " + (lo + (n - 1) * st) + ", past the i32 range (at most 2147483647; TIR030)");
}

export function fail(path: string, message: string): never {
  throw new OracleError((path === "" ? "/" : path) + ": " + message);
}

function isObject(x: unknown): x is Record<string, any> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

function isInt(x: unknown): x is number {
  return typeof x === "number" && Number.isInteger(x);
}

/** Sizes of a document: every entry a positive integer. */
function readSizes(doc: any): Map<string, number> {
  const sizes = new Map<string, number>();
  if (doc.sizes === undefined) return sizes;
  if (!isObject(doc.sizes)) fail("/sizes", "sizes must be an object of positive integers");
  for (const name of Object.keys(doc.sizes)) {
    const v = doc.sizes[name];
    if (!isInt(v) || v <= 0 || v > I32_MAX) {
      fail("/sizes/" + name, "size " + name + " must be a positive i32 integer, got " + String(v));
    }
    sizes.set(name, v);
  }
  return sizes;
}

export class Compiler {
  readonly sizes: Map<string, number>;
  readonly buffers = new Map<string, Buf>();
  /** Values of every loop variable, axis variable and bound scalar, by slot. */
  readonly slots: number[] = [];
  /** Scalar names bound by reduce and let anywhere in the document (they must be unique). */
  readonly scalars = new Map<string, string>();

  /** Round every f32 result to f32 (evaluate's "f32" mode); false: exact doubles (the oracle). */
  readonly f32: boolean;
  /** Inside an `if` whose condition depends on f32 values (a comparison, a cast): how deep. */
  private decidedFlow = 0;

  constructor(sizes: Map<string, number>, f32 = false) {
    this.sizes = sizes;
    this.f32 = f32;
  }

  newSlot(): number {
    this.slots.push(0);
    return this.slots.length - 1;
  }

  rootScope(): Scope {
    const scope: Scope = new Map();
    for (const [name, value] of this.sizes) {
      scope.set(name, { type: "i32", constant: value, slot: -1 });
    }
    return scope;
  }

  /** Binds `name` in `scope`, refusing to shadow. */
  bind(scope: Scope, name: unknown, type: DType, path: string, scalar: boolean): number {
    if (typeof name !== "string" || name === "") fail(path, "a bound name must be a non-empty string");
    if (scope.has(name)) fail(path, "name " + name + " shadows a name already in scope");
    if (scalar) {
      const first = this.scalars.get(name);
      if (first !== undefined) fail(path, "scalar " + name + " is bound twice (first at " + first + ")");
      this.scalars.set(name, path);
    }
    const slot = this.newSlot();
    scope.set(name, { type, constant: -1, slot });
    return slot;
  }

  // ---- statements --------------------------------------------------------------------------

  block(list: unknown, outer: Scope, path: string): Stmt {
    if (!Array.isArray(list)) fail(path, "a statement list must be an array");
    const scope: Scope = new Map(outer);
    const stmts: Stmt[] = [];
    for (let i = 0; i < list.length; i++) stmts.push(this.statement(list[i], scope, path + "/" + i));
    return sequence(stmts);
  }

  statement(s: unknown, scope: Scope, path: string): Stmt {
    if (!isObject(s)) fail(path, "a statement must be an object");
    if ("for" in s) return this.forStmt(s, scope, path);
    if ("reduce" in s) return this.reduceStmt(s, scope, path);
    if ("let" in s) return this.letStmt(s, scope, path);
    if ("store" in s) return this.storeStmt(s, scope, path);
    if ("if" in s) return this.ifStmt(s, scope, path);
    return fail(path, "unknown statement (expected for, reduce, let, store or if)");
  }

  forStmt(s: Record<string, any>, scope: Scope, path: string): Stmt {
    const range = s.in;
    if (!Array.isArray(range) || range.length !== 2) fail(path + "/in", "in must be [min, extent]");
    const kind = s.kind;
    if (kind !== "parallel" && kind !== "serial") fail(path + "/kind", "kind must be parallel or serial");
    const min = this.intExpr(range[0], scope, path + "/in/0");
    const extent = this.intExpr(range[1], scope, path + "/in/1");
    const step = s.step === undefined ? constant(1) : this.intExpr(s.step, scope, path + "/step");
    const inner: Scope = new Map(scope);
    const slot = this.bind(inner, s.for, "i32", path + "/for", false);
    const body = this.block(s.body, inner, path + "/body");
    const slots = this.slots;
    const parallel = kind === "parallel";
    return () => {
      const lo = min();
      const n = extent();
      const st = step();
      if (st < 1) fail(path + "/step", "step must be at least 1, got " + st);
      if (parallel && st !== 1) fail(path + "/step", "a parallel loop must have step 1, got " + st);
      varRange(lo, n, st, path + "/for");
      for (let k = 0; k < n; k++) {
        slots[slot] = lo + k * st;
        body();
      }
    };
  }

  reduceStmt(s: Record<string, any>, scope: Scope, path: string): Stmt {
    const over = s.over;
    if (!Array.isArray(over) || over.length !== 3) fail(path + "/over", "over must be [v, min, extent]");
    const min = this.intExpr(over[1], scope, path + "/over/1");
    const extent = this.intExpr(over[2], scope, path + "/over/2");
    const axisScope: Scope = new Map(scope);
    const axis = this.bind(axisScope, over[0], "i32", path + "/over/0", false);
    const value = this.expr(s.value, axisScope, path + "/value");
    if (value.type === "bool") fail(path + "/value", "a reduction combines f32 or i32 values, not bool");
    const combiner = s.combiner;
    if (combiner !== "sum" && combiner !== "max" && combiner !== "min") {
      fail(path + "/combiner", "unknown combiner " + String(combiner) + " (expected sum, max or min)");
    }
    const out = this.bind(scope, s.reduce, value.type, path + "/reduce", true);
    scope.get(s.reduce)!.cast = value.cast;
    scope.get(s.reduce)!.decided = value.decided;
    scope.get(s.reduce)!.narrow = this.narrowOf(s.value, scope);
    const slots = this.slots;
    const f = value.fn;
    if (value.type === "f32") {
      if (combiner === "sum") {
        return () => {
          const lo = min(), n = extent();
          varRange(lo, n, 1, path + "/over/0");
          let acc = 0;
          if (this.f32) for (let k = 0; k < n; k++) { slots[axis] = lo + k; acc = Math.fround(acc + f()); }
          else for (let k = 0; k < n; k++) { slots[axis] = lo + k; acc += f(); }
          slots[out] = acc;
        };
      }
      const isMax = combiner === "max";
      return () => {
        const lo = min(), n = extent();
          varRange(lo, n, 1, path + "/over/0");
        let acc = isMax ? -Infinity : Infinity;
        // Math.max and Math.min propagate NaN and order -0 below +0 (IEEE 754-2019 maximum and
        // minimum), so the result does not depend on the order of combination
        if (isMax) for (let k = 0; k < n; k++) { slots[axis] = lo + k; acc = Math.max(acc, f()); }
        else for (let k = 0; k < n; k++) { slots[axis] = lo + k; acc = Math.min(acc, f()); }
        slots[out] = acc;
      };
    }
    const isSum = combiner === "sum", isMax = combiner === "max";
    return () => {
      const lo = min(), n = extent();
          varRange(lo, n, 1, path + "/over/0");
      let acc = isSum ? 0 : isMax ? I32_MIN : I32_MAX;
      for (let k = 0; k < n; k++) {
        slots[axis] = lo + k;
        const v = f();
        if (isSum) acc = (acc + v) | 0;
        else if (isMax ? v > acc : v < acc) acc = v;
      }
      slots[out] = acc;
    };
  }

  letStmt(s: Record<string, any>, scope: Scope, path: string): Stmt {
    const value = this.expr(s.value, scope, path + "/value");
    const slot = this.bind(scope, s.let, value.type, path + "/let", true);
    scope.get(s.let)!.cast = value.cast;
    scope.get(s.let)!.decided = value.decided;
    scope.get(s.let)!.narrow = this.narrowOf(s.value, scope);
    const slots = this.slots;
    const f = value.fn;
    return () => { slots[slot] = f(); };
  }

  storeStmt(s: Record<string, any>, scope: Scope, path: string): Stmt {
    const buf = this.buffer(s.store, path + "/store");
    const value = this.expr(s.value, scope, path + "/value");
    if (value.type !== buf.dtype) {
      fail(path + "/value", "stores a " + value.type + " value into " + buf.dtype + " buffer " + buf.name);
    }
    const ix = this.indices(buf, s.at, scope, path + "/at");
    const offset = this.offset(buf, ix, path + "/at", "store");
    const data = buf.data, written = buf.written, f = value.fn;
    if (buf.dtype === "i32" && value.cast) buf.castDerived = true;
    if (buf.dtype === "i32" && value.decided) buf.decidedDerived = true;
    if (this.decidedFlow > 0 || ix.dependent) {
      buf.flowDerived = true;
      if (buf.dtype === "i32") buf.decidedDerived = true;
    }
    buf.narrowDerived = wider(buf.narrowDerived, this.narrowOf(s.value, scope));
    if (buf.storage === "f16" || buf.storage === "bf16") {
      const round = buf.storage === "f16" ? roundF16 : roundBf16;
      // the kernel rounds its f32 result: first to f32, then to the 16-bit dtype (rounding the
      // double straight to 16 bits differs at f16 ties and at the edge of the f16 range)
      // (the pre-scan found this store, so the buffer keeps its unrounded values)
      const unrounded = buf.unrounded ?? (buf.unrounded = Float64Array.from(data));
      return () => {
        const o = offset();
        const v = f();
        data[o] = round(Math.fround(v));
        unrounded[o] = v;
        written[o] = 1;
      };
    }
    if (this.f32 && buf.dtype === "f32") {
      return () => {
        const o = offset();
        data[o] = Math.fround(f());
        written[o] = 1;
      };
    }
    if (buf.dtype === "f32") {
      // a value past the f32 range is stored as the infinity it rounds to: the buffer holds
      // binary32 values, so a later load reads that infinity, as the kernel does (other values
      // keep their double: validate-run.ts compares with the reference rounded to f32)
      return () => {
        const o = offset();
        const v = f();
        const r = Math.fround(v);
        data[o] = r === Infinity || r === -Infinity ? r : v;
        written[o] = 1;
      };
    }
    return () => {
      const o = offset();
      data[o] = f();
      written[o] = 1;
    };
  }

  ifStmt(s: Record<string, any>, scope: Scope, path: string): Stmt {
    const cond = this.expr(s.if, scope, path + "/if");
    if (cond.type !== "bool") fail(path + "/if", "the condition of if must be bool, got " + cond.type);
    const decided = cond.decided || cond.cast ? 1 : 0;
    this.decidedFlow += decided;
    const then = this.block(s.then, scope, path + "/then");
    const c = cond.fn;
    if (s.else === undefined) {
      this.decidedFlow -= decided;
      return () => { if (c() !== 0) then(); };
    }
    const otherwise = this.block(s.else, scope, path + "/else");
    this.decidedFlow -= decided;
    return () => { if (c() !== 0) then(); else otherwise(); };
  }

  // ---- buffers and addresses ---------------------------------------------------------------

  buffer(name: unknown, path: string): Buf {
    const buf = typeof name === "string" ? this.buffers.get(name) : undefined;
    if (buf === undefined) fail(path, "unknown buffer " + String(name));
    return buf;
  }

  /** An access's index list compiled once: one closure per dimension, and whether any index
   *  depends on f32 values (a cast from f32 or a comparison of f32 values). */
  indices(buf: Buf, at: unknown, scope: Scope, path: string): Indices {
    if (!Array.isArray(at)) fail(path, "an index list must be an array");
    if (at.length !== buf.dims.length) {
      fail(path, "buffer " + buf.name + " has " + buf.dims.length + " dimensions, indexed with " + at.length);
    }
    let dependent = false;
    const fns = at.map((e, i) => {
      const x = this.expr(e, scope, path + "/" + i);
      if (x.type !== "i32") fail(path + "/" + i, "expected an i32 expression, got " + x.type);
      if (x.cast === true || x.decided === true) dependent = true;
      return x.fn;
    });
    return { fns, dependent };
  }

  /** A closure computing the row-major offset of an index list, bounds-checked. */
  offset(buf: Buf, ix: Indices, path: string, what: string): Num {
    const idx = ix.fns;
    const dims = buf.dims;
    const oob = (k: number, v: number): never => outOfBounds(path, what, buf, k, v);
    if (idx.length === 1) {
      const i0 = idx[0], d0 = dims[0];
      return () => {
        const a = i0();
        if (!(a >= 0 && a < d0)) oob(0, a);
        return a;
      };
    }
    if (idx.length === 2) {
      const i0 = idx[0], i1 = idx[1], d0 = dims[0], d1 = dims[1];
      return () => {
        const a = i0(), b = i1();
        if (!(a >= 0 && a < d0)) oob(0, a);
        if (!(b >= 0 && b < d1)) oob(1, b);
        return a * d1 + b;
      };
    }
    return () => {
      let o = 0;
      for (let k = 0; k < idx.length; k++) {
        const v = idx[k]();
        if (!(v >= 0 && v < dims[k])) oob(k, v);
        o = o * dims[k] + v;
      }
      return o;
    };
  }

  /** A closure loading one element; ranks 1 and 2 fused with their bounds checks for speed. */
  load(buf: Buf, ix: Indices, path: string): Num {
    const data = buf.data, dims = buf.dims;
    if (ix.fns.length === 1 || ix.fns.length === 2) {
      const i0 = ix.fns[0], d0 = dims[0];
      const oob = (k: number, v: number): never => outOfBounds(path, "load", buf, k, v);
      if (ix.fns.length === 1) {
        return () => {
          const a = i0();
          if (!(a >= 0 && a < d0)) oob(0, a);
          return data[a];
        };
      }
      const i1 = ix.fns[1], d1 = dims[1];
      return () => {
        const a = i0(), b = i1();
        if (!(a >= 0 && a < d0)) oob(0, a);
        if (!(b >= 0 && b < d1)) oob(1, b);
        return data[a * d1 + b];
      };
    }
    const offset = this.offset(buf, ix, path, "load");
    return () => data[offset()];
  }

  // ---- expressions -------------------------------------------------------------------------

  /** "f16" or "bf16" when `e` (already compiled, so well formed) reads a 16-bit buffer that the
   *  document stores, directly or through a bound scalar; "" otherwise (bf16 where both). */
  narrowOf(e: unknown, scope: Scope): string {
    if (typeof e === "string") return scope.get(e)?.narrow ?? "";
    if (!Array.isArray(e)) return "";
    let out = "";
    if (e[0] === "load") {
      const buf = this.buffers.get(e[1]);
      if (buf && buf.stored && (buf.storage === "f16" || buf.storage === "bf16")) out = buf.storage;
      return wider(out, this.narrowOf(e[2], scope));
    }
    for (let i = 1; i < e.length; i++) out = wider(out, this.narrowOf(e[i], scope));
    return out;
  }

  intExpr(e: unknown, scope: Scope, path: string): Num {
    const x = this.expr(e, scope, path);
    if (x.type !== "i32") fail(path, "expected an i32 expression, got " + x.type);
    return x.fn;
  }

  expr(e: unknown, scope: Scope, path: string): Expr {
    if (typeof e === "number") {
      if (!Number.isInteger(e) || e < I32_MIN || e > I32_MAX) fail(path, "an i32 literal must be an integer in range, got " + e);
      return { fn: constant(e), type: "i32" };
    }
    if (typeof e === "string") {
      const b = scope.get(e);
      if (b === undefined) fail(path, "unknown name " + e);
      if (b.slot < 0) return { fn: constant(b.constant), type: b.type };
      const slots = this.slots, slot = b.slot;
      return { fn: () => slots[slot], type: b.type, cast: b.cast, decided: b.decided };
    }
    if (!Array.isArray(e) || e.length === 0 || typeof e[0] !== "string") {
      fail(path, "an expression must be an integer, a name or an [operator, ...] array");
    }
    const op = e[0];
    const arity = (n: number): void => {
      if (e.length !== n + 1) fail(path, op + " takes " + n + " operand(s), got " + (e.length - 1));
    };
    const sub = (i: number): Expr => this.expr(e[i], scope, path + "/" + i);
    switch (op) {
      case "f32": {
        arity(1);
        if (typeof e[1] !== "number" || !Number.isFinite(e[1])) fail(path + "/1", "an f32 literal needs a finite number");
        return { fn: constant(Math.fround(e[1])), type: "f32" };
      }
      case "load": {
        arity(2);
        const buf = this.buffer(e[1], path + "/1");
        // an i32 element that an earlier store wrote with a value cast from f32 (or decided by an
        // f32 comparison) carries that on (a stored T = cast(X * 10) read back into Y)
        // (and a load at an index computed from f32 values is decided by them)
        const fromI32 = buf.dtype === "i32";
        const ix = this.indices(buf, e[2], scope, path + "/2");
        return { fn: this.load(buf, ix, path + "/2"), type: buf.dtype, cast: fromI32 && buf.castDerived, decided: (fromI32 && buf.decidedDerived) || ix.dependent };
      }
      case "add": case "sub": case "mul": case "div": case "min": case "max": case "mod": {
        arity(2);
        const a = sub(1), b = sub(2);
        sameNumeric(op, a, b, path);
        if (op === "mod" && a.type !== "i32") fail(path, "mod is defined on i32 only");
        const fn = binary(op, a.type, a.fn, b.fn, path);
        return { fn: this.f32 && a.type === "f32" ? () => Math.fround(fn()) : fn, type: a.type, cast: a.cast || b.cast, decided: a.decided || b.decided };
      }
      case "neg": case "abs": {
        arity(1);
        const a = sub(1);
        if (a.type === "bool") fail(path, op + " needs an f32 or i32 operand");
        const f = a.fn;
        if (a.type === "i32") {
          return { fn: op === "neg" ? () => (-f()) | 0 : () => Math.abs(f()) | 0, type: "i32", cast: a.cast, decided: a.decided };
        }
        return { fn: op === "neg" ? () => -f() : () => Math.abs(f()), type: "f32", cast: a.cast, decided: a.decided };
      }
      case "exp": case "log": case "sqrt": case "rsqrt": case "tanh": case "erf": {
        arity(1);
        const a = sub(1);
        if (a.type !== "f32") fail(path, op + " is defined on f32 only, got " + a.type);
        const f = a.fn;
        const fn: Num = op === "exp" ? () => Math.exp(f())
          : op === "log" ? () => Math.log(f())
          : op === "sqrt" ? () => Math.sqrt(f())
          : op === "rsqrt" ? () => 1 / Math.sqrt(f())
          : op === "erf" ? () => erf64(f())
          : () => Math.tanh(f());
        return { fn: this.f32 ? () => Math.fround(fn()) : fn, type: "f32", cast: a.cast, decided: a.decided };
      }
      case "lt": case "le": case "gt": case "ge": case "eq": case "ne": {
        arity(2);
        const a = sub(1), b = sub(2);
        if (a.type !== b.type) fail(path, op + " compares " + a.type + " with " + b.type);
        if (a.type === "bool" && op !== "eq" && op !== "ne") fail(path, op + " needs f32 or i32 operands");
        const f = a.fn, g = b.fn;
        const fn: Num = op === "lt" ? () => (f() < g() ? 1 : 0)
          : op === "le" ? () => (f() <= g() ? 1 : 0)
          : op === "gt" ? () => (f() > g() ? 1 : 0)
          : op === "ge" ? () => (f() >= g() ? 1 : 0)
          : op === "eq" ? () => (f() === g() ? 1 : 0)
          : () => (f() !== g() ? 1 : 0);
        return { fn, type: "bool", cast: a.cast || b.cast, decided: a.decided || b.decided || a.type === "f32" };
      }
      case "and": case "or": {
        arity(2);
        const a = sub(1), b = sub(2);
        if (a.type !== "bool" || b.type !== "bool") fail(path, op + " needs bool operands");
        const f = a.fn, g = b.fn;
        return { fn: op === "and" ? () => (f() !== 0 && g() !== 0 ? 1 : 0) : () => (f() !== 0 || g() !== 0 ? 1 : 0), type: "bool", cast: a.cast || b.cast, decided: a.decided || b.decided };
      }
      case "not": {
        arity(1);
        const a = sub(1);
        if (a.type !== "bool") fail(path, "not needs a bool operand");
        const f = a.fn;
        return { fn: () => (f() !== 0 ? 0 : 1), type: "bool", cast: a.cast, decided: a.decided };
      }
      case "select": {
        arity(3);
        const c = sub(1), a = sub(2), b = sub(3);
        if (c.type !== "bool") fail(path + "/1", "the condition of select must be bool, got " + c.type);
        if (a.type !== b.type) fail(path, "select chooses between " + a.type + " and " + b.type);
        const fc = c.fn, fa = a.fn, fb = b.fn;
        return { fn: () => (fc() !== 0 ? fa() : fb()), type: a.type, cast: c.cast || a.cast || b.cast, decided: c.decided || a.decided || b.decided };
      }
      case "cast": {
        arity(2);
        const to = e[1];
        if (to !== "f32" && to !== "i32") fail(path + "/1", "cast target must be f32 or i32, got " + String(to));
        const a = sub(2);
        const f = a.fn;
        if (to === a.type || a.type === "bool") return { fn: f, type: to, cast: a.cast, decided: a.decided };
        if (to === "f32") return { fn: () => Math.fround(f()), type: "f32", cast: a.cast, decided: a.decided };
        return { fn: () => truncToI32(f()), type: "i32", cast: true, decided: a.decided };
      }
      default:
        return fail(path, "unknown operator " + op);
    }
  }
}

function outOfBounds(path: string, what: string, buf: Buf, k: number, v: number): never {
  return fail(path + "/" + k, what + " " + buf.name + ": index " + k + " is " + v +
    ", outside [0, " + buf.dims[k] + ")");
}

/** The buffers some store statement of `list` (nested ones included) writes; tolerant of a
 *  malformed list, which the compiler reports. */
function storedIn(list: unknown, out: Set<string>): void {
  if (!Array.isArray(list)) return;
  for (const s of list) {
    if (!isObject(s)) continue;
    if (typeof s.store === "string") out.add(s.store);
    storedIn(s.body, out);
    storedIn(s.then, out);
    storedIn(s.else, out);
  }
}

/** The looser of two 16-bit tolerances: "bf16" over "f16" over "" (none). */
function wider(a: string, b: string): string {
  return a === "bf16" || b === "bf16" ? "bf16" : a === "f16" || b === "f16" ? "f16" : "";
}

function constant(v: number): Num {
  return () => v;
}

function sequence(stmts: Stmt[]): Stmt {
  if (stmts.length === 0) return () => {};
  if (stmts.length === 1) return stmts[0];
  if (stmts.length === 2) {
    const a = stmts[0], b = stmts[1];
    return () => { a(); b(); };
  }
  return () => {
    for (let i = 0; i < stmts.length; i++) stmts[i]();
  };
}

function sameNumeric(op: string, a: Expr, b: Expr, path: string): void {
  if (a.type !== b.type) fail(path, op + " mixes " + a.type + " and " + b.type + " (no implicit conversions)");
  if (a.type === "bool") fail(path, op + " needs f32 or i32 operands, got bool");
}

function truncToI32(v: number): number {
  if (Number.isNaN(v)) return 0;
  const t = Math.trunc(v);
  if (t < I32_MIN) return I32_MIN;
  if (t > I32_MAX) return I32_MAX;
  return t | 0; // an i32 has no -0: a negative value above -1 truncates to the integer 0
}

/** i32 division truncating toward zero; x / 0 = 0 and -2^31 / -1 = -2^31 (wraps). */
export function idiv(a: number, b: number): number {
  if (b === 0) return 0;
  return Math.trunc(a / b) | 0;
}

/** i32 floor modulo (the result has the sign of b); x mod 0 = 0, -2^31 mod -1 = 0. */
export function imod(a: number, b: number): number {
  if (b === 0) return 0;
  const r = a % b;
  return (r !== 0 && (r < 0) !== (b < 0) ? r + b : r) | 0;
}

function binary(op: string, type: DType, f: Num, g: Num, path: string): Num {
  if (type === "i32") {
    switch (op) {
      case "add": return () => (f() + g()) | 0;
      case "sub": return () => (f() - g()) | 0;
      case "mul": return () => Math.imul(f(), g());
      case "div": return () => idiv(f(), g());
      case "mod": return () => imod(f(), g());
      case "min": return () => Math.min(f(), g());
      default: return () => Math.max(f(), g());
    }
  }
  switch (op) {
    case "add": return () => f() + g();
    case "sub": return () => f() - g();
    case "mul": return () => f() * g();
    case "div": return () => f() / g();
    case "min": return () => Math.min(f(), g());
    default: return () => Math.max(f(), g());
  }
}

/** Resolves a shape entry (a size name or a positive integer literal). */
function extentOf(d: unknown, sizes: Map<string, number>, path: string): number {
  if (typeof d === "string") {
    const v = sizes.get(d);
    if (v === undefined) fail(path, "unknown size " + d);
    return v;
  }
  if (isInt(d) && d > 0) return d;
  return fail(path, "a shape entry must be a size name or a positive integer");
}

/**
 * Evaluates `doc` (a parsed Tile IR v1 document) on `inputs` (an initial value for every
 * param, row-major). Returns the final contents of every param and where stores happened.
 * The inputs are copied, never modified. Throws OracleError on an invalid document or an
 * out-of-bounds access. Mode "f32" is not the oracle: it rounds every f32 operation, reduction
 * step and store to f32 (reductions left to right), a plain single-precision evaluation in
 * program order that `tile run` sets beside a failed comparison (validate-run.ts).
 */
export function evaluate(doc: any, inputs: Map<string, Float64Array | Int32Array>, mode: "fp64" | "f32" = "fp64"): OracleResult {
  const compiler = new Compiler(checkedSizes(doc), mode === "f32");
  setUp(doc, inputs, compiler);
  const run = compiler.block(doc.body, compiler.rootScope(), "/body");
  run();
  const buffers = new Map<string, OracleBuffer>();
  const written = new Map<string, Uint8Array>();
  const castDerived = new Set<string>();
  const decidedDerived = new Set<string>();
  const flowDerived = new Set<string>();
  const narrowDerived = new Map<string, string>();
  const unrounded = new Map<string, Float64Array>();
  for (const [name, buf] of compiler.buffers) {
    if (buf.unrounded) unrounded.set(name, buf.unrounded);
    buffers.set(name, buf.data);
    written.set(name, buf.written);
    if (buf.castDerived) castDerived.add(name);
    if (buf.decidedDerived) decidedDerived.add(name);
    if (buf.flowDerived) flowDerived.add(name);
    if (buf.narrowDerived !== "") narrowDerived.set(name, buf.narrowDerived);
  }
  return { buffers, written, castDerived, decidedDerived, flowDerived, narrowDerived, unrounded };
}

/** The document's version and sizes, checked (evaluate, and bounds.ts). */
export function checkedSizes(doc: any): Map<string, number> {
  if (!isObject(doc)) fail("", "a document must be an object");
  if (doc.tile !== 1) fail("/tile", "unsupported version " + String(doc.tile) + " (expected 1)");
  return readSizes(doc);
}

/** Declares every param of `doc` in `compiler` with a copy of its input (evaluate, and bounds.ts). */
export function setUp(doc: any, inputs: Map<string, Float64Array | Int32Array>, compiler: Compiler): void {
  const sizes = compiler.sizes;
  const storedNames = new Set<string>();
  storedIn(doc.body, storedNames);
  if (!Array.isArray(doc.params)) fail("/params", "params must be an array");
  doc.params.forEach((p: any, i: number) => {
    const path = "/params/" + i;
    if (!isObject(p) || typeof p.name !== "string") fail(path, "a param needs a name");
    if (p.dtype !== "f32" && p.dtype !== "i32" && p.dtype !== "f16" && p.dtype !== "bf16") fail(path + "/dtype", "dtype must be f32, f16, bf16 or i32");
    if (!Array.isArray(p.shape)) fail(path + "/shape", "shape must be an array");
    if (compiler.buffers.has(p.name)) fail(path + "/name", "buffer " + p.name + " is declared twice");
    const dims = p.shape.map((d: unknown, k: number) => extentOf(d, sizes, path + "/shape/" + k));
    const length = dims.reduce((a: number, b: number) => a * b, 1);
    const given = inputs.get(p.name);
    if (given === undefined) fail(path, "no input given for param " + p.name);
    if (given.length !== length) {
      fail(path, "input for " + p.name + " has " + given.length + " elements, its shape needs " + length);
    }
    let data: OracleBuffer;
    if (p.dtype !== "i32") {
      if (given instanceof Int32Array) fail(path, p.dtype + " param " + p.name + " needs Float64Array input");
      data = Float64Array.from(given);
    } else {
      if (!(given instanceof Int32Array)) fail(path, "i32 param " + p.name + " needs Int32Array input");
      data = Int32Array.from(given);
    }
    compiler.buffers.set(p.name, { name: p.name, dtype: p.dtype === "i32" ? "i32" : "f32", storage: p.dtype, dims, data, written: new Uint8Array(length), castDerived: false, decidedDerived: false, flowDerived: false, stored: storedNames.has(p.name), narrowDerived: "", unrounded: (p.dtype === "f16" || p.dtype === "bf16") && storedNames.has(p.name) ? Float64Array.from(data) : undefined });
  });
}
