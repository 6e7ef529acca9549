// The WebAssembly core in the page, through its host-neutral byte interface only: fetch the
// module, instantiate it with an empty import object, and call
//   ptr = tile_alloc(len)   room for a UTF-8 request of len bytes in `memory`
//   n   = tile_call(len)    handle it; the response is n bytes long
//   at  = tile_result()     where the response bytes are
// No AssemblyScript loader. `_initialize` is called once when the module exports it.

export interface TileCore {
  /** Sends request text, returns the core's response text exactly as it produced it. */
  call(request: string): string;
}

interface CoreExports {
  memory: WebAssembly.Memory;
  _initialize?: () => void;
  tile_abi_version(): number;
  tile_alloc(len: number): number;
  tile_call(len: number): number;
  tile_result(): number;
}

const ABI_VERSION = 1;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

function instantiate(module: WebAssembly.Module): CoreExports {
  const e = new WebAssembly.Instance(module, {}).exports as unknown as CoreExports;
  if (typeof e._initialize === "function") e._initialize();
  const abi = e.tile_abi_version();
  if (abi !== ABI_VERSION) throw new Error(`the core speaks ABI ${abi}; this page speaks ${ABI_VERSION}`);
  return e;
}

/** Fetches and compiles the module once; a trap discards the instance and the next call starts a fresh one. */
export async function loadCore(url: string): Promise<TileCore> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`cannot fetch ${url}: HTTP ${response.status}`);
  const { module } = await WebAssembly.instantiate(await response.arrayBuffer(), {});
  let e: CoreExports | null = instantiate(module);
  return {
    call(request: string): string {
      if (e === null) e = instantiate(module);
      const bytes = encoder.encode(request);
      try {
        const ptr = e.tile_alloc(bytes.length) >>> 0;
        new Uint8Array(e.memory.buffer, ptr, bytes.length).set(bytes);
        const n = e.tile_call(bytes.length);
        const at = e.tile_result() >>> 0;
        // Read memory.buffer again: the call may have grown (and so replaced) it.
        return decoder.decode(new Uint8Array(e.memory.buffer, at, n));
      } catch (err) {
        e = null; // never reuse an instance after a trap
        throw new Error("the WebAssembly core trapped: " + (err instanceof Error ? err.message : String(err)));
      }
    },
  };
}
