/*
 * The deprecated routines of <shmem.h> (OpenSHMEM 1.5 section "Deprecated API" and the older
 * names real programs still call), as one X-macro list beside <xshmem/compat_api.h>.
 *
 * Unlike that list, an entry names the whole symbol (`sym`): most are shmem_<...>, but _my_pe,
 * _num_pes, shmalloc, shfree, shrealloc, shmemalign and start_pes are not. The profiling name is
 * always p<sym> (pshmem_int_fadd, p_my_pe, pshmalloc, pstart_pes), as in other implementations.
 *
 *   XSHMEMI_DEP_A(ret, sym, params, target)  sym and p<sym> are linker aliases of
 *                                            xshmem_<target> (same prototype; compat.cc checks)
 *   XSHMEMI_DEP_R(ret, sym, params)          a real function p<sym> (core/src/compat/
 *                                            deprecated.cc, active_set.cc); sym is its alias
 *
 * Every entry is declared __attribute__((deprecated)) by shmem.h: OpenSHMEM 1.5 deprecates all of
 * them (the active-set collectives and shmem_sync with a pSync since 1.5, the un-prefixed
 * atomics since 1.4, shmem_wait and the cache routines since 1.3, start_pes, shmalloc and
 * _my_pe since 1.2). The includer defines both macros and includes this file; it has no include
 * guard and undefines nothing.
 */

#include <xshmem/types.h>

/* ---- Setup, query, memory (OpenSHMEM 1.2 names) --------------------------------------------- */
XSHMEMI_DEP_R(void, start_pes, (int npes))
XSHMEMI_DEP_A(int, _my_pe, (void), my_pe)
XSHMEMI_DEP_A(int, _num_pes, (void), n_pes)
XSHMEMI_DEP_A(void *, shmalloc, (size_t size), malloc)
XSHMEMI_DEP_A(void, shfree, (void *ptr), free)
XSHMEMI_DEP_A(void *, shrealloc, (void *ptr, size_t size), realloc)
XSHMEMI_DEP_A(void *, shmemalign, (size_t alignment, size_t size), align)

/* ---- Atomics without the atomic_ prefix (OpenSHMEM 1.3 names) -------------------------------
 * Standard AMO: cswap, finc, inc, fadd, add for int, long, long long. Extended: fetch, set, swap
 * for those and float, double. The untyped shmem_swap is the long one. */
#define XSHMEMI_DEP_AMO_STD(T, N)                                                       \
  XSHMEMI_DEP_A(T, shmem_##N##_cswap, (T * dest, T cond, T value, int pe),              \
                N##_atomic_compare_swap)                                                \
  XSHMEMI_DEP_A(T, shmem_##N##_finc, (T * dest, int pe), N##_atomic_fetch_inc)          \
  XSHMEMI_DEP_A(void, shmem_##N##_inc, (T * dest, int pe), N##_atomic_inc)              \
  XSHMEMI_DEP_A(T, shmem_##N##_fadd, (T * dest, T value, int pe), N##_atomic_fetch_add) \
  XSHMEMI_DEP_A(void, shmem_##N##_add, (T * dest, T value, int pe), N##_atomic_add)
#define XSHMEMI_DEP_AMO_EXT(T, N)                                                   \
  XSHMEMI_DEP_A(T, shmem_##N##_fetch, (const T *source, int pe), N##_atomic_fetch)  \
  XSHMEMI_DEP_A(void, shmem_##N##_set, (T * dest, T value, int pe), N##_atomic_set) \
  XSHMEMI_DEP_A(T, shmem_##N##_swap, (T * dest, T value, int pe), N##_atomic_swap)
#define XSHMEMI_DEP_STD_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define XSHMEMI_DEP_EXT_TYPES(X) XSHMEMI_DEP_STD_TYPES(X) X(float, float) X(double, double)
XSHMEMI_DEP_STD_TYPES(XSHMEMI_DEP_AMO_STD)
XSHMEMI_DEP_EXT_TYPES(XSHMEMI_DEP_AMO_EXT)
#undef XSHMEMI_DEP_AMO_EXT
#undef XSHMEMI_DEP_AMO_STD
XSHMEMI_DEP_A(long, shmem_swap, (long *dest, long value, int pe), long_atomic_swap)

/* ---- Point-to-point: wait while *ivar == cmp_value (OpenSHMEM 1.2) --------------------------- */
XSHMEMI_DEP_R(void, shmem_wait, (long *ivar, long cmp_value))
#define XSHMEMI_DEP_WAIT(T, N) XSHMEMI_DEP_R(void, shmem_##N##_wait, (T * ivar, T cmp_value))
XSHMEMI_DEP_WAIT(short, short)
XSHMEMI_DEP_WAIT(int, int)
XSHMEMI_DEP_WAIT(long, long)
XSHMEMI_DEP_WAIT(long long, longlong)
#undef XSHMEMI_DEP_WAIT

/* ---- Cache management: no-ops (the specification allows it; xshmem keeps no cache) ---------- */
XSHMEMI_DEP_R(void, shmem_set_cache_inv, (void))
XSHMEMI_DEP_R(void, shmem_set_cache_line_inv, (void *dest))
XSHMEMI_DEP_R(void, shmem_clear_cache_inv, (void))
XSHMEMI_DEP_R(void, shmem_clear_cache_line_inv, (void *dest))
XSHMEMI_DEP_R(void, shmem_udcflush, (void))
XSHMEMI_DEP_R(void, shmem_udcflush_line, (void *dest))

/* ---- Active-set collectives (pSync, pWrk): core/src/compat/active_set.cc --------------------
 * The active set is the world PEs PE_start + i * 2^logPE_stride, 0 <= i < PE_size. */
XSHMEMI_DEP_R(void, shmem_barrier, (int PE_start, int logPE_stride, int PE_size, long *pSync))
XSHMEMI_DEP_R(void, shmem_sync, (int PE_start, int logPE_stride, int PE_size, long *pSync))
#define XSHMEMI_DEP_MOVE(BITS)                                                                  \
  XSHMEMI_DEP_R(void, shmem_broadcast##BITS,                                                    \
                (void *dest, const void *source, size_t nelems, int PE_root, int PE_start,      \
                 int logPE_stride, int PE_size, long *pSync))                                   \
  XSHMEMI_DEP_R(void, shmem_collect##BITS,                                                      \
                (void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                 int PE_size, long *pSync))                                                     \
  XSHMEMI_DEP_R(void, shmem_fcollect##BITS,                                                     \
                (void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                 int PE_size, long *pSync))                                                     \
  XSHMEMI_DEP_R(void, shmem_alltoall##BITS,                                                     \
                (void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                 int PE_size, long *pSync))                                                     \
  XSHMEMI_DEP_R(void, shmem_alltoalls##BITS,                                                    \
                (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                 int PE_start, int logPE_stride, int PE_size, long *pSync))
XSHMEMI_DEP_MOVE(32)
XSHMEMI_DEP_MOVE(64)
#undef XSHMEMI_DEP_MOVE

/* Reductions shmem_<type>_<op>_to_all: and, or, xor over short, int, long, long long; max, min
 * over those and float, double, long double; sum, prod over those and (with
 * XSHMEM_HAVE_COMPLEX_REDUCE) complexd, complexf. OP is spelled with its _to_all suffix so that
 * no C++ alternative token (and, or, xor) is pasted. pWrk: max(nreduce / 2 + 1,
 * SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements. */
#define XSHMEMI_DEP_TO_ALL(T, N, OP)                                                     \
  XSHMEMI_DEP_R(void, shmem_##N##_##OP,                                                  \
                (T * dest, const T *source, int nreduce, int PE_start, int logPE_stride, \
                 int PE_size, T *pWrk, long *pSync))
#define XSHMEMI_DEP_TO_ALL_INT_TYPES(X, OP) \
  X(short, short, OP) X(int, int, OP) X(long, long, OP) X(long long, longlong, OP)
#define XSHMEMI_DEP_TO_ALL_REAL_TYPES(X, OP) \
  XSHMEMI_DEP_TO_ALL_INT_TYPES(X, OP)        \
  X(float, float, OP) X(double, double, OP) X(long double, longdouble, OP)
#ifdef XSHMEM_HAVE_COMPLEX_REDUCE
#define XSHMEMI_DEP_TO_ALL_SUMPROD_TYPES(X, OP) \
  XSHMEMI_DEP_TO_ALL_REAL_TYPES(X, OP)          \
  X(double _Complex, complexd, OP) X(float _Complex, complexf, OP)
#else
#define XSHMEMI_DEP_TO_ALL_SUMPROD_TYPES(X, OP) XSHMEMI_DEP_TO_ALL_REAL_TYPES(X, OP)
#endif
XSHMEMI_DEP_TO_ALL_INT_TYPES(XSHMEMI_DEP_TO_ALL, and_to_all)
XSHMEMI_DEP_TO_ALL_INT_TYPES(XSHMEMI_DEP_TO_ALL, or_to_all)
XSHMEMI_DEP_TO_ALL_INT_TYPES(XSHMEMI_DEP_TO_ALL, xor_to_all)
XSHMEMI_DEP_TO_ALL_REAL_TYPES(XSHMEMI_DEP_TO_ALL, max_to_all)
XSHMEMI_DEP_TO_ALL_REAL_TYPES(XSHMEMI_DEP_TO_ALL, min_to_all)
XSHMEMI_DEP_TO_ALL_SUMPROD_TYPES(XSHMEMI_DEP_TO_ALL, sum_to_all)
XSHMEMI_DEP_TO_ALL_SUMPROD_TYPES(XSHMEMI_DEP_TO_ALL, prod_to_all)
#undef XSHMEMI_DEP_TO_ALL
