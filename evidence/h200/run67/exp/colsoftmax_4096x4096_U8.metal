#include <metal_stdlib>
using namespace metal;

// tile: colsoftmax / cooperative-reduction / P=8 S=2 W=64 T=512 V=1 U=8 groups=512 cached=X layout=programs-on-lanes

// NaN test on the bits (exponent all ones, mantissa not zero)
static inline bool tile_is_nan(float x) { return (as_type<uint>(x) & 0x7fffffffu) > 0x7f800000u; }

// max and min that propagate NaN (Metal's max and min return the other operand) and order -0
// below +0 (of two equal values, the AND of the bits is +0 for two zeros, the OR -0)
static inline float tile_max(float a, float b) { return tile_is_nan(a) ? a : (tile_is_nan(b) ? b : (a == b ? as_type<float>(as_type<uint>(a) & as_type<uint>(b)) : max(a, b))); }

kernel void colsoftmax_cooperative_reduction(
    device const float* X [[buffer(0)]],
    device float* Y [[buffer(1)]],
    uint tid [[thread_index_in_threadgroup]],
    uint group [[threadgroup_position_in_grid]],
    uint lane [[thread_index_in_simdgroup]],
    uint sg [[simdgroup_index_in_threadgroup]])
{
  // threadgroup memory, per reduce: one partial per worker of each of the P programs
  threadgroup float tg0[512];
  threadgroup float tg1[512];
  // programs on lanes: P programs on neighbouring threads, W workers per program P threads apart
  const int program_in_group = int(tid) % 8;
  const int worker = int(tid) / 8;
  const int logical = int(group) * 8 + program_in_group;
  // tail replay: a slot past the last program redoes the last one and stores nothing
  const bool live = logical < 4096;
  const int c = (live ? logical : 4095);
  // stage 0: this worker's stripe of X in registers
  float cache_X[64];
  // fill: the same stripe layout as the stages below; 0 outside the range
  for (int k = 0; k < 64; ++k) {
    const int r = k * 64 + worker;
    cache_X[k] = X[r * 4096 + c];
  }
  // stage 1: per-worker partial over its stripe
  float acc_m_0 = -INFINITY;
  float acc_m_1 = -INFINITY;
  float acc_m_2 = -INFINITY;
  float acc_m_3 = -INFINITY;
  float acc_m_4 = -INFINITY;
  float acc_m_5 = -INFINITY;
  float acc_m_6 = -INFINITY;
  float acc_m_7 = -INFINITY;
  // NaN noted on the bits per element (the largest |bits|), applied once after the stripe; no
  // output depends on the sign of a zero result, so the stripe does not track it
  uint tile_nan_m_0 = 0u;
  uint tile_nan_m_1 = 0u;
  uint tile_nan_m_2 = 0u;
  uint tile_nan_m_3 = 0u;
  uint tile_nan_m_4 = 0u;
  uint tile_nan_m_5 = 0u;
  uint tile_nan_m_6 = 0u;
  uint tile_nan_m_7 = 0u;
  for (int k = 0; k < 64; k += 8) {
    {
      const int r = k * 64 + worker;
      {
        const float tile_e0 = cache_X[k];
        acc_m_0 = max(acc_m_0, tile_e0);
        tile_nan_m_0 = max(tile_nan_m_0, as_type<uint>(tile_e0) & 0x7fffffffu);
      }
    }
    {
      const int r = (k + 1) * 64 + worker;
      {
        const float tile_e1 = cache_X[(k + 1)];
        acc_m_1 = max(acc_m_1, tile_e1);
        tile_nan_m_1 = max(tile_nan_m_1, as_type<uint>(tile_e1) & 0x7fffffffu);
      }
    }
    {
      const int r = (k + 2) * 64 + worker;
      {
        const float tile_e2 = cache_X[(k + 2)];
        acc_m_2 = max(acc_m_2, tile_e2);
        tile_nan_m_2 = max(tile_nan_m_2, as_type<uint>(tile_e2) & 0x7fffffffu);
      }
    }
    {
      const int r = (k + 3) * 64 + worker;
      {
        const float tile_e3 = cache_X[(k + 3)];
        acc_m_3 = max(acc_m_3, tile_e3);
        tile_nan_m_3 = max(tile_nan_m_3, as_type<uint>(tile_e3) & 0x7fffffffu);
      }
    }
    {
      const int r = (k + 4) * 64 + worker;
      {
        const float tile_e4 = cache_X[(k + 4)];
        acc_m_4 = max(acc_m_4, tile_e4);
        tile_nan_m_4 = max(tile_nan_m_4, as_type<uint>(tile_e4) & 0x7fffffffu);
      }
    }
    {
      const int r = (k + 5) * 64 + worker;
      {
        const float tile_e5 = cache_X[(k + 5)];
        acc_m_5 = max(acc_m_5, tile_e5);
        tile_nan_m_5 = max(tile_nan_m_5, as_type<uint>(tile_e5) & 0x7fffffffu);
      }
    }
    {
      const int r = (k + 6) * 64 + worker;
      {
        const float tile_e6 = cache_X[(k + 6)];
        acc_m_6 = max(acc_m_6, tile_e6);
        tile_nan_m_6 = max(tile_nan_m_6, as_type<uint>(tile_e6) & 0x7fffffffu);
      }
    }
    {
      const int r = (k + 7) * 64 + worker;
      {
        const float tile_e7 = cache_X[(k + 7)];
        acc_m_7 = max(acc_m_7, tile_e7);
        tile_nan_m_7 = max(tile_nan_m_7, as_type<uint>(tile_e7) & 0x7fffffffu);
      }
    }
  }
  if (tile_nan_m_0 > 0x7f800000u) { acc_m_0 = NAN; }
  if (tile_nan_m_1 > 0x7f800000u) { acc_m_1 = NAN; }
  if (tile_nan_m_2 > 0x7f800000u) { acc_m_2 = NAN; }
  if (tile_nan_m_3 > 0x7f800000u) { acc_m_3 = NAN; }
  if (tile_nan_m_4 > 0x7f800000u) { acc_m_4 = NAN; }
  if (tile_nan_m_5 > 0x7f800000u) { acc_m_5 = NAN; }
  if (tile_nan_m_6 > 0x7f800000u) { acc_m_6 = NAN; }
  if (tile_nan_m_7 > 0x7f800000u) { acc_m_7 = NAN; }
  const float acc_m = tile_max(tile_max(tile_max(tile_max(tile_max(tile_max(tile_max(acc_m_0, acc_m_1), acc_m_2), acc_m_3), acc_m_4), acc_m_5), acc_m_6), acc_m_7);
  // stage 2: the 4 workers of each program in this SIMD group combined across lanes (xor of
  // multiples of P keeps the program), then one partial per SIMD group and program to
  // threadgroup memory (slot sg * P + program)
  float tile_p10 = acc_m;
  tile_p10 = tile_max(tile_p10, simd_shuffle_xor(tile_p10, ushort(8)));
  tile_p10 = tile_max(tile_p10, simd_shuffle_xor(tile_p10, ushort(16)));
  if (lane < 8u) { tg0[int(sg) * 8 + program_in_group] = tile_p10; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  // stage 3: each worker combines its program's 16 partials, in SIMD-group order
  float tile_c8 = tg0[program_in_group];
  for (int tile_w9 = 1; tile_w9 < 16; ++tile_w9) { tile_c8 = tile_max(tile_c8, tg0[tile_w9 * 8 + program_in_group]); }
  const float m = tile_c8;
  // stage 1: per-worker partial over its stripe
  float acc_s_0 = 0.0f;
  float acc_s_1 = 0.0f;
  float acc_s_2 = 0.0f;
  float acc_s_3 = 0.0f;
  float acc_s_4 = 0.0f;
  float acc_s_5 = 0.0f;
  float acc_s_6 = 0.0f;
  float acc_s_7 = 0.0f;
  // each element's value goes into cache_X (dead there): the stages below read it back
  for (int k = 0; k < 64; k += 8) {
    {
      const int r = k * 64 + worker;
      {
        const float tile_e11 = precise::exp(cache_X[k] - m);
        cache_X[k] = tile_e11;
        acc_s_0 = acc_s_0 + tile_e11;
      }
    }
    {
      const int r = (k + 1) * 64 + worker;
      {
        const float tile_e12 = precise::exp(cache_X[(k + 1)] - m);
        cache_X[(k + 1)] = tile_e12;
        acc_s_1 = acc_s_1 + tile_e12;
      }
    }
    {
      const int r = (k + 2) * 64 + worker;
      {
        const float tile_e13 = precise::exp(cache_X[(k + 2)] - m);
        cache_X[(k + 2)] = tile_e13;
        acc_s_2 = acc_s_2 + tile_e13;
      }
    }
    {
      const int r = (k + 3) * 64 + worker;
      {
        const float tile_e14 = precise::exp(cache_X[(k + 3)] - m);
        cache_X[(k + 3)] = tile_e14;
        acc_s_3 = acc_s_3 + tile_e14;
      }
    }
    {
      const int r = (k + 4) * 64 + worker;
      {
        const float tile_e15 = precise::exp(cache_X[(k + 4)] - m);
        cache_X[(k + 4)] = tile_e15;
        acc_s_4 = acc_s_4 + tile_e15;
      }
    }
    {
      const int r = (k + 5) * 64 + worker;
      {
        const float tile_e16 = precise::exp(cache_X[(k + 5)] - m);
        cache_X[(k + 5)] = tile_e16;
        acc_s_5 = acc_s_5 + tile_e16;
      }
    }
    {
      const int r = (k + 6) * 64 + worker;
      {
        const float tile_e17 = precise::exp(cache_X[(k + 6)] - m);
        cache_X[(k + 6)] = tile_e17;
        acc_s_6 = acc_s_6 + tile_e17;
      }
    }
    {
      const int r = (k + 7) * 64 + worker;
      {
        const float tile_e18 = precise::exp(cache_X[(k + 7)] - m);
        cache_X[(k + 7)] = tile_e18;
        acc_s_7 = acc_s_7 + tile_e18;
      }
    }
  }
  const float acc_s = ((((((acc_s_0 + acc_s_1) + acc_s_2) + acc_s_3) + acc_s_4) + acc_s_5) + acc_s_6) + acc_s_7;
  // stage 2: the 4 workers of each program in this SIMD group combined across lanes (xor of
  // multiples of P keeps the program), then one partial per SIMD group and program to
  // threadgroup memory (slot sg * P + program)
  float tile_p21 = acc_s;
  tile_p21 = tile_p21 + simd_shuffle_xor(tile_p21, ushort(8));
  tile_p21 = tile_p21 + simd_shuffle_xor(tile_p21, ushort(16));
  if (lane < 8u) { tg1[int(sg) * 8 + program_in_group] = tile_p21; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  // stage 3: each worker combines its program's 16 partials, in SIMD-group order
  float tile_c19 = tg1[program_in_group];
  for (int tile_w20 = 1; tile_w20 < 16; ++tile_w20) { tile_c19 = tile_c19 + tg1[tile_w20 * 8 + program_in_group]; }
  const float s = tile_c19;
  // parallel loop over r: distributed over the program's workers
  for (int k = 0; k < 64; k += 8) {
    {
      const int r = k * 64 + worker;
      if (live) { Y[r * 4096 + c] = cache_X[k] / s; }
    }
    {
      const int r = (k + 1) * 64 + worker;
      if (live) { Y[r * 4096 + c] = cache_X[(k + 1)] / s; }
    }
    {
      const int r = (k + 2) * 64 + worker;
      if (live) { Y[r * 4096 + c] = cache_X[(k + 2)] / s; }
    }
    {
      const int r = (k + 3) * 64 + worker;
      if (live) { Y[r * 4096 + c] = cache_X[(k + 3)] / s; }
    }
    {
      const int r = (k + 4) * 64 + worker;
      if (live) { Y[r * 4096 + c] = cache_X[(k + 4)] / s; }
    }
    {
      const int r = (k + 5) * 64 + worker;
      if (live) { Y[r * 4096 + c] = cache_X[(k + 5)] / s; }
    }
    {
      const int r = (k + 6) * 64 + worker;
      if (live) { Y[r * 4096 + c] = cache_X[(k + 6)] / s; }
    }
    {
      const int r = (k + 7) * 64 + worker;
      if (live) { Y[r * 4096 + c] = cache_X[(k + 7)] / s; }
    }
  }
}
