/*
 * The OpenSHMEM C API of <shmem.h>, as one X-macro list.
 *
 * shmem.h declares each entry as shmem_<name>, pshmem.h as pshmem_<name>, and libxshmem's link
 * exports both names (core/src/compat/aliases.lds.in, generated from this list at build time):
 *
 *   XSHMEMI_API_A(ret, name, params)   shmem_<name> and pshmem_<name> are linker aliases of
 *                                      xshmem_<name>: the same address, no extra call. The
 *                                      prototypes are identical (core/src/compat/compat.cc checks).
 *   XSHMEMI_API_AC(ret, name, params)  an alias as above whose OpenSHMEM prototype differs from
 *                                      xshmem_<name>'s only in the const-ness of a pointee (the
 *                                      same ABI): the vector waits and tests, whose specification
 *                                      has `TYPE *cmp_values` where xshmem takes `const T *`.
 *   XSHMEMI_API_R(ret, name, params)   the OpenSHMEM signature differs from xshmem's (another
 *                                      return or parameter type): a real function pshmem_<name>
 *                                      in core/src/compat/, and shmem_<name> its alias.
 *
 * `params` is the parenthesised parameter list as the specification spells it (shmem_team_t,
 * shmem_ctx_t, shmem_team_config_t: shmem.h defines them before including this list). The
 * includer defines the three macros (and XSHMEMI_API_NORETURN: an attribute for global_exit, or
 * nothing) and includes this file; it has no include guard and undefines nothing.
 *
 * The R entries, and why:
 *   query_initialized  OpenSHMEM 1.6: void (int *initialized); xshmem_query_initialized: int (void)
 *   pe_quiet           OpenSHMEM 1.6: (const int *target_pes, size_t npes); xshmem: int npes
 *   ctx_pe_quiet       as pe_quiet
 *   pcontrol           the profiling control (void (const int level, ...)); no xshmem_ routine
 *
 * Not in the list yet (other parts of issue 14; docs/compat.md): the deprecated forms, and the
 * entries guarded below by XSHMEM_HAVE_LOCKS and XSHMEM_HAVE_COMPLEX_REDUCE, which the changes
 * that add xshmem_set_lock and friends and xshmem_complexd_sum_reduce and friends define in
 * <xshmem/types.h> (shmem.h and the alias generator include only that header of xshmem's).
 */

#include <xshmem/types.h>

/* ---- Setup, exit and query ------------------------------------------------------------------ */
XSHMEMI_API_A(void, init, (void))
XSHMEMI_API_A(int, init_thread, (int requested, int *provided))
XSHMEMI_API_A(void, query_thread, (int *provided))
XSHMEMI_API_R(void, query_initialized, (int *initialized))
XSHMEMI_API_A(void, finalize, (void))
XSHMEMI_API_A(XSHMEMI_API_NORETURN void, global_exit, (int status))
XSHMEMI_API_A(int, my_pe, (void))
XSHMEMI_API_A(int, n_pes, (void))
XSHMEMI_API_A(int, pe_accessible, (int pe))
XSHMEMI_API_A(int, addr_accessible, (const void *addr, int pe))
XSHMEMI_API_A(void *, ptr, (const void *dest, int pe))
XSHMEMI_API_A(void, info_get_version, (int *major, int *minor))
XSHMEMI_API_A(void, info_get_name, (char *name))
XSHMEMI_API_R(void, pcontrol, (const int level, ...))

/* ---- Teams ---------------------------------------------------------------------------------- */
XSHMEMI_API_A(int, team_my_pe, (shmem_team_t team))
XSHMEMI_API_A(int, team_n_pes, (shmem_team_t team))
XSHMEMI_API_A(int, team_get_config,
              (shmem_team_t team, long config_mask, shmem_team_config_t *config))
XSHMEMI_API_A(int, team_translate_pe, (shmem_team_t src_team, int src_pe, shmem_team_t dest_team))
XSHMEMI_API_A(int, team_split_strided,
              (shmem_team_t parent_team, int start, int stride, int size,
               const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team))
XSHMEMI_API_A(int, team_split_2d,
              (shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
               long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
               long yaxis_mask, shmem_team_t *yaxis_team))
XSHMEMI_API_A(void *, team_ptr, (shmem_team_t team, const void *dest, int pe))
XSHMEMI_API_A(void, team_destroy, (shmem_team_t team))

/* ---- Contexts ------------------------------------------------------------------------------- */
XSHMEMI_API_A(int, ctx_create, (long options, shmem_ctx_t *ctx))
XSHMEMI_API_A(int, team_create_ctx, (shmem_team_t team, long options, shmem_ctx_t *ctx))
XSHMEMI_API_A(void, ctx_destroy, (shmem_ctx_t ctx))
XSHMEMI_API_A(int, ctx_get_team, (shmem_ctx_t ctx, shmem_team_t *team))

/* ---- Memory management ---------------------------------------------------------------------- */
XSHMEMI_API_A(void *, malloc, (size_t size))
XSHMEMI_API_A(void, free, (void *ptr))
XSHMEMI_API_A(void *, realloc, (void *ptr, size_t size))
XSHMEMI_API_A(void *, align, (size_t alignment, size_t size))
XSHMEMI_API_A(void *, malloc_with_hints, (size_t size, long hints))
XSHMEMI_API_A(void *, calloc, (size_t count, size_t size))

/* ---- RMA, with and without a context (standard RMA types) ----------------------------------- */
#define XSHMEMI_API_RMA(T, N)                                                                     \
  XSHMEMI_API_A(void, N##_put, (T * dest, const T *source, size_t nelems, int pe))                \
  XSHMEMI_API_A(void, N##_get, (T * dest, const T *source, size_t nelems, int pe))                \
  XSHMEMI_API_A(void, N##_put_nbi, (T * dest, const T *source, size_t nelems, int pe))            \
  XSHMEMI_API_A(void, N##_get_nbi, (T * dest, const T *source, size_t nelems, int pe))            \
  XSHMEMI_API_A(void, N##_p, (T * dest, T value, int pe))                                         \
  XSHMEMI_API_A(T, N##_g, (const T *source, int pe))                                              \
  XSHMEMI_API_A(void, N##_iput,                                                                   \
                (T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)) \
  XSHMEMI_API_A(void, N##_iget,                                                                   \
                (T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)) \
  XSHMEMI_API_A(void, ctx_##N##_put,                                                              \
                (shmem_ctx_t ctx, T * dest, const T *source, size_t nelems, int pe))              \
  XSHMEMI_API_A(void, ctx_##N##_get,                                                              \
                (shmem_ctx_t ctx, T * dest, const T *source, size_t nelems, int pe))              \
  XSHMEMI_API_A(void, ctx_##N##_put_nbi,                                                          \
                (shmem_ctx_t ctx, T * dest, const T *source, size_t nelems, int pe))              \
  XSHMEMI_API_A(void, ctx_##N##_get_nbi,                                                          \
                (shmem_ctx_t ctx, T * dest, const T *source, size_t nelems, int pe))              \
  XSHMEMI_API_A(void, ctx_##N##_p, (shmem_ctx_t ctx, T * dest, T value, int pe))                  \
  XSHMEMI_API_A(T, ctx_##N##_g, (shmem_ctx_t ctx, const T *source, int pe))                       \
  XSHMEMI_API_A(void, ctx_##N##_iput,                                                             \
                (shmem_ctx_t ctx, T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,        \
                 size_t nelems, int pe))                                                          \
  XSHMEMI_API_A(void, ctx_##N##_iget,                                                             \
                (shmem_ctx_t ctx, T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,        \
                 size_t nelems, int pe))
XSHMEM_RMA_TYPES(XSHMEMI_API_RMA)
#undef XSHMEMI_API_RMA

/* Sized (put8 ... put128) and byte (putmem) forms. */
#define XSHMEMI_API_SIZED(BITS, T)                                                              \
  XSHMEMI_API_A(void, put##BITS, (void *dest, const void *source, size_t nelems, int pe))       \
  XSHMEMI_API_A(void, get##BITS, (void *dest, const void *source, size_t nelems, int pe))       \
  XSHMEMI_API_A(void, put##BITS##_nbi, (void *dest, const void *source, size_t nelems, int pe)) \
  XSHMEMI_API_A(void, get##BITS##_nbi, (void *dest, const void *source, size_t nelems, int pe)) \
  XSHMEMI_API_A(                                                                                \
      void, iput##BITS,                                                                         \
      (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe))    \
  XSHMEMI_API_A(                                                                                \
      void, iget##BITS,                                                                         \
      (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe))    \
  XSHMEMI_API_A(void, ctx_put##BITS,                                                            \
                (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe))       \
  XSHMEMI_API_A(void, ctx_get##BITS,                                                            \
                (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe))       \
  XSHMEMI_API_A(void, ctx_put##BITS##_nbi,                                                      \
                (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe))       \
  XSHMEMI_API_A(void, ctx_get##BITS##_nbi,                                                      \
                (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe))       \
  XSHMEMI_API_A(void, ctx_iput##BITS,                                                           \
                (shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                 size_t nelems, int pe))                                                        \
  XSHMEMI_API_A(void, ctx_iget##BITS,                                                           \
                (shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                 size_t nelems, int pe))
XSHMEM_SIZED_TYPES(XSHMEMI_API_SIZED)
XSHMEMI_API_SIZED(128, void)
#undef XSHMEMI_API_SIZED
XSHMEMI_API_A(void, putmem, (void *dest, const void *source, size_t nelems, int pe))
XSHMEMI_API_A(void, getmem, (void *dest, const void *source, size_t nelems, int pe))
XSHMEMI_API_A(void, putmem_nbi, (void *dest, const void *source, size_t nelems, int pe))
XSHMEMI_API_A(void, getmem_nbi, (void *dest, const void *source, size_t nelems, int pe))
XSHMEMI_API_A(void, ctx_putmem,
              (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe))
XSHMEMI_API_A(void, ctx_getmem,
              (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe))
XSHMEMI_API_A(void, ctx_putmem_nbi,
              (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe))
XSHMEMI_API_A(void, ctx_getmem_nbi,
              (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe))

/* ---- Atomics, with and without a context ---------------------------------------------------- */
/* Extended AMO types: fetch, set, swap (and their nbi forms). */
#define XSHMEMI_API_AMO_EXT(T, N)                                                         \
  XSHMEMI_API_A(T, N##_atomic_fetch, (const T *source, int pe))                           \
  XSHMEMI_API_A(void, N##_atomic_set, (T * dest, T value, int pe))                        \
  XSHMEMI_API_A(T, N##_atomic_swap, (T * dest, T value, int pe))                          \
  XSHMEMI_API_A(void, N##_atomic_fetch_nbi, (T * fetch, const T *source, int pe))         \
  XSHMEMI_API_A(void, N##_atomic_swap_nbi, (T * fetch, T * dest, T value, int pe))        \
  XSHMEMI_API_A(T, ctx_##N##_atomic_fetch, (shmem_ctx_t ctx, const T *source, int pe))    \
  XSHMEMI_API_A(void, ctx_##N##_atomic_set, (shmem_ctx_t ctx, T * dest, T value, int pe)) \
  XSHMEMI_API_A(T, ctx_##N##_atomic_swap, (shmem_ctx_t ctx, T * dest, T value, int pe))   \
  XSHMEMI_API_A(void, ctx_##N##_atomic_fetch_nbi,                                         \
                (shmem_ctx_t ctx, T * fetch, const T *source, int pe))                    \
  XSHMEMI_API_A(void, ctx_##N##_atomic_swap_nbi,                                          \
                (shmem_ctx_t ctx, T * fetch, T * dest, T value, int pe))
XSHMEM_AMO_EXTENDED_TYPES(XSHMEMI_API_AMO_EXT)
#undef XSHMEMI_API_AMO_EXT

/* Standard AMO types: compare_swap, fetch_inc, inc, fetch_add, add (and their nbi forms). */
#define XSHMEMI_API_AMO_STD(T, N)                                                                  \
  XSHMEMI_API_A(T, N##_atomic_compare_swap, (T * dest, T cond, T value, int pe))                   \
  XSHMEMI_API_A(T, N##_atomic_fetch_inc, (T * dest, int pe))                                       \
  XSHMEMI_API_A(void, N##_atomic_inc, (T * dest, int pe))                                          \
  XSHMEMI_API_A(T, N##_atomic_fetch_add, (T * dest, T value, int pe))                              \
  XSHMEMI_API_A(void, N##_atomic_add, (T * dest, T value, int pe))                                 \
  XSHMEMI_API_A(void, N##_atomic_compare_swap_nbi, (T * fetch, T * dest, T cond, T value, int pe)) \
  XSHMEMI_API_A(void, N##_atomic_fetch_inc_nbi, (T * fetch, T * dest, int pe))                     \
  XSHMEMI_API_A(void, N##_atomic_fetch_add_nbi, (T * fetch, T * dest, T value, int pe))            \
  XSHMEMI_API_A(T, ctx_##N##_atomic_compare_swap,                                                  \
                (shmem_ctx_t ctx, T * dest, T cond, T value, int pe))                              \
  XSHMEMI_API_A(T, ctx_##N##_atomic_fetch_inc, (shmem_ctx_t ctx, T * dest, int pe))                \
  XSHMEMI_API_A(void, ctx_##N##_atomic_inc, (shmem_ctx_t ctx, T * dest, int pe))                   \
  XSHMEMI_API_A(T, ctx_##N##_atomic_fetch_add, (shmem_ctx_t ctx, T * dest, T value, int pe))       \
  XSHMEMI_API_A(void, ctx_##N##_atomic_add, (shmem_ctx_t ctx, T * dest, T value, int pe))          \
  XSHMEMI_API_A(void, ctx_##N##_atomic_compare_swap_nbi,                                           \
                (shmem_ctx_t ctx, T * fetch, T * dest, T cond, T value, int pe))                   \
  XSHMEMI_API_A(void, ctx_##N##_atomic_fetch_inc_nbi,                                              \
                (shmem_ctx_t ctx, T * fetch, T * dest, int pe))                                    \
  XSHMEMI_API_A(void, ctx_##N##_atomic_fetch_add_nbi,                                              \
                (shmem_ctx_t ctx, T * fetch, T * dest, T value, int pe))
XSHMEM_AMO_STANDARD_TYPES(XSHMEMI_API_AMO_STD)
#undef XSHMEMI_API_AMO_STD

/* Bitwise AMO types: fetch_and, and, fetch_or, or, fetch_xor, xor (and the fetching nbi forms).
 * OP is spelled with its "atomic_" prefix so no <iso646.h> or C++ alternative token is pasted. */
#define XSHMEMI_API_AMO_BIT_OP(T, N, FOP, OP, FOP_NBI)                              \
  XSHMEMI_API_A(T, N##_##FOP, (T * dest, T value, int pe))                          \
  XSHMEMI_API_A(void, N##_##OP, (T * dest, T value, int pe))                        \
  XSHMEMI_API_A(void, N##_##FOP_NBI, (T * fetch, T * dest, T value, int pe))        \
  XSHMEMI_API_A(T, ctx_##N##_##FOP, (shmem_ctx_t ctx, T * dest, T value, int pe))   \
  XSHMEMI_API_A(void, ctx_##N##_##OP, (shmem_ctx_t ctx, T * dest, T value, int pe)) \
  XSHMEMI_API_A(void, ctx_##N##_##FOP_NBI, (shmem_ctx_t ctx, T * fetch, T * dest, T value, int pe))
#define XSHMEMI_API_AMO_BIT(T, N)                                                  \
  XSHMEMI_API_AMO_BIT_OP(T, N, atomic_fetch_and, atomic_and, atomic_fetch_and_nbi) \
  XSHMEMI_API_AMO_BIT_OP(T, N, atomic_fetch_or, atomic_or, atomic_fetch_or_nbi)    \
  XSHMEMI_API_AMO_BIT_OP(T, N, atomic_fetch_xor, atomic_xor, atomic_fetch_xor_nbi)
XSHMEM_AMO_BITWISE_TYPES(XSHMEMI_API_AMO_BIT)
#undef XSHMEMI_API_AMO_BIT
#undef XSHMEMI_API_AMO_BIT_OP

/* ---- Signaling operations, with and without a context --------------------------------------- */
#define XSHMEMI_API_SIG(T, N)                                                                   \
  XSHMEMI_API_A(void, N##_put_signal,                                                           \
                (T * dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                 int sig_op, int pe))                                                           \
  XSHMEMI_API_A(void, N##_put_signal_nbi,                                                       \
                (T * dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                 int sig_op, int pe))                                                           \
  XSHMEMI_API_A(void, ctx_##N##_put_signal,                                                     \
                (shmem_ctx_t ctx, T * dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                 uint64_t signal, int sig_op, int pe))                                          \
  XSHMEMI_API_A(void, ctx_##N##_put_signal_nbi,                                                 \
                (shmem_ctx_t ctx, T * dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                 uint64_t signal, int sig_op, int pe))
XSHMEM_RMA_TYPES(XSHMEMI_API_SIG)
#undef XSHMEMI_API_SIG
#define XSHMEMI_API_SIG_SIZED(BITS, T)                                              \
  XSHMEMI_API_A(void, put##BITS##_signal,                                           \
                (void *dest, const void *source, size_t nelems, uint64_t *sig_addr, \
                 uint64_t signal, int sig_op, int pe))                              \
  XSHMEMI_API_A(void, put##BITS##_signal_nbi,                                       \
                (void *dest, const void *source, size_t nelems, uint64_t *sig_addr, \
                 uint64_t signal, int sig_op, int pe))                              \
  XSHMEMI_API_A(void, ctx_put##BITS##_signal,                                       \
                (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,    \
                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe))          \
  XSHMEMI_API_A(void, ctx_put##BITS##_signal_nbi,                                   \
                (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,    \
                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe))
XSHMEM_SIZED_TYPES(XSHMEMI_API_SIG_SIZED)
XSHMEMI_API_SIG_SIZED(128, void)
#undef XSHMEMI_API_SIG_SIZED
XSHMEMI_API_A(void, putmem_signal,
              (void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
               int sig_op, int pe))
XSHMEMI_API_A(void, putmem_signal_nbi,
              (void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
               int sig_op, int pe))
XSHMEMI_API_A(void, ctx_putmem_signal,
              (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
               uint64_t signal, int sig_op, int pe))
XSHMEMI_API_A(void, ctx_putmem_signal_nbi,
              (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
               uint64_t signal, int sig_op, int pe))
XSHMEMI_API_A(uint64_t, signal_fetch, (const uint64_t *sig_addr))
XSHMEMI_API_A(void, signal_add, (uint64_t * sig_addr, uint64_t signal, int pe))
XSHMEMI_API_A(void, signal_set, (uint64_t * sig_addr, uint64_t signal, int pe))
XSHMEMI_API_A(uint64_t, signal_wait_until, (uint64_t * sig_addr, int cmp, uint64_t cmp_value))

/* ---- Point-to-point synchronization (point-to-point types, and the deprecated short/ushort) -- */
#define XSHMEMI_API_P2P(T, N)                                                                  \
  XSHMEMI_API_A(void, N##_wait_until, (T * ivar, int cmp, T cmp_value))                        \
  XSHMEMI_API_A(void, N##_wait_until_all,                                                      \
                (T * ivars, size_t nelems, const int *status, int cmp, T cmp_value))           \
  XSHMEMI_API_A(size_t, N##_wait_until_any,                                                    \
                (T * ivars, size_t nelems, const int *status, int cmp, T cmp_value))           \
  XSHMEMI_API_A(                                                                               \
      size_t, N##_wait_until_some,                                                             \
      (T * ivars, size_t nelems, size_t * indices, const int *status, int cmp, T cmp_value))   \
  XSHMEMI_API_AC(void, N##_wait_until_all_vector,                                              \
                 (T * ivars, size_t nelems, const int *status, int cmp, T *cmp_values))        \
  XSHMEMI_API_AC(size_t, N##_wait_until_any_vector,                                            \
                 (T * ivars, size_t nelems, const int *status, int cmp, T *cmp_values))        \
  XSHMEMI_API_AC(                                                                              \
      size_t, N##_wait_until_some_vector,                                                      \
      (T * ivars, size_t nelems, size_t * indices, const int *status, int cmp, T *cmp_values)) \
  XSHMEMI_API_A(int, N##_test, (T * ivar, int cmp, T cmp_value))                               \
  XSHMEMI_API_A(int, N##_test_all,                                                             \
                (T * ivars, size_t nelems, const int *status, int cmp, T cmp_value))           \
  XSHMEMI_API_A(size_t, N##_test_any,                                                          \
                (T * ivars, size_t nelems, const int *status, int cmp, T cmp_value))           \
  XSHMEMI_API_A(                                                                               \
      size_t, N##_test_some,                                                                   \
      (T * ivars, size_t nelems, size_t * indices, const int *status, int cmp, T cmp_value))   \
  XSHMEMI_API_AC(int, N##_test_all_vector,                                                     \
                 (T * ivars, size_t nelems, const int *status, int cmp, T *cmp_values))        \
  XSHMEMI_API_AC(size_t, N##_test_any_vector,                                                  \
                 (T * ivars, size_t nelems, const int *status, int cmp, T *cmp_values))        \
  XSHMEMI_API_AC(                                                                              \
      size_t, N##_test_some_vector,                                                            \
      (T * ivars, size_t nelems, size_t * indices, const int *status, int cmp, T *cmp_values))
XSHMEM_P2P_TYPES(XSHMEMI_API_P2P)
#undef XSHMEMI_API_P2P

/* ---- Memory ordering ------------------------------------------------------------------------ */
XSHMEMI_API_A(void, fence, (void))
XSHMEMI_API_A(void, ctx_fence, (shmem_ctx_t ctx))
XSHMEMI_API_A(void, quiet, (void))
XSHMEMI_API_A(void, ctx_quiet, (shmem_ctx_t ctx))
XSHMEMI_API_R(void, pe_quiet, (const int *target_pes, size_t npes))
XSHMEMI_API_R(void, ctx_pe_quiet, (shmem_ctx_t ctx, const int *target_pes, size_t npes))

/* ---- Collectives (team forms) --------------------------------------------------------------- */
XSHMEMI_API_A(void, barrier_all, (void))
XSHMEMI_API_A(void, sync_all, (void))
XSHMEMI_API_A(int, team_sync, (shmem_team_t team))
#define XSHMEMI_API_COLL_MOVE(T, N)                                                               \
  XSHMEMI_API_A(int, N##_broadcast,                                                               \
                (shmem_team_t team, T * dest, const T *source, size_t nelems, int PE_root))       \
  XSHMEMI_API_A(int, N##_collect, (shmem_team_t team, T * dest, const T *source, size_t nelems))  \
  XSHMEMI_API_A(int, N##_fcollect, (shmem_team_t team, T * dest, const T *source, size_t nelems)) \
  XSHMEMI_API_A(int, N##_alltoall, (shmem_team_t team, T * dest, const T *source, size_t nelems)) \
  XSHMEMI_API_A(                                                                                  \
      int, N##_alltoalls,                                                                         \
      (shmem_team_t team, T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems))
XSHMEM_RMA_TYPES(XSHMEMI_API_COLL_MOVE)
#undef XSHMEMI_API_COLL_MOVE
XSHMEMI_API_A(int, broadcastmem,
              (shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root))
XSHMEMI_API_A(int, collectmem, (shmem_team_t team, void *dest, const void *source, size_t nelems))
XSHMEMI_API_A(int, fcollectmem, (shmem_team_t team, void *dest, const void *source, size_t nelems))
XSHMEMI_API_A(int, alltoallmem, (shmem_team_t team, void *dest, const void *source, size_t nelems))
XSHMEMI_API_A(int, alltoallsmem,
              (shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
               size_t nelems))

/* Reductions: bitwise (and, or, xor) and arithmetic (max, min, sum, prod, and the OpenSHMEM 1.6
 * scans sum_inscan, sum_exscan). */
#define XSHMEMI_API_REDUCE(T, N, OP) \
  XSHMEMI_API_A(int, N##_##OP, (shmem_team_t team, T * dest, const T *source, size_t nreduce))
#define XSHMEMI_API_REDUCE_BIT(T, N)   \
  XSHMEMI_API_REDUCE(T, N, and_reduce) \
  XSHMEMI_API_REDUCE(T, N, or_reduce) XSHMEMI_API_REDUCE(T, N, xor_reduce)
#define XSHMEMI_API_REDUCE_ARITH(T, N)                                         \
  XSHMEMI_API_REDUCE(T, N, max_reduce)                                         \
  XSHMEMI_API_REDUCE(T, N, min_reduce)                                         \
  XSHMEMI_API_REDUCE(T, N, sum_reduce)                                         \
  XSHMEMI_API_REDUCE(T, N, prod_reduce)                                        \
  XSHMEMI_API_A(int, N##_sum_inscan,                                           \
                (shmem_team_t team, T * dest, const T *source, size_t nelems)) \
  XSHMEMI_API_A(int, N##_sum_exscan, (shmem_team_t team, T * dest, const T *source, size_t nelems))
XSHMEM_REDUCE_BITWISE_TYPES(XSHMEMI_API_REDUCE_BIT)
XSHMEM_REDUCE_ARITH_TYPES(XSHMEMI_API_REDUCE_ARITH)
#undef XSHMEMI_API_REDUCE_ARITH
#undef XSHMEMI_API_REDUCE_BIT

/* ---- Complex reductions (issue 14 item 5, another change) ------------------------------------
 * Aliases of xshmem_complexd_sum_reduce(xshmem_team_t, double _Complex *dest,
 * const double _Complex *source, size_t nreduce) and friends, once <xshmem/types.h> defines
 * XSHMEM_HAVE_COMPLEX_REDUCE. In C++ `double _Complex` is the GNU extension type of g++ and
 * clang++ (the same ABI as std::complex<double>). */
#ifdef XSHMEM_HAVE_COMPLEX_REDUCE
XSHMEMI_API_REDUCE(double _Complex, complexd, sum_reduce)
XSHMEMI_API_REDUCE(double _Complex, complexd, prod_reduce)
XSHMEMI_API_REDUCE(float _Complex, complexf, sum_reduce)
XSHMEMI_API_REDUCE(float _Complex, complexf, prod_reduce)
#endif
#undef XSHMEMI_API_REDUCE

/* ---- Distributed locks (issue 14 item 4, another change) -------------------------------------
 * Aliases of void xshmem_set_lock(long *lock), void xshmem_clear_lock(long *lock) and
 * int xshmem_test_lock(long *lock), once <xshmem/types.h> defines XSHMEM_HAVE_LOCKS. */
#ifdef XSHMEM_HAVE_LOCKS
XSHMEMI_API_A(void, set_lock, (long *lock))
XSHMEMI_API_A(void, clear_lock, (long *lock))
XSHMEMI_API_A(int, test_lock, (long *lock))
#endif
