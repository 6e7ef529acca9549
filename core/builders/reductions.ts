// Reduction-family cases: one parallel loop over rows; inside it, reductions over the
// columns, then a parallel loop over the columns that stores the row's outputs.
// Buffers: X [R, C] input; per-case outputs documented on each builder.

import {
  q, f32, op1, op2, cast, load1, load2, store1, store2, letStmt, reduceStmt, parallelFor,
  param1, param2, tileDocument,
} from "./text";

/** `["load", "X", ["r", "c"]]`: the element every row case reads. */
function x(): string {
  return load2("X", q("r"), q("c"));
}

/** `["f32", 1e-5]`: the normalization epsilon. */
function eps(): string {
  return f32("1e-5");
}

/** `["cast", "f32", "C"]`: the row length as f32. */
function cols(): string {
  return cast("f32", q("C"));
}

/** The row loop `for r in [0, R] parallel { body }`. */
function rowLoop(body: Array<string>): string {
  return parallelFor("r", "0", q("R"), body);
}

/** The column loop `for c in [0, C] parallel { one store }`. */
function colLoop(store: string): string {
  const body: Array<string> = [store];
  return parallelFor("c", "0", q("C"), body);
}

/** A column reduction `n = combiner over c in [0, C] of value`. */
function overCols(n: string, combiner: string, value: string): string {
  return reduceStmt(n, combiner, "c", "0", q("C"), value);
}

/** `sum`: Y[r] = sum over c of X[r, c]. Reads X [R, C]; writes Y [R]. */
export function rowSum(rows: i32, columns: i32): string {
  const params: Array<string> = [param2("X", "f32", "R", "C"), param1("Y", "f32", "R")];
  const inner: Array<string> = [
    overCols("s", "sum", x()),
    store1("Y", q("r"), q("s")),
  ];
  const body: Array<string> = [rowLoop(inner)];
  return tileDocument("sum", rows, columns, params, body);
}

/** `minmax`: MN[r] = min and MX[r] = max over c of X[r, c]. Reads X; writes MN [R], MX [R]. */
export function rowMinMax(rows: i32, columns: i32): string {
  const params: Array<string> = [
    param2("X", "f32", "R", "C"), param1("MN", "f32", "R"), param1("MX", "f32", "R"),
  ];
  const inner: Array<string> = [
    overCols("lo", "min", x()),
    overCols("hi", "max", x()),
    store1("MN", q("r"), q("lo")),
    store1("MX", q("r"), q("hi")),
  ];
  const body: Array<string> = [rowLoop(inner)];
  return tileDocument("minmax", rows, columns, params, body);
}

/** `softmax`, exactly the example of tile-ir.md. Reads X [R, C]; writes Y [R, C]. */
export function softmax(rows: i32, columns: i32): string {
  return softmaxOf(rows, columns, "f32", "softmax");
}

/** The case name of a 16-bit variant: `softmax_f16`, `rmsnorm_bf16`. */
function variantName(base: string, dtype: string): string {
  return dtype == "f32" ? base : base + "_" + dtype;
}

/**
 * softmax with X and Y of `dtype` (f32, f16 or bf16): loads convert to f32, the reductions
 * accumulate in f32 and the store rounds to the dtype, as MLX's softmax does.
 */
export function softmaxOf(rows: i32, columns: i32, dtype: string, name: string): string {
  const params: Array<string> = [param2("X", dtype, "R", "C"), param2("Y", dtype, "R", "C")];
  const shifted = op1("exp", op2("sub", x(), q("m")));
  const inner: Array<string> = [
    overCols("m", "max", x()),
    overCols("s", "sum", shifted),
    colLoop(store2("Y", q("r"), q("c"), op2("div", shifted, q("s")))),
  ];
  const body: Array<string> = [rowLoop(inner)];
  return tileDocument(name, rows, columns, params, body);
}

/** `softmax_f16`, `softmax_bf16`. */
export function softmaxT(rows: i32, columns: i32, dtype: string): string {
  return softmaxOf(rows, columns, dtype, variantName("softmax", dtype));
}

/**
 * The statements shared by both layer norms, up to the reciprocal standard deviation:
 * s = sum x; mean = s / C; q = sum (x - mean)^2; var = q / C; inv = rsqrt(var + eps).
 */
function normalizeRow(out: Array<string>): void {
  const centered = op2("sub", x(), q("mean"));
  out.push(overCols("s", "sum", x()));
  out.push(letStmt("mean", op2("div", q("s"), cols())));
  out.push(overCols("q", "sum", op2("mul", centered, centered)));
  out.push(letStmt("var", op2("div", q("q"), cols())));
  out.push(letStmt("inv", op1("rsqrt", op2("add", q("var"), eps()))));
}

/** `layernorm` without affine: Y = (x - mean) * rsqrt(var + 1e-5). Reads X; writes Y [R, C]. */
export function layerNorm(rows: i32, columns: i32): string {
  return layerNormT(rows, columns, "f32");
}

/** `layernorm` with X and Y of `dtype` (`layernorm_f16`, `layernorm_bf16`); f32 inside. */
export function layerNormT(rows: i32, columns: i32, dtype: string): string {
  const params: Array<string> = [param2("X", dtype, "R", "C"), param2("Y", dtype, "R", "C")];
  const inner: Array<string> = [];
  normalizeRow(inner);
  const y = op2("mul", op2("sub", x(), q("mean")), q("inv"));
  inner.push(colLoop(store2("Y", q("r"), q("c"), y)));
  const body: Array<string> = [rowLoop(inner)];
  return tileDocument(variantName("layernorm", dtype), rows, columns, params, body);
}

/**
 * `layernorm_affine`: Y = (x - mean) * rsqrt(var + 1e-5) * G[c] + B[c].
 * Reads X [R, C], G [C], B [C]; writes Y [R, C].
 */
export function layerNormAffine(rows: i32, columns: i32): string {
  const params: Array<string> = [
    param2("X", "f32", "R", "C"), param1("G", "f32", "C"), param1("B", "f32", "C"),
    param2("Y", "f32", "R", "C"),
  ];
  const inner: Array<string> = [];
  normalizeRow(inner);
  const normed = op2("mul", op2("sub", x(), q("mean")), q("inv"));
  const y = op2("add", op2("mul", normed, load1("G", q("c"))), load1("B", q("c")));
  inner.push(colLoop(store2("Y", q("r"), q("c"), y)));
  const body: Array<string> = [rowLoop(inner)];
  return tileDocument("layernorm_affine", rows, columns, params, body);
}

/**
 * `rmsnorm`: ms = sum(x * x) / C; Y = x * rsqrt(ms + 1e-5) * G[c].
 * Reads X [R, C], G [C]; writes Y [R, C].
 */
export function rmsNorm(rows: i32, columns: i32): string {
  return rmsNormT(rows, columns, "f32");
}

/** `rmsnorm` with X, G and Y of `dtype` (`rmsnorm_f16`, `rmsnorm_bf16`); f32 inside. */
export function rmsNormT(rows: i32, columns: i32, dtype: string): string {
  const params: Array<string> = [
    param2("X", dtype, "R", "C"), param1("G", dtype, "C"), param2("Y", dtype, "R", "C"),
  ];
  const y = op2("mul", op2("mul", x(), q("inv")), load1("G", q("c")));
  const inner: Array<string> = [
    overCols("ss", "sum", op2("mul", x(), x())),
    letStmt("ms", op2("div", q("ss"), cols())),
    letStmt("inv", op1("rsqrt", op2("add", q("ms"), eps()))),
    colLoop(store2("Y", q("r"), q("c"), y)),
  ];
  const body: Array<string> = [rowLoop(inner)];
  return tileDocument(variantName("rmsnorm", dtype), rows, columns, params, body);
}
