// xshmem host API: point-to-point synchronization (wait_until and test families), running the
// path code of <xshmem/device/p2p.h> on local symmetric words.
#include <cstddef>
#include <cstdint>

#include <xshmem/device/p2p.h>
#include <xshmem/xshmem.h>

#include "checks.h"
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

}  // namespace
}  // namespace xshmem::core

namespace xc = xshmem::core;
namespace xd = xshmem::dev;

extern "C" {

#define XSHMEM_DEF_P2P(T, N)                                                                       \
  void xshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value) {                                    \
    xc::check_ivar<T>("xshmem_" #N "_wait_until", ivar, cmp);                                      \
    xd::wait_until(ivar, cmp, cmp_value);                                                          \
  }                                                                                                \
  void xshmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,            \
                                   T cmp_value) {                                                  \
    xc::check_ivars<T>("xshmem_" #N "_wait_until_all", ivars, nelems, cmp);                        \
    xd::wait_until_all(ivars, nelems, status, cmp, cmp_value);                                     \
  }                                                                                                \
  size_t xshmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,          \
                                     T cmp_value) {                                                \
    xc::check_ivars<T>("xshmem_" #N "_wait_until_any", ivars, nelems, cmp);                        \
    return xd::wait_until_any(ivars, nelems, status, cmp, cmp_value, &xc::t_any_cursor);           \
  }                                                                                                \
  size_t xshmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, \
                                      int cmp, T cmp_value) {                                      \
    xc::check_ivars<T>("xshmem_" #N "_wait_until_some", ivars, nelems, cmp, "indices", indices);   \
    return xd::wait_until_some(ivars, nelems, indices, status, cmp, cmp_value);                    \
  }                                                                                                \
  void xshmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,     \
                                          const T *cmp_values) {                                   \
    xc::check_ivars<T>("xshmem_" #N "_wait_until_all_vector", ivars, nelems, cmp, nullptr,         \
                       nullptr, "cmp_values", cmp_values);                                         \
    xd::wait_until_all_vector(ivars, nelems, status, cmp, cmp_values);                             \
  }                                                                                                \
  size_t xshmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,   \
                                            const T *cmp_values) {                                 \
    xc::check_ivars<T>("xshmem_" #N "_wait_until_any_vector", ivars, nelems, cmp, nullptr,         \
                       nullptr, "cmp_values", cmp_values);                                         \
    return xd::wait_until_any_vector(ivars, nelems, status, cmp, cmp_values, &xc::t_any_cursor);   \
  }                                                                                                \
  size_t xshmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,             \
                                             const int *status, int cmp, const T *cmp_values) {    \
    xc::check_ivars<T>("xshmem_" #N "_wait_until_some_vector", ivars, nelems, cmp, "indices",      \
                       indices, "cmp_values", cmp_values);                                         \
    return xd::wait_until_some_vector(ivars, nelems, indices, status, cmp, cmp_values);            \
  }                                                                                                \
  int xshmem_##N##_test(T *ivar, int cmp, T cmp_value) {                                           \
    xc::check_ivar<T>("xshmem_" #N "_test", ivar, cmp);                                            \
    return xd::test(ivar, cmp, cmp_value);                                                         \
  }                                                                                                \
  int xshmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) {    \
    xc::check_ivars<T>("xshmem_" #N "_test_all", ivars, nelems, cmp);                              \
    return xd::test_all(ivars, nelems, status, cmp, cmp_value);                                    \
  }                                                                                                \
  size_t xshmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) { \
    xc::check_ivars<T>("xshmem_" #N "_test_any", ivars, nelems, cmp);                              \
    return xd::test_any(ivars, nelems, status, cmp, cmp_value, &xc::t_any_cursor);                 \
  }                                                                                                \
  size_t xshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,       \
                                int cmp, T cmp_value) {                                            \
    xc::check_ivars<T>("xshmem_" #N "_test_some", ivars, nelems, cmp, "indices", indices);         \
    return xd::test_some(ivars, nelems, indices, status, cmp, cmp_value);                          \
  }                                                                                                \
  int xshmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,            \
                                   const T *cmp_values) {                                          \
    xc::check_ivars<T>("xshmem_" #N "_test_all_vector", ivars, nelems, cmp, nullptr, nullptr,      \
                       "cmp_values", cmp_values);                                                  \
    return xd::test_all_vector(ivars, nelems, status, cmp, cmp_values);                            \
  }                                                                                                \
  size_t xshmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,         \
                                      const T *cmp_values) {                                       \
    xc::check_ivars<T>("xshmem_" #N "_test_any_vector", ivars, nelems, cmp, nullptr, nullptr,      \
                       "cmp_values", cmp_values);                                                  \
    return xd::test_any_vector(ivars, nelems, status, cmp, cmp_values, &xc::t_any_cursor);         \
  }                                                                                                \
  size_t xshmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,                   \
                                       const int *status, int cmp, const T *cmp_values) {          \
    xc::check_ivars<T>("xshmem_" #N "_test_some_vector", ivars, nelems, cmp, "indices", indices,   \
                       "cmp_values", cmp_values);                                                  \
    return xd::test_some_vector(ivars, nelems, indices, status, cmp, cmp_values);                  \
  }
XSHMEM_P2P_TYPES(XSHMEM_DEF_P2P)
#undef XSHMEM_DEF_P2P

}  // extern "C"
