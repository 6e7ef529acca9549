/*
 * kernel_abi.h: the interface between the host runtime and a compiled kernel unit (.so).
 *
 * Included by the runtime and embedded, verbatim, at the top of every compiled kernel unit
 * (build.mjs inlines it into the shim text). Plain C, no includes.
 *
 * A kernel unit exports, with default visibility:
 *   int  tile_kernel_init(const tile_rt_table *rt);            returns TILE_KERNEL_ABI
 *   void tile_entry_<name>(const tile_thread *t);              one per `kernel void <name>(`
 * The runtime gives each unit its function table at load time, so units share no globals.
 */
#ifndef TILE_KERNEL_ABI_H
#define TILE_KERNEL_ABI_H

#define TILE_KERNEL_ABI 5

/* Collective operations (tile_rt_table.simd). */
enum {
  TILE_SIMD_SUM = 0,
  TILE_SIMD_PRODUCT,
  TILE_SIMD_MAX,
  TILE_SIMD_MIN,
  TILE_SIMD_AND,
  TILE_SIMD_OR,
  TILE_SIMD_XOR,
  TILE_SIMD_BROADCAST,       /* arg = source lane */
  TILE_SIMD_BROADCAST_FIRST, /* value of the lowest existing lane */
  TILE_SIMD_SHUFFLE,         /* arg = source lane */
  TILE_SIMD_SHUFFLE_DOWN,    /* arg = delta; out-of-range keeps own value */
  TILE_SIMD_SHUFFLE_UP,      /* arg = delta; out-of-range keeps own value */
  TILE_SIMD_SHUFFLE_XOR,     /* arg = mask */
  TILE_SIMD_PREFIX_INCLUSIVE_SUM,
  TILE_SIMD_PREFIX_EXCLUSIVE_SUM,
  TILE_SIMD_ALL,
  TILE_SIMD_ANY,
  TILE_SIMD_BARRIER, /* simdgroup_barrier: rendezvous of the lanes, value unused */
  TILE_SIMD_OP_COUNT
};

/* Element types carried in the 32 low bits of a collective's value. */
enum { TILE_T_F32 = 0, TILE_T_I32 = 1, TILE_T_U32 = 2 };

/* The race and bounds detector's view of one binding (opaque to kernel units; see detector.cpp). */
typedef struct tile_region tile_region;

typedef struct tile_rt_table {
  int abi;
  /* threadgroup_barrier: rendezvous of every thread of the group. */
  void (*barrier)(int mem_flags, int line);
  /* SIMD collective: rendezvous of the existing lanes of the caller's SIMD group. */
  unsigned (*simd)(int op, int type, unsigned bits, int arg, int line);
  /* `threadgroup T a[N];` declared in a kernel body, reached by a thread: the first thread of
   * each group fills it with 0xFF bytes; the runtime counts it against the memory limit. */
  void (*tg_local)(void *p, unsigned long bytes, int line);
  /* Detector (instrumented units only): an access of `bytes` bytes at addr through the binding r
   * by the current thread at MSL line `line`; write = 1 for a store. Returns 1 when the access
   * lies inside the binding (perform it), 0 when it does not (skip it: reads give 0). */
  int (*access)(const tile_region *r, const void *addr, unsigned bytes, int write, int line);
  /* Detector: the binding holding addr (a raw pointer turned back into a device pointer), or 0. */
  const tile_region *(*find)(const void *addr);
  /* Detector: the region of a `threadgroup T name[N];` declared in a kernel body (p, bytes),
   * made when the first thread of a dispatch reaches the declaration; 0 without the detector. */
  const tile_region *(*tg_region)(void *p, unsigned long bytes, unsigned elem, const char *name);
} tile_rt_table;

/* Per-thread arguments handed to tile_entry_<name>. */
typedef struct tile_thread {
  void *const *buffers;     /* [[buffer(i)]] base pointers */
  void *const *tg;          /* [[threadgroup(j)]] base pointers for this group */
  unsigned pos[3];          /* thread_position_in_threadgroup */
  unsigned index;           /* thread_index_in_threadgroup */
  unsigned group[3];        /* threadgroup_position_in_grid */
  unsigned group_size[3];   /* threads_per_threadgroup */
  unsigned groups[3];       /* threadgroups_per_grid */
  unsigned lane;            /* thread_index_in_simdgroup */
  unsigned simd_group;      /* simdgroup_index_in_threadgroup */
  unsigned simd_groups;     /* simdgroups_per_threadgroup */
  unsigned simd_width;      /* threads_per_simdgroup */
  /* Detector: regions[i] for [[buffer(i)]], regions[TILE_REGION_TG + j] for [[threadgroup(j)]];
   * null when the dispatch runs without the detector. */
  const tile_region *const *regions;
} tile_thread;

#define TILE_REGION_TG 31
#define TILE_REGION_COUNT 62

#endif /* TILE_KERNEL_ABI_H */
