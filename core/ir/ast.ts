// Tile IR v1 as typed, immutable-after-construction nodes. Built by ./read.ts, typed by
// ./check.ts during construction; every later pass only reads them.

/** Shared by every leaf expression (never mutated): leaves allocate no operand array. */
const NO_ARGS: Array<Expr> = new Array<Expr>();

/** Expression node. `op` is the Tile IR operator, or "int" / "f32" / "name" for leaves. */
export class Expr {
  op: string;
  /** i32 literal value. */
  ival: i32 = 0;
  /** f32 literal value (exactly an f32, widened). */
  fval: f64 = 0.0;
  /** Name for "name", buffer for "load", target dtype for "cast". */
  name: string = "";
  /** Operands; leaves share one empty array, so assign a new array before pushing. */
  args: Array<Expr> = NO_ARGS;
  /** JSON pointer of this node in the source document. */
  ptr: string;
  /** "i32", "f32", "bool", or "" before checking / when ill-typed. */
  ty: string = "";
  /** For "name": "size", "loop", "axis" or "scalar". */
  ref: string = "";

  constructor(op: string, ptr: string) {
    this.op = op;
    this.ptr = ptr;
  }
}

/** A copy of node `e` at pointer `ptr`, sharing its operand array (replace it before changing it). */
export function copyExpr(e: Expr, ptr: string): Expr {
  const c = new Expr(e.op, ptr);
  c.ival = e.ival;
  c.fval = e.fval;
  c.name = e.name;
  c.ty = e.ty;
  c.ref = e.ref;
  c.args = e.args;
  return c;
}

export function intLit(v: i32, ptr: string): Expr {
  const e = new Expr("int", ptr);
  e.ival = v;
  e.ty = "i32";
  return e;
}

/** Placeholder for absent expressions (keeps fields non-nullable). */
export const NO_EXPR: Expr = new Expr("none", "");

/** Statement node; `kind` is "for", "reduce", "let", "store" or "if". */
export class Stmt {
  kind: string;
  /** Loop variable, bound scalar name, or stored buffer. */
  name: string = "";
  parallel: bool = false;
  /** Loop / reduction bounds; `step` is the literal 1 unless given. */
  min: Expr = NO_EXPR;
  extent: Expr = NO_EXPR;
  step: Expr = NO_EXPR;
  hasStep: bool = false;
  /** Reduction axis variable and combiner. */
  axis: string = "";
  combiner: string = "";
  value: Expr = NO_EXPR;
  at: Array<Expr> = new Array<Expr>();
  cond: Expr = NO_EXPR;
  body: Array<Stmt> = new Array<Stmt>();
  orelse: Array<Stmt> = new Array<Stmt>();
  hasElse: bool = false;
  ptr: string;

  constructor(kind: string, ptr: string) {
    this.kind = kind;
    this.ptr = ptr;
  }
}

/** The type of the values a buffer of `dtype` holds in expressions: f16 and bf16 load as f32
 *  (exactly) and store from f32 (rounded to nearest even); f32 and i32 are themselves. */
export function valueType(dtype: string): string {
  if (dtype == "f16" || dtype == "bf16") return "f32";
  return dtype;
}

/** Bytes of one element of a buffer of `dtype`. */
export function dtypeBytes(dtype: string): i32 {
  return dtype == "f16" || dtype == "bf16" ? 2 : 4;
}

export class Param {
  name: string;
  dtype: string;
  /** Each dimension is an "int" or a "name" (size) expression. */
  shape: Array<Expr> = new Array<Expr>();
  ptr: string;

  constructor(name: string, dtype: string, ptr: string) {
    this.name = name;
    this.dtype = dtype;
    this.ptr = ptr;
  }
}

export class Doc {
  version: i32 = 1;
  name: string = "";
  noalias: bool = false;
  /** JSON pointer of the noalias flag as written ("/attrs/noalias", "/attrs", or "" when absent). */
  noaliasPtr: string = "";
  sizeNames: Array<string> = new Array<string>();
  sizeValues: Array<i32> = new Array<i32>();
  params: Array<Param> = new Array<Param>();
  body: Array<Stmt> = new Array<Stmt>();

  sizeIndex(name: string): i32 {
    for (let i: i32 = 0; i < this.sizeNames.length; i++) if (this.sizeNames[i] == name) return i;
    return -1;
  }

  size(name: string): i32 {
    const i = this.sizeIndex(name);
    return i < 0 ? 0 : this.sizeValues[i];
  }

  paramIndex(name: string): i32 {
    for (let i: i32 = 0; i < this.params.length; i++) if (this.params[i].name == name) return i;
    return -1;
  }

  /** Extent of dimension `d` of parameter `p` with sizes substituted. */
  dim(p: i32, d: i32): i32 {
    const e = this.params[p].shape[d];
    if (e.op == "int") return e.ival;
    return this.size(e.name);
  }

  /** Number of elements of parameter `p`, exactly (f64; may reach 2^31 and beyond). */
  elementCount(p: i32): f64 {
    let n: f64 = 1.0;
    for (let d: i32 = 0; d < this.params[p].shape.length; d++) n = n * <f64>this.dim(p, d);
    return n;
  }

  /** Number of elements of parameter `p`. */
  elements(p: i32): i32 {
    let n: i32 = 1;
    for (let d: i32 = 0; d < this.params[p].shape.length; d++) n = i32(Math.imul(n, this.dim(p, d)));
    return n;
  }
}
