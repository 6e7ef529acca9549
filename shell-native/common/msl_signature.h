// msl_signature.h: the kernel-signature reader shared by the native runtimes that run MSL text
// through another compiler (host: g++, cuda: NVRTC). Plain C++17, no platform headers.
//
//   blank_comments    comments (and string literal contents) -> spaces, newlines kept
//   blank_attributes  [[...]] -> spaces, newlines kept (same offsets)
//   parse_kernels     every `kernel void NAME(` with its parameters: type, name, attribute
//
// The builtin attributes it accepts are the ones both runtimes derive (kBuiltinAttributes).
#pragma once

#include <string>
#include <vector>

namespace tile_msl {

// One parameter of a `kernel void name(...)`, as written in the MSL text.
struct KernelParam {
  enum Kind { Buffer, Threadgroup, Builtin } kind;
  int index;        // [[buffer(i)]] / [[threadgroup(i)]]; -1 for builtins
  std::string type; // e.g. "device const float*"
  std::string name;
  std::string attr; // attribute text without brackets, e.g. "thread_index_in_threadgroup"
  int line;
};

struct KernelSig {
  std::string name;
  std::vector<KernelParam> params;
  int line = 0;
  int max_buffer = -1;      // highest [[buffer(i)]] index, -1 if none
  int max_threadgroup = -1; // highest [[threadgroup(j)]] index, -1 if none
};

// Builtin parameter attributes a kernel may declare (both runtimes derive every one of them).
extern const char *const kBuiltinAttributes[];
extern const int kBuiltinAttributeCount;
bool is_builtin_attribute(const std::string &attr);

std::string blank_comments(const std::string &s);
std::string blank_attributes(const std::string &s);
int line_of(const std::string &s, size_t pos);
// line_of for many positions of one text: its newlines found once, each line a binary search
// (line_of scans from the start, which made a unit of many kernels quadratic to check).
class LineIndex {
public:
  explicit LineIndex(const std::string &s);
  int line(size_t pos) const; // == line_of(s, pos)
private:
  std::vector<size_t> newlines_;
};
std::string trim(const std::string &s);
// True when `s` names a threadgroup-memory, barrier or simd_* rendezvous (on comment-blanked text).
bool names_rendezvous(const std::string &clean);

// Parses every kernel signature of comment-blanked source `clean`; `file` names it in messages
// ("<file>:<line>: error: ..."), appended to *log. Limits: buffer and threadgroup indices must be
// below max_buffers / max_threadgroups.
std::vector<KernelSig> parse_kernels(const std::string &clean, const std::string &file, std::string *log,
                                     int max_buffers, int max_threadgroups);

} // namespace tile_msl
