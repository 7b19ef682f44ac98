// xshmem device API: the data-movement collectives (broadcast, collect, fcollect, alltoall,
// alltoalls) over a team, for host and device code alike.
//
// Written once on `const state_t &`: compiled for the host they are the host API on host heaps
// (hostshm: copies through the mapped peer heaps), compiled by nvcc the device API. Each takes
// the group G that runs it: coll_thread (one thread: the plain device form and the host),
// warp_group or block_group (group.h) (the _warp/_block forms: every thread of the group calls
// with identical arguments). One group per member PE calls, in the same program order on every
// member (OpenSHMEM team collective rules).
//
// Algorithms. Every one stores straight into the members' `dest` (OpenSHMEM 1.6 readiness rule:
// `dest` is ready on every member before any member calls, so no entry synchronisation is needed
// before a peer's `dest` is written; `source` is read only by its owner) and ends with the team
// barrier (quiet + sync). After that barrier every member's `dest` holds the result.
// - direct: each member pushes its contribution to every member (broadcast: the root to all).
//   One step of latency; the root of a broadcast does n - 1 copies.
// - broadcast tree (XSHMEM_COLL_BCAST_ALGO=tree): a binomial tree rooted at the root. Relative
//   rank v = (me - root) mod n; the parent of v is v minus its lowest set bit, its children are
//   v + 2^j for 2^j below that bit (the root: below n), largest subtree first. The payload moves
//   in chunks of kMoveChunk bytes: a member forwards chunk c to its children as soon as chunk c
//   arrived from its parent, so the levels of the tree overlap (log2(n) chunk times plus the
//   payload time, instead of n - 1 payload times at the root).
// - fcollect/collect ring (XSHMEM_COLL_FCOLLECT_ALGO=ring): n - 1 steps; in step k member i sends
//   block (i - k) mod n (its own in step 0, then the one it received in step k - 1) to member
//   i + 1. Every member sends and receives n - 1 blocks, each link carries each block once.
// - auto: broadcast uses the tree for teams of more than 8 members, or of more than 2 members
//   when the payload is at least one chunk (64 KiB); fcollect and collect use the ring for
//   teams of more than 8 members whose block (collect: the mean block) is at least 64 KiB;
//   direct otherwise. Every member decides from values all members agree on (size, nbytes, the
//   collect counts), so the members never run different algorithms; the variables must be the
//   same on every PE.
//
// Completion signals (tree, ring): one word per algorithm in the team slot's coll_signal[],
// written by one peer (the parent, the left neighbour), set to (seq << 24) | count, where count
// is the chunks (steps) delivered so far and seq is the epoch the collective's exit barrier will
// publish (team_sync_t::epoch + 1 at the start, the same on every member because members run the
// same syncs on the team in the same order). Why consecutive collectives on a team cannot
// interfere:
// - every collective ends with a team barrier, and a member starts the next only after it: so no
//   member writes data or signals of collective k + 1 before every member has finished all its
//   reads and writes of collective k (the barrier's quiet completes them), and a `dest` reused
//   by the user is overwritten only after every member entered the collective that follows the
//   one whose result it held (COLL-11);
// - the barrier increments the epoch, so seq grows with every collective and a signal word only
//   grows: a value from collective k is below every value collective k + 1 waits for, and
//   (completed before k's barrier) never lands after k + 1's;
// - each word has a single writer per team (a member has one parent and one left neighbour), so
//   set (not add) is enough.
// Team slot resources: data movement may use coll_signal[0..31] and the lower half of the team's
// coll_scratch; the reductions own coll_signal[32..63] and the upper half. Used here:
// coll_signal[kSigBcastTree] and [kSigRing]; the scratch only by collect (the counts, one uint64
// per member), and only between an entry sync and its exit barrier, so it never meets another
// collective's use of the scratch.
#ifndef XSHMEM_DEVICE_COLL_MOVE_H
#define XSHMEM_DEVICE_COLL_MOVE_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/device/atomic.h>
#include <xshmem/device/coll_reduce.h>
#include <xshmem/device/group.h>
#include <xshmem/device/lsa.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/rma.h>
#include <xshmem/device/signal.h>
#include <xshmem/device/state.h>
#include <xshmem/device/team.h>

#if !defined(__CUDA_ARCH__)
#include <string.h>
#endif

namespace xshmem::dev {

// The group of one thread (group.h): the plain (thread-scope) device forms and the host API.
using coll_thread = thread_group;

// Operation codes (the host API's kernel on GPU heaps takes one).
enum coll_move_op : int {
  kCollBroadcast = 0,
  kCollCollect = 1,
  kCollFcollect = 2,
  kCollAlltoall = 3,
  kCollAlltoalls = 4,
};

// XSHMEM_COLL_BCAST_ALGO and XSHMEM_COLL_FCOLLECT_ALGO as state_t::coll_bcast_algo and
// coll_fcollect_algo hold them.
enum coll_move_algo : int32_t {
  kMoveAuto = 0,
  kMoveDirect = 1,
  kMoveTree = 2,  // broadcast only
  kMoveRing = 3,  // fcollect and collect only
};

namespace coll_move_detail {

// n bytes by the threads of G (no synchronisation), a local copy (source and destination both
// on this PE): lsa::copy_bulk (16-byte accesses, many in flight, when both sides are 16-byte
// aligned; the host copies with memcpy).
template <typename G>
XSHMEM_HD_INLINE void copy(void *dst, const void *src, size_t n) {
  lsa::copy_bulk<G>(dst, src, n);
}

// Puts n bytes from local `src` to symmetric `dest` at world PE `pe` (the group's share) through
// the RMA dispatcher, whatever the peer's path: non-blocking, as every collective ends with a
// team barrier (its quiet completes the puts) and orders a put before its completion signal
// with the signal's fence.
template <typename G>
XSHMEM_HD_INLINE void put(const state_t &s, void *dest, const void *src, size_t n, int pe) {
  putmem_path<bulk_group<G>>(s, kCtxDefault, dest, src, n, pe, /*nbi=*/true);
}

// Strided: element i from src[i * sst] to dst[i * dstride] (pe < 0: a local copy, else through
// the dispatcher to world PE pe), the group's threads taking every size()-th element.
template <typename G, typename T>
XSHMEM_HD_INLINE void put_strided(const state_t &s, T *dest, const T *src, ptrdiff_t dstride,
                                  ptrdiff_t sst, size_t nelems, int pe) {
  if (nelems == 0) return;
  if (pe >= 0) {
    iput_path<bulk_group<G>>(s, kCtxDefault, dest, src, dstride, sst, nelems, pe, /*nbi=*/true);
    return;
  }
  for (size_t i = G::rank(); i < nelems; i += G::size())
    dest[static_cast<ptrdiff_t>(i) * dstride] = src[static_cast<ptrdiff_t>(i) * sst];
}

// The team barrier by the group: its members' stores (each fenced by the group barrier's
// cumulativity, as barrier_all_block) are complete at every member when it returns.
template <typename G>
XSHMEM_HD_INLINE void barrier(const state_t &s, const team_t &t) {
  G::sync();
  if (G::rank() == 0) team_barrier(s, t, wait_site{kWaitCollective});
  G::sync();
}
template <typename G>
XSHMEM_HD_INLINE void sync(const state_t &s, const team_t &t) {
  G::sync();
  if (G::rank() == 0) team_sync(s, t, wait_site{kWaitCollective});
  G::sync();
}

// The same carrying the arguments' key of a checked host call (key non-NULL: the host's
// one-thread group, a team where teams_carry_keys): the sync is the keyed step of
// coll_reduce.h (team_keyed_sync), so the agreement takes no round of its own. False on every
// member when the keys differ. With key NULL, the plain barrier or sync.
template <typename G>
XSHMEM_HD_INLINE bool barrier(const state_t &s, const team_t &t, const uint64_t *key) {
  if (key == nullptr) {
    barrier<G>(s, t);
    return true;
  }
  quiet(s);
  return team_keyed_sync(s, t, *key, /*fenced=*/true);
}
template <typename G>
XSHMEM_HD_INLINE bool sync(const state_t &s, const team_t &t, const uint64_t *key) {
  if (key == nullptr) {
    sync<G>(s, t);
    return true;
  }
  return team_keyed_sync(s, t, *key);
}

XSHMEM_HD_INLINE unsigned char *at(void *p, size_t off) {
  return static_cast<unsigned char *>(p) + off;
}
XSHMEM_HD_INLINE const unsigned char *at(const void *p, size_t off) {
  return static_cast<const unsigned char *>(p) + off;
}

// Pipeline unit of the broadcast tree, and the block size from which auto picks the tree or
// the ring (see the header comment).
inline constexpr size_t kMoveChunk = size_t{64} << 10;
// Teams above this size use the tree or the ring under auto whatever the size.
inline constexpr int kMoveDirectMaxMembers = 8;
// The low bits of a completion signal count chunks or steps; the high bits hold seq.
inline constexpr int kCountBits = 24;
inline constexpr uint64_t kMaxCount = (uint64_t{1} << kCountBits) - 1;
// The team slot's coll_signal[] words these algorithms use (data movement owns [0, 32)).
inline constexpr int kSigBcastTree = 0;
inline constexpr int kSigRing = 1;

// The sequence number of the collective starting now on t (see the header comment).
XSHMEM_HD_INLINE uint64_t next_seq(const state_t &s, const team_t &t) {
  return atomic::load(&team_area(s, t).epoch) + 1;
}
XSHMEM_HD_INLINE uint64_t *signal_word(const state_t &s, const team_t &t, int which) {
  return &team_area(s, t).coll_signal[which];
}
XSHMEM_HD_INLINE uint64_t signal_value(uint64_t seq, uint64_t count) {
  return (seq << kCountBits) | count;
}

// The group's stores of n bytes to symmetric `dest` at world PE `pe`, then (one thread) `sig` at
// pe set to v, ordered after all of the group's stores (group barrier, then the signal's fence).
template <typename G>
XSHMEM_HD_INLINE void put_then_signal(const state_t &s, void *dest, const void *src, size_t n,
                                      uint64_t *sig, uint64_t v, int pe) {
  put<G>(s, dest, src, n, pe);
  G::sync();
  if (G::rank() == 0) signal_op(s, sig, v, kSignalSet, pe);
}

// Until the local word `sig` reaches v; then the whole group sees what its writer stored before.
template <typename G>
XSHMEM_HD_INLINE void wait_ge(const state_t &s, uint64_t *sig, uint64_t v) {
  if (G::rank() == 0) wait_until(s, wait_site{kWaitCollective}, sig, kCmpGe, v);
  G::sync();
}

// The broadcast algorithm for this call (the same on every member: size and nbytes are).
XSHMEM_HD_INLINE int bcast_algo(const state_t &s, const team_t &t, size_t nbytes) {
  if (t.size == 1) return kMoveDirect;
  if (s.coll_bcast_algo == kMoveDirect || s.coll_bcast_algo == kMoveTree) return s.coll_bcast_algo;
  // A tree of two is the direct push.
  return t.size > kMoveDirectMaxMembers || (t.size > 2 && nbytes >= kMoveChunk) ? kMoveTree
                                                                                : kMoveDirect;
}
// Host heaps: a direct broadcast of at least kPullMin bytes among load/store peers is pulled
// (every member copies the root's source into its own dest, in parallel after an entry sync)
// instead of pushed by the root alone: on CPU PEs the copies then run on every member's core.
inline constexpr size_t kPullMin = size_t{16} << 10;
XSHMEM_HD_INLINE bool bcast_pull(const state_t &s, const team_t &t, size_t nbytes) {
#if defined(__CUDA_ARCH__)
  return false;
#else
  if (s.coll_bcast_algo != kMoveAuto || nbytes < kPullMin || t.size < 2) return false;
  for (int i = 0; i < t.size; ++i)
    if (i != t.my_index && !lsa_reachable(s, team_world_pe(t, i))) return false;
  return true;
#endif
}

// The fcollect/collect algorithm; `block` is the (mean) bytes per member.
XSHMEM_HD_INLINE int fcollect_algo(const state_t &s, const team_t &t, size_t block) {
  if (t.size == 1 || static_cast<uint64_t>(t.size) > kMaxCount) return kMoveDirect;
  if (s.coll_fcollect_algo == kMoveDirect || s.coll_fcollect_algo == kMoveRing)
    return s.coll_fcollect_algo;
  return t.size > kMoveDirectMaxMembers && block >= kMoveChunk ? kMoveRing : kMoveDirect;
}

// Binomial-tree broadcast of nbytes from member `root` into every member's dest (header
// comment); ends when this member has its payload and has forwarded it, without the barrier.
template <typename G>
XSHMEM_HD_INLINE void bcast_tree(const state_t &s, const team_t &t, void *dest, const void *source,
                                 size_t nbytes, int root) {
  const int64_t n = t.size;
  const int64_t v = (t.my_index - root + n) % n;
  const int64_t low = v == 0 ? n : (v & -v);  // children: v + d for powers of two d < low
  int64_t top = 1;
  while (top < low) top <<= 1;
  top >>= 1;
  // Chunks: at most kMaxCount of them, so the count fits the signal.
  size_t chunk = kMoveChunk;
  if (nbytes / chunk >= kMaxCount) chunk = nbytes / kMaxCount + 1;
  const size_t nchunks = nbytes == 0 ? 1 : (nbytes + chunk - 1) / chunk;
  const uint64_t seq = next_seq(s, t);
  uint64_t *sig = signal_word(s, t, kSigBcastTree);
  // The root forwards from source; the others from their dest, where the parent put it.
  const void *from = v == 0 ? source : dest;
  for (size_t c = 0; c < nchunks; ++c) {
    const size_t off = c * chunk;
    const size_t len = nbytes - off < chunk ? nbytes - off : chunk;
    if (v != 0) wait_ge<G>(s, sig, signal_value(seq, c + 1));
    for (int64_t d = top; d >= 1; d >>= 1) {
      if (v + d >= n) continue;
      const int pe = team_world_pe(t, static_cast<int>((v + d + root) % n));
      put_then_signal<G>(s, at(dest, off), at(from, off), len, sig, signal_value(seq, c + 1), pe);
    }
  }
  if (v == 0) copy<G>(dest, source, nbytes);
}

// Block lengths for ring(): fcollect's (all alike) and collect's (the counts in the scratch).
struct same_len {
  size_t n;
  XSHMEM_HD_INLINE size_t operator()(int) const { return n; }
};
struct counted_len {
  const uint64_t *counts;
  XSHMEM_HD_INLINE size_t operator()(int i) const {
    return static_cast<size_t>(atomic::load(&counts[i]));
  }
};

// Ring allgather of variable blocks into every member's dest (header comment): block i is
// len(i) bytes at offset off(i); `mine` is this member's block (len(me) bytes). Ends when this
// member has every block and has forwarded n - 1 of them, without the barrier.
template <typename G, typename Len>
XSHMEM_HD_INLINE void ring(const state_t &s, const team_t &t, void *dest, const void *mine,
                           size_t my_off, Len len, size_t total) {
  const int n = t.size, me = t.my_index;
  const int right = team_world_pe(t, (me + 1) % n);
  const uint64_t seq = next_seq(s, t);
  uint64_t *sig = signal_word(s, t, kSigRing);
  // Block b of step k is (me - k) mod n; offsets walk down (wrapping from block 0 to n - 1).
  int b = me;
  size_t off = my_off;
  for (int k = 0; k + 1 < n; ++k) {
    if (k > 0) {
      wait_ge<G>(s, sig, signal_value(seq, static_cast<uint64_t>(k)));
      b = b == 0 ? n - 1 : b - 1;
      off = b == n - 1 ? total - len(b) : off - len(b);
    }
    put_then_signal<G>(s, at(dest, off), k == 0 ? mine : at(dest, off), len(b), sig,
                       signal_value(seq, static_cast<uint64_t>(k) + 1), right);
    if (k == 0) copy<G>(at(dest, my_off), mine, len(me));
  }
  if (n == 1) copy<G>(at(dest, my_off), mine, len(me));
  if (n > 1) wait_ge<G>(s, sig, signal_value(seq, static_cast<uint64_t>(n) - 1));
}

}  // namespace coll_move_detail

// broadcast: `nbytes` of `source` at member `root` land in `dest` of every member, root
// included (source == dest permitted). Returns 0, or -1 (nothing done) when t is not a team of
// this PE or root is out of range.
template <typename G>
XSHMEM_HD_INLINE int broadcastmem(const state_t &s, const team_t &t, void *dest, const void *source,
                                  size_t nbytes, int root, const uint64_t *key = nullptr) {
  namespace cm = coll_move_detail;
  if (!team_member(t) || root < 0 || root >= t.size) return -1;
  if (cm::bcast_algo(s, t, nbytes) == kMoveTree) {
    if (!cm::sync<G>(s, t, key)) return 1;
    key = nullptr;
    cm::bcast_tree<G>(s, t, dest, source, nbytes, root);
  } else if (cm::bcast_pull(s, t, nbytes)) {
    // The root's source is ready once every member has entered; the exit barrier keeps it in
    // place until every member has its copy.
    if (!cm::sync<G>(s, t, key)) return 1;
    key = nullptr;
    if (t.my_index != root)
      cm::copy<G>(dest, lsa_addr(s, source, team_world_pe(t, root)), nbytes);
    else if (dest != source)
      cm::copy<G>(dest, source, nbytes);
  } else if (t.my_index == root) {
    // Members in turn from the root's right neighbour, so concurrent roots of different teams
    // do not all start at the same PE.
    for (int k = 1; k < t.size; ++k)
      cm::put<G>(s, dest, source, nbytes, team_world_pe(t, (root + k) % t.size));
    cm::copy<G>(dest, source, nbytes);
  }
  return cm::barrier<G>(s, t, key) ? 0 : 1;
}

// fcollect: member i's `nbytes` of `source` land at dest + i * nbytes on every member.
template <typename G>
XSHMEM_HD_INLINE int fcollectmem(const state_t &s, const team_t &t, void *dest, const void *source,
                                 size_t nbytes, const uint64_t *key = nullptr) {
  namespace cm = coll_move_detail;
  if (!team_member(t)) return -1;
  const size_t off = static_cast<size_t>(t.my_index) * nbytes;
  if (cm::fcollect_algo(s, t, nbytes) == kMoveRing) {
    if (!cm::sync<G>(s, t, key)) return 1;
    cm::ring<G>(s, t, dest, source, off, cm::same_len{nbytes},
                nbytes * static_cast<size_t>(t.size));
    cm::barrier<G>(s, t);
    return 0;
  }
  for (int k = 1; k < t.size; ++k)
    cm::put<G>(s, cm::at(dest, off), source, nbytes, team_world_pe(t, (t.my_index + k) % t.size));
  cm::copy<G>(cm::at(dest, off), source, nbytes);
  return cm::barrier<G>(s, t, key) ? 0 : 1;
}

// collect: like fcollect with `nbytes` per member (may differ, 0 included): member i's bytes land
// after those of members 0 .. i-1 on every member. The counts go through the team's scratch
// (one uint64 per member, written by that member into every member's scratch).
template <typename G>
XSHMEM_HD_INLINE int collectmem(const state_t &s, const team_t &t, void *dest, const void *source,
                                size_t nbytes, const uint64_t *key = nullptr) {
  namespace cm = coll_move_detail;
  if (!team_member(t)) return -1;
  // Every member has left the team's previous collective, which may still have used the scratch.
  if (!cm::sync<G>(s, t, key)) return 1;
  uint64_t *counts = reinterpret_cast<uint64_t *>(s.internal->coll_scratch[t.slot]);
  if (G::rank() == 0) {
    for (int k = 1; k < t.size; ++k)
      p(s, &counts[t.my_index], static_cast<uint64_t>(nbytes),
        team_world_pe(t, (t.my_index + k) % t.size));
    atomic::store(&counts[t.my_index], static_cast<uint64_t>(nbytes));
  }
  cm::barrier<G>(s, t);
  size_t off = 0, total = 0;
  for (int i = 0; i < t.size; ++i) {
    if (i == t.my_index) off = total;
    total += static_cast<size_t>(atomic::load(&counts[i]));
  }
  if (cm::fcollect_algo(s, t, total / static_cast<size_t>(t.size)) == kMoveRing) {
    cm::ring<G>(s, t, dest, source, off, cm::counted_len{counts}, total);
    cm::barrier<G>(s, t);
    return 0;
  }
  for (int k = 1; k < t.size; ++k)
    cm::put<G>(s, cm::at(dest, off), source, nbytes, team_world_pe(t, (t.my_index + k) % t.size));
  cm::copy<G>(cm::at(dest, off), source, nbytes);
  // Also: no member rewrites the counts (its next collect) before every member has read them.
  cm::barrier<G>(s, t);
  return 0;
}

// alltoall: block j (`nbytes` at source + j * nbytes) goes to member j, at dest + me * nbytes.
// The member's own block is copied last, while its stores to the peers drain.
template <typename G>
XSHMEM_HD_INLINE int alltoallmem(const state_t &s, const team_t &t, void *dest, const void *source,
                                 size_t nbytes, const uint64_t *key = nullptr) {
  namespace cm = coll_move_detail;
  if (!team_member(t)) return -1;
  const size_t off = static_cast<size_t>(t.my_index) * nbytes;
  for (int k = 1; k < t.size; ++k) {
    const int j = (t.my_index + k) % t.size;
    cm::put<G>(s, cm::at(dest, off), cm::at(source, static_cast<size_t>(j) * nbytes), nbytes,
               team_world_pe(t, j));
  }
  cm::copy<G>(cm::at(dest, off), cm::at(source, off), nbytes);
  return cm::barrier<G>(s, t, key) ? 0 : 1;
}

// alltoalls: element i of block j, source[(j * nelems + i) * sst], goes to member j at
// dest[(me * nelems + i) * dst] (strides in elements, >= 1).
template <typename G, typename T>
XSHMEM_HD_INLINE int alltoalls(const state_t &s, const team_t &t, T *dest, const T *source,
                               ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                               const uint64_t *key = nullptr) {
  namespace cm = coll_move_detail;
  if (!team_member(t)) return -1;
  const ptrdiff_t me = t.my_index, n = static_cast<ptrdiff_t>(nelems);
  for (int k = 1; k < t.size; ++k) {
    const ptrdiff_t j = (me + k) % t.size;
    cm::put_strided<G>(s, dest + me * n * dst, source + j * n * sst, dst, sst, nelems,
                       team_world_pe(t, static_cast<int>(j)));
  }
  cm::put_strided<G>(s, dest + me * n * dst, source + me * n * sst, dst, sst, nelems, -1);
  return cm::barrier<G>(s, t, key) ? 0 : 1;
}

// Typed forms on a team handle (the C API's shape).
template <typename G, typename T>
XSHMEM_HD_INLINE int broadcast(const state_t &s, int team, T *dest, const T *source, size_t nelems,
                               int root) {
  return broadcastmem<G>(s, team_of(s, team), dest, source, nelems * sizeof(T), root);
}
template <typename G, typename T>
XSHMEM_HD_INLINE int collect(const state_t &s, int team, T *dest, const T *source, size_t nelems) {
  return collectmem<G>(s, team_of(s, team), dest, source, nelems * sizeof(T));
}
template <typename G, typename T>
XSHMEM_HD_INLINE int fcollect(const state_t &s, int team, T *dest, const T *source, size_t nelems) {
  return fcollectmem<G>(s, team_of(s, team), dest, source, nelems * sizeof(T));
}
template <typename G, typename T>
XSHMEM_HD_INLINE int alltoall(const state_t &s, int team, T *dest, const T *source, size_t nelems) {
  return alltoallmem<G>(s, team_of(s, team), dest, source, nelems * sizeof(T));
}
template <typename G, typename T>
XSHMEM_HD_INLINE int alltoalls(const state_t &s, int team, T *dest, const T *source, ptrdiff_t dst,
                               ptrdiff_t sst, size_t nelems) {
  return alltoalls<G>(s, team_of(s, team), dest, source, dst, sst, nelems);
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_COLL_MOVE_H
