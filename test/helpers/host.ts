// The host runtime for tests that run kernels: builds the native library first when a checkout
// has not built it yet (npm install builds it; a test run straight after a source change may not).
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { beforeAll, afterAll, expect } from "vitest";
import { nativeLibraryPath, openRuntime, Runtime } from "../../shell-node/src/native";
import { loadEngine, Engine } from "../../shell-node/src/engine";
import { runAndValidate } from "../../shell-node/src/validate-run";
import { ROOT } from "./files";

export function ensureHostLibrary(): void {
  if (!fs.existsSync(nativeLibraryPath("host"))) spawnSync(process.execPath, [path.join(ROOT, "shell-native", "build.mjs")], { stdio: "inherit" });
}


/** Both engines and an open host runtime for the tests of one file: registers the file's
 *  beforeAll (build the library if missing, load the engines, open the runtime) and afterAll
 *  (close it); the fields are set when the tests run. */
export interface HostContext {
  wasm: Engine;
  js: Engine;
  runtime: Runtime;
}

export function hostContext(): HostContext {
  const h = {} as HostContext;
  beforeAll(async () => {
    ensureHostLibrary();
    h.wasm = await loadEngine("wasm");
    h.js = await loadEngine("js");
    h.runtime = openRuntime("host");
  });
  afterAll(() => h.runtime?.close());
  return h;
}

/** `emit` through both engines: the same JSON from each, planned, and an audit without findings. */
export function emitBothChecked(h: HostContext, doc: string, options: object): any {
  const a = h.wasm.call({ command: "emit", document: doc, options });
  const b = h.js.call({ command: "emit", document: doc, options });
  expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  expect(a.ok, JSON.stringify(a.diagnostics)).toBe(true);
  expect(a.audit.ok, JSON.stringify(a.audit.findings)).toBe(true);
  return a;
}

/** `doc` emitted through both engines (emitBothChecked), then run on the host runtime and
 *  validated against the oracle with seed `seed`: whether it passed with its guards intact. */
export function validatesOnHost(h: HostContext, doc: string, options: object, seed: number, mslOverride?: (m: string) => string, inputs?: Map<string, Float64Array>): boolean {
  const emitted = emitBothChecked(h, doc, options);
  const r = runAndValidate({ engine: h.wasm, runtime: h.runtime, text: doc, options, seed, emitted, mslOverride, inputs });
  return r.passed && r.guards === "intact";
}

/** Compiles the kernels that `engine` emits for these documents and options in one host compiler
 *  run (Runtime.prefetch), so that the tests' own compiles of the same MSL are served from the
 *  kernel cache instead of one g++ run each. It changes no test: each test still emits, compiles
 *  (a cache hit), runs and validates its kernel; one that is not prefetched (another text, a
 *  source the runtime does not batch, a failed batch) compiles when the test compiles it, as
 *  before. Returns how many kernels the batch compiled. */
export function prefetchKernels(runtime: Runtime, engine: Engine, requests: { doc: string; options: object }[]): number {
  if (!runtime.prefetch) return 0;
  const msls: string[] = [];
  for (const r of requests) {
    const e = engine.call({ command: "emit", document: r.doc, options: r.options });
    if (e.ok && typeof e.msl === "string") msls.push(e.msl);
  }
  return runtime.prefetch(msls);
}
