// The built-in cases: every operator as a Tile IR v1 document (JSON text), by name.
// Each builder takes the sizes R (rows) and C (columns); `buildCase` uses the defaults.

import { rowSum, rowMinMax, softmax, layerNorm, layerNormAffine, rmsNorm, softmaxT, layerNormT, rmsNormT } from "./reductions";
import { sigmoidPair, geluPair, geluExactPair, add, geluAdd } from "./elementwise";

export { rowSum, rowMinMax, softmax, layerNorm, layerNormAffine, rmsNorm } from "./reductions";
export { sigmoidPair, geluPair, geluExactPair, add, geluAdd } from "./elementwise";

/** Default rows (R) of every case. */
export const DEFAULT_ROWS: i32 = 37;
/** Default columns (C) of every case. */
export const DEFAULT_COLS: i32 = 1537;

/** The names of all cases, sorted by code unit. */
export function caseNames(): Array<string> {
  const names: Array<string> = [
    "add", "gelu_add", "gelu_exact_pair", "gelu_pair", "layernorm", "layernorm_affine", "layernorm_bf16",
    "layernorm_f16", "minmax", "rmsnorm", "rmsnorm_bf16", "rmsnorm_f16", "sigmoid_pair", "softmax",
    "softmax_bf16", "softmax_f16", "sum",
  ];
  return names;
}

/** The case `name` at the given sizes, or "" for an unknown name. */
export function buildCaseSized(name: string, rows: i32, cols: i32): string {
  if (name == "add") return add(rows, cols);
  if (name == "gelu_add") return geluAdd(rows, cols);
  if (name == "gelu_exact_pair") return geluExactPair(rows, cols);
  if (name == "gelu_pair") return geluPair(rows, cols);
  if (name == "layernorm") return layerNorm(rows, cols);
  if (name == "layernorm_affine") return layerNormAffine(rows, cols);
  if (name == "minmax") return rowMinMax(rows, cols);
  if (name == "rmsnorm") return rmsNorm(rows, cols);
  if (name == "sigmoid_pair") return sigmoidPair(rows, cols);
  if (name == "softmax") return softmax(rows, cols);
  if (name == "sum") return rowSum(rows, cols);
  if (name == "softmax_f16") return softmaxT(rows, cols, "f16");
  if (name == "softmax_bf16") return softmaxT(rows, cols, "bf16");
  if (name == "layernorm_f16") return layerNormT(rows, cols, "f16");
  if (name == "layernorm_bf16") return layerNormT(rows, cols, "bf16");
  if (name == "rmsnorm_f16") return rmsNormT(rows, cols, "f16");
  if (name == "rmsnorm_bf16") return rmsNormT(rows, cols, "bf16");
  return "";
}

/** The case `name` at its default sizes (R = 37, C = 1537), or "" for an unknown name. */
export function buildCase(name: string): string {
  return buildCaseSized(name, DEFAULT_ROWS, DEFAULT_COLS);
}
