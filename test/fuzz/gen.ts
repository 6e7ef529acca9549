// A generator of valid random Tile IR (fast-check arbitraries).
//
// An arbitrary draws a small *spec* (plain numbers, booleans and expression skeletons) and
// `buildReduction` / `buildElement` turn it into a document deterministically, so fast-check
// shrinks the spec and every shrunk spec is still a valid document. Validity is by
// construction: every access is in bounds for the sizes, every name is in scope, types agree.
//
// The documents are also *honest*: the `parallel` claim of the top-level loop is true (an
// iteration reads a buffer that the program writes only at elements that iteration writes),
// so the FP64 oracle's sequential order is a correct reference for every realization. Values
// stay small (inputs are in [-2, 2); every sum is scaled by a power of two so that partial sums
// stay below 1), so an f32 kernel that is correct is within 2e-6 + 2e-5*|ref| of the oracle.
import fc from "fast-check";

// ---------------------------------------------------------------- expression skeletons
// A skeleton names its leaves by number; the builder resolves a number modulo the leaves in
// scope at that point, so any skeleton fits any context.

export type Skel =
  | { k: "leaf"; i: number }
  | { k: "lit"; v: number }
  | { k: "un"; op: string; a: Skel }
  | { k: "bin"; op: string; a: Skel; b: Skel }
  | { k: "sel"; cmp: string; a: Skel; b: Skel; c: Skel; d: Skel };

const UNARY = ["neg", "abs", "tanh", "exp", "sqrt", "log", "rsqrt"] as const;
const BINARY = ["add", "sub", "mul", "min", "max", "div"] as const;
const CMP = ["lt", "le", "gt", "ge", "eq", "ne"] as const;

const leafSkel: fc.Arbitrary<Skel> = fc.oneof(
  { arbitrary: fc.record({ k: fc.constant("leaf" as const), i: fc.nat(7) }), weight: 4 },
  { arbitrary: fc.record({ k: fc.constant("lit" as const), v: fc.constantFrom(0.5, 1, -0.25, 0.1, 3, 0) }), weight: 1 },
);

function deeper(inner: fc.Arbitrary<Skel>): fc.Arbitrary<Skel> {
  return fc.oneof(
    { arbitrary: leafSkel, weight: 2 },
    { arbitrary: fc.record({ k: fc.constant("un" as const), op: fc.constantFrom(...UNARY), a: inner }), weight: 2 },
    { arbitrary: fc.record({ k: fc.constant("bin" as const), op: fc.constantFrom(...BINARY), a: inner, b: inner }), weight: 3 },
    { arbitrary: fc.record({ k: fc.constant("sel" as const), cmp: fc.constantFrom(...CMP), a: leafSkel, b: leafSkel, c: inner, d: inner }), weight: 1 },
  );
}

/** Skeletons of depth at most 1 and 2. */
export const skel1 = deeper(leafSkel);
export const skel2 = deeper(skel1);

type J = unknown;
const f32 = (v: number): J => ["f32", v];

function isLeaf(s: Skel): boolean {
  return s.k === "leaf" || s.k === "lit";
}

/** An f32 expression from a skeleton over `leaves` (each an f32 expression bounded by ~2).
 *  Every operator keeps the value bounded (|v| <= ~16) and free of inf: exp sees min(a, 1),
 *  log and sqrt see |a| (+1), a divisor is |b| + 1, mul multiplies leaves only. */
export function fexpr(s: Skel, leaves: J[], exact: J[] = leaves): J {
  switch (s.k) {
    case "leaf":
      return leaves[s.i % leaves.length];
    case "lit":
      return f32(s.v);
    case "un": {
      const a = fexpr(s.a, leaves, exact);
      switch (s.op) {
        case "exp": return ["exp", ["min", a, f32(1)]];
        case "sqrt": return ["sqrt", ["abs", a]];
        case "log": return ["log", ["add", ["abs", a], f32(1)]];
        case "rsqrt": return ["rsqrt", ["add", ["abs", a], f32(1)]];
        default: return [s.op, a];
      }
    }
    case "bin": {
      let a = fexpr(s.a, leaves, exact);
      let b = fexpr(s.b, leaves, exact);
      if (s.op === "mul") {
        if (!isLeaf(s.a)) a = ["tanh", a];
        if (!isLeaf(s.b)) b = ["tanh", b];
        return ["mul", a, b];
      }
      if (s.op === "div") return ["div", a, ["add", ["abs", b], f32(1)]];
      return [s.op, a, b];
    }
    case "sel":
      // compared values are exact (loads, literals, a max or min of loads): a comparison of
      // computed values could flip between f32 and the FP64 oracle, which is no defect
      return ["select", [s.cmp, fexpr(s.a, exact), fexpr(s.b, exact)], fexpr(s.c, leaves, exact), fexpr(s.d, leaves, exact)];
  }
}

/** A condition over exact values only (see "sel" above). */
export function fcond(s: Skel, exact: J[]): J {
  if (s.k === "leaf") return ["lt", exact[s.i % exact.length], f32(0.25)];
  if (s.k === "sel") return [s.cmp, fexpr(s.a, exact), fexpr(s.b, exact)];
  return ["lt", exact[0], exact[exact.length - 1]];
}

/** An i32 expression from a skeleton over i32 `leaves` (small non-negative values). */
export function iexpr(s: Skel, leaves: J[]): J {
  switch (s.k) {
    case "leaf":
      return leaves[s.i % leaves.length];
    case "lit":
      return Math.round(s.v * 4) - 1;
    case "un":
      return s.op === "neg" || s.op === "abs" ? [s.op, iexpr(s.a, leaves)] : iexpr(s.a, leaves);
    case "bin": {
      const a = iexpr(s.a, leaves);
      const b = iexpr(s.b, leaves);
      if (s.op === "div") return ["div", a, ["add", ["abs", b], 1]];
      if (s.op === "mul") return isLeaf(s.a) && isLeaf(s.b) ? ["mul", a, b] : ["mod", a, ["add", ["abs", b], 1]];
      return [s.op, a, b];
    }
    case "sel":
      return ["select", [s.cmp, iexpr(s.a, leaves), iexpr(s.b, leaves)], iexpr(s.c, leaves), iexpr(s.d, leaves)];
  }
}

// ---------------------------------------------------------------- options

export interface PlanOptions {
  programsPerGroup?: number;
  threads?: number;
  vector?: number;
  unroll?: number;
  cacheInput?: boolean;
  fuse?: boolean;
  layout?: string;
}

const optionsArb: fc.Arbitrary<PlanOptions> = fc
  .record({
    programsPerGroup: fc.constantFrom(0, 0, 1, 2, 3, 4, 8, 16),
    // threads: 0 = solver; "fit" = 32*S*P for S in 1..4; "any" = a value that may not fit (a TPL002 or thread-limit rejection)
    threads: fc.oneof({ arbitrary: fc.constant(0), weight: 6 }, { arbitrary: fc.integer({ min: 1, max: 4 }), weight: 3 }, { arbitrary: fc.constantFrom(-64, -1056), weight: 1 }),
    vector: fc.constantFrom(0, 0, 1, 4, 8),
    unroll: fc.constantFrom(0, 0, 1, 3),
    cacheInput: fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 }),
    fuse: fc.oneof({ arbitrary: fc.constant(true), weight: 6 }, { arbitrary: fc.constant(false), weight: 1 }),
    // the cooperative layout: mostly the solver's choice; programs on lanes take V = 1
    layout: fc.constantFrom("", "", "", "", "", "", "programs-on-lanes", "workers-on-lanes"),
  })
  .map((o) => {
    const out: PlanOptions = { programsPerGroup: o.programsPerGroup, vector: o.vector, unroll: o.unroll, cacheInput: o.cacheInput, fuse: o.fuse };
    if (o.layout !== "") out.layout = o.layout;
    if (o.layout === "programs-on-lanes" && o.vector > 1) out.vector = 1;
    if (o.threads < 0) out.threads = -o.threads;
    else if (o.threads > 0) out.threads = 32 * o.threads * Math.max(1, o.programsPerGroup);
    return out;
  });

// ---------------------------------------------------------------- reduction family

export interface ReduceSpec {
  combiner: "sum" | "max" | "min";
  /** "x": the input element itself; "expr": a depth-1 skeleton; "softmax": exp(x - m) of an earlier max. */
  value: "x" | "expr" | "softmax";
  skel: Skel;
  gather: boolean;
}

export interface ReductionSpec {
  rows: number;
  rowOrigin: number;
  extraRows: number;
  cols: number;
  colOrigin: number;
  colPad: number;
  wrapper: "none" | "unit" | "unit-min" | "repeat" | "row-varying";
  reduces: ReduceSpec[];
  second: boolean;
  scalarOut: "none" | "origin" | "compact";
  rowOut: Skel | null;
  rowOutVector: boolean;
  inPlace: "none" | "shift" | "half";
  intReduce: boolean;
  letBeforeReduce: boolean;
  noalias: boolean;
  options: PlanOptions;
}

const colsArb = fc.oneof(
  fc.constantFrom(1, 2, 3, 31, 32, 33, 63, 64, 65, 96, 97, 128, 129),
  fc.integer({ min: 1, max: 140 }),
);

const reduceArb: fc.Arbitrary<ReduceSpec> = fc.record({
  combiner: fc.constantFrom("sum" as const, "max" as const, "min" as const),
  value: fc.constantFrom("x" as const, "x" as const, "expr" as const, "softmax" as const),
  skel: skel1,
  gather: fc.oneof({ arbitrary: fc.constant(false), weight: 4 }, { arbitrary: fc.constant(true), weight: 1 }),
});

export const reductionSpec: fc.Arbitrary<ReductionSpec> = fc.record({
  rows: fc.oneof(fc.integer({ min: 1, max: 20 }), fc.constantFrom(31, 32, 33, 64, 65)),
  rowOrigin: fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 5 }), weight: 1 }),
  extraRows: fc.constantFrom(0, 0, 1, 2),
  cols: colsArb,
  colOrigin: fc.constantFrom(0, 0, 0, 1, 3),
  colPad: fc.constantFrom(0, 0, 1, 2, 7),
  wrapper: fc.constantFrom("none" as const, "none" as const, "none" as const, "unit" as const, "unit-min" as const, "repeat" as const, "row-varying" as const),
  reduces: fc.array(reduceArb, { minLength: 1, maxLength: 3 }),
  second: fc.boolean(),
  scalarOut: fc.constantFrom("origin" as const, "compact" as const, "none" as const),
  rowOut: fc.option(skel2, { freq: 2 }),
  rowOutVector: fc.boolean(),
  inPlace: fc.constantFrom("none" as const, "none" as const, "shift" as const, "half" as const),
  intReduce: fc.oneof({ arbitrary: fc.constant(false), weight: 5 }, { arbitrary: fc.constant(true), weight: 1 }),
  letBeforeReduce: fc.boolean(),
  noalias: fc.oneof({ arbitrary: fc.constant(true), weight: 9 }, { arbitrary: fc.constant(false), weight: 1 }),
  options: optionsArb,
});

/** The smallest k with 2^k >= n. */
function log2ceil(n: number): number {
  let k = 0;
  while (2 ** k < n) k++;
  return k;
}

export function buildReduction(s: ReductionSpec, name = "fz_reduce"): { doc: any; options: PlanOptions } {
  const r0 = s.rowOrigin;
  const c0 = s.colOrigin;
  const sizes: Record<string, number> = { R: s.rows, C: s.cols, N: r0 + s.rows + s.extraRows, CX: c0 + s.cols + s.colPad };
  const params: any[] = [{ name: "X", dtype: "f32", shape: ["N", "CX"] }];
  const anyGather = s.reduces.some((q) => q.gather);
  if (s.second) params.push({ name: "W", dtype: "f32", shape: ["N", "CX"] });
  if (anyGather) params.push({ name: "I", dtype: "i32", shape: ["N", "CX"] });
  if (s.intReduce) params.push({ name: "J", dtype: "i32", shape: ["N", "CX"] });

  const xAt = (col: J): J => ["load", "X", ["r", col]];
  const program: any[] = [];
  let scalarLeaves: J[] = [];
  if (s.letBeforeReduce) {
    // a program-level let (every worker computes it): the row's first element, bounded
    program.push({ let: "base", value: ["tanh", xAt(c0)] });
    scalarLeaves.push("base");
  }
  const exactBase: J[] = [xAt("c")];
  if (s.second) exactBase.push(["load", "W", ["r", "c"]]);
  let exactScalars: J[] = [];
  let lastMax: string | null = null;
  s.reduces.forEach((q, k) => {
    const n = "m" + k;
    const x: J = q.gather ? ["load", "X", ["r", ["load", "I", ["r", "c"]]]] : xAt("c");
    const leaves: J[] = [x];
    if (s.second) leaves.push(["load", "W", ["r", "c"]]);
    for (const sl of scalarLeaves) leaves.push(sl);
    let value: J;
    if (q.value === "softmax" && lastMax !== null) value = ["exp", ["sub", x, lastMax]];
    else if (q.value === "x") value = x;
    else value = fexpr(q.skel, leaves, q.gather ? [x] : exactBase.concat(exactScalars));
    // a sum is scaled so that every partial sum stays below 1 (no cancellation error beyond the tolerance)
    if (q.combiner === "sum") value = ["mul", f32(2 ** -(log2ceil(s.cols) + 3)), value];
    program.push({ reduce: n, combiner: q.combiner, over: ["c", c0, "C"], value });
    if (q.combiner === "max" && (q.value === "x" || q.value === "softmax") && !q.gather) lastMax = n;
    // later expressions see this result scaled into [-1, 1]
    scalarLeaves = scalarLeaves.concat([q.combiner === "sum" ? n : ["mul", f32(0.25), n]]);
    if (q.combiner !== "sum" && q.value === "x") exactScalars = exactScalars.concat([["mul", f32(0.25), n]]);
  });
  if (s.intReduce) {
    program.push({ reduce: "ki", combiner: "sum", over: ["c", c0, "C"], value: ["load", "J", ["r", "c"]] });
  }
  const outRow: J = s.scalarOut === "compact" ? ["sub", "r", r0] : "r";
  const results = s.reduces.map((_, k) => "m" + k);
  let outputs = 0;
  if (s.scalarOut !== "none" || (s.rowOut === null && s.inPlace === "none" && !s.intReduce)) {
    params.push({ name: "Y", dtype: "f32", shape: [s.scalarOut === "compact" ? "R" : "N"] });
    const sum = results.reduce((a: J, b: J) => (a === null ? b : ["add", a, b]), null as J);
    program.push({ store: "Y", at: [outRow], value: sum });
    outputs++;
  }
  if (s.intReduce) {
    params.push({ name: "K", dtype: "i32", shape: ["N"] });
    program.push({ store: "K", at: ["r"], value: "ki" });
  }
  if (s.rowOut !== null) {
    params.push({ name: "Z", dtype: "f32", shape: ["N", "CX"] });
    const leaves: J[] = [xAt("c")];
    if (s.second) leaves.push(["load", "W", ["r", "c"]]);
    const value = fexpr(s.rowOut, leaves.concat(scalarLeaves), exactBase.concat(exactScalars));
    program.push({ for: "c", in: [c0, "C"], kind: "parallel", body: [{ store: "Z", at: ["r", "c"], value }] });
    outputs++;
  }
  if (s.inPlace !== "none") {
    const shift = lastMax ?? (s.reduces.find((q) => q.combiner !== "sum") ? "m" + s.reduces.findIndex((q) => q.combiner !== "sum") : null);
    const value: J = s.inPlace === "shift" && shift !== null ? ["sub", xAt("c"), ["mul", f32(0.25), shift]] : ["mul", xAt("c"), f32(0.5)];
    program.push({ for: "c", in: [c0, "C"], kind: "parallel", body: [{ store: "X", at: ["r", "c"], value }] });
  }
  let body: any[] = program;
  switch (s.wrapper) {
    case "unit": body = [{ for: "k", in: [0, 1], kind: "serial", body }]; break;
    case "unit-min": body = [{ for: "k", in: [2, 1], kind: "serial", body }]; break;
    case "repeat": body = [{ for: "k", in: [0, 2], kind: "serial", body }]; break;
    case "row-varying": body = [{ for: "k", in: ["r", 1], kind: "serial", body }]; break;
    default: break;
  }
  const doc = {
    tile: 1,
    name,
    attrs: { noalias: s.noalias },
    sizes,
    params,
    body: [{ for: "r", in: [r0, "R"], kind: "parallel", body }],
  };
  return { doc, options: s.options };
}

// ---------------------------------------------------------------- element family

export interface OutputSpec {
  /** How the output is indexed: "rc" its own row-major element, "cr" transposed, "off" shifted by one column, "flat" a flattened 1-D buffer,
   *  "pair" two columns per element, written by two stores at 2c and 2c + 1 (interleaved, as a rotary embedding's pairs). */
  layout: "rc" | "cr" | "off" | "flat" | "pair";
  dtype: "f32" | "i32";
  skel: Skel;
  cond: "none" | "if" | "if-else";
  condSkel: Skel;
  /** RAW: the value also reads an earlier output at this element. */
  readEarlier: boolean;
  /** WAW: a second store to the same element. */
  storeTwice: boolean;
  /** Put this output in a sibling nest. */
  sibling: boolean;
}

export interface ElementSpec {
  oneD: boolean;
  rows: number;
  cols: number;
  rowOrigin: number;
  /** The outer loop runs over columns (a permuted loop order). */
  permuted: boolean;
  inputLayout: "rc" | "cr" | "off";
  gather: boolean;
  second: boolean;
  intInput: boolean;
  useLet: boolean;
  /** WAR: the last statement updates the input X in place. */
  inPlace: boolean;
  siblingRange: "same" | "other";
  outputs: OutputSpec[];
  noalias: boolean;
  options: PlanOptions;
}

const outputArb: fc.Arbitrary<OutputSpec> = fc.record({
  layout: fc.constantFrom("rc" as const, "rc" as const, "rc" as const, "rc" as const, "rc" as const, "cr" as const, "cr" as const, "off" as const, "flat" as const, "pair" as const),
  dtype: fc.oneof({ arbitrary: fc.constant("f32" as const), weight: 4 }, { arbitrary: fc.constant("i32" as const), weight: 1 }),
  skel: skel2,
  cond: fc.constantFrom("none" as const, "none" as const, "none" as const, "none" as const, "none" as const, "if" as const, "if-else" as const),
  condSkel: skel1,
  readEarlier: fc.oneof({ arbitrary: fc.constant(false), weight: 12 }, { arbitrary: fc.constant(true), weight: 1 }),
  storeTwice: fc.oneof({ arbitrary: fc.constant(false), weight: 16 }, { arbitrary: fc.constant(true), weight: 1 }),
  sibling: fc.oneof({ arbitrary: fc.constant(false), weight: 8 }, { arbitrary: fc.constant(true), weight: 1 }),
});

export const elementSpec: fc.Arbitrary<ElementSpec> = fc.record({
  oneD: fc.oneof({ arbitrary: fc.constant(false), weight: 4 }, { arbitrary: fc.constant(true), weight: 1 }),
  rows: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.constantFrom(31, 32, 33)),
  cols: fc.oneof(colsArb, fc.constantFrom(255, 256, 257, 300)),
  rowOrigin: fc.constantFrom(0, 0, 0, 1, 2),
  permuted: fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, { arbitrary: fc.constant(true), weight: 1 }),
  inputLayout: fc.constantFrom("rc" as const, "rc" as const, "rc" as const, "cr" as const, "off" as const),
  gather: fc.oneof({ arbitrary: fc.constant(false), weight: 4 }, { arbitrary: fc.constant(true), weight: 1 }),
  second: fc.boolean(),
  intInput: fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, { arbitrary: fc.constant(true), weight: 1 }),
  useLet: fc.boolean(),
  inPlace: fc.oneof({ arbitrary: fc.constant(false), weight: 10 }, { arbitrary: fc.constant(true), weight: 1 }),
  siblingRange: fc.constantFrom("same" as const, "same" as const, "other" as const),
  outputs: fc.oneof(fc.array(outputArb, { minLength: 1, maxLength: 4 }), fc.array(outputArb.map((o) => ({ ...o, layout: "rc" as const, cond: "none" as const, readEarlier: false, storeTwice: false, sibling: false })), { minLength: 1, maxLength: 4 })),
  noalias: fc.oneof({ arbitrary: fc.constant(true), weight: 9 }, { arbitrary: fc.constant(false), weight: 1 }),
  options: optionsArb,
});

export function buildElement(s: ElementSpec, name = "fz_element"): { doc: any; options: PlanOptions } {
  const R = s.oneD ? 1 : s.rows;
  const C = s.cols;
  const r0 = s.oneD ? 0 : s.rowOrigin;
  const sizes: Record<string, number> = { C };
  if (!s.oneD) sizes.R = R;
  const params: any[] = [];
  // the element (r, c) of the domain, r in [r0, r0 + R), c in [0, C)
  const rr: J = r0 === 0 ? "r" : ["sub", "r", r0];
  const dimsRC = (extraCols: number): J[] => (s.oneD ? [extraCols ? C + extraCols : "C"] : ["R", extraCols ? C + extraCols : "C"]);
  const at = (layout: "rc" | "cr" | "off" | "flat" | "pair"): J[] => {
    if (s.oneD) return layout === "off" ? [["add", "c", 1]] : layout === "pair" ? [["mul", 2, "c"]] : ["c"];
    switch (layout) {
      case "rc": return [rr, "c"];
      case "cr": return ["c", rr];
      case "off": return [rr, ["add", "c", 1]];
      case "flat": return [["add", ["mul", rr, C], "c"]];
      case "pair": return [rr, ["mul", 2, "c"]];
    }
  };
  const shapeFor = (layout: "rc" | "cr" | "off" | "flat" | "pair"): J[] => {
    if (s.oneD) return layout === "pair" ? [2 * C] : dimsRC(layout === "off" ? 1 : 0);
    switch (layout) {
      case "rc": return ["R", "C"];
      case "cr": return ["C", "R"];
      case "off": return ["R", C + 1];
      case "flat": return [R * C];
      case "pair": return ["R", 2 * C];
    }
  };
  params.push({ name: "X", dtype: "f32", shape: shapeFor(s.inputLayout) });
  const xLoad: J = ["load", "X", at(s.inputLayout)];
  const leaves: J[] = [];
  const pre: any[] = [];
  if (s.useLet) {
    pre.push({ let: "x", value: xLoad });
    leaves.push("x");
  } else leaves.push(xLoad);
  if (s.second) {
    params.push({ name: "V", dtype: "f32", shape: shapeFor("rc") });
    leaves.push(["load", "V", at("rc")]);
  }
  if (s.gather) {
    // a gather from a read-only table G[C] through I (values in [0, C))
    params.push({ name: "G", dtype: "f32", shape: ["C"] });
    params.push({ name: "I", dtype: "i32", shape: shapeFor("rc") });
    leaves.push(["load", "G", [["load", "I", at("rc")]]]);
  }
  const ileaves: J[] = ["c"];
  if (!s.oneD) ileaves.push(rr);
  if (s.intInput) {
    params.push({ name: "J", dtype: "i32", shape: shapeFor("rc") });
    ileaves.push(["load", "J", at("rc")]);
  }
  // numbers for f32 leaves from the integers (small, exact)
  leaves.push(["mul", f32(2 ** -9), ["cast", "f32", ileaves[ileaves.length - 1]]]);
  // a sibling nest cannot see the first nest's let (and may not bind the name again)
  const sideLeaves = leaves.map((l) => (l === "x" ? xLoad : l));

  const main: any[] = pre.slice();
  const side: any[] = [];
  const written: { name: string; layout: "rc" | "cr" | "off" | "flat" | "pair"; dtype: string }[] = [];
  s.outputs.forEach((o, k) => {
    const bname = "O" + k;
    params.push({ name: bname, dtype: o.dtype, shape: shapeFor(o.layout) });
    const here = o.sibling && !s.oneD ? side : main;
    const nestLeaves = here === side ? sideLeaves : leaves;
    const myLeaves = nestLeaves.slice();
    const myI = ileaves.slice();
    if (o.readEarlier) {
      // RAW: read an earlier output (stored in this same nest) at the element this iteration wrote
      const earlier = written.filter((w) => (here === side) === w.name.startsWith("S:"));
      if (earlier.length > 0) {
        const w = earlier[earlier.length - 1];
        const load: J = ["load", w.name.replace("S:", ""), at(w.layout)];
        if (w.dtype === "f32") myLeaves.unshift(["tanh", load]);
        else myI.unshift(load);
      }
    }
    const value = (sk: Skel): J => (o.dtype === "f32" ? fexpr(sk, myLeaves, nestLeaves) : iexpr(sk, myI));
    const store = (sk: Skel): any => ({ store: bname, at: at(o.layout), value: value(sk) });
    const stmts: any[] = [];
    if (o.cond === "none") stmts.push(store(o.skel));
    else {
      const cond: J = fcond(o.condSkel, nestLeaves);
      const st: any = { if: cond, then: [store(o.skel)] };
      if (o.cond === "if-else") st.else = [store(o.condSkel)];
      stmts.push(st);
    }
    if (o.layout === "pair") {
      // the odd column of the pair: a second store to the buffer, interleaved with the first
      const odd = at("pair").slice();
      odd[odd.length - 1] = ["add", odd[odd.length - 1], 1];
      stmts.push({ store: bname, at: odd, value: value(o.condSkel) });
    }
    if (o.storeTwice) stmts.push(store(o.condSkel));
    for (const x of stmts) here.push(x);
    written.push({ name: (here === side ? "S:" : "") + bname, layout: o.layout, dtype: o.dtype });
  });
  if (s.inPlace) {
    // WAR: X is read above and updated here, at the element this iteration read
    main.push({ store: "X", at: at(s.inputLayout), value: ["mul", xLoad, f32(0.5)] });
  }
  let body: any[];
  if (s.oneD) {
    body = [{ for: "c", in: [0, "C"], kind: "parallel", body: main }];
  } else {
    const inner = (list: any[], cmin: number, cext: J): any => ({ for: "c", in: [cmin, cext], kind: "parallel", body: list });
    if (s.permuted) {
      // the outer loop runs over columns: the same elements in another order (no siblings here)
      body = [{ for: "c", in: [0, "C"], kind: "parallel", body: [{ for: "r", in: [r0, "R"], kind: "parallel", body: main.concat(side) }] }];
    } else {
      const nests: any[] = [];
      if (main.length > 0) nests.push(inner(main, 0, "C"));
      if (side.length > 0) {
        // a sibling nest over the same columns, or over the first half only (another domain)
        const other = s.siblingRange === "other" && C > 1;
        nests.push(inner(side, 0, other ? Math.floor(C / 2) : "C"));
      }
      body = [{ for: "r", in: [r0, "R"], kind: "parallel", body: nests }];
    }
  }
  // a flattened or transposed layout needs the loop variables in range of its shape
  const doc = { tile: 1, name, attrs: { noalias: s.noalias }, sizes, params, body };
  return { doc, options: s.options };
}

// ---------------------------------------------------------------- both families

export interface Case {
  doc: any;
  options: PlanOptions;
  family: "reduction" | "element";
}

export const caseArb: fc.Arbitrary<Case> = fc.oneof(
  reductionSpec.map((s) => ({ ...buildReduction(s), family: "reduction" as const })),
  elementSpec.map((s) => ({ ...buildElement(s), family: "element" as const })),
);

/** The request options object for a case (sizes are in the document). */
export function requestOptions(c: { options: PlanOptions }): Record<string, unknown> {
  return { ...c.options };
}
