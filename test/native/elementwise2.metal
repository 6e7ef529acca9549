#include <metal_stdlib>
using namespace metal;

// tile: ew2 / fused-element / blocks of 1x256
// Two outputs over one domain: Y = exp(X) - 1, Z = X * 2 + 1.
constant int N = 1000;

kernel void ew2(
    device const float* X [[buffer(0)]],
    device float* Y [[buffer(1)]],
    device float* Z [[buffer(2)]],
    uint gtid [[thread_position_in_grid]])
{
  const int i = int(gtid);
  if (i < N) {
    float x = X[i];
    Y[i] = metal::exp(x) - 1.0f;
    Z[i] = x * 2.0f + 1.0f;
  }
}

// The same grid with a wider domain, for the 4M-thread run (no barriers: no fibers).
kernel void ew_big(
    device const float* X [[buffer(0)]],
    device float* Y [[buffer(1)]],
    uint gtid [[thread_position_in_grid]])
{
  Y[gtid] = X[gtid] * 0.5f + 1.0f;
}
