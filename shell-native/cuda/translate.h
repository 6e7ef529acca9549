// translate.h: MSL text -> one CUDA translation unit (prelude + rewritten source + __global__
// entries). Pure C++17, no CUDA headers: the CI tests build it with g++ (see
// test/cuda-translate.test.ts) through translate_main.cpp.
#pragma once

#include <string>
#include <vector>

#include "../common/msl_signature.h"

namespace tile_cuda {

// Bump when the unit layout (rewrites, entries, #line layout) changes: it is in the cache key.
extern const char *const kGeneratorVersion;

struct Unit {
  std::string text;                        // the whole CUDA source handed to NVRTC
  std::vector<tile_msl::KernelSig> kernels;
  std::string log;                         // "<file>:<line>: error: ..." lines; empty when ok
};

// `prelude` is msl_prelude.cuh's text; `file` names the MSL source in #line and messages.
Unit translate(const std::string &msl, const std::string &prelude, const std::string &file);

// The generated `extern "C" __global__ void tile_entry_<name>(...)` for one kernel. Its
// parameters: `void *__tile_b<i>` per [[buffer(i)]] and `unsigned __tile_tg<j>` (byte offset
// into dynamic shared memory) per [[threadgroup(j)]], in the order the kernel declares them.
std::string entry_point(const tile_msl::KernelSig &k);

// A parameter type with its address-space words removed ("device const float*" -> "const float*").
std::string cuda_type(const std::string &msl_type);

// A parameter type with its address-space words removed ("device const float*" -> "const float*").
std::string cuda_type(const std::string &msl_type);

// The source edits alone (exposed for tests): float literals with no suffix get `f`; file-scope
// function definitions get `__device__`; a `threadgroup T a[N];` in a body becomes `__shared__`;
// other address-space words and `kernel` are blanked (`constant` becomes `const`);
// `#include <metal_stdlib>` is blanked.
std::string rewrite_source(const std::string &msl);

} // namespace tile_cuda
