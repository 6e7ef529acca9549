// Integer division in a hand-written kernel never traps on the host runtime (issue 13, point 3).
// Metal: an integer division by zero or with an out-of-range quotient (INT_MIN / -1) "does not
// cause an exception but will result in an unspecified value". The host runtime compiles the MSL
// as C++, where x86-64's idiv raises SIGFPE; shell-native/host/intdiv.cpp completes such a
// division with the values arm64 gives (a / 0 = 0, a % 0 = a, INT_MIN / -1 = INT_MIN,
// INT_MIN % -1 = 0) and the kernel goes on. Before, the process running the kernel died.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRuntime, type DeviceBuffer, type Runtime } from "../shell-node/src/native";

let rt: Runtime;
beforeAll(() => {
  rt = openRuntime("host");
});
afterAll(() => rt?.close());

const SRC = `#include <metal_stdlib>
using namespace metal;

kernel void divs(device const int* A [[buffer(0)]], device const int* B [[buffer(1)]],
                 device int* Q [[buffer(2)]], device int* R [[buffer(3)]], device int* QL [[buffer(4)]],
                 device uint* QU [[buffer(5)]], device uint* RU [[buffer(6)]],
                 uint tid [[thread_position_in_grid]])
{
  const int a = A[tid];
  const int b = B[tid];
  Q[tid] = a / b;
  R[tid] = a % b;
  // 64-bit: a * 2^32 / b, high half (INT_MIN * 2^32 is LONG_MIN, so LONG_MIN / -1 is reached)
  QL[tid] = int((long(a) * 4294967296L) / long(b) >> 32);
  QU[tid] = uint(a) / uint(b);
  RU[tid] = uint(a) % uint(b);
}
`;

const INT_MIN = -(2 ** 31);
const A = [7, -7, INT_MIN, INT_MIN, 9, 100, 0, -13, INT_MIN, 5];
const B = [0, 0, -1, 0, 2, -3, 0, 4, 1, -1];

/** arm64's results (sdiv/udiv, msub), in exact integers, wrapped to the width. */
function expected(): Record<string, number[]> {
  const wrap = (x: bigint, bits: number, signed: boolean): number => Number(signed ? BigInt.asIntN(bits, x) : BigInt.asUintN(bits, x));
  const div = (a: bigint, b: bigint): bigint => (b === 0n ? 0n : a / b); // BigInt division truncates
  const rem = (a: bigint, b: bigint): bigint => a - div(a, b) * b;
  const out: Record<string, number[]> = { Q: [], R: [], QL: [], QU: [], RU: [] };
  A.forEach((a0, i) => {
    const a = BigInt(a0);
    const b = BigInt(B[i]);
    out.Q.push(wrap(div(a, b), 32, true));
    out.R.push(wrap(rem(a, b), 32, true));
    const q64 = BigInt.asIntN(64, div(a * 4294967296n, b));
    out.QL.push(wrap(q64 >> 32n, 32, true));
    const ua = BigInt.asUintN(32, a);
    const ub = BigInt.asUintN(32, b);
    out.QU.push(wrap(div(ua, ub), 32, false));
    out.RU.push(wrap(rem(ua, ub), 32, false));
  });
  return out;
}

function ints(values: number[]): DeviceBuffer {
  const b = rt.buffer(values.length * 4);
  rt.write(b, Int32Array.from(values));
  return b;
}

describe("host runtime: integer division never traps (Metal gives an unspecified value, no exception)", () => {
  for (const detect of [true, false]) {
    it(`division by zero and INT_MIN / -1 in a hand-written kernel complete with arm64's values (detector ${detect ? "on" : "off"})`, () => {
      rt.setDetector(detect);
      let pipe;
      try {
        pipe = rt.pipeline(rt.compile(SRC), "divs");
      } finally {
        rt.setDetector(true);
      }
      const n = A.length;
      const outs = [0, 1, 2, 3, 4].map(() => ints(new Array(n).fill(12345)));
      rt.dispatch(pipe, [ints(A), ints(B), ...outs], [], [1, 1, 1], [n, 1, 1]);
      const got = {
        Q: Array.from(new Int32Array(rt.read(outs[0]))),
        R: Array.from(new Int32Array(rt.read(outs[1]))),
        QL: Array.from(new Int32Array(rt.read(outs[2]))),
        QU: Array.from(new Uint32Array(rt.read(outs[3]))),
        RU: Array.from(new Uint32Array(rt.read(outs[4]))),
      };
      const want = expected();
      expect(got).toEqual(want);
      // the corner cases themselves, spelled out
      expect([got.Q[0], got.R[0], got.Q[2], got.R[2], got.QL[2], got.QU[0], got.RU[0]]).toEqual([0, 7, INT_MIN, 0, INT_MIN, 0, 7]);
    });
  }
});
