// xshmem device API: distributed locks (set_lock, test_lock, clear_lock; OpenSHMEM 1.5, and the
// thread-scope device forms NVSHMEM has), written once for host and device.
//
// A lock is a symmetric `long` that the program sets to 0 (on every PE, or at least on PE 0)
// before any PE uses it. Only PE 0's copy is used, as a ticket lock in its two 32-bit halves:
// word 0 is the next ticket to hand out, word 1 the ticket now served; the lock is free when they
// are equal (so it need not return to 0).
// - set_lock takes a ticket (fetch_add 1 on word 0) and polls word 1 until it serves the ticket.
// - test_lock reads word 1 (s) and tries compare_swap(word 0: s -> s + 1): that succeeds only
//   when no PE holds or waits for the lock, and then the caller holds it (returns 0); else it
//   takes no ticket and returns 1.
// - clear_lock quiets first (the holder's puts and atomics are complete and visible to the next
//   holder), then serves the next ticket (fetch_add 1 on word 1, done when it returns).
// Every access goes through the atomics dispatcher (amo.h), so a lock works over whatever path
// reaches PE 0 (LSA over hostshm or NVLink, PROXY over libfabric, GDA over ibgda), from host or
// GPU threads, and keeps that path's atomicity rule (docs/semantics.md "Atomicity across
// paths"); no PE ever loads or stores the lock word directly.
//
// Why tickets and not an MCS queue (Sandia OpenSHMEM, OSSS): MCS links one queue node per PE (the
// PE's own copy of the lock), so it serves one contender per PE at a time; the device forms are
// thread scope, and many GPU threads of one PE (or host threads under XSHMEM_THREAD_MULTIPLE) may
// wait for one lock at once. Tickets serve any number of contenders in the order they took their
// tickets: with N contenders acquiring K times each, an acquisition waits for at most N - 1
// holders, and the whole finishes after N * K hand-overs (no starvation). Their price is that
// waiters poll PE 0 instead of a local word; each waits between polls in proportion to its place
// in the line (ticket - served), so the next in line polls most often.
//
// The poll honours the wait deadline (XSHMEM_WAIT_TIMEOUT): past it, the caller's `timed_out`
// gets what it waited for (the host API stops the job with a line naming xshmem_set_lock, the
// lock, the ticket and the ticket served); the plain form (GPU threads) reports through the
// device mailbox as a wait on the served word at PE 0 (the device's wait reports name the wait
// by its wait_call, which has no lock code).
//
// Undefined (OpenSHMEM): clear_lock by a PE that does not hold the lock (it serves the next
// ticket, handing the lock on while its holder is still inside), set_lock by a holder (it waits
// for itself); more than 2^32 - 1 contenders at once.
#ifndef XSHMEM_DEVICE_LOCK_H
#define XSHMEM_DEVICE_LOCK_H

#include <stdint.h>

#include <xshmem/device/amo.h>
#include <xshmem/device/atomic.h>
#include <xshmem/device/group.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/p2p.h>
#include <xshmem/device/rma.h>
#include <xshmem/device/state.h>

namespace xshmem::dev {

namespace lock_detail {

static_assert(sizeof(long) == 2 * sizeof(uint32_t), "a lock is two 32-bit words in a long");

// The PE whose copy of every lock is used (the same on every PE, whatever the lock's address).
inline constexpr int kHome = 0;
// Extra back-off steps per place in the line, at most.
inline constexpr uint32_t kMaxBackoffSteps = 16;

XSHMEM_HD_INLINE uint32_t *ticket_word(long *lock) {
  return reinterpret_cast<uint32_t *>(lock);
}
XSHMEM_HD_INLINE uint32_t *served_word(long *lock) {
  return reinterpret_cast<uint32_t *>(lock) + 1;
}

template <amo_op Op>
XSHMEM_HD_INLINE uint32_t amo(const state_t &s, uint32_t *word, uint32_t value, uint32_t cond) {
  return amo_path<Op, thread_group>(s, kCtxDefault, word, value, cond, kHome);
}

// The device form's checks (XSHMEM_DEVICE_CHECKS): a symmetric, 8-byte aligned long.
XSHMEM_HD_INLINE void dcheck_lock(const state_t &s, const long *lock) {
  dcheck_remote(s, kDevOpAtomic, kHome, lock, sizeof(long));
  dcheck_align(s, kDevOpAtomic, kHome, lock, sizeof(long));
}

}  // namespace lock_detail

// What a set_lock waited for when it passed the wait deadline.
struct lock_wait_t {
  const long *lock;
  uint32_t ticket;  // the caller's ticket
  uint32_t served;  // the ticket served when last polled
  uint64_t waited_ns;
};

// The plain form's report of a set_lock past the deadline: a wait for the served word at PE 0 to
// equal the ticket. Does not return.
XSHMEM_HD_INLINE void lock_timed_out(const state_t &s, const lock_wait_t &w) {
  wait_timeout_t r;
  r.call = kWaitUntil;
  r.cmp = kCmpEq;
  r.pe = lock_detail::kHome;
  r.value_size = static_cast<int32_t>(sizeof(uint32_t));
  r.value_signed = 0;
  r.addr = lock_detail::served_word(const_cast<long *>(w.lock));
  r.expected = w.ticket;
  r.seen = w.served;
  r.waited_ns = w.waited_ns;
  wait_timed_out(s, r);
}

// Acquires `lock` (blocks until this thread holds it). `timed_out(const lock_wait_t &)` is called
// past the wait deadline and must not return.
template <typename TimedOut>
XSHMEM_HD_INLINE void set_lock(const state_t &s, long *lock, TimedOut timed_out) {
  namespace ld = lock_detail;
  ld::dcheck_lock(s, lock);
  const uint32_t ticket = ld::amo<amo_op::fetch_add>(s, ld::ticket_word(lock), 1u, 0u);
  atomic::backoff wait;
  wait_clock clock(&s);
  for (;;) {
    const uint32_t served = ld::amo<amo_op::fetch>(s, ld::served_word(lock), 0u, 0u);
    if (served == ticket) break;
    if (clock.passed()) timed_out(lock_wait_t{lock, ticket, served, clock.waited_ns()});
    // One step per poll, and one more per holder ahead beyond the next (at most kMaxBackoffSteps).
    const uint32_t ahead = ticket - served;
    const uint32_t steps = ahead < ld::kMaxBackoffSteps ? ahead : ld::kMaxBackoffSteps;
    for (uint32_t k = 0; k < steps; ++k) wait();
  }
  // The atomics are relaxed: what the previous holder completed (its quiet, then its release)
  // is seen by this thread's later loads.
  atomic::fence();
}

XSHMEM_HD_INLINE void set_lock(const state_t &s, long *lock) {
  set_lock(s, lock, [&s](const lock_wait_t &w) { lock_timed_out(s, w); });
}

// Tries to acquire `lock` without waiting: 0 when this thread now holds it, 1 when another PE or
// thread holds it or waits for it.
XSHMEM_HD_INLINE int test_lock(const state_t &s, long *lock) {
  namespace ld = lock_detail;
  ld::dcheck_lock(s, lock);
  const uint32_t served = ld::amo<amo_op::fetch>(s, ld::served_word(lock), 0u, 0u);
  const uint32_t next = served + 1u;
  if (ld::amo<amo_op::compare_swap>(s, ld::ticket_word(lock), next, served) != served) return 1;
  atomic::fence();
  return 0;
}

// Releases `lock`, held by this thread: completes this thread's operations (quiet), then serves
// the next ticket.
XSHMEM_HD_INLINE void clear_lock(const state_t &s, long *lock) {
  namespace ld = lock_detail;
  ld::dcheck_lock(s, lock);
  quiet(s);
  (void)ld::amo<amo_op::fetch_add>(s, ld::served_word(lock), 1u, 0u);
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_LOCK_H
