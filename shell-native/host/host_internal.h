// host_internal.h: what the three parts of the host runtime share.
//   runtime.cpp   the C ABI (devices, buffers, pipelines, dispatch checks, times)
//   compile.cpp   MSL checks, kernel signatures, trampolines, the g++ cache, dlopen
//   scheduler.cpp threads of a group as cooperative fibers; barriers and SIMD collectives
#pragma once

#include <string>
#include <vector>

#include "../tile_native.h"
#include "kernel_abi.h"
#include "../common/msl_signature.h"

namespace tile_host {

// The kernel signature as read from the MSL text (shared with the CUDA runtime).
using tile_msl::KernelParam;
using tile_msl::KernelSig;
using namespace tile_msl;

typedef void (*EntryFn)(const tile_thread *);

struct Scheduler; // scheduler.cpp

} // namespace tile_host

struct tile_device {
  int refs = 1;
  std::string name;
  std::string error;
  std::string cxx;       // compiler command (TILE_CXX, default g++ / clang++)
  std::string cache_dir; // where sources and kernel units are cached
  int compiler_invocations = 0;
  double t_start = 0, t_end = 0;
  tile_host::Scheduler *sched = nullptr;
};

struct tile_library {
  int refs = 1;
  tile_device *dev = nullptr;
  void *dl = nullptr;
  std::string key; // source hash
  std::vector<tile_host::KernelSig> kernels;
  bool rendezvous = false; // the source names a barrier or a simd_* collective
};

struct tile_pipeline {
  tile_library *lib = nullptr;
  const tile_host::KernelSig *sig = nullptr;
  tile_host::EntryFn entry = nullptr;
  int max_threads = TILE_MAX_THREADS_PER_GROUP; // this pipeline's limit (see pipeline_thread_limit)
};

struct tile_buffer {
  tile_device *dev = nullptr;
  unsigned char *alloc = nullptr; // [redzone | data | redzone]
  unsigned char *data = nullptr;
  size_t size = 0;
  size_t bind_offset = 0;
};

namespace tile_host {

// Guard bytes around every buffer; a dispatch that changes them fails with TILE_E_BOUNDS.
constexpr size_t kRedzone = 64;
constexpr unsigned char kRedzoneByte = 0xA5;

void device_retain(tile_device *dev);
void device_release(tile_device *dev);
int fail(tile_device *dev, int code, const std::string &msg);
// The threads per group a new pipeline reports and enforces: TILE_MAX_THREADS_PER_GROUP, or less
// when the test-only variable TILE_HOST_TEST_PIPELINE_MAX_THREADS holds a smaller positive
// number. Metal reports a limit per pipeline (it depends on register use); this lets tests on
// any OS exercise the shell's re-planning path.
int pipeline_thread_limit();

// compile.cpp
int compile_library(tile_device *dev, const char *src, tile_library **out);
std::string default_cache_dir();
std::string default_compiler();

// scheduler.cpp
Scheduler *scheduler_new();
void scheduler_free(Scheduler *s);
const tile_rt_table *runtime_table();
struct Launch {
  const KernelSig *sig;
  EntryFn entry;
  bool fibers;             // false: run each thread as a plain call (no rendezvous in the source)
  void *const *buffers;
  std::vector<size_t> tg_bytes; // per [[threadgroup(j)]], already rounded
  unsigned groups[3], threads[3];
  int repeat;
};
// Runs the grid; returns TILE_OK or an error code with *msg set.
int run_grid(Scheduler *s, const Launch &L, std::string *msg);

std::string format_ranges(const std::vector<int> &ids);

} // namespace tile_host
