#include <metal_stdlib>
using namespace metal;

// tile: rmsnorm / cooperative-reduction / P=1 S=17 W=544 T=544 V=8 U=1 groups=2048 cached=X

kernel void rmsnorm_cooperative_reduction(
    device const float* X [[buffer(0)]],
    device const float* G [[buffer(1)]],
    device float* Y [[buffer(2)]],
    uint tid [[thread_index_in_threadgroup]],
    uint group [[threadgroup_position_in_grid]],
    uint lane [[thread_index_in_simdgroup]],
    uint sg [[simdgroup_index_in_threadgroup]])
{
  // threadgroup memory, per reduce: one partial per SIMD group of each of the P programs
  threadgroup float tg0[17];
  // P programs per group, W workers per program, S SIMD groups per program
  const int program_in_group = int(tid) / 544;
  const int worker = int(tid) % 544;
  const int partial_base = program_in_group * 17;
  const int logical = int(group) * 1 + program_in_group;
  // tail replay: a slot past the last program redoes the last one and stores nothing
  const bool live = logical < 2048;
  const int r = (live ? logical : 2047);
  // stage 0: this worker's stripe of X in registers
  float cache_X[16];
  // fill: the same stripe layout as the stages below; 0 outside the range
  for (int k = 0; k < 1; ++k) {
    for (int tile_h = 0; tile_h < 2; ++tile_h) {
      const int tile_v0 = ((k * 2 + tile_h) * 544 + worker) * 4;
      const packed_float4 w0 = *((device const packed_float4*)(&X[r * 8192 + tile_v0]));
      cache_X[k * 8 + tile_h * 4 + 0] = w0[0];
      cache_X[k * 8 + tile_h * 4 + 1] = w0[1];
      cache_X[k * 8 + tile_h * 4 + 2] = w0[2];
      cache_X[k * 8 + tile_h * 4 + 3] = w0[3];
    }
  }
  {
    // the last chunk: a vector may be ragged or past the end
    const int k = 1;
    for (int tile_h = 0; tile_h < 2; ++tile_h) {
      const int tile_v0 = ((k * 2 + tile_h) * 544 + worker) * 4;
      if (tile_v0 + 4 <= 8192) {
        const packed_float4 w0 = *((device const packed_float4*)(&X[r * 8192 + tile_v0]));
        cache_X[k * 8 + tile_h * 4 + 0] = w0[0];
        cache_X[k * 8 + tile_h * 4 + 1] = w0[1];
        cache_X[k * 8 + tile_h * 4 + 2] = w0[2];
        cache_X[k * 8 + tile_h * 4 + 3] = w0[3];
      } else {
        // the ragged last vector (or one past the end), element by element; 0 outside
        for (int j = 0; j < 4; ++j) {
          const int c = tile_v0 + j;
          if (c < 8192) cache_X[k * 8 + tile_h * 4 + j] = X[r * 8192 + c];
          else cache_X[k * 8 + tile_h * 4 + j] = 0.0f;
        }
      }
    }
  }
  // stage 1: per-worker partial over its stripe
  float acc_ss = 0.0f;
  for (int k = 0; k < 1; ++k) {
    for (int tile_h = 0; tile_h < 2; ++tile_h) {
      const int tile_v0 = ((k * 2 + tile_h) * 544 + worker) * 4;
      for (int j = 0; j < 4; ++j) {
        const int c = tile_v0 + j;
        acc_ss = acc_ss + (cache_X[k * 8 + tile_h * 4 + j] * cache_X[k * 8 + tile_h * 4 + j]);
      }
    }
  }
  {
    // the last chunk: a vector may be ragged or past the end
    const int k = 1;
    for (int tile_h = 0; tile_h < 2; ++tile_h) {
      const int tile_v0 = ((k * 2 + tile_h) * 544 + worker) * 4;
      for (int j = 0; j < 4; ++j) {
        const int c = tile_v0 + j;
        if (c < 8192) {
          acc_ss = acc_ss + (cache_X[k * 8 + tile_h * 4 + j] * cache_X[k * 8 + tile_h * 4 + j]);
        }
      }
    }
  }
  // stage 2: first SIMD reduction
  const float part_ss = simd_sum(acc_ss);
  // stage 3: one partial per SIMD group to threadgroup memory
  if (lane == 0u) { tg0[sg] = part_ss; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  // stage 4: second SIMD reduction over the program's S partials
  const float ss = simd_sum(lane < 17u ? tg0[partial_base + int(lane)] : 0.0f);
  const float ms = ss / 8192.0f;
  const float inv = precise::rsqrt(ms + 0.00001f);
  // parallel loop over c: distributed over the program's workers
  for (int k = 0; k < 1; ++k) {
    for (int tile_h = 0; tile_h < 2; ++tile_h) {
      const int tile_v0 = ((k * 2 + tile_h) * 544 + worker) * 4;
      const packed_float4 tile_x0 = *((device const packed_float4*)(&G[tile_v0]));
      packed_float4 tile_y1;
      for (int j = 0; j < 4; ++j) {
        const int c = tile_v0 + j;
        tile_y1[j] = (cache_X[k * 8 + tile_h * 4 + j] * inv) * tile_x0[j];
      }
      if (live) { *((device packed_float4*)(&Y[r * 8192 + tile_v0])) = tile_y1; }
    }
  }
  {
    // the last chunk: a vector may be ragged or past the end
    const int k = 1;
    for (int tile_h = 0; tile_h < 2; ++tile_h) {
      const int tile_v0 = ((k * 2 + tile_h) * 544 + worker) * 4;
      if (tile_v0 + 4 <= 8192) {
        const packed_float4 tile_x2 = *((device const packed_float4*)(&G[tile_v0]));
        packed_float4 tile_y3;
        for (int j = 0; j < 4; ++j) {
          const int c = tile_v0 + j;
          tile_y3[j] = (cache_X[k * 8 + tile_h * 4 + j] * inv) * tile_x2[j];
        }
        if (live) { *((device packed_float4*)(&Y[r * 8192 + tile_v0])) = tile_y3; }
      }
    }
  }
}
