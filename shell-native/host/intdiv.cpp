// intdiv.cpp: integer division never traps in a kernel on the host runtime.
//
// Metal: an integer division by zero, or one whose quotient is out of range (INT_MIN / -1), "does
// not cause an exception but will result in an unspecified value"; the kernel goes on. The host
// compiles the kernel's MSL as C++, where x86-64's `div`/`idiv` raise #DE (SIGFPE), which would kill
// the process running `tile run`. So during a dispatch a SIGFPE handler completes the faulting
// instruction itself, with the values arm64's sdiv/udiv give (the host runtime's other
// architecture, where these divisions never trap), and resumes the kernel:
//   a / 0 = 0,   a % 0 = a,   INT_MIN / -1 = INT_MIN (wraps),   INT_MIN % -1 = 0
// (for every width: 8, 16, 32 and 64 bits, signed and unsigned). A SIGFPE that is not an integer
// division the handler can decode is handed back to the previous disposition (a crash, as before).
// arm64 and other architectures need nothing here: their division does not trap.
#include <csignal>
#include <cstdint>
#include <cstring>

#include "host_internal.h"

#if defined(__x86_64__) && defined(__linux__)
#include <ucontext.h>
#define TILE_INTDIV_X86 1
#endif

namespace tile_host {

#ifdef TILE_INTDIV_X86
namespace {

struct sigaction g_previous;
int g_depth = 0;

// gregs index of x86-64 register number 0..15 (rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8..r15).
const int kGreg[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                       REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};

uint64_t mask_of(int bits) { return bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1); }

// Writes the low `bits` of register `r` as an instruction of that width does (32-bit writes clear
// the upper half; 8- and 16-bit writes keep the other bits).
void set_reg(greg_t *g, int r, int bits, uint64_t v) {
  uint64_t old = (uint64_t)g[kGreg[r]];
  if (bits == 64) old = v;
  else if (bits == 32) old = v & 0xffffffffu;
  else old = (old & ~mask_of(bits)) | (v & mask_of(bits));
  g[kGreg[r]] = (greg_t)old;
}

// Decodes the `div`/`idiv` at the faulting rip (legacy prefixes, REX, F6/F7 /6 or /7, ModRM, SIB,
// displacement), reads its divisor and completes it. False when it is anything else.
bool complete_division(ucontext_t *uc) {
  greg_t *g = uc->uc_mcontext.gregs;
  const uint8_t *ip = (const uint8_t *)g[REG_RIP];
  size_t i = 0;
  bool op16 = false;
  for (;; ++i) {
    uint8_t b = ip[i];
    if (b == 0x66) op16 = true;
    else if (b == 0xF0 || b == 0xF2 || b == 0xF3 || b == 0x2E || b == 0x3E || b == 0x26 || b == 0x36) continue;
    else break; // fs/gs overrides and 0x67 are not produced for kernel code: not decoded
    if (i > 14) return false;
  }
  uint8_t rex = 0;
  if ((ip[i] & 0xF0) == 0x40) rex = ip[i++];
  uint8_t op = ip[i++];
  if (op != 0xF6 && op != 0xF7) return false;
  uint8_t modrm = ip[i++];
  int kind = (modrm >> 3) & 7;
  if (kind != 6 && kind != 7) return false; // 6: div (unsigned), 7: idiv (signed)
  const bool is_signed = kind == 7;
  const int bits = op == 0xF6 ? 8 : (rex & 8) ? 64 : op16 ? 16 : 32;
  const int mod = modrm >> 6, rm = modrm & 7;
  uint64_t divisor = 0;
  if (mod == 3) {
    if (bits == 8 && !rex && rm >= 4) divisor = ((uint64_t)g[kGreg[rm - 4]] >> 8) & 0xff; // ah, ch, dh, bh
    else divisor = (uint64_t)g[kGreg[rm | ((rex & 1) << 3)]] & mask_of(bits);
  } else {
    uint64_t addr = 0;
    bool rip_relative = false;
    if (rm == 4) {
      uint8_t sib = ip[i++];
      int index = ((sib >> 3) & 7) | ((rex & 2) << 2), base = (sib & 7) | ((rex & 1) << 3);
      if (index != 4) addr += (uint64_t)g[kGreg[index]] << (sib >> 6);
      if ((sib & 7) == 5 && mod == 0) {
        int32_t d;
        std::memcpy(&d, ip + i, 4);
        i += 4;
        addr += (uint64_t)(int64_t)d;
      } else {
        addr += (uint64_t)g[kGreg[base]];
      }
    } else if (rm == 5 && mod == 0) {
      rip_relative = true;
    } else {
      addr = (uint64_t)g[kGreg[rm | ((rex & 1) << 3)]];
    }
    if (mod == 1) {
      addr += (uint64_t)(int64_t)(int8_t)ip[i];
      i += 1;
    } else if (mod == 2 || rip_relative) {
      int32_t d;
      std::memcpy(&d, ip + i, 4);
      i += 4;
      addr += (uint64_t)(int64_t)d;
      if (rip_relative) addr += (uint64_t)g[REG_RIP] + i;
    }
    std::memcpy(&divisor, (const void *)addr, (size_t)bits / 8);
    divisor &= mask_of(bits);
  }
  // the dividend: ax (8-bit), dx:ax, edx:eax or rdx:rax
  const uint64_t m = mask_of(bits);
  const uint64_t lo = bits == 8 ? (uint64_t)g[REG_RAX] & 0xff : (uint64_t)g[REG_RAX] & m;
  const uint64_t hi = bits == 8 ? ((uint64_t)g[REG_RAX] >> 8) & 0xff : (uint64_t)g[REG_RDX] & m;
  unsigned __int128 dividend = ((unsigned __int128)hi << bits) | lo;
  uint64_t q, r;
  if (divisor == 0) {
    q = 0;
    r = lo; // arm64: msub(a, 0, b) = a
  } else if (is_signed && (divisor & m) == m) {
    q = (0 - lo) & m; // a / -1 = -a, wrapping (INT_MIN / -1 = INT_MIN)
    r = 0;
  } else if (is_signed) {
    // sign-extend the 2*bits dividend and the divisor, divide exactly, keep the low bits (wraps)
    __int128 a = (__int128)(dividend << (128 - 2 * bits)) >> (128 - 2 * bits);
    int64_t d = (int64_t)(divisor << (64 - bits)) >> (64 - bits);
    q = (uint64_t)(a / d) & m;
    r = (uint64_t)(a % d) & m;
  } else {
    q = (uint64_t)(dividend / divisor) & m;
    r = (uint64_t)(dividend % divisor) & m;
  }
  if (bits == 8) {
    uint64_t ax = (uint64_t)g[REG_RAX];
    g[REG_RAX] = (greg_t)((ax & ~(uint64_t)0xffff) | (q & 0xff) | ((r & 0xff) << 8));
  } else {
    set_reg(g, 0, bits, q);
    set_reg(g, 2, bits, r);
  }
  g[REG_RIP] = (greg_t)((uint64_t)g[REG_RIP] + i);
  return true;
}

void on_sigfpe(int sig, siginfo_t *info, void *ctx) {
  if ((info->si_code == FPE_INTDIV || info->si_code == FPE_INTOVF) && complete_division((ucontext_t *)ctx)) return;
  // not ours: the previous disposition takes it when the instruction runs again
  sigaction(SIGFPE, &g_previous, nullptr);
  (void)sig;
}

} // namespace

IntDivGuard::IntDivGuard() {
  if (g_depth++ > 0) return;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigfpe;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGFPE, &sa, &g_previous);
}

IntDivGuard::~IntDivGuard() {
  if (--g_depth > 0) return;
  sigaction(SIGFPE, &g_previous, nullptr);
}
#else
IntDivGuard::IntDivGuard() {}
IntDivGuard::~IntDivGuard() {}
#endif

} // namespace tile_host
