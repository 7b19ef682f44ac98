// xshmem host API: atomics (fetching, non-fetching and _nbi; standard, extended and bitwise
// type classes), running the path code of <xshmem/device/amo.h>.
//
// On the LSA path an atomic completes before it returns, so the _nbi fetching forms store the
// old value right away (valid after the next quiet, as OpenSHMEM promises).
#include <cstddef>
#include <cstdint>

#include <xshmem/device/amo.h>
#include <xshmem/xshmem.h>

#include "checks.h"
#include "runtime.h"

namespace xshmem::core {
namespace {

// `dest` is a symmetric, naturally aligned T at a valid pe; `fetch` (for _nbi) a local T.
template <typename T>
void check_amo(const char *call, const T *dest, int pe, const T *fetch = nullptr,
               bool has_fetch = false) {
  check_init(call);
  if (!checks_enabled()) return;
  check_pe(call, pe);
  check_symmetric(call, "dest", dest, sizeof(T));
  check_aligned(call, "dest", dest, sizeof(T));
  if (has_fetch) check_buffer(call, "fetch", fetch, sizeof(T));
}

}  // namespace
}  // namespace xshmem::core

namespace xc = xshmem::core;
namespace xd = xshmem::dev;

extern "C" {

#define XSHMEM_DEF_AMO_EXT(T, N)                                                 \
  T xshmem_##N##_atomic_fetch(const T *source, int pe) {                         \
    xc::check_amo<T>("xshmem_" #N "_atomic_fetch", source, pe);                  \
    return xd::atomic_fetch(xc::state(), source, pe);                            \
  }                                                                              \
  void xshmem_##N##_atomic_set(T *dest, T value, int pe) {                       \
    xc::check_amo<T>("xshmem_" #N "_atomic_set", dest, pe);                      \
    xd::atomic_set(xc::state(), dest, value, pe);                                \
  }                                                                              \
  T xshmem_##N##_atomic_swap(T *dest, T value, int pe) {                         \
    xc::check_amo<T>("xshmem_" #N "_atomic_swap", dest, pe);                     \
    return xd::atomic_swap(xc::state(), dest, value, pe);                        \
  }                                                                              \
  void xshmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe) {        \
    xc::check_amo<T>("xshmem_" #N "_atomic_fetch_nbi", source, pe, fetch, true); \
    *fetch = xd::atomic_fetch(xc::state(), source, pe);                          \
  }                                                                              \
  void xshmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe) {        \
    xc::check_amo<T>("xshmem_" #N "_atomic_swap_nbi", dest, pe, fetch, true);    \
    *fetch = xd::atomic_swap(xc::state(), dest, value, pe);                      \
  }
XSHMEM_AMO_EXTENDED_TYPES(XSHMEM_DEF_AMO_EXT)
#undef XSHMEM_DEF_AMO_EXT

#define XSHMEM_DEF_AMO_STD(T, N)                                                          \
  T xshmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe) {                  \
    xc::check_amo<T>("xshmem_" #N "_atomic_compare_swap", dest, pe);                      \
    return xd::atomic_compare_swap(xc::state(), dest, cond, value, pe);                   \
  }                                                                                       \
  T xshmem_##N##_atomic_fetch_inc(T *dest, int pe) {                                      \
    xc::check_amo<T>("xshmem_" #N "_atomic_fetch_inc", dest, pe);                         \
    return xd::atomic_fetch_inc(xc::state(), dest, pe);                                   \
  }                                                                                       \
  void xshmem_##N##_atomic_inc(T *dest, int pe) {                                         \
    xc::check_amo<T>("xshmem_" #N "_atomic_inc", dest, pe);                               \
    xd::atomic_inc(xc::state(), dest, pe);                                                \
  }                                                                                       \
  T xshmem_##N##_atomic_fetch_add(T *dest, T value, int pe) {                             \
    xc::check_amo<T>("xshmem_" #N "_atomic_fetch_add", dest, pe);                         \
    return xd::atomic_fetch_add(xc::state(), dest, value, pe);                            \
  }                                                                                       \
  void xshmem_##N##_atomic_add(T *dest, T value, int pe) {                                \
    xc::check_amo<T>("xshmem_" #N "_atomic_add", dest, pe);                               \
    xd::atomic_add(xc::state(), dest, value, pe);                                         \
  }                                                                                       \
  void xshmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe) { \
    xc::check_amo<T>("xshmem_" #N "_atomic_compare_swap_nbi", dest, pe, fetch, true);     \
    *fetch = xd::atomic_compare_swap(xc::state(), dest, cond, value, pe);                 \
  }                                                                                       \
  void xshmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe) {                     \
    xc::check_amo<T>("xshmem_" #N "_atomic_fetch_inc_nbi", dest, pe, fetch, true);        \
    *fetch = xd::atomic_fetch_inc(xc::state(), dest, pe);                                 \
  }                                                                                       \
  void xshmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe) {            \
    xc::check_amo<T>("xshmem_" #N "_atomic_fetch_add_nbi", dest, pe, fetch, true);        \
    *fetch = xd::atomic_fetch_add(xc::state(), dest, value, pe);                          \
  }
XSHMEM_AMO_STANDARD_TYPES(XSHMEM_DEF_AMO_STD)
#undef XSHMEM_DEF_AMO_STD

#define XSHMEM_DEF_AMO_BIT_OP(T, N, OP)                                                \
  T xshmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe) {                         \
    xc::check_amo<T>("xshmem_" #N "_atomic_fetch_" #OP, dest, pe);                     \
    return xd::atomic_fetch_##OP(xc::state(), dest, value, pe);                        \
  }                                                                                    \
  void xshmem_##N##_atomic_##OP(T *dest, T value, int pe) {                            \
    xc::check_amo<T>("xshmem_" #N "_atomic_" #OP, dest, pe);                           \
    xd::atomic_##OP(xc::state(), dest, value, pe);                                     \
  }                                                                                    \
  void xshmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe) {      \
    xc::check_amo<T>("xshmem_" #N "_atomic_fetch_" #OP "_nbi", dest, pe, fetch, true); \
    *fetch = xd::atomic_fetch_##OP(xc::state(), dest, value, pe);                      \
  }
#define XSHMEM_DEF_AMO_BIT(T, N)   \
  XSHMEM_DEF_AMO_BIT_OP(T, N, and) \
  XSHMEM_DEF_AMO_BIT_OP(T, N, or)  \
  XSHMEM_DEF_AMO_BIT_OP(T, N, xor)
XSHMEM_AMO_BITWISE_TYPES(XSHMEM_DEF_AMO_BIT)
#undef XSHMEM_DEF_AMO_BIT
#undef XSHMEM_DEF_AMO_BIT_OP

}  // extern "C"
