// A structural generator (issue 12, deliverable 4): documents built on purpose around the shapes
// where proofs and emitted code used to disagree. Each spec is small plain data (fast-check
// shrinks it) and `buildStructural` turns it into a valid document deterministically:
//   program-level if/else and reduce-free serial loops around parallel loops, in-place and
//   shifted read-write pairs, negative and computed program minima, serial steps above 1,
//   guarded loads over larger ranges, stores at several program offsets, cross-program reads,
//   names that collide with generated names and Metal macros, reads past a row's ends guarded by
//   select and and (zero padding: only the chosen operand is evaluated), and loop and reduce
//   extents that are constant but not affine (min and max of sizes and literals), and perfect
//   nests of two parallel loops above the reduction (core/analysis/nest.ts: flat outputs at the
//   nest's linear index, scaled and offset, a transposed one, and programs that collide where the
//   planner reorders the loops, which must then run in the written order), and loops and reduces
//   whose ranges vary by program (causal rows and bands, read back with the same or another minimum),
//   the even and odd elements of pairs stored by one loop, and flat column-major outputs, and a
//   row's values followed by its zeros over ranges that vary by program.
// `honest` is false when the document's `parallel` claim is false (a cross-program read); every
// admitted kernel, the serial fallback included, is still held to the oracle (the fallback runs
// unproven programs in order in one thread). Sizes near 2^31 are drawn by `hugeSpec` for planning and emitting only.
import fc from "fast-check";
import { type Skel, fexpr, skel1 } from "./gen";

export const SHAPES = [
  "if-else", "if-overwrite", "if-inplace", "serial-around", "inplace", "shifted", "neg-min", "mod-min",
  "step", "guarded", "offsets", "offsets-interleaved", "cross-read", "names", "select-pad", "minmax-extent",
  "i32-reuse", "wrap-extent", "nest", "ragged", "even-odd", "flat-transposed", "causal-zeros",
  "element-nest", "inplace-twice",
] as const;
export type Shape = (typeof SHAPES)[number];

export interface StructSpec {
  shape: Shape;
  rows: number;
  cols: number;
  /** A small shape-specific number: a minimum, a step, a repeat count. */
  k: number;
  skel: Skel;
  combiner: "sum" | "max";
}

export interface StructCase {
  doc: any;
  options: Record<string, unknown>;
  family: "reduction";
  honest: boolean;
  shape: Shape;
}

export const structSpec: fc.Arbitrary<StructSpec> = fc.record({
  shape: fc.constantFrom(...SHAPES),
  rows: fc.oneof(fc.integer({ min: 1, max: 9 }), fc.constantFrom(4, 6, 12)),
  cols: fc.constantFrom(1, 3, 5, 31, 32, 33, 40, 70),
  k: fc.integer({ min: 0, max: 3 }),
  skel: skel1,
  combiner: fc.constantFrom("sum" as const, "max" as const),
});

type J = unknown;
const f32 = (v: number): J => ["f32", v];
const L = (b: string, ...idx: J[]): J => ["load", b, idx];

function log2ceil(n: number): number {
  let k = 0;
  while (2 ** k < n) k++;
  return k;
}

/**
 * A perfect nest over a in [m, m + A), b in [0, B) above a reduction over c of the rows of X
 * (A = rows, B = 2 + cols % 3, m = k % 2); by k: the row sums stored at the nest's linear index
 * S[(a - m) * B + b] (k 0; for odd A through an i32 let) or transposed S[b * A + (a - m)] (k 1;
 * by A % 3 also reversed S[(B - 1 - b) * A + (a - m)], or a stride one short, S[b * (A - 1) +
 * (a - m)], whose programs collide: not honest); X read as [C, B, A] (so the
 * planner moves a last) with programs colliding on S[((a - m) + b) % 2] (k 2, not honest: the
 * last writer in the written order decides); scaled and offset T[2 * ((a - m) * B + b) + 1] with
 * an element loop writing Y[((a - m) * B + b) * C + c] (k 3).
 */
function buildNest(s: StructSpec): StructCase {
  const A = s.rows;
  const B = 2 + (s.cols % 3);
  const C = s.cols;
  const m = s.k % 2;
  const av: J = m === 0 ? "a" : ["sub", "a", m];
  const lin: J = ["add", ["mul", av, "B"], "b"];
  const scale = f32(2 ** -(log2ceil(C) + 3));
  const sizes: Record<string, number> = { A, B, C, AB: A * B, T2: 2 * A * B + 1 };
  const params: any[] = [];
  let honest = true;
  let x: J;
  if (s.k === 2) {
    params.push({ name: "X", dtype: "f32", shape: ["C", "B", "A"] });
    x = L("X", "c", "b", av);
  } else {
    params.push({ name: "X", dtype: "f32", shape: ["AB", "C"] });
    x = L("X", lin, "c");
  }
  const body: any[] = [{ reduce: "s", combiner: s.combiner, over: ["c", 0, "C"], value: s.combiner === "sum" ? ["mul", scale, x] : x }];
  const sc: J = fexpr(s.skel, ["s"], ["s"]);
  if (s.k === 0) {
    params.push({ name: "S", dtype: "f32", shape: ["AB"] });
    // odd rows: the linear index held in an i32 let (rewritten as an index is)
    if (A % 2 === 1) body.push({ let: "q", value: lin }, { store: "S", at: ["q"], value: sc });
    else body.push({ store: "S", at: [lin], value: sc });
  } else if (s.k === 1) {
    params.push({ name: "S", dtype: "f32", shape: ["AB"] });
    // by rows % 3: transposed S[b * A + a], transposed and reversed S[(B - 1 - b) * A + a] (both
    // a mixed radix the rules prove), or a stride one short, S[b * (A - 1) + a], where a = A - 1,
    // b = 0 and a = 0, b = 1 meet (not honest: its programs collide)
    const v = A % 3;
    const bt: J = v === 1 ? ["sub", ["sub", "B", 1], "b"] : "b";
    if (v === 2) honest = false;
    body.push({ store: "S", at: [["add", ["mul", bt, v === 2 ? ["sub", "A", 1] : "A"], av]], value: sc });
  } else if (s.k === 2) {
    honest = false;
    params.push({ name: "S", dtype: "f32", shape: [2] });
    body.push({ store: "S", at: [["mod", ["add", av, "b"], 2]], value: sc });
  } else {
    params.push({ name: "T", dtype: "f32", shape: ["T2"] });
    params.push({ name: "Y", dtype: "f32", shape: [A * B * C] });
    body.push({ store: "T", at: [["add", ["mul", 2, lin], 1]], value: sc });
    body.push({ for: "e", in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: [["add", ["mul", lin, "C"], "e"]], value: ["sub", L("X", lin, "e"), "s"] }] });
  }
  const doc = {
    tile: 1, name: "fz_nest", attrs: { noalias: true }, sizes, params,
    body: [{ for: "a", in: [m, "A"], kind: "parallel", body: [{ for: "b", in: [0, "B"], kind: "parallel", body }] }],
  };
  return { doc, options: {}, family: "reduction", honest, shape: s.shape };
}

/**
 * (session 30) An element document over a batch b in [0, B) and rows r in [0, A) (A = rows, B =
 * 2 + cols % 3) whose inner loop over c the fused grid cannot prove, so that it runs as programs
 * over the flattened (b, r) tuples (pipeline step 5b): by k, a triangular row Y[b, r, c] over
 * [0, min(r, C - 1) + 1) (the extent through `min`), a band [r % C, C) read back from its first
 * element, an append Y[b, r + 1, c] = X[b, r, c] (Y's rows shifted: not merged, the batch and row
 * decoded with div and mod), or rows that meet (Y[b, r, c] and Y[b, r + 1, c] from one program:
 * not honest: the last writer in the written order decides).
 */
function buildElementNest(s: StructSpec): StructCase {
  const A = s.rows;
  const B = 2 + (s.cols % 3);
  const C = s.cols;
  const sizes: Record<string, number> = { A, B, C, A1: A + 1 };
  const params: any[] = [{ name: "X", dtype: "f32", shape: ["B", "A", "C"] }];
  let honest = true;
  const leaf: any[] = [];
  let lo: J = 0;
  let ext: J = "C";
  const x = L("X", "b", "r", "c");
  const v: J = fexpr(s.skel, [x], [x]);
  if (s.k === 0) {
    params.push({ name: "Y", dtype: "f32", shape: ["B", "A", "C"] });
    ext = ["add", ["min", "r", ["sub", "C", 1]], 1];
    leaf.push({ store: "Y", at: ["b", "r", "c"], value: v });
  } else if (s.k === 1) {
    params.push({ name: "Y", dtype: "f32", shape: ["B", "A", "C"] });
    lo = ["mod", "r", "C"];
    ext = ["sub", "C", lo];
    leaf.push({ store: "Y", at: ["b", "r", "c"], value: ["add", v, L("X", "b", "r", lo)] });
  } else {
    params.push({ name: "Y", dtype: "f32", shape: ["B", "A1", "C"] });
    leaf.push({ store: "Y", at: ["b", ["add", "r", 1], "c"], value: v });
    if (s.k === 3) {
      honest = A < 2;
      leaf.push({ store: "Y", at: ["b", "r", "c"], value: ["mul", f32(0.5), x] });
    }
  }
  const doc = {
    tile: 1, name: "fz_elem_nest", attrs: { noalias: true }, sizes, params,
    body: [{ for: "b", in: [0, "B"], kind: "parallel", body: [{ for: "r", in: [0, "A"], kind: "parallel", body: [
      { for: "c", in: [lo, ext], kind: "parallel", body: leaf },
    ] }] }],
  };
  return { doc, options: {}, family: "reduction", honest, shape: s.shape };
}

export function buildStructural(s: StructSpec): StructCase {
  if (s.shape === "nest") return buildNest(s);
  if (s.shape === "element-nest") return buildElementNest(s);
  const R = s.rows;
  const C = s.cols;
  // the program loop: r in [min, R); `row` is the buffer row of program r (always in [0, R))
  const names = s.shape === "names";
  const rv = names ? "threadgroup_imageblock" : "r";
  let min: J = 0;
  let row: J = rv;
  let rowsOfLoop: J = "R";
  if (s.shape === "neg-min") {
    min = -(s.k + 1);
    row = ["add", rv, s.k + 1];
  } else if (s.shape === "mod-min") {
    min = ["mod", 7 + s.k, 4];
    row = ["sub", rv, ["mod", 7 + s.k, 4]];
  } else if (s.shape === "cross-read") {
    rowsOfLoop = ["sub", "R", 1];
  } else if (s.shape === "wrap-extent") {
    // R - 2^32 exactly, R in i32 (the kernel's and the oracle's value)
    rowsOfLoop = ["sub", "R", ["mul", 65536, 65536]];
  }
  const sName = "s";
  const s2Name = names ? "s_0" : "t0";
  const cv = names ? "M_PI_F" : "c";
  const scale = f32(2 ** -(log2ceil(C) + 3));
  const x = (col: J = cv): J => L("X", row, col);
  const sizes: Record<string, number> = { R, C, C4: 4 * C, N2: 2 * R };
  const params: any[] = [
    { name: "X", dtype: "f32", shape: ["R", "C"] },
    { name: "S", dtype: "f32", shape: ["R"] },
  ];
  const reduceValue: J = s.combiner === "sum" ? ["mul", scale, x()] : x();
  const body: any[] = [
    { reduce: sName, combiner: s.combiner, over: [cv, 0, "C"], value: reduceValue },
    { store: "S", at: [row], value: sName },
  ];
  const sc: J = s.combiner === "sum" ? sName : ["mul", f32(0.25), sName];
  const val = (leaves: J[]): J => fexpr(s.skel, leaves, leaves);
  const ploop = (b: J[], lo: J = 0, ext: J = "C", v: string = cv): J => ({ for: v, in: [lo, ext], kind: "parallel", body: b });
  const addW = (): void => { params.push({ name: "W", dtype: "f32", shape: ["R", "C"] }); };
  const addY = (): void => { params.push({ name: "Y", dtype: "f32", shape: ["R", "C"] }); };
  let honest = true;
  switch (s.shape) {
    case "if-else":
      addY();
      body.push({ if: ["gt", sName, f32(0)], then: [ploop([{ store: "Y", at: [row, cv], value: val([x(), sc]) }])],
        else: [ploop([{ store: "Y", at: [row, cv], value: ["mul", f32(0.5), x()] }])] });
      break;
    case "if-overwrite":
      addY();
      body.push(ploop([{ store: "Y", at: [row, cv], value: x() }]));
      body.push({ if: ["ge", sName, f32(-100)], then: [ploop([{ store: "Y", at: [row, cv], value: ["add", sc, x()] }])] });
      break;
    case "if-inplace":
      addW();
      body.push({ if: ["ge", sName, f32(-100)], then: [ploop([{ store: "W", at: [row, cv], value: ["mul", f32(0.5), L("W", row, cv)] }])],
        else: [ploop([{ store: "W", at: [row, cv], value: f32(0) }])] });
      break;
    case "serial-around":
      addW();
      body.push({ for: "t", in: [0, s.k + 1], kind: "serial", body: [
        ploop([{ store: "W", at: [row, cv], value: ["add", ["mul", f32(0.5), L("W", row, cv)], ["mul", f32(0.25), x()]] }])] });
      break;
    case "inplace":
      body.push(ploop([{ store: "X", at: [row, cv], value: ["sub", x(), ["mul", f32(0.25), sc]] }]));
      break;
    case "inplace-twice":
      // a second in-place pass reads what the first wrote (red team, session 32: a register stripe
      // of X kept the value from before the first pass)
      body.push(ploop([{ store: "X", at: [row, cv], value: ["sub", x(), ["mul", f32(0.25), sc]] }]));
      body.push(ploop([{ store: "X", at: [row, cv], value: ["add", ["mul", f32(0.5), x()], f32(0.125)] }]));
      break;
    case "shifted":
      addW();
      body.push(ploop([{ store: "W", at: [row, cv], value: ["add", L("W", row, ["add", cv, 1]), f32(0.125)] }], 0, ["sub", "C", 1]));
      break;
    case "neg-min":
    case "mod-min":
      addY();
      body.push(ploop([{ store: "Y", at: [row, cv], value: val([x(), sc]) }]));
      break;
    case "step": {
      params.push({ name: "Z", dtype: "f32", shape: ["R"] });
      const step = [2, 3, 1000000000, 700000000][s.k];
      body.push({ for: "t", in: [s.k, 3], kind: "serial", step, body: [
        { store: "Z", at: [row], value: ["add", ["mul", f32(0.5), L("Z", row)], f32(0.25)] }] });
      break;
    }
    case "guarded":
      addY();
      params.push({ name: "Z", dtype: "f32", shape: ["R", "C"] });
      body.push(ploop([{ if: ["lt", cv, "C"], then: [{ store: "Y", at: [row, cv], value: ["mul", sc, x()] }] }], 0, "C4"));
      body.push(ploop([{ if: ["lt", cv, "C"], then: [{ store: "Z", at: [row, cv], value: ["add", sc, x()] }] }], 0, "C4"));
      break;
    case "offsets":
      params.push({ name: "O", dtype: "f32", shape: ["N2"] });
      body.push({ store: "O", at: [row], value: sc });
      body.push({ store: "O", at: [["add", row, "R"]], value: ["mul", f32(2), sc] });
      break;
    case "offsets-interleaved":
      params.push({ name: "O", dtype: "f32", shape: ["N2"] });
      body.push({ store: "O", at: [["mul", 2, row]], value: sc });
      body.push({ store: "O", at: [["add", ["mul", 2, row], 1]], value: ["neg", sc] });
      break;
    case "cross-read":
      addY();
      addW();
      honest = false;
      body.push(ploop([{ store: "Y", at: [row, cv], value: ["mul", sc, x()] }]));
      body.push(ploop([{ store: "W", at: [row, cv], value: L("Y", ["add", row, 1], cv) }]));
      break;
    case "select-pad": {
      // neighbours at distance k + 1 with zero padding, in a parallel loop and in a reduce
      addY();
      params.push({ name: "Z", dtype: "f32", shape: ["R"] });
      const d = s.k + 1;
      body.push(ploop([{ store: "Y", at: [row, cv], value: ["add",
        ["select", ["lt", ["add", cv, d], "C"], L("X", row, ["add", cv, d]), f32(0)],
        ["select", ["and", ["ge", cv, d], ["gt", L("X", row, ["sub", cv, d]), f32(0)]], ["mul", sc, f32(0.5)], f32(0)]] }]));
      body.push({ reduce: "sp", combiner: s.combiner, over: [cv, 0, ["add", "C", d]], value:
        ["select", ["lt", cv, "C"], x(), L("X", row, ["mod", ["sub", cv, "C"], "C"])] });
      body.push({ store: "Z", at: [row], value: "sp" });
      break;
    }
    case "minmax-extent":
      // extents that fold to constants only through min and max
      addY();
      params.push({ name: "Z", dtype: "f32", shape: ["R"] });
      body.push({ reduce: "sm", combiner: s.combiner, over: [cv, 0, ["min", "C", s.k + 2]], value: x() });
      body.push({ store: "Z", at: [row], value: "sm" });
      body.push(ploop([{ store: "Y", at: [row, cv], value: val([x(), "sm"]) }], 0, ["max", ["sub", "C", s.k], ["min", "C", 1]]));
      break;
    case "i32-reuse": {
      // an f32 value of an i32 buffer's stripe, reduced twice and used again in the output loop
      // (the emitter may keep a reduce value in a stripe only of f32 slots)
      addY();
      params.push({ name: "A", dtype: "i32", shape: ["R", "C"] });
      params.push({ name: "Z", dtype: "f32", shape: ["R"] });
      const e: J = s.k % 2 === 0
        ? ["mul", ["cast", "f32", L("A", row, cv)], f32(0.3 + 0.1 * s.k)]
        : ["select", ["gt", L("A", row, cv), s.k], f32(0.25), ["mul", f32(0.5), x()]];
      body.push({ reduce: "ia", combiner: "sum", over: [cv, 0, "C"], value: e });
      body.push({ reduce: "ib", combiner: s.combiner, over: [cv, 0, "C"], value: ["add", e, ["mul", f32(0.125), "ia"]] });
      body.push({ store: "Z", at: [row], value: ["add", "ia", "ib"] });
      body.push(ploop([{ store: "Y", at: [row, cv], value: ["sub", e, ["mul", f32(0.0625), "ia"]] }]));
      break;
    }
    case "wrap-extent":
      // with k odd, every program also stores O[r * 2^32], which wraps to O[0]: a collision only
      // i32 arithmetic shows (the `parallel` claim is false)
      params.push({ name: "O", dtype: "f32", shape: ["R"] });
      if (s.k % 2 === 1) {
        honest = false;
        body.push({ store: "O", at: [["mul", row, ["mul", 65536, 65536]]], value: ["add", L("O", 0), sc] });
      } else body.push({ store: "O", at: [["add", row, ["mul", ["mul", 65536, 65536], s.k]]], value: sc });
      break;
    case "ragged": {
      // ranges that vary by program (session 28): a triangular row [0, C - r) or a band [r, C)
      // (extent C - r: empty past C), reduced and stored; k = 2 reads the stored row back over
      // the whole row (the same minimum: the same owners); k = 3 stores over the band and reads
      // back from 0 (other owners: not proven, so serial)
      addY();
      params.push({ name: "Z", dtype: "f32", shape: ["R", "C"] });
      params.push({ name: "T", dtype: "f32", shape: ["R"] });
      const band = s.k % 2 === 1;
      const lo: J = band ? rv : 0;
      const ext: J = ["sub", "C", rv];
      body.push({ reduce: "sr", combiner: s.combiner, over: [cv, lo, ext], value: reduceValue });
      body.push({ store: "T", at: [row], value: "sr" });
      body.push(ploop([{ store: "Y", at: [row, cv], value: val([x(), ["mul", f32(0.5), "sr"]]) }], lo, ext));
      if (s.k >= 2) {
        body.push(ploop([{ store: "Z", at: [row, cv], value: ["add", L("Y", row, cv), f32(0.25)] }], s.k === 2 ? lo : 0, "C"));
      }
      break;
    }
    case "causal-zeros": {
      // (session 29) a row's values over [0, C - r) and its zeros over [C - r, C): apart within
      // the program (apartInProgram), cooperative; k = 1 starts the zeros one early (they meet
      // the values at C - r - 1: not proven, so serial), k = 2 one late (a gap), k = 3 writes the
      // zeros first
      // (Z is [R, CZ], CZ = max(C, R), so that CZ - r - 1 >= 0 in every program)
      params.push({ name: "Z", dtype: "f32", shape: ["R", "CZ"] });
      sizes.CZ = Math.max(C, R);
      const ext: J = ["sub", "CZ", rv];
      const zlo: J = s.k === 1 ? ["sub", ext, 1] : s.k === 2 ? ["add", ext, 1] : ext;
      const zext: J = s.k === 1 ? ["add", rv, 1] : s.k === 2 ? ["sub", rv, 1] : rv;
      const values = ploop([{ store: "Z", at: [row, cv], value: val([sc, f32(0.75)]) }], 0, ext);
      const zeros = ploop([{ store: "Z", at: [row, cv], value: f32(0) }], zlo, zext);
      if (s.k === 3) body.push(zeros, values);
      else body.push(values, zeros);
      break;
    }
    case "even-odd": {
      // one loop stores the even and the odd element of a pair (session 28: 2c and 2c + 1 never
      // meet); k = 1 reads the odd ones back in a second loop, k = 2 stores 2c and 2c + 2 instead
      // (they meet: not proven, so serial), k = 3 swaps the two stores' order
      params.push({ name: "P2", dtype: "f32", shape: ["R", "C2P"] });
      params.push({ name: "Z", dtype: "f32", shape: ["R", "C"] });
      sizes.C2P = 2 * C + 2;
      const even: J = ["mul", 2, cv];
      const odd: J = ["add", ["mul", 2, cv], s.k === 2 ? 2 : 1];
      const st = [{ store: "P2", at: [row, even], value: val([x(), sc]) }, { store: "P2", at: [row, odd], value: ["mul", f32(0.5), x()] }];
      if (s.k === 3) st.reverse();
      body.push(ploop(st));
      if (s.k === 1) body.push(ploop([{ store: "Z", at: [row, cv], value: ["add", L("P2", row, ["add", ["mul", 2, cv], 1]), f32(0.25)] }]));
      break;
    }
    case "flat-transposed": {
      // a flat output in column-major order, FT[c * R + r] (session 28: the multiples of R move
      // farther than the programs reach); k = 1 strides R + 1; k = 2 reads the element back, k = 3
      // reads another program's (FT[c * R + R - 1 - r]: the `parallel` claim is false)
      params.push({ name: "FT", dtype: "f32", shape: ["RC1"] });
      params.push({ name: "Z", dtype: "f32", shape: ["R", "C"] });
      sizes.RC1 = (R + 1) * C;
      const stride: J = s.k === 1 ? ["add", "R", 1] : "R";
      body.push(ploop([{ store: "FT", at: [["add", ["mul", cv, stride], row]], value: val([x(), sc]) }]));
      if (s.k >= 2) {
        honest = s.k === 2;
        const other: J = s.k === 2 ? row : ["sub", ["sub", "R", 1], row];
        body.push(ploop([{ store: "Z", at: [row, cv], value: ["add", L("FT", ["add", ["mul", cv, "R"], other]), f32(0.25)] }]));
      }
      break;
    }
    case "names":
      params[0].name = "ray_data";
      params.push({ name: "object_data", dtype: "f32", shape: ["R"] });
      body[0].value = s.combiner === "sum" ? ["mul", scale, L("ray_data", row, cv)] : L("ray_data", row, cv);
      // the sibling's axis another (reserved) name half the time: planned as one pass all the same
      // (core/analysis/siblings.ts unifySiblingAxes)
      {
        const cv2 = s.k % 2 === 1 ? "M_SQRT2_F" : cv;
        body.splice(1, 0, { reduce: s2Name, combiner: "max", over: [cv2, 0, "C"], value: L("ray_data", row, cv2) });
      }
      body.push({ let: "FLT_MAX", value: ["add", sc, ["mul", f32(0.25), s2Name]] });
      body.push({ let: "INFINITY", value: ["mul", "FLT_MAX", f32(0.5)] });
      body.push({ let: "acc_s", value: ["add", "INFINITY", f32(1)] });
      body.push({ store: "object_data", at: [row], value: "acc_s" });
      break;
  }
  const doc = {
    tile: 1, name: "fz_struct", attrs: { noalias: true }, sizes, params,
    body: [{ for: rv, in: [min, rowsOfLoop], kind: "parallel", body }],
  };
  return { doc, options: {}, family: "reduction", honest, shape: s.shape };
}

export const structArb: fc.Arbitrary<StructCase> = structSpec.map(buildStructural);

/** Sizes near 2^31 (plan and emit only): one buffer of 2^31 elements or more, loops whose end
 *  leaves i32. */
export const hugeSpec = fc.record({
  rows: fc.constantFrom(46341, 70000, 1 << 16, 2147483647),
  cols: fc.constantFrom(46341, 70000, 1 << 15, 1),
  step: fc.constantFrom(1, 2, 1000000000),
});

export function buildHuge(h: { rows: number; cols: number; step: number }): any {
  return {
    tile: 1, name: "fz_huge", attrs: { noalias: true }, sizes: { R: h.rows, C: h.cols },
    params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R", "C"] }, { name: "S", dtype: "f32", shape: ["R"] }],
    body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
      { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: L("X", "r", "c") },
      { store: "S", at: ["r"], value: "s" },
      { for: "t", in: [0, 3], kind: "serial", step: h.step, body: [{ store: "S", at: ["r"], value: ["add", L("S", "r"), f32(1)] }] },
      ploopHuge(),
    ] }],
  };
}

function ploopHuge(): J {
  return { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: ["r", "c"], value: ["mul", "s", L("X", "r", "c")] }] };
}
