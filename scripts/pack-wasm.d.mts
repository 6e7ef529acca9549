// Types for scripts/pack-wasm.mjs (imported by test/wasm-pack.test.ts).
/** `rounds`: rounds of the priced parse after the greedy one (default 2; 0: the greedy parse). */
export function compress(img: Uint8Array, rounds?: number): Uint8Array;
export function decompress(src: Uint8Array, n: number): Uint8Array;
export function packWasm(input: Uint8Array): {
  bytes: Uint8Array;
  packed: boolean;
  segments?: number;
  imageBytes?: number;
  packedBytes?: number;
  recordBytes?: number;
  dataSectionBytes?: number;
  unpackerBytes?: number;
};
export function sameMemoryAfterStart(a: Uint8Array, b: Uint8Array): Promise<boolean>;
