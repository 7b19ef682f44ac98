// xshmem host API: point-to-point synchronization (wait_until and test families), running the
// path code of <xshmem/device/p2p.h> on local symmetric words.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <xshmem/device/p2p.h>
#include <xshmem/xshmem.h>

#include "checks.h"
#include "cuda/device_ops.h"
#include "runtime.h"

static_assert(XSHMEM_CMP_EQ == xshmem::dev::kCmpEq && XSHMEM_CMP_NE == xshmem::dev::kCmpNe &&
                  XSHMEM_CMP_GT == xshmem::dev::kCmpGt && XSHMEM_CMP_GE == xshmem::dev::kCmpGe &&
                  XSHMEM_CMP_LT == xshmem::dev::kCmpLt && XSHMEM_CMP_LE == xshmem::dev::kCmpLe,
              "device comparison codes differ from the public ones");

namespace xshmem::core {
namespace {

// Where the next _any scan starts, per thread: just after the index returned last, so repeated
// calls visit every satisfied index (fairness, OpenSHMEM 1.5 wait_until_any).
thread_local size_t t_any_cursor = 0;

// One waited-on word: symmetric, naturally aligned.
template <typename T>
void check_ivar(const char *call, const T *ivar, int cmp) {
  check_init(call);
  if (!checks_enabled()) return;
  check_symmetric(call, "ivar", ivar, sizeof(T));
  check_aligned(call, "ivar", ivar, sizeof(T));
  check_cmp(call, cmp);
}

// An array of them; `indices` (for _some) and `cmp_values` (for _vector) are local arrays of
// nelems entries, checked when given a name.
template <typename T>
void check_ivars(const char *call, const T *ivars, size_t nelems, int cmp,
                 const char *indices_arg = nullptr, const void *indices = nullptr,
                 const char *values_arg = nullptr, const void *values = nullptr) {
  check_init(call);
  if (!checks_enabled()) return;
  if (nelems > SIZE_MAX / sizeof(T)) {
    check_fail(call, "nelems %zu is too large for %zu-byte elements", nelems, sizeof(T));
  }
  check_symmetric(call, "ivars", ivars, nelems * sizeof(T));
  if (nelems != 0) check_aligned(call, "ivars", ivars, sizeof(T));
  if (indices_arg != nullptr) check_buffer(call, indices_arg, indices, nelems * sizeof(size_t));
  if (values_arg != nullptr) check_buffer(call, values_arg, values, nelems * sizeof(T));
  check_cmp(call, cmp);
}

namespace pd = dev::p2p_detail;

// Runs f on the words' current values: the words themselves on host heaps; on GPU heaps (which
// the host cannot load) a host copy, tested with the same code.
template <typename T, typename F>
auto on_words(const T *ivars, size_t n, F f) {
  XSHMEM_IF_GPU_HEAP {
    std::vector<T> copy(n);
    if (n != 0) gpu::read_local(copy.data(), ivars, n * sizeof(T));
    return f(static_cast<const T *>(copy.data()));
  }
  return f(ivars);
}

template <typename T>
int test_one(const T *ivar, int cmp, T value) {
  return on_words(ivar, 1, [&](const T *w) { return dev::test(w, cmp, value); });
}
template <typename T, typename V>
int test_all(const T *ivars, size_t n, const int *status, int cmp, V values) {
  return on_words(ivars, n, [&](const T *w) { return pd::all(w, n, status, cmp, values) ? 1 : 0; });
}
template <typename T, typename V>
size_t test_any(const T *ivars, size_t n, const int *status, int cmp, V values) {
  return on_words(ivars, n,
                  [&](const T *w) { return pd::any(w, n, status, cmp, values, &t_any_cursor); });
}
template <typename T, typename V>
size_t test_some(const T *ivars, size_t n, size_t *indices, const int *status, int cmp, V values) {
  return on_words(ivars, n,
                  [&](const T *w) { return pd::some(w, n, indices, status, cmp, values); });
}

// The waits: the path code on host heaps; on GPU heaps, the tests above polled with back-off.
template <typename T>
void wait_one(const T *ivar, int cmp, T value) {
  XSHMEM_IF_GPU_HEAP {
    dev::atomic::backoff wait;
    while (!test_one(ivar, cmp, value)) wait();
    return;
  }
  dev::wait_until(ivar, cmp, value);
}
template <typename T, typename V>
void wait_all(const T *ivars, size_t n, const int *status, int cmp, V values) {
  XSHMEM_IF_GPU_HEAP {
    for (size_t i = 0; i < n; ++i) {
      if (pd::active(status, i)) wait_one(ivars + i, cmp, values[i]);
    }
    return;
  }
  dev::wait_until_all_g(ivars, n, status, cmp, values);
}
template <typename T, typename V>
size_t wait_any(const T *ivars, size_t n, const int *status, int cmp, V values) {
  XSHMEM_IF_GPU_HEAP {
    if (!pd::any_active(n, status)) return SIZE_MAX;
    dev::atomic::backoff wait;
    for (;;) {
      size_t i = test_any(ivars, n, status, cmp, values);
      if (i != SIZE_MAX) return i;
      wait();
    }
  }
  return dev::wait_until_any_g(ivars, n, status, cmp, values, &t_any_cursor);
}
template <typename T, typename V>
size_t wait_some(const T *ivars, size_t n, size_t *indices, const int *status, int cmp, V values) {
  XSHMEM_IF_GPU_HEAP {
    if (!pd::any_active(n, status)) return 0;
    dev::atomic::backoff wait;
    for (;;) {
      size_t found = test_some(ivars, n, indices, status, cmp, values);
      if (found != 0) return found;
      wait();
    }
  }
  return dev::wait_until_some_g(ivars, n, indices, status, cmp, values);
}

template <typename T>
pd::same_value<T> one(T v) {
  return pd::same_value<T>{v};
}
template <typename T>
pd::per_element<T> each(const T *v) {
  return pd::per_element<T>{v};
}

}  // namespace
}  // namespace xshmem::core

namespace xc = xshmem::core;
namespace xd = xshmem::dev;

extern "C" {

#define XSHMEM_DEF_P2P(T, N)                                                                       \
  void xshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value) {                                    \
    xc::check_ivar<T>("xshmem_" #N "_wait_until", ivar, cmp);                                      \
    xc::wait_one(ivar, cmp, cmp_value);                                                            \
  }                                                                                                \
  void xshmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,            \
                                   T cmp_value) {                                                  \
    xc::check_ivars<T>("xshmem_" #N "_wait_until_all", ivars, nelems, cmp);                        \
    xc::wait_all(ivars, nelems, status, cmp, xc::one(cmp_value));                                  \
  }                                                                                                \
  size_t xshmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,          \
                                     T cmp_value) {                                                \
    xc::check_ivars<T>("xshmem_" #N "_wait_until_any", ivars, nelems, cmp);                        \
    return xc::wait_any(ivars, nelems, status, cmp, xc::one(cmp_value));                           \
  }                                                                                                \
  size_t xshmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, \
                                      int cmp, T cmp_value) {                                      \
    xc::check_ivars<T>("xshmem_" #N "_wait_until_some", ivars, nelems, cmp, "indices", indices);   \
    return xc::wait_some(ivars, nelems, indices, status, cmp, xc::one(cmp_value));                 \
  }                                                                                                \
  void xshmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,     \
                                          const T *cmp_values) {                                   \
    xc::check_ivars<T>("xshmem_" #N "_wait_until_all_vector", ivars, nelems, cmp, nullptr,         \
                       nullptr, "cmp_values", cmp_values);                                         \
    xc::wait_all(ivars, nelems, status, cmp, xc::each(cmp_values));                                \
  }                                                                                                \
  size_t xshmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,   \
                                            const T *cmp_values) {                                 \
    xc::check_ivars<T>("xshmem_" #N "_wait_until_any_vector", ivars, nelems, cmp, nullptr,         \
                       nullptr, "cmp_values", cmp_values);                                         \
    return xc::wait_any(ivars, nelems, status, cmp, xc::each(cmp_values));                         \
  }                                                                                                \
  size_t xshmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,             \
                                             const int *status, int cmp, const T *cmp_values) {    \
    xc::check_ivars<T>("xshmem_" #N "_wait_until_some_vector", ivars, nelems, cmp, "indices",      \
                       indices, "cmp_values", cmp_values);                                         \
    return xc::wait_some(ivars, nelems, indices, status, cmp, xc::each(cmp_values));               \
  }                                                                                                \
  int xshmem_##N##_test(T *ivar, int cmp, T cmp_value) {                                           \
    xc::check_ivar<T>("xshmem_" #N "_test", ivar, cmp);                                            \
    return xc::test_one(ivar, cmp, cmp_value);                                                     \
  }                                                                                                \
  int xshmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) {    \
    xc::check_ivars<T>("xshmem_" #N "_test_all", ivars, nelems, cmp);                              \
    return xc::test_all(ivars, nelems, status, cmp, xc::one(cmp_value));                           \
  }                                                                                                \
  size_t xshmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) { \
    xc::check_ivars<T>("xshmem_" #N "_test_any", ivars, nelems, cmp);                              \
    return xc::test_any(ivars, nelems, status, cmp, xc::one(cmp_value));                           \
  }                                                                                                \
  size_t xshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,       \
                                int cmp, T cmp_value) {                                            \
    xc::check_ivars<T>("xshmem_" #N "_test_some", ivars, nelems, cmp, "indices", indices);         \
    return xc::test_some(ivars, nelems, indices, status, cmp, xc::one(cmp_value));                 \
  }                                                                                                \
  int xshmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,            \
                                   const T *cmp_values) {                                          \
    xc::check_ivars<T>("xshmem_" #N "_test_all_vector", ivars, nelems, cmp, nullptr, nullptr,      \
                       "cmp_values", cmp_values);                                                  \
    return xc::test_all(ivars, nelems, status, cmp, xc::each(cmp_values));                         \
  }                                                                                                \
  size_t xshmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,         \
                                      const T *cmp_values) {                                       \
    xc::check_ivars<T>("xshmem_" #N "_test_any_vector", ivars, nelems, cmp, nullptr, nullptr,      \
                       "cmp_values", cmp_values);                                                  \
    return xc::test_any(ivars, nelems, status, cmp, xc::each(cmp_values));                         \
  }                                                                                                \
  size_t xshmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,                   \
                                       const int *status, int cmp, const T *cmp_values) {          \
    xc::check_ivars<T>("xshmem_" #N "_test_some_vector", ivars, nelems, cmp, "indices", indices,   \
                       "cmp_values", cmp_values);                                                  \
    return xc::test_some(ivars, nelems, indices, status, cmp, xc::each(cmp_values));               \
  }
XSHMEM_P2P_TYPES(XSHMEM_DEF_P2P)
#undef XSHMEM_DEF_P2P

// Second names for the inline CUDA API's host branches (<xshmem/device/cuda_api.h>).
#define XSHMEMI_ALIAS(RET, NAME, PARAMS) \
  RET xshmemi_h_##NAME PARAMS __attribute__((alias("xshmem_" #NAME)));
#define XSHMEM_ALIAS_P2P(T, N)                                                                 \
  XSHMEMI_ALIAS(void, N##_wait_until, (T *, int, T))                                           \
  XSHMEMI_ALIAS(void, N##_wait_until_all, (T *, size_t, const int *, int, T))                  \
  XSHMEMI_ALIAS(size_t, N##_wait_until_any, (T *, size_t, const int *, int, T))                \
  XSHMEMI_ALIAS(size_t, N##_wait_until_some, (T *, size_t, size_t *, const int *, int, T))     \
  XSHMEMI_ALIAS(void, N##_wait_until_all_vector, (T *, size_t, const int *, int, const T *))   \
  XSHMEMI_ALIAS(size_t, N##_wait_until_any_vector, (T *, size_t, const int *, int, const T *)) \
  XSHMEMI_ALIAS(size_t, N##_wait_until_some_vector,                                            \
                (T *, size_t, size_t *, const int *, int, const T *))                          \
  XSHMEMI_ALIAS(int, N##_test, (T *, int, T))                                                  \
  XSHMEMI_ALIAS(int, N##_test_all, (T *, size_t, const int *, int, T))                         \
  XSHMEMI_ALIAS(size_t, N##_test_any, (T *, size_t, const int *, int, T))                      \
  XSHMEMI_ALIAS(size_t, N##_test_some, (T *, size_t, size_t *, const int *, int, T))           \
  XSHMEMI_ALIAS(int, N##_test_all_vector, (T *, size_t, const int *, int, const T *))          \
  XSHMEMI_ALIAS(size_t, N##_test_any_vector, (T *, size_t, const int *, int, const T *))       \
  XSHMEMI_ALIAS(size_t, N##_test_some_vector, (T *, size_t, size_t *, const int *, int, const T *))
XSHMEM_P2P_TYPES(XSHMEM_ALIAS_P2P)
#undef XSHMEM_ALIAS_P2P
#undef XSHMEMI_ALIAS

}  // extern "C"
