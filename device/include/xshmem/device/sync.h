// xshmem device API: world synchronisation over the path code.
//
// A dissemination barrier on the internal region every heap starts with (state_t::internal, the
// same offset on every PE). In round k, PE me writes the sync's epoch into sync_flags[k] of PE
// (me + 2^k) mod n, then waits until its own sync_flags[k] reaches the epoch. Each flag has one
// writer (PE (me - 2^k) mod n), and the epoch (the number of syncs this PE has done, the same on
// every PE) only grows: no reset, no sense reversal, and a plain store is enough (a PE that sees
// a later epoch knows its partner passed this round too). ceil(log2 n) rounds for any n, none
// for n == 1.
//
// Cost per round over NVLink: one fence (it waits for this thread's outstanding stores to be
// acknowledged), one remote store, one poll. The fence before the first store is the caller's
// quiet (barrier) or a release fence (sync); later rounds fence again so that what a PE learned
// in round k-1 is ordered before its round-k store (cumulativity).
#ifndef XSHMEM_DEVICE_SYNC_H
#define XSHMEM_DEVICE_SYNC_H

#include <stdint.h>

#include <xshmem/device/atomic.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/rma.h>
#include <xshmem/device/signal.h>
#include <xshmem/device/state.h>

namespace xshmem::dev {

// The rounds of one sync with number `epoch` (1 for the first, then counting up; every PE
// passes the same). The caller has fenced (release or stronger) right before.
XSHMEM_HD_INLINE void sync_rounds(const state_t &s, uint64_t epoch) {
  const int64_t n = s.n_pes;
  for (int k = 0; k < internal_region_t::kMaxRounds && (int64_t{1} << k) < n; ++k) {
    int to = static_cast<int>((s.my_pe + (int64_t{1} << k)) % n);
    signal_op(s, &s.internal->sync_flags[k], epoch, kSignalSet, to, /*fenced=*/k == 0);
    wait_until(&s.internal->sync_flags[k], kCmpGe, epoch);
  }
}

// Every PE arrives before any leaves. Stores this thread made before the call are visible to
// each PE once it has left. Does not complete remote operations of other paths (quiet first for
// barrier semantics).
XSHMEM_HD_INLINE void sync_all(const state_t &s, uint64_t epoch) {
  atomic::fence();
  sync_rounds(s, epoch);
}

// The epoch counter of this PE's world syncs for callers without a per-process counter (GPU
// threads; host calls on GPU heaps): internal->sync_epoch, a word of this PE's own heap, so it
// survives kernel launches and is shared by every kernel module of the process. One caller per
// PE at a time (one thread of one block), like every collective, so a plain load and store do;
// the store goes after the rounds, off the path the fence waits for.
XSHMEM_HD_INLINE uint64_t *epoch_word(const state_t &s) {
  return &s.internal->sync_epoch;
}

// sync_all on the epoch counter in the heap (see epoch_word).
XSHMEM_HD_INLINE void sync_all(const state_t &s) {
  const uint64_t epoch = atomic::load(epoch_word(s)) + 1;
  atomic::fence();
  sync_rounds(s, epoch);
  atomic::store(epoch_word(s), epoch);
}

// quiet, then sync: every PE has completed its operations before any leaves. The quiet is the
// first round's fence.
XSHMEM_HD_INLINE void barrier_all(const state_t &s) {
  const uint64_t epoch = atomic::load(epoch_word(s)) + 1;
  quiet(s);
  sync_rounds(s, epoch);
  atomic::store(epoch_word(s), epoch);
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_SYNC_H
