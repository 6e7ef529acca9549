// The WebAssembly entry: a host-neutral, bytes-in/bytes-out interface over exported memory.
// See README.md, "Embedding the WebAssembly core". No imports are needed by the module.
//
// Memory: the core is request/response and keeps no state between requests, so the module uses
// AssemblyScript's `stub` runtime (a bump allocator, no garbage collector) as an arena. `mark`
// is where the arena starts: everything the start function allocated (the core's constant
// tables) lies below it and is never freed; everything a request allocates lies above it and
// is dropped at once when the next request begins (tile_alloc) or, but for the response bytes,
// when the request ends (tile_call). A global that a request could grow (a module-level array
// that a request pushes to) would dangle after a reset: the core has none (see ARCHITECTURE.md,
// "The WebAssembly arena").
import { handle } from "./api";

/** Payload address of the sentinel block that starts the arena (0 until the first request). */
let mark: usize = 0;
let input: ArrayBuffer = new ArrayBuffer(0);
let output: ArrayBuffer = new ArrayBuffer(0);

/** Drops every block above `mark`: the arena is empty again and the next block starts there. */
function resetArena(): void {
  if (mark == 0) {
    mark = __alloc(0); // a zero-size sentinel block: everything allocated so far stays below it
    return;
  }
  // Stretch the sentinel over everything after it, then free it: the stub frees the most recent
  // block by moving its bump pointer back to that block's start; a fresh sentinel takes its place.
  const top = __alloc(0);
  const end = top + load<usize>(top - sizeof<usize>()); // the bump pointer after `top`
  store<usize>(mark - sizeof<usize>(), end - mark); // the sentinel's block size (BLOCK.mmInfo)
  __free(mark);
  mark = __alloc(0);
}

/** Interface version; bumped when the calling convention below changes. */
export function tile_abi_version(): i32 {
  return 1;
}

/** Reserves `len` bytes for a UTF-8 request and returns their address in `memory`. */
export function tile_alloc(len: i32): usize {
  resetArena();
  output = new ArrayBuffer(0);
  input = new ArrayBuffer(len < 0 ? 0 : len);
  return changetype<usize>(input);
}

/** The string of the `n` UTF-8 bytes at `ptr`: where every byte is ASCII (the usual request),
 *  one code unit per byte, four at a time; else String.UTF8.decodeUnsafe (the same string either
 *  way: it also gives one unit per ASCII byte). */
function decodeUtf8(ptr: usize, n: usize): string {
  const s = __new(n << 1, idof<String>());
  let i: usize = 0;
  while (i + 4 <= n) {
    const v = <u64>load<u32>(ptr + i);
    if ((v & 0x80808080) != 0) return String.UTF8.decodeUnsafe(ptr, n, false);
    store<u64>(s + (i << 1), (v & 0xff) | ((v & 0xff00) << 8) | ((v & 0xff0000) << 16) | ((v & 0xff000000) << 24));
    i += 4;
  }
  while (i < n) {
    const c = load<u8>(ptr + i);
    if (c >= 0x80) return String.UTF8.decodeUnsafe(ptr, n, false);
    store<u16>(s + (i << 1), c);
    i += 1;
  }
  return changetype<string>(s);
}

/** The UTF-8 bytes of `str`: where every code unit is ASCII (the usual response), one byte per
 *  unit, four at a time; else String.UTF8.encode (the same bytes either way), whose two passes
 *  over the text (its length in bytes, then the bytes) cost about 5% of an emit request. */
function encodeUtf8(str: string): ArrayBuffer {
  const n = <usize>str.length;
  const src = changetype<usize>(str);
  const buf = changetype<ArrayBuffer>(__new(n, idof<ArrayBuffer>()));
  const dst = changetype<usize>(buf);
  let i: usize = 0;
  while (i + 4 <= n) {
    const v = load<u64>(src + (i << 1));
    if ((v & 0xff80ff80ff80ff80) != 0) return String.UTF8.encode(str, false);
    store<u32>(dst + i, <u32>(v & 0xff) | (<u32>(v >> 8) & 0xff00) | (<u32>(v >> 16) & 0xff0000) | (<u32>(v >> 24) & 0xff000000));
    i += 4;
  }
  while (i < n) {
    const c = load<u16>(src + (i << 1));
    if (c >= 0x80) return String.UTF8.encode(str, false);
    store<u8>(dst + i, <u8>c);
    i += 1;
  }
  return buf;
}

/** Handles the request written at tile_alloc's address; returns the response length in bytes. */
export function tile_call(len: i32): i32 {
  const n = len < 0 ? 0 : (len > input.byteLength ? input.byteLength : len);
  const request = decodeUtf8(changetype<usize>(input), <usize>n);
  const bytes = encodeUtf8(handle(request));
  // Keep only the response: reset the arena and move its bytes to the arena's start (the new
  // block cannot overlap the old one's bytes before they are copied: it starts lower).
  const size = bytes.byteLength;
  resetArena();
  // __new, not `new ArrayBuffer`: the constructor zero-fills, which could clear source bytes
  const at = __new(<usize>size, idof<ArrayBuffer>());
  memory.copy(at, changetype<usize>(bytes), <usize>size);
  output = changetype<ArrayBuffer>(at);
  input = new ArrayBuffer(0);
  return size;
}

/** Address of the last response's UTF-8 bytes (valid until the next tile_alloc or tile_call). */
export function tile_result(): usize {
  return changetype<usize>(output);
}

/** Abort handler: the core never aborts on input; if it does, trap so the host can discard the instance. */
function tileAbort(message: string | null, file: string | null, line: u32, column: u32): void {
  unreachable();
}
