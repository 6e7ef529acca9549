#include <metal_stdlib>
using namespace metal;

// tile: softmax / cooperative-reduction / P=1 S=9 W=288 T=288 V=8 U=1 groups=2048 cached=X

// NaN test on the bits (exponent all ones, mantissa not zero)
static inline bool tile_is_nan(float x) { return (as_type<uint>(x) & 0x7fffffffu) > 0x7f800000u; }

// SIMD max and min that propagate NaN (simd_max and simd_min ignore a NaN lane)
static inline float tile_simd_max(float x) {
  const bool any_nan = simd_any(tile_is_nan(x));
  const float m = simd_max(x);
  return any_nan ? NAN : m;
}

kernel void softmax_cooperative_reduction(
    device const float* X [[buffer(0)]],
    device float* Y [[buffer(1)]],
    uint tid [[thread_index_in_threadgroup]],
    uint group [[threadgroup_position_in_grid]],
    uint lane [[thread_index_in_simdgroup]],
    uint sg [[simdgroup_index_in_threadgroup]])
{
  // threadgroup memory, per reduce: one partial per SIMD group of each of the P programs
  threadgroup float tg0[9];
  threadgroup float tg1[9];
  // P programs per group, W workers per program, S SIMD groups per program
  const int program_in_group = int(tid) / 288;
  const int worker = int(tid) % 288;
  const int partial_base = program_in_group * 9;
  const int logical = int(group) * 1 + program_in_group;
  // tail replay: a slot past the last program redoes the last one and stores nothing
  const bool live = logical < 2048;
  const int r = (live ? logical : 2047);
  // stage 0: this worker's stripe of X in registers
  float cache_X[32];
  // fill: the same stripe layout as the stages below; 0 outside the range
  for (int k = 0; k < 3; ++k) {
    for (int tile_h = 0; tile_h < 2; ++tile_h) {
      const int tile_v0 = ((k * 2 + tile_h) * 288 + worker) * 4;
      const packed_float4 w0 = *((device const packed_float4*)(&X[r * 8192 + tile_v0]));
      cache_X[k * 8 + tile_h * 4 + 0] = w0[0];
      cache_X[k * 8 + tile_h * 4 + 1] = w0[1];
      cache_X[k * 8 + tile_h * 4 + 2] = w0[2];
      cache_X[k * 8 + tile_h * 4 + 3] = w0[3];
    }
  }
  {
    // the last chunk: a vector may be ragged or past the end
    const int k = 3;
    for (int tile_h = 0; tile_h < 2; ++tile_h) {
      const int tile_v0 = ((k * 2 + tile_h) * 288 + worker) * 4;
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
  float acc_m = -INFINITY;
  // NaN noted on the bits per element (the largest |bits|), applied once after the stripe
  uint tile_nan_m = 0u;
  for (int k = 0; k < 3; ++k) {
    for (int tile_h = 0; tile_h < 2; ++tile_h) {
      const int tile_v0 = ((k * 2 + tile_h) * 288 + worker) * 4;
      for (int j = 0; j < 4; ++j) {
        const int c = tile_v0 + j;
        {
          const float tile_e0 = cache_X[k * 8 + tile_h * 4 + j];
          acc_m = max(acc_m, tile_e0);
          tile_nan_m = max(tile_nan_m, as_type<uint>(tile_e0) & 0x7fffffffu);
        }
      }
    }
  }
  {
    // the last chunk: a vector may be ragged or past the end
    const int k = 3;
    for (int tile_h = 0; tile_h < 2; ++tile_h) {
      const int tile_v0 = ((k * 2 + tile_h) * 288 + worker) * 4;
      for (int j = 0; j < 4; ++j) {
        const int c = tile_v0 + j;
        if (c < 8192) {
          {
            const float tile_e1 = cache_X[k * 8 + tile_h * 4 + j];
            acc_m = max(acc_m, tile_e1);
            tile_nan_m = max(tile_nan_m, as_type<uint>(tile_e1) & 0x7fffffffu);
          }
        }
      }
    }
  }
  if (tile_nan_m > 0x7f800000u) { acc_m = NAN; }
  // stage 2: first SIMD reduction
  const float part_m = tile_simd_max(acc_m);
  // stage 3: one partial per SIMD group to threadgroup memory
  if (lane == 0u) { tg0[sg] = part_m; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  // stage 4: second SIMD reduction over the program's S partials
  const float m = tile_simd_max(lane < 9u ? tg0[partial_base + int(lane)] : -INFINITY);
  // stage 1: per-worker partial over its stripe
  float acc_s = 0.0f;
  // each element's value goes into cache_X (dead there): the stages below read it back
  for (int k = 0; k < 3; ++k) {
    for (int tile_h = 0; tile_h < 2; ++tile_h) {
      const int tile_v0 = ((k * 2 + tile_h) * 288 + worker) * 4;
      for (int j = 0; j < 4; ++j) {
        const int c = tile_v0 + j;
        {
          const float tile_e2 = precise::exp(cache_X[k * 8 + tile_h * 4 + j] - m);
          cache_X[k * 8 + tile_h * 4 + j] = tile_e2;
          acc_s = acc_s + tile_e2;
        }
      }
    }
  }
  {
    // the last chunk: a vector may be ragged or past the end
    const int k = 3;
    for (int tile_h = 0; tile_h < 2; ++tile_h) {
      const int tile_v0 = ((k * 2 + tile_h) * 288 + worker) * 4;
      for (int j = 0; j < 4; ++j) {
        const int c = tile_v0 + j;
        if (c < 8192) {
          {
            const float tile_e3 = precise::exp(cache_X[k * 8 + tile_h * 4 + j] - m);
            cache_X[k * 8 + tile_h * 4 + j] = tile_e3;
            acc_s = acc_s + tile_e3;
          }
        }
      }
    }
  }
  // stage 2: first SIMD reduction
  const float part_s = simd_sum(acc_s);
  // stage 3: one partial per SIMD group to threadgroup memory
  if (lane == 0u) { tg1[sg] = part_s; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  // stage 4: second SIMD reduction over the program's S partials
  const float s = simd_sum(lane < 9u ? tg1[partial_base + int(lane)] : 0.0f);
  // parallel loop over c: distributed over the program's workers
  for (int k = 0; k < 3; ++k) {
    for (int tile_h = 0; tile_h < 2; ++tile_h) {
      const int tile_v0 = ((k * 2 + tile_h) * 288 + worker) * 4;
      packed_float4 tile_y4;
      for (int j = 0; j < 4; ++j) {
        const int c = tile_v0 + j;
        tile_y4[j] = cache_X[k * 8 + tile_h * 4 + j] / s;
      }
      if (live) { *((device packed_float4*)(&Y[r * 8192 + tile_v0])) = tile_y4; }
    }
  }
  {
    // the last chunk: a vector may be ragged or past the end
    const int k = 3;
    for (int tile_h = 0; tile_h < 2; ++tile_h) {
      const int tile_v0 = ((k * 2 + tile_h) * 288 + worker) * 4;
      if (tile_v0 + 4 <= 8192) {
        packed_float4 tile_y5;
        for (int j = 0; j < 4; ++j) {
          const int c = tile_v0 + j;
          tile_y5[j] = cache_X[k * 8 + tile_h * 4 + j] / s;
        }
        if (live) { *((device packed_float4*)(&Y[r * 8192 + tile_v0])) = tile_y5; }
      }
    }
  }
}
