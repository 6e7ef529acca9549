// Tile IR checker: scopes, types, index counts, loop bounds and statically decidable bounds.
// Runs on the AST from ./read.ts; assigns `ty` and `ref` to expression nodes as it builds the
// verdict (the only writes to the AST after reading), and returns every diagnostic it finds.

import { didYouMean } from "../util/suggest";
import { Diagnostic, diag, diagRelated } from "../diag/diagnostic";
import { Doc, Expr, Stmt, valueType } from "./ast";
import { isBinary } from "./read";
import { Affine, AffineEnv, addScaled, affineOf, exactTerms } from "./affine";
import { formatF64Fixed } from "../util/num";
import { Text } from "../util/text";
import { printExpr } from "./print";
import { evalConstI32 } from "../analysis/consts";
import { I32_HI, I32_LO, fitsI32 } from "../analysis/ranges";

/** ": write ... as [\"cast\", \"T\", ...]" for the operand of binary `e` to convert, where the
 *  two types are numbers: the i32 operand to the float type, or a 16-bit float to f32 (an
 *  operand of up to 40 characters printed, a longer one as "..."); "" for a bool operand. */
function castHint(e: Expr, a: string, b: string): string {
  if (a == "bool" || b == "bool") return "";
  // the operand whose type is converted, and the type it becomes
  const second: bool = a == "f32" || (a != "i32" && b == "i32");
  const to = second ? a : b;
  const from = second ? b : a;
  const operand = e.args[second ? 1 : 0];
  const t = new Text();
  printExpr(operand, t);
  const text = t.toString();
  const shown = text.length <= 40 ? text : "...";
  return ": write the " + (second ? "second" : "first") + " operand (" + from + ") as [\"cast\", \"" + to + "\", " + shown + "]";
}

class Binding {
  name: string;
  kind: string; // "size" | "loop" | "axis" | "scalar"
  ty: string;
  ptr: string;
  /** Exact integer range of a loop/axis variable, when known. */
  lo: f64 = 0.0;
  hi: f64 = 0.0;
  exact: bool = false;
  /** For a loop/axis variable whose min depends on enclosing variables: min + "<name>#t", where
   *  "<name>#t" is a hidden exact variable over [0, (extent - 1) * step] (kept in scope beside it).
   *  Bounds then see that `k - i` of `k` in [i, i + W) is [0, W - 1], not the range of k minus i's. */
  shift: Expr | null = null;
  /** A loop or axis that runs at least once for every value of the enclosing variables (its
   *  extent's lower bound is known and >= 1). Under one that may not, no access is decided: its
   *  extreme indices may belong to iterations that never execute. */
  runs: bool = false;
  /** Bound over a name in scope (TIR016 reported): accesses through it are not bounds-checked, so
   *  that the one mistake gives one error (a loop or axis `r` inside a loop `r` made `X[r, r]`
   *  out of bounds too: red team, session 30). */
  shadows: bool = false;
  /** A loop or axis whose extent (or min) depends on enclosing variables and that runs at least
   *  once for each of their values, with a constant step: the variable is min + step * t with t
   *  over [0, extent - 1], min and extent the affine forms below (in enclosing variables only).
   *  Bounds of an index through it eliminate it from the innermost variable out (deepBounds):
   *  each extreme is reached by an iteration that runs. */
  dependent: bool = false;
  /** Scope position of the binding of the same name this one hides (-1: none). */
  prev: i32 = -1;
  minForm: Affine | null = null;
  extForm: Affine | null = null;
  stepC: f64 = 1.0;
  /** An i32 `let`'s value: indices through the name are bounded as the value is. */
  value: Expr | null = null;
  /** A loop or axis with a constant step of 1 (every value of [lo, hi] is taken). */
  unitStep: bool = false;
  /** The hidden variable of a shift: in scope for bounds only, never suggested. */
  hidden: bool = false;

  constructor(name: string, kind: string, ty: string, ptr: string) {
    this.name = name;
    this.kind = kind;
    this.ty = ty;
    this.ptr = ptr;
  }
}

const TWO_32: f64 = 4294967296.0;
/** Beyond 2^53 an f64 range of integers is not exact. */
const EXACT_F64: f64 = 9007199254740992.0;

function constForm(c: f64): Affine {
  const a = new Affine();
  a.c = c;
  return a;
}

/** The i32 value an exact integer wraps to. */
function wrapI32(x: f64): f64 {
  return x - Math.floor((x - I32_LO) / TWO_32) * TWO_32;
}

/** Shifts the exact range [lo, hi] of an i32 expression by the multiple of 2^32 that wrapping
 *  applies, in place; false when its ends wrap differently (no single range) or are not exact. */
function wrapIntoI32(range: Array<f64>): bool {
  if (Math.abs(range[0]) > EXACT_F64 || Math.abs(range[1]) > EXACT_F64) return false;
  const lo: f64 = wrapI32(range[0]);
  const hi: f64 = wrapI32(range[1]);
  if (hi - lo != range[1] - range[0]) return false;
  range[0] = lo;
  range[1] = hi;
  return true;
}

class Checker {
  doc: Doc;
  diags: Array<Diagnostic> = new Array<Diagnostic>();
  scope: Array<Binding> = new Array<Binding>();
  /** Enclosing variables whose range is narrowed inside a loop that runs only for some of their
   *  values (narrowToRun), with their ranges before and the scope length at the narrowing. */
  narrowed: Array<Binding> = new Array<Binding>();
  narrowLo: Array<f64> = new Array<f64>();
  narrowHi: Array<f64> = new Array<f64>();
  narrowMarks: Array<i32> = new Array<i32>();
  scalarNames: Array<string> = new Array<string>();
  scalarPtrs: Array<string> = new Array<string>();
  /** Innermost scope position of each bound name, and the index of each scalar name in
   *  scalarNames (maps: 40,000 lets took 12 s to validate with a scan of the scope per use). */
  innermost: Map<string, i32> = new Map<string, i32>();
  scalarAt: Map<string, i32> = new Map<string, i32>();
  /** Depth of enclosing `if` statements (accesses under a condition are not bounds-checked). */
  guarded: i32 = 0;
  sawParallel: bool = false;
  /** The axis names of the reduces met so far (a use outside its reduce's value gets a hint). */
  reduceAxes: Array<string> = new Array<string>();

  constructor(doc: Doc) {
    this.doc = doc;
  }

  err(code: string, ptr: string, msg: string): void {
    this.diags.push(diag(code, ptr, msg));
  }

  lookup(name: string): Binding | null {
    if (!this.innermost.has(name)) return null;
    return this.scope[<i32>this.innermost.get(name)];
  }

  /** Pushes a binding onto the scope. */
  enter(b: Binding): void {
    b.prev = this.innermost.has(b.name) ? <i32>this.innermost.get(b.name) : -1;
    this.innermost.set(b.name, this.scope.length);
    this.scope.push(b);
  }

  /** Drops the bindings above scope position `mark`. */
  leave(mark: i32): void {
    // ranges narrowed for a loop of this scope (narrowToRun) come back first
    let n: i32 = this.narrowed.length;
    while (n > 0 && this.narrowMarks[n - 1] >= mark) {
      const b = this.narrowed[n - 1];
      b.lo = this.narrowLo[n - 1];
      b.hi = this.narrowHi[n - 1];
      n--;
    }
    if (n < this.narrowed.length) {
      this.narrowed.length = n;
      this.narrowLo.length = n;
      this.narrowHi.length = n;
      this.narrowMarks.length = n;
    }
    for (let i: i32 = this.scope.length - 1; i >= mark; i--) {
      const b = this.scope[i];
      if (b.prev < 0) this.innermost.delete(b.name);
      else this.innermost.set(b.name, b.prev);
    }
    this.scope.length = mark;
  }

  /** Names of every parameter, in order (for suggestions). */
  paramNames(): Array<string> {
    const out = new Array<string>();
    for (let i: i32 = 0; i < this.doc.params.length; i++) out.push(this.doc.params[i].name);
    return out;
  }

  /** Names in scope here, innermost first (for suggestions). */
  scopeNames(): Array<string> {
    const out = new Array<string>();
    for (let i: i32 = this.scope.length - 1; i >= 0; i--) if (!this.scope[i].hidden) out.push(this.scope[i].name);
    return out;
  }

  /** Every name the document binds (sizes, loop and axis variables, scalars), collected once. */
  boundNames: Array<string> | null = null;

  collectNames(list: Array<Stmt>, out: Array<string>): void {
    for (let i: i32 = 0; i < list.length; i++) {
      const s = list[i];
      if (s.kind == "for" || s.kind == "let" || s.kind == "reduce") out.push(s.name);
      if (s.kind == "reduce") out.push(s.axis);
      this.collectNames(s.body, out);
      this.collectNames(s.orelse, out);
    }
  }

  /** A name for the hidden variable of `base`'s shift that no binding of the document uses. */
  hiddenName(base: string): string {
    if (this.boundNames === null) {
      const out = new Array<string>();
      for (let i: i32 = 0; i < this.doc.sizeNames.length; i++) out.push(this.doc.sizeNames[i]);
      this.collectNames(this.doc.body, out);
      this.boundNames = out;
    }
    const names = changetype<Array<string>>(this.boundNames);
    let n = base + "#t";
    while (names.indexOf(n) >= 0 || this.lookup(n) !== null) n += "#";
    return n;
  }

  /** Binds a name, reporting shadowing and repeated scalar names. */
  bind(b: Binding): void {
    const prev = this.lookup(b.name);
    if (prev !== null) {
      const p = changetype<Binding>(prev);
      this.diags.push(diagRelated("TIR016", b.ptr, "Rename \"" + b.name + "\": it would shadow the " + p.kind + " of that name in scope.", p.ptr));
      b.shadows = true;
      if (b.kind == "scalar") {
        // of no type: its uses raise no error of their own (a reduce `r` inside a loop `r`, kept
        // as the loop's i32, made `store Y = r` an i32 stored in an f32 buffer; a let `r` of f32
        // made every index `r` "f32, not i32")
        b.ty = "";
        b.value = null;
      }
    } else if (b.kind == "scalar") {
      const si: i32 = this.scalarAt.has(b.name) ? <i32>this.scalarAt.get(b.name) : -1;
      if (si >= 0) {
        this.diags.push(diagRelated("TIR016", b.ptr, "Rename \"" + b.name + "\": scalar names bound by reduce and let must be unique in the document.", this.scalarPtrs[si]));
      }
    }
    if (b.kind == "scalar") {
      if (!this.scalarAt.has(b.name)) this.scalarAt.set(b.name, this.scalarNames.length);
      this.scalarNames.push(b.name);
      this.scalarPtrs.push(b.ptr);
    }
    // a binding that would shadow is reported once and entered: its uses mean it (a loop over C
    // shadowing the size C, read as the size, gave a false out-of-bounds error), with no type if
    // it is a scalar, and no bounds check of the accesses through it
    this.enter(b);
  }

  affineEnv(): AffineEnv {
    const env = new AffineEnv();
    for (let i: i32 = 0; i < this.scope.length; i++) {
      const b = this.scope[i];
      if (b.kind == "size") {
        env.constNames.push(b.name);
        env.constValues.push(this.doc.size(b.name));
      } else if (b.kind == "scalar") {
        const v = b.value;
        if (v !== null) {
          env.letNames.push(b.name);
          env.letValues.push(changetype<Expr>(v));
        }
      } else if (b.kind == "loop" || b.kind == "axis") {
        const sh = b.shift;
        if (sh !== null) {
          env.letNames.push(b.name);
          env.letValues.push(changetype<Expr>(sh));
        } else {
          env.symbols.push(b.name);
        }
      }
    }
    return env;
  }

  /** Exact [lo, hi] of an affine form when every variable's range is exact. */
  boundsOf(a: Affine, out: Array<f64>): bool {
    let lo: f64 = a.c;
    let hi: f64 = a.c;
    for (let i: i32 = 0; i < a.vars.length; i++) {
      const k: f64 = a.coefs[i];
      if (k == 0.0) continue;
      const bb = this.lookup(a.vars[i]);
      if (bb === null) return false;
      const b = changetype<Binding>(bb);
      if (!b.exact) return false;
      const tl: f64 = k > 0.0 ? k * b.lo : k * b.hi;
      const th: f64 = k > 0.0 ? k * b.hi : k * b.lo;
      lo += tl;
      hi += th;
      if (!exactTerms(tl, th, lo, hi)) return false;
    }
    out.push(lo);
    out.push(hi);
    return true;
  }

  run(): void {
    const d = this.doc;
    for (let i: i32 = 0; i < d.sizeNames.length; i++) {
      this.enter(new Binding(d.sizeNames[i], "size", "i32", "/sizes/" + d.sizeNames[i]));
    }
    for (let i: i32 = 0; i < d.params.length; i++) {
      const p = d.params[i];
      for (let j: i32 = 0; j < i; j++) {
        if (d.params[j].name == p.name) this.diags.push(diagRelated("TIR028", p.ptr + "/name", "Rename the parameter \"" + p.name + "\": parameter names must be unique.", d.params[j].ptr));
      }
      for (let k: i32 = 0; k < p.shape.length; k++) {
        const e = p.shape[k];
        if (e.op == "name" && d.sizeIndex(e.name) < 0) {
          this.err("TIR011", e.ptr, "Declare the size \"" + e.name + "\" under \"sizes\" or use an integer extent." + didYouMean(e.name, d.sizeNames));
        }
      }
    }
    this.stmts(d.body);
    if (!this.sawParallel && this.diags.length == 0) {
      this.err("TIR026", "/body", "Mark the loop over independent rows or elements \"kind\": \"parallel\"; with no parallel loop there is nothing to map to threads.");
    }
  }

  stmts(list: Array<Stmt>): void {
    const mark = this.scope.length;
    for (let i: i32 = 0; i < list.length; i++) this.stmt(list[i]);
    this.leave(mark);
  }

  /** Checks a loop bound expression; returns its exact constant value range when known. */
  boundExpr(e: Expr, what: string): void {
    if (e.op == "none") return;
    const t = this.expr(e);
    if (t != "" && t != "i32") {
      this.err("TIR021", e.ptr, "The loop " + what + " must be an integer expression of sizes and enclosing variables (found " + t + ").");
      return;
    }
    if (this.containsLoadOrScalar(e)) {
      this.err("TIR021", e.ptr, "The loop " + what + " must be an integer expression of sizes and enclosing loop variables, without loads or scalars.");
    }
  }

  containsLoadOrScalar(e: Expr): bool {
    if (e.op == "load") return true;
    if (e.op == "name" && e.ref == "scalar") return true;
    for (let i: i32 = 0; i < e.args.length; i++) if (this.containsLoadOrScalar(e.args[i])) return true;
    return false;
  }

  /** Binds a loop or axis variable with its exact range when min, extent and step are constant. */
  bindRange(name: string, kind: string, ptr: string, s: Stmt): void {
    const b = new Binding(name, kind, "i32", ptr);
    const env = this.affineEnv();
    const mn = this.i32Bound(s.min, affineOf(s.min, env, 0));
    const ex = this.i32Bound(s.extent, affineOf(s.extent, env, 0));
    const st = this.i32Bound(s.step, affineOf(s.step, env, 0));
    if (ex !== null) {
      const eb = new Array<f64>();
      b.runs = this.deepBounds(changetype<Affine>(ex), eb) && eb[0] >= 1.0 && eb[1] <= I32_HI;
      // a loop that runs only for some values of one enclosing variable ([0, r) does not at r = 0):
      // inside it that variable takes only those values, so its range is narrowed to them for the
      // loop's scope and the accesses in it are decided (red team, session 32: an exclusive prefix
      // [0, r) past a row's end was emitted without a word, where [0, r + 1) gave TIR023)
      if (!b.runs && this.narrowToRun(changetype<Affine>(ex))) {
        const nb = new Array<f64>();
        b.runs = this.deepBounds(changetype<Affine>(ex), nb) && nb[0] >= 1.0 && nb[1] <= I32_HI;
      }
    }
    if (mn !== null && ex !== null && st !== null) {
      const mb = new Array<f64>();
      const m = changetype<Affine>(mn);
      const x = changetype<Affine>(ex);
      const p = changetype<Affine>(st);
      if (x.isConst() && p.isConst() && x.c >= 1.0 && p.c >= 1.0 && x.c <= I32_HI && p.c <= I32_HI &&
          this.boundsOf(m, mb) && fitsI32(mb[0], mb[1])) {
        b.lo = mb[0];
        b.hi = mb[1] + (x.c - 1.0) * p.c;
        b.exact = true;
        b.unitStep = p.c == 1.0;
        if (b.hi > I32_HI) {
          this.err("TIR030", ptr, "The " + (kind == "axis" ? "reduction" : "loop") + " variable \"" + name + "\" would reach " + fmtInt(b.hi) +
            ", past the i32 range (at most 2147483647): shorten the range or lower its min.");
        }
        if (mb[0] != mb[1]) {
          // min varies with enclosing variables (each over an exact range, so its extremes are
          // reached): the variable is min + t with t over [0, (extent - 1) * step], independent of them
          const t = new Binding(this.hiddenName(name), kind, "i32", ptr);
          t.hidden = true;
          t.shadows = this.lookup(name) !== null;
          t.runs = true;
          t.lo = 0.0;
          t.hi = (x.c - 1.0) * p.c;
          t.exact = true;
          this.enter(t);
          const sum = new Expr("add", s.min.ptr);
          const tv = new Expr("name", ptr);
          tv.name = t.name;
          const args = new Array<Expr>();
          args.push(s.min);
          args.push(tv);
          sum.args = args;
          b.shift = sum;
        }
      } else if (b.runs && p.isConst() && p.c >= 1.0 && p.c <= I32_HI) {
        // the extent (or min) depends on enclosing variables: bounded through them, exactly
        const lastForm = addScaled(m, x, p.c);
        let last: Affine | null = null;
        if (lastForm !== null) last = addScaled(changetype<Affine>(lastForm), constForm(1.0), -p.c);
        const vb = new Array<f64>();
        const nb = new Array<f64>();
        const ib = new Array<f64>();
        if (last !== null && this.deepBounds(m, ib) && fitsI32(ib[0], ib[1]) && this.deepBounds(changetype<Affine>(last), vb)) {
          if (vb[1] > I32_HI && vb[1] <= EXACT_F64) {
            this.err("TIR030", ptr, "The " + (kind == "axis" ? "reduction" : "loop") + " variable \"" + name + "\" would reach " + fmtInt(vb[1]) +
              ", past the i32 range (at most 2147483647): shorten the range or lower its min.");
          } else if (fitsI32(vb[0], vb[1]) && this.deepBounds(x, nb)) {
            b.dependent = true;
            b.minForm = m;
            b.extForm = x;
            b.stepC = p.c;
          }
        }
      }
    }
    this.bind(b);
  }

  /** Where the extent form `x` depends on one enclosing loop or axis variable alone (an exact
   *  range, step 1, itself running), narrows that variable's range to the values for which
   *  x >= 1, until the scope being entered is left; false where there is no such variable or no
   *  value runs the loop. */
  narrowToRun(x: Affine): bool {
    const sup = x.support();
    if (sup.length != 1) return false;
    const found = this.lookup(sup[0]);
    if (found === null) return false;
    const v = changetype<Binding>(found);
    if ((v.kind != "loop" && v.kind != "axis") || !v.exact || !v.unitStep || !v.runs || v.hidden || v.shadows) return false;
    const k: f64 = x.coef(sup[0]);
    // k * v + c >= 1; |k| and |c| small enough that the quotient and the checks below are exact
    if (Math.abs(k) > 1048576.0 || Math.abs(x.c) > 4294967296.0) return false;
    const edge: f64 = (1.0 - x.c) / k;
    let lo: f64 = v.lo;
    let hi: f64 = v.hi;
    if (k > 0.0) {
      const e: f64 = Math.ceil(edge);
      if (e > lo) lo = e;
    } else {
      const e: f64 = Math.floor(edge);
      if (e < hi) hi = e;
    }
    if (lo > hi || (lo == v.lo && hi == v.hi)) return false;
    // the new ends run the loop, and the values just outside them do not
    if (k * lo + x.c < 1.0 || k * hi + x.c < 1.0) return false;
    if (k > 0.0 && lo > v.lo && k * (lo - 1.0) + x.c >= 1.0) return false;
    if (k < 0.0 && hi < v.hi && k * (hi + 1.0) + x.c >= 1.0) return false;
    this.narrowed.push(v);
    this.narrowLo.push(v.lo);
    this.narrowHi.push(v.hi);
    this.narrowMarks.push(this.scope.length);
    v.lo = lo;
    v.hi = hi;
    return true;
  }

  /** Exact [lo, hi] of an affine form through loops whose extents depend on enclosing variables
   *  (Binding.dependent): each such variable, innermost first, is replaced by its min, or by its
   *  last value min + step * (extent - 1), whichever end extends the bound sought; what remains is
   *  bounded by boundsOf. Every loop around runs at least once for every value of the variables
   *  outside it, so both ends are values that iterations take. */
  deepBounds(a: Affine, out: Array<f64>): bool {
    if (this.boundsOf(a, out)) return true;
    const hiF = this.eliminate(a, true);
    const loF = this.eliminate(a, false);
    if (hiF === null || loF === null) return false;
    const h = new Array<f64>();
    const l = new Array<f64>();
    if (!this.boundsOf(changetype<Affine>(hiF), h) || !this.boundsOf(changetype<Affine>(loF), l)) return false;
    out.push(l[0]);
    out.push(h[1]);
    return true;
  }

  eliminate(a: Affine, upper: bool): Affine | null {
    let f: Affine = a;
    for (let i: i32 = this.scope.length - 1; i >= 0; i--) {
      const b = this.scope[i];
      if (!b.dependent) continue;
      const k: f64 = f.coef(b.name);
      if (k == 0.0) continue;
      const unit = new Affine();
      unit.vars.push(b.name);
      unit.coefs.push(1.0);
      let g = addScaled(f, unit, -k);
      if (g !== null) g = addScaled(changetype<Affine>(g), changetype<Affine>(b.minForm), k);
      if (g !== null && (k * b.stepC > 0.0) == upper) {
        g = addScaled(changetype<Affine>(g), changetype<Affine>(b.extForm), k * b.stepC);
        if (g !== null) g = addScaled(changetype<Affine>(g), constForm(1.0), -k * b.stepC);
      }
      if (g === null) return null;
      f = changetype<Affine>(g);
    }
    return f;
  }

  /** A bound's affine form at its i32 value: an exact constant outside i32 is the value its
   *  arithmetic wraps to (3 - 65536 * 65536 is 3), as in the kernel and the oracle. */
  i32Bound(e: Expr, a: Affine | null): Affine | null {
    if (a !== null && !changetype<Affine>(a).isConst()) return a;
    if (a !== null) {
      const c: f64 = changetype<Affine>(a).c;
      if (fitsI32(c, c)) return a;
    }
    // a constant outside i32, or one that is not affine (select, cast, min, max of constants)
    const k = evalConstI32(e, this.doc, 0);
    if (!k.ok) return null;
    const r = new Affine();
    r.c = <f64>k.value;
    return r;
  }

  /** Reports a computed step that can be below 1, where its range is known exactly. */
  stepPositive(st: Expr): void {
    const a = this.i32Bound(st, affineOf(st, this.affineEnv(), 0));
    if (a === null) return;
    const range = new Array<f64>();
    if (!this.boundsOf(changetype<Affine>(a), range)) return;
    if (range[0] < 1.0) this.err("TIR021", st.ptr, "Give the loop a positive step; this one can be " + fmtInt(range[0]) + ".");
  }

  stmt(s: Stmt): void {
    if (s.kind == "for") {
      if (s.parallel) this.sawParallel = true;
      this.boundExpr(s.min, "min");
      this.boundExpr(s.extent, "extent");
      this.boundExpr(s.step, "step");
      const st = s.step;
      if (st.op == "int" && st.ival <= 0) this.err("TIR021", st.ptr, "Give the loop a positive step.");
      else if (st.op != "int") this.stepPositive(st);
      if (s.parallel && !(st.op == "int" && st.ival == 1)) this.err("TIR022", st.ptr, "Remove the step of the parallel loop \"" + s.name + "\" or make the loop serial: parallel loops step by 1.");
      const mark = this.scope.length;
      this.bindRange(s.name, "loop", s.ptr + "/for", s);
      this.stmts(s.body);
      this.leave(mark);
      return;
    }
    if (s.kind == "reduce") {
      this.boundExpr(s.min, "min");
      this.boundExpr(s.extent, "extent");
      const mark = this.scope.length;
      this.bindRange(s.axis, "axis", s.ptr + "/over/0", s);
      const t = this.expr(s.value);
      if (t == "bool") this.err("TIR017", s.value.ptr, "A reduce combines numbers; the value is bool. Use select to turn a condition into 0 or 1.");
      this.leave(mark);
      if (this.reduceAxes.indexOf(s.axis) < 0) this.reduceAxes.push(s.axis);
      this.bind(new Binding(s.name, "scalar", t == "bool" ? "" : t, s.ptr + "/reduce"));
      return;
    }
    if (s.kind == "let") {
      const t = this.expr(s.value);
      const b = new Binding(s.name, "scalar", t, s.ptr + "/let");
      if (t == "i32") b.value = s.value;
      this.bind(b);
      return;
    }
    if (s.kind == "store") {
      const pi = this.doc.paramIndex(s.name);
      if (pi < 0) {
        this.err("TIR012", s.ptr + "/store", "Store into a declared parameter; \"" + s.name + "\" is not one." + didYouMean(s.name, this.paramNames()));
        for (let i: i32 = 0; i < s.at.length; i++) this.expr(s.at[i]);
        this.expr(s.value);
        return;
      }
      this.access(pi, s.at, s.ptr + "/at", s.ptr);
      const t = this.expr(s.value);
      const want = valueType(this.doc.params[pi].dtype);
      if (t != "" && want != "" && t != want) {
        const dt = this.doc.params[pi].dtype;
        // an f16 or bf16 buffer takes f32 values (the store rounds them): name both
        const holds = dt == want ? want : dt + " (a store takes an " + want + " value and rounds it)";
        this.err("TIR017", s.value.ptr, "The buffer \"" + s.name + "\" holds " + holds + " but the stored value is " + t + "; add a cast.");
      }
      return;
    }
    // if
    const ct = this.expr(s.cond);
    if (ct != "" && ct != "bool") this.err("TIR017", s.cond.ptr, "The condition of an if must be bool (a comparison), not " + ct + ".");
    this.guarded++;
    this.stmts(s.body);
    this.stmts(s.orelse);
    this.guarded--;
  }

  /** Whether affine form `a` has a variable bound over a name in scope (Binding.shadows). */
  throughShadow(a: Affine): bool {
    for (let i: i32 = 0; i < a.vars.length; i++) {
      const b = this.lookup(a.vars[i]);
      if (b !== null && changetype<Binding>(b).shadows && a.coefs[i] != 0.0) return true;
    }
    return false;
  }

  /** Where a variable of the index starts above 0 (a loop or axis range [1, C]), the reminder that
   *  a range's second number is its extent, not its end (red team, session 32: ["c", 1, "C"]
   *  meant c from 1 to C - 1). */
  extentHint(a: Affine): string {
    for (let i: i32 = 0; i < a.vars.length; i++) {
      const b = this.lookup(a.vars[i]);
      if (b === null || a.coefs[i] == 0.0) continue;
      const bb = changetype<Binding>(b);
      if ((bb.kind == "loop" || bb.kind == "axis") && bb.exact && bb.lo > 0.0) {
        return " The range of \"" + bb.name + "\" starts at " + fmtInt(bb.lo) + ": a range is [min, extent], its second number the count of iterations, not the end (for " + fmtInt(bb.lo) + " up to the dimension's end, write the extent as the dimension minus " + fmtInt(bb.lo) + ").";
      }
    }
    return "";
  }

  /** Checks the index list of an access to parameter `pi`. */
  access(pi: i32, idx: Array<Expr>, listPtr: string, nodePtr: string): void {
    const p = this.doc.params[pi];
    for (let i: i32 = 0; i < idx.length; i++) {
      const t = this.expr(idx[i]);
      if (t != "" && t != "i32") this.err("TIR017", idx[i].ptr, "An index must be i32, not " + t + ".");
    }
    if (idx.length != p.shape.length) {
      this.err("TIR018", listPtr, "The buffer \"" + p.name + "\" has " + p.shape.length.toString() + " dimension" + (p.shape.length == 1 ? "" : "s") + " but the access gives " + idx.length.toString() + " index" + (idx.length == 1 ? "" : "es") + ".");
      return;
    }
    if (this.guarded > 0) return;
    for (let i: i32 = 0; i < this.scope.length; i++) {
      const b = this.scope[i];
      if ((b.kind == "loop" || b.kind == "axis") && !b.runs) return;
    }
    const env = this.affineEnv();
    for (let i: i32 = 0; i < idx.length; i++) {
      const a = affineOf(idx[i], env, 0);
      if (a === null || this.throughShadow(changetype<Affine>(a))) continue;
      const range = new Array<f64>();
      if (!this.deepBounds(changetype<Affine>(a), range)) continue;
      const extent: f64 = <f64>this.doc.dim(pi, i);
      if (extent <= 0.0) continue;
      // i32 arithmetic wraps (add, sub, mul, neg are exact modulo 2^32): the index takes the exact
      // value shifted into the i32 range by a multiple of 2^32. Where the exact range spans two
      // such shifts the values are not one range: its two ends (both taken) are checked alone
      const lo: f64 = range[0];
      const hi: f64 = range[1];
      if (!wrapIntoI32(range)) {
        const a: f64 = wrapI32(lo);
        const b: f64 = wrapI32(hi);
        const bad: f64 = a < 0.0 || a >= extent ? a : b;
        if (Math.abs(lo) <= EXACT_F64 && Math.abs(hi) <= EXACT_F64 && (bad < 0.0 || bad >= extent)) {
          this.err("TIR023", idx[i].ptr, "Index " + i.toString() + " of \"" + p.name + "\" takes the value " + fmtInt(bad) + " (its i32 arithmetic wraps) but the dimension has extent " + fmtInt(extent) + " (valid 0.." + fmtInt(extent - 1.0) + ").");
        }
        continue;
      }
      if (range[0] < 0.0 || range[1] >= extent) {
        this.err("TIR023", idx[i].ptr, "Index " + i.toString() + " of \"" + p.name + "\" ranges over [" + fmtInt(range[0]) + ", " + fmtInt(range[1]) + "] but the dimension has extent " + fmtInt(extent) + " (valid 0.." + fmtInt(extent - 1.0) + ")." +
          (range[1] >= extent ? this.extentHint(changetype<Affine>(a)) : ""));
      }
    }
  }

  /** Types an expression; returns "" when ill-typed (already reported). */
  expr(e: Expr): string {
    const op = e.op;
    if (op == "none") return "";
    if (op == "int") {
      e.ty = "i32";
      return "i32";
    }
    if (op == "f32") {
      e.ty = "f32";
      return "f32";
    }
    if (op == "name") {
      const bb = this.lookup(e.name);
      if (bb === null) {
        if (this.doc.paramIndex(e.name) >= 0) this.err("TIR010", e.ptr, "\"" + e.name + "\" is a buffer; read it with [\"load\", \"" + e.name + "\", [indices]].");
        else if (this.reduceAxes.indexOf(e.name) >= 0) this.err("TIR010", e.ptr, "The name \"" + e.name + "\" is not in scope here: it is the axis of a reduce, bound only inside that reduce's value. To visit the elements again after the reduce, write a loop over them (a parallel `for` binds its own variable).");
        else this.err("TIR010", e.ptr, "The name \"" + e.name + "\" is not in scope here; bind it first or check its spelling." + didYouMean(e.name, this.scopeNames()));
        return "";
      }
      const b = changetype<Binding>(bb);
      e.ref = b.kind;
      e.ty = b.ty;
      return b.ty;
    }
    if (op == "load") {
      const pi = this.doc.paramIndex(e.name);
      if (pi < 0) {
        this.err("TIR012", e.ptr + "/1", "Load from a declared parameter; \"" + e.name + "\" is not one." + didYouMean(e.name, this.paramNames()));
        for (let i: i32 = 0; i < e.args.length; i++) this.expr(e.args[i]);
        return "";
      }
      this.access(pi, e.args, e.ptr + "/2", e.ptr);
      const t = valueType(this.doc.params[pi].dtype);
      e.ty = t == "f32" || t == "i32" ? t : "";
      return e.ty;
    }
    if (op == "cast") {
      // f32 <-> i32, and bool to 0 or 1 (docs/tile-ir.md)
      this.expr(e.args[0]);
      e.ty = e.name;
      return e.ty;
    }
    if (op == "select") {
      // only the chosen operand is evaluated (the kernel's `c ? a : b`, the oracle), so an access
      // in either operand is guarded by the condition, as one under an if: left to the run
      const c = this.expr(e.args[0]);
      this.guarded++;
      const a = this.expr(e.args[1]);
      const b = this.expr(e.args[2]);
      this.guarded--;
      if (c != "" && c != "bool") this.err("TIR017", e.args[0].ptr, "The first operand of select must be bool, not " + c + ".");
      if (a != "" && b != "" && a != b) {
        this.err("TIR017", e.ptr, "Both choices of select must have one type (found " + a + " and " + b + ").");
        return "";
      }
      e.ty = a == "" ? b : a;
      return e.ty;
    }
    if (isBinary(op)) {
      const a = this.expr(e.args[0]);
      // `and` / `or` evaluate their right operand only when the left one does not decide
      const lazy: bool = op == "and" || op == "or";
      if (lazy) this.guarded++;
      const b = this.expr(e.args[1]);
      if (lazy) this.guarded--;
      if (a == "" || b == "") return "";
      if (op == "and" || op == "or") {
        if (a != "bool" || b != "bool") {
          this.err("TIR017", e.ptr, "\"" + op + "\" takes two bool operands (found " + a + " and " + b + ").");
          return "";
        }
        e.ty = "bool";
        return "bool";
      }
      if (a != b) {
        this.err("TIR017", e.ptr, "Both operands of \"" + op + "\" must have one type (found " + a + " and " + b + "); add a cast" + castHint(e, a, b) + ".");
        return "";
      }
      if (a == "bool" && op != "eq" && op != "ne") {
        this.err("TIR017", e.ptr, "\"" + op + "\" takes numbers, not bool" + (op == "lt" || op == "le" || op == "gt" || op == "ge" ? " (bool compares with eq and ne only)." : "."));
        return "";
      }
      if (op == "mod" && a != "i32") {
        this.err("TIR017", e.ptr, "\"mod\" is defined on i32 only.");
        return "";
      }
      e.ty = (op == "lt" || op == "le" || op == "gt" || op == "ge" || op == "eq" || op == "ne") ? "bool" : a;
      return e.ty;
    }
    // unary
    const a = this.expr(e.args[0]);
    if (a == "") return "";
    if (op == "not") {
      if (a != "bool") {
        this.err("TIR017", e.ptr, "\"not\" takes a bool operand, not " + a + ".");
        return "";
      }
      e.ty = "bool";
      return "bool";
    }
    if (a == "bool") {
      this.err("TIR017", e.ptr, "\"" + op + "\" takes a number, not bool.");
      return "";
    }
    if (op != "neg" && op != "abs" && a != "f32") {
      this.err("TIR017", e.ptr, "\"" + op + "\" is defined on f32 only; cast the operand to f32.");
      return "";
    }
    e.ty = a;
    return a;
  }
}

function fmtInt(x: f64): string {
  return formatF64Fixed(x, 0);
}

/** Checks names, types, index counts, loop bounds and static bounds of a read document. */
export function checkIr(doc: Doc): Array<Diagnostic> {
  const c = new Checker(doc);
  c.run();
  return c.diags;
}
