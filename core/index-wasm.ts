// The WebAssembly entry: a host-neutral, bytes-in/bytes-out interface over exported memory.
// See README.md, "Embedding the WebAssembly core". No imports are needed by the module.
import { handle } from "./api";

let input: ArrayBuffer = new ArrayBuffer(0);
let output: ArrayBuffer = new ArrayBuffer(0);

/** Interface version; bumped when the calling convention below changes. */
export function tile_abi_version(): i32 {
  return 1;
}

/** Reserves `len` bytes for a UTF-8 request and returns their address in `memory`. */
export function tile_alloc(len: i32): usize {
  input = new ArrayBuffer(len < 0 ? 0 : len);
  return changetype<usize>(input);
}

/** Handles the request written at tile_alloc's address; returns the response length in bytes. */
export function tile_call(len: i32): i32 {
  const n = len < 0 ? 0 : (len > input.byteLength ? input.byteLength : len);
  const request = String.UTF8.decodeUnsafe(changetype<usize>(input), <usize>n, false);
  output = String.UTF8.encode(handle(request), false);
  input = new ArrayBuffer(0);
  __collect();
  return output.byteLength;
}

/** Address of the last response's UTF-8 bytes (valid until the next tile_alloc or tile_call). */
export function tile_result(): usize {
  return changetype<usize>(output);
}

/** Abort handler: the core never aborts on input; if it does, trap so the host can discard the instance. */
function tileAbort(message: string | null, file: string | null, line: u32, column: u32): void {
  unreachable();
}
