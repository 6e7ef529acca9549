// The settings that keep `npm test` fast (vitest.config.mjs; README "Tests and benchmarks"):
// host kernels compile at -O0 through test/tools/cxx-O0.sh instead of the runtime's own -O1, and
// that choice changes no result: the same kernels compiled both ways give the same bytes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./helpers/files";
import { loadEngine, type Engine } from "../shell-node/src/engine";
import { openRuntime, type Runtime } from "../shell-node/src/native";
import { makeInputs, shapeOf } from "../shell-node/src/inputs";
import { elements, runKernel } from "./export/check";

const WRAPPER = path.join(ROOT, "test", "tools", "cxx-O0.sh");
const PRODUCT = process.env.TILE_TEST_CXX ?? (process.platform === "darwin" ? "clang++" : "g++");
/** The predefined macros of a compile with `cxx ARGS` ( __OPTIMIZE__ is defined above -O0). */
const macros = (cxx: string, ...args: string[]): string => {
  const r = spawnSync(cxx, [...args, "-dM", "-E", "-x", "c++", "/dev/null"], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
};

describe("the test compiler (test/tools/cxx-O0.sh)", () => {
  it("is what the host runtime compiles with during npm test, unless TILE_CXX or TILE_TEST_O1 says otherwise", () => {
    const own = process.env.TILE_TEST_O1 === "1" || (process.env.TILE_CXX !== undefined && process.env.TILE_CXX !== WRAPPER);
    if (!own) expect(process.env.TILE_CXX).toBe(WRAPPER);
    expect(fs.statSync(WRAPPER).mode & 0o111).not.toBe(0);
  });

  it("overrides the runtime's -O1 with -O0 (the compiler alone keeps -O1)", () => {
    expect(macros(PRODUCT, "-O1")).toMatch(/#define __OPTIMIZE__ 1/);
    expect(macros(WRAPPER, "-O1")).not.toMatch(/__OPTIMIZE__/);
  });
});

describe.skipIf(process.platform !== "linux")("the test link (libm alone, else the compiler's default link)", () => {
  let dir = "";
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "tile-test-link-"));
  });
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  // the runtime's flags (shell-native/host/compile.cpp) for a shared kernel unit
  const FLAGS = ["-std=c++17", "-O1", "-shared", "-fPIC", "-fno-exceptions", "-fno-rtti", "-fvisibility=hidden"];
  /** The libraries a .so needs and the symbols (with their versions) it imports. */
  const linkage = (so: string): string[] => {
    const needed = spawnSync("readelf", ["-d", so], { encoding: "utf8" }).stdout.split("\n").filter((l) => l.includes("(NEEDED)")).map((l) => l.trim().split(/\s+/).pop()!);
    const imports = spawnSync("nm", ["-D", "--undefined-only", so], { encoding: "utf8" }).stdout.split("\n").map((l) => l.trim()).filter((l) => l !== "");
    return [...needed.sort(), ...imports.sort()];
  };
  /** `unit` compiled by the runtime's compiler as it is (-O0 added, so only the link differs) and
   *  by the wrapper: the linkage of each. */
  const both = (name: string, unit: string): [string[], string[]] => {
    const src = path.join(dir, name + ".cpp");
    fs.writeFileSync(src, unit);
    const product = spawnSync(PRODUCT, [...FLAGS, "-o", path.join(dir, name + ".product.so"), src, "-O0"], { encoding: "utf8" });
    expect(product.status, product.stderr).toBe(0);
    const wrapper = spawnSync(WRAPPER, [...FLAGS, "-o", path.join(dir, name + ".tests.so"), src], { encoding: "utf8" });
    expect(wrapper.status, wrapper.stderr).toBe(0);
    return [linkage(path.join(dir, name + ".product.so")), linkage(path.join(dir, name + ".tests.so"))];
  };

  it("a unit that needs libm only imports the same versioned symbols from the same libraries", () => {
    const [product, tests] = both("libm", '#include <cmath>\nextern "C" float f(float x, float y) { return fmaxf(expf(x), sqrtf(y)); }\n');
    expect(tests).toEqual(product);
    expect(tests.some((s) => /expf@GLIBC/.test(s))).toBe(true); // versioned, as the runtime's link makes it
  });

  it("a unit that needs more than libm (memcpy of a run-time length) is linked as the runtime links it", () => {
    const [product, tests] = both("libc", '#include <cstring>\nextern "C" void f(char* a, const char* b, unsigned long n) { std::memcpy(a, b, n); }\n');
    expect(tests).toEqual(product);
    expect(tests.some((s) => /memcpy@GLIBC/.test(s))).toBe(true);
  });

  it("a unit that does not compile still fails, with the compiler's message", () => {
    const src = path.join(dir, "broken.cpp");
    fs.writeFileSync(src, "int f() { return undeclared_name; }\n");
    const r = spawnSync(WRAPPER, [...FLAGS, "-o", path.join(dir, "broken.so"), src], { encoding: "utf8" });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("undeclared_name");
  });
});

describe("kernels compiled at the product's -O1 and at the tests' -O0 give the same bytes", () => {
  let js: Engine;
  let product: Runtime;
  let tests: Runtime;
  let cache = "";
  /** A host runtime opened with TILE_CXX = `cxx` (undefined: the runtime's default) and a fresh
   *  cache, so that every kernel below is compiled by that runtime. */
  const open = (cxx: string | undefined): Runtime => {
    const saved = { cxx: process.env.TILE_CXX, dir: process.env.TILE_CACHE_DIR };
    if (cxx === undefined) delete process.env.TILE_CXX;
    else process.env.TILE_CXX = cxx;
    process.env.TILE_CACHE_DIR = cache;
    try {
      return openRuntime("host");
    } finally {
      if (saved.cxx === undefined) delete process.env.TILE_CXX;
      else process.env.TILE_CXX = saved.cxx;
      if (saved.dir === undefined) delete process.env.TILE_CACHE_DIR;
      else process.env.TILE_CACHE_DIR = saved.dir;
    }
  };
  beforeAll(async () => {
    js = await loadEngine("js");
    cache = fs.mkdtempSync(path.join(os.tmpdir(), "tile-test-settings-"));
    product = open(undefined);
    tests = open(WRAPPER);
  });
  afterAll(() => {
    product?.close();
    tests?.close();
    if (cache) fs.rmSync(cache, { recursive: true, force: true });
  });

  for (const name of ["softmax", "layernorm_f16", "rmsnorm_bf16", "minmax", "gelu_pair", "sum"]) {
    it(name, () => {
      const doc = JSON.parse(fs.readFileSync(path.join(ROOT, "cases", name + ".json"), "utf8"));
      const e = js.call({ command: "emit", document: JSON.stringify(doc), options: {} });
      expect(e.ok).toBe(true);
      const plan = e.plan;
      const inputs = makeInputs(doc, 5);
      const fill = plan.bindings.map((b: any) => ({
        data: b.access === "write" ? null : inputs.get(b.name)!,
        dtype: doc.params.find((p: any) => p.name === b.name).dtype,
        n: elements(shapeOf(doc, b.name)),
      }));
      const run = (rt: Runtime): Uint8Array[] => runKernel(rt, e.msl, plan.kernel, fill, plan.dispatch.groups, plan.dispatch.threads);
      const before = [product.compilerInvocations(), tests.compilerInvocations()];
      const a = run(product);
      const b = run(tests);
      // each runtime compiled its own unit (the compiler is part of the cache key)
      expect([product.compilerInvocations() - before[0], tests.compilerInvocations() - before[1]]).toEqual([1, 1]);
      expect(a.length).toBe(plan.bindings.length);
      a.forEach((bytes, i) => expect(Buffer.from(b[i]).equals(Buffer.from(bytes)), `${name} ${plan.bindings[i].name}`).toBe(true));
    });
  }
});
