// xshmem host API: team reductions and scans, running the path code of
// <xshmem/device/coll_reduce.h> on host heaps, and a one-block kernel on GPU heaps.
#include <array>
#include <cstdint>

#include <xshmem/device/coll_reduce.h>
#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

#include "checks.h"
#include "coll_args.h"
#include "cuda/device_ops.h"
#include "host_path.h"
#include "runtime.h"

namespace xshmem::core {
namespace {

namespace xd = xshmem::dev;

// `stream`: the on-stream forms (GPU heaps only); nullptr for the blocking host API.
template <int Op, typename T>
int reduce(const char *call, xshmem_team_t team, T *dest, const T *source, size_t n,
           void *stream = nullptr) {
  check_init(call);
  if (stream != nullptr && !heap_on_device())
    check_fail(call, "needs a GPU heap, and this PE's heap is in host memory (XSHMEM_HEAP)");
  const xd::state_t &s = state();
  const xd::team_t t = xd::team_of(s, team);
  if (!xd::team_member(t)) {
    if (checks_enabled()) {
      if (team == XSHMEM_TEAM_INVALID) check_fail(call, "team is XSHMEM_TEAM_INVALID");
      check_fail(call, "team %d is not a team of this pe (destroyed, or this pe is not a member)",
                 static_cast<int>(team));
    }
    return -1;
  }
  if (checks_enabled() && n != 0) {
    if (n > SIZE_MAX / sizeof(T))
      check_fail(call, "nreduce %zu is too large for %zu-byte elements", n, sizeof(T));
    const size_t bytes = n * sizeof(T);
    check_sym_arg(call, "dest", dest, bytes, alignof(T));
    check_sym_arg(call, "source", source, bytes, alignof(T));
    const auto d = reinterpret_cast<uintptr_t>(dest), c = reinterpret_cast<uintptr_t>(source);
    if (d != c && d < c + bytes && c < d + bytes)
      check_fail(call,
                 "dest %p and source %p overlap by part of their %zu bytes; pass the same address "
                 "(in place) or disjoint buffers",
                 static_cast<void *>(dest), static_cast<const void *>(source), bytes);
  }
  // ERR-06: also with n == 0 (a PE passing 0 while others pass n would leave them waiting). Not
  // for the on-stream forms: the agreement is a team operation run now, on the internal stream,
  // while the caller's stream may still hold device collectives of the same team.
  // On host heaps the reduction's first step carries the arguments' key (team_reduce_checked):
  // no round of its own.
  if (checks_enabled() && stream == nullptr) {
    const std::array<coll::Arg, 3> args{
        {{"nreduce", static_cast<int64_t>(n)},
         {"dest heap offset", n != 0 ? coll::offset_of(dest) : -1},
         {"source heap offset", n != 0 ? coll::offset_of(source) : -1}}};
    uint64_t key = 0;
    if (coll::carried_key(call, team, t, args, path::team_ops_in_kernels(), &key) != nullptr) {
      const int rc =
          xd::team_reduce_checked<xd::reduce_thread_group, Op>(s, t, dest, source, n, key);
      if (rc == 1) coll::args_differ(call, team, args);
      return rc;
    }
  }
  if (path::team_ops_in_kernels()) {
    constexpr int dtype = xd::reduce_dtype_of<T>();
    if (dtype == xd::kDtNone)
      check_fail(call,
                 "this type has no GPU form; long double reductions need a host heap "
                 "(XSHMEM_HEAP=host)");
    if (n == 0) return 0;
    return gpu::reduce(team, Op, dtype, dest, source, n, stream);
  }
  return xd::team_reduce<xd::reduce_thread_group, Op>(s, t, dest, source, n);
}

}  // namespace
}  // namespace xshmem::core

namespace xd = xshmem::dev;

extern "C" {

#define XSHMEMI_HOST_RED(T, N, OP, CODE)                                                \
  int xshmem_##N##_##OP(xshmem_team_t team, T *dest, const T *source, size_t n) {       \
    return xshmem::core::reduce<xd::CODE>("xshmem_" #N "_" #OP, team, dest, source, n); \
  }                                                                                     \
  int xshmemi_h_##N##_##OP(xshmem_team_t, T *, const T *, size_t)                       \
      __attribute__((alias("xshmem_" #N "_" #OP)));
#define XSHMEMI_HOST_RED_BIT(T, N)            \
  XSHMEMI_HOST_RED(T, N, and_reduce, kRedAnd) \
  XSHMEMI_HOST_RED(T, N, or_reduce, kRedOr)   \
  XSHMEMI_HOST_RED(T, N, xor_reduce, kRedXor)
#define XSHMEMI_HOST_RED_ARITH(T, N)            \
  XSHMEMI_HOST_RED(T, N, max_reduce, kRedMax)   \
  XSHMEMI_HOST_RED(T, N, min_reduce, kRedMin)   \
  XSHMEMI_HOST_RED(T, N, sum_reduce, kRedSum)   \
  XSHMEMI_HOST_RED(T, N, prod_reduce, kRedProd) \
  XSHMEMI_HOST_RED(T, N, sum_inscan, kScanIn)   \
  XSHMEMI_HOST_RED(T, N, sum_exscan, kScanEx)
XSHMEM_REDUCE_BITWISE_TYPES(XSHMEMI_HOST_RED_BIT)
XSHMEM_REDUCE_ARITH_TYPES(XSHMEMI_HOST_RED_ARITH)
#undef XSHMEMI_HOST_RED_ARITH
#undef XSHMEMI_HOST_RED_BIT
#undef XSHMEMI_HOST_RED

// The complex types (sum and prod): the path code folds the same arrays as complex_t.
#define XSHMEMI_HOST_RED_CPLX_OP(T, N, OP, CODE)                                            \
  int xshmem_##N##_##OP(xshmem_team_t team, T *dest, const T *source, size_t n) {           \
    return xshmem::core::reduce<xd::CODE>("xshmem_" #N "_" #OP, team, xd::as_complex(dest), \
                                          xd::as_complex(source), n);                       \
  }                                                                                         \
  int xshmemi_h_##N##_##OP(xshmem_team_t, T *, const T *, size_t)                           \
      __attribute__((alias("xshmem_" #N "_" #OP)));
#define XSHMEMI_HOST_RED_CPLX(T, N)                   \
  XSHMEMI_HOST_RED_CPLX_OP(T, N, sum_reduce, kRedSum) \
  XSHMEMI_HOST_RED_CPLX_OP(T, N, prod_reduce, kRedProd)
XSHMEM_REDUCE_COMPLEX_TYPES(XSHMEMI_HOST_RED_CPLX)
#undef XSHMEMI_HOST_RED_CPLX
#undef XSHMEMI_HOST_RED_CPLX_OP

// The on-stream forms (xshmemx.h). Without CUDA, heap_on_device() is false: a checked error.
#define XSHMEMI_STREAM_RED(T, N, OP, CODE)                                                        \
  int xshmemx_##N##_##OP##_on_stream(xshmem_team_t team, T *dest, const T *source, size_t n,      \
                                     struct CUstream_st *stream) {                                \
    return xshmem::core::reduce<xd::CODE>("xshmemx_" #N "_" #OP "_on_stream", team, dest, source, \
                                          n, static_cast<void *>(stream));                        \
  }
#define XSHMEMI_STREAM_RED_BIT(T, N)            \
  XSHMEMI_STREAM_RED(T, N, and_reduce, kRedAnd) \
  XSHMEMI_STREAM_RED(T, N, or_reduce, kRedOr)   \
  XSHMEMI_STREAM_RED(T, N, xor_reduce, kRedXor)
#define XSHMEMI_STREAM_RED_ARITH(T, N)            \
  XSHMEMI_STREAM_RED(T, N, max_reduce, kRedMax)   \
  XSHMEMI_STREAM_RED(T, N, min_reduce, kRedMin)   \
  XSHMEMI_STREAM_RED(T, N, sum_reduce, kRedSum)   \
  XSHMEMI_STREAM_RED(T, N, prod_reduce, kRedProd) \
  XSHMEMI_STREAM_RED(T, N, sum_inscan, kScanIn)   \
  XSHMEMI_STREAM_RED(T, N, sum_exscan, kScanEx)
XSHMEM_REDUCE_BITWISE_TYPES(XSHMEMI_STREAM_RED_BIT)
XSHMEM_REDUCE_ARITH_TYPES_NO_LD(XSHMEMI_STREAM_RED_ARITH)
#undef XSHMEMI_STREAM_RED_ARITH
#undef XSHMEMI_STREAM_RED_BIT
#undef XSHMEMI_STREAM_RED
#define XSHMEMI_STREAM_RED_CPLX_OP(T, N, OP, CODE)                                           \
  int xshmemx_##N##_##OP##_on_stream(xshmem_team_t team, T *dest, const T *source, size_t n, \
                                     struct CUstream_st *stream) {                           \
    return xshmem::core::reduce<xd::CODE>("xshmemx_" #N "_" #OP "_on_stream", team,          \
                                          xd::as_complex(dest), xd::as_complex(source), n,   \
                                          static_cast<void *>(stream));                      \
  }
#define XSHMEMI_STREAM_RED_CPLX(T, N)                   \
  XSHMEMI_STREAM_RED_CPLX_OP(T, N, sum_reduce, kRedSum) \
  XSHMEMI_STREAM_RED_CPLX_OP(T, N, prod_reduce, kRedProd)
XSHMEM_REDUCE_COMPLEX_TYPES(XSHMEMI_STREAM_RED_CPLX)
#undef XSHMEMI_STREAM_RED_CPLX
#undef XSHMEMI_STREAM_RED_CPLX_OP

}  // extern "C"
