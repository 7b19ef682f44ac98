// xshmem host API: RMA (put, get, p, g, iput, iget; typed, sized and mem).
//
// Each entry point validates its arguments (checks.h) and runs the one path function of its
// operation (host_path.h: the dispatcher of <xshmem/device/rma.h>, the same code GPU threads
// run) under XSHMEM_CTX_DEFAULT. The typed functions are generated from
// the X-macro tables of <xshmem/types.h>.
#include <cstddef>
#include <cstdint>

#include <xshmem/device/rma.h>
#include <xshmem/xshmem.h>

#include "checks.h"
#include "host_path.h"
#include "runtime.h"

namespace xshmem::core {
namespace {

// The element of the 128-bit sized interfaces.
struct alignas(16) bits128_t {
  unsigned char b[16];
};

constexpr int32_t kCtxDefault = XSHMEM_CTX_DEFAULT;

// Validates a contiguous transfer: `sym` is the symmetric side, `local` the private buffer
// (not checked when local_arg is NULL: p and g move a value).
template <typename T>
void check_contig_full(const char *call, const char *sym_arg, const void *sym,
                       const char *local_arg, const void *local, size_t nelems, int pe) {
  check_init(call);
  if (!checks_enabled()) return;
  check_pe(call, pe);
  if (nelems > SIZE_MAX / sizeof(T)) {
    check_fail(call, "nelems %zu is too large for %zu-byte elements", nelems, sizeof(T));
  }
  size_t bytes = nelems * sizeof(T);
  check_symmetric(call, sym_arg, sym, bytes);
  if (bytes != 0) check_aligned(call, sym_arg, sym, alignof(T));
  if (local_arg != nullptr) check_buffer(call, local_arg, local, bytes);
}
// The common case of a contiguous access (fast_access_ok: checks off, or a valid one).
template <typename T>
inline bool contig_ok(const void *sym, const void *local, bool local_needed, size_t nelems,
                      int pe) {
  return nelems <= SIZE_MAX / sizeof(T) &&
         fast_access_ok(sym, nelems * sizeof(T), alignof(T), pe, local_needed, local);
}

// Bytes spanned by nelems elements `stride` apart (0 when nelems is 0).
template <typename T>
size_t strided_extent(const char *call, const char *stride_arg, ptrdiff_t stride, size_t nelems) {
  if (nelems == 0) return 0;
  if (stride < 1) check_fail(call, "%s %td must be >= 1", stride_arg, stride);
  size_t span = static_cast<size_t>(stride);
  if (nelems - 1 > (SIZE_MAX / sizeof(T) - 1) / span) {
    check_fail(call, "nelems %zu with %s %td is too large", nelems, stride_arg, stride);
  }
  return ((nelems - 1) * span + 1) * sizeof(T);
}

template <typename T>
void check_strided(const char *call, const char *sym_arg, const void *sym, ptrdiff_t sym_stride,
                   const char *sym_stride_arg, const char *local_arg, const void *local,
                   ptrdiff_t local_stride, const char *local_stride_arg, size_t nelems, int pe) {
  check_init(call);
  if (!checks_enabled()) return;
  check_pe(call, pe);
  size_t sym_bytes = strided_extent<T>(call, sym_stride_arg, sym_stride, nelems);
  size_t local_bytes = strided_extent<T>(call, local_stride_arg, local_stride, nelems);
  check_symmetric(call, sym_arg, sym, sym_bytes);
  if (sym_bytes != 0) check_aligned(call, sym_arg, sym, alignof(T));
  check_buffer(call, local_arg, local, local_bytes);
}

// Each entry: its checks, then the one path function under the default context. The common case
// (contig_ok) tail-calls the path function with nothing saved on the way; anything else goes out
// of line (the *_full forms) to the full checks and their diagnostic, then to the same path.
template <typename T>
[[gnu::noinline, gnu::cold]] void put_full(const char *call, T *dest, const T *source,
                                           size_t nelems, int pe, bool nbi) {
  check_contig_full<T>(call, "dest", dest, "source", source, nelems, pe);
  path::put(kCtxDefault, dest, source, nelems, pe, nbi);
}
template <typename T>
[[gnu::noinline, gnu::cold]] void get_full(const char *call, T *dest, const T *source,
                                           size_t nelems, int pe, bool nbi) {
  check_contig_full<T>(call, "source", source, "dest", dest, nelems, pe);
  path::get(kCtxDefault, dest, source, nelems, pe, nbi);
}
template <typename T>
void put(const char *call, T *dest, const T *source, size_t nelems, int pe) {
  if (!contig_ok<T>(dest, source, true, nelems, pe)) [[unlikely]]
    return put_full(call, dest, source, nelems, pe, false);
  path::put(kCtxDefault, dest, source, nelems, pe, false);
}
template <typename T>
void put_nbi(const char *call, T *dest, const T *source, size_t nelems, int pe) {
  if (!contig_ok<T>(dest, source, true, nelems, pe)) [[unlikely]]
    return put_full(call, dest, source, nelems, pe, true);
  path::put(kCtxDefault, dest, source, nelems, pe, true);
}
template <typename T>
void get(const char *call, T *dest, const T *source, size_t nelems, int pe) {
  if (!contig_ok<T>(source, dest, true, nelems, pe)) [[unlikely]]
    return get_full(call, dest, source, nelems, pe, false);
  path::get(kCtxDefault, dest, source, nelems, pe, false);
}
template <typename T>
void get_nbi(const char *call, T *dest, const T *source, size_t nelems, int pe) {
  if (!contig_ok<T>(source, dest, true, nelems, pe)) [[unlikely]]
    return get_full(call, dest, source, nelems, pe, true);
  path::get(kCtxDefault, dest, source, nelems, pe, true);
}
template <typename T>
[[gnu::noinline, gnu::cold]] void p_full(const char *call, T *dest, T value, int pe) {
  check_contig_full<T>(call, "dest", dest, nullptr, nullptr, 1, pe);
  path::p(kCtxDefault, dest, value, pe);
}
template <typename T>
void p(const char *call, T *dest, T value, int pe) {
  if (!contig_ok<T>(dest, nullptr, false, 1, pe)) [[unlikely]]
    return p_full(call, dest, value, pe);
  path::p(kCtxDefault, dest, value, pe);
}
template <typename T>
[[gnu::noinline, gnu::cold]] T g_full(const char *call, const T *source, int pe) {
  check_contig_full<T>(call, "source", source, nullptr, nullptr, 1, pe);
  return path::g(kCtxDefault, source, pe);
}
template <typename T>
T g(const char *call, const T *source, int pe) {
  if (!contig_ok<T>(source, nullptr, false, 1, pe)) [[unlikely]]
    return g_full(call, source, pe);
  return path::g(kCtxDefault, source, pe);
}
template <typename T>
void iput(const char *call, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
          int pe) {
  check_strided<T>(call, "dest", dest, dst, "dst", "source", source, sst, "sst", nelems, pe);
  path::iput(kCtxDefault, dest, source, dst, sst, nelems, pe);
}
template <typename T>
void iget(const char *call, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
          int pe) {
  check_strided<T>(call, "source", source, sst, "sst", "dest", dest, dst, "dst", nelems, pe);
  path::iget(kCtxDefault, dest, source, dst, sst, nelems, pe);
}

}  // namespace
}  // namespace xshmem::core

namespace xc = xshmem::core;

extern "C" {

#define XSHMEM_DEF_RMA(T, N)                                                                    \
  void xshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe) {                      \
    xc::put<T>("xshmem_" #N "_put", dest, source, nelems, pe);                                  \
  }                                                                                             \
  void xshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe) {                      \
    xc::get<T>("xshmem_" #N "_get", dest, source, nelems, pe);                                  \
  }                                                                                             \
  void xshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe) {                  \
    xc::put_nbi<T>("xshmem_" #N "_put_nbi", dest, source, nelems, pe);                          \
  }                                                                                             \
  void xshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe) {                  \
    xc::get_nbi<T>("xshmem_" #N "_get_nbi", dest, source, nelems, pe);                          \
  }                                                                                             \
  void xshmem_##N##_p(T *dest, T value, int pe) {                                               \
    xc::p<T>("xshmem_" #N "_p", dest, value, pe);                                               \
  }                                                                                             \
  T xshmem_##N##_g(const T *source, int pe) {                                                   \
    return xc::g<T>("xshmem_" #N "_g", source, pe);                                             \
  }                                                                                             \
  void xshmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                         int pe) {                                                              \
    xc::iput<T>("xshmem_" #N "_iput", dest, source, dst, sst, nelems, pe);                      \
  }                                                                                             \
  void xshmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                         int pe) {                                                              \
    xc::iget<T>("xshmem_" #N "_iget", dest, source, dst, sst, nelems, pe);                      \
  }
XSHMEM_RMA_TYPES(XSHMEM_DEF_RMA)
#undef XSHMEM_DEF_RMA

#define XSHMEM_DEF_SIZED(BITS, T)                                                                  \
  void xshmem_put##BITS(void *dest, const void *source, size_t nelems, int pe) {                   \
    xc::put<T>("xshmem_put" #BITS, static_cast<T *>(dest), static_cast<const T *>(source), nelems, \
               pe);                                                                                \
  }                                                                                                \
  void xshmem_get##BITS(void *dest, const void *source, size_t nelems, int pe) {                   \
    xc::get<T>("xshmem_get" #BITS, static_cast<T *>(dest), static_cast<const T *>(source), nelems, \
               pe);                                                                                \
  }                                                                                                \
  void xshmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe) {             \
    xc::put_nbi<T>("xshmem_put" #BITS "_nbi", static_cast<T *>(dest),                              \
                   static_cast<const T *>(source), nelems, pe);                                    \
  }                                                                                                \
  void xshmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe) {             \
    xc::get_nbi<T>("xshmem_get" #BITS "_nbi", static_cast<T *>(dest),                              \
                   static_cast<const T *>(source), nelems, pe);                                    \
  }                                                                                                \
  void xshmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,             \
                         size_t nelems, int pe) {                                                  \
    xc::iput<T>("xshmem_iput" #BITS, static_cast<T *>(dest), static_cast<const T *>(source), dst,  \
                sst, nelems, pe);                                                                  \
  }                                                                                                \
  void xshmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,             \
                         size_t nelems, int pe) {                                                  \
    xc::iget<T>("xshmem_iget" #BITS, static_cast<T *>(dest), static_cast<const T *>(source), dst,  \
                sst, nelems, pe);                                                                  \
  }
XSHMEM_SIZED_TYPES(XSHMEM_DEF_SIZED)
XSHMEM_DEF_SIZED(128, xc::bits128_t)
#undef XSHMEM_DEF_SIZED

void xshmem_putmem(void *dest, const void *source, size_t nbytes, int pe) {
  xc::put<unsigned char>("xshmem_putmem", static_cast<unsigned char *>(dest),
                         static_cast<const unsigned char *>(source), nbytes, pe);
}
void xshmem_getmem(void *dest, const void *source, size_t nbytes, int pe) {
  xc::get<unsigned char>("xshmem_getmem", static_cast<unsigned char *>(dest),
                         static_cast<const unsigned char *>(source), nbytes, pe);
}
void xshmem_putmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  xc::put_nbi<unsigned char>("xshmem_putmem_nbi", static_cast<unsigned char *>(dest),
                             static_cast<const unsigned char *>(source), nbytes, pe);
}
void xshmem_getmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  xc::get_nbi<unsigned char>("xshmem_getmem_nbi", static_cast<unsigned char *>(dest),
                             static_cast<const unsigned char *>(source), nbytes, pe);
}

// Second names of the functions above, for the inline CUDA API's host branches
// (<xshmem/device/cuda_api.h>).
#define XSHMEMI_ALIAS(RET, NAME, PARAMS) \
  RET xshmemi_h_##NAME PARAMS __attribute__((alias("xshmem_" #NAME)));
#define XSHMEM_ALIAS_RMA(T, N)                                                       \
  XSHMEMI_ALIAS(void, N##_put, (T *, const T *, size_t, int))                        \
  XSHMEMI_ALIAS(void, N##_get, (T *, const T *, size_t, int))                        \
  XSHMEMI_ALIAS(void, N##_put_nbi, (T *, const T *, size_t, int))                    \
  XSHMEMI_ALIAS(void, N##_get_nbi, (T *, const T *, size_t, int))                    \
  XSHMEMI_ALIAS(void, N##_p, (T *, T, int))                                          \
  XSHMEMI_ALIAS(T, N##_g, (const T *, int))                                          \
  XSHMEMI_ALIAS(void, N##_iput, (T *, const T *, ptrdiff_t, ptrdiff_t, size_t, int)) \
  XSHMEMI_ALIAS(void, N##_iget, (T *, const T *, ptrdiff_t, ptrdiff_t, size_t, int))
XSHMEM_RMA_TYPES_NO_LD(XSHMEM_ALIAS_RMA)
#undef XSHMEM_ALIAS_RMA
#define XSHMEM_ALIAS_SIZED(BITS, T)                                                          \
  XSHMEMI_ALIAS(void, put##BITS, (void *, const void *, size_t, int))                        \
  XSHMEMI_ALIAS(void, get##BITS, (void *, const void *, size_t, int))                        \
  XSHMEMI_ALIAS(void, put##BITS##_nbi, (void *, const void *, size_t, int))                  \
  XSHMEMI_ALIAS(void, get##BITS##_nbi, (void *, const void *, size_t, int))                  \
  XSHMEMI_ALIAS(void, iput##BITS, (void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int)) \
  XSHMEMI_ALIAS(void, iget##BITS, (void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int))
XSHMEM_SIZED_TYPES(XSHMEM_ALIAS_SIZED)
XSHMEM_ALIAS_SIZED(128, void)
#undef XSHMEM_ALIAS_SIZED
XSHMEMI_ALIAS(void, putmem, (void *, const void *, size_t, int))
XSHMEMI_ALIAS(void, getmem, (void *, const void *, size_t, int))
XSHMEMI_ALIAS(void, putmem_nbi, (void *, const void *, size_t, int))
XSHMEMI_ALIAS(void, getmem_nbi, (void *, const void *, size_t, int))
#undef XSHMEMI_ALIAS

}  // extern "C"
