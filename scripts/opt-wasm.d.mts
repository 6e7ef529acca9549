// Types for scripts/opt-wasm.mjs (used by test/wasm-opt.test.ts).
/** The AssemblyScript transform that sets the -O3 compile-time levels and lays the strings of
 *  scripts/opt-wasm-low-strings.json out first. */
export default class OptimizeLevelHints {
  afterParse(): void;
  afterInitialize(program: unknown): void;
}
/** The functions that keep flexible inlining. */
export const HOT: string[];
/** Optimizes a module (names kept by asc --debug): asc's -O3 pass list, flexible inlining only for
 *  `hotNames`, each copied only into the callers `hotCallers` lists for it (null: every caller),
 *  and always inlining of more than 2 units only into the functions of `warm` (null: every
 *  function); then the text rewrites of joinConcats and compactFloatConstants. `keepNames`
 *  keeps the function names in the result. */
export function optimizeWasm(input: Uint8Array, hotNames?: string[], hotCallers?: Record<string, string[]> | null, warm?: string[] | null, keepNames?: boolean): { bytes: Uint8Array; missing: string[] };
/** A module's text with each chain of 3 or more String#concat pieces replaced by calls of
 *  ~tile/concat3..5 (appended), and those helpers' names; null when there is nothing to join. */
export function joinConcats(text: string): { text: string; helpers: string[] } | null;
/** A module's text with the integral f64 constants of its functions as converted i32
 *  constants; null when it has none. */
export function compactFloatConstants(text: string): string | null;
/** A module's text with the dropped calls of Array<String>#push@cold (everywhere) and Text#add
 *  (outside `warm`) calling a `<name>@void` copy (appended); null when none does. */
export function dropResults(text: string, warm: Set<string>): string | null;
