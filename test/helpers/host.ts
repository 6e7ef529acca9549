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
