// msl_prelude.cuh: the <metal_stdlib> of the Tile CUDA runtime.
//
// Prepended to every MSL source the CUDA runtime compiles with NVRTC (nvcc where NVRTC is
// missing). It gives MSL's vocabulary its Metal meaning on an NVIDIA GPU and includes nothing:
//   - address spaces `device`, `constant`, `thread` are rewritten by the runtime to nothing
//     (`constant` to `const`); `threadgroup` too, except that a `threadgroup T a[N];` declared
//     in a kernel body becomes `__shared__` (same lengths, so columns hold);
//   - `uint`, `ushort`, `uchar`; `packed_float4` / `packed_int4` are 16 bytes with 4-byte
//     alignment and indexable, like Metal's packed vectors; `half` and `bfloat` are 16-bit
//     storage types with exact conversions to and from float (packed_half4, packed_bfloat4);
//   - math: unqualified names and metal::precise:: are the IEEE functions of CUDA's math
//     library (the runtime compiles without fast math, as the Metal runtime does);
//     metal::fast:: uses the hardware approximations;
//   - min/max on float are fminf/fmaxf: the non-NaN operand wins, as in Metal;
//   - simd_* collectives are warp shuffles (a SIMD group of 32 lanes is a warp; a partial last
//     warp combines only the lanes that exist); threadgroup_barrier is __syncthreads.
// MSL names that CUDA's own headers also declare (min, max, exp, ...) are macros for tile_msl_*
// functions in namespace metal, so `using namespace metal;` brings in exactly one overload set.
#ifndef TILE_MSL_PRELUDE
#define TILE_MSL_PRELUDE

#define TILE_F __device__ __forceinline__

// ---- address spaces (`device`, `constant`, `thread`, `threadgroup`) and `kernel` are
// rewritten by the runtime, not defined here: CUDA's __device__ and __constant__ macros expand
// through the words `device` and `constant`. Attributes [[...]] are blanked by the runtime.
#define METAL_FUNC __device__ __forceinline__

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

#undef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#undef NAN
#define NAN __int_as_float(0x7fc00000)
#undef HUGE_VALF
#define HUGE_VALF INFINITY
#undef FLT_MAX
#define FLT_MAX 3.40282346638528859811704183484516925e+38f
#undef FLT_MIN
#define FLT_MIN 1.17549435082228750796873653722224568e-38f
#undef MAXFLOAT
#define MAXFLOAT FLT_MAX
#undef INT_MAX
#define INT_MAX 2147483647
#undef INT_MIN
#define INT_MIN (-2147483647 - 1)
#undef UINT_MAX
#define UINT_MAX 4294967295u
#define M_PI_F 3.14159265358979323846264338327950288f
#define M_E_F 2.71828182845904523536028747135266250f
#define M_LN2_F 0.693147180559945309417232121458176568f
#define M_LOG2E_F 1.44269504088896340735992468100189214f

// ---- packed vectors: Metal's packed_T4 is four T at T's alignment
// Metal reads and writes a packed vector with one vector access at any 4-byte aligned address.
// CUDA's vector accesses need the vector's own alignment, so a copy from memory (`T4 w = *p;`)
// and an assignment to memory (`*p = w;`) test the memory side's address: one 16-byte access
// when it is 16-byte aligned, four element accesses otherwise. The same values either way; only
// the memory side's address is taken (a register-resident vector stays in registers).
TILE_F unsigned tile_bits32(float x) { return __float_as_uint(x); }
TILE_F unsigned tile_bits32(int x) { return (unsigned)x; }
TILE_F unsigned tile_bits32(unsigned x) { return x; }
template <class T> TILE_F T tile_from_bits32(unsigned u);
template <> TILE_F float tile_from_bits32<float>(unsigned u) { return __uint_as_float(u); }
template <> TILE_F int tile_from_bits32<int>(unsigned u) { return (int)u; }
template <> TILE_F unsigned tile_from_bits32<unsigned>(unsigned u) { return u; }
template <class T> struct tile_packed4 {
  T v[4];
  tile_packed4() = default;
  TILE_F tile_packed4(T a, T b, T c, T d) : v{a, b, c, d} {}
  TILE_F tile_packed4(const tile_packed4 &o) {
    if constexpr (sizeof(T) == 4) if ((reinterpret_cast<unsigned long long>(o.v) & 15ull) == 0) {
      const uint4 w = *reinterpret_cast<const uint4 *>(o.v);
      v[0] = tile_from_bits32<T>(w.x), v[1] = tile_from_bits32<T>(w.y), v[2] = tile_from_bits32<T>(w.z), v[3] = tile_from_bits32<T>(w.w);
      return;
    }
    v[0] = o.v[0], v[1] = o.v[1], v[2] = o.v[2], v[3] = o.v[3];
  }
  TILE_F tile_packed4 &operator=(const tile_packed4 &o) {
    if constexpr (sizeof(T) == 4) if ((reinterpret_cast<unsigned long long>(v) & 15ull) == 0) {
      *reinterpret_cast<uint4 *>(v) = make_uint4(tile_bits32(o.v[0]), tile_bits32(o.v[1]), tile_bits32(o.v[2]), tile_bits32(o.v[3]));
      return *this;
    }
    v[0] = o.v[0], v[1] = o.v[1], v[2] = o.v[2], v[3] = o.v[3];
    return *this;
  }
  __device__ __forceinline__ T &operator[](int i) { return v[i]; }
  __device__ __forceinline__ const T &operator[](int i) const { return v[i]; }
};
typedef tile_packed4<float> packed_float4;
typedef tile_packed4<int> packed_int4;
typedef tile_packed4<unsigned> packed_uint4;

// ---- 16-bit floats: `half` (IEEE binary16) and `bfloat` (the top half of a binary32) as storage
// types, bit for bit as the host shim (shell-native/host/metal_shim.h) and Metal define them: a
// value converts to float exactly; a float converts rounding to nearest, ties to even; overflow
// gives infinity; NaN stays a quiet NaN of the same sign. Written out in integer arithmetic (no
// cuda_fp16.h / cuda_bf16.h: the prelude includes nothing). Kernels compute in float.
TILE_F float tile_f16_to_f32(unsigned short h) {
  const unsigned sign = unsigned(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {                                        // +-0 and subnormals: m * 2^-24, exact
    const float f = float(m) * 5.9604644775390625e-8f;
    return sign ? -f : f;
  }
  if (e == 31) return __int_as_float(int(sign | 0x7f800000u | (m << 13)));  // inf, NaN (payload kept)
  return __int_as_float(int(sign | ((e + 112u) << 23) | (m << 13)));         // normal: rebias 15 -> 127
}
TILE_F unsigned short tile_f32_to_f16(float f) {
  const unsigned x = __float_as_uint(f);
  const unsigned short sign = (unsigned short)((x >> 16) & 0x8000u);
  const unsigned a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return (unsigned short)(sign | 0x7e00u | ((a >> 13) & 0x1ffu)); // quiet NaN
  if (a >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);  // rounds to >= 2^16: infinity
  if (a < 0x38800000u) {                                           // below 2^-14: subnormal or 0
    if (a < 0x33000000u) return sign;                              // at most 2^-25: rounds to 0
    const unsigned e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
    const unsigned shift = 126u - e;                               // value = m * 2^(e-150); unit 2^-24
    const unsigned q = m >> shift, rem = m & ((1u << shift) - 1u), halfway = 1u << (shift - 1u);
    return (unsigned short)(sign | (q + ((rem > halfway || (rem == halfway && (q & 1u))) ? 1u : 0u)));
  }
  const unsigned rebased = a - 0x38000000u;                        // exponent 127 -> 15
  const unsigned q = rebased >> 13, rem = rebased & 0x1fffu;
  return (unsigned short)(sign | (q + ((rem > 0x1000u || (rem == 0x1000u && (q & 1u))) ? 1u : 0u)));
}
TILE_F float tile_bf16_to_f32(unsigned short b) { return __int_as_float(int(unsigned(b) << 16)); }
TILE_F unsigned short tile_f32_to_bf16(float f) {
  const unsigned x = __float_as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((x >> 16) | 0x40u); // quiet NaN
  const unsigned rem = x & 0xffffu, q = x >> 16;
  return (unsigned short)(q + ((rem > 0x8000u || (rem == 0x8000u && (q & 1u))) ? 1u : 0u));
}
struct half {
  unsigned short bits;
  half() = default;
  TILE_F half(float f) : bits(tile_f32_to_f16(f)) {}
  TILE_F operator float() const { return tile_f16_to_f32(bits); }
};
struct bfloat {
  unsigned short bits;
  bfloat() = default;
  TILE_F bfloat(float f) : bits(tile_f32_to_bf16(f)) {}
  TILE_F operator float() const { return tile_bf16_to_f32(bits); }
};
typedef tile_packed4<half> packed_half4;
typedef tile_packed4<bfloat> packed_bfloat4;

// ---- MSL names that CUDA's headers also declare become tile_msl_* (see the header comment)
#undef exp
#define exp tile_msl_exp
#undef exp2
#define exp2 tile_msl_exp2
#undef exp10
#define exp10 tile_msl_exp10
#undef log
#define log tile_msl_log
#undef log2
#define log2 tile_msl_log2
#undef log10
#define log10 tile_msl_log10
#undef sqrt
#define sqrt tile_msl_sqrt
#undef rsqrt
#define rsqrt tile_msl_rsqrt
#undef tanh
#define tanh tile_msl_tanh
#undef sin
#define sin tile_msl_sin
#undef cos
#define cos tile_msl_cos
#undef tan
#define tan tile_msl_tan
#undef pow
#define pow tile_msl_pow
#undef powr
#define powr tile_msl_powr
#undef fabs
#define fabs tile_msl_fabs
#undef abs
#define abs tile_msl_abs
#undef floor
#define floor tile_msl_floor
#undef ceil
#define ceil tile_msl_ceil
#undef round
#define round tile_msl_round
#undef rint
#define rint tile_msl_rint
#undef trunc
#define trunc tile_msl_trunc
#undef fmin
#define fmin tile_msl_fmin
#undef fmax
#define fmax tile_msl_fmax
#undef min
#define min tile_msl_min
#undef max
#define max tile_msl_max
#undef clamp
#define clamp tile_msl_clamp
#undef fmod
#define fmod tile_msl_fmod
#undef copysign
#define copysign tile_msl_copysign
#undef fma
#define fma tile_msl_fma
#undef isnan
#define isnan tile_msl_isnan
#undef isinf
#define isinf tile_msl_isinf
#undef isfinite
#define isfinite tile_msl_isfinite
#undef signbit
#define signbit tile_msl_signbit

namespace metal {

struct mem_flags {
  enum { mem_none = 0, mem_device = 1, mem_threadgroup = 2, mem_texture = 4 };
};

// IEEE (no fast math): the functions of CUDA's math library, which nvrtc compiles accurately
// unless --use_fast_math is given (the runtime never gives it).
namespace precise {
TILE_F float tile_msl_exp(float x) { return expf(x); }
TILE_F float tile_msl_exp2(float x) { return exp2f(x); }
TILE_F float tile_msl_exp10(float x) { return exp10f(x); }
TILE_F float tile_msl_log(float x) { return logf(x); }
TILE_F float tile_msl_log2(float x) { return log2f(x); }
TILE_F float tile_msl_log10(float x) { return log10f(x); }
TILE_F float tile_msl_sqrt(float x) { return sqrtf(x); }
TILE_F float tile_msl_rsqrt(float x) { return 1.0f / sqrtf(x); }
TILE_F float tile_msl_tanh(float x) { return tanhf(x); }
TILE_F float tile_msl_sin(float x) { return sinf(x); }
TILE_F float tile_msl_cos(float x) { return cosf(x); }
TILE_F float tile_msl_tan(float x) { return tanf(x); }
TILE_F float tile_msl_pow(float x, float y) { return powf(x, y); }
TILE_F float tile_msl_powr(float x, float y) { return powf(x, y); }
TILE_F float divide(float x, float y) { return x / y; }
} // namespace precise

// metal::fast: the hardware approximations (only where MSL asks for them by name).
namespace fast {
TILE_F float tile_msl_exp(float x) { return __expf(x); }
TILE_F float tile_msl_exp2(float x) { return exp2f(x); }
TILE_F float tile_msl_exp10(float x) { return __exp10f(x); }
TILE_F float tile_msl_log(float x) { return __logf(x); }
TILE_F float tile_msl_log2(float x) { return __log2f(x); }
TILE_F float tile_msl_log10(float x) { return __log10f(x); }
TILE_F float tile_msl_sqrt(float x) { return sqrtf(x); }
TILE_F float tile_msl_rsqrt(float x) { return rsqrtf(x); }
TILE_F float tile_msl_tanh(float x) { return tanhf(x); }
TILE_F float tile_msl_sin(float x) { return __sinf(x); }
TILE_F float tile_msl_cos(float x) { return __cosf(x); }
TILE_F float tile_msl_tan(float x) { return __tanf(x); }
TILE_F float tile_msl_pow(float x, float y) { return __powf(x, y); }
TILE_F float tile_msl_powr(float x, float y) { return __powf(x, y); }
TILE_F float divide(float x, float y) { return __fdividef(x, y); }
} // namespace fast

// Unqualified math is precise: the Metal runtime compiles with fastMathEnabled = NO.
using namespace precise;

TILE_F float tile_msl_fabs(float x) { return fabsf(x); }
TILE_F float tile_msl_abs(float x) { return fabsf(x); }
TILE_F int tile_msl_abs(int x) { return x < 0 ? -x : x; }
TILE_F uint tile_msl_abs(uint x) { return x; }
TILE_F float tile_msl_floor(float x) { return floorf(x); }
TILE_F float tile_msl_ceil(float x) { return ceilf(x); }
TILE_F float tile_msl_round(float x) { return roundf(x); }
TILE_F float tile_msl_rint(float x) { return rintf(x); }
TILE_F float tile_msl_trunc(float x) { return truncf(x); }
TILE_F float fract(float x) { return fminf(x - floorf(x), 0x1.fffffep-1f); }
TILE_F float sign(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x == x ? copysignf(0.0f, x) : 0.0f; }
TILE_F float saturate(float x) { return fminf(fmaxf(x, 0.0f), 1.0f); }
// Metal's min/max/fmin/fmax on float: if one operand is NaN, the other is returned.
TILE_F float tile_msl_fmin(float a, float b) { return fminf(a, b); }
TILE_F float tile_msl_fmax(float a, float b) { return fmaxf(a, b); }
TILE_F float tile_msl_min(float a, float b) { return fminf(a, b); }
TILE_F float tile_msl_max(float a, float b) { return fmaxf(a, b); }
TILE_F int tile_msl_min(int a, int b) { return a < b ? a : b; }
TILE_F int tile_msl_max(int a, int b) { return a > b ? a : b; }
TILE_F uint tile_msl_min(uint a, uint b) { return a < b ? a : b; }
TILE_F uint tile_msl_max(uint a, uint b) { return a > b ? a : b; }
TILE_F float tile_msl_clamp(float x, float lo, float hi) { return fminf(fmaxf(x, lo), hi); }
TILE_F int tile_msl_clamp(int x, int lo, int hi) { return tile_msl_min(tile_msl_max(x, lo), hi); }
TILE_F uint tile_msl_clamp(uint x, uint lo, uint hi) { return tile_msl_min(tile_msl_max(x, lo), hi); }
TILE_F float tile_msl_fmod(float x, float y) { return fmodf(x, y); }
TILE_F float tile_msl_copysign(float x, float y) { return copysignf(x, y); }
TILE_F float tile_msl_fma(float a, float b, float c) { return fmaf(a, b, c); }
TILE_F float step(float edge, float x) { return x < edge ? 0.0f : 1.0f; }
TILE_F float mix(float x, float y, float a) { return x + (y - x) * a; }
TILE_F bool tile_msl_isnan(float x) { return x != x; }
TILE_F bool tile_msl_isinf(float x) { return fabsf(x) == INFINITY; }
TILE_F bool tile_msl_isfinite(float x) { return fabsf(x) < INFINITY; }
TILE_F bool tile_msl_signbit(float x) { return (__float_as_uint(x) >> 31) != 0u; }
template <class T> TILE_F T select(T a, T b, bool c) { return c ? b : a; }
template <class T, class U> TILE_F T as_type(U x) {
  static_assert(sizeof(T) == sizeof(U), "as_type: sizes differ");
  T t;
  const unsigned char *from = (const unsigned char *)&x;
  unsigned char *to = (unsigned char *)&t;
  for (unsigned i = 0; i < sizeof t; ++i) to[i] = from[i];
  return t;
}

// ---- synchronization
TILE_F void threadgroup_barrier(int) { __syncthreads(); }
TILE_F void simdgroup_barrier(int) { __syncwarp(); }

// ---- SIMD collectives. A SIMD group is a warp: lanes 32*s .. 32*s+31 of the linear thread
// index. A full warp combines with xor butterflies (every lane gets the same bits); the last
// warp of a group whose size is not a multiple of 32 combines only its existing lanes.
TILE_F unsigned tile_linear_tid() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
TILE_F unsigned tile_lanes_here() {
  const unsigned n = blockDim.x * blockDim.y * blockDim.z, first = tile_linear_tid() & ~31u;
  return n - first >= 32u ? 32u : n - first;
}
TILE_F unsigned tile_lane_mask() {
  const unsigned k = tile_lanes_here();
  return k == 32u ? 0xffffffffu : ((1u << k) - 1u);
}
struct tile_op_sum { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a + b; } };
struct tile_op_product { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a * b; } };
struct tile_op_max { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return tile_msl_max(a, b); } };
struct tile_op_min { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return tile_msl_min(a, b); } };
struct tile_op_and { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a & b; } };
struct tile_op_or { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a | b; } };
struct tile_op_xor { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a ^ b; } };
template <class T, class Op> TILE_F T tile_simd_reduce(T x, Op op) {
  const unsigned k = tile_lanes_here();
  if (k == 32u) {
    for (int o = 16; o > 0; o >>= 1) x = op(x, __shfl_xor_sync(0xffffffffu, x, o));
    return x;
  }
  const unsigned mask = (1u << k) - 1u;
  T acc = __shfl_sync(mask, x, 0);
  for (unsigned i = 1; i < k; ++i) acc = op(acc, __shfl_sync(mask, x, (int)i));
  return acc;
}
#define TILE_SIMD_REDUCTION(NAME, OP)                                                              \
  TILE_F float NAME(float x) { return tile_simd_reduce(x, OP()); }                                 \
  TILE_F int NAME(int x) { return tile_simd_reduce(x, OP()); }                                     \
  TILE_F uint NAME(uint x) { return tile_simd_reduce(x, OP()); }
TILE_SIMD_REDUCTION(simd_sum, tile_op_sum)
TILE_SIMD_REDUCTION(simd_product, tile_op_product)
TILE_SIMD_REDUCTION(simd_max, tile_op_max)
TILE_SIMD_REDUCTION(simd_min, tile_op_min)
TILE_F int simd_and(int x) { return tile_simd_reduce(x, tile_op_and()); }
TILE_F uint simd_and(uint x) { return tile_simd_reduce(x, tile_op_and()); }
TILE_F int simd_or(int x) { return tile_simd_reduce(x, tile_op_or()); }
TILE_F uint simd_or(uint x) { return tile_simd_reduce(x, tile_op_or()); }
TILE_F int simd_xor(int x) { return tile_simd_reduce(x, tile_op_xor()); }
TILE_F uint simd_xor(uint x) { return tile_simd_reduce(x, tile_op_xor()); }
// Shuffles: a source lane outside the SIMD group keeps the lane's own value (as the host does).
template <class T> TILE_F T simd_shuffle(T x, ushort lane) {
  const T y = __shfl_sync(tile_lane_mask(), x, (int)lane);
  return lane < tile_lanes_here() ? y : x;
}
template <class T> TILE_F T simd_broadcast(T x, ushort lane) { return simd_shuffle(x, lane); }
template <class T> TILE_F T simd_broadcast_first(T x) { return __shfl_sync(tile_lane_mask(), x, 0); }
template <class T> TILE_F T simd_shuffle_xor(T x, ushort m) {
  const unsigned src = (tile_linear_tid() & 31u) ^ m;
  const T y = __shfl_sync(tile_lane_mask(), x, (int)(src & 31u));
  return src < tile_lanes_here() ? y : x;
}
template <class T> TILE_F T simd_shuffle_down(T x, ushort d) {
  const unsigned src = (tile_linear_tid() & 31u) + d;
  const T y = __shfl_sync(tile_lane_mask(), x, (int)(src & 31u));
  return src < tile_lanes_here() ? y : x;
}
template <class T> TILE_F T simd_shuffle_up(T x, ushort d) {
  const unsigned lane = tile_linear_tid() & 31u;
  const T y = __shfl_sync(tile_lane_mask(), x, (int)((lane - d) & 31u));
  return lane >= d ? y : x;
}
template <class T> TILE_F T simd_prefix_inclusive_sum(T x) {
  const unsigned lane = tile_linear_tid() & 31u, mask = tile_lane_mask();
  for (unsigned o = 1; o < 32u; o <<= 1) {
    const T y = __shfl_up_sync(mask, x, o);
    if (lane >= o) x = x + y;
  }
  return x;
}
template <class T> TILE_F T simd_prefix_exclusive_sum(T x) { return simd_prefix_inclusive_sum(x) - x; }
TILE_F bool simd_all(bool b) { return __all_sync(tile_lane_mask(), b) != 0; }
TILE_F bool simd_any(bool b) { return __any_sync(tile_lane_mask(), b) != 0; }

} // namespace metal

#endif // TILE_MSL_PRELUDE
