/*
 * tile_native.h: the one C ABI of Tile's native runtimes.
 *
 * Two implementations export exactly these symbols:
 *   - libtile_metal (macOS): compiles MSL with Metal and dispatches on the GPU;
 *   - libtile_host  (any OS): runs the very same MSL text on the CPU (shell-native/host/).
 *
 * Conventions: every function returning int returns TILE_OK (0) or a nonzero TILE_E_* code.
 * After a failure, tile_last_error(dev) returns the message (for tile_compile: the compiler log).
 * Handles are opaque; every handle has a free function; freeing NULL is a no-op.
 * Nothing here aborts the process on bad input.
 */
#ifndef TILE_NATIVE_H
#define TILE_NATIVE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Limits shared by the compiler's device description, the host runtime and the Metal runtime. */
#define TILE_ABI_VERSION 1
#define TILE_MAX_THREADS_PER_GROUP 1024
#define TILE_SIMD_WIDTH 32
#define TILE_MAX_THREADGROUP_MEMORY 32768 /* bytes, summed over all [[threadgroup(j)]] */
#define TILE_MAX_BUFFERS 31               /* [[buffer(0..30)]] */
#define TILE_MAX_THREADGROUP_BINDINGS 31  /* [[threadgroup(0..30)]] */
#define TILE_THREADGROUP_MEMORY_ALIGN 16  /* allocation lengths are rounded up to this */

/* Status codes. */
#define TILE_OK 0
#define TILE_E_ARG 1         /* bad argument (null handle, out-of-range size, ...) */
#define TILE_E_NO_DEVICE 2   /* no device could be opened */
#define TILE_E_COMPILE 3     /* source rejected; tile_last_error holds the compiler log */
#define TILE_E_NO_ENTRY 4    /* no kernel with that name */
#define TILE_E_ALLOC 5       /* out of memory */
#define TILE_E_DISPATCH 6    /* dispatch rejected or failed (limits, command buffer error) */
#define TILE_E_DIVERGENCE 7  /* host: barrier/collective not reached by all threads/lanes */
#define TILE_E_BOUNDS 8      /* buffer access out of range (write/read API, host redzones) */
#define TILE_E_INTERNAL 9
#define TILE_E_RACE 10       /* host detector: two unordered accesses to one element, one a write */
#define TILE_E_STACK 11      /* host: a thread needs more stack (private memory) than the runtime gives */

typedef struct tile_device tile_device;
typedef struct tile_library tile_library;
/* No typedef for the pipeline: `tile_pipeline` is also the function that makes one, so the
 * type is always spelled `struct tile_pipeline`. */
struct tile_pipeline;
typedef struct tile_buffer tile_buffer;

/* Device. */
int tile_open(tile_device **out);
void tile_close(tile_device *dev);
const char *tile_device_name(tile_device *dev); /* "host-cpu (g++)" or the Metal device name */
const char *tile_runtime_kind(tile_device *dev); /* "host" or "metal" */
/* Message of the last failed call on this device; "" if none. Valid until the next call. */
const char *tile_last_error(tile_device *dev);

/* The host runtime's race and bounds detector (on by default; TILE_DETECT=0 in the environment
 * turns the default off). It applies to libraries compiled after the call: their device,
 * constant and threadgroup accesses are checked during every dispatch, and a data race or an
 * out-of-bounds access fails the dispatch (TILE_E_RACE / TILE_E_BOUNDS, message in
 * tile_last_error). The Metal runtime accepts the call and does nothing. */
int tile_set_detector(tile_device *dev, int on);
int tile_detector_enabled(tile_device *dev); /* host: 1 when later compiles are checked; Metal: 0 */

/* Compile MSL source text to a library. On TILE_E_COMPILE the log is in tile_last_error. */
int tile_compile(tile_device *dev, const char *src, tile_library **out);
/* tile_compile with a limit on the registers one thread may use (0: none). CUDA: the compiler's
 * --maxrregcount, so that the kernel stays as resident as its plan was scored (the plan's cost
 * term registerLimit); a limit below 16 is raised to 16 and one above 255 means none. Host and
 * Metal: the same as tile_compile (their compilers take no such limit). */
int tile_compile_limited(tile_device *dev, const char *src, int max_registers, tile_library **out);
/* Host runtime only: compiles the sources that tile_compile would compile (not cached) in one
 * compiler run, so that a later tile_compile of each is served from the cache; faster than one
 * run per source where many are compiled (tests). Best effort: a source it leaves out, or a run
 * that fails, is compiled by tile_compile as before. Returns how many sources it compiled. */
int tile_prefetch(tile_device *dev, const char *const *srcs, int n);
void tile_library_free(tile_library *lib);
/* How many times this device invoked an external compiler (host: g++; Metal: the number of
 * newLibraryWithSource calls). A compile served from the host cache does not count. */
int tile_compiler_invocations(tile_device *dev);

/* Pipeline for one kernel entry point. */
int tile_pipeline(tile_library *lib, const char *entry, struct tile_pipeline **out,
                  int *max_threads_per_group);
void tile_pipeline_free(struct tile_pipeline *pipe);

/* Buffers: shared CPU/GPU memory, zero-filled on creation. */
int tile_buffer_new(tile_device *dev, size_t bytes, tile_buffer **out);
int tile_buffer_write(tile_buffer *buf, size_t offset, const void *src, size_t len);
int tile_buffer_read(tile_buffer *buf, size_t offset, void *dst, size_t len);
size_t tile_buffer_size(tile_buffer *buf);
/* Byte offset at which the buffer is bound by later dispatches (default 0; a multiple of 4 and
 * at most the size). Callers use it to keep guard regions before the kernel's view. */
int tile_buffer_bind_offset(tile_buffer *buf, size_t offset);
void tile_buffer_free(tile_buffer *buf);

/*
 * Runs `repeat` dispatches of the same grid with the same bindings in ONE command buffer and
 * waits for completion. buffers[i] binds [[buffer(i)]]; threadgroup_bytes[j] is the length of
 * [[threadgroup(j)]] (rounded up to TILE_THREADGROUP_MEMORY_ALIGN). Kernels emitted by Tile
 * declare their threadgroup memory in the body (`threadgroup T a[N];`, static sizes) and are
 * dispatched with n_threadgroup = 0; the limit TILE_MAX_THREADGROUP_MEMORY counts both kinds.
 */
int tile_dispatch(struct tile_pipeline *pipe, tile_buffer **buffers, int n_buffers,
                  const int *threadgroup_bytes, int n_threadgroup, int groups_x, int groups_y,
                  int groups_z, int threads_x, int threads_y, int threads_z, int repeat);

/* Times of the last successful dispatch, in seconds. Metal: GPUStartTime/GPUEndTime of its
 * command buffer. Host: wall clock around the dispatch call; tile_times_are_gpu says which. */
int tile_last_times(tile_device *dev, double *start_s, double *end_s);
int tile_times_are_gpu(tile_device *dev); /* 1 on Metal, 0 on host */

#ifdef __cplusplus
}
#endif

#endif /* TILE_NATIVE_H */
