#include <metal_stdlib>
using namespace metal;

// tile: layernorm_affine / cooperative-reduction / P=1 S=6 W=192 T=192 V=8 U=1 groups=768 cached=X

kernel void layernorm_affine_cooperative_reduction(
    device const float* X [[buffer(0)]],
    device const float* G [[buffer(1)]],
    device const float* B [[buffer(2)]],
    device float* Y [[buffer(3)]],
    uint tid [[thread_index_in_threadgroup]],
    uint group [[threadgroup_position_in_grid]],
    uint lane [[thread_index_in_simdgroup]],
    uint sg [[simdgroup_index_in_threadgroup]])
{
  // threadgroup memory, per reduce: one partial per SIMD group of each of the P programs
  threadgroup float tg0[6];
  threadgroup float tg1[6];
  // P programs per group, W workers per program, S SIMD groups per program
  const int program_in_group = int(tid) / 192;
  const int worker = int(tid) % 192;
  const int partial_base = program_in_group * 6;
  const int logical = int(group) * 1 + program_in_group;
  // tail replay: a slot past the last program redoes the last one and stores nothing
  const bool live = logical < 768;
  const int r = (live ? logical : 767);
  // stage 0: this worker's stripe of X in registers
  float cache_X[32];
  // fill: the same stripe layout as the stages below; 0 outside the range
  for (int k = 0; k < 4; ++k) {
    for (int tile_h = 0; tile_h < 2; ++tile_h) {
      const int tile_v0 = ((k * 2 + tile_h) * 192 + worker) * 4;
      const packed_float4 w0 = *((device const packed_float4*)(&X[r * 6144 + tile_v0]));
      cache_X[k * 8 + tile_h * 4 + 0] = w0[0];
      cache_X[k * 8 + tile_h * 4 + 1] = w0[1];
      cache_X[k * 8 + tile_h * 4 + 2] = w0[2];
      cache_X[k * 8 + tile_h * 4 + 3] = w0[3];
    }
  }
  // stage 1: per-worker partial over its stripe
  float acc_s = 0.0f;
  for (int k = 0; k < 4; ++k) {
    for (int tile_h = 0; tile_h < 2; ++tile_h) {
      const int tile_v0 = ((k * 2 + tile_h) * 192 + worker) * 4;
      for (int j = 0; j < 4; ++j) {
        const int c = tile_v0 + j;
        acc_s = acc_s + cache_X[k * 8 + tile_h * 4 + j];
      }
    }
  }
  // stage 2: first SIMD reduction
  const float part_s = simd_sum(acc_s);
  // stage 3: one partial per SIMD group to threadgroup memory
  if (lane == 0u) { tg0[sg] = part_s; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  // stage 4: second SIMD reduction over the program's S partials
  const float s = simd_sum(lane < 6u ? tg0[partial_base + int(lane)] : 0.0f);
  const float mean = s / 6144.0f;
  // stage 1: per-worker partial over its stripe
  float acc_q = 0.0f;
  for (int k = 0; k < 4; ++k) {
    for (int tile_h = 0; tile_h < 2; ++tile_h) {
      const int tile_v0 = ((k * 2 + tile_h) * 192 + worker) * 4;
      for (int j = 0; j < 4; ++j) {
        const int c = tile_v0 + j;
        acc_q = acc_q + ((cache_X[k * 8 + tile_h * 4 + j] - mean) * (cache_X[k * 8 + tile_h * 4 + j] - mean));
      }
    }
  }
  // stage 2: first SIMD reduction
  const float part_q = simd_sum(acc_q);
  // stage 3: one partial per SIMD group to threadgroup memory
  if (lane == 0u) { tg1[sg] = part_q; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  // stage 4: second SIMD reduction over the program's S partials
  const float q = simd_sum(lane < 6u ? tg1[partial_base + int(lane)] : 0.0f);
  const float var = q / 6144.0f;
  const float inv = precise::rsqrt(var + 0.00001f);
  // parallel loop over c: distributed over the program's workers
  for (int k = 0; k < 4; ++k) {
    for (int tile_h = 0; tile_h < 2; ++tile_h) {
      const int tile_v0 = ((k * 2 + tile_h) * 192 + worker) * 4;
      const packed_float4 tile_x0 = *((device const packed_float4*)(&G[tile_v0]));
      const packed_float4 tile_x1 = *((device const packed_float4*)(&B[tile_v0]));
      packed_float4 tile_y2;
      for (int j = 0; j < 4; ++j) {
        const int c = tile_v0 + j;
        tile_y2[j] = (((cache_X[k * 8 + tile_h * 4 + j] - mean) * inv) * tile_x0[j]) + tile_x1[j];
      }
      if (live) { *((device packed_float4*)(&Y[r * 6144 + tile_v0])) = tile_y2; }
    }
  }
}
