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
struct Detector;  // detector.cpp

} // namespace tile_host

struct tile_device {
  int refs = 1;
  std::string name;
  std::string error;
  std::string cxx;       // compiler command (TILE_CXX, default g++ / clang++)
  std::string cache_dir; // where sources and kernel units are cached
  int compiler_invocations = 0;
  bool pch_failed = false; // the shim's precompile failed once: units read its text (compile.cpp)
  double t_start = 0, t_end = 0;
  tile_host::Scheduler *sched = nullptr;
  tile_host::Detector *det = nullptr;
  bool detect = true; // tile_set_detector: later compiles are instrumented
};

struct tile_library {
  int refs = 1;
  tile_device *dev = nullptr;
  void *dl = nullptr;
  std::string key; // source hash
  std::string prefix; // entry symbols are tile_entry_<prefix><name> (a unit of tile_prefetch: "b<i>_")
  std::vector<tile_host::KernelSig> kernels;
  bool rendezvous = false; // the source names a barrier or a simd_* collective
  bool detect = false;     // compiled with the race and bounds detector (instrument.cpp)
  size_t stack_bytes = 0;  // stack the unit's functions may need together (g++ -fstack-usage); 0 unknown
};

struct tile_pipeline {
  tile_library *lib = nullptr;
  const tile_host::KernelSig *sig = nullptr;
  tile_host::EntryFn entry = nullptr;
  int max_threads = TILE_MAX_THREADS_PER_GROUP; // this pipeline's limit (see pipeline_thread_limit)
  const unsigned *elem_sizes = nullptr; // detector: bytes per element of each parameter (sig order)
};

struct tile_buffer {
  tile_device *dev = nullptr;
  unsigned char *alloc = nullptr; // [redzone | data | redzone]
  unsigned char *data = nullptr;
  size_t size = 0;
  size_t bind_offset = 0;
  void *shadow = nullptr; // detector: one 32-byte cell per granule (mmap), made on first use
  size_t shadow_bytes = 0;
  unsigned shadow_shift = 2; // granule of the shadow: 1 << shadow_shift bytes (4, or 2 / 1 for 16- / 8-bit elements)
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
std::string builtin_argument(const KernelParam &p); // trampoline argument of a builtin parameter
int compile_library(tile_device *dev, const char *src, tile_library **out);
int prefetch_libraries(tile_device *dev, const char *const *srcs, int n);
std::string default_cache_dir();
std::string default_compiler();

// instrument.cpp (the detector's rewrite of the MSL text and its trampolines)
std::string instrument_body(const std::string &src, const std::string &clean, const std::string &body);
std::string detect_trampoline(const KernelSig &k);

// detector.cpp
Detector *detector_new();
void detector_free(Detector *d);
void detector_table(tile_rt_table *t);
void buffer_shadow_free(tile_buffer *b);
int detector_begin(Detector *d, const KernelSig &k, const unsigned *elem_sizes, tile_buffer **bufs, int n_buffers,
                   void *const *tg, const std::vector<size_t> &tg_bytes, const unsigned groups[3], unsigned n,
                   std::string *msg);
void detector_end(Detector *d);
const tile_region *const *detector_regions(Detector *d);
void detector_dispatch(Detector *d);
void detector_group(Detector *d, unsigned linear);
void detector_thread(Detector *d, unsigned index);
void detector_barrier(Detector *d, int mem_flags);
int detector_status(const Detector *d);
const std::string &detector_message(const Detector *d);

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
  size_t stack_bytes = 0; // the unit's stack need (0: unknown)
  // detector (null: off). run_grid calls detector_begin with the threadgroup allocations.
  Detector *det = nullptr;
  tile_buffer **bufs = nullptr;
  int n_buffers = 0;
  const unsigned *elem_sizes = nullptr;
};
// Runs the grid; returns TILE_OK or an error code with *msg set.
int run_grid(Scheduler *s, const Launch &L, std::string *msg);

std::string format_ranges(const std::vector<int> &ids);

// intdiv.cpp: while one is alive, an integer division by zero or INT_MIN / -1 in kernel code does
// not trap (x86-64 Linux: a SIGFPE handler completes it with arm64's values; elsewhere nothing
// traps). Held around every dispatch.
struct IntDivGuard {
  IntDivGuard();
  ~IntDivGuard();
  IntDivGuard(const IntDivGuard &) = delete;
  IntDivGuard &operator=(const IntDivGuard &) = delete;
};

} // namespace tile_host
