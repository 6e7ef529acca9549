// Types for scripts/opt-wasm.mjs (used by test/wasm-opt.test.ts).
/** The AssemblyScript transform that sets the -O3 compile-time levels. */
export default class OptimizeLevelHints {
  afterParse(): void;
}
/** The functions that keep flexible inlining. */
export const HOT: string[];
/** Optimizes a module (names kept by asc --debug): asc's -O3 pass list, flexible inlining only for
 *  `hotNames`, each copied only into the callers `hotCallers` lists for it (null: every caller),
 *  and always inlining of more than 2 units only into the functions of `warm` (null: every
 *  function). */
export function optimizeWasm(input: Uint8Array, hotNames?: string[], hotCallers?: Record<string, string[]> | null, warm?: string[] | null): { bytes: Uint8Array; missing: string[] };
