// Target glue for the WebAssembly build (and the type-checker).
// The JS build replaces this module with ./js.ts (see rollup.config.mjs); both export the same names.

/** The IEEE-754 bit pattern of `x` rounded to f32, as a signed 32-bit integer. */
export function f32Bits(x: f64): i32 {
  return reinterpret<i32>(<f32>x);
}

/** The f32 value (widened to f64) whose bit pattern is `bits`. */
export function f32FromBits(bits: i32): f64 {
  return <f64>reinterpret<f32>(bits);
}

/** The high 32 bits of the IEEE-754 pattern of `x`. */
export function f64High(x: f64): i32 {
  return <i32>(reinterpret<i64>(x) >>> 32);
}

/** The low 32 bits of the IEEE-754 pattern of `x`. */
export function f64Low(x: f64): i32 {
  return <i32>reinterpret<i64>(x);
}

/** The f64 whose IEEE-754 pattern is (hi, lo). */
export function f64FromParts(hi: i32, lo: i32): f64 {
  return reinterpret<f64>((<i64>hi << 32) | (<i64>lo & 0xffffffff));
}

/** Which build this is: "wasm" or "js". */
export function targetName(): string {
  return "wasm";
}
