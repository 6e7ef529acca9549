// Runs a barrier- and simd-heavy kernel (1024 fibers a group, 4 rounds of two barriers) and a
// divergent barrier through the host runtime ABI; prints OK when both behave (test/fiber-arm64.test.ts).
#include <cstdio>
#include <cstring>
#include <cmath>
#include <vector>
#include "tile_native.h"
static const char *src = R"(#include <metal_stdlib>
using namespace metal;
kernel void k(device const float* X [[buffer(0)]], device float* Y [[buffer(1)]],
    threadgroup float* tg [[threadgroup(0)]],
    uint tid [[thread_index_in_threadgroup]], uint group [[threadgroup_position_in_grid]],
    uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]],
    uint nsg [[simdgroups_per_threadgroup]])
{
  float acc = 0.0f;
  for (int c = int(tid); c < 3000; c += 1024) { acc += X[int(group) * 3000 + c]; }
  for (int round = 0; round < 4; ++round) {
    float part = simd_sum(acc);
    if (lane == 0u) { tg[sg] = part; }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float total = simd_sum(lane < nsg ? tg[lane] : 0.0f);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    acc = (tid == 0u) ? total : 0.0f;
  }
  if (tid == 0u) { Y[group] = acc; }
}
)";
int main() {
  tile_device *d; if (tile_open(&d)) { puts("open failed"); return 1; }
  tile_library *L; if (tile_compile(d, src, &L)) { printf("compile: %s\n", tile_last_error(d)); return 1; }
  struct tile_pipeline *P; int mx; if (tile_pipeline(L, "k", &P, &mx)) { printf("pipe: %s\n", tile_last_error(d)); return 1; }
  const int rows = 7; std::vector<float> x(rows * 3000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float((i * 37) % 101) / 10.0f - 5.0f;
  tile_buffer *X, *Y; tile_buffer_new(d, x.size() * 4, &X); tile_buffer_new(d, rows * 4, &Y);
  tile_buffer_write(X, 0, x.data(), x.size() * 4);
  tile_buffer *bufs[2] = {X, Y}; int tgb = 32 * 4;
  if (tile_dispatch(P, bufs, 2, &tgb, 1, rows, 1, 1, 1024, 1, 1, 3)) { printf("dispatch: %s\n", tile_last_error(d)); return 1; }
  float y[rows]; tile_buffer_read(Y, 0, y, sizeof y);
  int bad = 0;
  for (int r = 0; r < rows; ++r) { double ref = 0; for (int c = 0; c < 3000; ++c) ref += x[r * 3000 + c];
    printf("row %d: %.4f ref %.4f\n", r, y[r], ref); if (std::fabs(y[r] - ref) > 1e-2) bad++; }
  // a divergent barrier must be reported, not hang or crash
  const char *div = R"(#include <metal_stdlib>
using namespace metal;
kernel void k2(device float* Y [[buffer(0)]], uint tid [[thread_index_in_threadgroup]]) {
  if (tid < 32u) { threadgroup_barrier(mem_flags::mem_threadgroup); }
  Y[tid] = 1.0f;
}
)";
  tile_library *L2; struct tile_pipeline *P2; tile_compile(d, div, &L2); tile_pipeline(L2, "k2", &P2, &mx);
  tile_buffer *Z; tile_buffer_new(d, 64 * 4, &Z);
  int rc = tile_dispatch(P2, &Z, 1, nullptr, 0, 2, 1, 1, 64, 1, 1, 1);
  printf("divergent: rc %d: %s\n", rc, tile_last_error(d));
  if (rc != TILE_E_DIVERGENCE) bad++;
  puts(bad ? "FAIL" : "OK");
  return bad ? 1 : 0;
}
