#include <metal_stdlib>
using namespace metal;

// tile: gelu_pair / fused-elementwise / T=256 V=8 block=256 blocksPerRow=3 rows=768 cols=6144 groups=2304

kernel void gelu_pair_fused_elementwise(
    device const float* X [[buffer(0)]],
    device float* G [[buffer(1)]],
    device float* D [[buffer(2)]],
    uint tid [[thread_index_in_threadgroup]],
    uint group [[threadgroup_position_in_grid]])
{
  // one thread per element of the domain, blocks of 256 along the innermost loop
  const int row = int(group) / 3;
  // V = 8 columns per thread: vectors of 4, neighbouring threads on neighbouring vectors
  const int col0 = (int(group) % 3) * 2048;
  for (int tile_h = 0; tile_h < 2; ++tile_h) {
    const int col = col0 + (tile_h * 256 + int(tid)) * 4;
    // ragged edge: vectors past the last column have no element (no barrier in this kernel)
    if (col >= 6144) break;
    {
      const int r = row;
      {
        const packed_float4 tile_x0 = *((device const packed_float4*)(&X[r * 6144 + col]));
        packed_float4 tile_y1;
        packed_float4 tile_y2;
        for (int j = 0; j < 4; ++j) {
          const int c = col + j;
          const float x = tile_x0[j];
          const float u = 0.7978846f * (x + (0.044715f * (x * (x * x))));
          const float t = precise::tanh(u);
          tile_y1[j] = (0.5f * x) * (1.0f + t);
          tile_y2[j] = (0.5f * (1.0f + t)) + (((0.5f * x) * (1.0f - (t * t))) * (0.7978846f * (1.0f + (3.0f * (0.044715f * (x * x))))));
        }
        *((device packed_float4*)(&G[r * 6144 + col])) = tile_y1;
        *((device packed_float4*)(&D[r * 6144 + col])) = tile_y2;
      }
    }
  }
}
