// The JavaScript entry. The AssemblyScript portable shim must load before any core module.
import "assemblyscript/std/portable/index.js";
import { handle } from "./api";

/** Handles one request (JSON text) and returns the response (JSON text). */
export function call(request: string): string {
  return handle(request);
}
