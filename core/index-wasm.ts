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

/** Handles the request written at tile_alloc's address; returns the response length in bytes. */
export function tile_call(len: i32): i32 {
  const n = len < 0 ? 0 : (len > input.byteLength ? input.byteLength : len);
  const request = String.UTF8.decodeUnsafe(changetype<usize>(input), <usize>n, false);
  const bytes = String.UTF8.encode(handle(request), false);
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
