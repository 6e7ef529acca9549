#include <metal_stdlib>
using namespace metal;

// tile: colsoftmax / cooperative-reduction / P=8 S=4 W=128 T=1024 V=1 U=1 groups=64 cached=none layout=programs-on-lanes

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
  const bool live = logical < 512;
  const int c = (live ? logical : 511);
  // stage 1: per-worker partial over its stripe
  float acc_m = -INFINITY;
  // NaN noted on the bits per element (the largest |bits|), applied once after the stripe; no
  // output depends on the sign of a zero result, so the stripe does not track it
  uint tile_nan_m = 0u;
  for (int k = 0; k < 128; ++k) {
    const int r = k * 128 + worker;
    {
      const float tile_e0 = X[r * 512 + c];
      acc_m = max(acc_m, tile_e0);
      tile_nan_m = max(tile_nan_m, as_type<uint>(tile_e0) & 0x7fffffffu);
    }
  }
  if (tile_nan_m > 0x7f800000u) { acc_m = NAN; }
  // stage 2: the 4 workers of each program in this SIMD group combined across lanes (xor of
  // multiples of P keeps the program), then one partial per SIMD group and program to
  // threadgroup memory (slot sg * P + program)
  float tile_p3 = acc_m;
  tile_p3 = tile_max(tile_p3, simd_shuffle_xor(tile_p3, ushort(8)));
  tile_p3 = tile_max(tile_p3, simd_shuffle_xor(tile_p3, ushort(16)));
  if (lane < 8u) { tg0[int(sg) * 8 + program_in_group] = tile_p3; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  // stage 3: each worker combines its program's 32 partials, in SIMD-group order
  float tile_c1 = tg0[program_in_group];
  for (int tile_w2 = 1; tile_w2 < 32; ++tile_w2) { tile_c1 = tile_max(tile_c1, tg0[tile_w2 * 8 + program_in_group]); }
  const float m = tile_c1;
  // stage 1: per-worker partial over its stripe
  float acc_s = 0.0f;
  for (int k = 0; k < 128; ++k) {
    const int r = k * 128 + worker;
    acc_s = acc_s + precise::exp(X[r * 512 + c] - m);
  }
  // stage 2: the 4 workers of each program in this SIMD group combined across lanes (xor of
  // multiples of P keeps the program), then one partial per SIMD group and program to
  // threadgroup memory (slot sg * P + program)
  float tile_p6 = acc_s;
  tile_p6 = tile_p6 + simd_shuffle_xor(tile_p6, ushort(8));
  tile_p6 = tile_p6 + simd_shuffle_xor(tile_p6, ushort(16));
  if (lane < 8u) { tg1[int(sg) * 8 + program_in_group] = tile_p6; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  // stage 3: each worker combines its program's 32 partials, in SIMD-group order
  float tile_c4 = tg1[program_in_group];
  for (int tile_w5 = 1; tile_w5 < 32; ++tile_w5) { tile_c4 = tile_c4 + tg1[tile_w5 * 8 + program_in_group]; }
  const float s = tile_c4;
  // parallel loop over r: distributed over the program's workers
  for (int k = 0; k < 128; ++k) {
    const int r = k * 128 + worker;
    if (live) { Y[r * 512 + c] = precise::exp(X[r * 512 + c] - m) / s; }
  }
}
