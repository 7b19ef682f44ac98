// xshmem host API: atomics (fetching, non-fetching and _nbi; standard, extended and bitwise
// type classes), running the one path function of each (host_path.h: the dispatcher of
// <xshmem/device/amo.h>) under XSHMEM_CTX_DEFAULT.
//
// On the LSA path an atomic completes before it returns, so the _nbi fetching forms store the
// old value right away (valid after the next quiet, as OpenSHMEM promises).
#include <cstddef>
#include <cstdint>

#include <xshmem/device/amo.h>
#include <xshmem/xshmem.h>

#include "checks.h"
#include "host_path.h"
#include "runtime.h"

namespace xshmem::core {
namespace {

// `dest` is a symmetric, naturally aligned T at a valid pe; `fetch` (for _nbi) a local T.
template <typename T>
void check_amo_full(const char *call, const T *dest, int pe, const T *fetch, bool has_fetch) {
  check_init(call);
  if (!checks_enabled()) return;
  check_pe(call, pe);
  check_symmetric(call, "dest", dest, sizeof(T));
  check_aligned(call, "dest", dest, sizeof(T));
  if (has_fetch) check_buffer(call, "fetch", fetch, sizeof(T));
}

// Runs `Op` at `pe` under the default context (host_path.h), after the checks. The common case
// (fast_access_ok) tail-calls the path function with nothing saved on the way; anything else
// goes out of line to the full checks (and their diagnostic), then to the same path.
template <dev::amo_op Op, typename T>
[[gnu::noinline, gnu::cold]] T amo_full(const char *call, T *dest, T value, T cond, int pe,
                                        const T *fetch, bool has_fetch) {
  check_amo_full<T>(call, dest, pe, fetch, has_fetch);
  return path::amo<Op>(XSHMEM_CTX_DEFAULT, dest, value, cond, pe);
}
template <dev::amo_op Op, typename T>
inline T amo(const char *call, T *dest, T value, T cond, int pe, const T *fetch = nullptr,
             bool has_fetch = false) {
  if (!fast_access_ok(dest, sizeof(T), sizeof(T), pe, has_fetch, fetch)) [[unlikely]]
    return amo_full<Op>(call, dest, value, cond, pe, fetch, has_fetch);
  return path::amo<Op>(XSHMEM_CTX_DEFAULT, dest, value, cond, pe);
}

}  // namespace
}  // namespace xshmem::core

namespace xc = xshmem::core;
namespace xd = xshmem::dev;
using xshmem::dev::amo_op;

extern "C" {

#define XSHMEM_DEF_AMO_EXT(T, N)                                                                   \
  T xshmem_##N##_atomic_fetch(const T *source, int pe) {                                           \
    return xc::amo<amo_op::fetch>("xshmem_" #N "_atomic_fetch", const_cast<T *>(source),           \
                                  static_cast<T>(0), static_cast<T>(0), pe);                       \
  }                                                                                                \
  void xshmem_##N##_atomic_set(T *dest, T value, int pe) {                                         \
    xc::amo<amo_op::set>("xshmem_" #N "_atomic_set", dest, value, static_cast<T>(0), pe);          \
  }                                                                                                \
  T xshmem_##N##_atomic_swap(T *dest, T value, int pe) {                                           \
    return xc::amo<amo_op::swap>("xshmem_" #N "_atomic_swap", dest, value, static_cast<T>(0), pe); \
  }                                                                                                \
  void xshmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe) {                          \
    *fetch = xc::amo<amo_op::fetch>("xshmem_" #N "_atomic_fetch_nbi", const_cast<T *>(source),     \
                                    static_cast<T>(0), static_cast<T>(0), pe, fetch, true);        \
  }                                                                                                \
  void xshmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe) {                          \
    *fetch = xc::amo<amo_op::swap>("xshmem_" #N "_atomic_swap_nbi", dest, value,                   \
                                   static_cast<T>(0), pe, fetch, true);                            \
  }
XSHMEM_AMO_EXTENDED_TYPES(XSHMEM_DEF_AMO_EXT)
#undef XSHMEM_DEF_AMO_EXT

#define XSHMEM_DEF_AMO_STD(T, N)                                                                 \
  T xshmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe) {                         \
    return xc::amo<amo_op::compare_swap>("xshmem_" #N "_atomic_compare_swap", dest, value, cond, \
                                         pe);                                                    \
  }                                                                                              \
  T xshmem_##N##_atomic_fetch_inc(T *dest, int pe) {                                             \
    return xc::amo<amo_op::fetch_add>("xshmem_" #N "_atomic_fetch_inc", dest, static_cast<T>(1), \
                                      static_cast<T>(0), pe);                                    \
  }                                                                                              \
  void xshmem_##N##_atomic_inc(T *dest, int pe) {                                                \
    xc::amo<amo_op::fetch_add>("xshmem_" #N "_atomic_inc", dest, static_cast<T>(1),              \
                               static_cast<T>(0), pe);                                           \
  }                                                                                              \
  T xshmem_##N##_atomic_fetch_add(T *dest, T value, int pe) {                                    \
    return xc::amo<amo_op::fetch_add>("xshmem_" #N "_atomic_fetch_add", dest, value,             \
                                      static_cast<T>(0), pe);                                    \
  }                                                                                              \
  void xshmem_##N##_atomic_add(T *dest, T value, int pe) {                                       \
    xc::amo<amo_op::fetch_add>("xshmem_" #N "_atomic_add", dest, value, static_cast<T>(0), pe);  \
  }                                                                                              \
  void xshmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe) {        \
    *fetch = xc::amo<amo_op::compare_swap>("xshmem_" #N "_atomic_compare_swap_nbi", dest, value, \
                                           cond, pe, fetch, true);                               \
  }                                                                                              \
  void xshmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe) {                            \
    *fetch = xc::amo<amo_op::fetch_add>("xshmem_" #N "_atomic_fetch_inc_nbi", dest,              \
                                        static_cast<T>(1), static_cast<T>(0), pe, fetch, true);  \
  }                                                                                              \
  void xshmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe) {                   \
    *fetch = xc::amo<amo_op::fetch_add>("xshmem_" #N "_atomic_fetch_add_nbi", dest, value,       \
                                        static_cast<T>(0), pe, fetch, true);                     \
  }
XSHMEM_AMO_STANDARD_TYPES(XSHMEM_DEF_AMO_STD)
#undef XSHMEM_DEF_AMO_STD

#define XSHMEM_DEF_AMO_BIT_OP(T, N, OP)                                                           \
  T xshmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe) {                                    \
    return xc::amo<amo_op::fetch_##OP>("xshmem_" #N "_atomic_fetch_" #OP, dest, value,            \
                                       static_cast<T>(0), pe);                                    \
  }                                                                                               \
  void xshmem_##N##_atomic_##OP(T *dest, T value, int pe) {                                       \
    xc::amo<amo_op::fetch_##OP>("xshmem_" #N "_atomic_" #OP, dest, value, static_cast<T>(0), pe); \
  }                                                                                               \
  void xshmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe) {                 \
    *fetch = xc::amo<amo_op::fetch_##OP>("xshmem_" #N "_atomic_fetch_" #OP "_nbi", dest, value,   \
                                         static_cast<T>(0), pe, fetch, true);                     \
  }
#define XSHMEM_DEF_AMO_BIT(T, N)   \
  XSHMEM_DEF_AMO_BIT_OP(T, N, and) \
  XSHMEM_DEF_AMO_BIT_OP(T, N, or)  \
  XSHMEM_DEF_AMO_BIT_OP(T, N, xor)
XSHMEM_AMO_BITWISE_TYPES(XSHMEM_DEF_AMO_BIT)
#undef XSHMEM_DEF_AMO_BIT
#undef XSHMEM_DEF_AMO_BIT_OP

// Second names for the inline CUDA API's host branches (<xshmem/device/cuda_api.h>).
#define XSHMEMI_ALIAS(RET, NAME, PARAMS) \
  RET xshmemi_h_##NAME PARAMS __attribute__((alias("xshmem_" #NAME)));
#define XSHMEM_ALIAS_AMO_EXT(T, N)                                 \
  XSHMEMI_ALIAS(T, N##_atomic_fetch, (const T *, int))             \
  XSHMEMI_ALIAS(void, N##_atomic_set, (T *, T, int))               \
  XSHMEMI_ALIAS(T, N##_atomic_swap, (T *, T, int))                 \
  XSHMEMI_ALIAS(void, N##_atomic_fetch_nbi, (T *, const T *, int)) \
  XSHMEMI_ALIAS(void, N##_atomic_swap_nbi, (T *, T *, T, int))
XSHMEM_AMO_EXTENDED_TYPES(XSHMEM_ALIAS_AMO_EXT)
#undef XSHMEM_ALIAS_AMO_EXT
#define XSHMEM_ALIAS_AMO_STD(T, N)                                        \
  XSHMEMI_ALIAS(T, N##_atomic_compare_swap, (T *, T, T, int))             \
  XSHMEMI_ALIAS(T, N##_atomic_fetch_inc, (T *, int))                      \
  XSHMEMI_ALIAS(void, N##_atomic_inc, (T *, int))                         \
  XSHMEMI_ALIAS(T, N##_atomic_fetch_add, (T *, T, int))                   \
  XSHMEMI_ALIAS(void, N##_atomic_add, (T *, T, int))                      \
  XSHMEMI_ALIAS(void, N##_atomic_compare_swap_nbi, (T *, T *, T, T, int)) \
  XSHMEMI_ALIAS(void, N##_atomic_fetch_inc_nbi, (T *, T *, int))          \
  XSHMEMI_ALIAS(void, N##_atomic_fetch_add_nbi, (T *, T *, T, int))
XSHMEM_AMO_STANDARD_TYPES(XSHMEM_ALIAS_AMO_STD)
#undef XSHMEM_ALIAS_AMO_STD
#define XSHMEM_ALIAS_AMO_BIT_OP(T, N, OP)                \
  XSHMEMI_ALIAS(T, N##_atomic_fetch_##OP, (T *, T, int)) \
  XSHMEMI_ALIAS(void, N##_atomic_##OP, (T *, T, int))    \
  XSHMEMI_ALIAS(void, N##_atomic_fetch_##OP##_nbi, (T *, T *, T, int))
#define XSHMEM_ALIAS_AMO_BIT(T, N)   \
  XSHMEM_ALIAS_AMO_BIT_OP(T, N, and) \
  XSHMEM_ALIAS_AMO_BIT_OP(T, N, or)  \
  XSHMEM_ALIAS_AMO_BIT_OP(T, N, xor)
XSHMEM_AMO_BITWISE_TYPES(XSHMEM_ALIAS_AMO_BIT)
#undef XSHMEM_ALIAS_AMO_BIT
#undef XSHMEM_ALIAS_AMO_BIT_OP
#undef XSHMEMI_ALIAS

}  // extern "C"
