// xshmem device API: world synchronisation over the path code.
//
// A dissemination barrier on the internal region every heap starts with (state_t::internal, the
// same offset on every PE). In round k, PE me adds 1 to sync_flags[k] of PE (me + 2^k) mod n,
// then waits until its own sync_flags[k] reaches the epoch. Each PE is notified exactly once per
// round per sync, by the same peer, so the counters only grow and the epoch (the number of syncs
// this PE has done) says what to wait for: no reset, no sense reversal. ceil(log2 n) rounds for
// any n, none for n == 1.
#ifndef XSHMEM_DEVICE_SYNC_H
#define XSHMEM_DEVICE_SYNC_H

#include <stdint.h>

#include <xshmem/device/atomic.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/rma.h>
#include <xshmem/device/signal.h>
#include <xshmem/device/state.h>

namespace xshmem::dev {

// Every PE arrives before any leaves. `epoch` is this sync's number (1 for the first, then
// counting up; every PE passes the same). Stores this thread made before the call are visible
// to each PE once it has left. Does not complete remote operations of other paths (quiet first
// for barrier semantics).
XSHMEM_HD_INLINE void sync_all(const state_t &s, uint64_t epoch) {
  const int64_t n = s.n_pes;
  for (int k = 0; k < internal_region_t::kMaxRounds && (int64_t{1} << k) < n; ++k) {
    int to = static_cast<int>((s.my_pe + (int64_t{1} << k)) % n);
    // A release-ordered add: the peer that sees it also sees everything stored before.
    signal_op(s, &s.internal->sync_flags[k], 1, kSignalAdd, to);
    wait_until(&s.internal->sync_flags[k], kCmpGe, epoch);
  }
}

// sync_all for callers without a per-process counter (GPU threads; host calls on GPU heaps): the
// epoch is the internal region's sync_epoch, one word per PE in its own heap, so it survives
// kernel launches and is shared by every kernel module of the process. One caller per PE at a
// time (one thread of one block), like every collective. Completes this thread's stores first.
XSHMEM_HD_INLINE void sync_all(const state_t &s) {
  atomic::quiet();
  uint64_t epoch = atomic::fetch_add(&s.internal->sync_epoch, uint64_t{1}) + 1;
  sync_all(s, epoch);
}

// quiet, then sync_all: every PE has completed its operations before any leaves.
XSHMEM_HD_INLINE void barrier_all(const state_t &s) {
  quiet(s);
  sync_all(s);
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_SYNC_H
