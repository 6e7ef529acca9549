// The two engines of the core behind one interface: the JS build (dist/tile-core.mjs) and the
// WebAssembly build (dist/tile-core.wasm) called through its host-neutral byte interface.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { packageRoot } from "./root";

export type EngineName = "js" | "wasm";

export interface Engine {
  readonly name: EngineName;
  /** Sends a request object, returns the parsed response object. */
  call(request: object): any;
  /** Sends request text, returns response text (byte-level parity tests use this). */
  callText(request: string): string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** The WebAssembly engine: a cached module, a fresh instance after any trap. */
export class WasmEngine implements Engine {
  readonly name = "wasm" as const;
  private module: WebAssembly.Module;
  private instance: WebAssembly.Instance | null = null;
  /** Number of instances created (1 + traps recovered from). */
  instances = 0;

  constructor(module: WebAssembly.Module) {
    this.module = module;
  }

  private exports(): any {
    if (this.instance === null) {
      this.instance = new WebAssembly.Instance(this.module, {});
      this.instances++;
      const e = this.instance.exports as any;
      if (typeof e._initialize === "function") e._initialize();
    }
    return this.instance.exports as any;
  }

  /** Bytes of linear memory currently reserved by the instance. */
  memoryBytes(): number {
    return this.exports().memory.buffer.byteLength;
  }

  callBytes(bytes: Uint8Array): Uint8Array {
    const e = this.exports();
    try {
      const ptr = e.tile_alloc(bytes.length) >>> 0;
      new Uint8Array(e.memory.buffer, ptr, bytes.length).set(bytes);
      const n = e.tile_call(bytes.length);
      const at = e.tile_result() >>> 0;
      return new Uint8Array(e.memory.buffer, at, n).slice();
    } catch (err) {
      this.instance = null; // never reuse an instance after a trap
      throw new Error("the WebAssembly core trapped: " + (err instanceof Error ? err.message : String(err)));
    }
  }

  callText(request: string): string {
    return decoder.decode(this.callBytes(encoder.encode(request)));
  }

  call(request: object): any {
    return JSON.parse(this.callText(JSON.stringify(request)));
  }
}

export class JsEngine implements Engine {
  readonly name = "js" as const;
  private fn: (request: string) => string;

  constructor(fn: (request: string) => string) {
    this.fn = fn;
  }

  callText(request: string): string {
    return this.fn(request);
  }

  call(request: object): any {
    return JSON.parse(this.callText(JSON.stringify(request)));
  }
}

let wasmModule: WebAssembly.Module | null = null;
let jsCall: ((request: string) => string) | null = null;

export function wasmPath(small = false): string {
  return path.join(packageRoot(), "dist", small ? "tile-core.small.wasm" : "tile-core.wasm");
}

export async function loadEngine(name: EngineName): Promise<Engine> {
  if (name === "wasm") {
    if (wasmModule === null) {
      const file = wasmPath();
      if (!fs.existsSync(file)) throw new Error("the WebAssembly core is not built (" + file + "): run npm install");
      wasmModule = new WebAssembly.Module(fs.readFileSync(file));
    }
    return new WasmEngine(wasmModule);
  }
  if (jsCall === null) {
    const file = path.join(packageRoot(), "dist", "tile-core.mjs");
    if (!fs.existsSync(file)) throw new Error("the JS core is not built (" + file + "): run npm install");
    const mod = await import(pathToFileURL(file).href);
    jsCall = mod.call as (request: string) => string;
  }
  return new JsEngine(jsCall);
}
