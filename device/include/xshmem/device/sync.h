// xshmem device API: world synchronisation over the path code.
//
// The world is the team in slot 0 of the internal region (team.h): a dissemination barrier with
// ceil(log2 n) rounds for any n, none for n == 1. In round k, PE me writes the sync's epoch into
// the round-k flag of PE (me + 2^k) mod n, then waits until its own flag reaches the epoch. Each
// flag has one writer, and the epoch (the number of syncs this PE has done, the same on every
// PE) only grows: no reset, no sense reversal, and a plain store is enough (a PE that sees a
// later epoch knows its partner passed this round too).
//
// The epoch lives in this PE's own heap (team_sync_t::epoch), so GPU threads of every kernel
// module and host calls on GPU heaps share it. One caller per PE at a time (one thread of one
// block), like every collective.
#ifndef XSHMEM_DEVICE_SYNC_H
#define XSHMEM_DEVICE_SYNC_H

#include <stdint.h>

#include <xshmem/device/state.h>
#include <xshmem/device/team.h>

namespace xshmem::dev {

// The world as a team (slot 0), without a table load.
XSHMEM_HD_INLINE team_t world_team(const state_t &s) {
  team_t t;
  t.start = 0;
  t.stride = 1;
  t.size = s.n_pes;
  t.my_index = s.my_pe;
  t.slot = 0;
  return t;
}

// Every PE arrives before any leaves; stores this thread made before the call are visible to
// each PE once it has left. Does not complete remote operations (quiet first for barrier
// semantics).
XSHMEM_HD_INLINE void sync_all(const state_t &s, const wait_site &site = wait_site{kWaitSyncAll}) {
  team_sync(s, world_team(s), site);
}

// quiet, then sync: every PE has completed its operations before any leaves.
XSHMEM_HD_INLINE void barrier_all(const state_t &s,
                                  const wait_site &site = wait_site{kWaitBarrierAll}) {
  team_barrier(s, world_team(s), site);
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_SYNC_H
