#include <metal_stdlib>
using namespace metal;

// tile: softmax / cooperative-reduction / P=1 S=8 W=256 T=256 V=1 U=1 cached=no
#define COLS 700

kernel void softmax_rows(
    device const float* X [[buffer(0)]],
    device float* Y [[buffer(1)]],
    threadgroup float* tg0 [[threadgroup(0)]],
    threadgroup float* tg1 [[threadgroup(1)]],
    uint tid [[thread_index_in_threadgroup]],
    uint group [[threadgroup_position_in_grid]],
    uint lane [[thread_index_in_simdgroup]],
    uint sg [[simdgroup_index_in_threadgroup]])
{
  const int row = int(group);
  // stage 1: row max
  float m = -INFINITY;
  for (int c = int(tid); c < COLS; c += 256) { m = fmax(m, X[row * COLS + c]); }
  float pm = simd_max(m);
  if (lane == 0u) { tg0[sg] = pm; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float rmax = simd_max(lane < 8u ? tg0[lane] : -INFINITY);
  // stage 2: row sum of exp
  float s = 0.0f;
  for (int c = int(tid); c < COLS; c += 256) { s += metal::exp(X[row * COLS + c] - rmax); }
  float ps = simd_sum(s);
  if (lane == 0u) { tg1[sg] = ps; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float total = simd_sum(lane < 8u ? tg1[lane] : 0.0f);
  // stage 3: normalize
  for (int c = int(tid); c < COLS; c += 256) { Y[row * COLS + c] = metal::exp(X[row * COLS + c] - rmax) / total; }
}
