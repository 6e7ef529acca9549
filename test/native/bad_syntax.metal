#include <metal_stdlib>
using namespace metal;

kernel void broken(device float* Y [[buffer(0)]], uint i [[thread_position_in_grid]])
{
  Y[i] = 1.0f +;
}
