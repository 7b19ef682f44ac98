// xshmem device API: point-to-point synchronization on local symmetric words (wait_until, test
// and their _all/_any/_some/_vector forms).
//
// Every read is an acquire load, so when a wait returns (or a test returns true) the caller sees
// everything the updating PE ordered before the update (the data of a put-with-signal, say).
// Waits spin with back-off (host: yield; device: nanosleep).
//
// Set rules (OpenSHMEM 1.5 with errata): an element takes part when `status` is NULL or
// status[i] == 0. An empty set (nelems 0 or all excluded): wait_until_all and test_all succeed at
// once, wait_until_any and test_any return SIZE_MAX, wait_until_some and test_some return 0.
// _any is fair: it scans from just after the index it returned last (through `cursor`), so
// repeated calls return every satisfied index in turn. _some returns every satisfied index.
//
// The wait deadline (XSHMEM_WAIT_TIMEOUT, state_t::wait_timeout_ns): the forms that take the
// state and a wait_site check the clock every kWaitClockPolls unsuccessful polls (the fast path
// with the deadline off costs one predictable branch per poll) and, past the deadline, report what
// they waited for and stop the job: the host through state_t::on_wait_timeout, a GPU thread
// through the device mailbox (kDevWaitTimeout), then a trap. The forms without a state have no
// deadline.
#ifndef XSHMEM_DEVICE_P2P_H
#define XSHMEM_DEVICE_P2P_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/device/atomic.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/state.h>

#include <type_traits>

#if !defined(__CUDA_ARCH__)
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#endif

namespace xshmem::dev {

// ---- the wait deadline ----
// Unsuccessful polls between two looks at the clock (a power of two). Host polls yield after a
// few spins, device polls sleep up to 1 us: either way the deadline is seen within ~1 ms.
constexpr unsigned kWaitClockPolls = 256;

XSHMEM_HD_INLINE uint64_t wait_now_ns() {
#if defined(__CUDA_ARCH__)
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#else
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
#endif
}

// One wait's clock: started at the first look, passed once the wait lasted the state's timeout.
class wait_clock {
 public:
  XSHMEM_HD_INLINE explicit wait_clock(const state_t *s)
      : timeout_ns_(s != nullptr ? s->wait_timeout_ns : 0) {}
  // A clock with a timeout of its own (0: none), for waits whose deadline is not the state's
  // (the GDA send queues, gda.h).
  XSHMEM_HD_INLINE static wait_clock with_timeout(uint64_t timeout_ns) {
    wait_clock c(nullptr);
    c.timeout_ns_ = timeout_ns;
    return c;
  }
  // Called after each unsuccessful poll.
  XSHMEM_HD_INLINE bool passed() {
    if (timeout_ns_ == 0) return false;
    if ((++polls_ & (kWaitClockPolls - 1)) != 0) return false;
    const uint64_t now = wait_now_ns();
    if (start_ns_ == 0) start_ns_ = now;
    waited_ns_ = now - start_ns_;
    return waited_ns_ >= timeout_ns_;
  }
  XSHMEM_HD_INLINE uint64_t waited_ns() const { return waited_ns_; }
  // Starts the wait anew: for a wait on something that moves on its way to the awaited state
  // (a queue others are draining), whose deadline is "stopped moving", not "took long".
  XSHMEM_HD_INLINE void restart() {
    start_ns_ = 0;
    waited_ns_ = 0;
  }

 private:
  uint64_t timeout_ns_;
  uint64_t start_ns_ = 0;
  uint64_t waited_ns_ = 0;
  unsigned polls_ = 0;
};

// Reports a wait past the deadline and stops the job; does not return. Out of line: the wait
// loops only carry the clock's branch.
#if defined(__CUDA_ARCH__)
__device__ __noinline__ inline void wait_timed_out(const state_t &s, const wait_timeout_t &w) {
  device_error_t *e = s.device_error;
  if (mailbox_claim(e, kDevWaitTimeout, w.call, w.pe)) {
    e->addr = reinterpret_cast<uintptr_t>(w.addr);
    e->size = w.expected;
    e->align = w.seen;
    e->wait_cmp = w.cmp;
    e->wait_round = w.round;
    e->wait_value_size = w.value_size;
    e->wait_value_signed = w.value_signed;
    e->wait_ns = w.waited_ns;
    e->wait_index = w.index;
    e->wait_nelems = w.nelems;
    mailbox_publish(e);
  }
  __trap();
}
#else
[[noreturn]] __attribute__((noinline, cold)) inline void wait_timed_out(const state_t &s,
                                                                        const wait_timeout_t &w) {
  if (s.on_wait_timeout != nullptr) s.on_wait_timeout(&w);
  fprintf(stderr, "xshmem: pe %d: a wait (call %d) passed the wait deadline; aborting\n", s.my_pe,
          w.call);
  abort();
}
#endif

// The report of a wait on one word (or the first of a set).
template <typename T>
XSHMEM_HD_INLINE wait_timeout_t wait_report(const wait_site &site, const wait_clock &clock,
                                            const T *ivar, int cmp, T expected, T seen) {
  wait_timeout_t w;
  w.call = site.call;
  w.name = site.name;
  w.cmp = cmp;
  w.value_size = static_cast<int32_t>(sizeof(T));
  w.value_signed = std::is_signed<T>::value ? 1 : 0;
  w.addr = ivar;
  // Signed values as their sign-extended 64-bit pattern: the reporter prints them back.
  w.expected = static_cast<uint64_t>(static_cast<int64_t>(expected));
  w.seen = static_cast<uint64_t>(static_cast<int64_t>(seen));
  if (!w.value_signed) {
    w.expected = static_cast<uint64_t>(expected);
    w.seen = static_cast<uint64_t>(seen);
  }
  w.waited_ns = clock.waited_ns();
  return w;
}

namespace p2p_detail {
// The comparison value of element i: one for all, or one per element (_vector).
template <typename T>
struct same_value {
  T v;
  XSHMEM_HD_INLINE T operator[](size_t) const { return v; }
};
template <typename T>
struct per_element {
  const T *v;
  XSHMEM_HD_INLINE T operator[](size_t i) const { return v[i]; }
};

XSHMEM_HD_INLINE bool active(const int *status, size_t i) {
  return status == nullptr || status[i] == 0;
}

template <typename T>
XSHMEM_HD_INLINE bool holds(const T *ivar, int cmp, T value) {
  return compare(cmp, atomic::load_acquire(ivar), value);
}

// Whether every active element holds (empty set: true).
template <typename T, typename V>
XSHMEM_HD_INLINE bool all(const T *ivars, size_t n, const int *status, int cmp, V values) {
  for (size_t i = 0; i < n; ++i) {
    if (active(status, i) && !holds(ivars + i, cmp, values[i])) return false;
  }
  return true;
}

XSHMEM_HD_INLINE bool any_active(size_t n, const int *status) {
  for (size_t i = 0; i < n; ++i) {
    if (active(status, i)) return true;
  }
  return false;
}

// One fair scan: the first active, satisfied index at or after *cursor (cyclically), or
// SIZE_MAX. Moves *cursor past the index found.
template <typename T, typename V>
XSHMEM_HD_INLINE size_t any(const T *ivars, size_t n, const int *status, int cmp, V values,
                            size_t *cursor) {
  if (n == 0) return SIZE_MAX;
  size_t start = cursor != nullptr ? *cursor % n : 0;
  for (size_t k = 0; k < n; ++k) {
    size_t i = start + k < n ? start + k : start + k - n;
    if (active(status, i) && holds(ivars + i, cmp, values[i])) {
      if (cursor != nullptr) *cursor = i + 1;
      return i;
    }
  }
  return SIZE_MAX;
}

// Writes every active, satisfied index to indices (ascending); returns how many.
template <typename T, typename V>
XSHMEM_HD_INLINE size_t some(const T *ivars, size_t n, size_t *indices, const int *status, int cmp,
                             V values) {
  size_t found = 0;
  for (size_t i = 0; i < n; ++i) {
    if (active(status, i) && holds(ivars + i, cmp, values[i])) indices[found++] = i;
  }
  return found;
}
}  // namespace p2p_detail

// Blocks until *ivar cmp value holds; returns the value that satisfied it. With a state and a
// site: under the state's wait deadline, reported as the site's call waiting for `pe` (-1: any
// PE) in `round` (-1: none) and, for an element of a set of `nelems`, at `index`.
template <typename T>
XSHMEM_HD_INLINE T wait_until(const state_t &s, const wait_site &site, const T *ivar, int cmp,
                              T value, int pe = -1, int round = -1, uint64_t index = UINT64_MAX,
                              uint64_t nelems = 0) {
  atomic::backoff wait;
  wait_clock clock(site.call != kWaitNone ? &s : nullptr);
  for (;;) {
    T seen = atomic::load_acquire(ivar);
    if (compare(cmp, seen, value)) return seen;
    if (clock.passed()) {
      wait_timeout_t w = wait_report(site, clock, ivar, cmp, value, seen);
      w.pe = pe;
      w.round = round;
      w.index = index;
      w.nelems = nelems;
      wait_timed_out(s, w);
    }
    wait();
  }
}
// Without a deadline.
template <typename T>
XSHMEM_HD_INLINE T wait_until(const T *ivar, int cmp, T value) {
  atomic::backoff wait;
  for (;;) {
    T seen = atomic::load_acquire(ivar);
    if (compare(cmp, seen, value)) return seen;
    wait();
  }
}

template <typename T>
XSHMEM_HD_INLINE int test(const T *ivar, int cmp, T value) {
  return p2p_detail::holds(ivar, cmp, value) ? 1 : 0;
}

namespace p2p_detail {
// The report of an _any/_some wait past the deadline: the set, its first active element.
template <typename T, typename V>
XSHMEM_HD_INLINE void set_timed_out(const state_t &s, const wait_site &site,
                                    const wait_clock &clock, const T *ivars, size_t n,
                                    const int *status, int cmp, V values) {
  size_t first = 0;
  while (first < n && !active(status, first)) ++first;
  wait_timeout_t w = wait_report(site, clock, ivars + first, cmp, values[first],
                                 atomic::load_acquire(ivars + first));
  w.index = first;
  w.nelems = n;
  wait_timed_out(s, w);
}
}  // namespace p2p_detail

// The generic set forms; V is p2p_detail::same_value<T> or per_element<T>. `s` NULL (or a site
// of kWaitNone): no deadline.
template <typename T, typename V>
XSHMEM_HD_INLINE void wait_until_all_g(const T *ivars, size_t n, const int *status, int cmp,
                                       V values, const state_t *s = nullptr,
                                       const wait_site &site = wait_site{}) {
  // Element by element: once an element holds, later updates need not keep it holding.
  for (size_t i = 0; i < n; ++i) {
    if (!p2p_detail::active(status, i)) continue;
    if (s != nullptr) {
      wait_until(*s, site, ivars + i, cmp, values[i], -1, -1, i, n);
    } else {
      wait_until(ivars + i, cmp, values[i]);
    }
  }
}
template <typename T, typename V>
XSHMEM_HD_INLINE size_t wait_until_any_g(const T *ivars, size_t n, const int *status, int cmp,
                                         V values, size_t *cursor, const state_t *s = nullptr,
                                         const wait_site &site = wait_site{}) {
  if (!p2p_detail::any_active(n, status)) return SIZE_MAX;
  atomic::backoff wait;
  wait_clock clock(site.call != kWaitNone ? s : nullptr);
  for (;;) {
    size_t i = p2p_detail::any(ivars, n, status, cmp, values, cursor);
    if (i != SIZE_MAX) return i;
    if (clock.passed()) p2p_detail::set_timed_out(*s, site, clock, ivars, n, status, cmp, values);
    wait();
  }
}
template <typename T, typename V>
XSHMEM_HD_INLINE size_t wait_until_some_g(const T *ivars, size_t n, size_t *indices,
                                          const int *status, int cmp, V values,
                                          const state_t *s = nullptr,
                                          const wait_site &site = wait_site{}) {
  if (!p2p_detail::any_active(n, status)) return 0;
  atomic::backoff wait;
  wait_clock clock(site.call != kWaitNone ? s : nullptr);
  for (;;) {
    size_t found = p2p_detail::some(ivars, n, indices, status, cmp, values);
    if (found != 0) return found;
    if (clock.passed()) p2p_detail::set_timed_out(*s, site, clock, ivars, n, status, cmp, values);
    wait();
  }
}

template <typename T>
XSHMEM_HD_INLINE void wait_until_all(const T *ivars, size_t n, const int *status, int cmp,
                                     T value) {
  wait_until_all_g(ivars, n, status, cmp, p2p_detail::same_value<T>{value});
}
template <typename T>
XSHMEM_HD_INLINE size_t wait_until_any(const T *ivars, size_t n, const int *status, int cmp,
                                       T value, size_t *cursor) {
  return wait_until_any_g(ivars, n, status, cmp, p2p_detail::same_value<T>{value}, cursor);
}
template <typename T>
XSHMEM_HD_INLINE size_t wait_until_some(const T *ivars, size_t n, size_t *indices,
                                        const int *status, int cmp, T value) {
  return wait_until_some_g(ivars, n, indices, status, cmp, p2p_detail::same_value<T>{value});
}
template <typename T>
XSHMEM_HD_INLINE void wait_until_all_vector(const T *ivars, size_t n, const int *status, int cmp,
                                            const T *values) {
  wait_until_all_g(ivars, n, status, cmp, p2p_detail::per_element<T>{values});
}
template <typename T>
XSHMEM_HD_INLINE size_t wait_until_any_vector(const T *ivars, size_t n, const int *status, int cmp,
                                              const T *values, size_t *cursor) {
  return wait_until_any_g(ivars, n, status, cmp, p2p_detail::per_element<T>{values}, cursor);
}
template <typename T>
XSHMEM_HD_INLINE size_t wait_until_some_vector(const T *ivars, size_t n, size_t *indices,
                                               const int *status, int cmp, const T *values) {
  return wait_until_some_g(ivars, n, indices, status, cmp, p2p_detail::per_element<T>{values});
}

// The same under the state's wait deadline (device code passes its state; the host API has its
// own wrappers that name the typed call).
template <typename T>
XSHMEM_HD_INLINE void wait_until_all(const state_t &s, const T *ivars, size_t n, const int *status,
                                     int cmp, T value) {
  wait_until_all_g(ivars, n, status, cmp, p2p_detail::same_value<T>{value}, &s,
                   wait_site{kWaitUntilAll});
}
template <typename T>
XSHMEM_HD_INLINE size_t wait_until_any(const state_t &s, const T *ivars, size_t n,
                                       const int *status, int cmp, T value, size_t *cursor) {
  return wait_until_any_g(ivars, n, status, cmp, p2p_detail::same_value<T>{value}, cursor, &s,
                          wait_site{kWaitUntilAny});
}
template <typename T>
XSHMEM_HD_INLINE size_t wait_until_some(const state_t &s, const T *ivars, size_t n, size_t *indices,
                                        const int *status, int cmp, T value) {
  return wait_until_some_g(ivars, n, indices, status, cmp, p2p_detail::same_value<T>{value}, &s,
                           wait_site{kWaitUntilSome});
}
template <typename T>
XSHMEM_HD_INLINE void wait_until_all_vector(const state_t &s, const T *ivars, size_t n,
                                            const int *status, int cmp, const T *values) {
  wait_until_all_g(ivars, n, status, cmp, p2p_detail::per_element<T>{values}, &s,
                   wait_site{kWaitUntilAllVector});
}
template <typename T>
XSHMEM_HD_INLINE size_t wait_until_any_vector(const state_t &s, const T *ivars, size_t n,
                                              const int *status, int cmp, const T *values,
                                              size_t *cursor) {
  return wait_until_any_g(ivars, n, status, cmp, p2p_detail::per_element<T>{values}, cursor, &s,
                          wait_site{kWaitUntilAnyVector});
}
template <typename T>
XSHMEM_HD_INLINE size_t wait_until_some_vector(const state_t &s, const T *ivars, size_t n,
                                               size_t *indices, const int *status, int cmp,
                                               const T *values) {
  return wait_until_some_g(ivars, n, indices, status, cmp, p2p_detail::per_element<T>{values}, &s,
                           wait_site{kWaitUntilSomeVector});
}

template <typename T>
XSHMEM_HD_INLINE int test_all(const T *ivars, size_t n, const int *status, int cmp, T value) {
  return p2p_detail::all(ivars, n, status, cmp, p2p_detail::same_value<T>{value}) ? 1 : 0;
}
template <typename T>
XSHMEM_HD_INLINE size_t test_any(const T *ivars, size_t n, const int *status, int cmp, T value,
                                 size_t *cursor) {
  return p2p_detail::any(ivars, n, status, cmp, p2p_detail::same_value<T>{value}, cursor);
}
template <typename T>
XSHMEM_HD_INLINE size_t test_some(const T *ivars, size_t n, size_t *indices, const int *status,
                                  int cmp, T value) {
  return p2p_detail::some(ivars, n, indices, status, cmp, p2p_detail::same_value<T>{value});
}
template <typename T>
XSHMEM_HD_INLINE int test_all_vector(const T *ivars, size_t n, const int *status, int cmp,
                                     const T *values) {
  return p2p_detail::all(ivars, n, status, cmp, p2p_detail::per_element<T>{values}) ? 1 : 0;
}
template <typename T>
XSHMEM_HD_INLINE size_t test_any_vector(const T *ivars, size_t n, const int *status, int cmp,
                                        const T *values, size_t *cursor) {
  return p2p_detail::any(ivars, n, status, cmp, p2p_detail::per_element<T>{values}, cursor);
}
template <typename T>
XSHMEM_HD_INLINE size_t test_some_vector(const T *ivars, size_t n, size_t *indices,
                                         const int *status, int cmp, const T *values) {
  return p2p_detail::some(ivars, n, indices, status, cmp, p2p_detail::per_element<T>{values});
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_P2P_H
