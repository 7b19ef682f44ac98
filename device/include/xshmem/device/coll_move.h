// xshmem device API: the data-movement collectives (broadcast, collect, fcollect, alltoall,
// alltoalls) over a team, for host and device code alike.
//
// Written once on `const state_t &`: compiled for the host they are the host API on host heaps
// (hostshm: copies through the mapped peer heaps), compiled by nvcc the device API. Each takes
// the group G that runs it: coll_thread (one thread: the plain device form and the host),
// warp_group or block_group of coop.h (the _warp/_block forms: every thread of the group calls
// with identical arguments). One group per member PE calls, in the same program order on every
// member (OpenSHMEM team collective rules).
//
// Algorithms are push-based: every member stores its contribution straight into the members'
// `dest`, then the team barriers (quiet + sync), so a call costs one team barrier (collect: three
// syncs, for its counts). That relies on the OpenSHMEM 1.6 readiness rule: `dest` is ready on
// every member before any member calls, so no entry synchronisation is needed before a peer's
// `dest` is written; `source` is read only by its owner. After the exit barrier every member's
// `dest` holds the result and the next collective on the team may start at once.
//
// Team slot resources: only collect uses the team's scratch (the counts, one uint64 per member),
// and only between an entry sync and its exit barrier, so it never meets another collective's
// use of the scratch. No collective here uses the team's coll_signal words.
#ifndef XSHMEM_DEVICE_COLL_MOVE_H
#define XSHMEM_DEVICE_COLL_MOVE_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/device/atomic.h>
#include <xshmem/device/lsa.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/rma.h>
#include <xshmem/device/state.h>
#include <xshmem/device/team.h>

#if !defined(__CUDA_ARCH__)
#include <string.h>
#endif

namespace xshmem::dev {

// The group of one thread: the plain (thread-scope) device forms and the host API.
struct coll_thread {
  XSHMEM_HD_INLINE static unsigned rank() { return 0; }
  XSHMEM_HD_INLINE static unsigned size() { return 1; }
  XSHMEM_HD_INLINE static void sync() {}
};

// Operation codes (the host API's kernel on GPU heaps takes one).
enum coll_move_op : int {
  kCollBroadcast = 0,
  kCollCollect = 1,
  kCollFcollect = 2,
  kCollAlltoall = 3,
  kCollAlltoalls = 4,
};

namespace coll_move_detail {

#if defined(__CUDACC__)
// Independent 16-byte loads each thread has in flight before its stores. One block moving
// megabytes is bound by the bytes it keeps in flight: 8 x 16 B per thread is 32 KiB for 256
// threads (lsa::copy_group keeps 4).
inline constexpr int kWideUnroll = 8;

__device__ __forceinline__ void wide_copy(uint4 *d, const uint4 *s, size_t n, unsigned rank,
                                          unsigned size) {
  size_t i = rank;
  const size_t stride = size;
  for (; i + (kWideUnroll - 1) * stride < n; i += kWideUnroll * stride) {
    uint4 v[kWideUnroll];
#pragma unroll
    for (int u = 0; u < kWideUnroll; ++u) v[u] = s[i + u * stride];
#pragma unroll
    for (int u = 0; u < kWideUnroll; ++u) d[i + u * stride] = v[u];
  }
  for (; i < n; i += stride) d[i] = s[i];
}
#endif

// n bytes by the threads of G (no synchronisation): 16-byte accesses when both sides are 16-byte
// aligned, else lsa::copy_group's alignment handling. The host copies with memcpy.
template <typename G>
XSHMEM_HD_INLINE void copy(void *dst, const void *src, size_t n) {
  if (n == 0 || dst == src) return;
#if defined(__CUDA_ARCH__)
  if (((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) & 15) == 0) {
    const size_t units = n / 16;
    wide_copy(static_cast<uint4 *>(dst), static_cast<const uint4 *>(src), units, G::rank(),
              G::size());
    auto *d = static_cast<unsigned char *>(dst);
    const auto *c = static_cast<const unsigned char *>(src);
    for (size_t i = units * 16 + G::rank(); i < n; i += G::size()) d[i] = c[i];
  } else {
    lsa::copy_group(dst, src, n, G::rank(), G::size());
  }
#else
  memcpy(dst, src, n);
#endif
}

// Puts n bytes from local `src` to symmetric `dest` at world PE `pe` (the group's share).
template <typename G>
XSHMEM_HD_INLINE void put(const state_t &s, void *dest, const void *src, size_t n, int pe) {
  if (n == 0) return;
  switch (peer_path(s, pe)) {
    case XSHMEM_PATH_LSA:
      copy<G>(lsa_addr(s, dest, pe), src, n);
      return;
    default:
      unreachable_path(s, pe);
  }
}

// Strided: element i from src[i * sst] to dst[i * dstride] (dst translated for `pe`; pe < 0:
// local), the group's threads taking every size()-th element.
template <typename G, typename T>
XSHMEM_HD_INLINE void put_strided(const state_t &s, T *dest, const T *src, ptrdiff_t dstride,
                                  ptrdiff_t sst, size_t nelems, int pe) {
  if (nelems == 0) return;
  T *d = dest;
  if (pe >= 0) {
    if (peer_path(s, pe) != XSHMEM_PATH_LSA) {
      unreachable_path(s, pe);
      return;
    }
    d = lsa_addr(s, dest, pe);
  }
  for (size_t i = G::rank(); i < nelems; i += G::size())
    d[static_cast<ptrdiff_t>(i) * dstride] = src[static_cast<ptrdiff_t>(i) * sst];
}

// The team barrier by the group: its members' stores (each fenced by the group barrier's
// cumulativity, as barrier_all_block) are complete at every member when it returns.
template <typename G>
XSHMEM_HD_INLINE void barrier(const state_t &s, const team_t &t) {
  G::sync();
  if (G::rank() == 0) team_barrier(s, t);
  G::sync();
}
template <typename G>
XSHMEM_HD_INLINE void sync(const state_t &s, const team_t &t) {
  G::sync();
  if (G::rank() == 0) team_sync(s, t);
  G::sync();
}

XSHMEM_HD_INLINE unsigned char *at(void *p, size_t off) {
  return static_cast<unsigned char *>(p) + off;
}
XSHMEM_HD_INLINE const unsigned char *at(const void *p, size_t off) {
  return static_cast<const unsigned char *>(p) + off;
}

}  // namespace coll_move_detail

// broadcast: `nbytes` of `source` at member `root` land in `dest` of every member, root
// included (source == dest permitted). Returns 0, or -1 (nothing done) when t is not a team of
// this PE or root is out of range.
template <typename G>
XSHMEM_HD_INLINE int broadcastmem(const state_t &s, const team_t &t, void *dest, const void *source,
                                  size_t nbytes, int root) {
  namespace cm = coll_move_detail;
  if (!team_member(t) || root < 0 || root >= t.size) return -1;
  if (t.my_index == root) {
    // Members in turn from the root's right neighbour, so concurrent roots of different teams
    // do not all start at the same PE.
    for (int k = 1; k < t.size; ++k)
      cm::put<G>(s, dest, source, nbytes, team_world_pe(t, (root + k) % t.size));
    cm::copy<G>(dest, source, nbytes);
  }
  cm::barrier<G>(s, t);
  return 0;
}

// fcollect: member i's `nbytes` of `source` land at dest + i * nbytes on every member.
template <typename G>
XSHMEM_HD_INLINE int fcollectmem(const state_t &s, const team_t &t, void *dest, const void *source,
                                 size_t nbytes) {
  namespace cm = coll_move_detail;
  if (!team_member(t)) return -1;
  const size_t off = static_cast<size_t>(t.my_index) * nbytes;
  for (int k = 1; k < t.size; ++k)
    cm::put<G>(s, cm::at(dest, off), source, nbytes, team_world_pe(t, (t.my_index + k) % t.size));
  cm::copy<G>(cm::at(dest, off), source, nbytes);
  cm::barrier<G>(s, t);
  return 0;
}

// collect: like fcollect with `nbytes` per member (may differ, 0 included): member i's bytes land
// after those of members 0 .. i-1 on every member. The counts go through the team's scratch
// (one uint64 per member, written by that member into every member's scratch).
template <typename G>
XSHMEM_HD_INLINE int collectmem(const state_t &s, const team_t &t, void *dest, const void *source,
                                size_t nbytes) {
  namespace cm = coll_move_detail;
  if (!team_member(t)) return -1;
  // Every member has left the team's previous collective, which may still have used the scratch.
  cm::sync<G>(s, t);
  uint64_t *counts = reinterpret_cast<uint64_t *>(s.internal->coll_scratch[t.slot]);
  if (G::rank() == 0) {
    for (int k = 1; k < t.size; ++k)
      p(s, &counts[t.my_index], static_cast<uint64_t>(nbytes),
        team_world_pe(t, (t.my_index + k) % t.size));
    atomic::store(&counts[t.my_index], static_cast<uint64_t>(nbytes));
  }
  cm::barrier<G>(s, t);
  size_t off = 0;
  for (int i = 0; i < t.my_index; ++i) off += static_cast<size_t>(atomic::load(&counts[i]));
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
                                 size_t nbytes) {
  namespace cm = coll_move_detail;
  if (!team_member(t)) return -1;
  const size_t off = static_cast<size_t>(t.my_index) * nbytes;
  for (int k = 1; k < t.size; ++k) {
    const int j = (t.my_index + k) % t.size;
    cm::put<G>(s, cm::at(dest, off), cm::at(source, static_cast<size_t>(j) * nbytes), nbytes,
               team_world_pe(t, j));
  }
  cm::copy<G>(cm::at(dest, off), cm::at(source, off), nbytes);
  cm::barrier<G>(s, t);
  return 0;
}

// alltoalls: element i of block j, source[(j * nelems + i) * sst], goes to member j at
// dest[(me * nelems + i) * dst] (strides in elements, >= 1).
template <typename G, typename T>
XSHMEM_HD_INLINE int alltoalls(const state_t &s, const team_t &t, T *dest, const T *source,
                               ptrdiff_t dst, ptrdiff_t sst, size_t nelems) {
  namespace cm = coll_move_detail;
  if (!team_member(t)) return -1;
  const ptrdiff_t me = t.my_index, n = static_cast<ptrdiff_t>(nelems);
  for (int k = 1; k < t.size; ++k) {
    const ptrdiff_t j = (me + k) % t.size;
    cm::put_strided<G>(s, dest + me * n * dst, source + j * n * sst, dst, sst, nelems,
                       team_world_pe(t, static_cast<int>(j)));
  }
  cm::put_strided<G>(s, dest + me * n * dst, source + me * n * sst, dst, sst, nelems, -1);
  cm::barrier<G>(s, t);
  return 0;
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
