// xshmem host API: put-with-signal (typed, sized, mem; blocking and _nbi), signal_add/set,
// signal_fetch and signal_wait_until, running the path code of <xshmem/device/signal.h>.
#include <cstddef>
#include <cstdint>

#include <xshmem/device/signal.h>
#include <xshmem/xshmem.h>

#include "checks.h"
#include "cuda/device_ops.h"
#include "host_path.h"
#include "runtime.h"

static_assert(XSHMEM_SIGNAL_SET == xshmem::dev::kSignalSet &&
                  XSHMEM_SIGNAL_ADD == xshmem::dev::kSignalAdd,
              "device signal codes differ from the public ones");

namespace xshmem::core {
namespace {

struct alignas(16) bits128_t {
  unsigned char b[16];
};

void check_sig_addr(const char *call, const uint64_t *sig_addr) {
  check_symmetric(call, "sig_addr", sig_addr, sizeof(uint64_t));
  check_aligned(call, "sig_addr", sig_addr, sizeof(uint64_t));
}

template <typename T>
void put_signal(const char *call, bool nbi, T *dest, const T *source, size_t nelems,
                uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  const uintptr_t d = reinterpret_cast<uintptr_t>(dest);
  const uintptr_t sg = reinterpret_cast<uintptr_t>(sig_addr);
  const size_t bytes = nelems <= SIZE_MAX / sizeof(T) ? nelems * sizeof(T) : 0;
  // The fast path: dest and sig_addr in the heap, no overlap, a known sig_op.
  const bool fast =
      bytes != 0 && fast_access_ok(dest, bytes, alignof(T), pe, true, source) &&
      fast_access_ok(sig_addr, sizeof(uint64_t), sizeof(uint64_t), pe, false, nullptr) &&
      (sg + sizeof(uint64_t) <= d || sg >= d + bytes) &&
      (sig_op == XSHMEM_SIGNAL_SET || sig_op == XSHMEM_SIGNAL_ADD);
  if (!fast) [[unlikely]]
    check_init(call);
  if (!fast && checks_enabled()) [[unlikely]] {
    check_pe(call, pe);
    if (nelems > SIZE_MAX / sizeof(T)) {
      check_fail(call, "nelems %zu is too large for %zu-byte elements", nelems, sizeof(T));
    }
    check_symmetric(call, "dest", dest, bytes);
    if (bytes != 0) check_aligned(call, "dest", dest, alignof(T));
    check_buffer(call, "source", source, bytes);
    check_sig_addr(call, sig_addr);
    check_sig_op(call, sig_op);
    if (bytes != 0 && sg + sizeof(uint64_t) > d && sg < d + bytes) {
      check_fail(call, "sig_addr %p overlaps dest %p + %zu bytes", static_cast<void *>(sig_addr),
                 static_cast<void *>(dest), bytes);
    }
  }
  path::put_signal(XSHMEM_CTX_DEFAULT, nbi, dest, source, nelems, sig_addr, signal, sig_op, pe);
}

// Reads the local signal: an acquire load, or on a GPU heap a copy to the host.
uint64_t fetch_signal(const uint64_t *sig_addr) {
  return path::on_local_words(sig_addr, 1, [](const uint64_t *w) { return dev::signal_fetch(w); });
}

}  // namespace
}  // namespace xshmem::core

namespace xc = xshmem::core;
namespace xd = xshmem::dev;

extern "C" {

#define XSHMEM_DEF_SIG(T, N)                                                                     \
  void xshmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,      \
                               uint64_t signal, int sig_op, int pe) {                            \
    xc::put_signal<T>("xshmem_" #N "_put_signal", false, dest, source, nelems, sig_addr, signal, \
                      sig_op, pe);                                                               \
  }                                                                                              \
  void xshmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,  \
                                   uint64_t signal, int sig_op, int pe) {                        \
    xc::put_signal<T>("xshmem_" #N "_put_signal_nbi", true, dest, source, nelems, sig_addr,      \
                      signal, sig_op, pe);                                                       \
  }
XSHMEM_RMA_TYPES(XSHMEM_DEF_SIG)
#undef XSHMEM_DEF_SIG

#define XSHMEM_DEF_SIG_SIZED(BITS, T)                                                           \
  void xshmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,                 \
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {     \
    xc::put_signal<T>("xshmem_put" #BITS "_signal", false, static_cast<T *>(dest),              \
                      static_cast<const T *>(source), nelems, sig_addr, signal, sig_op, pe);    \
  }                                                                                             \
  void xshmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems,             \
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    xc::put_signal<T>("xshmem_put" #BITS "_signal_nbi", true, static_cast<T *>(dest),           \
                      static_cast<const T *>(source), nelems, sig_addr, signal, sig_op, pe);    \
  }
XSHMEM_SIZED_TYPES(XSHMEM_DEF_SIG_SIZED)
XSHMEM_DEF_SIG_SIZED(128, xc::bits128_t)
#undef XSHMEM_DEF_SIG_SIZED

void xshmem_putmem_signal(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                          uint64_t signal, int sig_op, int pe) {
  xc::put_signal<unsigned char>("xshmem_putmem_signal", false, static_cast<unsigned char *>(dest),
                                static_cast<const unsigned char *>(source), nbytes, sig_addr,
                                signal, sig_op, pe);
}
void xshmem_putmem_signal_nbi(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                              uint64_t signal, int sig_op, int pe) {
  xc::put_signal<unsigned char>(
      "xshmem_putmem_signal_nbi", true, static_cast<unsigned char *>(dest),
      static_cast<const unsigned char *>(source), nbytes, sig_addr, signal, sig_op, pe);
}

void xshmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe) {
  const char *call = "xshmem_signal_add";
  if (!xc::fast_access_ok(sig_addr, sizeof(uint64_t), sizeof(uint64_t), pe, false, nullptr)) {
    xc::check_init(call);
    xc::check_pe(call, pe);
    xc::check_sig_addr(call, sig_addr);
  }
  xc::path::signal(XSHMEM_CTX_DEFAULT, sig_addr, signal, xd::kSignalAdd, pe);
}

void xshmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe) {
  const char *call = "xshmem_signal_set";
  if (!xc::fast_access_ok(sig_addr, sizeof(uint64_t), sizeof(uint64_t), pe, false, nullptr)) {
    xc::check_init(call);
    xc::check_pe(call, pe);
    xc::check_sig_addr(call, sig_addr);
  }
  xc::path::signal(XSHMEM_CTX_DEFAULT, sig_addr, signal, xd::kSignalSet, pe);
}

uint64_t xshmem_signal_fetch(const uint64_t *sig_addr) {
  const char *call = "xshmem_signal_fetch";
  xc::check_init(call);
  xc::check_sig_addr(call, sig_addr);
  return xc::fetch_signal(sig_addr);
}

uint64_t xshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
  const char *call = "xshmem_signal_wait_until";
  xc::check_init(call);
  xc::check_sig_addr(call, sig_addr);
  xc::check_cmp(call, cmp);
  const xd::wait_site site{xd::kWaitSignalWaitUntil, call};
  if (!xc::path::heap_host_accessible()) {  // poll copies of the word
    xd::atomic::backoff wait;
    xd::wait_clock clock(&xc::state());
    for (;;) {
      uint64_t seen = xc::fetch_signal(sig_addr);
      if (xd::compare(cmp, seen, cmp_value)) return seen;
      if (clock.passed()) {
        xd::wait_timed_out(
            xc::state(), xd::wait_report(site, clock, static_cast<const uint64_t *>(sig_addr), cmp,
                                         cmp_value, seen));
      }
      wait();
    }
  }
  // Under the wait deadline (XSHMEM_WAIT_TIMEOUT).
  return xd::signal_wait_until(xc::state(), sig_addr, cmp, cmp_value, site);
}

// Second names for the inline CUDA API's host branches (<xshmem/device/cuda_api.h>).
#define XSHMEMI_ALIAS(RET, NAME, PARAMS) \
  RET xshmemi_h_##NAME PARAMS __attribute__((alias("xshmem_" #NAME)));
#define XSHMEM_ALIAS_SIG(T, N)                                                                  \
  XSHMEMI_ALIAS(void, N##_put_signal, (T *, const T *, size_t, uint64_t *, uint64_t, int, int)) \
  XSHMEMI_ALIAS(void, N##_put_signal_nbi, (T *, const T *, size_t, uint64_t *, uint64_t, int, int))
XSHMEM_RMA_TYPES_NO_LD(XSHMEM_ALIAS_SIG)
#undef XSHMEM_ALIAS_SIG
#define XSHMEM_ALIAS_SIG_SIZED(BITS, T)                                         \
  XSHMEMI_ALIAS(void, put##BITS##_signal,                                       \
                (void *, const void *, size_t, uint64_t *, uint64_t, int, int)) \
  XSHMEMI_ALIAS(void, put##BITS##_signal_nbi,                                   \
                (void *, const void *, size_t, uint64_t *, uint64_t, int, int))
XSHMEM_SIZED_TYPES(XSHMEM_ALIAS_SIG_SIZED)
XSHMEM_ALIAS_SIG_SIZED(128, void)
#undef XSHMEM_ALIAS_SIG_SIZED
XSHMEMI_ALIAS(void, putmem_signal, (void *, const void *, size_t, uint64_t *, uint64_t, int, int))
XSHMEMI_ALIAS(void, putmem_signal_nbi,
              (void *, const void *, size_t, uint64_t *, uint64_t, int, int))
XSHMEMI_ALIAS(void, signal_add, (uint64_t *, uint64_t, int))
XSHMEMI_ALIAS(void, signal_set, (uint64_t *, uint64_t, int))
XSHMEMI_ALIAS(uint64_t, signal_fetch, (const uint64_t *))
XSHMEMI_ALIAS(uint64_t, signal_wait_until, (uint64_t *, int, uint64_t))
#undef XSHMEMI_ALIAS

}  // extern "C"
