#include <metal_stdlib>
using namespace metal;

// Bug on purpose: `<=` writes one element past the end of Y[0..N).
constant uint N = 40;

kernel void off_by_one(device float* Y [[buffer(0)]], uint gtid [[thread_position_in_grid]])
{
  if (gtid <= N) { Y[gtid] = 1.0f; }
}
