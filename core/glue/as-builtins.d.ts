// AssemblyScript builtins that only core/glue/wasm.ts uses and that the portable type
// definitions do not declare. The JS build never sees them (rollup swaps in glue/js.ts).
declare type i64 = number;
declare type u64 = number;
declare function reinterpret<T>(value: any): T;
// Used by core/index-wasm.ts only (the WebAssembly byte interface).
declare function __alloc(size: usize): usize;
declare function __free(ptr: usize): void;
declare function __new(size: usize, id: u32): usize;
declare function load<T>(ptr: usize): T;
declare function store<T>(ptr: usize, value: any): void;
declare function sizeof<T>(): usize;
declare namespace memory {
  function copy(dst: usize, src: usize, n: usize): void;
}
interface StringConstructor {
  UTF8: {
    encode(str: string, nullTerminated: boolean): ArrayBuffer;
    decodeUnsafe(ptr: usize, len: usize, nullTerminated: boolean): string;
  };
}
