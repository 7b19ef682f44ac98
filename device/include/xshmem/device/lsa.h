// xshmem device API: the LSA (load/store access) path.
//
// The peer's heap is mapped into this address space, so every operation is a copy, a load, a
// store or a system-scope atomic on an address the caller has already translated (lsa_addr in
// state.h). Written once for host and device: the host API runs exactly this code on CPU PEs
// (hostshm), GPU threads run it on NVLink-mapped peers.
#ifndef XSHMEM_DEVICE_LSA_H
#define XSHMEM_DEVICE_LSA_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/device/atomic.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/state.h>

#if !defined(__CUDA_ARCH__)
#include <string.h>
#endif

namespace xshmem::dev::lsa {

// Copies n bytes. Overlap is not supported (RMA source and destination never overlap).
XSHMEM_HD_INLINE void copy(void *dst, const void *src, size_t n) {
#if defined(__CUDA_ARCH__)
  // One thread, 8-byte words when both sides allow, bytes otherwise.
  // TODO(device RMA issue): vectorized 16-byte copies and warp/block-cooperative loops.
  auto *d = static_cast<unsigned char *>(dst);
  const auto *c = static_cast<const unsigned char *>(src);
  size_t i = 0;
  if (((reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(c)) & 7) == 0) {
    for (; i + 8 <= n; i += 8) {
      *reinterpret_cast<uint64_t *>(d + i) = *reinterpret_cast<const uint64_t *>(c + i);
    }
  }
  for (; i < n; ++i) d[i] = c[i];
#else
  if (n != 0) memcpy(dst, src, n);
#endif
}

// Blocking and non-blocking put/get are the same on LSA: the copy is done when it returns, and
// fence/quiet make it visible in order.
XSHMEM_HD_INLINE void put(void *remote_dst, const void *src, size_t n) {
  copy(remote_dst, src, n);
}
XSHMEM_HD_INLINE void get(void *dst, const void *remote_src, size_t n) {
  copy(dst, remote_src, n);
}

// Whether one element at addr can be moved by a single atomic access.
template <typename T>
XSHMEM_HD_INLINE bool single_access(const T *addr) {
  if constexpr (atomic::is_atomic_type_v<T>) {
    return (reinterpret_cast<uintptr_t>(addr) & (sizeof(T) - 1)) == 0;
  } else {
    return false;
  }
}

// One element. An aligned 1/2/4/8-byte element is one relaxed atomic store/load, so a reader
// spinning in wait_until never sees a torn value.
template <typename T>
XSHMEM_HD_INLINE void p(T *remote_dst, T value) {
  if constexpr (atomic::is_atomic_type_v<T>) {
    if (single_access(remote_dst)) {
      atomic::store(remote_dst, value);
      return;
    }
  }
  copy(remote_dst, &value, sizeof(T));
}
template <typename T>
XSHMEM_HD_INLINE T g(const T *remote_src) {
  if constexpr (atomic::is_atomic_type_v<T>) {
    if (single_access(remote_src)) return atomic::load(remote_src);
  }
  T value;
  copy(&value, remote_src, sizeof(T));
  return value;
}

// Strided copies; strides are in elements.
template <typename T>
XSHMEM_HD_INLINE void iput(T *remote_dst, const T *src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
                           size_t nelems) {
  for (size_t i = 0; i < nelems; ++i) {
    copy(remote_dst + static_cast<ptrdiff_t>(i) * dst_stride,
         src + static_cast<ptrdiff_t>(i) * src_stride, sizeof(T));
  }
}
template <typename T>
XSHMEM_HD_INLINE void iget(T *dst, const T *remote_src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
                           size_t nelems) {
  for (size_t i = 0; i < nelems; ++i) {
    copy(dst + static_cast<ptrdiff_t>(i) * dst_stride,
         remote_src + static_cast<ptrdiff_t>(i) * src_stride, sizeof(T));
  }
}

// Atomics on a mapped address. Relaxed: OpenSHMEM orders AMOs only through fence/quiet.
template <typename T>
XSHMEM_HD_INLINE T fetch(const T *remote) {
  return atomic::load(remote);
}
template <typename T>
XSHMEM_HD_INLINE void set(T *remote, T value) {
  atomic::store(remote, value);
}
template <typename T>
XSHMEM_HD_INLINE T swap(T *remote, T value) {
  return atomic::exchange(remote, value);
}
template <typename T>
XSHMEM_HD_INLINE T compare_swap(T *remote, T cond, T value) {
  return atomic::compare_swap(remote, cond, value);
}
template <typename T>
XSHMEM_HD_INLINE T fetch_add(T *remote, T value) {
  return atomic::fetch_add(remote, value);
}
template <typename T>
XSHMEM_HD_INLINE T fetch_and(T *remote, T value) {
  return atomic::fetch_and(remote, value);
}
template <typename T>
XSHMEM_HD_INLINE T fetch_or(T *remote, T value) {
  return atomic::fetch_or(remote, value);
}
template <typename T>
XSHMEM_HD_INLINE T fetch_xor(T *remote, T value) {
  return atomic::fetch_xor(remote, value);
}

// Signal update, ordered after everything this thread stored before (the put-with-signal data
// in particular): a reader that acquires the new signal value sees the data.
// sig_op: kSignalSet or kSignalAdd (anything else sets; the host API rejects it first).
XSHMEM_HD_INLINE void signal(uint64_t *remote_sig, uint64_t value, int sig_op) {
  // The fence covers stores that a release store alone would not (x86 non-temporal stores).
  atomic::fence();
  if (sig_op == kSignalAdd) {
    atomic::fetch_add(remote_sig, value, atomic::release);
  } else {
    atomic::store(remote_sig, value, atomic::release);
  }
}

XSHMEM_HD_INLINE void put_signal(void *remote_dst, const void *src, size_t n, uint64_t *remote_sig,
                                 uint64_t value, int sig_op) {
  put(remote_dst, src, n);
  signal(remote_sig, value, sig_op);
}

// fence orders this thread's earlier puts/AMOs to each peer before its later ones; quiet
// completes them (they are visible to every PE when it returns).
XSHMEM_HD_INLINE void fence() {
  atomic::fence();
}
XSHMEM_HD_INLINE void quiet() {
  atomic::quiet();
}

}  // namespace xshmem::dev::lsa

#endif  // XSHMEM_DEVICE_LSA_H
