// xshmem host API: distributed locks, running the path code of <xshmem/device/lock.h> (a ticket
// lock on PE 0's copy of the lock, every access through the atomics dispatcher: LSA, PROXY, GDA
// and, on GPU heaps, HOST_CE peers alike).
#include <cstdint>
#include <cstdio>

#include <xshmem/device/lock.h>
#include <xshmem/xshmem.h>

#include "checks.h"
#include "runtime.h"

namespace xshmem::core {
namespace {

namespace xd = xshmem::dev;

// `lock` is a symmetric long, naturally aligned.
void check_lock(const char *call, const long *lock) {
  check_init(call);
  if (!checks_enabled()) return;
  check_symmetric(call, "lock", lock, sizeof(long));
  check_aligned(call, "lock", lock, sizeof(long));
}

// A set_lock past XSHMEM_WAIT_TIMEOUT: one line naming the lock, what this PE waited for and the
// PE it polls, then the job stops (status 1, as every wait past the deadline).
[[noreturn]] void lock_timed_out(const xd::lock_wait_t &w) {
  char line[320];
  snprintf(line, sizeof(line),
           "xshmem: xshmem_set_lock: pe %d waited %.1f s for lock %p to serve its ticket %u at pe "
           "%d (serving %u, %u ticket(s) ahead); past XSHMEM_WAIT_TIMEOUT (%.1f s): stopping the "
           "job",
           state().my_pe, static_cast<double>(w.waited_ns) / 1e9, static_cast<const void *>(w.lock),
           w.ticket, xd::lock_detail::kHome, w.served, w.ticket - w.served,
           static_cast<double>(state().wait_timeout_ns) / 1e9);
  fprintf(stderr, "%s\n", line);
  fflush(stderr);
  fatal_printed(1, "wait", line);
}

}  // namespace
}  // namespace xshmem::core

namespace xc = xshmem::core;
namespace xd = xshmem::dev;

extern "C" {

void xshmem_set_lock(long *lock) {
  xc::check_lock("xshmem_set_lock", lock);
  xd::set_lock(xc::state(), lock, [](const xd::lock_wait_t &w) { xc::lock_timed_out(w); });
}

int xshmem_test_lock(long *lock) {
  xc::check_lock("xshmem_test_lock", lock);
  return xd::test_lock(xc::state(), lock);
}

void xshmem_clear_lock(long *lock) {
  xc::check_lock("xshmem_clear_lock", lock);
  xd::clear_lock(xc::state(), lock);
}

// Second names for the inline CUDA API's host branches (<xshmem/device/cuda_api.h>).
void xshmemi_h_set_lock(long *) __attribute__((alias("xshmem_set_lock")));
int xshmemi_h_test_lock(long *) __attribute__((alias("xshmem_test_lock")));
void xshmemi_h_clear_lock(long *) __attribute__((alias("xshmem_clear_lock")));

}  // extern "C"
