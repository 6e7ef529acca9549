// detector.cpp: the host runtime's race and bounds detector.
//
// Instrumented kernel units (instrument.cpp, detect_shim.h) report every access to device,
// constant and threadgroup memory through a binding: tile_rt_table.access(region, addr, bytes,
// write, line). Each access is checked against the binding's range, then against shadow state
// kept per granule of the memory: a 4-byte word, or the element where a binding's elements are
// smaller (2 bytes for half/bfloat, 1 for char): neighbouring 16-bit elements written by two
// threads are no race on a GPU, whose stores are byte-granular.
//
// Ordering. Within one dispatch, two accesses by different threads are ordered only when both
// threads belong to one threadgroup and a threadgroup_barrier whose mem_flags cover the memory
// (mem_device for device memory, mem_threadgroup for threadgroup memory) lies between them.
// The runtime numbers "segments": a new one starts with every dispatch of a `repeat`, every
// threadgroup and every released barrier (seg only grows, per device). For the current access:
//   rs    the segment where the current dispatch began,
//   gs    the segment where the current threadgroup began,
//   fence the segment that began with the group's last barrier covering this memory (>= gs).
// An earlier access A (segment a, thread u) and the current one by thread t are unordered iff
//   a >= rs  (same dispatch)  and  u != t  and  (a < gs (another group) or a >= fence).
// (Threadgroup memory belongs to one group: there rs is gs.) Fibers run in a fixed order, but
// this test depends only on the segments, so a race is found whatever order the fibers took.
//
// Shadow per granule: the last write (W), the last read (R), and one more read (A) that is
// unordered with the rest of the current interval and made by another thread than R's: a read
// from an earlier group of the dispatch when there is one, else another thread's read in the
// current interval. A write checks W, R and A; a read checks W. Two unordered writes are found
// at the second, so one W suffices; R and A together always hold an unordered read by a thread
// other than any given writer when one exists. The first finding ends the dispatch.
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "host_internal.h"

namespace {

struct Cell {
  uint32_t wseg, wtid, rseg, rtid, aseg, atid;
  uint16_t wline, rline, aline, pad;
};
static_assert(sizeof(Cell) == 32, "shadow cell layout");

} // namespace

// A binding as the detector sees it (opaque to kernel units).
struct tile_region {
  tile_host::Detector *det = nullptr;
  uintptr_t lo = 0, hi = 0; // the bound range [lo, hi)
  uintptr_t base = 0;       // address of shadow cell 0 (buffer data start; the tg allocation)
  Cell *shadow = nullptr;
  unsigned shift = 2;       // a shadow cell covers 1 << shift bytes
  int cls = 0; // 0: device/constant memory, 1: threadgroup memory
  int index = -1;
  unsigned elem = 4; // bytes per element of the declared type
  std::string name;
  bool used = false;
};

namespace tile_host {

struct Detector {
  uint32_t seg = 0; // last segment number handed out (device-wide, grows)
  uint32_t rs = 0, gs = 0, fence[2] = {0, 0};
  uint32_t tid = 0, group_base = 0;
  unsigned n = 1, groups[3] = {1, 1, 1};
  int status = TILE_OK;
  std::string msg;
  std::string kernel;
  tile_region regions[TILE_REGION_COUNT];
  const tile_region *ptrs[TILE_REGION_COUNT];
  std::vector<std::vector<Cell>> tg_shadow;
  // `threadgroup T a[N];` arrays declared in the kernel body (stable addresses)
  std::deque<tile_region> locals;
  std::deque<std::vector<Cell>> local_shadow;
  std::vector<tile_buffer *> buffers; // bound this dispatch (for the segment wrap-around)
};

namespace {

thread_local Detector *g_det = nullptr;

// Shadow memory one dispatch may use (the cells are touched as the kernel touches its data).
constexpr size_t kMaxShadowBytes = (size_t)3 << 30;
// Shadow mapped in whole when it is made (see detector_begin).
constexpr size_t kPopulateBytes = (size_t)16 << 20;

// The granule (log2 bytes) for elements of `elem` bytes: 4-byte words unless elements are smaller.
unsigned shift_for(unsigned elem) { return elem >= 4 ? 2u : elem >= 2 ? 1u : 0u; }

size_t shadow_cells(size_t bytes, unsigned shift) { return ((bytes + ((size_t)1 << shift) - 1) >> shift) + 1; }

size_t shadow_size(const tile_buffer *b, unsigned shift) {
  size_t bytes = shadow_cells(b->size, shift) * sizeof(Cell);
  return (bytes + 4095) & ~(size_t)4095;
}

uint32_t next_seg(Detector *d) {
  if (d->seg >= 0xFFFFFFF0u) {
    // wrap-around: forget every shadow cell (older segments could look current again)
    for (tile_buffer *b : d->buffers)
      if (b->shadow) std::memset(b->shadow, 0, b->shadow_bytes);
    for (auto &v : d->tg_shadow) std::memset(v.data(), 0, v.size() * sizeof(Cell));
    for (auto &v : d->local_shadow) std::memset(v.data(), 0, v.size() * sizeof(Cell));
    d->seg = 0;
    d->rs = d->gs = d->fence[0] = d->fence[1] = 1;
  }
  return ++d->seg;
}

std::string who(const Detector *d, uint32_t tid) {
  uint32_t linear = tid / d->n, index = tid % d->n;
  unsigned x = linear % d->groups[0], y = (linear / d->groups[0]) % d->groups[1],
           z = linear / (d->groups[0] * d->groups[1]);
  return "thread " + std::to_string(index) + " of threadgroup (" + std::to_string(x) + "," +
         std::to_string(y) + "," + std::to_string(z) + ")";
}

std::string binding(const tile_region *r) {
  if (r->index < 0) return "threadgroup array '" + r->name + "'";
  std::string s = r->cls == 1 ? "[[threadgroup(" + std::to_string(r->index) + ")]]"
                              : "[[buffer(" + std::to_string(r->index) + ")]]";
  if (!r->name.empty()) s += " '" + r->name + "'";
  return s;
}

std::string line_text(int line) { return line > 0 ? "line " + std::to_string(line) : "an unknown line"; }

void report_oob(Detector *d, const tile_region *r, uintptr_t a, unsigned bytes, int write, int line) {
  if (d->status != TILE_OK) return;
  long long off = (long long)(a - r->lo); // two's complement: negative before the binding
  long long e = r->elem ? off / (long long)r->elem : off;
  if (off < 0 && r->elem && off % (long long)r->elem) --e;
  long long last = r->elem ? (off + (long long)bytes - 1) / (long long)r->elem : e;
  if (off + (long long)bytes - 1 < 0 && r->elem && (off + (long long)bytes - 1) % (long long)r->elem) --last;
  unsigned long long count = r->elem ? (r->hi - r->lo) / r->elem : r->hi - r->lo;
  std::string el = last != e ? "elements " + std::to_string(e) + ".." + std::to_string(last) : "element " + std::to_string(e);
  d->status = TILE_E_BOUNDS;
  d->msg = "kernel '" + d->kernel + "': out-of-bounds " + (write ? "write to " : "read of ") + binding(r) + " at " +
           el + " (the binding holds " + std::to_string(count) + " element" + (count == 1 ? "" : "s") + " of " +
           std::to_string(r->elem) + " bytes): " + who(d, d->tid) + ", MSL " + line_text(line);
}

void report_race(Detector *d, const tile_region *r, size_t word, int write, int line, uint32_t other_seg,
                 uint32_t other_tid, int other_line, bool other_write) {
  if (d->status != TILE_OK) return;
  uintptr_t a = r->base + (word << r->shift);
  long long e = r->elem ? (long long)(a - r->lo) / (long long)r->elem : (long long)(a - r->lo);
  const bool same_group = other_tid / d->n == d->tid / d->n;
  const char *flag = r->cls == 1 ? "mem_flags::mem_threadgroup" : "mem_flags::mem_device";
  std::string why;
  if (!same_group) why = "threads of different threadgroups are never ordered within a dispatch";
  else if (other_seg < d->seg) why = std::string("the threadgroup_barrier between them does not include ") + flag;
  else why = "no threadgroup_barrier lies between them";
  d->status = TILE_E_RACE;
  d->msg = "kernel '" + d->kernel + "': data race on " + binding(r) + " element " + std::to_string(e) + ": " +
           who(d, d->tid) + (write ? " writes it" : " reads it") + " at MSL " + line_text(line) + ", " +
           who(d, other_tid) + (other_write ? " wrote it" : " read it") + " at " + line_text(other_line) + "; " + why;
}

int rt_access(const tile_region *r, const void *addr, unsigned bytes, int write, int line) {
  Detector *d = r->det;
  const uintptr_t a = (uintptr_t)addr;
  if (a < r->lo || a > r->hi || r->hi - a < bytes) {
    report_oob(d, r, a, bytes, write, line);
    return 0;
  }
  if (d->status != TILE_OK || bytes == 0) return 1;
  const uint32_t t = d->tid, s = d->seg, gs = d->gs, fence = d->fence[r->cls];
  const uint32_t rs = r->cls == 1 ? gs : d->rs;
  const uint16_t ln = line > 0 && line < 65535 ? (uint16_t)line : 0;
  const unsigned sh = r->shift;
  size_t w0 = (a - r->base) >> sh, w1 = (a - r->base + bytes + ((size_t)1 << sh) - 1) >> sh;
#define TILE_UNORDERED(sg, td) ((sg) >= rs && (td) != t && ((sg) < gs || (sg) >= fence))
  for (size_t w = w0; w < w1; ++w) {
    Cell &c = r->shadow[w];
    if (TILE_UNORDERED(c.wseg, c.wtid)) {
      report_race(d, r, w, write, line, c.wseg, c.wtid, c.wline, true);
      return 1;
    }
    if (write) {
      if (TILE_UNORDERED(c.rseg, c.rtid)) {
        report_race(d, r, w, write, line, c.rseg, c.rtid, c.rline, false);
        return 1;
      }
      if (TILE_UNORDERED(c.aseg, c.atid)) {
        report_race(d, r, w, write, line, c.aseg, c.atid, c.aline, false);
        return 1;
      }
      c.wseg = s, c.wtid = t, c.wline = ln;
    } else {
      if (c.rseg >= rs && c.rtid != t) {
        // R is about to be replaced: keep it in A when it stays unordered with this interval,
        // unless A already holds a read from an earlier group (unordered for the whole group)
        const bool relevant = c.rseg < gs || c.rseg >= fence;
        const bool alt_earlier_group = c.aseg >= rs && c.aseg < gs;
        if (relevant && !alt_earlier_group) c.aseg = c.rseg, c.atid = c.rtid, c.aline = c.rline;
      }
      c.rseg = s, c.rtid = t, c.rline = ln;
    }
  }
#undef TILE_UNORDERED
  return 1;
}

const tile_region *rt_find(const void *addr) {
  Detector *d = g_det;
  if (!d) return nullptr;
  const uintptr_t a = (uintptr_t)addr;
  for (const tile_region &r : d->regions)
    if (r.used && a >= r.lo && a < r.hi) return &r;
  for (const tile_region &r : d->locals)
    if (a >= r.lo && a < r.hi) return &r;
  return nullptr;
}

const tile_region *rt_tg_region(void *p, unsigned long bytes, unsigned elem, const char *name) {
  Detector *d = g_det;
  if (!d) return nullptr;
  const uintptr_t a = (uintptr_t)p;
  for (const tile_region &r : d->locals)
    if (r.lo == a) return &r;
  const unsigned shift = shift_for(elem ? elem : 4);
  d->local_shadow.emplace_back(shadow_cells(bytes, shift), Cell());
  d->locals.emplace_back();
  tile_region &r = d->locals.back();
  r.det = d;
  r.lo = r.base = a;
  r.hi = a + bytes;
  r.shadow = d->local_shadow.back().data();
  r.shift = shift;
  r.cls = 1;
  r.index = -1;
  r.elem = elem ? elem : 4;
  r.name = name ? name : "";
  r.used = true;
  return &r;
}

} // namespace

Detector *detector_new() { return new Detector(); }
void detector_free(Detector *d) { delete d; }

void detector_table(tile_rt_table *t) {
  t->access = rt_access;
  t->find = rt_find;
  t->tg_region = rt_tg_region;
}

void buffer_shadow_free(tile_buffer *b) {
  if (b->shadow) munmap(b->shadow, b->shadow_bytes);
  b->shadow = nullptr;
  b->shadow_bytes = 0;
}

int detector_begin(Detector *d, const KernelSig &k, const unsigned *elem_sizes, tile_buffer **bufs, int n_buffers,
                   void *const *tg, const std::vector<size_t> &tg_bytes, const unsigned groups[3], unsigned n,
                   std::string *msg) {
  d->status = TILE_OK;
  d->msg.clear();
  d->kernel = k.name;
  d->n = n;
  for (int i = 0; i < 3; ++i) d->groups[i] = groups[i];
  d->buffers.clear();
  d->tg_shadow.assign(tg_bytes.size(), {});
  d->locals.clear();
  d->local_shadow.clear();
  for (int i = 0; i < TILE_REGION_COUNT; ++i) {
    d->regions[i] = tile_region();
    d->regions[i].det = d;
    d->ptrs[i] = nullptr;
  }
  // each bound buffer's granule: the smallest element any binding of this dispatch gives it
  std::vector<unsigned> shift(n_buffers > 0 ? (size_t)n_buffers : 0, 2u);
  for (size_t p = 0; p < k.params.size(); ++p) {
    const KernelParam &prm = k.params[p];
    if (prm.kind != KernelParam::Buffer || prm.index >= n_buffers || !bufs[prm.index]) continue;
    const unsigned s = shift_for(elem_sizes && elem_sizes[p] ? elem_sizes[p] : 4);
    for (int j = 0; j < n_buffers; ++j)
      if (bufs[j] == bufs[prm.index] && s < shift[j]) shift[j] = s;
  }
  // the shadow of every bound buffer (32 bytes per granule), within kMaxShadowBytes
  size_t total = 0;
  for (int i = 0; i < n_buffers; ++i) {
    tile_buffer *b = bufs[i];
    bool seen = false;
    for (int j = 0; j < i; ++j) seen = seen || bufs[j] == b;
    if (b && !seen) total += shadow_size(b, shift[i]);
  }
  if (total > kMaxShadowBytes) {
    *msg = "kernel '" + k.name + "': the race and bounds detector would need " + std::to_string(total >> 20) +
           " MiB of shadow memory for this dispatch's buffers (at most " + std::to_string(kMaxShadowBytes >> 20) +
           " MiB); turn the detector off (tile --no-detect, tile_set_detector) for buffers this large";
    return TILE_E_ALLOC;
  }
  for (size_t p = 0; p < k.params.size(); ++p) {
    const KernelParam &prm = k.params[p];
    if (prm.kind == KernelParam::Builtin) continue;
    unsigned elem = elem_sizes && elem_sizes[p] ? elem_sizes[p] : 4;
    if (prm.kind == KernelParam::Buffer) {
      if (prm.index >= n_buffers || !bufs[prm.index]) continue;
      tile_buffer *b = bufs[prm.index];
      // a shadow of another granule holds nothing this dispatch needs (earlier dispatches are
      // ordered before it): make it anew
      if (b->shadow && b->shadow_shift != shift[prm.index]) buffer_shadow_free(b);
      if (!b->shadow) {
        size_t bytes = shadow_size(b, shift[prm.index]);
        // A shadow up to kPopulateBytes is mapped in at once (MAP_POPULATE: one call instead of a
        // page fault per 4 KiB that the kernel's accesses would take, about a third of the CPU
        // time); a larger one as it is touched, from 2 MiB pages where the system allows them.
        // The memory is zero either way.
        int mflags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
#ifdef MAP_POPULATE
        if (bytes <= kPopulateBytes) mflags |= MAP_POPULATE;
#endif
        void *m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, mflags, -1, 0);
#ifdef MADV_HUGEPAGE
        if (m != MAP_FAILED && bytes > kPopulateBytes) madvise(m, bytes, MADV_HUGEPAGE);
#endif
        if (m == MAP_FAILED) {
          *msg = "out of memory for the detector's shadow of [[buffer(" + std::to_string(prm.index) + ")]] (" +
                 std::to_string(bytes >> 20) + " MiB); run without the detector";
          return TILE_E_ALLOC;
        }
        b->shadow = m;
        b->shadow_bytes = bytes;
        b->shadow_shift = shift[prm.index];
      }
      d->buffers.push_back(b);
      tile_region &r = d->regions[prm.index];
      r.lo = (uintptr_t)(b->data + b->bind_offset);
      r.hi = (uintptr_t)(b->data + b->size);
      r.base = (uintptr_t)b->data;
      r.shadow = (Cell *)b->shadow;
      r.shift = b->shadow_shift;
      r.cls = 0;
      r.index = prm.index;
      r.elem = elem;
      r.name = prm.name;
      r.used = true;
      d->ptrs[prm.index] = &r;
    } else {
      if (prm.index >= (int)tg_bytes.size()) continue;
      std::vector<Cell> &sh = d->tg_shadow[prm.index];
      const unsigned tshift = shift_for(elem);
      sh.assign(shadow_cells(tg_bytes[prm.index], tshift), Cell());
      tile_region &r = d->regions[TILE_REGION_TG + prm.index];
      r.lo = (uintptr_t)tg[prm.index];
      r.hi = r.lo + tg_bytes[prm.index];
      r.base = r.lo;
      r.shadow = sh.data();
      r.shift = tshift;
      r.cls = 1;
      r.index = prm.index;
      r.elem = elem;
      r.name = prm.name;
      r.used = true;
      d->ptrs[TILE_REGION_TG + prm.index] = &r;
    }
  }
  g_det = d;
  return TILE_OK;
}

void detector_end(Detector *d) {
  if (g_det == d) g_det = nullptr;
  d->buffers.clear();
}

const tile_region *const *detector_regions(Detector *d) { return d->ptrs; }

void detector_dispatch(Detector *d) { d->rs = next_seg(d); }

void detector_group(Detector *d, unsigned linear) {
  d->gs = next_seg(d);
  d->fence[0] = d->fence[1] = d->gs;
  d->group_base = linear * d->n;
}

void detector_thread(Detector *d, unsigned index) { d->tid = d->group_base + index; }

void detector_barrier(Detector *d, int mem_flags) {
  uint32_t s = next_seg(d);
  if (mem_flags & 1) d->fence[0] = s; // mem_device
  if (mem_flags & 2) d->fence[1] = s; // mem_threadgroup
}

int detector_status(const Detector *d) { return d->status; }
const std::string &detector_message(const Detector *d) { return d->msg; }

} // namespace tile_host
