// Types for scripts/opt-wasm.mjs (used by test/wasm-opt.test.ts).
/** The AssemblyScript transform that sets the -O3 compile-time levels. */
export default class OptimizeLevelHints {
  afterParse(): void;
}
/** Optimizes a module (names kept by asc --debug): asc's -O3 pass list, flexible inlining only for `hotNames`. */
export function optimizeWasm(input: Uint8Array, hotNames?: string[]): { bytes: Uint8Array; missing: string[] };
