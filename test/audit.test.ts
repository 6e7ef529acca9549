// The MSL audit on hand-made kernels (test/fixtures/audit): each bad kernel is caught by the
// right check, at the right line; the good kernels pass.
import { describe, expect, it, vi } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

vi.mock("../core/glue/wasm", async () => await import("../core/glue/js"));

import { auditMsl } from "../core/audit/audit";
import { Text } from "../core/util/text";

const DIR = join(__dirname, "fixtures", "audit");
const COOP = "cooperative-reduction";
const read = (name: string): string => readFileSync(join(DIR, name), "utf8");

/** Line (1-based) of the first line of `name` containing `needle`, after line `after`. */
function lineOf(name: string, needle: string, after = 0): number {
  const lines = read(name).split("\n");
  for (let i = after; i < lines.length; i++) if (lines[i].includes(needle)) return i + 1;
  throw new Error(needle + " not in " + name);
}

interface Case {
  file: string;
  realization: string;
  expected: number;
  /** check id -> the text of each line it must point at (sorted as found). */
  findings: Array<[string, string]>;
}

const CASES: Case[] = [
  { file: "bad_barrier_under_tail.metal", realization: COOP, expected: 1, findings: [["barrier-under-condition", "threadgroup_barrier("]] },
  { file: "bad_unpredicated_store.metal", realization: COOP, expected: 1, findings: [["unpredicated-replay-store", "Y[r] = s;"]] },
  { file: "bad_barrier_varying_loop.metal", realization: COOP, expected: 1, findings: [["barrier-in-varying-loop", "threadgroup_barrier("]] },
  { file: "bad_collective_half_simd.metal", realization: COOP, expected: 1, findings: [["collective-divergent", "part_s = simd_sum(acc_s);"]] },
  { file: "bad_double.metal", realization: COOP, expected: 1, findings: [["double", "double acc_s"]] },
  { file: "bad_barrier_count.metal", realization: COOP, expected: 2, findings: [["barrier-count", ""]] },
  {
    file: "bad_after_return.metal", realization: COOP, expected: 1,
    findings: [["collective-divergent", "simd_sum(X[i])"], ["barrier-under-condition", "threadgroup_barrier("]],
  },
  {
    file: "bad_ternary_collective.metal", realization: COOP, expected: 0,
    findings: [
      ["collective-divergent", "simd_max(x)"],
      ["collective-divergent", "simd_all("],
      ["barrier-under-condition", "threadgroup_barrier("],
      ["unpredicated-replay-store", "out[tid + 64]"],
      ["barrier-count", ""],
    ],
  },
];

describe("auditMsl: bad kernels", () => {
  for (const c of CASES) {
    it(c.file, () => {
      const r = auditMsl(read(c.file), c.realization, c.expected);
      expect(r.ok).toBe(false);
      const got = r.findings.map((f) => [f.check, f.line]);
      const want = c.findings.map(([check, needle]) => [check, needle === "" ? 0 : lineOf(c.file, needle)]);
      expect(got).toEqual(want);
      for (const f of r.findings) expect(f.message.length).toBeGreaterThan(20);
    });
  }

  it("the same unpredicated store is fine outside the cooperative realization", () => {
    const r = auditMsl(read("bad_unpredicated_store.metal"), "serial-program", 1);
    expect(r.findings).toEqual([]);
    expect(r.deviceStores).toBe(1);
    expect(r.predicatedStores).toBe(0);
  });

  it("a writable element's address cast at once to a pointer to const is a read, not a store", () => {
    // the in-place fill (session 33): X is written under `live` and read packed, outside it
    const base = read("bad_unpredicated_store.metal").replace("device const float* X [[buffer(0)]]", "device float* X [[buffer(0)]]");
    const fill = "      cache_X[k * 4 + j] = (*((device const packed_float4*)(&X[r * 1536 + (k * 32 + worker) * 4])))[j];\n";
    const withRead = base.replace("      if (c < 1537) cache_X[k * 4 + j] = X[r * 1537 + c];\n", fill).replace("if (worker == 0) { Y[r] = s; }", "if (worker == 0 && live) { Y[r] = s; }");
    expect(withRead).toContain("(device const packed_float4*)(&X[");
    const ok = auditMsl(withRead, COOP, 1);
    expect(ok.findings).toEqual([]);
    expect(ok.deviceStores).toBe(1);
    // the same address through a pointer that is not to const counts as a store outside `live`
    const asStore = withRead.replace("(device const packed_float4*)(&X[", "(device packed_float4*)(&X[");
    expect(auditMsl(asStore, COOP, 1).findings.map((f) => f.check)).toEqual(["unpredicated-replay-store"]);
    // and so does a bare address, or a const cast that is not applied to it at once
    const bare = withRead.replace("(*((device const packed_float4*)(&X[r * 1536 + (k * 32 + worker) * 4])))[j]", "*(&X[r * 1536 + j])");
    expect(auditMsl(bare, COOP, 1).findings.map((f) => f.check)).toEqual(["unpredicated-replay-store"]);
    const later = withRead.replace("(device const packed_float4*)(&X[", "(device const packed_float4*)(1 + &X[");
    expect(auditMsl(later, COOP, 1).findings.map((f) => f.check)).toEqual(["unpredicated-replay-store"]);
    // a const pointer cast again to a writable one is not a read
    const castAway = withRead.replace("(*((device const packed_float4*)(&X[r * 1536 + (k * 32 + worker) * 4])))[j]", "(*((device packed_float4*)(device const packed_float4*)(&X[r * 1536 + (k * 32 + worker) * 4])))[j]");
    expect(castAway).not.toBe(withRead);
    expect(auditMsl(castAway, COOP, 1).findings.map((f) => f.check)).toEqual(["unpredicated-replay-store"]);
  });

  it("a barrier is wrong in a realization that expects none", () => {
    const r = auditMsl(read("good_sum_cooperative.metal"), "fused-elementwise", 0);
    expect(r.findings.map((f) => f.check)).toEqual(["barrier-count"]);
    expect(r.checks()).toEqual(["barrier-count"]);
  });
});

describe("auditMsl: good kernels", () => {
  it("an emitted cooperative kernel", () => {
    const r = auditMsl(read("good_sum_cooperative.metal"), COOP, 1);
    expect(r.findings).toEqual([]);
    expect(r.ok).toBe(true);
    expect([r.barriers, r.collectives, r.deviceStores, r.predicatedStores]).toEqual([1, 2, 1, 1]);
  });

  it("a hand-written uniform kernel", () => {
    const r = auditMsl(read("good_handwritten.metal"), COOP, 1);
    expect(r.findings).toEqual([]);
    expect([r.barriers, r.collectives, r.deviceStores, r.predicatedStores]).toEqual([1, 2, 2, 2]);
  });

  it("every fixture is covered", () => {
    const named = new Set([...CASES.map((c) => c.file), "good_sum_cooperative.metal", "good_handwritten.metal"]);
    expect(readdirSync(DIR).filter((f) => !named.has(f))).toEqual([]);
  });

  it("serializes the report as JSON", () => {
    const r = auditMsl(read("bad_barrier_count.metal"), COOP, 2);
    const out = new Text();
    r.toJson(out);
    const j = JSON.parse(out.toString());
    expect(j).toEqual({
      ok: false,
      realization: COOP,
      barriers: 1,
      expectedBarriers: 2,
      collectives: 4,
      deviceStores: 1,
      predicatedStores: 1,
      findings: [{ check: "barrier-count", line: 0, message: "found 1 threadgroup_barrier calls, expected 2." }],
    });
  });
});

describe("text that is not a kernel (red team, session 23)", () => {
  it("a text without a kernel function is a no-kernel finding, not a pass", () => {
    for (const text of ["garbage", "", '{"tile": 1, "name": "softmax"}']) {
      const r = auditMsl(text, COOP, 0);
      expect(r.ok).toBe(false);
      expect(r.findings.map((f) => f.check)).toEqual(["no-kernel"]);
    }
    expect(auditMsl(read(readdirSync(DIR).filter((f) => f.startsWith("good"))[0]), COOP, -1).findings.map((f) => f.check)).not.toContain("no-kernel");
  });
});

describe("the messages name the construct and its line (written only when a finding quotes them)", () => {
  it("if, else, while, switch, do-while, a varying for loop, a divergent return, an operand", () => {
    const body = [
      "kernel void k(device float* Y, uint tid) {", // 1
      "  if (tid < 3) { threadgroup_barrier(mem_flags::mem_threadgroup); }", // 2
      "  else { float a = simd_sum(Y[0]); }", // 3
      "  while (tid < 9) { threadgroup_barrier(mem_flags::mem_threadgroup); }", // 4
      "  switch (tid) { case 0: threadgroup_barrier(mem_flags::mem_threadgroup); }", // 5
      "  do { threadgroup_barrier(mem_flags::mem_threadgroup); } while (tid < 2);", // 6
      "  for (uint i = 0; i < tid; i++) { threadgroup_barrier(mem_flags::mem_threadgroup); float b = simd_max(Y[i]); }", // 7
      "  float c = tid > 0 ? simd_min(Y[1]) : 0.0f;", // 8
      "  if (tid > 5) return;", // 9
      "  threadgroup_barrier(mem_flags::mem_threadgroup);", // 10
      "}",
    ].join("\n");
    const r = auditMsl(body, "fused-elementwise", 0);
    expect(r.findings.map((f) => [f.check, f.line, f.message])).toEqual([
      ["barrier-under-condition", 2, "threadgroup_barrier is under a condition (the if at line 2): threads that skip it leave the others waiting or racing."],
      ["collective-divergent", 3, "simd_sum is not reached by all lanes (the else of the if at line 2); a SIMD collective must be uniform."],
      ["barrier-under-condition", 4, "threadgroup_barrier is under a condition (the while at line 4): threads that skip it leave the others waiting or racing."],
      ["barrier-under-condition", 5, "threadgroup_barrier is under a condition (the switch at line 5): threads that skip it leave the others waiting or racing."],
      ["barrier-under-condition", 6, "threadgroup_barrier is under a condition (the do-while at line 6): threads that skip it leave the others waiting or racing."],
      ["barrier-in-varying-loop", 7, "threadgroup_barrier is inside the for loop at line 7, whose bounds are not integer literals: threads may reach it a different number of times."],
      ["collective-divergent", 7, "simd_max is not reached by all lanes (the for loop at line 7, whose bounds are not integer literals); a SIMD collective must be uniform."],
      ["collective-divergent", 8, "simd_min is not reached by all lanes (an operand of ?:, && or || on the same line); a SIMD collective must be uniform."],
      ["barrier-under-condition", 10, "threadgroup_barrier is under a condition (code after the return at line 9 that only some threads take): threads that skip it leave the others waiting or racing."],
      ["barrier-count", 0, "found 6 threadgroup_barrier calls, expected 0."],
    ]);
  });
});
