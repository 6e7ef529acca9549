#include <metal_stdlib>
using namespace metal;
// tile: copy / P=1 T=256 V=4 groups=1024 (experiment: the same access pattern, no arithmetic)
kernel void copy_k(device const float* X [[buffer(0)]], device float* Y [[buffer(1)]],
    uint tid [[thread_index_in_threadgroup]], uint group [[threadgroup_position_in_grid]])
{
  for (int k = 0; k < 4; ++k) {
    const int v0 = (k * 256 + int(tid)) * 4;
    *((device packed_float4*)(&Y[int(group) * 4096 + v0])) = *((device const packed_float4*)(&X[int(group) * 4096 + v0]));
  }
}
