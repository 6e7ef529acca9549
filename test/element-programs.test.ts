// Element-family documents whose fused element grid is not proven run as programs (session 29;
// core/analysis/structure.ts programsOf, core/pipeline.ts step 5b): one program per iteration of
// the top-level parallel loop, its inner parallel loops spread over the program's workers, as the
// cooperative realization runs a reduction with no reduce. The cooperative rules decide, exactly
// as for a reduction; where they do not hold, the serial program runs as before. Before, each of
// these ran one thread per row: a triangular scale (a range that varies by row), a cache append
// (a store that covers part of its buffer), a difference with the next row (a row loop shorter
// than the buffer), a store in each branch of an if, and the fixtures the grid's rules refuse.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { emitBothChecked, hostContext, prefetchKernels, validatesOnHost } from "./helpers/host";
import { FIXTURES_DIR } from "./helpers/files";

const h = hostContext();
const read = (name: string): string => fs.readFileSync(path.join(FIXTURES_DIR, "programs", name + ".json"), "utf8");
const rule = (plan: any, id: string): any => plan.rules.find((r: any) => r.id === id);

const MAPPINGS: object[] = [
  {},
  { vector: 4, threads: 32 },
  { vector: 8, unroll: 2, threads: 32 },
  { threads: 64, unroll: 3 },
  { layout: "programs-on-lanes", programsPerGroup: 4, threads: 128 },
];

describe("element documents the grid refuses run as programs", () => {
  for (const [name, failed] of [
    ["tri_scale", "injective-compact-store"],
    ["kv_append", "injective-compact-store"],
    ["row_diff_next", "injective-compact-store"],
    ["relu_if", "single-writer"],
  ] as Array<[string, string]>) {
    it(`${name}: the grid's rejection is kept, the programs are proven and validate at every mapping`, () => {
      const doc = read(name);
      const e = emitBothChecked(h, doc, {});
      expect(e.plan.realization).toBe("cooperative-reduction");
      expect(e.plan.rejections[0].realization).toBe("fused-elementwise");
      expect(e.plan.rejections[0].failed).toContain(failed);
      expect(e.plan.notes[0]).toContain("runs as programs");
      expect(rule(e.plan, "independent-store").verdict).toBe("holds");
      expect(e.plan.reduces ?? []).toEqual([]);
      // no serial-fallback warning: nothing fell back to one thread per row
      expect((e.diagnostics ?? []).map((d: any) => d.code)).not.toContain("TPL008");
      // this test's kernels compiled in one g++ run first; each validation still compiles its own (cached)
      prefetchKernels(h.runtime, h.wasm, MAPPINGS.map((options) => ({ doc, options })));
      for (const options of MAPPINGS) expect(validatesOnHost(h, doc, options, 5), JSON.stringify(options)).toBe(true);
    });
  }

  it("where the cooperative rules do not hold either, the serial program runs, as before", () => {
    // Y[r, c] and Y[r, c + 1] in one loop: two workers write one element
    const meet = JSON.parse(read("tri_scale"));
    meet.sizes.C = 46;
    meet.body[0].body[0].in[1] = "R";
    meet.body[0].body[0].body.push({ store: "Y", at: ["r", ["add", "c", 1]], value: ["f32", 1] });
    const doc = JSON.stringify(meet);
    const e = emitBothChecked(h, doc, {});
    expect(e.plan.realization).toBe("serial-program");
    expect(e.plan.rejections.map((r: any) => r.realization)).toContain("fused-elementwise");
    expect(validatesOnHost(h, doc, {}, 5)).toBe(true);
  });

  it("a program with no parallel loop of its own, and --no-fuse on several outputs, keep the serial program", () => {
    // a 1-D document: each program would be one element, nothing to spread
    const flat = JSON.stringify({
      tile: 1, name: "flat_pairs", attrs: { noalias: true }, sizes: { N: 40 },
      params: [{ name: "X", dtype: "f32", shape: ["N"] }, { name: "Y", dtype: "f32", shape: ["N"] }],
      body: [{ for: "i", in: [0, ["sub", "N", 1]], kind: "parallel", body: [{ store: "Y", at: ["i"], value: ["load", "X", [["add", "i", 1]]] }] }],
    });
    const f = emitBothChecked(h, flat, {});
    expect(f.plan.realization).toBe("serial-program");
    // two outputs under --no-fuse: the serial program, as the option asks
    const two = JSON.parse(read("tri_scale"));
    two.params.push({ name: "Z", dtype: "f32", shape: ["R", "C"] });
    two.body[0].body[0].body.push({ store: "Z", at: ["r", "c"], value: ["load", "X", ["r", "c"]] });
    const n = emitBothChecked(h, JSON.stringify(two), { fuse: false });
    expect(n.plan.realization).toBe("serial-program");
    expect(emitBothChecked(h, JSON.stringify(two), {}).plan.realization).toBe("cooperative-reduction");
  });

  // (session 30) a perfect nest of parallel loops above the inner ones: the loops whose bodies
  // still hold a parallel loop are one program per index tuple (4b's flattening, element form),
  // where that costs less than one program per iteration of the top-level loop alone
  for (const [name, vars, programs] of [
    ["batched_tri_scale", "b, r", 135],
    ["kv_append_heads", "h, n", 18],
    ["causal_scale_4d", "b, h, i", 114],
  ] as Array<[string, string, number]>) {
    it(`${name}: the loops ${vars} are ${programs} programs, proven and validated at every mapping`, () => {
      const doc = read(name);
      const e = emitBothChecked(h, doc, {});
      expect(e.plan.realization).toBe("cooperative-reduction");
      expect(e.plan.rejections[0].realization).toBe("fused-elementwise");
      expect(e.plan.notes[0]).toContain(`one per index tuple of the parallel loops ${vars} (${programs} programs)`);
      expect(e.plan.mapping.programs).toBe(programs);
      expect(rule(e.plan, "independent-store").verdict).toBe("holds");
      expect((e.diagnostics ?? []).map((d: any) => d.code)).not.toContain("TPL008");
      // this test's kernels compiled in one g++ run first; each validation still compiles its own (cached)
      prefetchKernels(h.runtime, h.wasm, MAPPINGS.map((options) => ({ doc, options })));
      for (const options of MAPPINGS) expect(validatesOnHost(h, doc, options, 5), JSON.stringify(options)).toBe(true);
    });
  }

  it("a row decoded from the program index (p % R) has known bounds: its range [0, p % R + 1) is spread over the workers", () => {
    // the flattened form of batched_tri_scale written by hand: before exprRange (core/analysis/ranges.ts)
    // the loop's extent had no bound, its indices might wrap, and the document ran one thread per row
    const doc = JSON.stringify({
      tile: 1, name: "decoded_rows", attrs: { noalias: true }, sizes: { P: 135, C: 45 },
      params: [{ name: "X", dtype: "f32", shape: ["P", "C"] }, { name: "Y", dtype: "f32", shape: ["P", "C"] }],
      body: [{ for: "p", in: [0, "P"], kind: "parallel", body: [
        { for: "c", in: [0, ["add", ["mod", "p", 45], 1]], kind: "parallel", body: [{ store: "Y", at: ["p", "c"], value: ["mul", ["load", "X", ["p", "c"]], ["f32", 0.5]] }] },
      ] }],
    });
    const e = emitBothChecked(h, doc, {});
    expect(e.plan.realization).toBe("cooperative-reduction");
    expect(rule(e.plan, "independent-store").verdict).toBe("holds");
    expect(validatesOnHost(h, doc, { vector: 4, threads: 32 }, 5)).toBe(true);
    // a divisor whose range holds 0 gives no bound (x div 0 = 0 in Tile IR, but the rule does not
    // guess): the extent p div (p - 3) is not bounded, and the document is not admitted as programs
    const zero = JSON.parse(doc);
    zero.body[0].body[0].in[1] = ["div", "p", ["sub", "p", 3]];
    const z = emitBothChecked(h, JSON.stringify(zero), {});
    expect(z.plan.realization).toBe("serial-program");
  });

  it("a batched nest whose flattened programs meet (Y[b, r + 1, c] and Y[b, r, c]) keeps the serial program", () => {
    const meet = JSON.parse(read("batched_tri_scale"));
    meet.sizes.R1 = meet.sizes.R + 1;
    meet.params[1].shape = ["B", "R1", "C"];
    meet.body[0].body[0].body[0].body.push({ store: "Y", at: ["b", ["add", "r", 1], "c"], value: ["f32", 1] });
    const doc = JSON.stringify(meet);
    const e = emitBothChecked(h, doc, {});
    expect(e.plan.realization).toBe("serial-program");
    expect(validatesOnHost(h, doc, {}, 5)).toBe(true);
  });

  // (red team, session 30) width requests the programs cannot honour are reported as for a
  // reduction, not dropped in favour of the grid's rejection and an "element family" TPL011
  it("a width request the programs cannot honour is a TPL009 error; a thread cap below a SIMD group says so", () => {
    const seven = JSON.parse(read("relu_if"));
    seven.sizes.R = 7;
    seven.body[0].body[0].body = [{ if: ["gt", ["load", "Y", ["r", "c"]], ["f32", 0]], then: [{ store: "Y", at: ["r", "c"], value: ["mul", ["load", "Y", ["r", "c"]], ["f32", 0.5]] }] }];
    const doc = JSON.stringify(seven);
    const auto = h.wasm.call({ command: "plan", document: doc, options: {} });
    expect(auto.realization).toBe("cooperative-reduction");
    // 7 programs in groups of 4: the replaying slots would read what the last program writes
    const p4 = h.wasm.call({ command: "plan", document: doc, options: { programsPerGroup: 4 } });
    expect(p4.ok).toBe(false);
    const codes = p4.diagnostics.map((d: any) => d.code);
    expect(codes).toContain("TPL009");
    expect(codes).not.toContain("TPL011");
    expect(p4.diagnostics.find((d: any) => d.code === "TPL009").message).toContain("tail-read-write fails");
    // a cap of 16 threads fits no SIMD group: the serial program, and the warning names the cap
    const cap = h.wasm.call({ command: "plan", document: doc, options: { maxThreads: 16 } });
    expect(cap.realization).toBe("serial-program");
    const warn = cap.diagnostics.find((d: any) => d.code === "TPL008");
    expect(warn.message).toContain("thread limit of 16");
    expect(cap.notes.join(" ")).toContain("but not with the requested widths");
    expect(validatesOnHost(h, doc, { maxThreads: 16 }, 5)).toBe(true);
  });

  it("under --no-fuse a document with several outputs that would run as programs says so in a note", () => {
    const two = JSON.parse(read("tri_scale"));
    two.params.push({ name: "Z", dtype: "f32", shape: ["R", "C"] });
    two.body[0].body[0].body.push({ store: "Z", at: ["r", "c"], value: ["load", "X", ["r", "c"]] });
    const p = h.wasm.call({ command: "plan", document: JSON.stringify(two), options: { fuse: false } });
    expect(p.realization).toBe("serial-program");
    expect(p.notes.join(" ")).toContain("Without --no-fuse this document would run as programs");
  });

  it("an if around the row's parallel loops keeps the serial program, and a note says to move the condition inside (red team, session 32)", () => {
    const loop = (v: string, value: unknown) => ({ for: v, in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: ["r", v], value }] });
    const doc = (body: unknown[]) => JSON.stringify({
      tile: 1, name: "if_around_loop", attrs: { noalias: true }, sizes: { R: 6, C: 9 },
      params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R", "C"] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body }],
    });
    const around = doc([{ if: ["eq", ["mod", "r", 2], 0], then: [loop("c", ["load", "X", ["r", "c"]])], else: [loop("c2", ["neg", ["load", "X", ["r", "c2"]]])] }]);
    const p = h.wasm.call({ command: "plan", document: around });
    expect(p.realization).toBe("serial-program");
    expect(p.notes.join(" ")).toContain("sit under the `if` at /body/0/body/0, which one worker would run alone");
    expect(JSON.stringify(h.js.call({ command: "plan", document: around }))).toBe(JSON.stringify(p));
    expect(validatesOnHost(h, around, {}, 3)).toBe(true);
    // the condition inside the loop: programs, and no such note
    const inside = doc([{ for: "c", in: [0, "C"], kind: "parallel", body: [{ if: ["eq", ["mod", "r", 2], 0],
      then: [{ store: "Y", at: ["r", "c"], value: ["load", "X", ["r", "c"]] }], else: [{ store: "Y", at: ["r", "c"], value: ["neg", ["load", "X", ["r", "c"]]] }] }] }]);
    const q = h.wasm.call({ command: "plan", document: inside });
    expect(q.realization).toBe("cooperative-reduction");
    expect(q.notes.join(" ")).not.toContain("which one worker would run alone");
    expect(validatesOnHost(h, inside, {}, 3)).toBe(true);
  });

  it("under --no-fuse a document the fused grid would run says that, not programs (red team, session 32)", () => {
    const gelu = fs.readFileSync(path.join(FIXTURES_DIR, "..", "..", "cases", "gelu_pair.json"), "utf8");
    expect(h.wasm.call({ command: "plan", document: gelu }).realization).toBe("fused-elementwise");
    const p = h.wasm.call({ command: "plan", document: gelu, options: { fuse: false } });
    expect(p.realization).toBe("serial-program");
    const note = p.notes.join(" ");
    expect(note).toContain("Without --no-fuse this document would run as the fused element grid");
    expect(note).not.toContain("would run as programs");
    expect(JSON.stringify(h.js.call({ command: "plan", document: gelu, options: { fuse: false } }))).toBe(JSON.stringify(p));
  });

  it("the calibrated model's fewer-programs preference never takes a narrower vector (run 84: P = 1 V = 1 took 12.2 us, P = 2 V = 4 7.2 us)", () => {
    const device = JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, "..", "..", "devices", "nvidia-h200-calibrated.json"), "utf8"));
    const sizes = { H: 32, T: 4096, N: 512, POS: 1024, D: 128 };
    const p = h.wasm.call({ command: "plan", document: read("kv_append_heads"), options: { sizes, device } });
    expect(p.realization).toBe("cooperative-reduction");
    expect(p.mapping.V).toBe(4);
    // the candidates the preference may still take keep V = 4
    for (const n of p.notes) if (/within the calibrated model's error/.test(n)) expect(n).not.toMatch(/V=1/);
  });
});
