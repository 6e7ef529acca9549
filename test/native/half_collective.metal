#include <metal_stdlib>
using namespace metal;

// simd_sum reached by half the lanes of a SIMD group.
kernel void half_collective(
    device float* Y [[buffer(0)]],
    uint lane [[thread_index_in_simdgroup]],
    uint gtid [[thread_position_in_grid]])
{
  float v = float(lane);
  if (lane < 16u) {
    v = simd_sum(v);
  }
  Y[gtid] = v;
}
