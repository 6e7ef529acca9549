// metal_shim.h: the <metal_stdlib> of the Tile host runtime.
//
// Prepended (with kernel_abi.h) to every MSL source the host runtime compiles as C++17. It
// defines only what Metal offers: the address-space qualifiers, scalar and vector types, the
// math builtins, as_type, select, barriers and SIMD collectives. No system header is included,
// so `std::`, printf and malloc do not exist here either (the runtime also rejects them by name).
// Barriers and collectives call back into the runtime through the table given to
// tile_kernel_init; they are macros so that the runtime can name the MSL line of each call.
#ifndef TILE_METAL_SHIM_H
#define TILE_METAL_SHIM_H

#include "kernel_abi.h"

static const tile_rt_table *__tile_rt = 0;

extern "C" __attribute__((visibility("default"))) int tile_kernel_init(const tile_rt_table *rt) {
  __tile_rt = rt;
  return TILE_KERNEL_ABI;
}

// A threadgroup array declared in a kernel body (the runtime appends this call to it).
inline void __tile_tg_local(void *p, unsigned long bytes, int line) { __tile_rt->tg_local(p, bytes, line); }

// ---- address spaces and function qualifiers (attributes [[...]] are blanked by the runtime)
#define kernel
#define device
#define threadgroup
#define constant
#define thread
#define METAL_FUNC inline __attribute__((always_inline))

// ---- scalar types
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned char uchar;
// the fixed-width names Metal's standard library gives (an MLX kernel signature says int32_t);
// 64-bit integers are not part of Tile IR, so they are left out
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef unsigned long ulong;
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;

#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
#define HUGE_VALF __builtin_huge_valf()
#define FLT_MAX 0x1.fffffep127f
#define FLT_MIN 0x1.0p-126f
#define MAXFLOAT FLT_MAX
#define INT_MAX 2147483647
#define INT_MIN (-2147483647 - 1)
#define UINT_MAX 4294967295u
#define M_PI_F 3.14159265358979323846264338327950288f
#define M_E_F 2.71828182845904523536028747135266250f
#define M_LN2_F 0.693147180559945309417232121458176568f
#define M_LOG2E_F 1.44269504088896340735992468100189214f

template <class T> struct __tile_id { typedef T type; };

// ---- vector types: float2/3/4, int2/3/4, uint2/3/4, bool2/3/4 (3-wide vectors take 4 slots)
template <class T, int N> struct __tile_vec;

#define TILE_VEC_INDEX                                                                             \
  T &operator[](int i) { return (&x)[i]; }                                                         \
  const T &operator[](int i) const { return (&x)[i]; }

template <class T> struct alignas(2 * sizeof(T)) __tile_vec<T, 2> {
  T x, y;
  __tile_vec() = default;
  __tile_vec(T s) : x(s), y(s) {}
  __tile_vec(T a, T b) : x(a), y(b) {}
  template <class U> explicit __tile_vec(const __tile_vec<U, 2> &o) : x(T(o.x)), y(T(o.y)) {}
  TILE_VEC_INDEX
};

template <class T> struct alignas(4 * sizeof(T)) __tile_vec<T, 3> {
  T x, y, z;
  __tile_vec() = default;
  __tile_vec(T s) : x(s), y(s), z(s) {}
  __tile_vec(T a, T b, T c) : x(a), y(b), z(c) {}
  __tile_vec(__tile_vec<T, 2> a, T c) : x(a.x), y(a.y), z(c) {}
  __tile_vec(T a, __tile_vec<T, 2> b) : x(a), y(b.x), z(b.y) {}
  template <class U>
  explicit __tile_vec(const __tile_vec<U, 3> &o) : x(T(o.x)), y(T(o.y)), z(T(o.z)) {}
  TILE_VEC_INDEX
};

template <class T> struct alignas(4 * sizeof(T)) __tile_vec<T, 4> {
  T x, y, z, w;
  __tile_vec() = default;
  __tile_vec(T s) : x(s), y(s), z(s), w(s) {}
  __tile_vec(T a, T b, T c, T d) : x(a), y(b), z(c), w(d) {}
  __tile_vec(__tile_vec<T, 2> a, __tile_vec<T, 2> b) : x(a.x), y(a.y), z(b.x), w(b.y) {}
  __tile_vec(__tile_vec<T, 2> a, T c, T d) : x(a.x), y(a.y), z(c), w(d) {}
  __tile_vec(T a, T b, __tile_vec<T, 2> c) : x(a), y(b), z(c.x), w(c.y) {}
  __tile_vec(__tile_vec<T, 3> a, T d) : x(a.x), y(a.y), z(a.z), w(d) {}
  __tile_vec(T a, __tile_vec<T, 3> b) : x(a), y(b.x), z(b.y), w(b.z) {}
  template <class U>
  explicit __tile_vec(const __tile_vec<U, 4> &o) : x(T(o.x)), y(T(o.y)), z(T(o.z)), w(T(o.w)) {}
  TILE_VEC_INDEX
};

typedef __tile_vec<float, 2> float2;
typedef __tile_vec<float, 3> float3;
typedef __tile_vec<float, 4> float4;
// packed vectors: four elements with the element's own alignment (4 bytes), as Metal's packed_*
// types; reading one through a pointer that is not 16-byte aligned is valid, as on the GPU
template <class T> struct __tile_packed4 {
  T x, y, z, w;
  TILE_VEC_INDEX
};
typedef __tile_packed4<float> packed_float4;
typedef __tile_packed4<int> packed_int4;

// The bits of a value read as another type of the same size: Metal's as_type, the 16-bit
// conversions below and the SIMD rendezvous all use this one cast.
template <class T, class U> inline T __tile_bit_cast(U u) {
  static_assert(sizeof(T) == sizeof(U), "bit cast: sizes differ");
  T t;
  __builtin_memcpy(&t, &u, sizeof(T));
  return t;
}

// ---- 16-bit floats: half (IEEE binary16) and bfloat (the top half of a binary32). Storage types:
// a value converts to float exactly, and a float converts to them rounding to nearest, ties to
// even (Metal's default rounding for these conversions); NaN stays NaN (quiet), overflow gives
// infinity. Only conversions are defined: Tile's kernels compute in float.
struct half {
  unsigned short bits;
  half() = default;
  half(float f) : bits(from_float(f)) {}
  operator float() const { return to_float(bits); }
  static float to_float(unsigned short h) {
    const unsigned sign = unsigned(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    unsigned bits;
    if (e == 31) bits = sign | 0x7f800000u | (m << 13);               // inf, NaN (payload kept)
    else if (e != 0) bits = sign | ((e + 112) << 23) | (m << 13);      // normal: rebias 15 -> 127
    else if (m == 0) bits = sign;                                      // +-0
    else {                                                             // subnormal: m * 2^-24
      int shift = 0;
      unsigned mm = m;
      while (!(mm & 0x400u)) { mm <<= 1; ++shift; }
      bits = sign | (unsigned(113 - shift) << 23) | ((mm & 0x3ffu) << 13);
    }
    return __tile_bit_cast<float>(bits);
  }
  static unsigned short from_float(float f) {
    const unsigned x = __tile_bit_cast<unsigned>(f);
    const unsigned short sign = (unsigned short)((x >> 16) & 0x8000u);
    const unsigned a = x & 0x7fffffffu;
    if (a > 0x7f800000u) return (unsigned short)(sign | 0x7e00u | ((a >> 13) & 0x1ffu)); // quiet NaN
    if (a >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);   // rounds to >= 2^16: infinity
    if (a < 0x38800000u) {                                            // below 2^-14: subnormal or 0
      if (a < 0x33000000u) return sign;                               // below 2^-25: rounds to 0
      const unsigned e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
      const unsigned shift = 126 - e;                                 // value = m * 2^(e-150); unit 2^-24
      const unsigned q = m >> shift, rem = m & ((1u << shift) - 1), halfway = 1u << (shift - 1);
      const unsigned r = q + ((rem > halfway || (rem == halfway && (q & 1u))) ? 1u : 0u);
      return (unsigned short)(sign | r);
    }
    const unsigned rebased = a - 0x38000000u;                         // exponent 127 -> 15
    const unsigned q = rebased >> 13, rem = rebased & 0x1fffu;
    const unsigned r = q + ((rem > 0x1000u || (rem == 0x1000u && (q & 1u))) ? 1u : 0u);
    return (unsigned short)(sign | r);
  }
};
struct bfloat {
  unsigned short bits;
  bfloat() = default;
  bfloat(float f) : bits(from_float(f)) {}
  operator float() const { return to_float(bits); }
  static float to_float(unsigned short b) {
    return __tile_bit_cast<float>(unsigned(b) << 16);
  }
  static unsigned short from_float(float f) {
    const unsigned x = __tile_bit_cast<unsigned>(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((x >> 16) | 0x40u); // quiet NaN
    const unsigned rem = x & 0xffffu, q = x >> 16;
    return (unsigned short)(q + ((rem > 0x8000u || (rem == 0x8000u && (q & 1u))) ? 1u : 0u));
  }
};
typedef __tile_packed4<half> packed_half4;
typedef __tile_packed4<bfloat> packed_bfloat4;
typedef __tile_vec<int, 2> int2;
typedef __tile_vec<int, 3> int3;
typedef __tile_vec<int, 4> int4;
typedef __tile_vec<uint, 2> uint2;
typedef __tile_vec<uint, 3> uint3;
typedef __tile_vec<uint, 4> uint4;
typedef __tile_vec<ushort, 2> ushort2;
typedef __tile_vec<ushort, 3> ushort3;
typedef __tile_vec<bool, 2> bool2;
typedef __tile_vec<bool, 3> bool3;
typedef __tile_vec<bool, 4> bool4;

#define TILE_VEC_BINOP(op)                                                                         \
  template <class T, int N>                                                                        \
  inline __tile_vec<T, N> operator op(__tile_vec<T, N> a, const __tile_vec<T, N> &b) {             \
    for (int i = 0; i < N; ++i) a[i] = a[i] op b[i];                                               \
    return a;                                                                                      \
  }                                                                                                \
  template <class T, int N>                                                                        \
  inline __tile_vec<T, N> operator op(__tile_vec<T, N> a, typename __tile_id<T>::type b) {         \
    for (int i = 0; i < N; ++i) a[i] = a[i] op b;                                                  \
    return a;                                                                                      \
  }                                                                                                \
  template <class T, int N>                                                                        \
  inline __tile_vec<T, N> operator op(typename __tile_id<T>::type a, __tile_vec<T, N> b) {         \
    for (int i = 0; i < N; ++i) b[i] = a op b[i];                                                  \
    return b;                                                                                      \
  }                                                                                                \
  template <class T, int N>                                                                        \
  inline __tile_vec<T, N> &operator op##=(__tile_vec<T, N> &a, const __tile_vec<T, N> &b) {        \
    for (int i = 0; i < N; ++i) a[i] = a[i] op b[i];                                               \
    return a;                                                                                      \
  }                                                                                                \
  template <class T, int N>                                                                        \
  inline __tile_vec<T, N> &operator op##=(__tile_vec<T, N> &a, typename __tile_id<T>::type b) {    \
    for (int i = 0; i < N; ++i) a[i] = a[i] op b;                                                  \
    return a;                                                                                      \
  }
TILE_VEC_BINOP(+)
TILE_VEC_BINOP(-)
TILE_VEC_BINOP(*)
TILE_VEC_BINOP(/)
TILE_VEC_BINOP(%)
TILE_VEC_BINOP(&)
TILE_VEC_BINOP(|)
TILE_VEC_BINOP(^)
TILE_VEC_BINOP(<<)
TILE_VEC_BINOP(>>)

template <class T, int N> inline __tile_vec<T, N> operator-(__tile_vec<T, N> a) {
  for (int i = 0; i < N; ++i) a[i] = -a[i];
  return a;
}

#define TILE_VEC_CMP(op)                                                                           \
  template <class T, int N>                                                                        \
  inline __tile_vec<bool, N> operator op(const __tile_vec<T, N> &a, const __tile_vec<T, N> &b) {   \
    __tile_vec<bool, N> r;                                                                         \
    for (int i = 0; i < N; ++i) r[i] = a[i] op b[i];                                               \
    return r;                                                                                      \
  }                                                                                                \
  template <class T, int N>                                                                        \
  inline __tile_vec<bool, N> operator op(const __tile_vec<T, N> &a, typename __tile_id<T>::type b) { \
    __tile_vec<bool, N> r;                                                                         \
    for (int i = 0; i < N; ++i) r[i] = a[i] op b;                                                  \
    return r;                                                                                      \
  }
TILE_VEC_CMP(<)
TILE_VEC_CMP(<=)
TILE_VEC_CMP(>)
TILE_VEC_CMP(>=)
TILE_VEC_CMP(==)
TILE_VEC_CMP(!=)

// ---- math, in namespace metal (and metal::precise / metal::fast)
enum class mem_flags { mem_none = 0, mem_device = 1, mem_threadgroup = 2, mem_texture = 4 };
inline mem_flags operator|(mem_flags a, mem_flags b) { return mem_flags(int(a) | int(b)); }

namespace metal {
using ::mem_flags;

#define TILE_MATH1(name, expr)                                                                     \
  inline float name(float x) { return expr; }                                                      \
  template <int N> inline __tile_vec<float, N> name(__tile_vec<float, N> v) {                      \
    for (int i = 0; i < N; ++i) v[i] = name(v[i]);                                                 \
    return v;                                                                                      \
  }
#define TILE_MATH2(name, expr)                                                                     \
  inline float name(float x, float y) { return expr; }                                             \
  template <int N> inline __tile_vec<float, N> name(__tile_vec<float, N> a, __tile_vec<float, N> b) { \
    for (int i = 0; i < N; ++i) a[i] = name(a[i], b[i]);                                           \
    return a;                                                                                      \
  }

TILE_MATH1(exp, __builtin_expf(x))
TILE_MATH1(exp2, __builtin_exp2f(x))
TILE_MATH1(exp10, __builtin_powf(10.0f, x))
TILE_MATH1(log, __builtin_logf(x))
TILE_MATH1(log2, __builtin_log2f(x))
TILE_MATH1(log10, __builtin_log10f(x))
TILE_MATH1(sqrt, __builtin_sqrtf(x))
TILE_MATH1(rsqrt, 1.0f / __builtin_sqrtf(x))
TILE_MATH1(tanh, __builtin_tanhf(x))
TILE_MATH1(sin, __builtin_sinf(x))
TILE_MATH1(cos, __builtin_cosf(x))
TILE_MATH1(tan, __builtin_tanf(x))
TILE_MATH1(fabs, __builtin_fabsf(x))
TILE_MATH1(floor, __builtin_floorf(x))
TILE_MATH1(ceil, __builtin_ceilf(x))
TILE_MATH1(round, __builtin_roundf(x))
TILE_MATH1(rint, __builtin_rintf(x))
TILE_MATH1(trunc, __builtin_truncf(x))
TILE_MATH1(fract, x - __builtin_floorf(x))
TILE_MATH1(sign, x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x))
TILE_MATH1(saturate, __builtin_fminf(__builtin_fmaxf(x, 0.0f), 1.0f))
TILE_MATH2(pow, __builtin_powf(x, y))
TILE_MATH2(powr, __builtin_powf(x, y))
TILE_MATH2(fmin, __builtin_fminf(x, y))
TILE_MATH2(fmax, __builtin_fmaxf(x, y))
TILE_MATH2(fmod, __builtin_fmodf(x, y))
TILE_MATH2(copysign, __builtin_copysignf(x, y))
TILE_MATH2(divide, x / y)
TILE_MATH2(step, y < x ? 0.0f : 1.0f)

inline float abs(float x) { return __builtin_fabsf(x); }
// on uint: abs(INT_MIN) = INT_MIN without signed overflow
inline int abs(int x) { return x < 0 ? int(0u - uint(x)) : x; }
inline float min(float a, float b) { return __builtin_fminf(a, b); }
inline float max(float a, float b) { return __builtin_fmaxf(a, b); }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline uint min(uint a, uint b) { return a < b ? a : b; }
inline uint max(uint a, uint b) { return a > b ? a : b; }
template <class T> inline T clamp(T x, typename __tile_id<T>::type lo, typename __tile_id<T>::type hi) {
  return min(max(x, lo), hi);
}
template <class T, int N> inline __tile_vec<T, N> abs(__tile_vec<T, N> v) {
  for (int i = 0; i < N; ++i) v[i] = abs(v[i]);
  return v;
}
template <class T, int N> inline __tile_vec<T, N> min(__tile_vec<T, N> a, __tile_vec<T, N> b) {
  for (int i = 0; i < N; ++i) a[i] = min(a[i], b[i]);
  return a;
}
template <class T, int N> inline __tile_vec<T, N> max(__tile_vec<T, N> a, __tile_vec<T, N> b) {
  for (int i = 0; i < N; ++i) a[i] = max(a[i], b[i]);
  return a;
}
template <class T, int N>
inline __tile_vec<T, N> clamp(__tile_vec<T, N> x, __tile_vec<T, N> lo, __tile_vec<T, N> hi) {
  return min(max(x, lo), hi);
}
inline float fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
inline float mix(float a, float b, float t) { return a + (b - a) * t; }
template <int N> inline float dot(__tile_vec<float, N> a, __tile_vec<float, N> b) {
  float s = 0.0f;
  for (int i = 0; i < N; ++i) s += a[i] * b[i];
  return s;
}
inline bool isnan(float x) { return __builtin_isnan(x); }
inline bool isinf(float x) { return __builtin_isinf(x); }
inline bool isfinite(float x) { return __builtin_isfinite(x); }
template <int N> inline bool all(__tile_vec<bool, N> v) {
  for (int i = 0; i < N; ++i)
    if (!v[i]) return false;
  return true;
}
template <int N> inline bool any(__tile_vec<bool, N> v) {
  for (int i = 0; i < N; ++i)
    if (v[i]) return true;
  return false;
}

// select(false_value, true_value, condition)
template <class A, class B> inline auto select(A a, B b, bool c) -> decltype(c ? A(a) : B(b)) {
  return c ? b : a;
}
template <class T, int N>
inline __tile_vec<T, N> select(__tile_vec<T, N> a, __tile_vec<T, N> b, __tile_vec<bool, N> c) {
  for (int i = 0; i < N; ++i) a[i] = c[i] ? b[i] : a[i];
  return a;
}

template <class T, class U> inline T as_type(U u) { return __tile_bit_cast<T>(u); }

namespace precise {
using metal::cos; using metal::divide; using metal::exp; using metal::exp2; using metal::log;
using metal::log2; using metal::pow; using metal::powr; using metal::rsqrt; using metal::sin;
using metal::sqrt; using metal::tanh; using metal::tan; using metal::fmin; using metal::fmax;
using metal::exp10; using metal::log10;
} // namespace precise
namespace fast {
using metal::cos; using metal::divide; using metal::exp; using metal::exp2; using metal::log;
using metal::log2; using metal::pow; using metal::powr; using metal::rsqrt; using metal::sin;
using metal::sqrt; using metal::tanh; using metal::tan; using metal::fmin; using metal::fmax;
using metal::exp10; using metal::log10;
} // namespace fast

// ---- barriers and SIMD collectives (rendezvous in the runtime)
inline void __tile_threadgroup_barrier(int line, mem_flags f) { __tile_rt->barrier(int(f), line); }
inline void __tile_simdgroup_barrier(int line, mem_flags) {
  __tile_rt->simd(TILE_SIMD_BARRIER, TILE_T_U32, 0u, 0, line);
}

template <class T> struct __tile_ty;
template <> struct __tile_ty<float> { enum { id = TILE_T_F32 }; };
template <> struct __tile_ty<int> { enum { id = TILE_T_I32 }; };
template <> struct __tile_ty<uint> { enum { id = TILE_T_U32 }; };

template <class T> inline T __tile_simd(int op, T v, int arg, int line) {
  const unsigned bits = __tile_rt->simd(op, __tile_ty<T>::id, __tile_bit_cast<unsigned>(v), arg, line);
  return __tile_bit_cast<T>(bits);
}
template <class T, int N> inline __tile_vec<T, N> __tile_simd(int op, __tile_vec<T, N> v, int arg, int line) {
  for (int i = 0; i < N; ++i) v[i] = __tile_simd(op, v[i], arg, line);
  return v;
}

#define TILE_SIMD_FN1(name, op)                                                                    \
  template <class T> inline T name(int line, T v) { return __tile_simd(op, v, 0, line); }
#define TILE_SIMD_FN2(name, op)                                                                    \
  template <class T> inline T name(int line, T v, uint a) { return __tile_simd(op, v, int(a), line); }
TILE_SIMD_FN1(__tile_simd_sum, TILE_SIMD_SUM)
TILE_SIMD_FN1(__tile_simd_product, TILE_SIMD_PRODUCT)
TILE_SIMD_FN1(__tile_simd_max, TILE_SIMD_MAX)
TILE_SIMD_FN1(__tile_simd_min, TILE_SIMD_MIN)
TILE_SIMD_FN1(__tile_simd_and, TILE_SIMD_AND)
TILE_SIMD_FN1(__tile_simd_or, TILE_SIMD_OR)
TILE_SIMD_FN1(__tile_simd_xor, TILE_SIMD_XOR)
TILE_SIMD_FN1(__tile_simd_broadcast_first, TILE_SIMD_BROADCAST_FIRST)
TILE_SIMD_FN1(__tile_simd_prefix_inclusive_sum, TILE_SIMD_PREFIX_INCLUSIVE_SUM)
TILE_SIMD_FN1(__tile_simd_prefix_exclusive_sum, TILE_SIMD_PREFIX_EXCLUSIVE_SUM)
TILE_SIMD_FN2(__tile_simd_broadcast, TILE_SIMD_BROADCAST)
TILE_SIMD_FN2(__tile_simd_shuffle, TILE_SIMD_SHUFFLE)
TILE_SIMD_FN2(__tile_simd_shuffle_down, TILE_SIMD_SHUFFLE_DOWN)
TILE_SIMD_FN2(__tile_simd_shuffle_up, TILE_SIMD_SHUFFLE_UP)
TILE_SIMD_FN2(__tile_simd_shuffle_xor, TILE_SIMD_SHUFFLE_XOR)
inline bool __tile_simd_all(int line, bool v) {
  return __tile_simd(TILE_SIMD_ALL, uint(v), 0, line) != 0u;
}
inline bool __tile_simd_any(int line, bool v) {
  return __tile_simd(TILE_SIMD_ANY, uint(v), 0, line) != 0u;
}
} // namespace metal

// The macros expand to metal:: functions; make them reachable without `using namespace metal`.
using metal::__tile_threadgroup_barrier; using metal::__tile_simdgroup_barrier;
using metal::__tile_simd_sum; using metal::__tile_simd_product; using metal::__tile_simd_max;
using metal::__tile_simd_min; using metal::__tile_simd_and; using metal::__tile_simd_or;
using metal::__tile_simd_xor; using metal::__tile_simd_broadcast_first;
using metal::__tile_simd_prefix_inclusive_sum; using metal::__tile_simd_prefix_exclusive_sum;
using metal::__tile_simd_broadcast; using metal::__tile_simd_shuffle;
using metal::__tile_simd_shuffle_down; using metal::__tile_simd_shuffle_up;
using metal::__tile_simd_shuffle_xor; using metal::__tile_simd_all; using metal::__tile_simd_any;

#define threadgroup_barrier(...) __tile_threadgroup_barrier(__LINE__, __VA_ARGS__)
#define simdgroup_barrier(...) __tile_simdgroup_barrier(__LINE__, __VA_ARGS__)
#define simd_sum(...) __tile_simd_sum(__LINE__, __VA_ARGS__)
#define simd_product(...) __tile_simd_product(__LINE__, __VA_ARGS__)
#define simd_max(...) __tile_simd_max(__LINE__, __VA_ARGS__)
#define simd_min(...) __tile_simd_min(__LINE__, __VA_ARGS__)
#define simd_and(...) __tile_simd_and(__LINE__, __VA_ARGS__)
#define simd_or(...) __tile_simd_or(__LINE__, __VA_ARGS__)
#define simd_xor(...) __tile_simd_xor(__LINE__, __VA_ARGS__)
#define simd_broadcast_first(...) __tile_simd_broadcast_first(__LINE__, __VA_ARGS__)
#define simd_prefix_inclusive_sum(...) __tile_simd_prefix_inclusive_sum(__LINE__, __VA_ARGS__)
#define simd_prefix_exclusive_sum(...) __tile_simd_prefix_exclusive_sum(__LINE__, __VA_ARGS__)
#define simd_broadcast(...) __tile_simd_broadcast(__LINE__, __VA_ARGS__)
#define simd_shuffle(...) __tile_simd_shuffle(__LINE__, __VA_ARGS__)
#define simd_shuffle_down(...) __tile_simd_shuffle_down(__LINE__, __VA_ARGS__)
#define simd_shuffle_up(...) __tile_simd_shuffle_up(__LINE__, __VA_ARGS__)
#define simd_shuffle_xor(...) __tile_simd_shuffle_xor(__LINE__, __VA_ARGS__)
#define simd_all(...) __tile_simd_all(__LINE__, __VA_ARGS__)
#define simd_any(...) __tile_simd_any(__LINE__, __VA_ARGS__)

#endif // TILE_METAL_SHIM_H
