// check_cuda_h.cpp: compiled with -DTILE_CHECK_CUDA_H where the toolkit's cuda.h exists
// (build.mjs): the constants cuda_api.h declares by hand must equal cuda.h's. A translation unit
// of its own, because cuda.h's macros (cuMemAlloc -> cuMemAlloc_v2, ...) clash with cuda_api.h.
#include "cuda_api.h"

#ifdef TILE_CHECK_CUDA_H
#include <cuda.h>
static_assert((int)CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK == (int)tile_cuda::kDevMaxThreadsPerBlock, "cuda.h");
static_assert((int)CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK == (int)tile_cuda::kDevMaxSharedPerBlock, "cuda.h");
static_assert((int)CU_DEVICE_ATTRIBUTE_WARP_SIZE == (int)tile_cuda::kDevWarpSize, "cuda.h");
static_assert((int)CU_DEVICE_ATTRIBUTE_CLOCK_RATE == (int)tile_cuda::kDevClockRate, "cuda.h");
static_assert((int)CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT == (int)tile_cuda::kDevMultiprocessors, "cuda.h");
static_assert((int)CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE == (int)tile_cuda::kDevMemoryClockRate, "cuda.h");
static_assert((int)CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH == (int)tile_cuda::kDevMemoryBusWidth, "cuda.h");
static_assert((int)CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE == (int)tile_cuda::kDevL2Size, "cuda.h");
static_assert((int)CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR == (int)tile_cuda::kDevMaxThreadsPerSM, "cuda.h");
static_assert((int)CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR == (int)tile_cuda::kDevCcMajor, "cuda.h");
static_assert((int)CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR == (int)tile_cuda::kDevCcMinor, "cuda.h");
static_assert((int)CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR == (int)tile_cuda::kDevMaxSharedPerSM, "cuda.h");
static_assert((int)CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR == (int)tile_cuda::kDevMaxRegistersPerSM, "cuda.h");
static_assert((int)CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN == (int)tile_cuda::kDevMaxSharedPerBlockOptin, "cuda.h");
static_assert((int)CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK == (int)tile_cuda::kFuncMaxThreadsPerBlock, "cuda.h");
static_assert((int)CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES == (int)tile_cuda::kFuncSharedSizeBytes, "cuda.h");
static_assert((int)CU_FUNC_ATTRIBUTE_NUM_REGS == (int)tile_cuda::kFuncNumRegs, "cuda.h");
static_assert((int)CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES == (int)tile_cuda::kFuncMaxDynamicSharedSizeBytes, "cuda.h");
static_assert((int)CU_EVENT_DEFAULT == (int)tile_cuda::kEventDefault, "cuda.h");
static_assert(sizeof(CUdeviceptr) == sizeof(tile_cuda::CUdeviceptr), "cuda.h");
#endif
