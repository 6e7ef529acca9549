#include <metal_stdlib>
using namespace metal;

// tile: row_sum / cooperative-reduction / P=1 S=2 W=64 T=64 V=1 U=1 cached=no
// One row per group; each of 64 workers sums a stripe, then two-stage simd_sum.
kernel void row_sum(
    device const float* X [[buffer(0)]],
    device float* Y [[buffer(1)]],
    threadgroup float* tg0 [[threadgroup(0)]],
    uint tid [[thread_index_in_threadgroup]],
    uint group [[threadgroup_position_in_grid]],
    uint lane [[thread_index_in_simdgroup]],
    uint sg [[simdgroup_index_in_threadgroup]])
{
  const int cols = 1000;
  const int row = int(group);
  // stage 1: per-worker partial over its stripe
  float acc = 0.0f;
  for (int c = int(tid); c < cols; c += 64) { acc += X[row * cols + c]; }
  // stage 2: per-SIMD partials to threadgroup memory
  float part = simd_sum(acc);
  if (lane == 0u) { tg0[sg] = part; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  // stage 3: uniform second collective over the S partials
  float total = simd_sum(lane < 2u ? tg0[lane] : 0.0f);
  if (tid == 0u) { Y[row] = total; }
}
