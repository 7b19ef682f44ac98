// xshmem device API: the RMA dispatcher (put, get, p, g, iput, iget; blocking and nbi),
// fence and quiet.
//
// One dispatcher per operation, templated on the group G that runs it (group.h: thread, warp,
// block; the host is a thread) and taking the context the call names (XSHMEM_CTX_DEFAULT, 0, for
// the plain forms). Each reads the peer's path byte once and runs that path's code: lsa.h for
// LSA peers, proxy.h for PROXY peers (the host: the transport's data operations; GPU threads:
// the proxy engine's rings), gda_path.h for GDA peers (host and GPU threads post NIC entries;
// the group's leader posts for a group), and on the host over a GPU heap host_ce.h for the LSA
// peers (their host code HOST_CE, state.h). Those files are the only places that know a path's
// mechanics; the API entries, the collectives and the team syncs all come through here. A group
// dispatcher leaves the group unsynchronised: the group forms (the _group wrappers below, coop.h)
// add the group barrier. `dest` (put) and `source` (get) are symmetric addresses of this PE,
// translated per path.
#ifndef XSHMEM_DEVICE_RMA_H
#define XSHMEM_DEVICE_RMA_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/device/gda_path.h>
#include <xshmem/device/group.h>
#include <xshmem/device/host_ce.h>
#include <xshmem/device/lsa.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/proxy.h>
#include <xshmem/device/state.h>

namespace xshmem::dev {

// ---- the dispatchers ----

// Copies nbytes from local `source` to symmetric `dest` at `pe` (the group's share). Blocking
// (nbi false): returns when `source` may be reused; nbi: completes by the next quiet of ctx (LSA
// copies complete at once).
template <typename G>
XSHMEM_HD_INLINE void putmem_path(const state_t &s, int32_t ctx, void *dest, const void *source,
                                  size_t nbytes, int pe, bool nbi) {
  if (nbytes == 0) return;
  dcheck_remote(s, kDevOpPut, pe, dest, nbytes);
  dcheck_buffer(s, kDevOpPut, pe, source, nbytes);
  const peer_t peer = peer_of(s, pe);
  switch (peer.path) {
    case XSHMEM_PATH_LSA:
      lsa::group_put<G>(lsa_at(peer, s, dest), source, nbytes);
      return;
    case XSHMEM_PATH_PROXY:
      proxy::put<G>(s, ctx, dest, source, nbytes, pe, nbi);
      return;
    case XSHMEM_PATH_GDA:
      if (group_leader<G>()) gdapath::put(s, ctx, dest, source, nbytes, pe, nbi);
      return;
#if !defined(__CUDA_ARCH__)
    case XSHMEM_PATH_HOST_CE:
      host_ce::put(s, dest, source, nbytes, pe, nbi);
      return;
#endif
    default:
      unreachable_path(s, pe);
  }
}

// Copies nbytes from symmetric `source` at `pe` to local `dest`. Blocking: returns when `dest`
// holds them; nbi: by the next quiet of ctx.
template <typename G>
XSHMEM_HD_INLINE void getmem_path(const state_t &s, int32_t ctx, void *dest, const void *source,
                                  size_t nbytes, int pe, bool nbi) {
  if (nbytes == 0) return;
  dcheck_remote(s, kDevOpGet, pe, source, nbytes);
  dcheck_buffer(s, kDevOpGet, pe, dest, nbytes);
  const peer_t peer = peer_of(s, pe);
  switch (peer.path) {
    case XSHMEM_PATH_LSA:
      lsa::group_get<G>(dest, lsa_at(peer, s, source), nbytes);
      return;
    case XSHMEM_PATH_PROXY:
      proxy::get<G>(s, ctx, dest, source, nbytes, pe, nbi);
      return;
    case XSHMEM_PATH_GDA:
      if (group_leader<G>()) gdapath::get(s, ctx, dest, source, nbytes, pe, nbi);
      return;
#if !defined(__CUDA_ARCH__)
    case XSHMEM_PATH_HOST_CE:
      host_ce::get(s, dest, source, nbytes, pe, nbi);
      return;
#endif
    default:
      unreachable_path(s, pe);
  }
}

// One element; atomic with respect to wait_until/test readers for aligned 1/2/4/8-byte types.
// Thread scope.
template <typename T>
XSHMEM_HD_INLINE void p_path(const state_t &s, int32_t ctx, T *dest, T value, int pe) {
  dcheck_remote(s, kDevOpP, pe, dest, sizeof(T));
  dcheck_align(s, kDevOpP, pe, dest, alignof(T));
  const peer_t peer = peer_of(s, pe);
  switch (peer.path) {
    case XSHMEM_PATH_LSA:
      lsa::p(lsa_at(peer, s, dest), value);
      return;
    case XSHMEM_PATH_PROXY:
      proxy::put<thread_group>(s, ctx, dest, &value, sizeof(T), pe, false);
      return;
    case XSHMEM_PATH_GDA:
      gdapath::put(s, ctx, dest, &value, sizeof(T), pe, false);
      return;
#if !defined(__CUDA_ARCH__)
    case XSHMEM_PATH_HOST_CE:
      host_ce::p(s, dest, value, pe);
      return;
#endif
    default:
      unreachable_path(s, pe);
  }
}
template <typename T>
XSHMEM_HD_INLINE T g_path(const state_t &s, int32_t ctx, const T *source, int pe) {
  dcheck_remote(s, kDevOpG, pe, source, sizeof(T));
  dcheck_align(s, kDevOpG, pe, source, alignof(T));
  const peer_t peer = peer_of(s, pe);
  switch (peer.path) {
    case XSHMEM_PATH_LSA:
      return lsa::g(lsa_at(peer, s, source));
    case XSHMEM_PATH_PROXY: {
      T v{};
      proxy::get<thread_group>(s, ctx, &v, source, sizeof(T), pe, false);
      return v;
    }
    case XSHMEM_PATH_GDA:
      if constexpr (sizeof(T) <= 8) {
        return gdapath::g<T>(s, ctx, source, pe);
      } else {  // long double: a host thread's own variable is the landing (no NIC reaches a
                // GPU thread's)
#if defined(__CUDA_ARCH__)
        unreachable_path(s, pe);
        return T{};
#else
        T v{};
        gdapath::get(s, ctx, &v, source, sizeof(T), pe, false);
        return v;
#endif
      }
#if !defined(__CUDA_ARCH__)
    case XSHMEM_PATH_HOST_CE:
      return host_ce::g(s, source, pe);
#endif
    default:
      unreachable_path(s, pe);
      return T{};
  }
}

// Strided: element i goes from source[i * sst] to dest[i * dst] (strides in elements), the
// group's threads taking every size()-th element.
template <typename G, typename T>
XSHMEM_HD_INLINE void iput_path(const state_t &s, int32_t ctx, T *dest, const T *source,
                                ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe, bool nbi) {
  if (nelems == 0) return;
  dcheck_remote(s, kDevOpIput, pe, dest, sizeof(T));
  dcheck_sym(s, kDevOpIput, pe, dest + static_cast<ptrdiff_t>(nelems - 1) * dst, sizeof(T));
  dcheck_align(s, kDevOpIput, pe, dest, alignof(T));
  const peer_t peer = peer_of(s, pe);
  switch (peer.path) {
    case XSHMEM_PATH_LSA:
      lsa::group_iput<G>(lsa_at(peer, s, dest), source, dst, sst, nelems);
      return;
    case XSHMEM_PATH_PROXY:
      proxy::iput<G>(s, ctx, dest, source, dst, sst, nelems, pe, nbi);
      return;
    case XSHMEM_PATH_GDA:
      if (group_leader<G>())
        gdapath::strided<true>(s, ctx, dest, source, dst, sst, nelems, pe, nbi);
      return;
#if !defined(__CUDA_ARCH__)
    case XSHMEM_PATH_HOST_CE:
      host_ce::iput(s, dest, source, dst, sst, nelems, pe, nbi);
      return;
#endif
    default:
      unreachable_path(s, pe);
  }
}
template <typename G, typename T>
XSHMEM_HD_INLINE void iget_path(const state_t &s, int32_t ctx, T *dest, const T *source,
                                ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe, bool nbi) {
  if (nelems == 0) return;
  dcheck_remote(s, kDevOpIget, pe, source, sizeof(T));
  dcheck_sym(s, kDevOpIget, pe, source + static_cast<ptrdiff_t>(nelems - 1) * sst, sizeof(T));
  dcheck_align(s, kDevOpIget, pe, source, alignof(T));
  const peer_t peer = peer_of(s, pe);
  switch (peer.path) {
    case XSHMEM_PATH_LSA:
      lsa::group_iget<G>(dest, lsa_at(peer, s, source), dst, sst, nelems);
      return;
    case XSHMEM_PATH_PROXY:
      proxy::iget<G>(s, ctx, dest, source, dst, sst, nelems, pe, nbi);
      return;
    case XSHMEM_PATH_GDA:
      if (group_leader<G>())
        gdapath::strided<false>(s, ctx, dest, source, dst, sst, nelems, pe, nbi);
      return;
#if !defined(__CUDA_ARCH__)
    case XSHMEM_PATH_HOST_CE:
      host_ce::iget(s, dest, source, dst, sst, nelems, pe, nbi);
      return;
#endif
    default:
      unreachable_path(s, pe);
  }
}

// Ordering of context ctx's operations over every path this PE uses: LSA memory fences, then
// the PROXY path's (the host: the transports serving PROXY peers, on ctx's channel). HOST_CE
// operations are ordered by their stream, GDA ones by their queue (one per context and peer):
// fence needs nothing more for them; quiet completes them.
template <typename G = thread_group>
XSHMEM_HD_INLINE void fence_path(const state_t &s, int32_t ctx) {
  lsa::fence();
  proxy::fence<G>(s, ctx);
}
template <typename G = thread_group>
XSHMEM_HD_INLINE void quiet_path(const state_t &s, int32_t ctx) {
  lsa::quiet();
#if !defined(__CUDA_ARCH__)
  host_ce::quiet(s);
#endif
  if (s.n_gda_peers != 0 && group_leader<G>()) gdapath::quiet(s, ctx);
  proxy::quiet<G>(s, ctx);
}

// Whether `pe` is load/store reachable (its path is LSA): the algorithms that read peers'
// memory in place (the reductions' rsag) pick themselves only when every member is.
XSHMEM_HD_INLINE bool lsa_reachable(const state_t &s, int pe) {
  return peer_path(s, pe) == XSHMEM_PATH_LSA;
}

// Address of symmetric `sym` at `pe` that this thread can load and store, or NULL when the peer
// is not load/store reachable (PROXY, GDA, NONE).
// On the host over a GPU heap (HOST_CE peers) it is the peer's mapped address, for kernels and
// copies.
template <typename T>
XSHMEM_HD_INLINE T *ptr(const state_t &s, T *sym, int pe) {
  return peer_mapped(s, pe) ? lsa_addr(s, sym, pe) : nullptr;
}

// ---- the thread-scope forms (the host API, the plain device API); ctx first when given ----

XSHMEM_HD_INLINE void putmem(const state_t &s, int32_t ctx, void *dest, const void *source,
                             size_t nbytes, int pe) {
  putmem_path<thread_group>(s, ctx, dest, source, nbytes, pe, false);
}
XSHMEM_HD_INLINE void getmem(const state_t &s, int32_t ctx, void *dest, const void *source,
                             size_t nbytes, int pe) {
  getmem_path<thread_group>(s, ctx, dest, source, nbytes, pe, false);
}
XSHMEM_HD_INLINE void putmem_nbi(const state_t &s, int32_t ctx, void *dest, const void *source,
                                 size_t nbytes, int pe) {
  putmem_path<thread_group>(s, ctx, dest, source, nbytes, pe, true);
}
XSHMEM_HD_INLINE void getmem_nbi(const state_t &s, int32_t ctx, void *dest, const void *source,
                                 size_t nbytes, int pe) {
  getmem_path<thread_group>(s, ctx, dest, source, nbytes, pe, true);
}
XSHMEM_HD_INLINE void putmem(const state_t &s, void *dest, const void *source, size_t nbytes,
                             int pe) {
  putmem(s, kCtxDefault, dest, source, nbytes, pe);
}
XSHMEM_HD_INLINE void getmem(const state_t &s, void *dest, const void *source, size_t nbytes,
                             int pe) {
  getmem(s, kCtxDefault, dest, source, nbytes, pe);
}
XSHMEM_HD_INLINE void putmem_nbi(const state_t &s, void *dest, const void *source, size_t nbytes,
                                 int pe) {
  putmem_nbi(s, kCtxDefault, dest, source, nbytes, pe);
}
XSHMEM_HD_INLINE void getmem_nbi(const state_t &s, void *dest, const void *source, size_t nbytes,
                                 int pe) {
  getmem_nbi(s, kCtxDefault, dest, source, nbytes, pe);
}

template <typename T>
XSHMEM_HD_INLINE void put(const state_t &s, int32_t ctx, T *dest, const T *source, size_t nelems,
                          int pe) {
  if (nelems != 0) dcheck_align(s, kDevOpPut, pe, dest, alignof(T));
  putmem(s, ctx, dest, source, nelems * sizeof(T), pe);
}
template <typename T>
XSHMEM_HD_INLINE void get(const state_t &s, int32_t ctx, T *dest, const T *source, size_t nelems,
                          int pe) {
  if (nelems != 0) dcheck_align(s, kDevOpGet, pe, source, alignof(T));
  getmem(s, ctx, dest, source, nelems * sizeof(T), pe);
}
template <typename T>
XSHMEM_HD_INLINE void put_nbi(const state_t &s, int32_t ctx, T *dest, const T *source,
                              size_t nelems, int pe) {
  putmem_nbi(s, ctx, dest, source, nelems * sizeof(T), pe);
}
template <typename T>
XSHMEM_HD_INLINE void get_nbi(const state_t &s, int32_t ctx, T *dest, const T *source,
                              size_t nelems, int pe) {
  getmem_nbi(s, ctx, dest, source, nelems * sizeof(T), pe);
}
template <typename T>
XSHMEM_HD_INLINE void put(const state_t &s, T *dest, const T *source, size_t nelems, int pe) {
  put(s, kCtxDefault, dest, source, nelems, pe);
}
template <typename T>
XSHMEM_HD_INLINE void get(const state_t &s, T *dest, const T *source, size_t nelems, int pe) {
  get(s, kCtxDefault, dest, source, nelems, pe);
}
template <typename T>
XSHMEM_HD_INLINE void put_nbi(const state_t &s, T *dest, const T *source, size_t nelems, int pe) {
  put_nbi(s, kCtxDefault, dest, source, nelems, pe);
}
template <typename T>
XSHMEM_HD_INLINE void get_nbi(const state_t &s, T *dest, const T *source, size_t nelems, int pe) {
  get_nbi(s, kCtxDefault, dest, source, nelems, pe);
}

template <typename T>
XSHMEM_HD_INLINE void p(const state_t &s, int32_t ctx, T *dest, T value, int pe) {
  p_path(s, ctx, dest, value, pe);
}
template <typename T>
XSHMEM_HD_INLINE T g(const state_t &s, int32_t ctx, const T *source, int pe) {
  return g_path(s, ctx, source, pe);
}
template <typename T>
XSHMEM_HD_INLINE void p(const state_t &s, T *dest, T value, int pe) {
  p_path(s, kCtxDefault, dest, value, pe);
}
template <typename T>
XSHMEM_HD_INLINE T g(const state_t &s, const T *source, int pe) {
  return g_path(s, kCtxDefault, source, pe);
}

template <typename T>
XSHMEM_HD_INLINE void iput(const state_t &s, int32_t ctx, T *dest, const T *source, ptrdiff_t dst,
                           ptrdiff_t sst, size_t nelems, int pe) {
  iput_path<thread_group>(s, ctx, dest, source, dst, sst, nelems, pe, false);
}
template <typename T>
XSHMEM_HD_INLINE void iget(const state_t &s, int32_t ctx, T *dest, const T *source, ptrdiff_t dst,
                           ptrdiff_t sst, size_t nelems, int pe) {
  iget_path<thread_group>(s, ctx, dest, source, dst, sst, nelems, pe, false);
}
template <typename T>
XSHMEM_HD_INLINE void iput(const state_t &s, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,
                           size_t nelems, int pe) {
  iput(s, kCtxDefault, dest, source, dst, sst, nelems, pe);
}
template <typename T>
XSHMEM_HD_INLINE void iget(const state_t &s, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,
                           size_t nelems, int pe) {
  iget(s, kCtxDefault, dest, source, dst, sst, nelems, pe);
}

XSHMEM_HD_INLINE void fence(const state_t &s, int32_t ctx) {
  fence_path(s, ctx);
}
XSHMEM_HD_INLINE void quiet(const state_t &s, int32_t ctx) {
  quiet_path(s, ctx);
}
XSHMEM_HD_INLINE void fence(const state_t &s) {
  fence_path(s, kCtxDefault);
}
XSHMEM_HD_INLINE void quiet(const state_t &s) {
  quiet_path(s, kCtxDefault);
}

// ---- the group forms (warp, block): every thread of G calls with identical arguments, and the
// call returns in each thread once the group's operation is done (blocking) or issued (nbi) ----

template <typename G>
XSHMEM_HD_INLINE void putmem_group(const state_t &s, int32_t ctx, void *dest, const void *source,
                                   size_t nbytes, int pe, bool nbi) {
  putmem_path<G>(s, ctx, dest, source, nbytes, pe, nbi);
  G::sync();
}
template <typename G>
XSHMEM_HD_INLINE void getmem_group(const state_t &s, int32_t ctx, void *dest, const void *source,
                                   size_t nbytes, int pe, bool nbi) {
  getmem_path<G>(s, ctx, dest, source, nbytes, pe, nbi);
  G::sync();
}
template <typename G, typename T>
XSHMEM_HD_INLINE void iput_group(const state_t &s, int32_t ctx, T *dest, const T *source,
                                 ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe, bool nbi) {
  iput_path<G>(s, ctx, dest, source, dst, sst, nelems, pe, nbi);
  G::sync();
}
template <typename G, typename T>
XSHMEM_HD_INLINE void iget_group(const state_t &s, int32_t ctx, T *dest, const T *source,
                                 ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe, bool nbi) {
  iget_path<G>(s, ctx, dest, source, dst, sst, nelems, pe, nbi);
  G::sync();
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_RMA_H
