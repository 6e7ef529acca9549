// detect_shim.h: the race and bounds detector's half of the host shim.
//
// Appended to metal_shim.h in every kernel unit; used only by units compiled with the detector
// (see instrument.cpp): there every `device T*`, `constant T*` and `threadgroup T*` of the MSL
// text becomes __tile_ptr<T>, a pointer that knows its binding (tile_region). Indexing gives a
// __tile_ref<T>, a reference that reports each load and store, with the MSL line of the index
// expression (__builtin_LINE() as a default argument of __tile_at, evaluated where the index is
// converted), to the runtime's detector (tile_rt_table.access) before touching memory. An access
// outside its binding is reported and not performed: a load gives 0, a store is dropped.
#ifndef TILE_DETECT_SHIM_H
#define TILE_DETECT_SHIM_H

template <class T> struct __tile_unconst { typedef T type; };
template <class T> struct __tile_unconst<const T> { typedef T type; };
template <class T> struct __tile_elem { typedef T type; };
template <class T, int N> struct __tile_elem<__tile_vec<T, N> > { typedef T type; };
template <class T, int N> struct __tile_elem<const __tile_vec<T, N> > { typedef const T type; };
template <class T> struct __tile_elem<__tile_packed4<T> > { typedef T type; };
template <class T> struct __tile_elem<const __tile_packed4<T> > { typedef const T type; };

// A zero object of any type: what an out-of-bounds `p->` points at.
template <class T> struct __tile_zero { static T value; };
template <class T> T __tile_zero<T>::value;

template <class T> struct __tile_ref;
template <class T> struct __tile_ptr;

// The float a 16-bit element widens to: a __tile_ref<half> converts to float directly (through
// half would be two user-defined conversions, which C++ does not chain: `float(X[i])`).
template <class T> struct __tile_widen { struct none {}; typedef none type; };
template <> struct __tile_widen<half> { typedef float type; };
template <> struct __tile_widen<bfloat> { typedef float type; };

static inline int __tile_check(const tile_region *r, const void *p, unsigned n, int write, int line) {
  return r ? __tile_rt->access(r, p, n, write, line) : 1;
}

// An index (or pointer offset) with the MSL line of the expression it came from.
struct __tile_at {
  long i;
  int line;
  __tile_at(int v, int l = __builtin_LINE()) : i(v), line(l) {}
  __tile_at(unsigned v, int l = __builtin_LINE()) : i(long(v)), line(l) {}
  __tile_at(long v, int l = __builtin_LINE()) : i(v), line(l) {}
  __tile_at(unsigned long v, int l = __builtin_LINE()) : i(long(v)), line(l) {}
  __tile_at(long long v, int l = __builtin_LINE()) : i(long(v)), line(l) {}
  __tile_at(unsigned long long v, int l = __builtin_LINE()) : i(long(v)), line(l) {}
  __tile_at(short v, int l = __builtin_LINE()) : i(v), line(l) {}
  __tile_at(unsigned short v, int l = __builtin_LINE()) : i(v), line(l) {}
  __tile_at(char v, int l = __builtin_LINE()) : i(v), line(l) {}
  __tile_at(signed char v, int l = __builtin_LINE()) : i(v), line(l) {}
  __tile_at(unsigned char v, int l = __builtin_LINE()) : i(v), line(l) {}
  __tile_at(bool v, int l = __builtin_LINE()) : i(v), line(l) {}
  // a gather: the index itself read from a buffer
  template <class I> __tile_at(const __tile_ref<I> &v, int l = __builtin_LINE());
};

template <class T> struct __tile_ref {
  typedef typename __tile_unconst<T>::type V;
  T *p;
  const tile_region *r;
  int line;
  __tile_ref(T *q, const tile_region *rr, int l) : p(q), r(rr), line(l) {}
  __tile_ref(const __tile_ref &) = default;
  operator V() const { return __tile_check(r, p, sizeof(T), 0, line) ? V(*p) : V(); }
  operator typename __tile_widen<V>::type() const { const V v = *this; return v; }
  __tile_ref &operator=(const V &v) {
    if (__tile_check(r, p, sizeof(T), 1, line)) *p = v;
    return *this;
  }
  __tile_ref &operator=(const __tile_ref &o) { return *this = V(o); }
  template <class U> __tile_ref &operator=(const __tile_ref<U> &o) { return *this = V(o); }
#define TILE_REF_COMPOUND(op)                                                                      \
  template <class U> __tile_ref &operator op##=(const U &v) {                                      \
    V x = V(*this);                                                                                \
    x op##= v;                                                                                     \
    return *this = x;                                                                              \
  }
  TILE_REF_COMPOUND(+)
  TILE_REF_COMPOUND(-)
  TILE_REF_COMPOUND(*)
  TILE_REF_COMPOUND(/)
  TILE_REF_COMPOUND(%)
  TILE_REF_COMPOUND(&)
  TILE_REF_COMPOUND(|)
  TILE_REF_COMPOUND(^)
  TILE_REF_COMPOUND(<<)
  TILE_REF_COMPOUND(>>)
#undef TILE_REF_COMPOUND
  __tile_ref &operator++() { V x = V(*this); ++x; return *this = x; }
  __tile_ref &operator--() { V x = V(*this); --x; return *this = x; }
  V operator++(int) { V x = V(*this); V y = x; ++y; *this = y; return x; }
  V operator--(int) { V x = V(*this); V y = x; --y; *this = y; return x; }
  __tile_ptr<T> operator&() const { return __tile_ptr<T>(p, r, line); }
  // a component of a vector element: Y[i][2]
  template <class I> __tile_ref<typename __tile_elem<T>::type> operator[](const I &i) const {
    typedef typename __tile_elem<T>::type E;
    return __tile_ref<E>((E *)p + long(i), r, line);
  }
};

template <class I>
__tile_at::__tile_at(const __tile_ref<I> &v, int l) : i(long(typename __tile_ref<I>::V(v))), line(l) {}

template <class T> struct __tile_ptr {
  typedef typename __tile_unconst<T>::type V;
  T *p;
  const tile_region *r;
  int line;
  __tile_ptr() : p(0), r(0), line(0) {}
  __tile_ptr(T *q, const tile_region *rr, int l) : p(q), r(rr), line(l) {}
  // a raw address (e.g. of a threadgroup array declared in the body): the binding holding it
  explicit __tile_ptr(T *q) : p(q), r(__tile_rt->find((const void *)q)), line(0) {}
  // pointer casts keep the binding: (device const packed_float4*)(&X[i])
  template <class U> __tile_ptr(const __tile_ptr<U> &o) : p((T *)o.p), r(o.r), line(o.line) {}
  __tile_ref<T> operator[](__tile_at k) const { return __tile_ref<T>(p + k.i, r, k.line); }
  __tile_ref<T> operator*() const { return __tile_ref<T>(p, r, line); }
  T *operator->() const { return __tile_check(r, p, sizeof(T), 0, line) ? p : (T *)&__tile_zero<V>::value; }
  explicit operator bool() const { return p != 0; }
  __tile_ptr &operator+=(__tile_at k) { p += k.i; line = k.line; return *this; }
  __tile_ptr &operator-=(__tile_at k) { p -= k.i; line = k.line; return *this; }
  __tile_ptr &operator++() { ++p; return *this; }
  __tile_ptr &operator--() { --p; return *this; }
  __tile_ptr operator++(int) { __tile_ptr o = *this; ++p; return o; }
  __tile_ptr operator--(int) { __tile_ptr o = *this; --p; return o; }
  friend __tile_ptr operator+(const __tile_ptr &a, __tile_at k) { return __tile_ptr(a.p + k.i, a.r, k.line); }
  friend __tile_ptr operator+(__tile_at k, const __tile_ptr &a) { return __tile_ptr(a.p + k.i, a.r, k.line); }
  friend __tile_ptr operator-(const __tile_ptr &a, __tile_at k) { return __tile_ptr(a.p - k.i, a.r, k.line); }
  friend long operator-(const __tile_ptr &a, const __tile_ptr &b) { return long(a.p - b.p); }
  friend bool operator==(const __tile_ptr &a, const __tile_ptr &b) { return a.p == b.p; }
  friend bool operator!=(const __tile_ptr &a, const __tile_ptr &b) { return a.p != b.p; }
  friend bool operator<(const __tile_ptr &a, const __tile_ptr &b) { return a.p < b.p; }
  friend bool operator<=(const __tile_ptr &a, const __tile_ptr &b) { return a.p <= b.p; }
  friend bool operator>(const __tile_ptr &a, const __tile_ptr &b) { return a.p > b.p; }
  friend bool operator>=(const __tile_ptr &a, const __tile_ptr &b) { return a.p >= b.p; }
};

// `threadgroup T name[N];` in a kernel body (instrument.cpp renames the array __tile_tg_name and
// declares `__tile_ptr<T> name` bound to it): the array's region, named for the messages.
template <class T, unsigned long N>
inline __tile_ptr<T> __tile_tg_bind(T (&a)[N], const char *name, int line = __builtin_LINE()) {
  return __tile_ptr<T>(a, __tile_rt->tg_region((void *)a, sizeof(a), (unsigned)sizeof(T), name), line);
}

// Reference parameters (`constant P& p [[buffer(0)]]`): the whole object must lie in the binding.
template <class T> inline T &__tile_bind_ref(void *p, const tile_region *r, int line) {
  typedef typename __tile_unconst<T>::type V;
  return __tile_check(r, p, sizeof(T), 0, line) ? *(T *)p : (T &)__tile_zero<V>::value;
}

// Function templates of the shim that deduce their argument types: a __tile_ref argument is
// read first (more specialized overloads, found by ordinary lookup in metal:: and at file scope).
namespace metal {
template <class T, class U> inline T as_type(const __tile_ref<U> &u) {
  return as_type<T>(typename __tile_ref<U>::V(u));
}
template <class A, class B> inline auto select(const __tile_ref<A> &a, const B &b, bool c) {
  return select(typename __tile_ref<A>::V(a), b, c);
}
template <class A, class B> inline auto select(const A &a, const __tile_ref<B> &b, bool c) {
  return select(a, typename __tile_ref<B>::V(b), c);
}
template <class A, class B> inline auto select(const __tile_ref<A> &a, const __tile_ref<B> &b, bool c) {
  return select(typename __tile_ref<A>::V(a), typename __tile_ref<B>::V(b), c);
}
template <class T>
inline typename __tile_ref<T>::V clamp(const __tile_ref<T> &x, typename __tile_ref<T>::V lo,
                                       typename __tile_ref<T>::V hi) {
  return clamp(typename __tile_ref<T>::V(x), lo, hi);
}
#define TILE_SIMD_REF1(name)                                                                       \
  template <class T> inline typename __tile_ref<T>::V name(int line, const __tile_ref<T> &v) {     \
    return name(line, typename __tile_ref<T>::V(v));                                               \
  }
#define TILE_SIMD_REF2(name)                                                                       \
  template <class T> inline typename __tile_ref<T>::V name(int line, const __tile_ref<T> &v, uint a) { \
    return name(line, typename __tile_ref<T>::V(v), a);                                            \
  }
TILE_SIMD_REF1(__tile_simd_sum)
TILE_SIMD_REF1(__tile_simd_product)
TILE_SIMD_REF1(__tile_simd_max)
TILE_SIMD_REF1(__tile_simd_min)
TILE_SIMD_REF1(__tile_simd_and)
TILE_SIMD_REF1(__tile_simd_or)
TILE_SIMD_REF1(__tile_simd_xor)
TILE_SIMD_REF1(__tile_simd_broadcast_first)
TILE_SIMD_REF1(__tile_simd_prefix_inclusive_sum)
TILE_SIMD_REF1(__tile_simd_prefix_exclusive_sum)
TILE_SIMD_REF2(__tile_simd_broadcast)
TILE_SIMD_REF2(__tile_simd_shuffle)
TILE_SIMD_REF2(__tile_simd_shuffle_down)
TILE_SIMD_REF2(__tile_simd_shuffle_up)
TILE_SIMD_REF2(__tile_simd_shuffle_xor)
#undef TILE_SIMD_REF1
#undef TILE_SIMD_REF2
} // namespace metal

using metal::__tile_simd_sum; using metal::__tile_simd_product; using metal::__tile_simd_max;
using metal::__tile_simd_min; using metal::__tile_simd_and; using metal::__tile_simd_or;
using metal::__tile_simd_xor; using metal::__tile_simd_broadcast_first;
using metal::__tile_simd_prefix_inclusive_sum; using metal::__tile_simd_prefix_exclusive_sum;
using metal::__tile_simd_broadcast; using metal::__tile_simd_shuffle;
using metal::__tile_simd_shuffle_down; using metal::__tile_simd_shuffle_up;
using metal::__tile_simd_shuffle_xor;

#endif // TILE_DETECT_SHIM_H
