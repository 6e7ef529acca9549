// What a user sees when a request or a document cannot be planned as asked (red team, session 26):
// explicit widths are never silently replaced (TPL009, with the rule that failed), and a serial
// fallback's warning points at the statement that causes it.
import { beforeAll, describe, expect, it } from "vitest";
import { loadEngine, type Engine } from "../shell-node/src/engine";

let engines: Engine[] = [];
beforeAll(async () => {
  engines = [await loadEngine("js"), await loadEngine("wasm")];
});

const colsum = JSON.stringify({ tile: 1, name: "colsum", attrs: { noalias: true }, sizes: { R: 64, C: 256 },
  params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["C"] }],
  body: [{ for: "c", in: [0, "C"], kind: "parallel", body: [
    { reduce: "s", combiner: "sum", over: ["r", 0, "R"], value: ["load", "X", ["r", "c"]] },
    { store: "Y", at: ["c"], value: "s" }] }] });

describe("explicit widths", () => {
  it("--threads 128 with programs on lanes on a device of 8 bytes of threadgroup memory is TPL009 naming the rule, not the serial program", () => {
    for (const e of engines) {
      // every P that fits T = 128 (1, 2, 4: each divides 32) needs S * P * P partials, 16 bytes at the least
      const p = e.call({ command: "plan", document: colsum, options: { layout: "programs-on-lanes", threads: 128, device: { threadgroupMemoryBytes: 8 } } });
      expect(p.ok).toBe(false);
      const d = p.diagnostics.find((x: any) => x.code === "TPL009");
      expect(d.pointer).toBe("/options/threads");
      expect(d.message).toMatch(/threadgroup-memory fails: 1 reduction \* S \* P \* P partials of 4 bytes need 16 bytes/);
      expect(d.message).toMatch(/with programs on lanes, for each SIMD group and program, S \* P \* P, where P divides 32, else for each thread, T/);
      expect(p.rules.find((r: any) => r.id === "threadgroup-memory").verdict).toBe("fails");
      // P = 3 does not divide 32: one partial per thread
      const p3 = e.call({ command: "plan", document: colsum, options: { layout: "programs-on-lanes", programsPerGroup: 3, threads: 96, device: { threadgroupMemoryBytes: 256 } } });
      expect(p3.diagnostics.find((x: any) => x.code === "TPL009").message).toMatch(/threadgroup-memory fails: 1 reduction \* T partials of 4 bytes need 384 bytes/);
      // the same request on the default device is honoured as asked
      const q = e.call({ command: "plan", document: colsum, options: { layout: "programs-on-lanes", threads: 128 } });
      expect([q.realization, q.mapping.T, q.mapping.layout]).toEqual(["cooperative-reduction", 128, "programs-on-lanes"]);
    }
  });

  it("--threads over --max-threads: the remedy speaks of the cap", () => {
    const p = engines[0].call({ command: "plan", document: colsum, options: { threads: 128, maxThreads: 64 } });
    expect(p.diagnostics[0].code).toBe("TPL009");
    expect(p.diagnostics[0].message).toMatch(/exceed the requested cap of 64.*within the device's limit and any --max-threads cap/);
  });
});

describe("a serial fallback's warning points at its cause", () => {
  const base = (body: unknown[]) => JSON.stringify({ tile: 1, name: "d", attrs: { noalias: true }, sizes: { R: 4, C: 8 },
    params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R", "C"] }, { name: "Z", dtype: "f32", shape: ["R"] }],
    body: [{ for: "r", in: [0, "R"], kind: "parallel", body }] });
  it("a reduce under an if: the if, and the reason says conditional", () => {
    const doc = base([{ if: ["gt", "r", 1], then: [
      { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["load", "X", ["r", "c"]] }, { store: "Z", at: ["r"], value: "s" }],
      else: [{ store: "Z", at: ["r"], value: ["f32", 0] }] }]);
    for (const e of engines) {
      const w = e.call({ command: "plan", document: doc, options: {} }).diagnostics.find((d: any) => d.code === "TPL008");
      expect(w.pointer).toBe("/body/0/body/0");
      expect(w.message).toContain("a reduce sits inside a conditional below the program loop (the if at /body/0/body/0)");
      expect(w.message).not.toContain("parallel loop");
    }
  });
  it("a reduce inside a parallel loop that is not a perfect nest: the loop", () => {
    const doc = base([{ store: "Z", at: ["r"], value: ["f32", 1] }, { for: "c", in: [0, "C"], kind: "parallel", body: [
      { reduce: "s", combiner: "sum", over: ["k", 0, "C"], value: ["load", "X", ["r", "k"]] }, { store: "Y", at: ["r", "c"], value: "s" }] }]);
    const w = engines[1].call({ command: "plan", document: doc, options: {} }).diagnostics.find((d: any) => d.code === "TPL008");
    expect(w.pointer).toBe("/body/0/body/1");
    expect(w.message).toContain("inside a parallel loop below the program loop (the loop over \"c\" at /body/0/body/1)");
  });
  it("a serial loop in a program without reductions: the loop", () => {
    const doc = base([{ for: "c", in: [0, "C"], kind: "serial", body: [{ store: "Y", at: ["r", "c"], value: ["load", "X", ["r", "c"]] }] }]);
    const w = engines[1].call({ command: "plan", document: doc, options: {} }).diagnostics.find((d: any) => d.code === "TPL008");
    expect(w.pointer).toBe("/body/0/body/0");
    expect(w.message).toContain("(the loop at /body/0/body/0)");
  });
});

describe("the core's request interface (contract check, session 26)", () => {
  it("an unknown command is named as such, with or without a document; audit-msl takes msl", () => {
    for (const e of engines) {
      for (const req of [{ command: "bogus" }, { command: "bogus", document: "{}" }]) {
        const r = e.call(req as any);
        expect(r.ok).toBe(false);
        expect(r.diagnostics[0]).toMatchObject({ code: "TAPI01", pointer: "/command" });
        expect(r.diagnostics[0].message).toBe('Unknown command "bogus".');
      }
      const a = e.call({ command: "audit-msl", msl: "kernel void k() {}", realization: "serial-program", barriers: 0 } as any);
      expect(a.diagnostics?.[0]?.code).not.toBe("TAPI01");
    }
  });
});
