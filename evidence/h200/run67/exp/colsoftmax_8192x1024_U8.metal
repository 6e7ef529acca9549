#include <metal_stdlib>
using namespace metal;

// tile: colsoftmax / cooperative-reduction / P=8 S=4 W=128 T=1024 V=1 U=8 groups=128 cached=none layout=programs-on-lanes

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
  threadgroup float tg0[1024];
  threadgroup float tg1[1024];
  // programs on lanes: P programs on neighbouring threads, W workers per program P threads apart
  const int program_in_group = int(tid) % 8;
  const int worker = int(tid) / 8;
  const int logical = int(group) * 8 + program_in_group;
  // tail replay: a slot past the last program redoes the last one and stores nothing
  const bool live = logical < 1024;
  const int c = (live ? logical : 1023);
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
      const int r = k * 128 + worker;
      {
        const float tile_e0 = X[r * 1024 + c];
        acc_m_0 = max(acc_m_0, tile_e0);
        tile_nan_m_0 = max(tile_nan_m_0, as_type<uint>(tile_e0) & 0x7fffffffu);
      }
    }
    {
      const int r = (k + 1) * 128 + worker;
      {
        const float tile_e1 = X[r * 1024 + c];
        acc_m_1 = max(acc_m_1, tile_e1);
        tile_nan_m_1 = max(tile_nan_m_1, as_type<uint>(tile_e1) & 0x7fffffffu);
      }
    }
    {
      const int r = (k + 2) * 128 + worker;
      {
        const float tile_e2 = X[r * 1024 + c];
        acc_m_2 = max(acc_m_2, tile_e2);
        tile_nan_m_2 = max(tile_nan_m_2, as_type<uint>(tile_e2) & 0x7fffffffu);
      }
    }
    {
      const int r = (k + 3) * 128 + worker;
      {
        const float tile_e3 = X[r * 1024 + c];
        acc_m_3 = max(acc_m_3, tile_e3);
        tile_nan_m_3 = max(tile_nan_m_3, as_type<uint>(tile_e3) & 0x7fffffffu);
      }
    }
    {
      const int r = (k + 4) * 128 + worker;
      {
        const float tile_e4 = X[r * 1024 + c];
        acc_m_4 = max(acc_m_4, tile_e4);
        tile_nan_m_4 = max(tile_nan_m_4, as_type<uint>(tile_e4) & 0x7fffffffu);
      }
    }
    {
      const int r = (k + 5) * 128 + worker;
      {
        const float tile_e5 = X[r * 1024 + c];
        acc_m_5 = max(acc_m_5, tile_e5);
        tile_nan_m_5 = max(tile_nan_m_5, as_type<uint>(tile_e5) & 0x7fffffffu);
      }
    }
    {
      const int r = (k + 6) * 128 + worker;
      {
        const float tile_e6 = X[r * 1024 + c];
        acc_m_6 = max(acc_m_6, tile_e6);
        tile_nan_m_6 = max(tile_nan_m_6, as_type<uint>(tile_e6) & 0x7fffffffu);
      }
    }
    {
      const int r = (k + 7) * 128 + worker;
      {
        const float tile_e7 = X[r * 1024 + c];
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
  // stage 3: each worker combines its program's 32 partials, in SIMD-group order
  float tile_c8 = tg0[program_in_group];
  for (int tile_w9 = 1; tile_w9 < 32; ++tile_w9) { tile_c8 = tile_max(tile_c8, tg0[tile_w9 * 8 + program_in_group]); }
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
  for (int k = 0; k < 64; k += 8) {
    {
      const int r = k * 128 + worker;
      acc_s_0 = acc_s_0 + precise::exp(X[r * 1024 + c] - m);
    }
    {
      const int r = (k + 1) * 128 + worker;
      acc_s_1 = acc_s_1 + precise::exp(X[r * 1024 + c] - m);
    }
    {
      const int r = (k + 2) * 128 + worker;
      acc_s_2 = acc_s_2 + precise::exp(X[r * 1024 + c] - m);
    }
    {
      const int r = (k + 3) * 128 + worker;
      acc_s_3 = acc_s_3 + precise::exp(X[r * 1024 + c] - m);
    }
    {
      const int r = (k + 4) * 128 + worker;
      acc_s_4 = acc_s_4 + precise::exp(X[r * 1024 + c] - m);
    }
    {
      const int r = (k + 5) * 128 + worker;
      acc_s_5 = acc_s_5 + precise::exp(X[r * 1024 + c] - m);
    }
    {
      const int r = (k + 6) * 128 + worker;
      acc_s_6 = acc_s_6 + precise::exp(X[r * 1024 + c] - m);
    }
    {
      const int r = (k + 7) * 128 + worker;
      acc_s_7 = acc_s_7 + precise::exp(X[r * 1024 + c] - m);
    }
  }
  const float acc_s = ((((((acc_s_0 + acc_s_1) + acc_s_2) + acc_s_3) + acc_s_4) + acc_s_5) + acc_s_6) + acc_s_7;
  // stage 2: the 4 workers of each program in this SIMD group combined across lanes (xor of
  // multiples of P keeps the program), then one partial per SIMD group and program to
  // threadgroup memory (slot sg * P + program)
  float tile_p13 = acc_s;
  tile_p13 = tile_p13 + simd_shuffle_xor(tile_p13, ushort(8));
  tile_p13 = tile_p13 + simd_shuffle_xor(tile_p13, ushort(16));
  if (lane < 8u) { tg1[int(sg) * 8 + program_in_group] = tile_p13; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  // stage 3: each worker combines its program's 32 partials, in SIMD-group order
  float tile_c11 = tg1[program_in_group];
  for (int tile_w12 = 1; tile_w12 < 32; ++tile_w12) { tile_c11 = tile_c11 + tg1[tile_w12 * 8 + program_in_group]; }
  const float s = tile_c11;
  // parallel loop over r: distributed over the program's workers
  for (int k = 0; k < 64; k += 8) {
    {
      const int r = k * 128 + worker;
      if (live) { Y[r * 1024 + c] = precise::exp(X[r * 1024 + c] - m) / s; }
    }
    {
      const int r = (k + 1) * 128 + worker;
      if (live) { Y[r * 1024 + c] = precise::exp(X[r * 1024 + c] - m) / s; }
    }
    {
      const int r = (k + 2) * 128 + worker;
      if (live) { Y[r * 1024 + c] = precise::exp(X[r * 1024 + c] - m) / s; }
    }
    {
      const int r = (k + 3) * 128 + worker;
      if (live) { Y[r * 1024 + c] = precise::exp(X[r * 1024 + c] - m) / s; }
    }
    {
      const int r = (k + 4) * 128 + worker;
      if (live) { Y[r * 1024 + c] = precise::exp(X[r * 1024 + c] - m) / s; }
    }
    {
      const int r = (k + 5) * 128 + worker;
      if (live) { Y[r * 1024 + c] = precise::exp(X[r * 1024 + c] - m) / s; }
    }
    {
      const int r = (k + 6) * 128 + worker;
      if (live) { Y[r * 1024 + c] = precise::exp(X[r * 1024 + c] - m) / s; }
    }
    {
      const int r = (k + 7) * 128 + worker;
      if (live) { Y[r * 1024 + c] = precise::exp(X[r * 1024 + c] - m) / s; }
    }
  }
}
