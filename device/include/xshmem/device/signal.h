// xshmem device API: the put-with-signal and signal dispatchers (one each, templated on the
// group, taking the context; see rma.h).
//
// A signal is a uint64_t symmetric word. put_signal moves the data, then updates the signal
// (kSignalSet: store, kSignalAdd: atomic add) ordered after the data, so a PE that observes the
// update sees the data. A zero-length put_signal still updates the signal.
#ifndef XSHMEM_DEVICE_SIGNAL_H
#define XSHMEM_DEVICE_SIGNAL_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/device/atomic.h>
#include <xshmem/device/gda_path.h>
#include <xshmem/device/group.h>
#include <xshmem/device/host_ce.h>
#include <xshmem/device/lsa.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/p2p.h>
#include <xshmem/device/proxy.h>
#include <xshmem/device/state.h>

namespace xshmem::dev {

// The dispatcher: nbytes from local `source` to symmetric `dest` at `pe`, then the signal at pe,
// ordered after the data; by group G (the group's leader updates the signal) under context ctx.
// Blocking: `source` may be reused on return; nbi: by the next quiet of ctx.
template <typename G>
XSHMEM_HD_INLINE void putmem_signal_path(const state_t &s, int32_t ctx, void *dest,
                                         const void *source, size_t nbytes, uint64_t *sig_addr,
                                         uint64_t signal, int sig_op, int pe, bool nbi) {
  dcheck_remote(s, kDevOpPutSignal, pe, dest, nbytes);
  dcheck_buffer(s, kDevOpPutSignal, pe, source, nbytes);
  dcheck_sym(s, kDevOpPutSignal, pe, sig_addr, sizeof(uint64_t));
  dcheck_align(s, kDevOpPutSignal, pe, sig_addr, sizeof(uint64_t));
  const peer_t peer = peer_of(s, pe);
  switch (peer.path) {
    case XSHMEM_PATH_LSA:
      lsa::group_put_signal<G>(lsa_at(peer, s, dest), source, nbytes, lsa_at(peer, s, sig_addr),
                               signal, sig_op);
      return;
    case XSHMEM_PATH_PROXY:
      proxy::put_signal<G>(s, ctx, dest, source, nbytes, sig_addr, signal, sig_op, pe, nbi);
      return;
    case XSHMEM_PATH_GDA:
      if (group_leader<G>())
        gdapath::put_signal(s, ctx, dest, source, nbytes, sig_addr, signal, sig_op, pe, nbi);
      return;
#if !defined(__CUDA_ARCH__)
    case XSHMEM_PATH_HOST_CE:
      host_ce::put_signal(s, dest, source, nbytes, sig_addr, signal, sig_op, pe, nbi);
      return;
#endif
    default:
      unreachable_path(s, pe);
  }
}

// The dispatcher of the signal alone: updates the signal at `pe`, ordered after this thread's
// earlier stores to `pe` (signal_add / signal_set), by the group's leader. `fenced`: the caller
// fenced right before (see lsa::signal).
template <typename G>
XSHMEM_HD_INLINE void signal_path(const state_t &s, int32_t ctx, uint64_t *sig_addr,
                                  uint64_t signal, int sig_op, int pe, bool fenced) {
  dcheck_remote(s, kDevOpSignal, pe, sig_addr, sizeof(uint64_t));
  dcheck_align(s, kDevOpSignal, pe, sig_addr, sizeof(uint64_t));
  const peer_t peer = peer_of(s, pe);
  switch (peer.path) {
    case XSHMEM_PATH_LSA:
      if (group_leader<G>()) lsa::signal(lsa_at(peer, s, sig_addr), signal, sig_op, fenced);
      return;
    case XSHMEM_PATH_PROXY:
      proxy::signal<G>(s, ctx, sig_addr, signal, sig_op, pe, fenced);
      return;
    case XSHMEM_PATH_GDA:  // on ctx's queue to pe: after this thread's earlier entries there
      if (group_leader<G>()) gdapath::signal(s, ctx, sig_addr, signal, sig_op, pe, false);
      return;
#if !defined(__CUDA_ARCH__)
    case XSHMEM_PATH_HOST_CE:
      host_ce::signal(s, sig_addr, signal, sig_op, pe);
      return;
#endif
    default:
      unreachable_path(s, pe);
  }
}

// The group form (coop.h names it per scope): returns in each thread once the group's
// put_signal is done (blocking) or issued (nbi).
template <typename G>
XSHMEM_HD_INLINE void putmem_signal_group(const state_t &s, int32_t ctx, void *dest,
                                          const void *source, size_t nbytes, uint64_t *sig_addr,
                                          uint64_t signal, int sig_op, int pe, bool nbi) {
  putmem_signal_path<G>(s, ctx, dest, source, nbytes, sig_addr, signal, sig_op, pe, nbi);
  G::sync();
}

// The thread-scope forms; ctx first when given.
XSHMEM_HD_INLINE void putmem_signal(const state_t &s, int32_t ctx, void *dest, const void *source,
                                    size_t nbytes, uint64_t *sig_addr, uint64_t signal, int sig_op,
                                    int pe) {
  putmem_signal_path<thread_group>(s, ctx, dest, source, nbytes, sig_addr, signal, sig_op, pe,
                                   false);
}
// Non-blocking: complete at the next quiet (LSA: on return).
XSHMEM_HD_INLINE void putmem_signal_nbi(const state_t &s, int32_t ctx, void *dest,
                                        const void *source, size_t nbytes, uint64_t *sig_addr,
                                        uint64_t signal, int sig_op, int pe) {
  putmem_signal_path<thread_group>(s, ctx, dest, source, nbytes, sig_addr, signal, sig_op, pe,
                                   true);
}
XSHMEM_HD_INLINE void putmem_signal(const state_t &s, void *dest, const void *source, size_t nbytes,
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  putmem_signal(s, kCtxDefault, dest, source, nbytes, sig_addr, signal, sig_op, pe);
}
XSHMEM_HD_INLINE void putmem_signal_nbi(const state_t &s, void *dest, const void *source,
                                        size_t nbytes, uint64_t *sig_addr, uint64_t signal,
                                        int sig_op, int pe) {
  putmem_signal_nbi(s, kCtxDefault, dest, source, nbytes, sig_addr, signal, sig_op, pe);
}
template <typename T>
XSHMEM_HD_INLINE void put_signal(const state_t &s, T *dest, const T *source, size_t nelems,
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  putmem_signal(s, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);
}
template <typename T>
XSHMEM_HD_INLINE void put_signal_nbi(const state_t &s, T *dest, const T *source, size_t nelems,
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  putmem_signal_nbi(s, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);
}
template <typename T>
XSHMEM_HD_INLINE void put_signal(const state_t &s, int32_t ctx, T *dest, const T *source,
                                 size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op,
                                 int pe) {
  putmem_signal(s, ctx, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);
}
template <typename T>
XSHMEM_HD_INLINE void put_signal_nbi(const state_t &s, int32_t ctx, T *dest, const T *source,
                                     size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op,
                                     int pe) {
  putmem_signal_nbi(s, ctx, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);
}

XSHMEM_HD_INLINE void signal_op(const state_t &s, int32_t ctx, uint64_t *sig_addr, uint64_t signal,
                                int sig_op, int pe, bool fenced = false) {
  signal_path<thread_group>(s, ctx, sig_addr, signal, sig_op, pe, fenced);
}
XSHMEM_HD_INLINE void signal_op(const state_t &s, uint64_t *sig_addr, uint64_t signal, int sig_op,
                                int pe, bool fenced = false) {
  signal_path<thread_group>(s, kCtxDefault, sig_addr, signal, sig_op, pe, fenced);
}

// Reads the local signal atomically.
XSHMEM_HD_INLINE uint64_t signal_fetch(const uint64_t *sig_addr) {
  return atomic::load_acquire(sig_addr);
}

// Waits until the local signal satisfies cmp against value; returns the value seen. With the
// state: under its wait deadline (p2p.h).
XSHMEM_HD_INLINE uint64_t signal_wait_until(const uint64_t *sig_addr, int cmp, uint64_t value) {
  return wait_until(sig_addr, cmp, value);
}
XSHMEM_HD_INLINE uint64_t signal_wait_until(const state_t &s, const uint64_t *sig_addr, int cmp,
                                            uint64_t value,
                                            const wait_site &site = wait_site{
                                                kWaitSignalWaitUntil}) {
  return wait_until(s, site, sig_addr, cmp, value);
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_SIGNAL_H
