// xshmem device API: RMA (put, get, p, g, iput, iget) dispatched per peer over the data paths.
//
// Each function reads the peer's path byte and runs that path's code. Compiled for the host it
// is the host API's implementation; compiled for the GPU it is the thread-scope device API.
// `dest` (put) and `source` (get) are symmetric addresses of this PE, translated per path.
#ifndef XSHMEM_DEVICE_RMA_H
#define XSHMEM_DEVICE_RMA_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/device/host_remote.h>
#include <xshmem/device/lsa.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/state.h>

namespace xshmem::dev {

// Copies nbytes from local `source` to symmetric `dest` at `pe`. Blocking (nbi false): returns
// when `source` may be reused; nbi: completes by the next quiet (LSA copies complete at once).
XSHMEM_HD_INLINE void putmem_path(const state_t &s, void *dest, const void *source, size_t nbytes,
                                  int pe, bool nbi) {
  if (nbytes == 0) return;
  dcheck_remote(s, kDevOpPut, pe, dest, nbytes);
  dcheck_buffer(s, kDevOpPut, pe, source, nbytes);
  switch (peer_path(s, pe)) {
    case XSHMEM_PATH_LSA:
      lsa::put(lsa_addr(s, dest, pe), source, nbytes);
      return;
#if !defined(__CUDA_ARCH__)
    case XSHMEM_PATH_PROXY:
      remote::put(s, 0, dest, source, nbytes, pe, nbi);
      return;
#endif
    default:
      (void)nbi;
      unreachable_path(s, pe);
  }
}

// Copies nbytes from symmetric `source` at `pe` to local `dest`. Blocking: returns when `dest`
// holds them; nbi: by the next quiet.
XSHMEM_HD_INLINE void getmem_path(const state_t &s, void *dest, const void *source, size_t nbytes,
                                  int pe, bool nbi) {
  if (nbytes == 0) return;
  dcheck_remote(s, kDevOpGet, pe, source, nbytes);
  dcheck_buffer(s, kDevOpGet, pe, dest, nbytes);
  switch (peer_path(s, pe)) {
    case XSHMEM_PATH_LSA:
      lsa::get(dest, lsa_addr(s, source, pe), nbytes);
      return;
#if !defined(__CUDA_ARCH__)
    case XSHMEM_PATH_PROXY:
      remote::get(s, 0, dest, source, nbytes, pe, nbi);
      return;
#endif
    default:
      (void)nbi;
      unreachable_path(s, pe);
  }
}

XSHMEM_HD_INLINE void putmem(const state_t &s, void *dest, const void *source, size_t nbytes,
                             int pe) {
  putmem_path(s, dest, source, nbytes, pe, false);
}
XSHMEM_HD_INLINE void getmem(const state_t &s, void *dest, const void *source, size_t nbytes,
                             int pe) {
  getmem_path(s, dest, source, nbytes, pe, false);
}
XSHMEM_HD_INLINE void putmem_nbi(const state_t &s, void *dest, const void *source, size_t nbytes,
                                 int pe) {
  putmem_path(s, dest, source, nbytes, pe, true);
}
XSHMEM_HD_INLINE void getmem_nbi(const state_t &s, void *dest, const void *source, size_t nbytes,
                                 int pe) {
  getmem_path(s, dest, source, nbytes, pe, true);
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
#if !defined(__CUDA_ARCH__)
    case XSHMEM_PATH_PROXY:
      remote::put(s, 0, dest, &value, sizeof(T), pe, false);
      return;
#endif
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
#if !defined(__CUDA_ARCH__)
    case XSHMEM_PATH_PROXY: {
      T v;
      remote::get(s, 0, &v, source, sizeof(T), pe, false);
      return v;
    }
#endif
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
#if !defined(__CUDA_ARCH__)
    case XSHMEM_PATH_PROXY:
      for (size_t i = 0; i < nelems; ++i)
        remote::put(s, 0, dest + static_cast<ptrdiff_t>(i) * dst,
                    source + static_cast<ptrdiff_t>(i) * sst, sizeof(T), pe, true);
      remote::quiet(s, 0);
      return;
#endif
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
#if !defined(__CUDA_ARCH__)
    case XSHMEM_PATH_PROXY:
      for (size_t i = 0; i < nelems; ++i)
        remote::get(s, 0, dest + static_cast<ptrdiff_t>(i) * dst,
                    source + static_cast<ptrdiff_t>(i) * sst, sizeof(T), pe, true);
      remote::quiet(s, 0);
      return;
#endif
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

// Ordering over every path this PE uses: LSA memory fences, then (host) every PROXY transport.
XSHMEM_HD_INLINE void fence(const state_t &s) {
  lsa::fence();
#if !defined(__CUDA_ARCH__)
  remote::fence(s, 0);
#else
  (void)s;
#endif
}
XSHMEM_HD_INLINE void quiet(const state_t &s) {
  lsa::quiet();
#if !defined(__CUDA_ARCH__)
  remote::quiet(s, 0);
#else
  (void)s;
#endif
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_RMA_H
