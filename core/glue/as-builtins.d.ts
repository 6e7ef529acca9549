// AssemblyScript builtins that only core/glue/wasm.ts uses and that the portable type
// definitions do not declare. The JS build never sees them (rollup swaps in glue/js.ts).
declare type i64 = number;
declare function reinterpret<T>(value: any): T;
// Used by core/index-wasm.ts only (the WebAssembly byte interface).
declare function __collect(): void;
interface StringConstructor {
  UTF8: {
    encode(str: string, nullTerminated: boolean): ArrayBuffer;
    decodeUnsafe(ptr: usize, len: usize, nullTerminated: boolean): string;
  };
}
