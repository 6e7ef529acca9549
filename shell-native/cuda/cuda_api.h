// cuda_api.h: the few CUDA driver API and NVRTC entry points the CUDA runtime uses, declared
// here and resolved with dlopen/dlsym at tile_open, so libtile_cuda builds with g++ alone and
// a machine without the driver gets a clear error instead of a failed load. When the toolkit's
// cuda.h is available, build.mjs compiles with -DTILE_CHECK_CUDA_H and the constants below are
// checked against it (static_assert in runtime.cpp).
#pragma once

#include <stddef.h>

namespace tile_cuda {

typedef int CUresult; // CUDA_SUCCESS == 0
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef int nvrtcResult; // NVRTC_SUCCESS == 0
typedef struct _nvrtcProgram *nvrtcProgram;

enum {
  kDevMaxThreadsPerBlock = 1,            // CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
  kDevMaxSharedPerBlock = 8,             // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK
  kDevWarpSize = 10,                     // CU_DEVICE_ATTRIBUTE_WARP_SIZE
  kDevClockRate = 13,                    // CU_DEVICE_ATTRIBUTE_CLOCK_RATE (kHz)
  kDevMultiprocessors = 16,              // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
  kDevMemoryClockRate = 36,              // CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE (kHz)
  kDevMemoryBusWidth = 37,               // CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH (bits)
  kDevL2Size = 38,                       // CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE
  kDevMaxThreadsPerSM = 39,              // CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR
  kDevCcMajor = 75,                      // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
  kDevCcMinor = 76,                      // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
  kDevMaxSharedPerSM = 81,               // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
  kDevMaxRegistersPerSM = 82,            // CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR
  kDevMaxSharedPerBlockOptin = 97,       // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
  kFuncMaxThreadsPerBlock = 0,           // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
  kFuncSharedSizeBytes = 1,              // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES (static)
  kFuncNumRegs = 4,                      // CU_FUNC_ATTRIBUTE_NUM_REGS
  kFuncMaxDynamicSharedSizeBytes = 8,    // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  kEventDefault = 0,                     // CU_EVENT_DEFAULT
};

struct DriverApi {
  void *lib = nullptr;
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void **, void **);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
};

struct NvrtcApi {
  void *lib = nullptr;
  nvrtcResult (*nvrtcVersion)(int *, int *);
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                                    const char *const *);
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char *const *);
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t *);
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char *);
  nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t *);
  nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char *);
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram *);
  const char *(*nvrtcGetErrorString)(nvrtcResult);
};

} // namespace tile_cuda
