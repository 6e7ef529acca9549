// Element-family cases: `for r in [0, R] parallel { for c in [0, C] parallel { let...;
// store... } }`. One or two outputs over [R, C].

import { q, f32, op1, op2, load2, store2, letStmt, parallelFor, param2, tileDocument } from "./text";

/** sqrt(2 / pi), the tanh-GELU scale, as the decimal text of its nearest double. */
const K0: string = "0.7978845608028654";
/** The cubic coefficient of the tanh-GELU approximation. */
const CUBIC: string = "0.044715";

/** `["f32", text]` shorthand for the constants below. */
function half(): string {
  return f32("0.5");
}

function one(): string {
  return f32("1");
}

/** The two nested parallel loops around an innermost body. */
function grid(inner: Array<string>): string {
  const rowBody: Array<string> = [parallelFor("c", "0", q("C"), inner)];
  return parallelFor("r", "0", q("R"), rowBody);
}

/** `[buf, "f32", ["R", "C"]]` for every buffer of these cases. */
function rc(name: string): string {
  return param2(name, "f32", "R", "C");
}

/**
 * Appends `let u = k0 * (x + 0.044715 * x^3)` and `let t = tanh(u)` for a bound scalar `x`.
 */
function geluCore(out: Array<string>): void {
  const x3 = op2("mul", q("x"), op2("mul", q("x"), q("x")));
  const inner = op2("add", q("x"), op2("mul", f32(CUBIC), x3));
  out.push(letStmt("u", op2("mul", f32(K0), inner)));
  out.push(letStmt("t", op1("tanh", q("u"))));
}

/** `0.5 * x * (1 + t)`: the tanh-GELU value from the bound `x` and `t`. */
function geluValue(): string {
  return op2("mul", op2("mul", half(), q("x")), op2("add", one(), q("t")));
}

/**
 * `sigmoid_pair`: S = 1 / (1 + exp(-x)), D = S * (1 - S).
 * Reads X [R, C]; writes S [R, C] and D [R, C].
 */
export function sigmoidPair(rows: i32, columns: i32): string {
  const params: Array<string> = [rc("X"), rc("S"), rc("D")];
  const s = op2("div", one(), op2("add", one(), op1("exp", op1("neg", load2("X", q("r"), q("c"))))));
  const inner: Array<string> = [
    letStmt("s", s),
    store2("S", q("r"), q("c"), q("s")),
    store2("D", q("r"), q("c"), op2("mul", q("s"), op2("sub", one(), q("s")))),
  ];
  const body: Array<string> = [grid(inner)];
  return tileDocument("sigmoid_pair", rows, columns, params, body);
}

/**
 * `gelu_pair`: the tanh-approximate GELU and its exact derivative, with
 * u = k0 (x + 0.044715 x^3), t = tanh(u):
 * G = 0.5 x (1 + t), D = 0.5 (1 + t) + 0.5 x (1 - t^2) k0 (1 + 3 * 0.044715 x^2).
 * Reads X [R, C]; writes G [R, C] and D [R, C].
 */
export function geluPair(rows: i32, columns: i32): string {
  const params: Array<string> = [rc("X"), rc("G"), rc("D")];
  const inner: Array<string> = [letStmt("x", load2("X", q("r"), q("c")))];
  geluCore(inner);
  // du/dx / k0 = 1 + 3 * 0.044715 * x^2 (the 3 and the coefficient kept as separate literals).
  const dudx = op2("add", one(),
    op2("mul", f32("3"), op2("mul", f32(CUBIC), op2("mul", q("x"), q("x")))));
  const sech2 = op2("sub", one(), op2("mul", q("t"), q("t")));
  const slope = op2("mul", op2("mul", op2("mul", half(), q("x")), sech2),
    op2("mul", f32(K0), dudx));
  const d = op2("add", op2("mul", half(), op2("add", one(), q("t"))), slope);
  inner.push(store2("G", q("r"), q("c"), geluValue()));
  inner.push(store2("D", q("r"), q("c"), d));
  const body: Array<string> = [grid(inner)];
  return tileDocument("gelu_pair", rows, columns, params, body);
}

/** `add`: Z = A + B. Reads A [R, C], B [R, C]; writes Z [R, C]. */
export function add(rows: i32, columns: i32): string {
  const params: Array<string> = [rc("A"), rc("B"), rc("Z")];
  const z = op2("add", load2("A", q("r"), q("c")), load2("B", q("r"), q("c")));
  const inner: Array<string> = [store2("Z", q("r"), q("c"), z)];
  const body: Array<string> = [grid(inner)];
  return tileDocument("add", rows, columns, params, body);
}

/** `gelu_add`: G = gelu(A + B), tanh-approximate. Reads A [R, C], B [R, C]; writes G [R, C]. */
export function geluAdd(rows: i32, columns: i32): string {
  const params: Array<string> = [rc("A"), rc("B"), rc("G")];
  const inner: Array<string> = [
    letStmt("x", op2("add", load2("A", q("r"), q("c")), load2("B", q("r"), q("c")))),
  ];
  geluCore(inner);
  inner.push(store2("G", q("r"), q("c"), geluValue()));
  const body: Array<string> = [grid(inner)];
  return tileDocument("gelu_add", rows, columns, params, body);
}

/** 1 / sqrt(2), as the decimal text of its nearest double. */
const INV_SQRT2: string = "0.7071067811865476";
/** 1 / sqrt(2 pi), the standard normal density at 0, as the decimal text of its nearest double. */
const INV_SQRT_2PI: string = "0.3989422804014327";

/**
 * `gelu_exact_pair`: the exact (erf) GELU, the default of MLX's `nn.gelu` and PyTorch's
 * `F.gelu`, and its derivative, with Phi(x) = 0.5 (1 + erf(x / sqrt 2)):
 * G = x Phi(x), D = Phi(x) + x exp(-x^2 / 2) / sqrt(2 pi).
 * Reads X [R, C]; writes G [R, C] and D [R, C].
 */
export function geluExactPair(rows: i32, columns: i32): string {
  const params: Array<string> = [rc("X"), rc("G"), rc("D")];
  const density = op2("mul", f32(INV_SQRT_2PI),
    op1("exp", op2("mul", f32("-0.5"), op2("mul", q("x"), q("x")))));
  const inner: Array<string> = [
    letStmt("x", load2("X", q("r"), q("c"))),
    letStmt("phi", op2("mul", half(), op2("add", one(), op1("erf", op2("mul", q("x"), f32(INV_SQRT2)))))),
    store2("G", q("r"), q("c"), op2("mul", q("x"), q("phi"))),
    store2("D", q("r"), q("c"), op2("add", q("phi"), op2("mul", q("x"), density))),
  ];
  const body: Array<string> = [grid(inner)];
  return tileDocument("gelu_exact_pair", rows, columns, params, body);
}
