// xshmem device API: the LSA (load/store access) path.
//
// The peer's heap is mapped into this address space, so every operation is a copy, a load, a
// store or a system-scope atomic on an address the caller has already translated (lsa_addr in
// state.h; only the dispatchers of rma.h, amo.h and signal.h translate). Written once for host and
// device: the host API runs exactly this code on CPU PEs (hostshm), GPU threads run it on
// NVLink-mapped peers.
#ifndef XSHMEM_DEVICE_LSA_H
#define XSHMEM_DEVICE_LSA_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/device/atomic.h>
#include <xshmem/device/group.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/state.h>

#if !defined(__CUDA_ARCH__)
#include <string.h>
#endif

namespace xshmem::dev::lsa {

#if defined(__CUDACC__)
namespace detail {

// Independent accesses each thread has in flight before its first store.
inline constexpr int kUnroll = 4;

// Units [0, n) of type U, unit i by thread i mod size: a warp touches consecutive units
// (coalesced), and each thread issues kUnroll loads before it stores.
template <typename U>
__device__ __forceinline__ void copy_units(U *d, const U *s, size_t n, unsigned rank,
                                           unsigned size) {
  size_t i = rank;
  const size_t stride = size;
  for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
    U v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = s[i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) d[i + u * stride] = v[u];
  }
  for (; i < n; i += stride) d[i] = s[i];
}

// n 8-byte words to 8-byte aligned d from s, which is m (1..7) bytes past an 8-byte boundary:
// aligned 8-byte loads, shifted together. The last word read shares at least one byte with
// [s, s + 8n), so no load leaves the source's aligned words.
__device__ __forceinline__ void copy_shifted(uint64_t *d, const unsigned char *s, size_t n,
                                             unsigned rank, unsigned size) {
  const unsigned m = static_cast<unsigned>(reinterpret_cast<uintptr_t>(s) & 7);
  const uint64_t *w = reinterpret_cast<const uint64_t *>(s - m);
  const unsigned lo_shift = 8 * m;
  const unsigned hi_shift = 64 - lo_shift;
  size_t i = rank;
  const size_t stride = size;
  for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
    uint64_t lo[kUnroll], hi[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      lo[u] = w[i + u * stride];
      hi[u] = w[i + u * stride + 1];
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) d[i + u * stride] = (lo[u] >> lo_shift) | (hi[u] << hi_shift);
  }
  for (; i < n; i += stride) d[i] = (w[i] >> lo_shift) | (w[i + 1] << hi_shift);
}

}  // namespace detail

// Copies n bytes with the `size` threads of a group, this one being `rank` (0 <= rank < size);
// every thread of the group calls with the same arguments, and the copy is complete once every
// one has returned (the caller synchronises the group). Source and destination 16-byte aligned
// to each other: 16-byte accesses; 8-byte aligned to each other: 8-byte accesses; otherwise
// 8-byte stores of shifted 8-byte loads. Unaligned heads and tails go byte by byte.
__device__ __forceinline__ void copy_group(void *dst, const void *src, size_t n, unsigned rank,
                                           unsigned size) {
  auto *d = static_cast<unsigned char *>(dst);
  const auto *c = static_cast<const unsigned char *>(src);
  const uintptr_t mis = (reinterpret_cast<uintptr_t>(d) ^ reinterpret_cast<uintptr_t>(c)) & 15;
  const uintptr_t align = mis == 0 ? 16 : 8;
  size_t head = (0 - reinterpret_cast<uintptr_t>(d)) & (align - 1);
  if (head > n) head = n;
  for (size_t i = rank; i < head; i += size) d[i] = c[i];
  d += head;
  c += head;
  n -= head;
  const size_t units = n / align;
  if (mis == 0) {
    detail::copy_units(reinterpret_cast<uint4 *>(d), reinterpret_cast<const uint4 *>(c), units,
                       rank, size);
  } else if ((mis & 7) == 0) {
    detail::copy_units(reinterpret_cast<uint64_t *>(d), reinterpret_cast<const uint64_t *>(c),
                       units, rank, size);
  } else {
    detail::copy_shifted(reinterpret_cast<uint64_t *>(d), c, units, rank, size);
  }
  for (size_t i = units * align + rank; i < n; i += size) d[i] = c[i];
}
#endif

// Copies n bytes. Overlap is not supported (RMA source and destination never overlap).
XSHMEM_HD_INLINE void copy(void *dst, const void *src, size_t n) {
#if defined(__CUDA_ARCH__)
  // Small word-aligned copies (a put-with-signal payload, a typed put of a few elements) skip
  // the general alignment handling: on latency-bound paths its setup is measurable.
  if (n <= 32 &&
      ((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src) | n) & 7) == 0) {
    for (size_t i = 0; i < n / 8; ++i)
      static_cast<uint64_t *>(dst)[i] = static_cast<const uint64_t *>(src)[i];
    return;
  }
  copy_group(dst, src, n, 0, 1);
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
// On the device an element is one typed access (typed addresses are naturally aligned).
template <typename T>
XSHMEM_HD_INLINE void iput(T *remote_dst, const T *src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
                           size_t nelems) {
#if defined(__CUDA_ARCH__)
  for (size_t i = 0; i < nelems; ++i) {
    remote_dst[static_cast<ptrdiff_t>(i) * dst_stride] =
        src[static_cast<ptrdiff_t>(i) * src_stride];
  }
#else
  for (size_t i = 0; i < nelems; ++i) {
    copy(remote_dst + static_cast<ptrdiff_t>(i) * dst_stride,
         src + static_cast<ptrdiff_t>(i) * src_stride, sizeof(T));
  }
#endif
}
template <typename T>
XSHMEM_HD_INLINE void iget(T *dst, const T *remote_src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
                           size_t nelems) {
#if defined(__CUDA_ARCH__)
  for (size_t i = 0; i < nelems; ++i) {
    dst[static_cast<ptrdiff_t>(i) * dst_stride] =
        remote_src[static_cast<ptrdiff_t>(i) * src_stride];
  }
#else
  for (size_t i = 0; i < nelems; ++i) {
    copy(dst + static_cast<ptrdiff_t>(i) * dst_stride,
         remote_src + static_cast<ptrdiff_t>(i) * src_stride, sizeof(T));
  }
#endif
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
// One fence, then a relaxed update: together a release (PTX and C++ alike). The fence waits for
// the earlier stores' acknowledgements from the peer, which is most of what a small
// put-with-signal costs over NVLink; a release-ordered update after the fence would be a second
// fence (measured: +0.6 us per signal, tools/probe/nvlink_probe.cu). The host fence also covers
// x86 non-temporal stores, which a release store alone would not.
// `fenced`: the caller has just fenced (or quieted) itself, so skip the fence.
XSHMEM_HD_INLINE void signal(uint64_t *remote_sig, uint64_t value, int sig_op,
                             bool fenced = false) {
  if (!fenced) atomic::fence();
  if (sig_op == kSignalAdd) {
    atomic::fetch_add(remote_sig, value, atomic::relaxed);
  } else {
    atomic::store(remote_sig, value, atomic::relaxed);
  }
}

XSHMEM_HD_INLINE void put_signal(void *remote_dst, const void *src, size_t n, uint64_t *remote_sig,
                                 uint64_t value, int sig_op) {
  put(remote_dst, src, n);
  signal(remote_sig, value, sig_op);
}

// ---- the group forms (group.h): the group's threads share the work, no group barrier at the
// end (the caller synchronises the group when every member must see the operation done).

#if defined(__CUDACC__)
namespace detail {
// Independent 16-byte loads each thread has in flight before its stores in a bulk copy. One
// block moving megabytes is bound by the bytes it keeps in flight: 8 x 16 B per thread is 32 KiB
// for 256 threads (copy_group keeps 4).
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
}  // namespace detail
#endif

// A bulk copy of n bytes by the threads of G (bulk_group: the collectives): 16-byte accesses
// with more loads in flight when both sides are 16-byte aligned, else copy_group's alignment
// handling. The host copies with memcpy.
template <typename G>
XSHMEM_HD_INLINE void copy_bulk(void *dst, const void *src, size_t n) {
  if (n == 0 || dst == src) return;
#if defined(__CUDA_ARCH__)
  if (((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) & 15) == 0) {
    const size_t units = n / 16;
    detail::wide_copy(static_cast<uint4 *>(dst), static_cast<const uint4 *>(src), units, G::rank(),
                      G::size());
    auto *d = static_cast<unsigned char *>(dst);
    const auto *c = static_cast<const unsigned char *>(src);
    for (size_t i = units * 16 + G::rank(); i < n; i += G::size()) d[i] = c[i];
  } else {
    copy_group(dst, src, n, G::rank(), G::size());
  }
#else
  memcpy(dst, src, n);
#endif
}

// n bytes by the group: one thread copies (copy), a bulk group with copy_bulk, a warp or block
// with copy_group.
template <typename G>
XSHMEM_HD_INLINE void group_copy(void *dst, const void *src, size_t n) {
  if constexpr (is_bulk_v<G>) {
    copy_bulk<G>(dst, src, n);
  } else if constexpr (G::kThread) {
    copy(dst, src, n);
  } else {
#if defined(__CUDA_ARCH__)
    copy_group(dst, src, n, G::rank(), G::size());
#endif
  }
}
template <typename G>
XSHMEM_HD_INLINE void group_put(void *remote_dst, const void *src, size_t n) {
  group_copy<G>(remote_dst, src, n);
}
template <typename G>
XSHMEM_HD_INLINE void group_get(void *dst, const void *remote_src, size_t n) {
  group_copy<G>(dst, remote_src, n);
}

// Strided, the group's threads taking every size()-th element (one thread: iput/iget).
template <typename G, typename T>
XSHMEM_HD_INLINE void group_iput(T *remote_dst, const T *src, ptrdiff_t dst_stride,
                                 ptrdiff_t src_stride, size_t nelems) {
  if constexpr (G::kThread && !is_bulk_v<G>) {
    iput(remote_dst, src, dst_stride, src_stride, nelems);
  } else {
    for (size_t i = G::rank(); i < nelems; i += G::size())
      remote_dst[static_cast<ptrdiff_t>(i) * dst_stride] =
          src[static_cast<ptrdiff_t>(i) * src_stride];
  }
}
template <typename G, typename T>
XSHMEM_HD_INLINE void group_iget(T *dst, const T *remote_src, ptrdiff_t dst_stride,
                                 ptrdiff_t src_stride, size_t nelems) {
  if constexpr (G::kThread && !is_bulk_v<G>) {
    iget(dst, remote_src, dst_stride, src_stride, nelems);
  } else {
    for (size_t i = G::rank(); i < nelems; i += G::size())
      dst[static_cast<ptrdiff_t>(i) * dst_stride] =
          remote_src[static_cast<ptrdiff_t>(i) * src_stride];
  }
}

// put_signal by the group: the group copies, every member fences, the group synchronises, and
// the leader updates the signal (ordered after every member's stores without a second fence).
template <typename G>
XSHMEM_HD_INLINE void group_put_signal(void *remote_dst, const void *src, size_t n,
                                       uint64_t *remote_sig, uint64_t value, int sig_op) {
  if constexpr (G::kThread) {
    put_signal(remote_dst, src, n, remote_sig, value, sig_op);
  } else {
    group_copy<G>(remote_dst, src, n);
    atomic::fence();
    G::sync();
    if (G::rank() == 0) signal(remote_sig, value, sig_op, /*fenced=*/true);
  }
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
