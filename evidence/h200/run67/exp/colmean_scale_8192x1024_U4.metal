#include <metal_stdlib>
using namespace metal;

// tile: colmean_scale / cooperative-reduction / P=8 S=4 W=128 T=1024 V=1 U=4 groups=128 cached=none layout=programs-on-lanes

kernel void colmean_scale_cooperative_reduction(
    device const float* X [[buffer(0)]],
    device const float* W [[buffer(1)]],
    device float* Y [[buffer(2)]],
    uint tid [[thread_index_in_threadgroup]],
    uint group [[threadgroup_position_in_grid]],
    uint lane [[thread_index_in_simdgroup]],
    uint sg [[simdgroup_index_in_threadgroup]])
{
  // threadgroup memory, per reduce: one partial per worker of each of the P programs
  threadgroup float tg0[1024];
  // programs on lanes: P programs on neighbouring threads, W workers per program P threads apart
  const int program_in_group = int(tid) % 8;
  const int worker = int(tid) / 8;
  const int logical = int(group) * 8 + program_in_group;
  // tail replay: a slot past the last program redoes the last one and stores nothing
  const bool live = logical < 1024;
  const int c = (live ? logical : 1023);
  // stage 1: per-worker partial over its stripe
  float acc_s_0 = 0.0f;
  float acc_s_1 = 0.0f;
  float acc_s_2 = 0.0f;
  float acc_s_3 = 0.0f;
  for (int k = 0; k < 64; k += 4) {
    {
      const int r = k * 128 + worker;
      acc_s_0 = acc_s_0 + X[r * 1024 + c];
    }
    {
      const int r = (k + 1) * 128 + worker;
      acc_s_1 = acc_s_1 + X[r * 1024 + c];
    }
    {
      const int r = (k + 2) * 128 + worker;
      acc_s_2 = acc_s_2 + X[r * 1024 + c];
    }
    {
      const int r = (k + 3) * 128 + worker;
      acc_s_3 = acc_s_3 + X[r * 1024 + c];
    }
  }
  const float acc_s = ((acc_s_0 + acc_s_1) + acc_s_2) + acc_s_3;
  // stage 2: the 4 workers of each program in this SIMD group combined across lanes (xor of
  // multiples of P keeps the program), then one partial per SIMD group and program to
  // threadgroup memory (slot sg * P + program)
  float tile_p2 = acc_s;
  tile_p2 = tile_p2 + simd_shuffle_xor(tile_p2, ushort(8));
  tile_p2 = tile_p2 + simd_shuffle_xor(tile_p2, ushort(16));
  if (lane < 8u) { tg0[int(sg) * 8 + program_in_group] = tile_p2; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  // stage 3: each worker combines its program's 32 partials, in SIMD-group order
  float tile_c0 = tg0[program_in_group];
  for (int tile_w1 = 1; tile_w1 < 32; ++tile_w1) { tile_c0 = tile_c0 + tg0[tile_w1 * 8 + program_in_group]; }
  const float s = tile_c0;
  const float mu = s / 8192.0f;
  // parallel loop over r: distributed over the program's workers
  for (int k = 0; k < 64; k += 4) {
    {
      const int r = k * 128 + worker;
      if (live) { Y[r * 1024 + c] = (X[r * 1024 + c] - mu) * W[c]; }
    }
    {
      const int r = (k + 1) * 128 + worker;
      if (live) { Y[r * 1024 + c] = (X[r * 1024 + c] - mu) * W[c]; }
    }
    {
      const int r = (k + 2) * 128 + worker;
      if (live) { Y[r * 1024 + c] = (X[r * 1024 + c] - mu) * W[c]; }
    }
    {
      const int r = (k + 3) * 128 + worker;
      if (live) { Y[r * 1024 + c] = (X[r * 1024 + c] - mu) * W[c]; }
    }
  }
}
