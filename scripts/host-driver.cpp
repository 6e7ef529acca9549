// A standalone driver of the host runtime (shell-native/tile_native.h) for leak checking:
// open -> compile -> pipeline -> buffers -> dispatch -> read -> free, in a loop, plus the error
// paths (a source that does not compile, an unknown entry, a dispatch with bad arguments, an
// out-of-range buffer access). Built by scripts/valgrind-host.sh with ASan/LSan and run under
// valgrind. Exit status: 0 when every call returned what it should.
#include "../shell-native/tile_native.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

static int failures = 0;
#define CHECK(cond, what)                                                  \
  do {                                                                     \
    if (!(cond)) {                                                         \
      std::fprintf(stderr, "driver: FAILED %s (line %d)\n", what, __LINE__); \
      failures++;                                                          \
    }                                                                      \
  } while (0)

// row sums of a ROWS x cols matrix; `variant` changes the source text (a new compile)
static std::string row_sum_source(int variant) {
  return "#include <metal_stdlib>\nusing namespace metal;\n"
         "// variant " + std::to_string(variant) + "\n"
         "static inline float twice(float x) { return x + x; }\n"
         "kernel void row_sum(device const float* X [[buffer(0)]], device float* Y [[buffer(1)]],\n"
         "    threadgroup float* tg0 [[threadgroup(0)]], uint tid [[thread_index_in_threadgroup]],\n"
         "    uint group [[threadgroup_position_in_grid]], uint lane [[thread_index_in_simdgroup]],\n"
         "    uint sg [[simdgroup_index_in_threadgroup]]) {\n"
         "  const int cols = 100;\n"
         "  float acc = 0.0f;\n"
         "  for (int c = int(tid); c < cols; c += 64) { acc += X[int(group) * cols + c]; }\n"
         "  float part = simd_sum(acc);\n"
         "  if (lane == 0u) { tg0[sg] = part; }\n"
         "  threadgroup_barrier(mem_flags::mem_threadgroup);\n"
         "  float total = simd_sum(lane < 2u ? tg0[lane] : 0.0f);\n"
         "  if (tid == 0u) { Y[int(group)] = twice(total) * 0.5f; }\n"
         "}\n"
         "kernel void scale(device float* Y [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
         "  Y[i] = Y[i] * 2.0f;\n"
         "}\n";
}

int main(int argc, char **argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  const int rows = 7, cols = 100;
  for (int round = 0; round < rounds; round++) {
    tile_device *dev = nullptr;
    CHECK(tile_open(&dev) == 0 && dev, "open");
    if (!dev) return 1;
    tile_library *lib = nullptr;
    // two distinct sources: the first rounds invoke g++, later ones hit the cache
    CHECK(tile_compile(dev, row_sum_source(round % 2).c_str(), &lib) == 0, "compile");
    if (!lib) { std::fprintf(stderr, "%s\n", tile_last_error(dev)); return 1; }
    struct tile_pipeline *pipe = nullptr, *pipe2 = nullptr;
    int max_threads = 0;
    CHECK(tile_pipeline(lib, "row_sum", &pipe, &max_threads) == 0, "pipeline");
    CHECK(tile_pipeline(lib, "scale", &pipe2, &max_threads) == 0, "pipeline 2");
    std::vector<float> x(rows * cols), y(rows + 32, 0.0f);
    for (int i = 0; i < rows * cols; i++) x[i] = float(i % 13) - 6.0f;
    tile_buffer *bx = nullptr, *by = nullptr;
    CHECK(tile_buffer_new(dev, x.size() * 4, &bx) == 0, "buffer x");
    CHECK(tile_buffer_new(dev, y.size() * 4, &by) == 0, "buffer y");
    CHECK(tile_buffer_write(bx, 0, x.data(), x.size() * 4) == 0, "write");
    CHECK(tile_buffer_bind_offset(by, 16 * 4) == 0, "bind offset");
    tile_buffer *bufs[2] = {bx, by};
    const int tg[1] = {8};
    CHECK(tile_dispatch(pipe, bufs, 2, tg, 1, rows, 1, 1, 64, 1, 1, 3) == 0, "dispatch");
    tile_buffer *one[1] = {by};
    CHECK(tile_dispatch(pipe2, one, 1, nullptr, 0, 1, 1, 1, rows, 1, 1, 1) == 0, "dispatch 2");
    CHECK(tile_buffer_read(by, 0, y.data(), y.size() * 4) == 0, "read");
    for (int r = 0; r < rows; r++) {
      double want = 0;
      for (int c = 0; c < cols; c++) want += x[r * cols + c];
      CHECK(std::fabs(y[16 + r] - 2.0 * want) < 1e-3, "row sum value");
    }
    double s = 0, e = 0;
    CHECK(tile_last_times(dev, &s, &e) == 0, "times");
    // error paths: each must fail cleanly, without leaking
    tile_library *bad = nullptr;
    CHECK(tile_compile(dev, "kernel void broken(device float* Y [[buffer(0)]]) { Y[0] = undeclared; }", &bad) != 0, "bad source fails");
    CHECK(std::string(tile_last_error(dev)).size() > 0, "bad source has a log");
    struct tile_pipeline *none = nullptr;
    CHECK(tile_pipeline(lib, "no_such_kernel", &none, &max_threads) != 0, "unknown entry fails");
    CHECK(tile_dispatch(pipe, bufs, 1, tg, 1, rows, 1, 1, 64, 1, 1, 1) != 0, "too few buffers fails");
    CHECK(tile_dispatch(pipe, bufs, 2, tg, 1, rows, 1, 1, 4096, 1, 1, 1) != 0, "too many threads fails");
    CHECK(tile_buffer_read(bx, x.size() * 4 - 4, y.data(), 8) != 0, "read past the end fails");
    CHECK(tile_buffer_write(bx, 1u << 30, x.data(), 4) != 0, "write past the end fails");
    tile_buffer_free(bx);
    tile_buffer_free(by);
    tile_pipeline_free(pipe);
    tile_pipeline_free(pipe2);
    tile_library_free(lib);
    tile_close(dev);
  }
  std::printf("driver: %d rounds, %d failures\n", rounds, failures);
  return failures ? 1 : 0;
}
