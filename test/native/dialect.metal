#include <metal_stdlib>
using namespace metal;

// Helpers, #define, file-scope constants, select, as_type, collectives over int and float.
#define SCALE 3
constant float K = 0.25f;

static inline float twice(float x) { return x * 2.0f; }

kernel void dialect(
    device const float* X [[buffer(0)]],
    device float* F [[buffer(1)]],
    device int* I [[buffer(2)]],
    uint tid [[thread_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint ntg [[threads_per_threadgroup]],
    uint group [[threadgroup_position_in_grid]])
{
  const int g = int(group) * int(ntg) + int(tid);
  float x = X[g];
  float one = as_type<float>(0x3f800000u);
  F[g * 8 + 0] = twice(x) * K + one;                       // x/2 + 1
  F[g * 8 + 1] = select(-1.0f, x, x > 0.0f);               // relu-ish with -1
  F[g * 8 + 2] = simd_max(x);
  F[g * 8 + 3] = simd_min(x);
  F[g * 8 + 4] = simd_broadcast(x, 3);
  F[g * 8 + 5] = simd_shuffle_down(x, 1);
  F[g * 8 + 6] = clamp(fast::exp(x), 0.5f, 2.0f) + precise::sqrt(fabs(x)) + rsqrt(4.0f);
  F[g * 8 + 7] = floor(x * 10.0f) + metal::tanh(x) + log(2.0f) + abs(-x);
  I[g * 4 + 0] = simd_sum(int(lane) * SCALE);
  I[g * 4 + 1] = simd_max(int(tid));
  I[g * 4 + 2] = select(7, 9, (lane & 1u) == 1u) + min(int(sg), 5) + max(2, 1);
  I[g * 4 + 3] = as_type<int>(one);
}

kernel void other_entry(device int* I [[buffer(0)]], uint i [[thread_position_in_grid]])
{
  I[i] = int(i) * 7;
}
