// xshmem device API: teams as the path code sees them (numbering, sync, barrier, and a one-word
// allreduce), for host and device code alike.
//
// A team is an arithmetic progression of world PEs (team_t in state.h); a handle indexes
// state_t::teams. Every member uses the team's slot of the internal region for synchronisation
// (team_sync_t): a dissemination over the members, ceil(log2 size) rounds, as in sync.h for the
// world (which is the team in slot 0).
#ifndef XSHMEM_DEVICE_TEAM_H
#define XSHMEM_DEVICE_TEAM_H

#include <stdint.h>

#include <xshmem/device/atomic.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/p2p.h>
#include <xshmem/device/rma.h>
#include <xshmem/device/signal.h>
#include <xshmem/device/state.h>

namespace xshmem::dev {

// The team behind handle `team`, or an empty team (size 0) for a handle that is not a team of
// this PE (INVALID, out of range, destroyed, or a team this PE is not in).
XSHMEM_HD_INLINE team_t team_of(const state_t &s, int team) {
  if (team < 0 || team >= internal_region_t::kMaxTeams || s.teams == nullptr) return team_t{};
#if defined(__CUDA_ARCH__)
  // Read-only while kernels run (a new table goes to a new address): the read-only cache.
  team_t t;
  const int4 *src = reinterpret_cast<const int4 *>(s.teams + team);
  int4 a = __ldg(src), b = __ldg(src + 1);
  t.start = a.x;
  t.stride = a.y;
  t.size = a.z;
  t.my_index = a.w;
  t.slot = b.x;
  t.num_contexts = b.y;
  return t;
#else
  return s.teams[team];
#endif
}

XSHMEM_HD_INLINE bool team_member(const team_t &t) {
  return t.size > 0 && t.my_index >= 0;
}

// World PE of member `index` (0 <= index < size).
XSHMEM_HD_INLINE int team_world_pe(const team_t &t, int index) {
  return t.start + index * t.stride;
}

// The member number of world PE `pe` in t, or -1 when pe is not a member.
XSHMEM_HD_INLINE int team_index_of(const team_t &t, int pe) {
  if (t.size <= 0) return -1;
  const int d = pe - t.start;
  if (t.stride == 0) return d == 0 ? 0 : -1;
  if (d % t.stride != 0) return -1;
  const int i = d / t.stride;
  return i >= 0 && i < t.size ? i : -1;
}

// team_translate_pe: -1 for an invalid team on either side, a src_pe out of range, or a PE that
// is not in dest_team.
XSHMEM_HD_INLINE int team_translate_pe(const state_t &s, int src_team, int src_pe, int dest_team) {
  const team_t a = team_of(s, src_team), b = team_of(s, dest_team);
  if (!team_member(a) || !team_member(b) || src_pe < 0 || src_pe >= a.size) return -1;
  return team_index_of(b, team_world_pe(a, src_pe));
}

XSHMEM_HD_INLINE team_sync_t &team_area(const state_t &s, const team_t &t) {
  return s.internal->team[t.slot];
}

// The rounds of one sync with number `epoch` on t; the caller has fenced (release or stronger)
// right before. Cost per round over NVLink: one remote store, one poll, and (after round 0) the
// fence that orders what this PE learned in the round before (cumulativity). `site`: the public
// call, for the wait deadline (a round that waits too long names the member it waits for).
XSHMEM_HD_INLINE void team_sync_rounds(const state_t &s, const team_t &t, uint64_t epoch,
                                       const wait_site &site) {
  team_sync_t &a = team_area(s, t);
  for (int k = 0; k < team_sync_t::kMaxRounds && (int64_t{1} << k) < t.size; ++k) {
    const int64_t step = (int64_t{1} << k) % t.size;
    const int to = team_world_pe(t, static_cast<int>((t.my_index + step) % t.size));
    const int from = team_world_pe(t, static_cast<int>((t.my_index - step + t.size) % t.size));
    signal_op(s, &a.flags[k], epoch, kSignalSet, to, /*fenced=*/k == 0);
    wait_until(s, site, &a.flags[k], kCmpGe, epoch, from, k);
  }
}

// team_sync: every member arrives before any leaves; this thread's stores before the call are
// visible to every member after it. One caller per member at a time.
XSHMEM_HD_INLINE void team_sync(const state_t &s, const team_t &t,
                                const wait_site &site = wait_site{kWaitTeamSync}) {
  uint64_t *ep = &team_area(s, t).epoch;
  const uint64_t epoch = atomic::load(ep) + 1;
  atomic::fence();
  team_sync_rounds(s, t, epoch, site);
  atomic::store(ep, epoch);
}

// quiet, then team_sync (the quiet is the first round's fence).
XSHMEM_HD_INLINE void team_barrier(const state_t &s, const team_t &t,
                                   const wait_site &site = wait_site{kWaitTeamSync}) {
  uint64_t *ep = &team_area(s, t).epoch;
  const uint64_t epoch = atomic::load(ep) + 1;
  quiet(s);
  team_sync_rounds(s, t, epoch, site);
  atomic::store(ep, epoch);
}

// Operations of the one-word allreduce. Only idempotent ones: the dissemination combines some
// contributions more than once when the size is not a power of two.
enum word_op : int { kWordOr = 0, kWordAnd = 1, kWordMax = 2, kWordMin = 3 };

XSHMEM_HD_INLINE uint64_t word_combine(int op, uint64_t a, uint64_t b) {
  switch (op) {
    case kWordOr:
      return a | b;
    case kWordAnd:
      return a & b;
    case kWordMax:
      return a > b ? a : b;
    default:
      return a < b ? a : b;
  }
}

// Every member passes a word and receives op over all members' words; also a team sync.
// In round k the partner's vals[k][epoch & 1] gets the running result, then its flags[k] the
// epoch (data before flag: the signal's fence).
XSHMEM_HD_INLINE uint64_t team_allreduce_word(const state_t &s, const team_t &t, uint64_t v, int op,
                                              const wait_site &site = wait_site{kWaitCollective}) {
  team_sync_t &a = team_area(s, t);
  const uint64_t epoch = atomic::load(&a.epoch) + 1;
  const int parity = static_cast<int>(epoch & 1);
  uint64_t acc = v;
  for (int k = 0; k < team_sync_t::kMaxRounds && (int64_t{1} << k) < t.size; ++k) {
    const int to = team_world_pe(t, static_cast<int>((t.my_index + (int64_t{1} << k)) % t.size));
    const int from = team_world_pe(
        t, static_cast<int>((t.my_index - (int64_t{1} << k) % t.size + t.size) % t.size));
    p(s, &a.vals[k][parity], acc, to);
    signal_op(s, &a.flags[k], epoch, kSignalSet, to);
    wait_until(s, site, &a.flags[k], kCmpGe, epoch, from, k);
    acc = word_combine(op, acc, atomic::load(&a.vals[k][parity]));
  }
  atomic::store(&a.epoch, epoch);
  return acc;
}

// Agreement on a 64-bit key in one kWordOr allreduce: each member contributes key_word(key), a
// 32-bit digest h of the key as (h << 32 | ~h). Where the digests agree the OR is that word (its
// halves complementary); where two members differ in a bit of h, that bit is set in both halves
// (one member's h, the other's ~h). Keys that differ with the same digest (2^-32) pass.
XSHMEM_HD_INLINE uint64_t key_word(uint64_t key) {
  const uint32_t h = static_cast<uint32_t>(key ^ (key >> 32));
  return uint64_t{h} << 32 | uint64_t{~h};
}
XSHMEM_HD_INLINE bool key_word_agreed(uint64_t or_of_words) {
  return (static_cast<uint32_t>(or_of_words >> 32) & static_cast<uint32_t>(or_of_words)) == 0;
}

// team_ptr: the address of symmetric `sym` at member `pe` of t, or NULL (not load/store
// reachable, or pe out of range).
template <typename T>
XSHMEM_HD_INLINE T *team_ptr(const state_t &s, const team_t &t, T *sym, int pe) {
  if (!team_member(t) || pe < 0 || pe >= t.size) return nullptr;
  return ptr(s, sym, team_world_pe(t, pe));
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_TEAM_H
