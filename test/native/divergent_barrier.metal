#include <metal_stdlib>
using namespace metal;

// A barrier under a condition that splits the group: Metal leaves this undefined (hangs).
kernel void divergent_barrier(
    device float* Y [[buffer(0)]],
    threadgroup float* tg0 [[threadgroup(0)]],
    uint tid [[thread_index_in_threadgroup]])
{
  tg0[tid] = float(tid);
  if (tid < 32u) {
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  Y[tid] = tg0[63u - tid];
}
