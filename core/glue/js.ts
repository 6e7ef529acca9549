// Target glue for the JavaScript build: the same exports as ./wasm.ts, written with typed arrays.

const F32 = new Float32Array(1);
const I32F = new Int32Array(F32.buffer);
const F64 = new Float64Array(1);
const I32D = new Int32Array(F64.buffer);

export function f32Bits(x: f64): i32 {
  F32[0] = x;
  return I32F[0];
}

export function f32FromBits(bits: i32): f64 {
  I32F[0] = bits;
  return F32[0];
}

export function f64High(x: f64): i32 {
  F64[0] = x;
  return I32D[1];
}

export function f64Low(x: f64): i32 {
  F64[0] = x;
  return I32D[0];
}

export function f64FromParts(hi: i32, lo: i32): f64 {
  I32D[1] = hi;
  I32D[0] = lo;
  return F64[0];
}

export function targetName(): string {
  return "js";
}
