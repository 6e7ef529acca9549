// translate.cpp: see translate.h.
#include "translate.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace tile_cuda {

using tile_msl::KernelParam;
using tile_msl::KernelSig;

const char *const kGeneratorVersion = "tile-cuda-unit-1";

namespace {

bool ident_char(char c) { return std::isalnum((unsigned char)c) || c == '_'; }

bool word_at(const std::string &s, size_t i, const char *w) {
  size_t n = std::char_traits<char>::length(w);
  return s.compare(i, n, w) == 0 && (i == 0 || !ident_char(s[i - 1])) && (i + n >= s.size() || !ident_char(s[i + n]));
}

struct Insert {
  size_t at;
  std::string text;
};

// Derived builtin values (uint components) from CUDA's indices.
struct Builtin {
  const char *attr;
  const char *x, *y, *z;
};
#define TILE_LINEAR "(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))"
const Builtin kBuiltins[] = {
    {"thread_index_in_threadgroup", TILE_LINEAR, "0u", "0u"},
    {"thread_position_in_threadgroup", "threadIdx.x", "threadIdx.y", "threadIdx.z"},
    {"threadgroup_position_in_grid", "blockIdx.x", "blockIdx.y", "blockIdx.z"},
    {"thread_position_in_grid", "(blockIdx.x * blockDim.x + threadIdx.x)", "(blockIdx.y * blockDim.y + threadIdx.y)",
     "(blockIdx.z * blockDim.z + threadIdx.z)"},
    {"threads_per_threadgroup", "blockDim.x", "blockDim.y", "blockDim.z"},
    {"dispatch_threads_per_threadgroup", "blockDim.x", "blockDim.y", "blockDim.z"},
    {"threadgroups_per_grid", "gridDim.x", "gridDim.y", "gridDim.z"},
    {"threads_per_grid", "(gridDim.x * blockDim.x)", "(gridDim.y * blockDim.y)", "(gridDim.z * blockDim.z)"},
    {"thread_index_in_simdgroup", "(" TILE_LINEAR " & 31u)", "0u", "0u"},
    {"simdgroup_index_in_threadgroup", "(" TILE_LINEAR " >> 5)", "0u", "0u"},
    {"simdgroups_per_threadgroup", "((blockDim.x * blockDim.y * blockDim.z + 31u) >> 5)", "0u", "0u"},
    {"threads_per_simdgroup", "32u", "0u", "0u"},
};

// MSL word -> its same-length CUDA replacement (pairs, null-terminated).
const char *const kAddressSpaces[] = {"device", "      ", "constant", "const   ", "thread", "      ",
                                      "kernel", "      ", nullptr};

const Builtin *find_builtin(const std::string &a) {
  for (const Builtin &b : kBuiltins)
    if (a == b.attr) return &b;
  return nullptr;
}

} // namespace

std::string rewrite_source(const std::string &src) {
  const std::string clean = tile_msl::blank_comments(src);
  std::string out = tile_msl::blank_attributes(src);
  std::vector<Insert> inserts;
  // #include <metal_stdlib>: the prelude stands in for it
  for (size_t i = clean.find("#"); i != std::string::npos; i = clean.find("#", i + 1)) {
    size_t j = i + 1;
    while (j < clean.size() && (clean[j] == ' ' || clean[j] == '\t')) ++j;
    if (clean.compare(j, 7, "include") != 0) continue;
    size_t e = clean.find('\n', i);
    if (e == std::string::npos) e = clean.size();
    if (clean.substr(i, e - i).find("<metal_stdlib>") != std::string::npos)
      for (size_t k = i; k < e; ++k) out[k] = ' ';
  }
  int paren = 0, brace = 0;
  size_t decl_start = 0; // first character after the last ';', '}' or preprocessor line at file scope
  for (size_t i = 0; i < clean.size(); ++i) {
    char c = clean[i];
    if (c == '#' && brace == 0 && paren == 0) { // a preprocessor line (with continuations)
      while (i < clean.size() && !(clean[i] == '\n' && clean[i - 1] != '\\')) ++i;
      decl_start = i + 1;
      continue;
    }
    if (ident_char(c) && (i == 0 || !ident_char(clean[i - 1]))) {
      // address spaces: `threadgroup T a[N];` in a body (not a parameter or a pointer) is
      // shared memory; every other address-space word is blanked (`constant` is `const`). Done
      // here and not by macros: CUDA's own __device__ and __constant__ expand through the
      // words `device` and `constant`.
      if (word_at(clean, i, "threadgroup")) {
        size_t semi = clean.find(';', i);
        std::string decl = clean.substr(i, semi == std::string::npos ? std::string::npos : semi - i);
        bool array = paren == 0 && brace > 0 && decl.find('*') == std::string::npos &&
                     decl.find('=') == std::string::npos && decl.find('[') != std::string::npos;
        out.replace(i, 11, array ? "__shared__ " : "           ");
      } else {
        for (const char *const *w = kAddressSpaces; *w; w += 2)
          if (word_at(clean, i, *w)) out.replace(i, std::char_traits<char>::length(w[1]), w[1]);
      }
      // a numeric literal: floating ones without a suffix become float, as in MSL
      if (std::isdigit((unsigned char)c)) {
        size_t j = i;
        bool hex = c == '0' && j + 1 < clean.size() && (clean[j + 1] == 'x' || clean[j + 1] == 'X');
        bool floating = false;
        if (hex) {
          j += 2;
          while (j < clean.size() && (std::isxdigit((unsigned char)clean[j]) || clean[j] == '.')) floating |= clean[j++] == '.';
          if (j < clean.size() && (clean[j] == 'p' || clean[j] == 'P')) {
            floating = true;
            ++j;
            if (j < clean.size() && (clean[j] == '+' || clean[j] == '-')) ++j;
            while (j < clean.size() && std::isdigit((unsigned char)clean[j])) ++j;
          }
        } else {
          while (j < clean.size() && (std::isdigit((unsigned char)clean[j]) || clean[j] == '.')) floating |= clean[j++] == '.';
          if (j < clean.size() && (clean[j] == 'e' || clean[j] == 'E')) {
            floating = true;
            ++j;
            if (j < clean.size() && (clean[j] == '+' || clean[j] == '-')) ++j;
            while (j < clean.size() && std::isdigit((unsigned char)clean[j])) ++j;
          }
        }
        size_t suffix = j;
        while (j < clean.size() && ident_char(clean[j])) ++j;
        if (floating && suffix == j) inserts.push_back({j, "f"});
        i = j - 1;
        continue;
      }
      while (i + 1 < clean.size() && ident_char(clean[i + 1])) ++i;
      continue;
    }
    if (c == '.' && i + 1 < clean.size() && std::isdigit((unsigned char)clean[i + 1]) && (i == 0 || !ident_char(clean[i - 1]))) {
      size_t j = i + 1;
      while (j < clean.size() && std::isdigit((unsigned char)clean[j])) ++j;
      if (j < clean.size() && (clean[j] == 'e' || clean[j] == 'E')) {
        ++j;
        if (j < clean.size() && (clean[j] == '+' || clean[j] == '-')) ++j;
        while (j < clean.size() && std::isdigit((unsigned char)clean[j])) ++j;
      }
      size_t suffix = j;
      while (j < clean.size() && ident_char(clean[j])) ++j;
      if (suffix == j) inserts.push_back({j, "f"});
      i = j - 1;
      continue;
    }
    if (c == '(') ++paren;
    else if (c == ')') --paren;
    else if (c == '{') {
      if (brace == 0 && paren == 0) {
        // a file-scope `... name(...) {` is a function definition: device code
        size_t k = i;
        while (k > 0 && std::isspace((unsigned char)clean[k - 1])) --k;
        if (k > 0 && clean[k - 1] == ')') {
          int depth = 0;
          size_t p = k - 1;
          for (;; --p) {
            if (clean[p] == ')') ++depth;
            else if (clean[p] == '(' && --depth == 0) break;
            if (p == 0) break;
          }
          size_t b = decl_start;
          while (b < p && std::isspace((unsigned char)clean[b])) ++b;
          if (b < p) inserts.push_back({b, "__device__ "});
        }
      }
      ++brace;
    } else if (c == '}') {
      if (--brace == 0 && paren == 0) decl_start = i + 1;
    } else if (c == ';' && brace == 0 && paren == 0) {
      decl_start = i + 1;
    }
  }
  std::stable_sort(inserts.begin(), inserts.end(), [](const Insert &a, const Insert &b) { return a.at > b.at; });
  for (const Insert &ins : inserts) out.insert(ins.at, ins.text);
  return out;
}

// A parameter type with its address-space words removed ("device const float*" -> "const float*").
std::string cuda_type(const std::string &msl_type) {
  std::string t = rewrite_source(msl_type), o;
  for (char c : t)
    if (!(c == ' ' && (o.empty() || o.back() == ' '))) o += c;
  return tile_msl::trim(o);
}

std::string entry_point(const KernelSig &k) {
  std::ostringstream sig, call;
  bool shared = false;
  int n = 0;
  for (const KernelParam &p : k.params) {
    if (p.kind == KernelParam::Builtin) continue;
    sig << (n++ ? ", " : "");
    if (p.kind == KernelParam::Buffer) sig << "void *__tile_b" << p.index;
    else {
      sig << "unsigned __tile_tg" << p.index;
      shared = true;
    }
  }
  if (n == 0) sig << "void";
  for (size_t i = 0; i < k.params.size(); ++i) {
    const KernelParam &p = k.params[i];
    call << (i ? ",\n    " : "\n    ");
    if (p.kind == KernelParam::Builtin) {
      const Builtin *b = find_builtin(p.attr);
      char last = p.type.empty() ? ' ' : p.type.back();
      if (last == '3') call << "make_uint3(" << b->x << ", " << b->y << ", " << b->z << ")";
      else if (last == '2') call << "make_uint2(" << b->x << ", " << b->y << ")";
      else call << "(" << cuda_type(p.type) << ")(" << b->x << ")";
      continue;
    }
    std::string ptr = p.kind == KernelParam::Buffer ? "__tile_b" + std::to_string(p.index)
                                                    : "(__tile_smem + __tile_tg" + std::to_string(p.index) + ")";
    const std::string type = cuda_type(p.type);
    size_t amp = type.find('&');
    if (amp != std::string::npos) call << "*(" << tile_msl::trim(type.substr(0, amp)) << "*)(" << ptr << ")";
    else call << "(" << type << ")(" << ptr << ")";
  }
  std::ostringstream o;
  o << "extern \"C\" __global__ void tile_entry_" << k.name << "(" << sig.str() << ") {\n";
  if (shared) o << "  extern __shared__ __align__(16) unsigned char __tile_smem[];\n";
  o << "  " << k.name << "(" << call.str() << ");\n}\n";
  return o.str();
}

Unit translate(const std::string &msl, const std::string &prelude, const std::string &file) {
  Unit u;
  const std::string clean = tile_msl::blank_comments(msl);
  u.kernels = tile_msl::parse_kernels(clean, file, &u.log, 31, 31);
  if (u.kernels.empty() && u.log.empty()) u.log = file + ":1: error: no `kernel void name(...)` function in the source\n";
  for (const KernelSig &k : u.kernels)
    for (const KernelParam &p : k.params)
      if (p.kind == KernelParam::Builtin && p.type.find("uint") == std::string::npos && p.type != "ushort")
        u.log += file + ":" + std::to_string(p.line) + ": error: [[" + p.attr + "]] parameter '" + p.name +
                 "' must be uint, uint2 or uint3 (got '" + p.type + "')\n";
  if (!u.log.empty()) return u;
  std::ostringstream o;
  o << prelude << "\nusing namespace metal;\n#line 1 \"" << file << "\"\n" << rewrite_source(msl)
    << "\n#line 1 \"" << file << ".entry.cu\"\n";
  for (const KernelSig &k : u.kernels) o << entry_point(k);
  u.text = o.str();
  return u;
}

} // namespace tile_cuda
