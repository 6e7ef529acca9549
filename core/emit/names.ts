// Identifiers of emitted MSL. IR names are arbitrary strings; each becomes a C identifier that
// cannot collide with an MSL/C++ keyword, a Metal library name the kernel calls, or a name the
// emitter itself generates. Names are presentation only: nothing is decided from them.

import { Doc, Expr, Stmt } from "../ir/ast";

/** Words an IR name may never become (keywords, types, library functions, generated locals). */
const RESERVED: Array<string> = [
  // C++ / MSL keywords and alternative tokens
  "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case",
  "catch", "char", "class", "compl", "const", "constexpr", "const_cast", "continue", "decltype",
  "default", "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern",
  "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace",
  "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected",
  "public", "register", "reinterpret_cast", "return", "short", "signed", "sizeof", "static",
  "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw",
  "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
  "volatile", "wchar_t", "while", "xor", "xor_eq",
  // Metal address spaces, attributes and types
  "kernel", "vertex", "fragment", "device", "threadgroup", "thread", "constant", "metal", "precise",
  "fast", "half", "uint", "ushort", "uchar", "size_t", "ptrdiff_t", "mem_flags", "float2", "float3",
  "float4", "int2", "int3", "int4", "uint2", "uint3", "uint4", "half2", "half4", "bool2", "bool4",
  // library functions and macros the emitted code uses
  "min", "max", "abs", "fabs", "exp", "log", "sqrt", "rsqrt", "tanh", "select", "INFINITY", "NAN",
  "fma", "copysign", "erf",
  "INT_MIN", "INT_MAX", "threadgroup_barrier", "simd_sum", "simd_max", "simd_min", "simd_any",
  "simd_all", "as_type", "buffer",
  // locals and arguments the emitter generates
  "tid", "group", "lane", "sg", "program_in_group", "worker", "partial_base", "logical", "live",
  "k", "j", "i", "row", "col", "col0", "main", "wide", "w0", "w1",
  // packed vector types of V-wide loads
  "packed_float4", "packed_int4", "packed_half4", "packed_bfloat4",
  // Metal address spaces, qualifiers and attributes not listed above
  "ray_data", "object_data", "threadgroup_imageblock", "imageblock", "visible", "stitchable",
  "intersection", "mesh", "object", "patch", "vertex_id", "instance_id", "sampler", "texture",
  "array", "array_ref", "vec", "matrix", "atomic", "atomic_int", "atomic_uint", "atomic_bool",
  "atomic_float", "simd", "raytracing", "metal_stdlib", "bfloat", "ulong", "uintptr_t", "intptr_t",
  "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
  "nullptr_t", "max_align_t", "std",
  // macros of the Metal standard library (and the C/C++ headers behind the host and CUDA shims)
  "MAXFLOAT", "MAXHALF", "HUGE_VALF", "HUGE_VALH", "HUGE_VAL", "NULL", "EOF", "assert", "offsetof",
  "FP_ILOGB0", "FP_ILOGBNAN", "FP_NAN", "FP_INFINITE", "FP_ZERO", "FP_SUBNORMAL", "FP_NORMAL",
  // helpers the host and CUDA preludes define around the emitted text
  "fabs", "fmin", "fmax", "isnan", "isinf", "signbit", "copysign", "trunc", "floor", "ceil",
  "round", "rint", "fmod", "pow", "powr", "exp2", "log2", "sin", "cos", "tan", "clamp", "mix",
];

/**
 * Prefixes that are macro families of the Metal standard library (FLT_MAX, M_PI_F, M_PI_H,
 * HALF_EPSILON, INT_MAX, ...) or of the C headers: an IR name starting with one is renamed.
 */
const MACRO_PREFIXES: Array<string> = [
  "FLT_", "DBL_", "LDBL_", "HALF_", "BFLOAT_", "M_", "INT_", "UINT_", "LONG_", "ULONG_", "LLONG_",
  "ULLONG_", "SHRT_", "USHRT_", "CHAR_", "SCHAR_", "UCHAR_", "INT8_", "INT16_", "INT32_", "INT64_",
  "UINT8_", "UINT16_", "UINT32_", "UINT64_", "SIZE_", "PTRDIFF_", "FP_", "MTL", "METAL_", "__",
  "TILE_", "CUDA", "HUGE_", "simd_", "quad_",
];

/** Scalar and vector type names: float, float4, half3x2, uint2, packed_float3, bool4, ... */
const TYPE_STEMS: Array<string> = [
  "float", "half", "bfloat", "double", "int", "uint", "short", "ushort", "char", "uchar", "long",
  "ulong", "bool", "packed_float", "packed_half", "packed_int", "packed_uint", "packed_short",
  "packed_ushort", "packed_char", "packed_uchar", "packed_bfloat", "packed_long", "packed_ulong",
  "simd_float", "simd_half", "simd_int", "simd_uint",
];

function isDigits(s: string, from: i32): bool {
  if (from >= s.length) return false;
  for (let i: i32 = from; i < s.length; i++) {
    const c: i32 = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** `stem` followed by digits, optionally "x" and digits (float4, half3x2). */
function isTypeName(s: string): bool {
  // every such name ends in a digit
  if (s.length < 2) return false;
  const last: i32 = s.charCodeAt(s.length - 1);
  if (last < 48 || last > 57) return false;
  for (let k: i32 = 0; k < TYPE_STEMS.length; k++) {
    const t = TYPE_STEMS[k];
    if (s.length <= t.length || !s.startsWith(t)) continue;
    const rest = s.substring(t.length);
    const x = rest.indexOf("x");
    if (x < 0 && isDigits(rest, 0)) return true;
    if (x > 0 && isDigits(rest.substring(0, x), 0) && isDigits(rest, x + 1)) return true;
  }
  return false;
}

/** Prefixes of generated names (accumulators, partials, caches, helpers, chunk counts). */
const RESERVED_PREFIXES: Array<string> = ["acc_", "part_", "cache_", "chunks_", "tile_", "__"];

function isIdentChar(c: i32): bool {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95;
}

/** Every character outside [A-Za-z0-9_] becomes '_'; a leading digit (or nothing) gets 'k'. */
export function sanitize(name: string): string {
  let plain = name.length > 0;
  for (let i: i32 = 0; i < name.length; i++) {
    if (!isIdentChar(name.charCodeAt(i))) {
      plain = false;
      break;
    }
  }
  if (plain) {
    // already an identifier (the usual case): no copy
    const c0: i32 = name.charCodeAt(0);
    return c0 >= 48 && c0 <= 57 ? "k" + name : name;
  }
  const parts = new Array<string>();
  for (let i: i32 = 0; i < name.length; i++) {
    const c: i32 = name.charCodeAt(i);
    parts.push(isIdentChar(c) ? String.fromCharCode(c) : "_");
  }
  let s: string = parts.join("");
  if (s.length == 0) return "k";
  const c0: i32 = s.charCodeAt(0);
  if (c0 >= 48 && c0 <= 57) s = "k" + s;
  return s;
}

/** "tg" followed by digits only: the threadgroup partial arguments. */
function isTgName(s: string): bool {
  if (s.length < 3 || !s.startsWith("tg")) return false;
  for (let i: i32 = 2; i < s.length; i++) {
    const c: i32 = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** s without its last "_" and the digits after it, where s ends so ("acc_s_12" -> "acc_s"); ""
 *  otherwise (also for "_12", whose stem would be empty). */
function digitStem(s: string): string {
  const p = s.lastIndexOf("_");
  if (p <= 0 || p + 1 >= s.length || !isDigits(s, p + 1)) return "";
  return s.substring(0, p);
}

/** RESERVED as a set, made once (a lookup per candidate instead of a scan of the list). */
const RESERVED_SET: Set<string> = reservedSet();

function reservedSet(): Set<string> {
  const out = new Set<string>();
  for (let i: i32 = 0; i < RESERVED.length; i++) out.add(RESERVED[i]);
  return out;
}

function isReserved(s: string): bool {
  if (RESERVED_SET.has(s) || isTgName(s) || isTypeName(s)) return true;
  // every macro prefix starts with an uppercase letter or '_'
  const c0: i32 = s.length > 0 ? s.charCodeAt(0) : 0;
  if ((c0 >= 65 && c0 <= 90) || c0 == 95) for (let i: i32 = 0; i < MACRO_PREFIXES.length; i++) {
    const p = MACRO_PREFIXES[i];
    if (s.length >= p.length && s.startsWith(p)) return true;
  }
  for (let i: i32 = 0; i < RESERVED_PREFIXES.length; i++) {
    const p = RESERVED_PREFIXES[i];
    if (s.length >= p.length && s.startsWith(p)) return true;
  }
  // identifiers starting with '_' and an uppercase letter are reserved in C++
  if (s.length >= 2 && s.charCodeAt(0) == 95 && s.charCodeAt(1) >= 65 && s.charCodeAt(1) <= 90) return true;
  return false;
}

/** IR name -> MSL identifier, one entry per distinct IR name, assigned in document order. */
export class Names {
  /** "b:" or "n:" and the IR name, per entry (for messages). */
  irNames: Array<string> = new Array<string>();
  idents: Array<string> = new Array<string>();
  /** Per entry: the IR name and whether it is a buffer's (the lookup compares these, no key is built). */
  raw: Array<string> = new Array<string>();
  isBuf: Array<bool> = new Array<bool>();
  /** Entry of each buffer name and of each other name; every identifier; and the stems of the
   *  identifiers that end in "_" and digits (maps and sets: a document of 40,000 lets took 57 s
   *  to emit with a scan of every entry per lookup). */
  bufEntry: Map<string, i32> = new Map<string, i32>();
  nameEntry: Map<string, i32> = new Map<string, i32>();
  identSet: Set<string> = new Set<string>();
  stems: Set<string> = new Set<string>();

  /** The identifier of a buffer (parameter) name. */
  buf(name: string): string {
    return this.lookup(true, name);
  }

  /** The identifier of a loop, axis or scalar name. */
  of(name: string): string {
    return this.lookup(false, name);
  }

  lookup(isBuf: bool, name: string): string {
    const m = isBuf ? this.bufEntry : this.nameEntry;
    if (m.has(name)) return this.idents[<i32>m.get(name)];
    return this.assign(isBuf, name);
  }

  /**
   * True when `cand` is another identifier followed by "_" and digits, or the other way round.
   * Generated names append "_<u>" to an identifier (acc_s_0, acc_s_1 for a reduce `s` unrolled
   * twice), so without this a reduce named `s_0` would declare acc_s_0 too.
   */
  suffixClash(cand: string): bool {
    // cand = o + "_" + digits: the "_" is cand's last (digits hold none), o an identifier
    const st = digitStem(cand);
    if (st.length > 0 && this.identSet.has(st)) return true;
    // o = cand + "_" + digits: cand is the stem of an identifier
    return this.stems.has(cand);
  }

  /** A new entry: the first candidate identifier that collides with nothing. */
  assign(isBuf: bool, name: string): string {
    let cand: string = sanitize(name);
    if (isReserved(cand)) cand = "v_" + cand;
    while (this.identSet.has(cand) || isReserved(cand) || this.suffixClash(cand)) {
      // "_" + "_" would start a reserved "__" name forever (two names that both sanitize to "_",
      // such as "+" and "-" or two non-ASCII names): move such a candidate behind "v_"
      const next = cand + "_";
      cand = isReserved(next) ? "v_" + next : next;
    }
    this.irNames.push((isBuf ? "b:" : "n:") + name);
    this.idents.push(cand);
    this.raw.push(name);
    this.isBuf.push(isBuf);
    (isBuf ? this.bufEntry : this.nameEntry).set(name, this.idents.length - 1);
    this.identSet.add(cand);
    const st = digitStem(cand);
    if (st.length > 0) this.stems.add(st);
    return cand;
  }
}

function collectExpr(e: Expr, names: Names): void {
  if (e.op == "name" && e.ref != "size") names.of(e.name);
  for (let i: i32 = 0; i < e.args.length; i++) collectExpr(e.args[i], names);
}

function collectList(list: Array<Stmt>, names: Names): void {
  for (let i: i32 = 0; i < list.length; i++) {
    const s = list[i];
    if (s.kind == "for" || s.kind == "let" || s.kind == "reduce") names.of(s.name);
    if (s.kind == "reduce") names.of(s.axis);
    collectExpr(s.min, names);
    collectExpr(s.extent, names);
    collectExpr(s.step, names);
    collectExpr(s.value, names);
    collectExpr(s.cond, names);
    for (let k: i32 = 0; k < s.at.length; k++) collectExpr(s.at[k], names);
    collectList(s.body, names);
    collectList(s.orelse, names);
  }
}

/** Identifiers for every parameter, then every bound name, in document order (deterministic). */
export function namesFor(doc: Doc): Names {
  const names = new Names();
  for (let i: i32 = 0; i < doc.params.length; i++) names.buf(doc.params[i].name);
  collectList(doc.body, names);
  return names;
}
