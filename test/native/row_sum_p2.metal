#include <metal_stdlib>
using namespace metal;

// tile: row_sum / cooperative-reduction / P=2 S=1 W=32 T=64 V=1 U=1 cached=no
// Two rows per group; a slot past the last row replays row ROWS-1 and does not store.
#define ROWS 5
#define COLS 77

kernel void row_sum_p2(
    device const float* X [[buffer(0)]],
    device float* Y [[buffer(1)]],
    threadgroup float* tg0 [[threadgroup(0)]],
    uint tid [[thread_index_in_threadgroup]],
    uint group [[threadgroup_position_in_grid]],
    uint lane [[thread_index_in_simdgroup]],
    uint sg [[simdgroup_index_in_threadgroup]])
{
  const int program_in_group = int(tid) / 32;
  const int worker = int(tid) % 32;
  const int logical = int(group) * 2 + program_in_group;
  const bool live = logical < ROWS;
  const int row = live ? logical : ROWS - 1;   // tail replay
  // stage 1: per-worker partial over its stripe
  float acc = 0.0f;
  for (int c = worker; c < COLS; c += 32) { acc += X[row * COLS + c]; }
  // stage 2: one partial per SIMD group to threadgroup memory
  float part = simd_sum(acc);
  if (lane == 0u) { tg0[sg] = part; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  // stage 3: second collective over the program's S=1 partials
  const int base = program_in_group * 1;
  float total = simd_sum(lane < 1u ? tg0[base + lane] : 0.0f);
  if (live && worker == 0) { Y[row] = total; }
}
