#include <metal_stdlib>
using namespace metal;

// float4 loads, componentwise arithmetic, constructors, swizzle-free component access.
kernel void vec4_scale(
    device const float4* X [[buffer(0)]],
    device float4* Y [[buffer(1)]],
    device float* D [[buffer(2)]],
    uint i [[thread_position_in_grid]])
{
  float4 x = X[i];
  float4 w = float4(1.0f, 2.0f, 3.0f, 4.0f);
  float2 lo = float2(x.x, x.y);
  float4 y = x * w + float4(0.5f) - float4(lo, lo) / 2.0f;
  y.w = max(y.w, 0.0f);
  Y[i] = y;
  D[i] = dot(x, w) + (x.x + x.y + x.z + x.w);
}
