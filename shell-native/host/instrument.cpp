// instrument.cpp: the detector's rewrite of a kernel unit (see detector.cpp, detect_shim.h).
//
// Every `device T*`, `constant T*` and `threadgroup T*` in the MSL text (parameters, locals,
// casts, helper signatures) becomes `__tile_ptr<T>` (`constant` ones `__tile_ptr<const T>`), and
// every `device T&` that is not a kernel parameter becomes `__tile_ref<T>`. Lines stay where they
// are (no newline is added or removed), so compiler messages and detector reports name MSL lines.
// The trampolines hand each pointer parameter its binding's region (tile_thread.regions), and
// each unit exports, per kernel, the size of every parameter's element type
// (tile_sizes_<name>[], in parameter order) for the detector's messages.
#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "host_internal.h"

namespace tile_host {

namespace {

bool ident_char(char c) { return std::isalnum((unsigned char)c) || c == '_'; }

struct Rewrite {
  size_t begin, end;
  std::string text;
};

// At s[i] (just past an address-space keyword): `[const|volatile]* TYPE [const]* (*|&)`, where
// TYPE is one or more identifiers (metal:: allowed). On success sets *end past the `*`/`&`,
// *is_ptr, *is_const and *type (without qualifiers).
bool parse_pointer_decl(const std::string &s, size_t i, size_t *end, bool *is_ptr, bool *is_const, std::string *type) {
  bool cst = false;
  std::string ty;
  size_t n = s.size();
  for (;;) {
    while (i < n && std::isspace((unsigned char)s[i])) ++i;
    if (i >= n) return false;
    if (ident_char(s[i])) {
      size_t b = i;
      while (i < n && ident_char(s[i])) ++i;
      std::string w = s.substr(b, i - b);
      if (w == "const") cst = true;
      else if (w == "volatile") continue;
      else {
        if (!ty.empty() && ty.back() != ':') ty += ' ';
        ty += w;
      }
      continue;
    }
    if (s[i] == ':' && i + 1 < n && s[i + 1] == ':' && !ty.empty()) {
      ty += "::";
      i += 2;
      continue;
    }
    break;
  }
  if (ty.empty() || ty.back() == ':') return false;
  if (s[i] == '*') {
    *is_ptr = true;
  } else if (s[i] == '&' && !(i + 1 < n && s[i + 1] == '&')) {
    *is_ptr = false;
  } else {
    return false;
  }
  *end = i + 1;
  *is_const = cst;
  *type = ty;
  return true;
}

// `NAME [[` follows at i: the declaration is a kernel parameter with an attribute.
bool attribute_follows(const std::string &src, size_t i) {
  size_t n = src.size();
  while (i < n && std::isspace((unsigned char)src[i])) ++i;
  while (i < n && ident_char(src[i])) ++i;
  while (i < n && std::isspace((unsigned char)src[i])) ++i;
  return i + 1 < n && src[i] == '[' && src[i + 1] == '[';
}

// The rewritten form of one declaration, or "" to keep it.
std::string rewritten(const std::string &space, bool is_ptr, bool is_const, const std::string &type) {
  bool cst = is_const || space == "constant";
  std::string inner = (cst ? "const " : "") + type;
  return (is_ptr ? "__tile_ptr<" : "__tile_ref<") + inner + "> ";
}

// At s[i] (just past `threadgroup`, at paren depth 0): `TYPE NAME[N];`, one declarator of one
// dimension, on one line. Sets *end past the `;`.
bool parse_local_array(const std::string &s, size_t i, size_t *end, std::string *type, std::string *name,
                       std::string *count) {
  size_t n = s.size();
  std::vector<std::string> words;
  for (;;) {
    while (i < n && (s[i] == ' ' || s[i] == '\t')) ++i;
    if (i < n && ident_char(s[i])) {
      size_t b = i;
      while (i < n && ident_char(s[i])) ++i;
      words.push_back(s.substr(b, i - b));
      continue;
    }
    break;
  }
  if (words.size() < 2 || i >= n || s[i] != '[') return false;
  size_t close = s.find(']', i);
  if (close == std::string::npos) return false;
  size_t j = close + 1;
  while (j < n && (s[j] == ' ' || s[j] == '\t')) ++j;
  if (j >= n || s[j] != ';') return false;
  const std::string inside = s.substr(i + 1, close - i - 1);
  if (inside.find_first_of("\n[;") != std::string::npos || inside.find_first_not_of(" \t") == std::string::npos) return false;
  *name = words.back();
  words.pop_back();
  type->clear();
  for (const std::string &w : words) *type += (type->empty() ? "" : " ") + w;
  *count = inside;
  *end = j + 1;
  return true;
}

std::vector<Rewrite> find_rewrites(const std::string &src, const std::string &clean) {
  std::vector<Rewrite> out;
  static const char *kSpaces[] = {"device", "constant", "threadgroup"};
  size_t n = clean.size();
  int depth = 0;
  for (size_t i = 0; i < n; ++i) {
    if (clean[i] == '(') ++depth;
    else if (clean[i] == ')') --depth;
    if (!ident_char(clean[i]) || (i > 0 && ident_char(clean[i - 1]))) continue;
    size_t e = i;
    while (e < n && ident_char(clean[e])) ++e;
    std::string word = clean.substr(i, e - i);
    bool space = false;
    for (const char *k : kSpaces)
      if (word == k) space = true;
    if (!space) {
      i = e - 1;
      continue;
    }
    size_t end;
    bool is_ptr, is_const;
    std::string type;
    if (parse_pointer_decl(clean, e, &end, &is_ptr, &is_const, &type)) {
      // references: kernel parameters are bound by the trampoline (whole-object bounds check);
      // others become __tile_ref (device only; threadgroup/constant references stay plain)
      bool keep = !is_ptr && (word != "device" || attribute_follows(src, end));
      if (!keep) out.push_back({i, end, rewritten(word, is_ptr, is_const, type)});
      i = end - 1;
    } else if (word == "threadgroup" && depth == 0) {
      // `threadgroup T name[N];` -> the array under another name and a checked pointer `name`
      // (compile.cpp then makes the array a function-local static, as without the detector)
      std::string local, name, count;
      if (parse_local_array(clean, e, &end, &local, &name, &count)) {
        out.push_back({i, end, "threadgroup " + local + " __tile_tg_" + name + "[" + count + "]; __tile_ptr<" + local +
                                   "> " + name + " = __tile_tg_bind(__tile_tg_" + name + ", \"" + name + "\");"});
        i = end - 1;
      } else {
        i = e - 1;
      }
    } else {
      i = e - 1;
    }
  }
  return out;
}

} // namespace

std::string instrument_body(const std::string &src, const std::string &clean, const std::string &body) {
  std::vector<Rewrite> rw = find_rewrites(src, clean);
  std::string out = body;
  for (size_t k = rw.size(); k-- > 0;) out.replace(rw[k].begin, rw[k].end - rw[k].begin, rw[k].text);
  return out;
}

std::string detect_trampoline(const KernelSig &k) {
  std::ostringstream o, sizes;
  o << "extern \"C\" __attribute__((visibility(\"default\"))) void tile_entry_" << k.name
    << "(const tile_thread *__tile_t) {\n  " << k.name << "(";
  sizes << "extern \"C\" __attribute__((visibility(\"default\"))) const unsigned tile_sizes_" << k.name << "[] = {";
  for (size_t i = 0; i < k.params.size(); ++i) {
    const KernelParam &p = k.params[i];
    o << (i ? ",\n    " : "\n    ");
    if (p.kind == KernelParam::Builtin) {
      o << builtin_argument(p);
      sizes << "0u, ";
      continue;
    }
    const bool buf = p.kind == KernelParam::Buffer;
    const std::string ptr = std::string(buf ? "__tile_t->buffers[" : "__tile_t->tg[") + std::to_string(p.index) + "]";
    const std::string region = "(__tile_t->regions ? __tile_t->regions[" +
                               std::to_string(buf ? p.index : TILE_REGION_TG + p.index) + "] : 0)";
    const std::string space = p.type.compare(0, 8, "constant") == 0 ? "constant"
                              : p.type.compare(0, 11, "threadgroup") == 0 ? "threadgroup" : "device";
    size_t at = p.type.find(space);
    size_t end;
    bool is_ptr = false, is_const = false;
    std::string type;
    if (at != std::string::npos && parse_pointer_decl(p.type, at + space.size(), &end, &is_ptr, &is_const, &type)) {
      const std::string inner = ((is_const || space == "constant") ? "const " : "") + type;
      if (is_ptr)
        o << "__tile_ptr<" << inner << ">((" << inner << " *)(" << ptr << "), " << region << ", " << p.line << ")";
      else
        o << "__tile_bind_ref<" << inner << ">(" << ptr << ", " << region << ", " << p.line << ")";
      sizes << "(unsigned)sizeof(" << inner << "), ";
    } else {
      // a form the rewrite does not know: plain pointer, unchecked
      o << "(" << p.type << ")(" << ptr << ")";
      sizes << "0u, ";
    }
  }
  o << ");\n}\n";
  sizes << "0u};\n";
  return o.str() + sizes.str();
}

} // namespace tile_host
