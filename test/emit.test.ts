// The MSL emitter: golden kernels for every built-in case under several hand-built plans, exact
// float literals, the audit on every emitted kernel, and (where the host runtime is available)
// the emitted kernels run on the CPU against the FP64 oracle.
//
// Regenerate the goldens with TILE_UPDATE_GOLDEN=1 and review every diff.
import { ERF_HELPER } from "../core/emit/erf";
import { describe, expect, it, beforeAll, afterAll, vi } from "vitest";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { loadDocument } from "../core/ir/load";
import { Doc, Expr, Stmt } from "../core/ir/ast";
import { recognize } from "../core/analysis/structure";
import {
  Plan,
  REALIZATION_COOPERATIVE,
  REALIZATION_FUSED,
  REALIZATION_SERIAL,
} from "../core/plan/plan";
import { emitMsl } from "../core/emit/emit";
import { bindingsFor, kernelName, threadgroupDecls } from "../core/emit/abi";
import { floatText } from "../core/emit/expr";
import { auditMsl } from "../core/audit/audit";
import { Text } from "../core/util/text";
import { evaluate } from "../shell-node/src/oracle";
import { makeInputs } from "../shell-node/src/inputs";
import { nativeLibraryPath, openRuntime, type Runtime } from "../shell-node/src/native";

// The core's WebAssembly glue uses AssemblyScript builtins; under vitest use the JS glue.
vi.mock("../core/glue/wasm", async () => await import("../core/glue/js"));

const ROOT = join(__dirname, "..");
const CASES = join(ROOT, "cases");
const GOLDEN = join(__dirname, "fixtures", "msl");
const IR = join(GOLDEN, "ir");
const UPDATE = process.env.TILE_UPDATE_GOLDEN === "1";

interface Spec {
  realization: string;
  P?: number;
  S?: number;
  V?: number;
  U?: number;
  /** Buffers to hold in registers (cooperative, cached input). */
  cache?: string[];
  /** Threads per group for the serial program. */
  T?: number;
  sizes?: Record<string, number>;
}

interface Variant {
  /** A built-in case name (cases/<name>.json) or a fixture (test/fixtures/msl/ir/<name>.json). */
  doc: string;
  variant: string;
  spec: Spec;
}

function docText(name: string): string {
  const builtin = join(CASES, name + ".json");
  return readFileSync(existsSync(builtin) ? builtin : join(IR, name + ".json"), "utf8");
}

function load(name: string, sizes: Record<string, number> = {}): Doc {
  const keys = Object.keys(sizes).sort();
  const loaded = loadDocument(docText(name), keys, keys.map((k) => sizes[k]));
  if (!loaded.ok) throw new Error(name + ": " + loaded.diags.map((d) => d.message).join("; "));
  return loaded.doc;
}

function constOf(e: Expr, doc: Doc): number {
  if (e.op === "int") return e.ival;
  if (e.op === "name" && e.ref === "size") return doc.size(e.name);
  throw new Error("test plans need constant loop bounds");
}

/** A plan built by hand with the design's formulas (the solver's job in the pipeline). */
function planFor(doc: Doc, spec: Spec): Plan {
  const st = recognize(doc);
  const plan = new Plan();
  plan.realization = spec.realization;
  plan.family = st.family;
  plan.programLoop = st.programLoop;
  plan.reduces = st.reduces;
  plan.domainLoops = st.domainLoops;
  const m = plan.mapping;
  const top = st.programLoop;
  if (top !== null) {
    m.programs = constOf(top.extent, doc);
    m.programMin = constOf(top.min, doc);
  }
  if (spec.realization === REALIZATION_COOPERATIVE) {
    m.P = spec.P ?? 1;
    m.S = spec.S ?? 1;
    m.W = 32 * m.S;
    m.T = 32 * m.S * m.P;
    m.V = spec.V ?? 1;
    m.U = spec.U ?? 1;
    m.groups = Math.ceil(m.programs / m.P);
    m.cached = (spec.cache ?? []).length > 0;
    m.cacheBuffers = spec.cache ?? [];
    m.partialBytes = m.P * m.S * 4;
  } else if (spec.realization === REALIZATION_FUSED) {
    const loops = st.domainLoops;
    m.block = 256;
    m.T = 256;
    m.domainCols = constOf(loops[loops.length - 1].extent, doc);
    m.domainRows = loops.slice(0, -1).reduce((a, l) => a * constOf(l.extent, doc), 1);
    m.domainExtents = loops.map((l) => constOf(l.extent, doc));
    m.blocksPerRow = Math.ceil(m.domainCols / 256);
    m.groups = m.domainRows * m.blocksPerRow;
  } else {
    m.T = spec.T ?? 64;
    m.groups = top === null ? 1 : Math.ceil(m.programs / m.T);
    if (top === null) m.T = 1;
  }
  plan.kernelName = kernelName(doc, spec.realization);
  plan.bindings = bindingsFor(doc, plan);
  return plan;
}

const coop = (P: number, V: number, U: number, cache: string[] = [], S = 1, sizes?: Record<string, number>): Spec => ({
  realization: REALIZATION_COOPERATIVE, P, S, V, U, cache, sizes,
});
const fused: Spec = { realization: REALIZATION_FUSED };
const serial: Spec = { realization: REALIZATION_SERIAL, T: 64 };

const REDUCTIONS = ["sum", "minmax", "softmax", "layernorm", "layernorm_affine", "rmsnorm"];
const ELEMENTS = ["sigmoid_pair", "gelu_pair", "gelu_exact_pair", "add", "gelu_add"];

const VARIANTS: Variant[] = [
  // every reduction: unpacked, and packed by two with vectors and a cached input (37 rows: a tail)
  ...REDUCTIONS.map((doc) => ({ doc, variant: "p1_v1_u1", spec: coop(1, 1, 1) })),
  ...REDUCTIONS.map((doc) => ({ doc, variant: "p2_v4_u1_cached", spec: coop(2, 4, 1, ["X"]) })),
  // widths, unroll, S > 1, tails and no tail
  { doc: "softmax", variant: "p3_v8_u3", spec: coop(3, 8, 3) },
  { doc: "softmax", variant: "p8_v1_u3_cached", spec: coop(8, 1, 3, ["X"]) },
  { doc: "softmax", variant: "p2_s2_v4_u3_cached", spec: coop(2, 4, 3, ["X"], 2) },
  { doc: "softmax", variant: "p3_v4_u1_r36", spec: coop(3, 4, 1, [], 1, { R: 36 }) },
  { doc: "sum", variant: "p8_v4_u1", spec: coop(8, 4, 1) },
  { doc: "sum", variant: "p3_v1_u1_c31", spec: coop(3, 1, 1, [], 1, { R: 5, C: 31 }) },
  { doc: "minmax", variant: "p8_v8_u3_cached", spec: coop(8, 8, 3, ["X"]) },
  { doc: "layernorm", variant: "p1_s4_v8_u3_cached", spec: coop(1, 8, 3, ["X"], 4) },
  { doc: "layernorm_affine", variant: "p3_v4_u3", spec: coop(3, 4, 3) },
  { doc: "rmsnorm", variant: "p3_v8_u3_cached", spec: coop(3, 8, 3, ["X"]) },
  // every element case fused
  ...ELEMENTS.map((doc) => ({ doc, variant: "fused", spec: fused })),
  // the serial fallback
  { doc: "softmax", variant: "serial", spec: serial },
  { doc: "layernorm_affine", variant: "serial_t32", spec: { realization: REALIZATION_SERIAL, T: 32 } },
  { doc: "gelu_pair", variant: "serial", spec: serial },
  // constructs the built-in cases do not use (fixtures in test/fixtures/msl/ir)
  { doc: "wrapped_i32", variant: "p2_v4_u3", spec: coop(2, 4, 3) },
  { doc: "wrapped_i32", variant: "p3_v1_u1_cached", spec: coop(3, 1, 1, ["X"]) },
  { doc: "wrapped_i32", variant: "serial", spec: serial },
  { doc: "grid3", variant: "fused", spec: fused },
  { doc: "grid3", variant: "serial", spec: serial },
  { doc: "toplevel", variant: "serial", spec: serial },
];

function emitVariant(v: Variant): { doc: Doc; plan: Plan; msl: string } {
  const doc = load(v.doc, v.spec.sizes);
  const plan = planFor(doc, v.spec);
  return { doc, plan, msl: emitMsl(doc, plan) };
}

function goldenPath(v: Variant): string {
  return join(GOLDEN, v.doc + "__" + v.variant + ".metal");
}

describe("emitMsl: golden kernels", () => {
  if (UPDATE) mkdirSync(GOLDEN, { recursive: true });
  for (const v of VARIANTS) {
    it(v.doc + " / " + v.variant, () => {
      const { msl } = emitVariant(v);
      const path = goldenPath(v);
      if (UPDATE) writeFileSync(path, msl);
      expect(existsSync(path), "missing golden " + path + " (TILE_UPDATE_GOLDEN=1 writes it)").toBe(true);
      expect(msl).toBe(readFileSync(path, "utf8"));
    });
  }

  it("has no stale goldens", () => {
    const wanted = new Set(VARIANTS.map((v) => v.doc + "__" + v.variant + ".metal"));
    const stale = readdirSync(GOLDEN).filter((f) => f.endsWith(".metal") && !wanted.has(f));
    expect(stale).toEqual([]);
  });

  it("is deterministic and reads sizes after overrides", () => {
    const a = emitVariant(VARIANTS[0]).msl;
    expect(emitVariant(VARIANTS[0]).msl).toBe(a);
    const small = emitMsl(load("softmax", { C: 100 }), planFor(load("softmax", { C: 100 }), coop(2, 4, 1)));
    expect(small).toContain("tile_v0 + 4 <= 100)");
    expect(small).not.toContain("1537");
  });
});

describe("emitMsl: shape of each realization", () => {
  it("cooperative reduction: four stages and one unconditional barrier per reduce", () => {
    const { msl } = emitVariant({ doc: "softmax", variant: "", spec: coop(2, 4, 1, ["X"]) });
    expect(msl.startsWith("#include <metal_stdlib>\nusing namespace metal;\n")).toBe(true);
    expect(msl).toContain("// tile: softmax / cooperative-reduction / P=2 S=1 W=32 T=64 V=4 U=1 groups=19 cached=X");
    expect(msl).toContain("kernel void softmax_cooperative_reduction(");
    expect(msl).toContain("    device const float* X [[buffer(0)]],\n    device float* Y [[buffer(1)]],\n");
    expect(msl).toContain("    device const float* X [[buffer(0)]],\n    device float* Y [[buffer(1)]],\n    uint tid");
    expect(msl).toContain("{\n  // threadgroup memory, per reduce: one partial per SIMD group of each of the P programs\n  threadgroup float tg0[2];\n  threadgroup float tg1[2];\n");
    expect(msl).toContain(
      "    uint tid [[thread_index_in_threadgroup]],\n    uint group [[threadgroup_position_in_grid]],\n" +
        "    uint lane [[thread_index_in_simdgroup]],\n    uint sg [[simdgroup_index_in_threadgroup]])\n",
    );
    expect(msl).toContain("const bool live = logical < 37;");
    expect(msl).toContain("const int r = (live ? logical : 36);");
    expect(msl.split("threadgroup_barrier(mem_flags::mem_threadgroup);").length - 1).toBe(2);
    for (const stage of ["stage 0", "stage 1", "stage 2", "stage 3", "stage 4"]) expect(msl).toContain("// " + stage);
    // NaN-propagating max at both levels (Metal's simd_max ignores a NaN lane)
    expect(msl).toContain("const float m = tile_simd_max(lane < 1u ? tg0[partial_base + int(lane)] : -INFINITY);");
    expect(msl).toContain("const float part_m = tile_simd_max(acc_m);");
    expect(msl).toContain("static inline float tile_simd_max(float x) {");
    expect(msl).toContain("const float s = simd_sum(lane < 1u ? tg1[partial_base + int(lane)] : 0.0f);");
    expect(msl).toContain("float cache_X[52];");
    expect(msl).toContain("if (live) { Y[r * 1537 + c] = ");
    expect(msl).not.toContain("double");
  });

  it("uncached stripes re-read the input; cached ones read registers", () => {
    const un = emitVariant({ doc: "softmax", variant: "", spec: coop(2, 4, 1) }).msl;
    expect(un).not.toContain("cache_");
    // every stage: V-wide reads of whole vectors (in the loop over whole chunks and in the last
    // chunk), and element by element in the ragged vector of the last chunk
    expect(un.split("*((device const packed_float4*)(&X[r * 1537 + tile_v0]))").length - 1).toBe(6);
    expect(un.split("X[r * 1537 + c]").length - 1).toBe(3);
    const ca = emitVariant({ doc: "softmax", variant: "", spec: coop(2, 4, 3, ["X"]) }).msl;
    // the fill only: its V-wide read of a whole vector and its element-by-element ragged vector
    const [fill, stages] = ca.split("// stage 1:");
    expect(fill.split("X[r * 1537 + c]").length - 1).toBe(1);
    expect(fill.split("(device const packed_float4*)(&X[r * 1537 + tile_v0])").length - 1).toBe(2);
    expect(stages.split("X[r * 1537 + c]").length - 1).toBe(0);
    expect(stages).not.toContain("&X[");
    expect(ca).toContain("cache_X[(k + 2) * 4 + j]");
  });

  it("fused element grid and serial program", () => {
    const f = emitVariant({ doc: "add", variant: "", spec: fused }).msl;
    expect(f).toContain("const int row = int(group) / 7;");
    expect(f).toContain("const int col = (int(group) % 7) * 256 + int(tid);");
    expect(f).toContain("if (col >= 1537) return;");
    expect(f).toContain("Z[r * 1537 + c] = A[r * 1537 + c] + B[r * 1537 + c];");
    expect(f).not.toContain("threadgroup float*");
    expect(f).not.toContain("threadgroup_barrier");
    expect(f).not.toContain("lane");
    const s = emitVariant({ doc: "sum", variant: "", spec: serial }).msl;
    expect(s).toContain("const int i = int(group) * 64 + int(tid);");
    expect(s).toContain("if (i >= 37) return;");
    expect(s).toContain("for (int c = 0; c < 1537; ++c) {");
    expect(s).toContain("Y[r] = s;");
  });

  it("bindings follow the calling convention", () => {
    const doc = load("layernorm_affine");
    const b = bindingsFor(doc, planFor(doc, coop(3, 4, 1)));
    expect(b.map((x) => [x.kind, x.index, x.name, x.access, x.bytes])).toEqual([
      ["buffer", 0, "X", "read", 37 * 1537 * 4],
      ["buffer", 1, "G", "read", 1537 * 4],
      ["buffer", 2, "B", "read", 1537 * 4],
      ["buffer", 3, "Y", "write", 37 * 1537 * 4],
    ]);
    expect(bindingsFor(doc, planFor(doc, serial)).length).toBe(4);
  });

  it("threadgroup memory is declared in the body with static sizes: P*S partials per reduce, typed by the reduce", () => {
    const doc = load("layernorm_affine");
    const plan = planFor(doc, coop(3, 4, 1));
    expect(threadgroupDecls(plan)).toEqual(["threadgroup float tg0[3];", "threadgroup float tg1[3];"]);
    const msl = emitMsl(doc, plan);
    const body = msl.substring(msl.indexOf("{\n"));
    expect(body).toContain("\n  threadgroup float tg0[3];\n  threadgroup float tg1[3];\n");
    expect(msl.substring(0, msl.indexOf("{\n"))).not.toContain("threadgroup float");
    expect(msl).not.toContain("[[threadgroup(");
    expect(threadgroupDecls(planFor(doc, serial))).toEqual([]);
    const wide = load("softmax");
    expect(threadgroupDecls(planFor(wide, coop(2, 4, 1, ["X"], 2)))).toEqual(["threadgroup float tg0[4];", "threadgroup float tg1[4];"]);
    const ints = load("wrapped_i32");
    expect(threadgroupDecls(planFor(ints, coop(2, 4, 3)))).toEqual(["threadgroup int tg0[2];", "threadgroup int tg1[2];", "threadgroup float tg2[2];"]);
  });
});

// ---------------------------------------------------------------------------------------------
// Literals

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);
function bits(x: number): number {
  F32[0] = x;
  return U32[0];
}
function fromBits(b: number): number {
  U32[0] = b >>> 0;
  return F32[0];
}

/** Float literals of MSL text: "1.0f", "0.1f", "1.0e-7f", "3.4028235e+38f". */
function floatLiterals(msl: string): string[] {
  const code = msl.replace(/\/\/[^\n]*/g, "");
  return code.match(/(?<![\w.])\d+\.\d*(?:e[+-]?\d+)?f\b/g) ?? [];
}

function irFloats(list: Stmt[], out: number[]): void {
  const walk = (e: Expr): void => {
    if (e.op === "f32") out.push(e.fval);
    e.args.forEach(walk);
  };
  for (const s of list) {
    [s.min, s.extent, s.step, s.value, s.cond, ...s.at].forEach(walk);
    irFloats(s.body, out);
    irFloats(s.orelse, out);
  }
}

describe("emitMsl: float literals are exact", () => {
  it("every literal parses back to the f32 bits of its value", () => {
    const values = [0.1, 1e-5, 0.7978845608028654, 0.044715, 3.4028234663852886e38, 1.401298464324817e-45,
      1.1754942106924411e-38, 16777216, 16777218, 1, 0.5, 3, 1e-7, 123456.789, 2 ** -20, 1 / 3];
    let seed = 12345;
    for (let i = 0; i < 2000; i++) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      const x = fromBits(seed & 0x7f7fffff);
      if (Number.isFinite(x)) values.push(x);
    }
    for (const x of values) {
      const f = Math.fround(x);
      for (const v of [f, -f]) {
        const t = floatText(v).replace(/^\((.*)\)$/, "$1");
        expect(t).toMatch(/^-?\d+\.\d*(e[+-]?\d+)?f$/);
        expect(bits(Number(t.slice(0, -1)))).toBe(bits(v));
      }
    }
    expect(floatText(1)).toBe("1.0f");
    expect(floatText(Math.fround(0.1))).toBe("0.1f");
    expect(floatText(Math.fround(1e-5))).toBe("0.00001f");
    expect(floatText(Math.fround(1e-7))).toBe("1.0e-7f");
    expect(floatText(-0)).toBe("(-0.0f)");
  });

  it("kernels contain only literals of the IR, of folded sizes, or identities", () => {
    for (const v of VARIANTS) {
      const { doc, msl } = emitVariant(v);
      const allowed = new Set<number>([0]);
      const fl: number[] = [];
      irFloats(doc.body, fl);
      for (const x of fl) allowed.add(bits(x));
      for (const s of doc.sizeValues) allowed.add(bits(Math.fround(s)));
      allowed.add(bits(0));
      // the helpers before the kernel (tile_erf's fitted coefficients) are fixed texts; nothing
      // else before the kernel may hold a float literal
      const head = msl.slice(0, msl.indexOf("kernel void")).replace(ERF_HELPER, "");
      expect(floatLiterals(head), v.doc + "/" + v.variant).toEqual([]);
      for (const lit of floatLiterals(msl.slice(msl.indexOf("kernel void")))) {
        const b = bits(Number(lit.slice(0, -1)));
        expect(allowed.has(b), v.doc + "/" + v.variant + ": literal " + lit).toBe(true);
      }
    }
    // the IR literal 0.7978845608028654 is written as its shortest f32 text
    expect(emitVariant({ doc: "gelu_pair", variant: "", spec: fused }).msl).toContain("0.7978846f");
  });

  it("folds exact constants only", () => {
    const msl = emitVariant({ doc: "fold", variant: "", spec: serial }).msl;
    expect(msl).toContain("Y[0] = 0.3f;"); // 0.1f + 0.2f rounds to the f32 nearest 0.3
    expect(msl).toContain("Y[1] = 1537.0f;"); // cast of a size
    expect(msl).toContain("Y[2] = precise::exp(1.0f);"); // never folded
    expect(msl).toContain("Y[3] = 0.33333334f;");
    expect(msl).toContain("I[0] = 2;"); // floor modulo: -7 mod 3
    expect(msl).toContain("I[1] = tile_add_wrap(2147483647, J[0]);"); // may overflow: wraps on uint
    expect(msl).toContain("I[2] = (-2);"); // 2147483647 * 2 wraps (two's complement)
    expect(msl).toContain("I[3] = (-3) + tile_mod(r, (-3));"); // -7 / 2 truncates
    expect(msl).toContain("static inline int tile_mod(int a, int b) {");
    expect(emitVariant({ doc: "add", variant: "", spec: fused }).msl).not.toContain("tile_mod");
  });
});

// ---------------------------------------------------------------------------------------------
// Audit of every emitted kernel

describe("emitMsl: every kernel passes the audit", () => {
  for (const v of VARIANTS) {
    it(v.doc + " / " + v.variant, () => {
      const { plan, msl } = emitVariant(v);
      const expected = plan.realization === REALIZATION_COOPERATIVE ? plan.reduces.length : 0;
      const report = auditMsl(msl, plan.realization, expected);
      const text = new Text();
      report.toJson(text);
      expect(report.findings.map((f) => f.check + "@" + f.line + ": " + f.message)).toEqual([]);
      expect(report.ok).toBe(true);
      expect(report.barriers).toBe(expected);
      expect(JSON.parse(text.toString()).ok).toBe(true);
      if (plan.realization === REALIZATION_COOPERATIVE) {
        expect(report.collectives).toBe(2 * expected);
        expect(report.predicatedStores).toBe(report.deviceStores);
        expect(report.deviceStores).toBeGreaterThan(0);
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Run on the host runtime against the FP64 oracle

let rt: Runtime | null = null;
const hostAvailable = (): boolean => {
  if (existsSync(nativeLibraryPath("host"))) return true;
  try {
    execFileSync(process.execPath, [join(ROOT, "shell-native", "build.mjs")], { stdio: "ignore" });
  } catch {
    return false;
  }
  return existsSync(nativeLibraryPath("host"));
};
const HOST = process.env.TILE_SKIP_HOST !== "1" && hostAvailable();

describe.skipIf(!HOST)("emitMsl: kernels compute the oracle's values on the host runtime", () => {
  beforeAll(() => {
    rt = openRuntime("host");
    // every variant's kernel compiled in one g++ run first; each test still compiles its own (cached)
    rt.prefetch?.(VARIANTS.map((v) => emitVariant(v).msl));
  });
  afterAll(() => rt?.close());

  for (const v of VARIANTS) {
    it(v.doc + " / " + v.variant, () => {
      const r = rt!;
      const { doc, plan, msl } = emitVariant(v);
      const json = JSON.parse(docText(v.doc));
      json.sizes = { ...json.sizes, ...(v.spec.sizes ?? {}) };
      const inputs = makeInputs(json, 7);
      const ref = evaluate(json, new Map(inputs)).buffers;
      const lib = r.compile(msl);
      const pipe = r.pipeline(lib, plan.kernelName);
      const bufs = doc.params.map((p) => {
        const data = inputs.get(p.name)!;
        const b = r.buffer(data.length * 4);
        r.write(b, p.dtype === "i32" ? Int32Array.from(data) : Float32Array.from(data));
        return b;
      });
      r.dispatch(pipe, bufs, [], [plan.mapping.groups, 1, 1], [plan.mapping.T, 1, 1], 3);
      const bad: string[] = [];
      doc.params.forEach((p, i) => {
        const got = p.dtype === "i32" ? new Int32Array(r.read(bufs[i])) : new Float32Array(r.read(bufs[i]));
        const want = ref.get(p.name)!;
        for (let k = 0; k < want.length && bad.length < 5; k++) {
          if (!(Math.abs(got[k] - want[k]) <= 2e-6 + 2e-5 * Math.abs(want[k]))) bad.push(p.name + "[" + k + "] got " + got[k] + " want " + want[k]);
        }
      });
      bufs.forEach((b) => r.freeBuffer(b));
      r.freePipeline(pipe);
      r.freeLibrary(lib);
      expect(bad).toEqual([]);
    });
  }
});
