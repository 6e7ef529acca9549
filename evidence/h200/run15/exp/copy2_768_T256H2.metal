#include <metal_stdlib>
using namespace metal;

// tile: hand pair/copy outs=2 op=copy T=256 H=2 loads_first=1 groups=2304
kernel void pair_hand(device const float* X [[buffer(0)]], device float* S [[buffer(1)]], device float* D [[buffer(2)]], uint tid [[thread_index_in_threadgroup]], uint group [[threadgroup_position_in_grid]])
{
  const int row = int(group) / 3; const int col0 = (int(group) % 3) * 2048;
  packed_float4 x[2];
  for (int h = 0; h < 2; ++h) x[h] = *((device const packed_float4*)(&X[row * 6144 + col0 + (h * 256 + int(tid)) * 4]));
  for (int h = 0; h < 2; ++h) { const int col = col0 + (h * 256 + int(tid)) * 4; const packed_float4 xh = x[h];
    packed_float4 ys; packed_float4 yd;
    for (int j = 0; j < 4; ++j) {
      ys[j] = xh[j];
      yd[j] = xh[j];
    }
    *((device packed_float4*)(&S[row * 6144 + col])) = ys;
    *((device packed_float4*)(&D[row * 6144 + col])) = yd;
  }
}
