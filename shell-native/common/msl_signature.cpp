// msl_signature.cpp: see msl_signature.h.
#include "msl_signature.h"

#include <algorithm>

#include <cctype>
#include <cstdlib>
#include <regex>

namespace tile_msl {

const char *const kBuiltinAttributes[] = {
    "thread_index_in_threadgroup", "thread_position_in_threadgroup", "threadgroup_position_in_grid",
    "thread_position_in_grid",     "threads_per_threadgroup",        "dispatch_threads_per_threadgroup",
    "threadgroups_per_grid",       "threads_per_grid",               "thread_index_in_simdgroup",
    "simdgroup_index_in_threadgroup", "simdgroups_per_threadgroup",  "threads_per_simdgroup",
};
const int kBuiltinAttributeCount = sizeof kBuiltinAttributes / sizeof kBuiltinAttributes[0];

bool is_builtin_attribute(const std::string &attr) {
  for (int i = 0; i < kBuiltinAttributeCount; ++i)
    if (attr == kBuiltinAttributes[i]) return true;
  return false;
}

// Blanks comments (keeping newlines, so line numbers hold).
std::string blank_comments(const std::string &s) {
  std::string o = s;
  size_t i = 0, n = s.size();
  while (i < n) {
    if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') o[i++] = ' ';
    } else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
      size_t j = i;
      while (j < n && !(s[j] == '*' && j + 1 < n && s[j + 1] == '/')) ++j;
      size_t end = j + 2 < n ? j + 2 : n;
      for (; i < end; ++i)
        if (o[i] != '\n') o[i] = ' ';
    } else if (s[i] == '"') {
      ++i;
      while (i < n && s[i] != '"' && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < n) o[i++] = ' ';
        o[i++] = ' ';
      }
      ++i;
    } else {
      ++i;
    }
  }
  return o;
}

int line_of(const std::string &s, size_t pos) {
  int line = 1;
  for (size_t i = 0; i < pos && i < s.size(); ++i)
    if (s[i] == '\n') ++line;
  return line;
}

LineIndex::LineIndex(const std::string &s) {
  for (size_t i = s.find('\n'); i != std::string::npos; i = s.find('\n', i + 1)) newlines_.push_back(i);
}

int LineIndex::line(size_t pos) const {
  // 1 + the newlines before pos
  return 1 + (int)(std::lower_bound(newlines_.begin(), newlines_.end(), pos) - newlines_.begin());
}

// Blanks [[...]] attribute specifiers (the runtimes read them from the original text first).
std::string blank_attributes(const std::string &s) {
  std::string o = s;
  size_t i = 0;
  while ((i = o.find("[[", i)) != std::string::npos) {
    size_t j = o.find("]]", i + 2);
    if (j == std::string::npos) break;
    for (size_t k = i; k < j + 2; ++k)
      if (o[k] != '\n') o[k] = ' ';
    i = j + 2;
  }
  return o;
}

std::string trim(const std::string &s) {
  size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

bool names_rendezvous(const std::string &clean) {
  static const std::regex rendezvous(R"(\b(threadgroup_barrier|simdgroup_barrier|simd_\w+)\b)");
  return std::regex_search(clean, rendezvous);
}

namespace {

// Splits a parameter list on top-level commas.
std::vector<std::pair<std::string, size_t>> split_params(const std::string &s, size_t begin, size_t end) {
  std::vector<std::pair<std::string, size_t>> out;
  int depth = 0;
  size_t start = begin;
  for (size_t i = begin; i < end; ++i) {
    char c = s[i];
    if (c == '(' || c == '[' || c == '<') ++depth;
    else if (c == ')' || c == ']' || c == '>') --depth;
    else if (c == ',' && depth == 0) {
      out.push_back({s.substr(start, i - start), start});
      start = i + 1;
    }
  }
  if (trim(s.substr(start, end - start)).size()) out.push_back({s.substr(start, end - start), start});
  return out;
}

} // namespace

namespace {

bool word_char(char c) { return std::isalnum((unsigned char)c) || c == '_'; }
bool blank(char c) { return std::isspace((unsigned char)c) != 0; }

// At t: \s+void\s+([A-Za-z_]\w*)\s*\( ; the position of the '(' (npos if no match), the name.
size_t void_name_paren(const std::string &s, size_t t, std::string *name) {
  const size_t n = s.size();
  if (t >= n || !blank(s[t])) return std::string::npos;
  while (t < n && blank(s[t])) ++t;
  if (s.compare(t, 4, "void") != 0) return std::string::npos;
  t += 4;
  if (t >= n || !blank(s[t])) return std::string::npos;
  while (t < n && blank(s[t])) ++t;
  if (t >= n || !(std::isalpha((unsigned char)s[t]) || s[t] == '_')) return std::string::npos;
  size_t b = t;
  while (t < n && word_char(s[t])) ++t;
  size_t e = t;
  while (t < n && blank(s[t])) ++t;
  if (t >= n || s[t] != '(') return std::string::npos;
  *name = s.substr(b, e - b);
  return t;
}

// The matches of the regex \bkernel(?:\s*\]\])?\s+void\s+([A-Za-z_]\w*)\s*\( in order, without
// std::regex (slow over a unit of many kernels): (position, position of the '(', name).
struct Head {
  size_t at, open;
  std::string name;
};
std::vector<Head> kernel_heads(const std::string &s) {
  std::vector<Head> out;
  for (size_t p = s.find("kernel"); p != std::string::npos; p = s.find("kernel", p + 1)) {
    if (p > 0 && word_char(s[p - 1])) continue;
    size_t q = p + 6, r = q;
    while (r < s.size() && blank(s[r])) ++r;
    std::string name;
    size_t open = s.compare(r, 2, "]]") == 0 ? void_name_paren(s, r + 2, &name) : std::string::npos;
    if (open == std::string::npos) open = void_name_paren(s, q, &name);
    if (open == std::string::npos) continue;
    out.push_back({p, open, name});
    p = open; // the next match starts after this one
  }
  return out;
}

} // namespace

std::vector<KernelSig> parse_kernels(const std::string &clean, const std::string &file, std::string *log,
                                     int max_buffers, int max_threadgroups) {
  std::vector<KernelSig> out;
  // `kernel void name(` or, in attribute form (as MLX's metal_kernel writes it), `[[kernel]] void name(`
  std::regex attr_re(R"(\[\[\s*([A-Za-z_]\w*)\s*(?:\(\s*(\d+)\s*\))?\s*\]\])");
  std::regex name_re(R"(([A-Za-z_]\w*)\s*$)");
  const LineIndex lines(clean);
  for (const Head &h : kernel_heads(clean)) {
    KernelSig k;
    k.name = h.name;
    k.line = lines.line(h.at);
    size_t open = h.open, i = open + 1;
    int depth = 1;
    while (i < clean.size() && depth > 0) {
      if (clean[i] == '(') ++depth;
      else if (clean[i] == ')') --depth;
      ++i;
    }
    if (depth != 0) {
      *log += file + ":" + std::to_string(k.line) + ": error: unterminated parameter list of kernel '" + k.name + "'\n";
      continue;
    }
    for (auto &p : split_params(clean, open + 1, i - 1)) {
      std::string text = p.first;
      size_t first = text.find_first_not_of(" \t\r\n");
      int line = lines.line(p.second + (first == std::string::npos ? 0 : first));
      std::smatch am;
      KernelParam kp;
      kp.line = line;
      if (!std::regex_search(text, am, attr_re)) {
        *log += file + ":" + std::to_string(line) + ": error: parameter '" + trim(text) + "' of kernel '" +
                k.name + "' has no [[attribute]]\n";
        continue;
      }
      std::string decl = trim(text.substr(0, am.position()));
      std::smatch nm;
      if (!std::regex_search(decl, nm, name_re)) {
        *log += file + ":" + std::to_string(line) + ": error: cannot read parameter '" + trim(text) + "'\n";
        continue;
      }
      kp.name = nm[1].str();
      kp.type = trim(decl.substr(0, nm.position()));
      kp.attr = am[1].str();
      kp.index = am[2].matched ? std::atoi(am[2].str().c_str()) : -1;
      if (kp.attr == "buffer" && kp.index >= 0) {
        kp.kind = KernelParam::Buffer;
        if (kp.index >= max_buffers) {
          *log += file + ":" + std::to_string(line) + ": error: buffer index " + std::to_string(kp.index) + " out of range\n";
          continue;
        }
        if (kp.index > k.max_buffer) k.max_buffer = kp.index;
      } else if (kp.attr == "threadgroup" && kp.index >= 0) {
        kp.kind = KernelParam::Threadgroup;
        if (kp.index >= max_threadgroups) {
          *log += file + ":" + std::to_string(line) + ": error: threadgroup index " + std::to_string(kp.index) + " out of range\n";
          continue;
        }
        if (kp.index > k.max_threadgroup) k.max_threadgroup = kp.index;
      } else if (is_builtin_attribute(kp.attr) && !am[2].matched) {
        kp.kind = KernelParam::Builtin;
      } else {
        *log += file + ":" + std::to_string(line) + ": error: unsupported attribute [[" + am[0].str().substr(2, am[0].length() - 4) +
                "]] on parameter '" + kp.name + "' of kernel '" + k.name + "'\n";
        continue;
      }
      if (kp.kind != KernelParam::Builtin && kp.type.find('*') == std::string::npos && kp.type.find('&') == std::string::npos) {
        *log += file + ":" + std::to_string(line) + ": error: [[" + kp.attr + "(" + std::to_string(kp.index) +
                ")]] parameter '" + kp.name + "' must be a pointer or a reference\n";
        continue;
      }
      k.params.push_back(kp);
    }
    out.push_back(k);
  }
  return out;
}

} // namespace tile_msl
