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
  "INT_MIN", "INT_MAX", "threadgroup_barrier", "simd_sum", "simd_max", "simd_min",
  // locals and arguments the emitter generates
  "tid", "group", "lane", "sg", "program_in_group", "worker", "partial_base", "logical", "live",
  "k", "j", "i", "row", "col", "col0", "main", "wide", "w0", "w1",
  // packed vector types of V-wide loads
  "packed_float4", "packed_int4",
];

/** Prefixes of generated names (accumulators, partials, caches, helpers, chunk counts). */
const RESERVED_PREFIXES: Array<string> = ["acc_", "part_", "cache_", "chunks_", "tile_", "__"];

function isIdentChar(c: i32): bool {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95;
}

/** Every character outside [A-Za-z0-9_] becomes '_'; a leading digit (or nothing) gets 'k'. */
export function sanitize(name: string): string {
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
  if (s.length < 3 || s.substring(0, 2) != "tg") return false;
  for (let i: i32 = 2; i < s.length; i++) {
    const c: i32 = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function isReserved(s: string): bool {
  if (RESERVED.indexOf(s) >= 0 || isTgName(s)) return true;
  for (let i: i32 = 0; i < RESERVED_PREFIXES.length; i++) {
    const p = RESERVED_PREFIXES[i];
    if (s.length >= p.length && s.substring(0, p.length) == p) return true;
  }
  // identifiers starting with '_' and an uppercase letter are reserved in C++
  if (s.length >= 2 && s.charCodeAt(0) == 95 && s.charCodeAt(1) >= 65 && s.charCodeAt(1) <= 90) return true;
  return false;
}

/** IR name -> MSL identifier, one entry per distinct IR name, assigned in document order. */
export class Names {
  irNames: Array<string> = new Array<string>();
  idents: Array<string> = new Array<string>();

  /** The identifier of a buffer (parameter) name. */
  buf(name: string): string {
    return this.assign("b:" + name, name);
  }

  /** The identifier of a loop, axis or scalar name. */
  of(name: string): string {
    return this.assign("n:" + name, name);
  }

  assign(key: string, name: string): string {
    const i = this.irNames.indexOf(key);
    if (i >= 0) return this.idents[i];
    let cand: string = sanitize(name);
    if (isReserved(cand)) cand = "v_" + cand;
    while (this.idents.indexOf(cand) >= 0 || isReserved(cand)) cand = cand + "_";
    this.irNames.push(key);
    this.idents.push(cand);
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
