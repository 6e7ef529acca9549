// scheduler.cpp: runs the threads of a threadgroup as deterministic cooperative fibers.
//
// Groups run one after another. Within a group every ready fiber runs, in thread order, until
// it finishes or reaches a rendezvous (threadgroup_barrier or a SIMD collective); a kernel
// whose source names no rendezvous runs each thread as a plain call, with no fiber at all.
// After each pass the scheduler resolves what is complete:
//   - a SIMD group whose existing lanes all wait at the same collective (same op, same line)
//     gets its results and runs on;
//   - lanes of one SIMD group split between a collective and anything else is an error;
//   - when nothing else can move, every thread must wait at the same barrier line (all are
//     released) or have finished (the group is done); any other mix is an error.
// Errors name the kernel, the group and the threads, instead of hanging.
#include <sys/mman.h>
#include <ucontext.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "host_internal.h"

// Tell valgrind about fiber stacks when its header is around (no-ops outside valgrind).
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define TILE_STACK_REGISTER(lo, hi) VALGRIND_STACK_REGISTER(lo, hi)
#define TILE_STACK_DEREGISTER(id) VALGRIND_STACK_DEREGISTER(id)
#endif
#endif
#ifndef TILE_STACK_REGISTER
#define TILE_STACK_REGISTER(lo, hi) 0u
#define TILE_STACK_DEREGISTER(id) ((void)(id))
#endif

// ---- context switch. x86-64 and arm64 (Linux, and macOS on Apple silicon): a few
// instructions that save the callee-saved registers on the old stack and restore them from the
// new one (no signal-mask syscall, unlike swapcontext, which dominated barrier-heavy kernels).
// Elsewhere, or with TILE_FORCE_UCONTEXT: ucontext. (macOS does implement ucontext on arm64, in
// libplatform since macOS 11, but its makecontext zero-fills the whole 128 KiB stack on every
// fiber start and every switch makes two sigprocmask calls; it stays the fallback only.)
#if defined(__APPLE__)
#define TILE_SYM(x) "_" #x
#define TILE_SYM_LOCAL(x) ".private_extern " TILE_SYM(x) "\n"
#else
#define TILE_SYM(x) #x
#define TILE_SYM_LOCAL(x) ".hidden " TILE_SYM(x) "\n"
#endif
#if defined(__x86_64__) && !defined(_WIN32) && !defined(TILE_FORCE_UCONTEXT)
#define TILE_FAST_SWITCH 1
extern "C" void tile_fiber_swap(void **save_sp, void *load_sp);
asm(".text\n"
    ".globl " TILE_SYM(tile_fiber_swap) "\n"
    TILE_SYM_LOCAL(tile_fiber_swap)
    TILE_SYM(tile_fiber_swap) ":\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
    "  ret\n");
#elif defined(__aarch64__) && !defined(_WIN32) && !defined(TILE_FORCE_UCONTEXT)
#define TILE_FAST_SWITCH 1
// AAPCS64 (and Apple's arm64 ABI, which follows it here): x19-x28, the frame pointer x29, the
// link register x30 and the low halves d8-d15 of v8-v15 are callee-saved; x18 is left alone (the
// platform register on macOS). One 160-byte frame, 16-byte aligned; `ret` jumps to the restored
// x30. No pointer authentication: Node and this library are plain arm64, not arm64e.
extern "C" void tile_fiber_swap(void **save_sp, void *load_sp);
asm(".text\n"
    ".p2align 2\n"
    ".globl " TILE_SYM(tile_fiber_swap) "\n"
    TILE_SYM_LOCAL(tile_fiber_swap)
    TILE_SYM(tile_fiber_swap) ":\n"
    "  sub sp, sp, #160\n"
    "  stp x19, x20, [sp, #0]\n  stp x21, x22, [sp, #16]\n  stp x23, x24, [sp, #32]\n"
    "  stp x25, x26, [sp, #48]\n  stp x27, x28, [sp, #64]\n  stp x29, x30, [sp, #80]\n"
    "  stp d8, d9, [sp, #96]\n  stp d10, d11, [sp, #112]\n  stp d12, d13, [sp, #128]\n  stp d14, d15, [sp, #144]\n"
    "  mov x9, sp\n"
    "  str x9, [x0]\n"
    "  mov sp, x1\n"
    "  ldp x19, x20, [sp, #0]\n  ldp x21, x22, [sp, #16]\n  ldp x23, x24, [sp, #32]\n"
    "  ldp x25, x26, [sp, #48]\n  ldp x27, x28, [sp, #64]\n  ldp x29, x30, [sp, #80]\n"
    "  ldp d8, d9, [sp, #96]\n  ldp d10, d11, [sp, #112]\n  ldp d12, d13, [sp, #128]\n  ldp d14, d15, [sp, #144]\n"
    "  add sp, sp, #160\n"
    "  ret\n");
#else
#define TILE_FAST_SWITCH 0
#endif

namespace tile_host {

namespace {

// Fiber stacks: at least kStackBytes; more when the unit's frames need it (lib->stack_bytes, from
// g++ -fstack-usage), plus kStackMargin for the runtime's own frames below a kernel. A thread
// that would need more than kMaxStackBytes, or a group whose stacks would exceed
// kMaxGroupStackBytes, fails the dispatch with TILE_E_STACK instead of overflowing.
constexpr size_t kStackBytes = 128 * 1024;
constexpr size_t kStackMargin = 64 * 1024;
constexpr size_t kGuardBytes = 4096;
constexpr size_t kMaxStackBytes = (size_t)64 << 20;
constexpr size_t kMaxGroupStackBytes = (size_t)4 << 30;
// A kernel without rendezvous runs on the caller's stack only when its frames fit in this.
constexpr size_t kCallerStackBytes = 64 * 1024;

enum State { READY, WAIT_BARRIER, WAIT_SIMD, DONE };

struct Fiber {
#if TILE_FAST_SWITCH
  void *sp = nullptr;
#else
  ucontext_t ctx;
#endif
  unsigned char *stack = nullptr; // mapping base (guard page first)
  unsigned stack_id = 0;          // valgrind's id for the stack
  bool started = false;
  State state = READY;
  int line = 0;
  int flags = 0; // mem_flags of the barrier it waits at
  int op = 0, type = 0, arg = 0;
  unsigned value = 0, result = 0;
  tile_thread args;
};

const char *op_name(int op) {
  static const char *names[TILE_SIMD_OP_COUNT] = {
      "simd_sum", "simd_product", "simd_max", "simd_min", "simd_and", "simd_or", "simd_xor",
      "simd_broadcast", "simd_broadcast_first", "simd_shuffle", "simd_shuffle_down",
      "simd_shuffle_up", "simd_shuffle_xor", "simd_prefix_inclusive_sum",
      "simd_prefix_exclusive_sum", "simd_all", "simd_any", "simdgroup_barrier"};
  return op >= 0 && op < TILE_SIMD_OP_COUNT ? names[op] : "simd_?";
}

} // namespace

struct Scheduler {
#if TILE_FAST_SWITCH
  void *main_sp = nullptr;
#else
  ucontext_t main_ctx;
#endif
  std::vector<Fiber> fibers;
  size_t stack_bytes = kStackBytes; // of every fiber in `fibers`
  Detector *det = nullptr;          // the running dispatch's detector, or null
  int current = -1;
  bool in_fiber = false;
  EntryFn entry = nullptr;
  std::string error; // set by a rendezvous called where none can happen
  int error_code = TILE_E_INTERNAL;
  // threadgroup arrays declared in the kernel body: those filled in the current group, their
  // bytes (rounded as allocations are) and the bytes of [[threadgroup(j)]] allocations
  std::vector<void *> tg_locals;
  size_t tg_local_bytes = 0, tg_bound_bytes = 0;
};

namespace {

thread_local Scheduler *g_sched = nullptr;

void block_current(Scheduler *s) {
  Fiber &f = s->fibers[s->current];
#if TILE_FAST_SWITCH
  tile_fiber_swap(&f.sp, s->main_sp);
#else
  swapcontext(&f.ctx, &s->main_ctx);
#endif
}

void fiber_main() {
  Scheduler *s = g_sched;
  Fiber &f = s->fibers[s->current];
  s->entry(&f.args);
  s->fibers[s->current].state = DONE;
#if TILE_FAST_SWITCH
  block_current(s); // never resumed: a finished fiber is restarted from scratch
  __builtin_trap();
#endif
  // ucontext: returning resumes uc_link (the scheduler)
}

// Starts fiber f at fiber_main, or resumes it where it blocked.
void enter(Scheduler *s, Fiber &f) {
  if (!f.started) {
    unsigned char *top = f.stack + kGuardBytes + s->stack_bytes;
#if TILE_FAST_SWITCH && defined(__x86_64__)
    // Six zeroed callee-saved registers, then fiber_main as the return address and a null
    // fake return address for fiber_main; rsp is 8 mod 16 at its entry, as after a call.
    void **sp = (void **)(top - 64);
    for (int i = 0; i < 6; ++i) sp[i] = nullptr;
    sp[6] = (void *)&fiber_main;
    sp[7] = nullptr;
    f.sp = sp;
#elif TILE_FAST_SWITCH
    // arm64: the 160-byte frame tile_fiber_swap restores, all zero (x29 = 0 ends frame-pointer
    // walks) but x30 = fiber_main, so its `ret` enters fiber_main with sp = top, 16-byte aligned.
    void **sp = (void **)(top - 160);
    for (int i = 0; i < 20; ++i) sp[i] = nullptr;
    sp[11] = (void *)&fiber_main;
    f.sp = sp;
#else
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = top - s->stack_bytes;
    f.ctx.uc_stack.ss_size = s->stack_bytes;
    f.ctx.uc_link = &s->main_ctx;
    makecontext(&f.ctx, fiber_main, 0);
#endif
    f.started = true;
  }
  s->in_fiber = true;
#if TILE_FAST_SWITCH
  tile_fiber_swap(&s->main_sp, f.sp);
#else
  swapcontext(&s->main_ctx, &f.ctx);
#endif
  s->in_fiber = false;
}

void rt_barrier(int mem_flags, int line) {
  Scheduler *s = g_sched;
  if (!s || !s->in_fiber) {
    if (s && s->error.empty())
      s->error = "threadgroup_barrier at line " + std::to_string(line) + " outside a fiber";
    return;
  }
  Fiber &f = s->fibers[s->current];
  f.state = WAIT_BARRIER;
  f.line = line;
  f.flags = mem_flags;
  block_current(s);
}

unsigned rt_simd(int op, int type, unsigned bits, int arg, int line) {
  Scheduler *s = g_sched;
  if (!s || !s->in_fiber) {
    if (s && s->error.empty())
      s->error = std::string(op_name(op)) + " at line " + std::to_string(line) + " outside a fiber";
    return bits;
  }
  Fiber &f = s->fibers[s->current];
  f.state = WAIT_SIMD;
  f.op = op;
  f.type = type;
  f.value = bits;
  f.arg = arg;
  f.line = line;
  block_current(s);
  return f.result;
}

void rt_tg_local(void *p, unsigned long bytes, int line) {
  Scheduler *s = g_sched;
  if (!s) return;
  for (void *q : s->tg_locals)
    if (q == p) return;
  s->tg_locals.push_back(p);
  std::memset(p, 0xFF, bytes); // uninitialized threadgroup memory reads as NaN / -1
  s->tg_local_bytes += (bytes + TILE_THREADGROUP_MEMORY_ALIGN - 1) & ~(size_t)(TILE_THREADGROUP_MEMORY_ALIGN - 1);
  if (s->tg_local_bytes + s->tg_bound_bytes > TILE_MAX_THREADGROUP_MEMORY && s->error.empty()) {
    s->error = std::to_string(s->tg_local_bytes) + " bytes of threadgroup memory declared in the kernel (the last at line " +
               std::to_string(line) + ")" +
               (s->tg_bound_bytes ? " and " + std::to_string(s->tg_bound_bytes) + " bound at dispatch" : std::string()) +
               " exceed the limit of " + std::to_string(TILE_MAX_THREADGROUP_MEMORY);
    s->error_code = TILE_E_DISPATCH;
  }
}

tile_rt_table make_table() {
  tile_rt_table t;
  std::memset(&t, 0, sizeof t);
  t.abi = TILE_KERNEL_ABI;
  t.barrier = rt_barrier;
  t.simd = rt_simd;
  t.tg_local = rt_tg_local;
  detector_table(&t);
  return t;
}
const tile_rt_table kTable = make_table();

// ---- collective arithmetic over the existing lanes of one SIMD group
union Val {
  unsigned u;
  int i;
  float f;
};

Val from_bits(unsigned b) {
  Val v;
  v.u = b;
  return v;
}

Val combine(int op, int type, Val a, Val b) {
  Val r;
  switch (op) {
  case TILE_SIMD_SUM:
  case TILE_SIMD_PREFIX_INCLUSIVE_SUM:
  case TILE_SIMD_PREFIX_EXCLUSIVE_SUM:
    if (type == TILE_T_F32) r.f = a.f + b.f;
    else r.u = a.u + b.u;
    return r;
  case TILE_SIMD_PRODUCT:
    if (type == TILE_T_F32) r.f = a.f * b.f;
    else r.u = a.u * b.u;
    return r;
  case TILE_SIMD_MAX:
    if (type == TILE_T_F32) r.f = std::fmax(a.f, b.f);
    else if (type == TILE_T_I32) r.i = a.i > b.i ? a.i : b.i;
    else r.u = a.u > b.u ? a.u : b.u;
    return r;
  case TILE_SIMD_MIN:
    if (type == TILE_T_F32) r.f = std::fmin(a.f, b.f);
    else if (type == TILE_T_I32) r.i = a.i < b.i ? a.i : b.i;
    else r.u = a.u < b.u ? a.u : b.u;
    return r;
  case TILE_SIMD_AND: case TILE_SIMD_ALL: r.u = a.u & b.u; return r;
  case TILE_SIMD_OR: case TILE_SIMD_ANY: r.u = a.u | b.u; return r;
  case TILE_SIMD_XOR: r.u = a.u ^ b.u; return r;
  default: return a;
  }
}

// Lanes [0, n) of a SIMD group all wait at the same collective: compute every lane's result.
void resolve_simd(Fiber *lanes, int n) {
  int op = lanes[0].op, type = lanes[0].type;
  switch (op) {
  case TILE_SIMD_SUM: case TILE_SIMD_PRODUCT: case TILE_SIMD_MAX: case TILE_SIMD_MIN:
  case TILE_SIMD_AND: case TILE_SIMD_OR: case TILE_SIMD_XOR: case TILE_SIMD_ALL:
  case TILE_SIMD_ANY: {
    // pairwise tree, like the hardware's butterfly: (0+1)+(2+3)...
    Val v[TILE_SIMD_WIDTH];
    for (int i = 0; i < n; ++i) v[i] = from_bits(op == TILE_SIMD_ALL || op == TILE_SIMD_ANY
                                                     ? (lanes[i].value != 0u) : lanes[i].value);
    for (int stride = 1; stride < n; stride *= 2)
      for (int i = 0; i + stride < n; i += 2 * stride) v[i] = combine(op, type, v[i], v[i + stride]);
    for (int i = 0; i < n; ++i) lanes[i].result = v[0].u;
    return;
  }
  case TILE_SIMD_PREFIX_INCLUSIVE_SUM:
  case TILE_SIMD_PREFIX_EXCLUSIVE_SUM: {
    Val acc = from_bits(0u);
    for (int i = 0; i < n; ++i) {
      Val x = from_bits(lanes[i].value);
      Val next = combine(op, type, acc, x);
      lanes[i].result = op == TILE_SIMD_PREFIX_INCLUSIVE_SUM ? next.u : acc.u;
      acc = next;
    }
    return;
  }
  case TILE_SIMD_BROADCAST_FIRST:
    for (int i = 0; i < n; ++i) lanes[i].result = lanes[0].value;
    return;
  default:
    break;
  }
  for (int i = 0; i < n; ++i) {
    int src = i;
    switch (op) {
    case TILE_SIMD_BROADCAST: case TILE_SIMD_SHUFFLE: src = lanes[i].arg; break;
    case TILE_SIMD_SHUFFLE_DOWN: src = i + lanes[i].arg; break;
    case TILE_SIMD_SHUFFLE_UP: src = i - lanes[i].arg; break;
    case TILE_SIMD_SHUFFLE_XOR: src = i ^ lanes[i].arg; break;
    default: src = i; break; // simdgroup_barrier
    }
    lanes[i].result = (src >= 0 && src < n) ? lanes[src].value : lanes[i].value;
  }
}

std::string where(const Launch &L, const tile_thread &t) {
  std::string s = "kernel '" + L.sig->name + "', group (" + std::to_string(t.group[0]) + "," +
                  std::to_string(t.group[1]) + "," + std::to_string(t.group[2]) + ")";
  return s;
}

std::string describe(const Fiber &f) {
  switch (f.state) {
  case DONE: return "finished";
  case WAIT_BARRIER: return "wait at threadgroup_barrier (line " + std::to_string(f.line) + ")";
  case WAIT_SIMD: return "wait at " + std::string(op_name(f.op)) + " (line " + std::to_string(f.line) + ")";
  default: return "are running";
  }
}

// Groups thread ids by what they are doing: "threads 0-31 finished; threads 32-63 wait at ...".
std::string who_does_what(const Fiber *fs, int base, int n) {
  std::vector<std::string> kinds;
  std::vector<std::vector<int>> ids;
  for (int i = 0; i < n; ++i) {
    std::string d = describe(fs[i]);
    size_t k = 0;
    while (k < kinds.size() && kinds[k] != d) ++k;
    if (k == kinds.size()) { kinds.push_back(d); ids.emplace_back(); }
    ids[k].push_back(base + i);
  }
  std::string out;
  for (size_t k = 0; k < kinds.size(); ++k) {
    if (k) out += "; ";
    out += "threads " + format_ranges(ids[k]) + " " + kinds[k];
  }
  return out;
}

// Runs one group to completion in fiber mode. Returns false with *msg on divergence.
bool run_group_fibers(Scheduler *s, const Launch &L, int n, std::string *msg) {
  Fiber *fs = s->fibers.data();
  for (;;) {
    for (int i = 0; i < n; ++i) {
      Fiber &f = fs[i];
      if (f.state != READY) continue;
      s->current = i;
      if (s->det) detector_thread(s->det, (unsigned)i);
      enter(s, f);
      if (s->det && detector_status(s->det) != TILE_OK) return true; // the finding ends the dispatch
    }
    // SIMD collectives
    bool progress = false;
    int width = TILE_SIMD_WIDTH;
    for (int base = 0; base < n; base += width) {
      int m = n - base < width ? n - base : width;
      Fiber *lanes = fs + base;
      bool any = false, uniform = true;
      for (int i = 0; i < m; ++i) {
        if (lanes[i].state == WAIT_SIMD) any = true;
        if (lanes[i].state != WAIT_SIMD || lanes[i].op != lanes[0].op ||
            lanes[i].line != lanes[0].line || lanes[i].type != lanes[0].type)
          uniform = false;
      }
      if (!any) continue;
      if (!uniform) {
        *msg = where(L, fs[base].args) + ": SIMD group " + std::to_string(base / width) +
               " diverged at a collective: " + who_does_what(lanes, base, m);
        return false;
      }
      resolve_simd(lanes, m);
      for (int i = 0; i < m; ++i) lanes[i].state = READY;
      progress = true;
    }
    if (progress) continue;
    // Only barriers and finished threads remain.
    int done = 0, waiting = 0;
    bool same_line = true;
    for (int i = 0; i < n; ++i) {
      if (fs[i].state == DONE) ++done;
      else if (fs[i].state == WAIT_BARRIER) {
        ++waiting;
        if (fs[i].line != fs[0].line) same_line = false;
      }
    }
    if (done == n) return true;
    if (waiting == n && same_line) {
      int flags = fs[0].flags;
      for (int i = 0; i < n; ++i) {
        flags &= fs[i].flags; // the memory every thread's barrier orders
        fs[i].state = READY;
      }
      if (s->det) detector_barrier(s->det, flags);
      continue;
    }
    *msg = where(L, fs[0].args) + ": threadgroup_barrier not reached by every thread: " +
           who_does_what(fs, 0, n);
    return false;
  }
}

} // namespace

std::string format_ranges(const std::vector<int> &ids) {
  std::string out;
  size_t i = 0;
  while (i < ids.size()) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(ids[i]);
    if (j > i) out += "-" + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

const tile_rt_table *runtime_table() { return &kTable; }

Scheduler *scheduler_new() { return new Scheduler(); }

static void free_fibers(Scheduler *s) {
  for (Fiber &f : s->fibers)
    if (f.stack) {
      TILE_STACK_DEREGISTER(f.stack_id);
      munmap(f.stack, s->stack_bytes + kGuardBytes);
    }
  s->fibers.clear();
}

void scheduler_free(Scheduler *s) {
  if (!s) return;
  free_fibers(s);
  delete s;
}

// n fibers with stacks of at least `stack` bytes (all fibers are remade when it grows).
static bool ensure_fibers(Scheduler *s, int n, size_t stack) {
  if (stack > s->stack_bytes) {
    free_fibers(s);
    s->stack_bytes = stack;
  }
  while ((int)s->fibers.size() < n) {
    void *p = mmap(nullptr, s->stack_bytes + kGuardBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return false;
    mprotect(p, kGuardBytes, PROT_NONE); // stack overflow faults instead of corrupting
    s->fibers.emplace_back();
    Fiber &f = s->fibers.back();
    f.stack = (unsigned char *)p;
    f.stack_id = TILE_STACK_REGISTER(f.stack + kGuardBytes, f.stack + kGuardBytes + s->stack_bytes);
  }
  return true;
}

int run_grid(Scheduler *s, const Launch &L, std::string *msg) {
  const unsigned n = L.threads[0] * L.threads[1] * L.threads[2];
  const unsigned width = TILE_SIMD_WIDTH;
  // Stacks: a thread's frames (private arrays such as register stripes included) must fit.
  size_t stack = kStackBytes;
  if (L.stack_bytes) {
    size_t need = (L.stack_bytes + kStackMargin + 4095) & ~(size_t)4095;
    if (need > stack) stack = need;
  }
  const bool fibers = L.fibers || (L.stack_bytes && L.stack_bytes > kCallerStackBytes);
  if (fibers && (stack > kMaxStackBytes || (size_t)n * (stack + kGuardBytes) > kMaxGroupStackBytes)) {
    *msg = "kernel '" + L.sig->name + "' needs " + std::to_string(L.stack_bytes >> 10) +
           " KiB of stack per thread (private arrays such as register stripes); the host runtime gives at most " +
           std::to_string(kMaxStackBytes >> 20) + " MiB per thread and " + std::to_string(kMaxGroupStackBytes >> 20) +
           " MiB per threadgroup (" + std::to_string(n) + " threads)";
    return TILE_E_STACK;
  }
  if (fibers && !ensure_fibers(s, (int)n, stack)) {
    *msg = "out of memory for fiber stacks (" + std::to_string(n) + " x " + std::to_string(stack >> 10) + " KiB)";
    return TILE_E_ALLOC;
  }
  // One allocation per [[threadgroup(j)]], reused by every group.
  std::vector<std::vector<unsigned char>> tg(L.tg_bytes.size());
  std::vector<void *> tg_ptrs(L.tg_bytes.size(), nullptr);
  for (size_t j = 0; j < tg.size(); ++j) {
    tg[j].resize(L.tg_bytes[j] + 16);
    uintptr_t a = ((uintptr_t)tg[j].data() + 15) & ~(uintptr_t)15;
    tg_ptrs[j] = (void *)a;
  }

  Detector *det = L.det;
  if (det) {
    int rc = detector_begin(det, *L.sig, L.elem_sizes, L.bufs, L.n_buffers, tg_ptrs.data(), L.tg_bytes, L.groups, n, msg);
    if (rc != TILE_OK) return rc;
  }
  Scheduler *saved = g_sched;
  g_sched = s;
  s->entry = L.entry;
  s->error.clear();
  s->error_code = TILE_E_INTERNAL;
  s->tg_bound_bytes = 0;
  for (size_t b : L.tg_bytes) s->tg_bound_bytes += b;
  s->det = det;
  tile_thread t;
  std::memset(&t, 0, sizeof t);
  t.buffers = L.buffers;
  t.tg = tg_ptrs.data();
  t.regions = det ? detector_regions(det) : nullptr;
  for (int d = 0; d < 3; ++d) {
    t.group_size[d] = L.threads[d];
    t.groups[d] = L.groups[d];
  }
  t.simd_groups = (n + width - 1) / width;
  t.simd_width = width;
  int status = TILE_OK;

  for (int rep = 0; rep < L.repeat && status == TILE_OK; ++rep) {
    if (det) detector_dispatch(det);
    for (unsigned gz = 0; gz < L.groups[2] && status == TILE_OK; ++gz)
      for (unsigned gy = 0; gy < L.groups[1] && status == TILE_OK; ++gy)
        for (unsigned gx = 0; gx < L.groups[0] && status == TILE_OK; ++gx) {
          t.group[0] = gx, t.group[1] = gy, t.group[2] = gz;
          if (det) detector_group(det, (gz * L.groups[1] + gy) * L.groups[0] + gx);
          // Uninitialized threadgroup memory reads as NaN (float) / -1 (int); arrays declared
          // in the body are filled when the group's first thread reaches them (rt_tg_local).
          for (size_t j = 0; j < tg.size(); ++j) std::memset(tg_ptrs[j], 0xFF, L.tg_bytes[j]);
          s->tg_locals.clear();
          s->tg_local_bytes = 0;
          unsigned idx = 0;
          for (unsigned z = 0; z < L.threads[2]; ++z)
            for (unsigned y = 0; y < L.threads[1]; ++y)
              for (unsigned x = 0; x < L.threads[0]; ++x, ++idx) {
                t.pos[0] = x, t.pos[1] = y, t.pos[2] = z;
                t.index = idx;
                t.lane = idx % width;
                t.simd_group = idx / width;
                if (!fibers) {
                  if (det) detector_thread(det, idx);
                  L.entry(&t);
                  if (det && detector_status(det) != TILE_OK) goto group_done;
                } else {
                  Fiber &f = s->fibers[idx];
                  f.args = t;
                  f.started = false;
                  f.state = READY;
                }
              }
          if (fibers && !run_group_fibers(s, L, (int)n, msg)) status = TILE_E_DIVERGENCE;
        group_done:
          if (status == TILE_OK && det && detector_status(det) != TILE_OK) {
            *msg = detector_message(det);
            status = detector_status(det);
          }
          if (status == TILE_OK && !s->error.empty()) {
            *msg = "kernel '" + L.sig->name + "': " + s->error;
            status = s->error_code;
          }
        }
  }
  g_sched = saved;
  s->det = nullptr;
  if (det) detector_end(det);
  return status;
}

} // namespace tile_host
