// xshmem device API: RMA (put, get, p, g, iput, iget) dispatched per peer over the data paths.
//
// Each function reads the peer's path byte and runs that path's code. Compiled for the host it
// is the host API's implementation; compiled for the GPU it is the thread-scope device API.
// `dest` (put) and `source` (get) are symmetric addresses of this PE, translated per path.
#ifndef XSHMEM_DEVICE_RMA_H
#define XSHMEM_DEVICE_RMA_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/device/lsa.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/state.h>

namespace xshmem::dev {

// Copies nbytes from local `source` to symmetric `dest` at `pe`; returns when `source` may be
// reused.
XSHMEM_HD_INLINE void putmem(const state_t &s, void *dest, const void *source, size_t nbytes,
                             int pe) {
  if (nbytes == 0) return;
  dcheck_remote(s, kDevOpPut, pe, dest, nbytes);
  dcheck_buffer(s, kDevOpPut, pe, source, nbytes);
  switch (peer_path(s, pe)) {
    case XSHMEM_PATH_LSA:
      lsa::put(lsa_addr(s, dest, pe), source, nbytes);
      return;
    default:
      unreachable_path(s, pe);
  }
}

// Copies nbytes from symmetric `source` at `pe` to local `dest`; returns when `dest` holds them.
XSHMEM_HD_INLINE void getmem(const state_t &s, void *dest, const void *source, size_t nbytes,
                             int pe) {
  if (nbytes == 0) return;
  dcheck_remote(s, kDevOpGet, pe, source, nbytes);
  dcheck_buffer(s, kDevOpGet, pe, dest, nbytes);
  switch (peer_path(s, pe)) {
    case XSHMEM_PATH_LSA:
      lsa::get(dest, lsa_addr(s, source, pe), nbytes);
      return;
    default:
      unreachable_path(s, pe);
  }
}

// Non-blocking forms: complete at the next quiet. Every path built so far (LSA) completes a copy
// before returning, so they are the blocking forms; a path that can leave a copy in flight (GDA,
// PROXY) gets its own case here instead of waiting.
XSHMEM_HD_INLINE void putmem_nbi(const state_t &s, void *dest, const void *source, size_t nbytes,
                                 int pe) {
  putmem(s, dest, source, nbytes, pe);
}
XSHMEM_HD_INLINE void getmem_nbi(const state_t &s, void *dest, const void *source, size_t nbytes,
                                 int pe) {
  getmem(s, dest, source, nbytes, pe);
}

template <typename T>
XSHMEM_HD_INLINE void put(const state_t &s, T *dest, const T *source, size_t nelems, int pe) {
  if (nelems != 0) dcheck_align(s, kDevOpPut, pe, dest, alignof(T));
  putmem(s, dest, source, nelems * sizeof(T), pe);
}
template <typename T>
XSHMEM_HD_INLINE void get(const state_t &s, T *dest, const T *source, size_t nelems, int pe) {
  if (nelems != 0) dcheck_align(s, kDevOpGet, pe, source, alignof(T));
  getmem(s, dest, source, nelems * sizeof(T), pe);
}
template <typename T>
XSHMEM_HD_INLINE void put_nbi(const state_t &s, T *dest, const T *source, size_t nelems, int pe) {
  putmem_nbi(s, dest, source, nelems * sizeof(T), pe);
}
template <typename T>
XSHMEM_HD_INLINE void get_nbi(const state_t &s, T *dest, const T *source, size_t nelems, int pe) {
  getmem_nbi(s, dest, source, nelems * sizeof(T), pe);
}

// One element; atomic with respect to wait_until/test readers for aligned 1/2/4/8-byte types.
template <typename T>
XSHMEM_HD_INLINE void p(const state_t &s, T *dest, T value, int pe) {
  dcheck_remote(s, kDevOpP, pe, dest, sizeof(T));
  dcheck_align(s, kDevOpP, pe, dest, alignof(T));
  switch (peer_path(s, pe)) {
    case XSHMEM_PATH_LSA:
      lsa::p(lsa_addr(s, dest, pe), value);
      return;
    default:
      unreachable_path(s, pe);
  }
}
template <typename T>
XSHMEM_HD_INLINE T g(const state_t &s, const T *source, int pe) {
  dcheck_remote(s, kDevOpG, pe, source, sizeof(T));
  dcheck_align(s, kDevOpG, pe, source, alignof(T));
  switch (peer_path(s, pe)) {
    case XSHMEM_PATH_LSA:
      return lsa::g(lsa_addr(s, source, pe));
    default:
      unreachable_path(s, pe);
      return T{};
  }
}

// Strided: element i goes from source[i * sst] to dest[i * dst] (strides in elements).
template <typename T>
XSHMEM_HD_INLINE void iput(const state_t &s, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,
                           size_t nelems, int pe) {
  if (nelems == 0) return;
  dcheck_remote(s, kDevOpIput, pe, dest, sizeof(T));
  dcheck_sym(s, kDevOpIput, pe, dest + static_cast<ptrdiff_t>(nelems - 1) * dst, sizeof(T));
  dcheck_align(s, kDevOpIput, pe, dest, alignof(T));
  switch (peer_path(s, pe)) {
    case XSHMEM_PATH_LSA:
      lsa::iput(lsa_addr(s, dest, pe), source, dst, sst, nelems);
      return;
    default:
      unreachable_path(s, pe);
  }
}
template <typename T>
XSHMEM_HD_INLINE void iget(const state_t &s, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,
                           size_t nelems, int pe) {
  if (nelems == 0) return;
  dcheck_remote(s, kDevOpIget, pe, source, sizeof(T));
  dcheck_sym(s, kDevOpIget, pe, source + static_cast<ptrdiff_t>(nelems - 1) * sst, sizeof(T));
  dcheck_align(s, kDevOpIget, pe, source, alignof(T));
  switch (peer_path(s, pe)) {
    case XSHMEM_PATH_LSA:
      lsa::iget(dest, lsa_addr(s, source, pe), dst, sst, nelems);
      return;
    default:
      unreachable_path(s, pe);
  }
}

// Address of symmetric `sym` at `pe` that this thread can load and store, or NULL when the peer
// is not load/store reachable.
template <typename T>
XSHMEM_HD_INLINE T *ptr(const state_t &s, T *sym, int pe) {
  return peer_path(s, pe) == XSHMEM_PATH_LSA ? lsa_addr(s, sym, pe) : nullptr;
}

// Ordering over every path this PE uses. Only LSA exists so far.
// TODO(GDA and PROXY issues): fence/quiet must also order/complete their queues and rings.
XSHMEM_HD_INLINE void fence(const state_t &s) {
  (void)s;
  lsa::fence();
}
XSHMEM_HD_INLINE void quiet(const state_t &s) {
  (void)s;
  lsa::quiet();
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_RMA_H
