// Byte-identity controls for emission through the full pipeline: fusion must leave every other
// kernel's MSL unchanged (--no-fuse), both engines emit identical MSL, and `tile emit` works as
// a user calls it.
import { describe, expect, it, beforeAll } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { loadEngine, Engine } from "../shell-node/src/engine";
import { loadMatrix } from "../shell-node/src/matrix";
import { ROOT } from "./helpers/files";

let wasm: Engine;
let js: Engine;
beforeAll(async () => {
  wasm = await loadEngine("wasm");
  js = await loadEngine("js");
});

const CASES = ["add", "gelu_add", "gelu_exact_pair", "gelu_pair", "layernorm", "layernorm_affine", "minmax", "rmsnorm", "sigmoid_pair", "softmax", "sum"];
const caseText = (name: string): string => fs.readFileSync(path.join(ROOT, "cases", name + ".json"), "utf8");
const emit = (e: Engine, text: string, options: object = {}): any => e.call({ command: "emit", document: text, options });

describe("fusion leaves every other kernel byte-identical", () => {
  it("single-output element kernels and every reduction without sibling reduces emit the same MSL with and without --no-fuse", () => {
    for (const name of CASES) {
      const fused = emit(wasm, caseText(name));
      const unfused = emit(wasm, caseText(name), { fuse: false });
      expect(fused.ok, name).toBe(true);
      const outputs = new Set(fused.plan.bindings.filter((b: any) => b.kind === "buffer" && b.access !== "read").map((b: any) => b.name));
      if (fused.plan.family === "element" && outputs.size > 1) {
        expect(fused.plan.realization, name).toBe("fused-elementwise");
        expect(unfused.plan.realization, name).toBe("serial-program");
        expect(unfused.msl, name).not.toBe(fused.msl);
      } else if (fused.plan.notes.some((n: string) => n.includes("one pass of the stripe"))) {
        // sibling reduces (the max and min of minmax): one pass, or one per reduce with --no-fuse
        expect(fused.msl, name).toContain("reduces over the same range, in one pass");
        expect(unfused.msl, name).not.toContain("reduces over the same range, in one pass");
      } else {
        expect(unfused.msl, name).toBe(fused.msl);
      }
    }
  });
});

describe("both engines emit byte-identical MSL", () => {
  it("for every built-in case and every matrix entry", () => {
    const entries = loadMatrix(wasm, true);
    for (const e of entries) {
      const req = JSON.stringify({ command: "emit", document: e.text, options: e.options });
      expect(js.callText(req), e.id).toBe(wasm.callText(req));
    }
    for (const name of CASES) {
      for (const options of [{}, { programsPerGroup: 3 }, { cacheInput: false, unroll: 3 }, { fuse: false }]) {
        const req = JSON.stringify({ command: "emit", document: caseText(name), options });
        expect(js.callText(req), name).toBe(wasm.callText(req));
      }
    }
  });

  it("the audit passes on every kernel the matrix emits", () => {
    for (const e of loadMatrix(wasm, true)) {
      const r = emit(wasm, e.text, e.options);
      expect(r.audit.ok, e.id + JSON.stringify(r.audit.findings)).toBe(true);
      const expected = r.plan.realization === "cooperative-reduction" ? (e.text.match(/"reduce"\s*:/g) ?? []).length : 0;
      expect(r.audit.barriers, e.id).toBe(expected);
    }
  });
});

describe("tile emit and tile audit-msl", () => {
  const CLI = path.join(ROOT, "shell-node", "bin", "tile.mjs");
  const run = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", cwd: ROOT });

  it("prints MSL, writes it with -o, and gives {plan, msl, audit} with --json", () => {
    const printed = run(["emit", "cases/softmax.json", "--programs-per-group", "2", "--threads", "64"]);
    expect(printed.status).toBe(0);
    expect(printed.stdout).toMatch(/kernel void softmax_cooperative_reduction\(/);
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tile-emit-")), "k.metal");
    expect(run(["emit", "cases/softmax.json", "--programs-per-group", "2", "--threads", "64", "-o", out]).status).toBe(0);
    expect(fs.readFileSync(out, "utf8")).toBe(printed.stdout);
    const j = JSON.parse(run(["emit", "cases/softmax.json", "--json"]).stdout);
    expect(Object.keys(j)).toEqual(expect.arrayContaining(["plan", "msl", "audit"]));
    expect(j.audit.ok).toBe(true);
    // the written file audits clean, reading realization and barrier count from its header
    const a = run(["audit-msl", out, "--json"]);
    expect(a.status).toBe(0);
    expect(JSON.parse(a.stdout)).toMatchObject({ ok: true, barriers: 2 });
  });

  it("audit-msl catches a barrier moved under the tail predicate", () => {
    const good = run(["emit", "cases/sum.json", "--programs-per-group", "2", "--threads", "64"]).stdout;
    const bad = good.replace("  threadgroup_barrier(mem_flags::mem_threadgroup);", "  if (live) { threadgroup_barrier(mem_flags::mem_threadgroup); }");
    expect(bad).not.toBe(good);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tile-emit-")), "bad.metal");
    fs.writeFileSync(file, bad);
    const a = run(["audit-msl", file, "--json"]);
    expect(a.status).toBe(1);
    expect(JSON.parse(a.stdout).findings.map((f: any) => f.check)).toContain("barrier-under-condition");
  });
});
