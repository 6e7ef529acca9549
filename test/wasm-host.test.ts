// A minimal host for the WebAssembly core, written by hand with nothing but the WebAssembly API:
// no AssemblyScript loader, no bindings, an empty import object. This is all an embedder needs:
//   (nothing to call first: the module's start function runs at instantiation)
//   ptr = tile_alloc(len)       room for a UTF-8 request of len bytes in `memory`
//   n   = tile_call(len)        handles the request, returns the response length in bytes
//   at  = tile_result()         where the response's UTF-8 bytes are
import { describe, expect, it, beforeAll } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { DIST_DIR, caseFiles, validateFixtures } from "./helpers/files";

const BUILDS = ["tile-core.wasm", "tile-core.small.wasm"];

interface Host {
  call(request: string): string;
  exports: WebAssembly.Exports;
}

async function host(file: string): Promise<{ module: WebAssembly.Module; host: Host }> {
  const bytes = fs.readFileSync(path.join(DIST_DIR, file));
  const { module, instance } = await WebAssembly.instantiate(bytes, {});
  const e = instance.exports as any;
  const encoder = new TextEncoder();
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const call = (request: string): string => {
    const input = encoder.encode(request);
    const ptr = e.tile_alloc(input.length) >>> 0;
    new Uint8Array(e.memory.buffer, ptr, input.length).set(input);
    const n = e.tile_call(input.length);
    const at = e.tile_result() >>> 0;
    // Read memory.buffer again: the call may have grown (and so replaced) the buffer.
    return decoder.decode(new Uint8Array(e.memory.buffer, at, n));
  };
  return { module, host: { call, exports: instance.exports } };
}

const hosts: Record<string, Host> = {};
const modules: Record<string, WebAssembly.Module> = {};

beforeAll(async () => {
  for (const b of BUILDS) {
    const h = await host(b);
    hosts[b] = h.host;
    modules[b] = h.module;
  }
});

describe.each(BUILDS)("%s", (build) => {
  it("imports nothing and exports the byte interface", () => {
    expect(WebAssembly.Module.imports(modules[build])).toEqual([]);
    const exports = Object.fromEntries(WebAssembly.Module.exports(modules[build]).map((x) => [x.name, x.kind]));
    expect(exports).toMatchObject({
      memory: "memory", tile_abi_version: "function", tile_alloc: "function", tile_call: "function", tile_result: "function",
    });
    expect((hosts[build].exports as any).tile_abi_version()).toBe(1);
  });

  it("answers the version request", () => {
    expect(JSON.parse(hosts[build].call('{"command":"version"}'))).toEqual({ ok: true, core: "0.1.0", engine: "wasm", abi: 1 });
  });

  it("validates a built-in case", () => {
    const c = caseFiles().find((x) => x.name === "softmax")!;
    const out = hosts[build].call(JSON.stringify({ command: "validate", document: c.text }));
    expect(out).toBe('{"ok":true,"name":"softmax","diagnostics":[]}');
  });

  it("reports malformed JSON with line and column", () => {
    const out = hosts[build].call(JSON.stringify({ command: "validate", document: '{\n  "tile": 1,,\n}' }));
    expect(JSON.parse(out)).toEqual({
      ok: false, name: "", diagnostics: [{
        code: "TIR001", id: "json-syntax", severity: "error",
        message: "Expected a quoted key in an object but found ','. (line 2, column 13)", pointer: "", line: 2, column: 13,
      }],
    });
  });

  it("carries non-ASCII text through UTF-8 both ways", () => {
    const doc = '{"tile": 1, "name": "größe 😀", "sizes": {}, "params": [], "body": []}';
    const out = JSON.parse(hosts[build].call(JSON.stringify({ command: "validate", document: doc })));
    expect(out.name).toBe("größe 😀");
    expect(out.diagnostics.map((d: any) => d.code)).toEqual(["TIR026"]);
  });

  it("gives the same text as JSON.parse/stringify wherever a non-ASCII character falls (the ASCII fast paths of the byte interface)", () => {
    // the request is decoded and the response encoded four code units at a time while they are
    // ASCII: a non-ASCII character at every offset modulo 4, in the request and in the response
    for (const ch of ["é", "€", "😀", "\u007f", "\u0080"]) {
      for (let k = 0; k < 9; k++) {
        const name = "n".repeat(k) + ch + "x".repeat(k % 4);
        const doc = JSON.stringify({ tile: 1, name, sizes: {}, params: [], body: [] });
        for (const pad of ["", " ", "  ", "   "]) {
          const request = JSON.stringify({ command: "validate", document: doc }) + pad;
          const text = hosts[build].call(request);
          expect(JSON.parse(text).name).toBe(name);
          expect(text).toBe(JSON.stringify(JSON.parse(text)));
        }
      }
    }
  });

  it("survives an empty and a truncated request", () => {
    const e = hosts[build].exports as any;
    e.tile_alloc(0);
    const n = e.tile_call(0);
    const text = new TextDecoder().decode(new Uint8Array(e.memory.buffer, e.tile_result() >>> 0, n));
    expect(JSON.parse(text).diagnostics[0].code).toBe("TAPI01");
    // A length larger than what was reserved is clamped, not read past.
    const bytes = new TextEncoder().encode('{"command":"version"}');
    const ptr = e.tile_alloc(bytes.length) >>> 0;
    new Uint8Array(e.memory.buffer, ptr, bytes.length).set(bytes);
    const m = e.tile_call(bytes.length + 1000);
    expect(JSON.parse(new TextDecoder().decode(new Uint8Array(e.memory.buffer, e.tile_result() >>> 0, m))).ok).toBe(true);
  });

  it("does not grow its memory over many calls", () => {
    const h = hosts[build];
    const c = caseFiles().find((x) => x.name === "layernorm_affine")!;
    const request = JSON.stringify({ command: "canonical", document: c.text });
    const first = h.call(request);
    for (let i = 0; i < 50; i++) h.call(request);
    const size = ((h.exports as any).memory as WebAssembly.Memory).buffer.byteLength;
    for (let i = 0; i < 300; i++) expect(h.call(request)).toBe(first);
    expect(((h.exports as any).memory as WebAssembly.Memory).buffer.byteLength).toBe(size);
  });
});

describe("release and small builds", () => {
  it("return identical bytes", () => {
    const requests = [
      '{"command":"version"}',
      '{"command":"cases"}',
      ...caseFiles().flatMap((c) => [
        JSON.stringify({ command: "validate", document: c.text }),
        JSON.stringify({ command: "canonical", document: c.text, options: { sizes: { C: 33 } } }),
      ]),
      ...validateFixtures().map((f) => JSON.stringify({ command: "canonical", document: f.text })),
    ];
    const [a, b] = BUILDS.map((x) => hosts[x]);
    for (const r of requests) expect(b.call(r), r.slice(0, 200)).toBe(a.call(r));
  });
});
