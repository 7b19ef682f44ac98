/*
 * nvshmem.h: the NVSHMEM host and device API under NVSHMEM's names, on xshmem (issue 14 item 9,
 * first part). Include it as <nvshmem.h> with -I<prefix>/include; compile with plain nvcc (no
 * -rdc: xshmem's device API is header-only) and link libxshmem. <nvshmemx.h> adds the nvshmemx_
 * names (warp and block forms, on-stream calls, collective launch, init with a unique id).
 *
 * Every nvshmem_X here is a static inline function that calls xshmem_X of <xshmem/xshmem.h>
 * (which documents it) with the same arguments: inlined, no extra call. Under nvcc the data-path
 * forwards are __host__ __device__ (xshmem's own are), setup and memory are host-only as in
 * NVSHMEM. Types and constants are xshmem's: handles pass between the two APIs unchanged.
 *
 * Only what xshmem provides is mapped. The notable NVSHMEM calls xshmem lacks are declared (C++)
 * so that a call does not compile and says why; docs/compat.md, "NVSHMEM programs", lists them.
 * Nothing is a silent no-op.
 */
#ifndef XSHMEM_COMPAT_NVSHMEM_H
#define XSHMEM_COMPAT_NVSHMEM_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/xshmem.h>

/* NVSHMEMI_HD: a forward of a data-path routine (host and device under nvcc); NVSHMEMI_H: a
 * host-only routine. */
#ifdef XSHMEM_DEVICE_API
#define NVSHMEMI_HD static __host__ __device__ __forceinline__
#define NVSHMEMI_D static __device__ __forceinline__
#else
#define NVSHMEMI_HD static inline
#endif
#define NVSHMEMI_H static inline

/* ---- Types and constants -------------------------------------------------------------------- */

typedef xshmem_team_t nvshmem_team_t;
typedef xshmem_team_config_t nvshmem_team_config_t;

/* The OpenSHMEM version followed (NVSHMEM's NVSHMEM_MAJOR/MINOR_VERSION have that meaning too).
 * NVSHMEM_VENDOR_MAJOR_VERSION & co. are not defined: xshmem is not an NVSHMEM release. */
#define NVSHMEM_MAJOR_VERSION XSHMEM_MAJOR_VERSION
#define NVSHMEM_MINOR_VERSION XSHMEM_MINOR_VERSION
#define NVSHMEM_MAX_NAME_LEN XSHMEM_MAX_NAME_LEN
#define NVSHMEM_VENDOR_STRING XSHMEM_VENDOR_STRING

#define NVSHMEM_THREAD_SINGLE XSHMEM_THREAD_SINGLE
#define NVSHMEM_THREAD_FUNNELED XSHMEM_THREAD_FUNNELED
#define NVSHMEM_THREAD_SERIALIZED XSHMEM_THREAD_SERIALIZED
#define NVSHMEM_THREAD_MULTIPLE XSHMEM_THREAD_MULTIPLE

#define NVSHMEM_TEAM_WORLD XSHMEM_TEAM_WORLD
#define NVSHMEM_TEAM_SHARED XSHMEM_TEAM_SHARED
#define NVSHMEM_TEAM_INVALID XSHMEM_TEAM_INVALID
#define NVSHMEMX_TEAM_NODE XSHMEMX_TEAM_NODE

#define NVSHMEM_CMP_EQ XSHMEM_CMP_EQ
#define NVSHMEM_CMP_NE XSHMEM_CMP_NE
#define NVSHMEM_CMP_GT XSHMEM_CMP_GT
#define NVSHMEM_CMP_GE XSHMEM_CMP_GE
#define NVSHMEM_CMP_LT XSHMEM_CMP_LT
#define NVSHMEM_CMP_LE XSHMEM_CMP_LE

#define NVSHMEM_SIGNAL_SET XSHMEM_SIGNAL_SET
#define NVSHMEM_SIGNAL_ADD XSHMEM_SIGNAL_ADD

/* ---- Setup, query, memory (host) ------------------------------------------------------------ */

NVSHMEMI_H void nvshmem_init(void) {
  xshmem_init();
}
NVSHMEMI_H int nvshmem_init_thread(int requested, int *provided) {
  return xshmem_init_thread(requested, provided);
}
NVSHMEMI_H void nvshmem_query_thread(int *provided) {
  xshmem_query_thread(provided);
}
NVSHMEMI_H void nvshmem_finalize(void) {
  xshmem_finalize();
}
NVSHMEMI_H void nvshmem_info_get_version(int *major, int *minor) {
  xshmem_info_get_version(major, minor);
}
NVSHMEMI_H void nvshmem_info_get_name(char *name) {
  xshmem_info_get_name(name);
}
NVSHMEMI_H void nvshmem_global_exit(int status) {
  xshmem_global_exit(status);
}

NVSHMEMI_H void *nvshmem_malloc(size_t size) {
  return xshmem_malloc(size);
}
NVSHMEMI_H void *nvshmem_calloc(size_t count, size_t size) {
  return xshmem_calloc(count, size);
}
NVSHMEMI_H void *nvshmem_align(size_t alignment, size_t size) {
  return xshmem_align(alignment, size);
}
NVSHMEMI_H void nvshmem_free(void *ptr) {
  xshmem_free(ptr);
}

NVSHMEMI_H int nvshmem_team_split_strided(nvshmem_team_t parent, int start, int stride, int size,
                                          const nvshmem_team_config_t *config, long config_mask,
                                          nvshmem_team_t *new_team) {
  return xshmem_team_split_strided(parent, start, stride, size, config, config_mask, new_team);
}
NVSHMEMI_H int nvshmem_team_split_2d(nvshmem_team_t parent, int xrange,
                                     const nvshmem_team_config_t *xaxis_config, long xaxis_mask,
                                     nvshmem_team_t *xaxis_team,
                                     const nvshmem_team_config_t *yaxis_config, long yaxis_mask,
                                     nvshmem_team_t *yaxis_team) {
  return xshmem_team_split_2d(parent, xrange, xaxis_config, xaxis_mask, xaxis_team, yaxis_config,
                              yaxis_mask, yaxis_team);
}
NVSHMEMI_H void nvshmem_team_destroy(nvshmem_team_t team) {
  xshmem_team_destroy(team);
}
NVSHMEMI_H int nvshmem_team_get_config(nvshmem_team_t team, long config_mask,
                                       nvshmem_team_config_t *config) {
  return xshmem_team_get_config(team, config_mask, config);
}

/* ---- Query, ordering, synchronisation (host and device) ------------------------------------- */

NVSHMEMI_HD int nvshmem_my_pe(void) {
  return xshmem_my_pe();
}
NVSHMEMI_HD int nvshmem_n_pes(void) {
  return xshmem_n_pes();
}
NVSHMEMI_HD int nvshmem_team_my_pe(nvshmem_team_t team) {
  return xshmem_team_my_pe(team);
}
NVSHMEMI_HD int nvshmem_team_n_pes(nvshmem_team_t team) {
  return xshmem_team_n_pes(team);
}
NVSHMEMI_HD int nvshmem_team_translate_pe(nvshmem_team_t src_team, int src_pe,
                                          nvshmem_team_t dest_team) {
  return xshmem_team_translate_pe(src_team, src_pe, dest_team);
}
NVSHMEMI_HD void *nvshmem_ptr(const void *dest, int pe) {
  return xshmem_ptr(dest, pe);
}
NVSHMEMI_HD void nvshmem_quiet(void) {
  xshmem_quiet();
}
NVSHMEMI_HD void nvshmem_fence(void) {
  xshmem_fence();
}
NVSHMEMI_HD void nvshmem_barrier_all(void) {
  xshmem_barrier_all();
}
NVSHMEMI_HD void nvshmem_sync_all(void) {
  xshmem_sync_all();
}
NVSHMEMI_HD int nvshmem_team_sync(nvshmem_team_t team) {
  return xshmem_team_sync(team);
}

/* ---- RMA ------------------------------------------------------------------------------------ */

#define NVSHMEMI_RMA(T, N)                                                                       \
  NVSHMEMI_HD void nvshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe) {          \
    xshmem_##N##_put(dest, source, nelems, pe);                                                  \
  }                                                                                              \
  NVSHMEMI_HD void nvshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe) {          \
    xshmem_##N##_get(dest, source, nelems, pe);                                                  \
  }                                                                                              \
  NVSHMEMI_HD void nvshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe) {      \
    xshmem_##N##_put_nbi(dest, source, nelems, pe);                                              \
  }                                                                                              \
  NVSHMEMI_HD void nvshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe) {      \
    xshmem_##N##_get_nbi(dest, source, nelems, pe);                                              \
  }                                                                                              \
  NVSHMEMI_HD void nvshmem_##N##_p(T *dest, T value, int pe) {                                   \
    xshmem_##N##_p(dest, value, pe);                                                             \
  }                                                                                              \
  NVSHMEMI_HD T nvshmem_##N##_g(const T *source, int pe) {                                       \
    return xshmem_##N##_g(source, pe);                                                           \
  }                                                                                              \
  NVSHMEMI_HD void nvshmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                                      size_t nelems, int pe) {                                   \
    xshmem_##N##_iput(dest, source, dst, sst, nelems, pe);                                       \
  }                                                                                              \
  NVSHMEMI_HD void nvshmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                                      size_t nelems, int pe) {                                   \
    xshmem_##N##_iget(dest, source, dst, sst, nelems, pe);                                       \
  }                                                                                              \
  NVSHMEMI_HD void nvshmem_##N##_put_signal(T *dest, const T *source, size_t nelems,             \
                                            uint64_t *sig_addr, uint64_t signal, int sig_op,     \
                                            int pe) {                                            \
    xshmem_##N##_put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe);                 \
  }                                                                                              \
  NVSHMEMI_HD void nvshmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,         \
                                                uint64_t *sig_addr, uint64_t signal, int sig_op, \
                                                int pe) {                                        \
    xshmem_##N##_put_signal_nbi(dest, source, nelems, sig_addr, signal, sig_op, pe);             \
  }
XSHMEM_RMA_TYPES_NO_LD(NVSHMEMI_RMA)
#undef NVSHMEMI_RMA

#define NVSHMEMI_SIZED(BITS, T)                                                               \
  NVSHMEMI_HD void nvshmem_put##BITS(void *dest, const void *source, size_t nelems, int pe) { \
    xshmem_put##BITS(dest, source, nelems, pe);                                               \
  }                                                                                           \
  NVSHMEMI_HD void nvshmem_get##BITS(void *dest, const void *source, size_t nelems, int pe) { \
    xshmem_get##BITS(dest, source, nelems, pe);                                               \
  }                                                                                           \
  NVSHMEMI_HD void nvshmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems,     \
                                           int pe) {                                          \
    xshmem_put##BITS##_nbi(dest, source, nelems, pe);                                         \
  }                                                                                           \
  NVSHMEMI_HD void nvshmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems,     \
                                           int pe) {                                          \
    xshmem_get##BITS##_nbi(dest, source, nelems, pe);                                         \
  }
XSHMEM_SIZED_TYPES(NVSHMEMI_SIZED)
NVSHMEMI_SIZED(128, void)
#undef NVSHMEMI_SIZED

NVSHMEMI_HD void nvshmem_putmem(void *dest, const void *source, size_t nbytes, int pe) {
  xshmem_putmem(dest, source, nbytes, pe);
}
NVSHMEMI_HD void nvshmem_getmem(void *dest, const void *source, size_t nbytes, int pe) {
  xshmem_getmem(dest, source, nbytes, pe);
}
NVSHMEMI_HD void nvshmem_putmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  xshmem_putmem_nbi(dest, source, nbytes, pe);
}
NVSHMEMI_HD void nvshmem_getmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  xshmem_getmem_nbi(dest, source, nbytes, pe);
}

/* ---- Signals -------------------------------------------------------------------------------- */

NVSHMEMI_HD void nvshmem_putmem_signal(void *dest, const void *source, size_t nbytes,
                                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  xshmem_putmem_signal(dest, source, nbytes, sig_addr, signal, sig_op, pe);
}
NVSHMEMI_HD void nvshmem_putmem_signal_nbi(void *dest, const void *source, size_t nbytes,
                                           uint64_t *sig_addr, uint64_t signal, int sig_op,
                                           int pe) {
  xshmem_putmem_signal_nbi(dest, source, nbytes, sig_addr, signal, sig_op, pe);
}
NVSHMEMI_HD uint64_t nvshmem_signal_fetch(uint64_t *sig_addr) {
  return xshmem_signal_fetch(sig_addr);
}
NVSHMEMI_HD uint64_t nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
  return xshmem_signal_wait_until(sig_addr, cmp, cmp_value);
}

/* ---- Atomics -------------------------------------------------------------------------------- */

#define NVSHMEMI_AMO_EXT(T, N)                                          \
  NVSHMEMI_HD T nvshmem_##N##_atomic_fetch(const T *source, int pe) {   \
    return xshmem_##N##_atomic_fetch(source, pe);                       \
  }                                                                     \
  NVSHMEMI_HD void nvshmem_##N##_atomic_set(T *dest, T value, int pe) { \
    xshmem_##N##_atomic_set(dest, value, pe);                           \
  }                                                                     \
  NVSHMEMI_HD T nvshmem_##N##_atomic_swap(T *dest, T value, int pe) {   \
    return xshmem_##N##_atomic_swap(dest, value, pe);                   \
  }
XSHMEM_AMO_EXTENDED_TYPES(NVSHMEMI_AMO_EXT)
#undef NVSHMEMI_AMO_EXT

#define NVSHMEMI_AMO_STD(T, N)                                                        \
  NVSHMEMI_HD T nvshmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe) { \
    return xshmem_##N##_atomic_compare_swap(dest, cond, value, pe);                   \
  }                                                                                   \
  NVSHMEMI_HD T nvshmem_##N##_atomic_fetch_inc(T *dest, int pe) {                     \
    return xshmem_##N##_atomic_fetch_inc(dest, pe);                                   \
  }                                                                                   \
  NVSHMEMI_HD void nvshmem_##N##_atomic_inc(T *dest, int pe) {                        \
    xshmem_##N##_atomic_inc(dest, pe);                                                \
  }                                                                                   \
  NVSHMEMI_HD T nvshmem_##N##_atomic_fetch_add(T *dest, T value, int pe) {            \
    return xshmem_##N##_atomic_fetch_add(dest, value, pe);                            \
  }                                                                                   \
  NVSHMEMI_HD void nvshmem_##N##_atomic_add(T *dest, T value, int pe) {               \
    xshmem_##N##_atomic_add(dest, value, pe);                                         \
  }
XSHMEM_AMO_STANDARD_TYPES(NVSHMEMI_AMO_STD)
#undef NVSHMEMI_AMO_STD

#define NVSHMEMI_AMO_BIT_OP(T, N, OP)                                       \
  NVSHMEMI_HD T nvshmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe) { \
    return xshmem_##N##_atomic_fetch_##OP(dest, value, pe);                 \
  }                                                                         \
  NVSHMEMI_HD void nvshmem_##N##_atomic_##OP(T *dest, T value, int pe) {    \
    xshmem_##N##_atomic_##OP(dest, value, pe);                              \
  }
#define NVSHMEMI_AMO_BIT(T, N)   \
  NVSHMEMI_AMO_BIT_OP(T, N, and) \
  NVSHMEMI_AMO_BIT_OP(T, N, or)  \
  NVSHMEMI_AMO_BIT_OP(T, N, xor)
XSHMEM_AMO_BITWISE_TYPES(NVSHMEMI_AMO_BIT)
#undef NVSHMEMI_AMO_BIT
#undef NVSHMEMI_AMO_BIT_OP

/* ---- Point-to-point synchronisation --------------------------------------------------------- */

#define NVSHMEMI_P2P(T, N)                                                                         \
  NVSHMEMI_HD void nvshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value) {                       \
    xshmem_##N##_wait_until(ivar, cmp, cmp_value);                                                 \
  }                                                                                                \
  NVSHMEMI_HD void nvshmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status,        \
                                                int cmp, T cmp_value) {                            \
    xshmem_##N##_wait_until_all(ivars, nelems, status, cmp, cmp_value);                            \
  }                                                                                                \
  NVSHMEMI_HD size_t nvshmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status,      \
                                                  int cmp, T cmp_value) {                          \
    return xshmem_##N##_wait_until_any(ivars, nelems, status, cmp, cmp_value);                     \
  }                                                                                                \
  NVSHMEMI_HD size_t nvshmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,       \
                                                   const int *status, int cmp, T cmp_value) {      \
    return xshmem_##N##_wait_until_some(ivars, nelems, indices, status, cmp, cmp_value);           \
  }                                                                                                \
  NVSHMEMI_HD void nvshmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, \
                                                       int cmp, T *cmp_values) {                   \
    xshmem_##N##_wait_until_all_vector(ivars, nelems, status, cmp, cmp_values);                    \
  }                                                                                                \
  NVSHMEMI_HD size_t nvshmem_##N##_wait_until_any_vector(                                          \
      T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values) {                        \
    return xshmem_##N##_wait_until_any_vector(ivars, nelems, status, cmp, cmp_values);             \
  }                                                                                                \
  NVSHMEMI_HD size_t nvshmem_##N##_wait_until_some_vector(                                         \
      T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T *cmp_values) {       \
    return xshmem_##N##_wait_until_some_vector(ivars, nelems, indices, status, cmp, cmp_values);   \
  }                                                                                                \
  NVSHMEMI_HD int nvshmem_##N##_test(T *ivar, int cmp, T cmp_value) {                              \
    return xshmem_##N##_test(ivar, cmp, cmp_value);                                                \
  }                                                                                                \
  NVSHMEMI_HD int nvshmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,      \
                                         T cmp_value) {                                            \
    return xshmem_##N##_test_all(ivars, nelems, status, cmp, cmp_value);                           \
  }                                                                                                \
  NVSHMEMI_HD size_t nvshmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,   \
                                            T cmp_value) {                                         \
    return xshmem_##N##_test_any(ivars, nelems, status, cmp, cmp_value);                           \
  }                                                                                                \
  NVSHMEMI_HD size_t nvshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,             \
                                             const int *status, int cmp, T cmp_value) {            \
    return xshmem_##N##_test_some(ivars, nelems, indices, status, cmp, cmp_value);                 \
  }
XSHMEM_P2P_TYPES(NVSHMEMI_P2P)
#undef NVSHMEMI_P2P

/* ---- half and bfloat16 (nvcc) ---------------------------------------------------------------
 * NVSHMEM's 16-bit floating types (cuda_fp16.h's half, cuda_bf16.h's __nv_bfloat16): moved as
 * their 16 bits (xshmem's uint16 routines): RMA, put_signal, the data-movement collectives. Their
 * reductions are not provided (below: a call does not compile). */
#ifdef XSHMEM_DEVICE_API
#include <cuda_bf16.h>
#include <cuda_fp16.h>

/* The 16 bits of a value, and back (through the types' raw forms, host and device). */
NVSHMEMI_HD uint16_t nvshmemi_bits16(half v) {
  const __half_raw r = v;
  return r.x;
}
NVSHMEMI_HD uint16_t nvshmemi_bits16(__nv_bfloat16 v) {
  const __nv_bfloat16_raw r = v;
  return r.x;
}
NVSHMEMI_HD half nvshmemi_half_from_bits(uint16_t u) {
  __half_raw r;
  r.x = u;
  return half(r);
}
NVSHMEMI_HD __nv_bfloat16 nvshmemi_bfloat16_from_bits(uint16_t u) {
  __nv_bfloat16_raw r;
  r.x = u;
  return __nv_bfloat16(r);
}

#define NVSHMEMI_U16(p) reinterpret_cast<uint16_t *>(p)
#define NVSHMEMI_CU16(p) reinterpret_cast<const uint16_t *>(p)
#define NVSHMEMI_RMA16(T, N)                                                                      \
  static_assert(sizeof(T) == 2, #T " is 16 bits");                                                \
  NVSHMEMI_HD void nvshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe) {           \
    xshmem_uint16_put(NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), nelems, pe);                     \
  }                                                                                               \
  NVSHMEMI_HD void nvshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe) {           \
    xshmem_uint16_get(NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), nelems, pe);                     \
  }                                                                                               \
  NVSHMEMI_HD void nvshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe) {       \
    xshmem_uint16_put_nbi(NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), nelems, pe);                 \
  }                                                                                               \
  NVSHMEMI_HD void nvshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe) {       \
    xshmem_uint16_get_nbi(NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), nelems, pe);                 \
  }                                                                                               \
  NVSHMEMI_HD void nvshmem_##N##_p(T *dest, T value, int pe) {                                    \
    xshmem_uint16_p(NVSHMEMI_U16(dest), nvshmemi_bits16(value), pe);                              \
  }                                                                                               \
  NVSHMEMI_HD T nvshmem_##N##_g(const T *source, int pe) {                                        \
    return nvshmemi_##N##_from_bits(xshmem_uint16_g(NVSHMEMI_CU16(source), pe));                  \
  }                                                                                               \
  NVSHMEMI_HD void nvshmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,     \
                                      size_t nelems, int pe) {                                    \
    xshmem_uint16_iput(NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), dst, sst, nelems, pe);          \
  }                                                                                               \
  NVSHMEMI_HD void nvshmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,     \
                                      size_t nelems, int pe) {                                    \
    xshmem_uint16_iget(NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), dst, sst, nelems, pe);          \
  }                                                                                               \
  NVSHMEMI_HD void nvshmem_##N##_put_signal(T *dest, const T *source, size_t nelems,              \
                                            uint64_t *sig_addr, uint64_t signal, int sig_op,      \
                                            int pe) {                                             \
    xshmem_uint16_put_signal(NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), nelems, sig_addr, signal, \
                             sig_op, pe);                                                         \
  }                                                                                               \
  NVSHMEMI_HD void nvshmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,          \
                                                uint64_t *sig_addr, uint64_t signal, int sig_op,  \
                                                int pe) {                                         \
    xshmem_uint16_put_signal_nbi(NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), nelems, sig_addr,     \
                                 signal, sig_op, pe);                                             \
  }                                                                                               \
  NVSHMEMI_HD int nvshmem_##N##_broadcast(nvshmem_team_t team, T *dest, const T *source,          \
                                          size_t nelems, int PE_root) {                           \
    return xshmem_uint16_broadcast(team, NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), nelems,       \
                                   PE_root);                                                      \
  }                                                                                               \
  NVSHMEMI_HD int nvshmem_##N##_fcollect(nvshmem_team_t team, T *dest, const T *source,           \
                                         size_t nelems) {                                         \
    return xshmem_uint16_fcollect(team, NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), nelems);       \
  }                                                                                               \
  NVSHMEMI_HD int nvshmem_##N##_alltoall(nvshmem_team_t team, T *dest, const T *source,           \
                                         size_t nelems) {                                         \
    return xshmem_uint16_alltoall(team, NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), nelems);       \
  }
NVSHMEMI_RMA16(half, half)
NVSHMEMI_RMA16(__nv_bfloat16, bfloat16)
#undef NVSHMEMI_RMA16
#endif /* XSHMEM_DEVICE_API */

/* ---- Team collectives ----------------------------------------------------------------------- */

#define NVSHMEMI_COLL(T, N)                                                              \
  NVSHMEMI_HD int nvshmem_##N##_broadcast(nvshmem_team_t team, T *dest, const T *source, \
                                          size_t nelems, int PE_root) {                  \
    return xshmem_##N##_broadcast(team, dest, source, nelems, PE_root);                  \
  }                                                                                      \
  NVSHMEMI_HD int nvshmem_##N##_fcollect(nvshmem_team_t team, T *dest, const T *source,  \
                                         size_t nelems) {                                \
    return xshmem_##N##_fcollect(team, dest, source, nelems);                            \
  }                                                                                      \
  NVSHMEMI_HD int nvshmem_##N##_alltoall(nvshmem_team_t team, T *dest, const T *source,  \
                                         size_t nelems) {                                \
    return xshmem_##N##_alltoall(team, dest, source, nelems);                            \
  }
XSHMEM_RMA_TYPES_NO_LD(NVSHMEMI_COLL)
#undef NVSHMEMI_COLL
NVSHMEMI_HD int nvshmem_broadcastmem(nvshmem_team_t team, void *dest, const void *source,
                                     size_t nelems, int PE_root) {
  return xshmem_broadcastmem(team, dest, source, nelems, PE_root);
}
NVSHMEMI_HD int nvshmem_fcollectmem(nvshmem_team_t team, void *dest, const void *source,
                                    size_t nelems) {
  return xshmem_fcollectmem(team, dest, source, nelems);
}
NVSHMEMI_HD int nvshmem_alltoallmem(nvshmem_team_t team, void *dest, const void *source,
                                    size_t nelems) {
  return xshmem_alltoallmem(team, dest, source, nelems);
}

#define NVSHMEMI_RED(T, N, OP)                                                               \
  NVSHMEMI_HD int nvshmem_##N##_##OP##_reduce(nvshmem_team_t team, T *dest, const T *source, \
                                              size_t nreduce) {                              \
    return xshmem_##N##_##OP##_reduce(team, dest, source, nreduce);                          \
  }
#define NVSHMEMI_RED_BIT(T, N) \
  NVSHMEMI_RED(T, N, and) NVSHMEMI_RED(T, N, or) NVSHMEMI_RED(T, N, xor)
#define NVSHMEMI_RED_ARITH(T, N) \
  NVSHMEMI_RED(T, N, max) NVSHMEMI_RED(T, N, min) NVSHMEMI_RED(T, N, sum) NVSHMEMI_RED(T, N, prod)
XSHMEM_REDUCE_BITWISE_TYPES(NVSHMEMI_RED_BIT)
XSHMEM_REDUCE_ARITH_TYPES_NO_LD(NVSHMEMI_RED_ARITH)
#undef NVSHMEMI_RED_ARITH
#undef NVSHMEMI_RED_BIT
#undef NVSHMEMI_RED

/* ---- NVSHMEM calls xshmem does not provide -------------------------------------------------
 * C++: each is a template whose instantiation (a call) fails with a static_assert naming the
 * call. (C: they are not declared; a call is an implicit declaration, an error in C99 and later
 * with -Werror or gcc 14.) docs/compat.md, "NVSHMEM programs", lists them. */
#ifdef __cplusplus
template <typename... A>
struct nvshmemi_not_provided {
  static const bool value = false;
};
#ifdef XSHMEM_DEVICE_API
#define NVSHMEMI_MISSING_ATTR __host__ __device__ inline
#else
#define NVSHMEMI_MISSING_ATTR inline
#endif
#define NVSHMEMI_MISSING(name, why)                                                                \
  template <typename... A>                                                                         \
  NVSHMEMI_MISSING_ATTR int name(A...) {                                                           \
    static_assert(nvshmemi_not_provided<A...>::value,                                              \
                  #name " is not provided by xshmem: " why " (docs/compat.md, NVSHMEM programs)"); \
    return 0;                                                                                      \
  }
NVSHMEMI_MISSING(nvshmem_barrier, "no team barrier; use nvshmem_quiet + nvshmem_team_sync")
#ifdef XSHMEM_DEVICE_API
#define NVSHMEMI_MISSING16(N)                                                           \
  NVSHMEMI_MISSING(nvshmem_##N##_sum_reduce, "no reductions on 16-bit floating types")  \
  NVSHMEMI_MISSING(nvshmem_##N##_prod_reduce, "no reductions on 16-bit floating types") \
  NVSHMEMI_MISSING(nvshmem_##N##_min_reduce, "no reductions on 16-bit floating types")  \
  NVSHMEMI_MISSING(nvshmem_##N##_max_reduce, "no reductions on 16-bit floating types")
NVSHMEMI_MISSING16(half)
NVSHMEMI_MISSING16(bfloat16)
#undef NVSHMEMI_MISSING16
#endif
#endif /* __cplusplus */

#endif /* XSHMEM_COMPAT_NVSHMEM_H */
