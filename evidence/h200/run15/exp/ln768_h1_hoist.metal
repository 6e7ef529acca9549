#include <metal_stdlib>
using namespace metal;

// tile: hand ln rows=1 hoist=1 T=512 groups=768
kernel void ln_hand(device const float* X [[buffer(0)]], device const float* G [[buffer(1)]], device const float* B [[buffer(2)]], device float* Y [[buffer(3)]], uint tid [[thread_index_in_threadgroup]], uint group [[threadgroup_position_in_grid]], uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]])
{
  threadgroup float tg0[16]; threadgroup float tg1[16];
  const int worker = int(tid);
  const int r0 = int(group) * 1 + 0;
  float c0[12];
  for (int k = 0; k < 3; ++k) { const int v0 = (k * 512 + worker) * 4;
    const packed_float4 w0 = *((device const packed_float4*)(&X[r0 * 6144 + v0]));
    for (int j = 0; j < 4; ++j) c0[k * 4 + j] = w0[j];
  }
  float a0 = 0.0f; for (int t = 0; t < 12; ++t) a0 = a0 + c0[t];
  const float p0 = simd_sum(a0);
  if (lane == 0u) { tg0[0 + int(sg)] = p0; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  const float mean0 = simd_sum(lane < 16u ? tg0[0 + int(lane)] : 0.0f) / 6144.0f;
  float q0 = 0.0f; for (int t = 0; t < 12; ++t) q0 = q0 + ((c0[t] - mean0) * (c0[t] - mean0));
  const float pq0 = simd_sum(q0);
  if (lane == 0u) { tg1[0 + int(sg)] = pq0; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  const float inv0 = precise::rsqrt(simd_sum(lane < 16u ? tg1[0 + int(lane)] : 0.0f) / 6144.0f + 0.00001f);
  packed_float4 g[3]; packed_float4 b[3];
  for (int k = 0; k < 3; ++k) { const int v0 = (k * 512 + worker) * 4; g[k] = *((device const packed_float4*)(&G[v0])); b[k] = *((device const packed_float4*)(&B[v0])); }
  for (int k = 0; k < 3; ++k) { const int v0 = (k * 512 + worker) * 4;
    const packed_float4 gk = g[k]; const packed_float4 bk = b[k];
    packed_float4 y0; for (int j = 0; j < 4; ++j) y0[j] = (((c0[k * 4 + j] - mean0) * inv0) * gk[j]) + bk[j];
    *((device packed_float4*)(&Y[r0 * 6144 + v0])) = y0;
  }
}
