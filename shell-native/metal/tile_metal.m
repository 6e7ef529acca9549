// tile_metal.m: the tile_native.h ABI on Metal (macOS). Built with ARC by shell-native/build.mjs:
//   clang -fobjc-arc -dynamiclib -framework Metal -framework Foundation -framework CoreGraphics tile_metal.m
// CoreGraphics is linked on purpose: Apple's page for MTLCreateSystemDefaultDevice says a macOS
// process must link it to be given a default device, and a command-line program (node) does not
// by itself. When no default device comes back anyway, MTLCopyAllDevices() is asked next.
// Thin by design: every call checks its handles, turns NSError into tile_last_error, and never
// throws or aborts. Every path that touches an Objective-C object (checks and error messages
// included) runs inside @autoreleasepool: Node's thread has no pool of its own, so anything
// autoreleased outside one would leak. Objective-C objects are held in C structs through
// __strong fields (ARC manages them; the structs are calloc'd and the fields are nil'ed before free).
#import <Foundation/Foundation.h>
#import <Metal/Metal.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tile_native.h"

struct tile_device {
  int refs;
  __strong id<MTLDevice> device;
  __strong id<MTLCommandQueue> queue;
  char *name;
  char *error;
  int compiler_invocations;
  double gpu_start, gpu_end;
};

struct tile_library {
  tile_device *dev;
  __strong id<MTLLibrary> library;
};

struct tile_pipeline {
  tile_device *dev;
  __strong id<MTLComputePipelineState> state;
  char *entry;
};

struct tile_buffer {
  tile_device *dev;
  __strong id<MTLBuffer> buffer;
  size_t size;
  size_t bind_offset;
};

// Why the last tile_open failed (tile_last_error(NULL) returns it). A process opens devices from
// one thread (Node's), like every other call here.
static char g_open_error[1024] = "no device";

static void set_error(tile_device *dev, const char *msg) {
  if (!dev) return;
  free(dev->error);
  dev->error = strdup(msg ? msg : "");
}

// Call inside an @autoreleasepool (msg may be autoreleased).
static int fail(tile_device *dev, int code, NSString *msg) {
  set_error(dev, msg ? [msg UTF8String] : "unknown error");
  return code;
}

static int open_fail(int code, NSString *msg) {
  const char *text = msg ? [msg UTF8String] : "unknown error";
  snprintf(g_open_error, sizeof g_open_error, "%s", text ? text : "unknown error");
  return code;
}

static void device_release(tile_device *dev) {
  if (!dev || --dev->refs > 0) return;
  @autoreleasepool {
    dev->queue = nil;
    dev->device = nil;
  }
  free(dev->name);
  free(dev->error);
  free(dev);
}

int tile_open(tile_device **out) {
  if (!out) return TILE_E_ARG;
  *out = NULL;
  @autoreleasepool {
    // 1. the default device (needs CoreGraphics linked, which build.mjs does)
    NSString *tried = @"MTLCreateSystemDefaultDevice() returned a device";
    id<MTLDevice> device = MTLCreateSystemDefaultDevice();
    if (!device) {
      // 2. command-line and daemon processes have been reported to get nil above on recent
      //    macOS while the GPU is there; ask for every device (ns_returns_retained: ARC owns it)
      NSArray<id<MTLDevice>> *all = MTLCopyAllDevices();
      NSUInteger n = all ? [all count] : 0;
      if (n > 0) device = all[0];
      tried = [NSString stringWithFormat:@"MTLCreateSystemDefaultDevice() returned nil; MTLCopyAllDevices() returned %lu device(s)%@",
                                         (unsigned long)n, device ? [NSString stringWithFormat:@", using '%@'", [device name]] : @""];
    }
    if (!device)
      return open_fail(TILE_E_NO_DEVICE,
                       [NSString stringWithFormat:@"no Metal device: %@ (this library links CoreGraphics, as a "
                                                  @"command-line process must for a default device; is there a "
                                                  @"Metal GPU, and may this process use it?)", tried]);
    id<MTLCommandQueue> queue = [device newCommandQueue];
    if (!queue)
      return open_fail(TILE_E_NO_DEVICE, [NSString stringWithFormat:@"Metal device '%@': newCommandQueue returned nil (%@)",
                                                                    [device name], tried]);
    tile_device *dev = calloc(1, sizeof *dev);
    if (!dev) return open_fail(TILE_E_ALLOC, @"out of memory");
    dev->refs = 1;
    dev->device = device;
    dev->queue = queue;
    const char *name = [[device name] UTF8String];
    dev->name = strdup(name ? name : "Metal device");
    dev->error = strdup("");
    *out = dev;
  }
  return TILE_OK;
}

void tile_close(tile_device *dev) { device_release(dev); }
const char *tile_device_name(tile_device *dev) { return dev && dev->name ? dev->name : ""; }
const char *tile_runtime_kind(tile_device *dev) { (void)dev; return "metal"; }
// With a device: its last failure. Without one (tile_open failed): why the last open failed.
const char *tile_last_error(tile_device *dev) { return dev ? (dev->error ? dev->error : "") : g_open_error; }
int tile_compiler_invocations(tile_device *dev) { return dev ? dev->compiler_invocations : 0; }

// IEEE float math, always (there is no switch): the kernels' reductions start from -INFINITY /
// +INFINITY and their max/min must propagate NaN, which fast math may assume away. The same
// holds on the host runtime, so both are validated under one tolerance.
static void set_ieee_math(MTLCompileOptions *options) {
#if defined(__MAC_OS_X_VERSION_MAX_ALLOWED) && __MAC_OS_X_VERSION_MAX_ALLOWED >= 150000
  if (@available(macOS 15.0, *)) {
    // macOS 15 replaced fastMathEnabled with these two (fastMathEnabled = NO maps to them)
    options.mathMode = MTLMathModeSafe;
    options.mathFloatingPointFunctions = MTLMathFloatingPointFunctionsPrecise;
    return;
  }
#endif
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
  options.fastMathEnabled = NO;
#pragma clang diagnostic pop
}

// A register limit does not apply here (the Metal compiler takes no register limit): the same as tile_compile.
int tile_compile_limited(tile_device *dev, const char *src, int max_registers, tile_library **out) {
  (void)max_registers;
  return tile_compile(dev, src, out);
}

int tile_compile(tile_device *dev, const char *src, tile_library **out) {
  if (!dev || !out) return TILE_E_ARG;
  *out = NULL;
  @autoreleasepool {
    if (!src) return fail(dev, TILE_E_ARG, @"tile_compile: source is null");
    set_error(dev, "");
    NSString *text = [NSString stringWithUTF8String:src];
    if (!text) return fail(dev, TILE_E_ARG, @"tile_compile: source is not UTF-8");
    MTLCompileOptions *options = [MTLCompileOptions new];
    set_ieee_math(options);
    // a kernel that needs a newer language version says so in its header (the emitter writes
    // "// tile: language 3.1" for bfloat buffers); otherwise the compiler's default
    if ([text rangeOfString:@"\n// tile: language 3.1"].location != NSNotFound) {
      if (@available(macOS 14.0, *)) options.languageVersion = MTLLanguageVersion3_1;
      else return fail(dev, TILE_E_COMPILE, @"this kernel has bfloat buffers: it needs Metal Shading Language 3.1 (macOS 14)");
    }
    NSError *error = nil;
    dev->compiler_invocations++;
    id<MTLLibrary> library = [dev->device newLibraryWithSource:text options:options error:&error];
    if (!library) {
      NSString *log = error ? [error localizedDescription] : @"newLibraryWithSource failed";
      return fail(dev, TILE_E_COMPILE, log);
    }
    tile_library *lib = calloc(1, sizeof *lib);
    if (!lib) return fail(dev, TILE_E_ALLOC, @"out of memory");
    lib->dev = dev;
    dev->refs++;
    lib->library = library;
    *out = lib;
  }
  return TILE_OK;
}

void tile_library_free(tile_library *lib) {
  if (!lib) return;
  tile_device *dev = lib->dev;
  @autoreleasepool {
    lib->library = nil;
  }
  free(lib);
  device_release(dev);
}

int tile_pipeline(tile_library *lib, const char *entry, struct tile_pipeline **out, int *max_threads) {
  if (!lib || !out) return TILE_E_ARG;
  *out = NULL;
  tile_device *dev = lib->dev;
  @autoreleasepool {
    if (!entry) return fail(dev, TILE_E_ARG, @"tile_pipeline: entry is null");
    NSString *name = [NSString stringWithUTF8String:entry];
    id<MTLFunction> fn = name ? [lib->library newFunctionWithName:name] : nil;
    if (!fn) {
      NSString *have = [[lib->library functionNames] componentsJoinedByString:@", "];
      return fail(dev, TILE_E_NO_ENTRY,
                  [NSString stringWithFormat:@"no kernel named '%s' (have: %@)", entry, have]);
    }
    NSError *error = nil;
    id<MTLComputePipelineState> state = [dev->device newComputePipelineStateWithFunction:fn error:&error];
    if (!state)
      return fail(dev, TILE_E_COMPILE, error ? [error localizedDescription] : @"pipeline creation failed");
    // The emitted kernels assume SIMD groups of TILE_SIMD_WIDTH (32) lanes, the device record's
    // simdWidth: simd_* collectives, one partial per SIMD group, thread / 32 indexing. Apple GPUs
    // run 32; any other width would give wrong results silently, so it is refused here.
    NSUInteger width = [state threadExecutionWidth];
    if (width != TILE_SIMD_WIDTH)
      return fail(dev, TILE_E_DISPATCH,
                  [NSString stringWithFormat:@"pipeline '%s': this GPU (%s) runs SIMD groups of %lu threads "
                                             @"(threadExecutionWidth), the emitted kernels assume %d "
                                             @"(the device record's simdWidth); it is not supported",
                                             entry, dev->name, (unsigned long)width, TILE_SIMD_WIDTH]);
    struct tile_pipeline *p = calloc(1, sizeof *p);
    if (!p) return fail(dev, TILE_E_ALLOC, @"out of memory");
    p->entry = strdup(entry);
    if (!p->entry) {
      free(p);
      return fail(dev, TILE_E_ALLOC, @"out of memory");
    }
    p->dev = dev;
    dev->refs++;
    p->state = state;
    if (max_threads) *max_threads = (int)[state maxTotalThreadsPerThreadgroup];
    *out = p;
  }
  return TILE_OK;
}

void tile_pipeline_free(struct tile_pipeline *p) {
  if (!p) return;
  tile_device *dev = p->dev;
  @autoreleasepool {
    p->state = nil;
  }
  free(p->entry);
  free(p);
  device_release(dev);
}

int tile_buffer_new(tile_device *dev, size_t bytes, tile_buffer **out) {
  if (!dev || !out) return TILE_E_ARG;
  *out = NULL;
  @autoreleasepool {
    if (bytes == 0) return fail(dev, TILE_E_ARG, @"tile_buffer_new: size is 0");
    if (bytes > (size_t)[dev->device maxBufferLength])
      return fail(dev, TILE_E_ARG, @"tile_buffer_new: size exceeds the device's maxBufferLength");
    id<MTLBuffer> buffer = [dev->device newBufferWithLength:bytes options:MTLResourceStorageModeShared];
    if (!buffer) return fail(dev, TILE_E_ALLOC, @"tile_buffer_new: newBufferWithLength failed");
    memset([buffer contents], 0, bytes);
    tile_buffer *b = calloc(1, sizeof *b);
    if (!b) return fail(dev, TILE_E_ALLOC, @"out of memory");
    b->dev = dev;
    dev->refs++;
    b->buffer = buffer;
    b->size = bytes;
    *out = b;
  }
  return TILE_OK;
}

// Call inside an @autoreleasepool (the message is an autoreleased NSString).
static int check_range(tile_buffer *b, size_t offset, size_t len, const void *ptr, const char *what) {
  if ((len && !ptr) || offset > b->size || len > b->size - offset)
    return fail(b->dev, TILE_E_BOUNDS,
                [NSString stringWithFormat:@"%s: range [%zu, %zu) outside buffer of %zu bytes", what,
                                           offset, offset + len, b->size]);
  return TILE_OK;
}

int tile_buffer_write(tile_buffer *b, size_t offset, const void *src, size_t len) {
  if (!b) return TILE_E_ARG;
  @autoreleasepool {
    int rc = check_range(b, offset, len, src, "tile_buffer_write");
    if (rc) return rc;
    if (len) memcpy((unsigned char *)[b->buffer contents] + offset, src, len);
  }
  return TILE_OK;
}

int tile_buffer_read(tile_buffer *b, size_t offset, void *dst, size_t len) {
  if (!b) return TILE_E_ARG;
  @autoreleasepool {
    int rc = check_range(b, offset, len, dst, "tile_buffer_read");
    if (rc) return rc;
    if (len) memcpy(dst, (unsigned char *)[b->buffer contents] + offset, len);
  }
  return TILE_OK;
}

size_t tile_buffer_size(tile_buffer *b) { return b ? b->size : 0; }

int tile_buffer_bind_offset(tile_buffer *b, size_t offset) {
  if (!b) return TILE_E_ARG;
  if (offset > b->size || offset % 4 != 0) {
    set_error(b->dev, "bind offset must be a multiple of 4 within the buffer");
    return TILE_E_ARG;
  }
  b->bind_offset = offset;
  return TILE_OK;
}

void tile_buffer_free(tile_buffer *b) {
  if (!b) return;
  tile_device *dev = b->dev;
  @autoreleasepool {
    b->buffer = nil;
  }
  free(b);
  device_release(dev);
}

int tile_dispatch(struct tile_pipeline *p, tile_buffer **buffers, int n_buffers, const int *tg_bytes,
                  int n_tg, int gx, int gy, int gz, int tx, int ty, int tz, int repeat) {
  if (!p) return TILE_E_ARG;
  tile_device *dev = p->dev;
  @autoreleasepool {
    if (n_buffers < 0 || n_buffers > TILE_MAX_BUFFERS || (n_buffers && !buffers))
      return fail(dev, TILE_E_ARG, @"dispatch: bad buffer list");
    if (n_tg < 0 || n_tg > TILE_MAX_THREADGROUP_BINDINGS || (n_tg && !tg_bytes))
      return fail(dev, TILE_E_ARG, @"dispatch: bad threadgroup memory list");
    if (gx < 1 || gy < 1 || gz < 1 || tx < 1 || ty < 1 || tz < 1 || repeat < 1)
      return fail(dev, TILE_E_ARG, @"dispatch: groups, threads and repeat must be >= 1");
    for (int i = 0; i < n_buffers; ++i)
      if (!buffers[i]) return fail(dev, TILE_E_ARG, [NSString stringWithFormat:@"dispatch: buffer %d is null", i]);
    long long threads = (long long)tx * ty * tz;
    NSUInteger max_threads = [p->state maxTotalThreadsPerThreadgroup];
    if (threads > (long long)max_threads)
      return fail(dev, TILE_E_DISPATCH,
                  [NSString stringWithFormat:@"dispatch of '%s': %lld threads per group exceed the pipeline's limit of %lu",
                                             p->entry, threads, (unsigned long)max_threads]);
    NSUInteger total_tg = [p->state staticThreadgroupMemoryLength];
    NSUInteger tg_len[TILE_MAX_THREADGROUP_BINDINGS];
    for (int j = 0; j < n_tg; ++j) {
      if (tg_bytes[j] < 0) return fail(dev, TILE_E_ARG, @"dispatch: negative threadgroup memory length");
      // Metal requires multiples of 16 bytes.
      tg_len[j] = ((NSUInteger)tg_bytes[j] + TILE_THREADGROUP_MEMORY_ALIGN - 1) &
                  ~(NSUInteger)(TILE_THREADGROUP_MEMORY_ALIGN - 1);
      total_tg += tg_len[j];
    }
    if (total_tg > [dev->device maxThreadgroupMemoryLength])
      return fail(dev, TILE_E_DISPATCH,
                  [NSString stringWithFormat:@"dispatch of '%s': %lu bytes of threadgroup memory exceed the device's %lu",
                                             p->entry, (unsigned long)total_tg,
                                             (unsigned long)[dev->device maxThreadgroupMemoryLength]]);
    id<MTLCommandBuffer> cb = [dev->queue commandBuffer];
    if (!cb) return fail(dev, TILE_E_DISPATCH, @"dispatch: cannot create a command buffer");
    id<MTLComputeCommandEncoder> enc = [cb computeCommandEncoder];
    if (!enc) return fail(dev, TILE_E_DISPATCH, @"dispatch: cannot create a compute encoder");
    [enc setComputePipelineState:p->state];
    for (int i = 0; i < n_buffers; ++i) [enc setBuffer:buffers[i]->buffer offset:buffers[i]->bind_offset atIndex:(NSUInteger)i];
    for (int j = 0; j < n_tg; ++j)
      if (tg_len[j] > 0) [enc setThreadgroupMemoryLength:tg_len[j] atIndex:(NSUInteger)j];
    MTLSize groups = MTLSizeMake((NSUInteger)gx, (NSUInteger)gy, (NSUInteger)gz);
    MTLSize per_group = MTLSizeMake((NSUInteger)tx, (NSUInteger)ty, (NSUInteger)tz);
    // One encoder, `repeat` dispatches. The default (serial) dispatch type orders them, so
    // each dispatch sees the previous one's writes, as on the host runtime.
    for (int r = 0; r < repeat; ++r) [enc dispatchThreadgroups:groups threadsPerThreadgroup:per_group];
    [enc endEncoding];
    [cb commit];
    [cb waitUntilCompleted];
    if ([cb status] != MTLCommandBufferStatusCompleted) {
      NSError *error = [cb error];
      return fail(dev, TILE_E_DISPATCH,
                  [NSString stringWithFormat:@"dispatch of '%s': command buffer failed: %@", p->entry,
                                             error ? [error localizedDescription] : @"unknown error"]);
    }
    dev->gpu_start = [cb GPUStartTime];
    dev->gpu_end = [cb GPUEndTime];
  }
  set_error(dev, "");
  return TILE_OK;
}

int tile_last_times(tile_device *dev, double *start_s, double *end_s) {
  if (!dev || !start_s || !end_s) return TILE_E_ARG;
  *start_s = dev->gpu_start;
  *end_s = dev->gpu_end;
  return TILE_OK;
}

int tile_times_are_gpu(tile_device *dev) { (void)dev; return 1; }

// The race and bounds detector is a host-runtime feature: accepted and ignored here.
int tile_set_detector(tile_device *dev, int on) { (void)on; return dev ? TILE_OK : TILE_E_ARG; }
int tile_detector_enabled(tile_device *dev) { (void)dev; return 0; }
