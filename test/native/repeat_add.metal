#include <metal_stdlib>
using namespace metal;

// Accumulates, so the number of dispatches shows in the output.
kernel void repeat_add(device float* Y [[buffer(0)]], uint i [[thread_position_in_grid]])
{
  Y[i] += 1.0f;
}

// 2-D grid with uint3 positions.
kernel void grid2d(
    device uint* Y [[buffer(0)]],
    uint3 gid [[thread_position_in_grid]],
    uint3 grid [[threads_per_grid]],
    uint3 tpos [[thread_position_in_threadgroup]])
{
  Y[gid.y * grid.x + gid.x] = gid.x * 1000u + gid.y * 10u + tpos.z;
}

// Reads all 32 slots of a threadgroup array of which only 2 were written: NaN must show.
kernel void uninit_read(
    device float* Y [[buffer(0)]],
    threadgroup float* tg0 [[threadgroup(0)]],
    uint lane [[thread_index_in_simdgroup]],
    uint sg [[simdgroup_index_in_threadgroup]])
{
  if (lane == 0u) { tg0[sg] = 1.0f; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float total = simd_sum(tg0[lane]);
  if (lane == 0u && sg == 0u) { Y[0] = total; }
}

// A threadgroup array declared in the kernel body: shared by the group, reversed through it.
kernel void tg_local_reverse(
    device const float* X [[buffer(0)]],
    device float* Y [[buffer(1)]],
    uint tid [[thread_index_in_threadgroup]],
    uint gtid [[thread_position_in_grid]],
    uint ntg [[threads_per_threadgroup]])
{
  threadgroup float sh[64];
  sh[tid] = X[gtid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  Y[gtid] = sh[ntg - 1u - tid];
}
