// xshmem path code: the PROXY path, as the dispatchers (rma.h, amo.h, signal.h) call it.
//
// Host threads reach a PROXY peer through the serving transport's data operations directly
// (host_remote.h). GPU threads will reach it through the proxy engine's channel rings: the
// device bodies below are filled by the proxy engine's ring (proxy_ring.h, another branch); until
// then an operation on a PROXY peer from a GPU thread traps (unreachable_path), and fence and
// quiet have nothing of this path to order or complete (no GPU thread can have issued any).
//
// Each function takes the group G that runs the operation (group.h) and the context the call
// names (its channel: host_remote.h channel()). The group's leader issues the request for the
// whole group; the caller synchronises the group after (the dispatchers' group wrappers do).
#ifndef XSHMEM_DEVICE_PROXY_H
#define XSHMEM_DEVICE_PROXY_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/device/group.h>
#include <xshmem/device/host_remote.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/state.h>

namespace xshmem::dev::proxy {

template <typename G>
XSHMEM_HD_INLINE void put(const state_t &s, int32_t ctx, void *dest, const void *source,
                          size_t nbytes, int pe, bool nbi) {
#if defined(__CUDA_ARCH__)
  (void)ctx, (void)dest, (void)source, (void)nbytes, (void)nbi;
  unreachable_path(s, pe);  // until proxy_ring.h
#else
  if (group_leader<G>()) remote::put(s, ctx, dest, source, nbytes, pe, nbi);
#endif
}

template <typename G>
XSHMEM_HD_INLINE void get(const state_t &s, int32_t ctx, void *dest, const void *source,
                          size_t nbytes, int pe, bool nbi) {
#if defined(__CUDA_ARCH__)
  (void)ctx, (void)dest, (void)source, (void)nbytes, (void)nbi;
  unreachable_path(s, pe);  // until proxy_ring.h
#else
  if (group_leader<G>()) remote::get(s, ctx, dest, source, nbytes, pe, nbi);
#endif
}

// Strided forms: element i from source[i * sst] to dest[i * dst] (strides in elements). The host
// issues one transport operation per element (non-blocking), then completes them unless nbi.
template <typename G, typename T>
XSHMEM_HD_INLINE void iput(const state_t &s, int32_t ctx, T *dest, const T *source, ptrdiff_t dst,
                           ptrdiff_t sst, size_t nelems, int pe, bool nbi) {
#if defined(__CUDA_ARCH__)
  (void)ctx, (void)dest, (void)source, (void)dst, (void)sst, (void)nelems, (void)nbi;
  unreachable_path(s, pe);  // until proxy_ring.h
#else
  if (!group_leader<G>()) return;
  for (size_t i = 0; i < nelems; ++i)
    remote::put(s, ctx, dest + static_cast<ptrdiff_t>(i) * dst,
                source + static_cast<ptrdiff_t>(i) * sst, sizeof(T), pe, true);
  if (!nbi) remote::quiet(s, ctx);
#endif
}
template <typename G, typename T>
XSHMEM_HD_INLINE void iget(const state_t &s, int32_t ctx, T *dest, const T *source, ptrdiff_t dst,
                           ptrdiff_t sst, size_t nelems, int pe, bool nbi) {
#if defined(__CUDA_ARCH__)
  (void)ctx, (void)dest, (void)source, (void)dst, (void)sst, (void)nelems, (void)nbi;
  unreachable_path(s, pe);  // until proxy_ring.h
#else
  if (!group_leader<G>()) return;
  for (size_t i = 0; i < nelems; ++i)
    remote::get(s, ctx, dest + static_cast<ptrdiff_t>(i) * dst,
                source + static_cast<ptrdiff_t>(i) * sst, sizeof(T), pe, true);
  if (!nbi) remote::quiet(s, ctx);
#endif
}

// Atomic `op` (the ABI's code) on symmetric `dest` at `pe`; the old value. Thread scope.
template <typename T>
XSHMEM_HD_INLINE T amo(const state_t &s, int32_t ctx, xshmem_amo_op_t op, T *dest, T value, T cond,
                       int pe) {
#if defined(__CUDA_ARCH__)
  (void)ctx, (void)op, (void)dest, (void)value, (void)cond;
  unreachable_path(s, pe);  // until proxy_ring.h
  return T{};
#else
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    return remote::amo(s, ctx, op, dest, value, cond, pe);
  } else {
    (void)ctx, (void)op, (void)dest, (void)value, (void)cond;
    unreachable_path(s, pe);  // no transport has atomics of this width
    return T{};
  }
#endif
}

template <typename G>
XSHMEM_HD_INLINE void put_signal(const state_t &s, int32_t ctx, void *dest, const void *source,
                                 size_t nbytes, uint64_t *sig_addr, uint64_t signal, int sig_op,
                                 int pe, bool nbi) {
#if defined(__CUDA_ARCH__)
  (void)ctx, (void)dest, (void)source, (void)nbytes, (void)sig_addr, (void)signal, (void)sig_op;
  (void)nbi;
  unreachable_path(s, pe);  // until proxy_ring.h
#else
  if (group_leader<G>())
    remote::put_signal(s, ctx, dest, source, nbytes, sig_addr, signal, sig_op, pe, nbi);
#endif
}

// The signal alone, ordered after the caller's earlier operations to pe (`fenced`: the caller
// fenced right before).
template <typename G>
XSHMEM_HD_INLINE void signal(const state_t &s, int32_t ctx, uint64_t *sig_addr, uint64_t signal,
                             int sig_op, int pe, bool fenced) {
#if defined(__CUDA_ARCH__)
  (void)ctx, (void)sig_addr, (void)signal, (void)sig_op, (void)fenced;
  unreachable_path(s, pe);  // until proxy_ring.h
#else
  if (!group_leader<G>()) return;
  if (!fenced) remote::fence(s, ctx);
  remote::signal(s, ctx, sig_addr, signal, sig_op, pe);
#endif
}

// fence / quiet of context ctx on this path.
template <typename G>
XSHMEM_HD_INLINE void fence(const state_t &s, int32_t ctx) {
#if defined(__CUDA_ARCH__)
  (void)s, (void)ctx;  // no GPU thread reaches a PROXY peer yet (see the header comment)
#else
  if (group_leader<G>()) remote::fence(s, ctx);
#endif
}
template <typename G>
XSHMEM_HD_INLINE void quiet(const state_t &s, int32_t ctx) {
#if defined(__CUDA_ARCH__)
  (void)s, (void)ctx;  // no GPU thread reaches a PROXY peer yet (see the header comment)
#else
  if (group_leader<G>()) remote::quiet(s, ctx);
#endif
}

}  // namespace xshmem::dev::proxy

#endif  // XSHMEM_DEVICE_PROXY_H
