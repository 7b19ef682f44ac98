// xshmem device API: point-to-point synchronization on local symmetric words (wait_until, test
// and their _all/_any/_some/_vector forms).
//
// Every read is an acquire load, so when a wait returns (or a test returns true) the caller sees
// everything the updating PE ordered before the update (the data of a put-with-signal, say).
// Waits spin with back-off (host: yield; device: nanosleep).
//
// Set rules (OpenSHMEM 1.5 with errata): an element takes part when `status` is NULL or
// status[i] == 0. An empty set (nelems 0 or all excluded): wait_until_all and test_all succeed at
// once, wait_until_any and test_any return SIZE_MAX, wait_until_some and test_some return 0.
// _any is fair: it scans from just after the index it returned last (through `cursor`), so
// repeated calls return every satisfied index in turn. _some returns every satisfied index.
#ifndef XSHMEM_DEVICE_P2P_H
#define XSHMEM_DEVICE_P2P_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/device/atomic.h>
#include <xshmem/device/ops.h>

namespace xshmem::dev {

namespace p2p_detail {
// The comparison value of element i: one for all, or one per element (_vector).
template <typename T>
struct same_value {
  T v;
  XSHMEM_HD_INLINE T operator[](size_t) const { return v; }
};
template <typename T>
struct per_element {
  const T *v;
  XSHMEM_HD_INLINE T operator[](size_t i) const { return v[i]; }
};

XSHMEM_HD_INLINE bool active(const int *status, size_t i) {
  return status == nullptr || status[i] == 0;
}

template <typename T>
XSHMEM_HD_INLINE bool holds(const T *ivar, int cmp, T value) {
  return compare(cmp, atomic::load_acquire(ivar), value);
}

// Whether every active element holds (empty set: true).
template <typename T, typename V>
XSHMEM_HD_INLINE bool all(const T *ivars, size_t n, const int *status, int cmp, V values) {
  for (size_t i = 0; i < n; ++i) {
    if (active(status, i) && !holds(ivars + i, cmp, values[i])) return false;
  }
  return true;
}

XSHMEM_HD_INLINE bool any_active(size_t n, const int *status) {
  for (size_t i = 0; i < n; ++i) {
    if (active(status, i)) return true;
  }
  return false;
}

// One fair scan: the first active, satisfied index at or after *cursor (cyclically), or
// SIZE_MAX. Moves *cursor past the index found.
template <typename T, typename V>
XSHMEM_HD_INLINE size_t any(const T *ivars, size_t n, const int *status, int cmp, V values,
                            size_t *cursor) {
  if (n == 0) return SIZE_MAX;
  size_t start = cursor != nullptr ? *cursor % n : 0;
  for (size_t k = 0; k < n; ++k) {
    size_t i = start + k < n ? start + k : start + k - n;
    if (active(status, i) && holds(ivars + i, cmp, values[i])) {
      if (cursor != nullptr) *cursor = i + 1;
      return i;
    }
  }
  return SIZE_MAX;
}

// Writes every active, satisfied index to indices (ascending); returns how many.
template <typename T, typename V>
XSHMEM_HD_INLINE size_t some(const T *ivars, size_t n, size_t *indices, const int *status, int cmp,
                             V values) {
  size_t found = 0;
  for (size_t i = 0; i < n; ++i) {
    if (active(status, i) && holds(ivars + i, cmp, values[i])) indices[found++] = i;
  }
  return found;
}
}  // namespace p2p_detail

// Blocks until *ivar cmp value holds; returns the value that satisfied it.
template <typename T>
XSHMEM_HD_INLINE T wait_until(const T *ivar, int cmp, T value) {
  atomic::backoff wait;
  for (;;) {
    T seen = atomic::load_acquire(ivar);
    if (compare(cmp, seen, value)) return seen;
    wait();
  }
}

template <typename T>
XSHMEM_HD_INLINE int test(const T *ivar, int cmp, T value) {
  return p2p_detail::holds(ivar, cmp, value) ? 1 : 0;
}

// The generic set forms; V is p2p_detail::same_value<T> or per_element<T>.
template <typename T, typename V>
XSHMEM_HD_INLINE void wait_until_all_g(const T *ivars, size_t n, const int *status, int cmp,
                                       V values) {
  // Element by element: once an element holds, later updates need not keep it holding.
  for (size_t i = 0; i < n; ++i) {
    if (p2p_detail::active(status, i)) wait_until(ivars + i, cmp, values[i]);
  }
}
template <typename T, typename V>
XSHMEM_HD_INLINE size_t wait_until_any_g(const T *ivars, size_t n, const int *status, int cmp,
                                         V values, size_t *cursor) {
  if (!p2p_detail::any_active(n, status)) return SIZE_MAX;
  atomic::backoff wait;
  for (;;) {
    size_t i = p2p_detail::any(ivars, n, status, cmp, values, cursor);
    if (i != SIZE_MAX) return i;
    wait();
  }
}
template <typename T, typename V>
XSHMEM_HD_INLINE size_t wait_until_some_g(const T *ivars, size_t n, size_t *indices,
                                          const int *status, int cmp, V values) {
  if (!p2p_detail::any_active(n, status)) return 0;
  atomic::backoff wait;
  for (;;) {
    size_t found = p2p_detail::some(ivars, n, indices, status, cmp, values);
    if (found != 0) return found;
    wait();
  }
}

template <typename T>
XSHMEM_HD_INLINE void wait_until_all(const T *ivars, size_t n, const int *status, int cmp,
                                     T value) {
  wait_until_all_g(ivars, n, status, cmp, p2p_detail::same_value<T>{value});
}
template <typename T>
XSHMEM_HD_INLINE size_t wait_until_any(const T *ivars, size_t n, const int *status, int cmp,
                                       T value, size_t *cursor) {
  return wait_until_any_g(ivars, n, status, cmp, p2p_detail::same_value<T>{value}, cursor);
}
template <typename T>
XSHMEM_HD_INLINE size_t wait_until_some(const T *ivars, size_t n, size_t *indices,
                                        const int *status, int cmp, T value) {
  return wait_until_some_g(ivars, n, indices, status, cmp, p2p_detail::same_value<T>{value});
}
template <typename T>
XSHMEM_HD_INLINE void wait_until_all_vector(const T *ivars, size_t n, const int *status, int cmp,
                                            const T *values) {
  wait_until_all_g(ivars, n, status, cmp, p2p_detail::per_element<T>{values});
}
template <typename T>
XSHMEM_HD_INLINE size_t wait_until_any_vector(const T *ivars, size_t n, const int *status, int cmp,
                                              const T *values, size_t *cursor) {
  return wait_until_any_g(ivars, n, status, cmp, p2p_detail::per_element<T>{values}, cursor);
}
template <typename T>
XSHMEM_HD_INLINE size_t wait_until_some_vector(const T *ivars, size_t n, size_t *indices,
                                               const int *status, int cmp, const T *values) {
  return wait_until_some_g(ivars, n, indices, status, cmp, p2p_detail::per_element<T>{values});
}

template <typename T>
XSHMEM_HD_INLINE int test_all(const T *ivars, size_t n, const int *status, int cmp, T value) {
  return p2p_detail::all(ivars, n, status, cmp, p2p_detail::same_value<T>{value}) ? 1 : 0;
}
template <typename T>
XSHMEM_HD_INLINE size_t test_any(const T *ivars, size_t n, const int *status, int cmp, T value,
                                 size_t *cursor) {
  return p2p_detail::any(ivars, n, status, cmp, p2p_detail::same_value<T>{value}, cursor);
}
template <typename T>
XSHMEM_HD_INLINE size_t test_some(const T *ivars, size_t n, size_t *indices, const int *status,
                                  int cmp, T value) {
  return p2p_detail::some(ivars, n, indices, status, cmp, p2p_detail::same_value<T>{value});
}
template <typename T>
XSHMEM_HD_INLINE int test_all_vector(const T *ivars, size_t n, const int *status, int cmp,
                                     const T *values) {
  return p2p_detail::all(ivars, n, status, cmp, p2p_detail::per_element<T>{values}) ? 1 : 0;
}
template <typename T>
XSHMEM_HD_INLINE size_t test_any_vector(const T *ivars, size_t n, const int *status, int cmp,
                                        const T *values, size_t *cursor) {
  return p2p_detail::any(ivars, n, status, cmp, p2p_detail::per_element<T>{values}, cursor);
}
template <typename T>
XSHMEM_HD_INLINE size_t test_some_vector(const T *ivars, size_t n, size_t *indices,
                                         const int *status, int cmp, const T *values) {
  return p2p_detail::some(ivars, n, indices, status, cmp, p2p_detail::per_element<T>{values});
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_P2P_H
