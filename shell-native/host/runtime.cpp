// runtime.cpp: the tile_native.h ABI for the host CPU runtime.
#include <dlfcn.h>
#include <time.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "host_internal.h"

using namespace tile_host;

namespace tile_host {

void device_retain(tile_device *dev) { dev->refs++; }

void device_release(tile_device *dev) {
  if (--dev->refs > 0) return;
  scheduler_free(dev->sched);
  detector_free(dev->det);
  delete dev;
}

int fail(tile_device *dev, int code, const std::string &msg) {
  if (dev) dev->error = msg;
  return code;
}

int pipeline_thread_limit() {
  const char *env = std::getenv("TILE_HOST_TEST_PIPELINE_MAX_THREADS");
  if (!env || !*env) return TILE_MAX_THREADS_PER_GROUP;
  char *end = nullptr;
  long v = std::strtol(env, &end, 10);
  if (*end != '\0' || v < 1 || v > TILE_MAX_THREADS_PER_GROUP) return TILE_MAX_THREADS_PER_GROUP;
  return (int)v;
}

} // namespace tile_host

namespace {

double now_seconds() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

bool redzone_intact(const unsigned char *p) {
  for (size_t i = 0; i < kRedzone; ++i)
    if (p[i] != kRedzoneByte) return false;
  return true;
}

} // namespace

extern "C" {

int tile_open(tile_device **out) {
  if (!out) return TILE_E_ARG;
  *out = nullptr;
  tile_device *dev = new (std::nothrow) tile_device();
  if (!dev) return TILE_E_ALLOC;
  dev->cxx = default_compiler();
  dev->name = "host-cpu (" + dev->cxx + ")";
  dev->cache_dir = default_cache_dir();
  dev->sched = scheduler_new();
  dev->det = detector_new();
  const char *env = std::getenv("TILE_DETECT");
  dev->detect = !(env && std::strcmp(env, "0") == 0);
  *out = dev;
  return TILE_OK;
}

void tile_close(tile_device *dev) {
  if (dev) device_release(dev);
}

const char *tile_device_name(tile_device *dev) { return dev ? dev->name.c_str() : ""; }
const char *tile_runtime_kind(tile_device *) { return "host"; }
const char *tile_last_error(tile_device *dev) { return dev ? dev->error.c_str() : "no device"; }
int tile_compiler_invocations(tile_device *dev) { return dev ? dev->compiler_invocations : 0; }

int tile_set_detector(tile_device *dev, int on) {
  if (!dev) return TILE_E_ARG;
  dev->detect = on != 0;
  return TILE_OK;
}

int tile_detector_enabled(tile_device *dev) { return dev && dev->detect ? 1 : 0; }

// A register limit does not apply here (g++ takes no register limit): the same as tile_compile.
int tile_compile_limited(tile_device *dev, const char *src, int max_registers, tile_library **out) {
  (void)max_registers;
  return tile_compile(dev, src, out);
}

int tile_compile(tile_device *dev, const char *src, tile_library **out) {
  if (!dev || !out) return TILE_E_ARG;
  *out = nullptr;
  if (!src) return fail(dev, TILE_E_ARG, "tile_compile: source is null");
  dev->error.clear();
  return compile_library(dev, src, out);
}

int tile_prefetch(tile_device *dev, const char *const *srcs, int n) {
  if (!dev || !srcs || n <= 0) return 0;
  return prefetch_libraries(dev, srcs, n);
}

void tile_library_free(tile_library *lib) {
  if (!lib || --lib->refs > 0) return;
  if (lib->dl) dlclose(lib->dl);
  tile_device *dev = lib->dev;
  delete lib;
  if (dev) device_release(dev);
}

int tile_pipeline(tile_library *lib, const char *entry, struct tile_pipeline **out, int *max_threads) {
  if (!lib || !out) return TILE_E_ARG;
  *out = nullptr;
  tile_device *dev = lib->dev;
  if (!entry) return fail(dev, TILE_E_ARG, "tile_pipeline: entry is null");
  const KernelSig *sig = nullptr;
  for (const KernelSig &k : lib->kernels)
    if (k.name == entry) sig = &k;
  std::string sym = std::string("tile_entry_") + lib->prefix + entry;
  EntryFn fn = sig ? (EntryFn)dlsym(lib->dl, sym.c_str()) : nullptr;
  if (!sig || !fn) {
    std::string names;
    for (const KernelSig &k : lib->kernels) names += (names.empty() ? "" : ", ") + k.name;
    return fail(dev, TILE_E_NO_ENTRY, std::string("no kernel named '") + entry + "' (have: " + names + ")");
  }
  struct tile_pipeline *p = new (std::nothrow) struct tile_pipeline();
  if (!p) return fail(dev, TILE_E_ALLOC, "out of memory");
  p->lib = lib;
  lib->refs++;
  p->sig = sig;
  p->entry = fn;
  p->max_threads = pipeline_thread_limit();
  if (max_threads) *max_threads = p->max_threads;
  if (lib->detect) p->elem_sizes = (const unsigned *)dlsym(lib->dl, (std::string("tile_sizes_") + lib->prefix + entry).c_str());
  *out = p;
  return TILE_OK;
}

void tile_pipeline_free(struct tile_pipeline *p) {
  if (!p) return;
  tile_library_free(p->lib);
  delete p;
}

int tile_buffer_new(tile_device *dev, size_t bytes, tile_buffer **out) {
  if (!dev || !out) return TILE_E_ARG;
  *out = nullptr;
  if (bytes == 0) return fail(dev, TILE_E_ARG, "tile_buffer_new: size is 0");
  if (bytes > ((size_t)1 << 40)) return fail(dev, TILE_E_ARG, "tile_buffer_new: size too large");
  size_t total = (bytes + 2 * kRedzone + 63) & ~(size_t)63;
  unsigned char *mem = (unsigned char *)std::aligned_alloc(64, total);
  if (!mem) return fail(dev, TILE_E_ALLOC, "tile_buffer_new: out of memory");
  tile_buffer *b = new (std::nothrow) tile_buffer();
  if (!b) {
    std::free(mem);
    return fail(dev, TILE_E_ALLOC, "tile_buffer_new: out of memory");
  }
  std::memset(mem, kRedzoneByte, total);
  b->alloc = mem;
  b->data = mem + kRedzone;
  std::memset(b->data, 0, bytes);
  b->size = bytes;
  b->dev = dev;
  device_retain(dev);
  *out = b;
  return TILE_OK;
}

int tile_buffer_write(tile_buffer *b, size_t offset, const void *src, size_t len) {
  if (!b) return TILE_E_ARG;
  if ((len && !src) || offset > b->size || len > b->size - offset)
    return fail(b->dev, TILE_E_BOUNDS, "tile_buffer_write: range [" + std::to_string(offset) + ", " +
                                           std::to_string(offset + len) + ") outside buffer of " +
                                           std::to_string(b->size) + " bytes");
  if (len) std::memcpy(b->data + offset, src, len);
  return TILE_OK;
}

int tile_buffer_read(tile_buffer *b, size_t offset, void *dst, size_t len) {
  if (!b) return TILE_E_ARG;
  if ((len && !dst) || offset > b->size || len > b->size - offset)
    return fail(b->dev, TILE_E_BOUNDS, "tile_buffer_read: range [" + std::to_string(offset) + ", " +
                                           std::to_string(offset + len) + ") outside buffer of " +
                                           std::to_string(b->size) + " bytes");
  if (len) std::memcpy(dst, b->data + offset, len);
  return TILE_OK;
}

size_t tile_buffer_size(tile_buffer *b) { return b ? b->size : 0; }

int tile_buffer_bind_offset(tile_buffer *b, size_t offset) {
  if (!b) return TILE_E_ARG;
  if (offset > b->size || offset % 4 != 0) return fail(b->dev, TILE_E_ARG, "bind offset must be a multiple of 4 within the buffer");
  b->bind_offset = offset;
  return TILE_OK;
}

void tile_buffer_free(tile_buffer *b) {
  if (!b) return;
  buffer_shadow_free(b);
  std::free(b->alloc);
  tile_device *dev = b->dev;
  delete b;
  device_release(dev);
}

int tile_dispatch(struct tile_pipeline *p, tile_buffer **buffers, int n_buffers, const int *tg_bytes,
                  int n_tg, int gx, int gy, int gz, int tx, int ty, int tz, int repeat) {
  if (!p) return TILE_E_ARG;
  tile_device *dev = p->lib->dev;
  const KernelSig &k = *p->sig;
  const std::string who = "dispatch of '" + k.name + "': ";
  if (n_buffers < 0 || n_buffers > TILE_MAX_BUFFERS || (n_buffers && !buffers))
    return fail(dev, TILE_E_ARG, who + "bad buffer list");
  if (n_tg < 0 || n_tg > TILE_MAX_THREADGROUP_BINDINGS || (n_tg && !tg_bytes))
    return fail(dev, TILE_E_ARG, who + "bad threadgroup memory list");
  if (gx < 1 || gy < 1 || gz < 1 || tx < 1 || ty < 1 || tz < 1 || repeat < 1)
    return fail(dev, TILE_E_ARG, who + "groups, threads and repeat must be >= 1");
  long long threads = (long long)tx * ty * tz;
  if (threads > p->max_threads)
    return fail(dev, TILE_E_DISPATCH, who + std::to_string(threads) + " threads per group exceed the pipeline's limit of " +
                                          std::to_string(p->max_threads));
  std::vector<void *> bufs(TILE_MAX_BUFFERS, nullptr);
  for (int i = 0; i < n_buffers; ++i) bufs[i] = buffers[i] ? buffers[i]->data + buffers[i]->bind_offset : nullptr;
  for (const KernelParam &prm : k.params)
    if (prm.kind == KernelParam::Buffer && (prm.index >= n_buffers || !bufs[prm.index]))
      return fail(dev, TILE_E_ARG, who + "[[buffer(" + std::to_string(prm.index) + ")]] (" + prm.name + ") is not bound");
  Launch L;
  L.sig = &k;
  L.entry = p->entry;
  L.fibers = p->lib->rendezvous;
  L.buffers = bufs.data();
  size_t total_tg = 0;
  for (int j = 0; j < n_tg; ++j) {
    if (tg_bytes[j] < 0) return fail(dev, TILE_E_ARG, who + "negative threadgroup memory length");
    size_t r = ((size_t)tg_bytes[j] + TILE_THREADGROUP_MEMORY_ALIGN - 1) & ~(size_t)(TILE_THREADGROUP_MEMORY_ALIGN - 1);
    L.tg_bytes.push_back(r);
    total_tg += r;
  }
  for (const KernelParam &prm : k.params)
    if (prm.kind == KernelParam::Threadgroup && (prm.index >= n_tg || L.tg_bytes[prm.index] == 0))
      return fail(dev, TILE_E_ARG, who + "[[threadgroup(" + std::to_string(prm.index) + ")]] (" + prm.name + ") has no memory");
  if (total_tg > TILE_MAX_THREADGROUP_MEMORY)
    return fail(dev, TILE_E_DISPATCH, who + std::to_string(total_tg) + " bytes of threadgroup memory exceed the limit of " +
                                          std::to_string(TILE_MAX_THREADGROUP_MEMORY));
  L.groups[0] = gx, L.groups[1] = gy, L.groups[2] = gz;
  L.threads[0] = tx, L.threads[1] = ty, L.threads[2] = tz;
  L.repeat = repeat;
  L.stack_bytes = p->lib->stack_bytes;
  if (p->lib->detect) {
    L.det = dev->det;
    L.bufs = buffers;
    L.n_buffers = n_buffers;
    L.elem_sizes = p->elem_sizes;
  }

  std::string msg;
  double t0 = now_seconds();
  int rc;
  {
    IntDivGuard no_trap; // Metal: integer division never traps (intdiv.cpp)
    rc = run_grid(dev->sched, L, &msg);
  }
  double t1 = now_seconds();
  // Host-only check: writes just outside a buffer land in its redzone.
  for (int i = 0; i < n_buffers; ++i) {
    tile_buffer *b = buffers[i];
    if (!b) continue;
    bool before = redzone_intact(b->alloc), after = redzone_intact(b->data + b->size);
    if (before && after) continue;
    std::memset(b->alloc, kRedzoneByte, kRedzone);
    std::memset(b->data + b->size, kRedzoneByte, kRedzone);
    if (rc == TILE_OK) {
      rc = TILE_E_BOUNDS;
      msg = "kernel '" + k.name + "' wrote " + (after ? "before the start" : "past the end") + " of [[buffer(" +
            std::to_string(i) + ")]] (" + std::to_string(b->size) + " bytes)";
    }
  }
  if (rc != TILE_OK) return fail(dev, rc, msg);
  dev->t_start = t0;
  dev->t_end = t1;
  dev->error.clear();
  return TILE_OK;
}

int tile_last_times(tile_device *dev, double *start_s, double *end_s) {
  if (!dev || !start_s || !end_s) return TILE_E_ARG;
  *start_s = dev->t_start;
  *end_s = dev->t_end;
  return TILE_OK;
}

int tile_times_are_gpu(tile_device *) { return 0; }

} // extern "C"
