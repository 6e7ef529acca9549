#include <metal_stdlib>
using namespace metal;

// the word double in a comment is fine
kernel void uses_double(device float* Y [[buffer(0)]], uint i [[thread_position_in_grid]])
{
  double d = 1.0;
  Y[i] = float(d);
}
