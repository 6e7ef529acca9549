// `tile plan`: the JSON contract, fallbacks (packed -> P = 1 -> serial), rejections with their
// failing rules, outright rejection of proven write conflicts, and the readable table.
import { describe, expect, it, beforeAll } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { loadEngine, Engine } from "../shell-node/src/engine";
import { ROOT } from "./helpers/files";

const LEG = path.join(ROOT, "test", "fixtures", "legality");
const CLI = path.join(ROOT, "shell-node", "bin", "tile.mjs");
const read = (f: string): string => fs.readFileSync(f, "utf8");
const fixture = (name: string): string => read(path.join(LEG, name + ".json"));
const caseText = (name: string): string => read(path.join(ROOT, "cases", name + ".json"));

function cli(args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", cwd: ROOT });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

let wasm: Engine;
let js: Engine;
beforeAll(async () => {
  wasm = await loadEngine("wasm");
  js = await loadEngine("js");
});

const plan = (text: string, options: object = {}): any => wasm.call({ command: "plan", document: text, options });

describe("plan JSON contract", () => {
  it("dispatch: buffers are the only bindings; threadgroup memory is declared in the kernel (reduces * P * S * 4 bytes)", () => {
    const p = plan(caseText("softmax"), { programsPerGroup: 2, threads: 128 });
    expect(p.mapping).toMatchObject({ P: 2, S: 2 });
    expect(p.dispatch).toEqual({ groups: 19, threads: 128, threadgroupMemory: 2 * 2 * 2 * 4, threadgroupBytes: [] });
    expect(p.bindings.map((b: any) => b.kind)).toEqual(["buffer", "buffer"]);
    expect(plan(caseText("sum"), { programsPerGroup: 3, threads: 96 }).dispatch.threadgroupMemory).toBe(1 * 3 * 1 * 4);
    expect(plan(caseText("gelu_pair")).dispatch.threadgroupMemory).toBe(0);
  });

  it("has realization, mapping, rules, rejections, cost and diagnostics", () => {
    const p = plan(caseText("softmax"), { programsPerGroup: 2, threads: 64 });
    expect(p.ok).toBe(true);
    expect(p.realization).toBe("cooperative-reduction");
    for (const k of ["P", "S", "W", "T", "V", "U", "groups", "cached"]) expect(p.mapping).toHaveProperty(k);
    expect(p.mapping).toMatchObject({ P: 2, S: 1, W: 32, T: 64, groups: 19 });
    const ids = p.rules.map((r: any) => r.id);
    expect(ids).toEqual(["noalias", "pure-expression", "independent-store", "private-ownership", "reduction-loop-shape", "tail-read-write", "thread-limit", "threadgroup-memory"]);
    for (const r of p.rules) {
      expect(Object.keys(r)).toEqual(expect.arrayContaining(["id", "verdict", "reason", "pointer"]));
      expect(["holds", "fails", "unknown"]).toContain(r.verdict);
      expect(r.reason.length).toBeGreaterThan(10);
    }
    expect(Array.isArray(p.rejections)).toBe(true);
    expect(Array.isArray(p.diagnostics)).toBe(true);
    expect(typeof p.cost.total).toBe("number");
    expect(Object.keys(p.cost.terms)).toEqual(expect.arrayContaining(["bytesRead", "bytesWritten", "memory", "arithmetic", "collectivesAndBarriers", "setup", "concurrency", "fenceCoupling"]));
  });

  it("element family: fusion rules and the 1x256 grid", () => {
    const p = plan(caseText("sigmoid_pair"));
    expect(p.realization).toBe("fused-elementwise");
    expect(p.rules.map((r: any) => r.id)).toEqual(["noalias", "same-domain", "injective-compact-store", "no-read-of-written", "single-writer"]);
    // V = 4 columns per thread (the row's last vector of 1537 columns is ragged): 2 blocks per row
    expect(p.mapping).toMatchObject({ block: 256, T: 256, V: 4, rows: 37, cols: 1537, blocksPerRow: 2, groups: 74 });
  });
});

describe("rejections and fallbacks", () => {
  it("an in-place update with a partial last group: the requested P = 2 is refused for tail-read-write (TPL009), the automatic family uses P = 1", () => {
    const p = plan(fixture("pk_inplace_tail"), { programsPerGroup: 2 });
    // an explicit width request is never silently replaced (issue 21): exit 1 with the reason
    expect(p.ok).toBe(false);
    expect(p.diagnostics.map((d: any) => d.code)).toEqual(["TPL009"]);
    expect(p.diagnostics[0].message).toMatch(/--programs-per-group 2.*tail-read-write fails/);
    expect(p.rejections).toHaveLength(1);
    expect(p.rejections[0].realization).toBe("cooperative-reduction");
    expect(p.rejections[0].failed).toEqual(["tail-read-write"]);
    const auto = plan(fixture("pk_inplace_tail"));
    expect(auto.realization).toBe("cooperative-reduction");
    expect(auto.mapping.P).toBe(1);
    // the same document without a tail is packed as asked
    const q = plan(fixture("pk_inplace_tail"), { programsPerGroup: 2, sizes: { R: 36 } });
    expect(q.mapping.P).toBe(2);
    expect(q.rejections).toEqual([]);
  });

  it("a repeated wrapper falls back to the serial program and says why", () => {
    const p = plan(fixture("pk_repeat_wrapper"));
    expect(p.realization).toBe("serial-program");
    expect(p.rejections[0].failed).toContain("reduction-loop-shape");
    const rule = p.rules.find((r: any) => r.id === "reduction-loop-shape");
    expect(rule.verdict).toBe("fails");
    expect(rule.pointer).toMatch(/^\/body\/0\/body\/\d+/);
  });

  it("a range that names a once-run wrapper's variable is costed at its value (over [k, C - k) with k in [0, 1): C wide)", () => {
    // red team, session 24: the reduce was counted one element wide (the extent C - k was not a
    // constant), so the solver took 64 threads for rows of 65,536 elements
    const row = (over: unknown[], wrap: boolean): string => {
      const reduce = { reduce: "s", combiner: "sum", over, value: ["load", "X", ["r", "c"]] };
      const store = { store: "Y", at: ["r"], value: "s" };
      const inner = wrap ? [{ for: "k", in: [0, 1], kind: "serial", body: [reduce, store] }] : [reduce, store];
      return JSON.stringify({ tile: 1, name: "w", attrs: { noalias: true }, sizes: { R: 6, C: 4096 },
        params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R"] }],
        body: [{ for: "r", in: [0, "R"], kind: "parallel", body: inner }] });
    };
    for (const C of [4096, 65536]) {
      const wrapped = plan(row(["c", "k", ["sub", "C", "k"]], true), { sizes: { C } });
      const plain = plan(row(["c", 0, "C"], false), { sizes: { C } });
      expect(wrapped.realization).toBe("cooperative-reduction");
      expect(wrapped.cost.terms.bytesRead).toBe(6 * C * 4);
      expect(wrapped.mapping).toMatchObject({ P: plain.mapping.P, T: plain.mapping.T, V: plain.mapping.V });
      expect(wrapped.cost.total).toBe(plain.cost.total);
    }
  });

  it("a row-varying wrapper and a missing noalias reject packing", () => {
    expect(plan(fixture("pk_row_varying_wrapper")).rejections[0].failed).toContain("reduction-loop-shape");
    const p = plan(fixture("pk_no_noalias"));
    expect(p.realization).toBe("serial-program");
    expect(p.rejections[0].failed).toContain("noalias");
  });

  it("a 1056-thread request is rejected by thread-limit (TPL009, not replaced); without it the bounded search finds P = 1", () => {
    const p = plan(fixture("pk_1056_threads"), { threads: 1056 });
    expect(p.rejections[0].failed).toContain("thread-limit");
    expect(p.ok).toBe(false);
    expect(p.diagnostics[0].code).toBe("TPL009");
    expect(p.diagnostics[0].pointer).toBe("/options/threads");
    const auto = plan(fixture("pk_1056_threads"));
    expect(auto.realization).toBe("cooperative-reduction");
    expect(auto.mapping.T).toBeLessThanOrEqual(1024);
  });

  it("a cross-worker read keeps the serial realization", () => {
    const p = plan(fixture("pk_cross_worker_read"));
    expect(p.realization).toBe("serial-program");
    expect(p.rejections[0].failed).toContain("pure-expression");
  });

  it("fusion rejections: conditional store, RAW, WAR, WAW, different domains, no noalias", () => {
    // the grid is refused in each; since session 29 the rows run as programs where the cooperative
    // rules hold (a conditional store, two writes of one element by its owner, two domains under
    // one row loop), and as the serial program where they do not (a read of another worker's
    // element, possible aliasing)
    const cases: [string, string, string][] = [
      ["fu_conditional_store", "injective-compact-store", "cooperative-reduction"], ["fu_raw", "no-read-of-written", "serial-program"],
      ["fu_war", "no-read-of-written", "serial-program"], ["fu_waw", "single-writer", "cooperative-reduction"],
      ["fu_different_domains", "same-domain", "cooperative-reduction"], ["fu_no_noalias", "noalias", "serial-program"],
    ];
    for (const [name, rule, realization] of cases) {
      const p = plan(fixture(name));
      expect(p.realization, name).toBe(realization);
      expect(p.rejections[0].realization, name).toBe("fused-elementwise");
      expect(p.rejections[0].failed, name).toContain(rule);
    }
  });

  it("--no-fuse keeps multi-output graphs serial and leaves single-output graphs fused", () => {
    const pair = plan(caseText("gelu_pair"), { fuse: false });
    expect(pair.realization).toBe("serial-program");
    expect(pair.rejections[0].message).toMatch(/disabled/);
    expect(plan(caseText("add"), { fuse: false }).realization).toBe("fused-elementwise");
  });

  it("a thread limit below one SIMD group is named where it comes from: --max-threads or the device (a red team of session 13)", () => {
    const fallback = (p: any): any => p.diagnostics.find((d: any) => d.code === "TPL008");
    const fromDevice = fallback(plan(caseText("softmax"), { device: { name: "t16", maxThreadsPerGroup: 16 } }));
    expect(fromDevice.message).toMatch(/the device's limit of 16 threads per group/);
    expect(fromDevice.message).toMatch(/use a device description whose maxThreadsPerGroup is at least 32/);
    expect(fromDevice.message).not.toMatch(/--max-threads/);
    expect(fromDevice.pointer ?? fromDevice.path).toBe("/options/device/maxThreadsPerGroup");
    const fromOption = fallback(plan(caseText("softmax"), { maxThreads: 16 }));
    expect(fromOption.message).toMatch(/allow at least 32 threads per group \(--max-threads\)/);
    expect(fromOption.pointer ?? fromOption.path).toBe("/options/maxThreads");
  });

  it("a document that stores to no buffer plans with a TPL012 warning (a red team of session 13); one with a store has none", () => {
    const none = JSON.stringify({ tile: 1, name: "b", attrs: { noalias: true }, sizes: { R: 4 }, params: [{ name: "X", dtype: "f32", shape: ["R"] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [{ let: "q", value: ["load", "X", ["r"]] }] }] });
    const p = plan(none);
    expect(p.ok).toBe(true);
    const w = p.diagnostics.filter((d: any) => d.code === "TPL012");
    expect(w.length).toBe(1);
    expect(w[0].severity).toBe("warning");
    expect(w[0].message).toMatch(/stores to no buffer/);
    for (const name of ["softmax", "gelu_pair", "sum"]) expect(plan(caseText(name)).diagnostics.filter((d: any) => d.code === "TPL012"), name).toEqual([]);
  });

  it("an option that has no effect on the realization used is a TPL011 warning, never ignored silently", () => {
    const warned = (p: any): string[] => p.diagnostics.filter((d: any) => d.code === "TPL011").map((d: any) => d.pointer ?? d.path ?? "");
    const single = plan(caseText("add"), { fuse: false, cacheInput: false });
    expect(single.ok).toBe(true);
    expect(single.diagnostics.filter((d: any) => d.code === "TPL011").map((d: any) => d.message).join(" ")).toMatch(/--no-cache-input has no effect.*--no-fuse has no effect|--no-fuse has no effect.*--no-cache-input has no effect/s);
    const red = plan(caseText("layernorm"), { fuse: false });
    expect(red.ok).toBe(true);
    expect(red.diagnostics.filter((d: any) => d.code === "TPL011").map((d: any) => d.message)).toEqual([expect.stringMatching(/--no-fuse has no effect: it applies to element graphs with several outputs/)]);
    // where they do something, no warning: --no-fuse on a pair, --no-cache-input on a reduction
    expect(warned(plan(caseText("gelu_pair"), { fuse: false }))).toEqual([]);
    expect(warned(plan(caseText("layernorm"), { cacheInput: false }))).toEqual([]);
  });

  it("a proven write conflict rejects the document with TPL001", () => {
    const p = plan(fixture("pk_store_not_by_program"));
    expect(p.ok).toBe(false);
    expect(p.diagnostics.map((d: any) => d.code)).toContain("TPL001");
  });

  it("T that is not a multiple of 32 P is rejected with a reason (TPL002)", () => {
    const p = plan(caseText("sum"), { programsPerGroup: 3, threads: 64 });
    expect(p.ok).toBe(false);
    expect(p.diagnostics[0].code).toBe("TPL002");
    expect(p.diagnostics[0].message).toMatch(/multiple of 32 \* P = 96/);
  });
});

describe("tile plan CLI", () => {
  it("plans several files in one process and prints an array with --json", () => {
    const r = cli(["plan", "cases/sum.json", "cases/gelu_pair.json", "--json"]);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.map((p: any) => p.realization)).toEqual(["cooperative-reduction", "fused-elementwise"]);
    expect(out[0].file).toBe("cases/sum.json");
  });

  it("prints a readable verdict table, and exit codes 1 (rejected) and 2 (invalid)", () => {
    const r = cli(["plan", "cases/softmax.json", "--programs-per-group", "2", "--threads", "64"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/cooperative-reduction\s+P=2 S=1 W=32 T=64/);
    expect(r.stdout).toMatch(/tail-read-write\s+holds/);
    expect(cli(["plan", path.join(LEG, "pk_store_not_by_program.json")]).status).toBe(1);
    expect(cli(["plan", "cases/sum.json", "--threads", "70"]).status).toBe(1);
    const bad = path.join(ROOT, "test", "fixtures", "validate");
    const invalid = fs.readdirSync(bad).find((f) => f.startsWith("TIR017") && !f.includes("expect"))!;
    expect(cli(["plan", path.join(bad, invalid)]).status).toBe(2);
  });

  it("both engines print identical plans", () => {
    const a = cli(["plan", "cases/layernorm.json", "--json", "--candidates", "--engine", "js"]);
    const b = cli(["plan", "cases/layernorm.json", "--json", "--candidates", "--engine", "wasm"]);
    expect(a.status).toBe(0);
    expect(a.stdout).toBe(b.stdout);
  });

  it("--device reads a device description, and the limit moves with it", () => {
    const dev = path.join(ROOT, "test-artifacts", "small-device.json");
    fs.mkdirSync(path.dirname(dev), { recursive: true });
    fs.writeFileSync(dev, JSON.stringify({ name: "small", maxThreadsPerGroup: 256 }));
    const r = cli(["plan", "cases/softmax.json", "--json", "--device", dev, "--threads", "512"]);
    const p = JSON.parse(r.stdout);
    expect(p.rejections[0].failed).toContain("thread-limit");
    expect(p.mapping.T).toBeLessThanOrEqual(256);
  });
});

describe("the cases folder", () => {
  it("holds exactly the builders' documents in canonical form (regenerate: tile cases --write cases)", () => {
    const cases = wasm.call({ command: "cases" }).cases;
    expect(cases).toHaveLength(17);
    const files = fs.readdirSync(path.join(ROOT, "cases")).filter((f) => f.endsWith(".json")).sort((a, b) => (a < b ? -1 : 1));
    expect(files).toEqual(cases.map((c: any) => c.name + ".json"));
    for (const c of cases) expect(caseText(c.name), c.name).toBe(c.text);
  });
});
