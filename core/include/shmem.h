/*
 * shmem.h: the OpenSHMEM 1.5 C API (and the OpenSHMEM 1.6 routines xshmem has) under its own
 * names, on xshmem. Include it as <shmem.h> with -I<prefix>/include and link libxshmem.
 *
 * Every shmem_X declared here is the routine xshmem_X of <xshmem/xshmem.h>, which documents it:
 * libxshmem exports shmem_X (and pshmem_X, <pshmem.h>) as linker aliases of xshmem_X, so a call
 * through this header reaches the implementation with no extra call. The few routines whose
 * OpenSHMEM signature differs from xshmem's are real functions; <xshmem/compat_api.h> lists every
 * routine and says which. Types and constants are xshmem's under the specification's names:
 * handles pass between the two APIs unchanged.
 *
 * C11 (not C++): the type-generic interfaces (shmem_put, shmem_atomic_fetch_add, shmem_wait_until,
 * shmem_sum_reduce, ...) are _Generic selections over the specification's type tables, with the
 * context forms selected by a first argument of type shmem_ctx_t. C++: the same names are
 * overloaded inline functions. A fixed-width type selects the routine of the type it is a typedef
 * of (int32_t: shmem_int_*). A call with a type outside the tables does not compile.
 *
 * The deprecated routines (active-set collectives with pSync, shmem_fadd ..., start_pes, shmalloc,
 * shmem_wait; <xshmem/compat_deprecated.h>) are declared deprecated. Not provided yet
 * (docs/compat.md): locks, complex reductions; no routine of the specification exists here as a
 * no-op (the cache routines are no-ops the specification allows).
 */
#ifndef XSHMEM_COMPAT_SHMEM_H
#define XSHMEM_COMPAT_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/types.h>

/* ---- Types ---------------------------------------------------------------------------------- */

/* A team handle: the same type and values as xshmem_team_t. */
typedef xshmem_team_t shmem_team_t;
/* A context handle: the same type and values as xshmem_ctx_t. */
typedef xshmem_ctx_t shmem_ctx_t;
/* Team configuration of shmem_team_split_* and shmem_team_get_config: { int num_contexts; }. */
typedef xshmem_team_config_t shmem_team_config_t;

/* ---- Constants ------------------------------------------------------------------------------ */

/* Library version: the OpenSHMEM version followed, and the vendor string (at most
 * SHMEM_MAX_NAME_LEN bytes with its NUL). */
#define SHMEM_MAJOR_VERSION XSHMEM_MAJOR_VERSION
#define SHMEM_MINOR_VERSION XSHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN XSHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING XSHMEM_VENDOR_STRING

/* Thread levels of shmem_init_thread and shmem_query_thread. */
#define SHMEM_THREAD_SINGLE XSHMEM_THREAD_SINGLE
#define SHMEM_THREAD_FUNNELED XSHMEM_THREAD_FUNNELED
#define SHMEM_THREAD_SERIALIZED XSHMEM_THREAD_SERIALIZED
#define SHMEM_THREAD_MULTIPLE XSHMEM_THREAD_MULTIPLE

/* Predefined teams, and the handle that is not a team. */
#define SHMEM_TEAM_WORLD XSHMEM_TEAM_WORLD
#define SHMEM_TEAM_SHARED XSHMEM_TEAM_SHARED
#define SHMEM_TEAM_INVALID XSHMEM_TEAM_INVALID
/* config_mask bit of shmem_team_split_*: read config->num_contexts. */
#define SHMEM_TEAM_NUM_CONTEXTS XSHMEM_TEAM_NUM_CONTEXTS

/* The default context, the handle that is not a context, and shmem_ctx_create's options. */
#define SHMEM_CTX_DEFAULT XSHMEM_CTX_DEFAULT
#define SHMEM_CTX_INVALID XSHMEM_CTX_INVALID
#define SHMEM_CTX_SERIALIZED XSHMEM_CTX_SERIALIZED
#define SHMEM_CTX_PRIVATE XSHMEM_CTX_PRIVATE
#define SHMEM_CTX_NOSTORE XSHMEM_CTX_NOSTORE

/* Comparison operators of the wait, test and signal-wait routines. */
#define SHMEM_CMP_EQ XSHMEM_CMP_EQ
#define SHMEM_CMP_NE XSHMEM_CMP_NE
#define SHMEM_CMP_GT XSHMEM_CMP_GT
#define SHMEM_CMP_GE XSHMEM_CMP_GE
#define SHMEM_CMP_LT XSHMEM_CMP_LT
#define SHMEM_CMP_LE XSHMEM_CMP_LE

/* Signal operators of the put-with-signal routines. */
#define SHMEM_SIGNAL_SET XSHMEM_SIGNAL_SET
#define SHMEM_SIGNAL_ADD XSHMEM_SIGNAL_ADD

/* Hints of shmem_malloc_with_hints (the values of XSHMEM_MALLOC_*; compat.cc checks). */
#define SHMEM_MALLOC_ATOMICS_REMOTE 1L
#define SHMEM_MALLOC_SIGNAL_REMOTE 2L

/* pSync and pWrk sizes (in longs) and the pSync initial value of the deprecated active-set
 * collectives (shmem_barrier, shmem_broadcast64, shmem_long_sum_to_all, ...). SHMEM_SYNC_SIZE
 * serves every collective. pWrk of a reduction: max(nreduce / 2 + 1,
 * SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 128
#define SHMEM_BCAST_SYNC_SIZE 128
#define SHMEM_REDUCE_SYNC_SIZE 128
#define SHMEM_BARRIER_SYNC_SIZE 128
#define SHMEM_COLLECT_SYNC_SIZE 128
#define SHMEM_ALLTOALL_SYNC_SIZE 128
#define SHMEM_ALLTOALLS_SYNC_SIZE 128
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 16

/* The deprecated spellings of the constants (OpenSHMEM 1.5 still defines them). */
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ---- Routines ------------------------------------------------------------------------------- */

#ifdef __cplusplus
extern "C" {
#endif

/* shmem_global_exit does not return. */
#define XSHMEMI_API_NORETURN __attribute__((noreturn))
#define XSHMEMI_API_A(ret, name, params) ret shmem_##name params;
#define XSHMEMI_API_AC(ret, name, params) ret shmem_##name params;
#define XSHMEMI_API_R(ret, name, params) ret shmem_##name params;
#include <xshmem/compat_api.h>
#undef XSHMEMI_API_R
#undef XSHMEMI_API_AC
#undef XSHMEMI_API_A
#undef XSHMEMI_API_NORETURN

/* The deprecated routines (<xshmem/compat_deprecated.h>; docs/compat.md): every one warns where it
 * is called (-Wdeprecated-declarations; -Wno-deprecated-declarations silences them). */
#define XSHMEMI_DEPRECATED __attribute__((deprecated))
#define XSHMEMI_DEP_A(ret, sym, params, target) ret sym params XSHMEMI_DEPRECATED;
#define XSHMEMI_DEP_R(ret, sym, params) ret sym params XSHMEMI_DEPRECATED;
#include <xshmem/compat_deprecated.h>
#undef XSHMEMI_DEP_R
#undef XSHMEMI_DEP_A

#ifdef __cplusplus
}
#endif

/* ---- Type-generic interfaces ---------------------------------------------------------------- */

/* The specification's type tables for the generic interfaces, each type once (a fixed-width type
 * is a typedef of one of these): X(TYPE, TYPENAME, OP). OP is passed through, spelled with a
 * leading underscore (_put) so that no user macro can expand it. */
/* clang-format off */
#define XSHMEMI_GEN_RMA(X, OP)                                                                     \
  X(float, float, OP) X(double, double, OP) X(long double, longdouble, OP) X(char, char, OP)       \
  X(signed char, schar, OP) X(short, short, OP) X(int, int, OP) X(long, long, OP)                  \
  X(long long, longlong, OP) X(unsigned char, uchar, OP) X(unsigned short, ushort, OP)             \
  X(unsigned int, uint, OP) X(unsigned long, ulong, OP) X(unsigned long long, ulonglong, OP)
/* Standard AMO and point-to-point synchronization types. */
#define XSHMEMI_GEN_AMO_STD(X, OP)                                                                 \
  X(int, int, OP) X(long, long, OP) X(long long, longlong, OP) X(unsigned int, uint, OP)           \
  X(unsigned long, ulong, OP) X(unsigned long long, ulonglong, OP)
#define XSHMEMI_GEN_AMO_EXT(X, OP)                                                                 \
  XSHMEMI_GEN_AMO_STD(X, OP) X(float, float, OP) X(double, double, OP)
#define XSHMEMI_GEN_AMO_BIT(X, OP)                                                                 \
  X(unsigned int, uint, OP) X(unsigned long, ulong, OP) X(unsigned long long, ulonglong, OP)       \
  X(int32_t, int32, OP) X(int64_t, int64, OP)
#define XSHMEMI_GEN_REDUCE_BIT(X, OP)                                                              \
  X(unsigned char, uchar, OP) X(unsigned short, ushort, OP) X(unsigned int, uint, OP)              \
  X(unsigned long, ulong, OP) X(unsigned long long, ulonglong, OP) X(int8_t, int8, OP)             \
  X(int16_t, int16, OP) X(int32_t, int32, OP) X(int64_t, int64, OP)
/* Arithmetic reductions and scans (complexd/complexf join when XSHMEM_HAVE_COMPLEX_REDUCE). */
#ifdef XSHMEM_HAVE_COMPLEX_REDUCE
#define XSHMEMI_GEN_REDUCE_COMPLEX(X, OP)                                                          \
  X(double _Complex, complexd, OP) X(float _Complex, complexf, OP)
#else
#define XSHMEMI_GEN_REDUCE_COMPLEX(X, OP)
#endif
#define XSHMEMI_GEN_REDUCE_ARITH(X, OP)                                                            \
  X(char, char, OP) X(signed char, schar, OP) X(short, short, OP) X(int, int, OP)                  \
  X(long, long, OP) X(long long, longlong, OP) X(unsigned char, uchar, OP)                         \
  X(unsigned short, ushort, OP) X(unsigned int, uint, OP) X(unsigned long, ulong, OP)              \
  X(unsigned long long, ulonglong, OP) X(float, float, OP) X(double, double, OP)                   \
  X(long double, longdouble, OP)
#define XSHMEMI_GEN_SUMPROD(X, OP) XSHMEMI_GEN_REDUCE_ARITH(X, OP) XSHMEMI_GEN_REDUCE_COMPLEX(X, OP)
/* clang-format on */

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* ---- C11: generic selection ----
 * A selection that matches no routine picks this function, declared and never defined: the call
 * (with arguments) does not compile. */
void xshmemi_c11_no_routine_for_these_argument_types(void);
struct xshmemi_c11_never;

/* The first and second arguments; the type of an argument after array-to-pointer conversion (a
 * pointer keeps the qualifiers of what it points to). */
#define XSHMEMI_C11_ARG0_(a, ...) a
#define XSHMEMI_C11_ARG0(...) XSHMEMI_C11_ARG0_(__VA_ARGS__, 0)
#define XSHMEMI_C11_ARG1_(a, b, ...) b
#define XSHMEMI_C11_ARG1(...) XSHMEMI_C11_ARG1_(__VA_ARGS__, 0, 0)
#define XSHMEMI_C11_TYPE(x) ((x) + 0)
/* Associations: TYPE * (and const TYPE * for a const first pointer) to the plain routine (P) or
 * the context routine (X). */
/* clang-format off */
#define XSHMEMI_C11_P(T, N, OP) T *: shmem_##N##OP,
#define XSHMEMI_C11_PC(T, N, OP) T *: shmem_##N##OP, const T *: shmem_##N##OP,
#define XSHMEMI_C11_X(T, N, OP) T *: shmem_ctx_##N##OP,
#define XSHMEMI_C11_XC(T, N, OP) T *: shmem_ctx_##N##OP, const T *: shmem_ctx_##N##OP,
/* Routines with a context form: on the first argument, a TYPE pointer (the plain routine) or a
 * shmem_ctx_t (then on the second argument, the context routine). */
#define XSHMEMI_C11_CTX(TABLE, P, X, OP, ...)                                                      \
  _Generic(XSHMEMI_C11_TYPE(XSHMEMI_C11_ARG0(__VA_ARGS__)),                                        \
    TABLE(P, OP)                                                                                   \
    shmem_ctx_t: _Generic(XSHMEMI_C11_TYPE(XSHMEMI_C11_ARG1(__VA_ARGS__)),                         \
      TABLE(X, OP)                                                                                 \
      default: xshmemi_c11_no_routine_for_these_argument_types))(__VA_ARGS__)
/* Routines without one: on the first argument (point-to-point synchronization) or the second
 * (team collectives, whose first argument is the team). */
#define XSHMEMI_C11_ON0(TABLE, OP, ...)                                                            \
  _Generic(XSHMEMI_C11_TYPE(XSHMEMI_C11_ARG0(__VA_ARGS__)),                                        \
    TABLE(XSHMEMI_C11_P, OP)                                                                       \
    struct xshmemi_c11_never *: xshmemi_c11_no_routine_for_these_argument_types)(__VA_ARGS__)
#define XSHMEMI_C11_ON1(TABLE, OP, ...)                                                            \
  _Generic(XSHMEMI_C11_TYPE(XSHMEMI_C11_ARG1(__VA_ARGS__)),                                        \
    TABLE(XSHMEMI_C11_P, OP)                                                                       \
    struct xshmemi_c11_never *: xshmemi_c11_no_routine_for_these_argument_types)(__VA_ARGS__)
/* clang-format on */
#define XSHMEMI_C11_RMA(OP, ...) \
  XSHMEMI_C11_CTX(XSHMEMI_GEN_RMA, XSHMEMI_C11_P, XSHMEMI_C11_X, OP, __VA_ARGS__)

/* RMA: shmem_put(dest, source, nelems, pe), shmem_put(ctx, dest, source, nelems, pe), ... */
#define shmem_put(...) XSHMEMI_C11_RMA(_put, __VA_ARGS__)
#define shmem_get(...) XSHMEMI_C11_RMA(_get, __VA_ARGS__)
#define shmem_put_nbi(...) XSHMEMI_C11_RMA(_put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) XSHMEMI_C11_RMA(_get_nbi, __VA_ARGS__)
#define shmem_p(...) XSHMEMI_C11_RMA(_p, __VA_ARGS__)
#define shmem_g(...) \
  XSHMEMI_C11_CTX(XSHMEMI_GEN_RMA, XSHMEMI_C11_PC, XSHMEMI_C11_XC, _g, __VA_ARGS__)
#define shmem_iput(...) XSHMEMI_C11_RMA(_iput, __VA_ARGS__)
#define shmem_iget(...) XSHMEMI_C11_RMA(_iget, __VA_ARGS__)
/* Put with signal. */
#define shmem_put_signal(...) XSHMEMI_C11_RMA(_put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) XSHMEMI_C11_RMA(_put_signal_nbi, __VA_ARGS__)

/* Atomics: extended AMO types. */
#define XSHMEMI_C11_AMO_EXT(OP, ...) \
  XSHMEMI_C11_CTX(XSHMEMI_GEN_AMO_EXT, XSHMEMI_C11_P, XSHMEMI_C11_X, OP, __VA_ARGS__)
#define shmem_atomic_fetch(...) \
  XSHMEMI_C11_CTX(XSHMEMI_GEN_AMO_EXT, XSHMEMI_C11_PC, XSHMEMI_C11_XC, _atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...) XSHMEMI_C11_AMO_EXT(_atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) XSHMEMI_C11_AMO_EXT(_atomic_swap, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) XSHMEMI_C11_AMO_EXT(_atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) XSHMEMI_C11_AMO_EXT(_atomic_swap_nbi, __VA_ARGS__)
/* Atomics: standard AMO types. */
#define XSHMEMI_C11_AMO_STD(OP, ...) \
  XSHMEMI_C11_CTX(XSHMEMI_GEN_AMO_STD, XSHMEMI_C11_P, XSHMEMI_C11_X, OP, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) XSHMEMI_C11_AMO_STD(_atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) XSHMEMI_C11_AMO_STD(_atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...) XSHMEMI_C11_AMO_STD(_atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) XSHMEMI_C11_AMO_STD(_atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...) XSHMEMI_C11_AMO_STD(_atomic_add, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) \
  XSHMEMI_C11_AMO_STD(_atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) XSHMEMI_C11_AMO_STD(_atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) XSHMEMI_C11_AMO_STD(_atomic_fetch_add_nbi, __VA_ARGS__)
/* Atomics: bitwise AMO types. */
#define XSHMEMI_C11_AMO_BIT(OP, ...) \
  XSHMEMI_C11_CTX(XSHMEMI_GEN_AMO_BIT, XSHMEMI_C11_P, XSHMEMI_C11_X, OP, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) XSHMEMI_C11_AMO_BIT(_atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_and(...) XSHMEMI_C11_AMO_BIT(_atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) XSHMEMI_C11_AMO_BIT(_atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_or(...) XSHMEMI_C11_AMO_BIT(_atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) XSHMEMI_C11_AMO_BIT(_atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_xor(...) XSHMEMI_C11_AMO_BIT(_atomic_xor, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) XSHMEMI_C11_AMO_BIT(_atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) XSHMEMI_C11_AMO_BIT(_atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) XSHMEMI_C11_AMO_BIT(_atomic_fetch_xor_nbi, __VA_ARGS__)

/* Point-to-point synchronization: on ivar(s). */
#define XSHMEMI_C11_P2P(OP, ...) XSHMEMI_C11_ON0(XSHMEMI_GEN_AMO_STD, OP, __VA_ARGS__)
#define shmem_wait_until(...) XSHMEMI_C11_P2P(_wait_until, __VA_ARGS__)
#define shmem_wait_until_all(...) XSHMEMI_C11_P2P(_wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...) XSHMEMI_C11_P2P(_wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...) XSHMEMI_C11_P2P(_wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...) XSHMEMI_C11_P2P(_wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...) XSHMEMI_C11_P2P(_wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...) XSHMEMI_C11_P2P(_wait_until_some_vector, __VA_ARGS__)
#define shmem_test(...) XSHMEMI_C11_P2P(_test, __VA_ARGS__)
#define shmem_test_all(...) XSHMEMI_C11_P2P(_test_all, __VA_ARGS__)
#define shmem_test_any(...) XSHMEMI_C11_P2P(_test_any, __VA_ARGS__)
#define shmem_test_some(...) XSHMEMI_C11_P2P(_test_some, __VA_ARGS__)
#define shmem_test_all_vector(...) XSHMEMI_C11_P2P(_test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...) XSHMEMI_C11_P2P(_test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...) XSHMEMI_C11_P2P(_test_some_vector, __VA_ARGS__)

/* Team collectives: on dest (the second argument). */
#define shmem_broadcast(...) XSHMEMI_C11_ON1(XSHMEMI_GEN_RMA, _broadcast, __VA_ARGS__)
#define shmem_collect(...) XSHMEMI_C11_ON1(XSHMEMI_GEN_RMA, _collect, __VA_ARGS__)
#define shmem_fcollect(...) XSHMEMI_C11_ON1(XSHMEMI_GEN_RMA, _fcollect, __VA_ARGS__)
#define shmem_alltoall(...) XSHMEMI_C11_ON1(XSHMEMI_GEN_RMA, _alltoall, __VA_ARGS__)
#define shmem_alltoalls(...) XSHMEMI_C11_ON1(XSHMEMI_GEN_RMA, _alltoalls, __VA_ARGS__)
#define shmem_and_reduce(...) XSHMEMI_C11_ON1(XSHMEMI_GEN_REDUCE_BIT, _and_reduce, __VA_ARGS__)
#define shmem_or_reduce(...) XSHMEMI_C11_ON1(XSHMEMI_GEN_REDUCE_BIT, _or_reduce, __VA_ARGS__)
#define shmem_xor_reduce(...) XSHMEMI_C11_ON1(XSHMEMI_GEN_REDUCE_BIT, _xor_reduce, __VA_ARGS__)
#define shmem_max_reduce(...) XSHMEMI_C11_ON1(XSHMEMI_GEN_REDUCE_ARITH, _max_reduce, __VA_ARGS__)
#define shmem_min_reduce(...) XSHMEMI_C11_ON1(XSHMEMI_GEN_REDUCE_ARITH, _min_reduce, __VA_ARGS__)
#define shmem_sum_reduce(...) XSHMEMI_C11_ON1(XSHMEMI_GEN_SUMPROD, _sum_reduce, __VA_ARGS__)
#define shmem_prod_reduce(...) XSHMEMI_C11_ON1(XSHMEMI_GEN_SUMPROD, _prod_reduce, __VA_ARGS__)
#define shmem_sum_inscan(...) XSHMEMI_C11_ON1(XSHMEMI_GEN_REDUCE_ARITH, _sum_inscan, __VA_ARGS__)
#define shmem_sum_exscan(...) XSHMEMI_C11_ON1(XSHMEMI_GEN_REDUCE_ARITH, _sum_exscan, __VA_ARGS__)
/* shmem_sync(team) is shmem_team_sync(team). With four arguments it is the deprecated active-set
 * routine shmem_sync(PE_start, logPE_stride, PE_size, pSync). */
#define XSHMEMI_C11_SYNC_PICK(a1, a2, a3, a4, F, ...) F
#define shmem_sync(...) \
  XSHMEMI_C11_SYNC_PICK(__VA_ARGS__, (shmem_sync), 0, 0, shmem_team_sync, 0)(__VA_ARGS__)

#elif defined(__cplusplus)
/* ---- C++: overloaded inline functions, the same calls as C11's ----
 * Always inlined: a call is the call of the typed routine, at any optimisation level. */
#define XSHMEMI_CXX inline __attribute__((always_inline))
extern "C++" {
#define XSHMEMI_CXX_RMA(T, N, OP)                                                                  \
  XSHMEMI_CXX void shmem_put(T *dest, const T *source, size_t nelems, int pe) {                    \
    shmem_##N##_put(dest, source, nelems, pe);                                                     \
  }                                                                                                \
  XSHMEMI_CXX void shmem_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) {   \
    shmem_ctx_##N##_put(ctx, dest, source, nelems, pe);                                            \
  }                                                                                                \
  XSHMEMI_CXX void shmem_get(T *dest, const T *source, size_t nelems, int pe) {                    \
    shmem_##N##_get(dest, source, nelems, pe);                                                     \
  }                                                                                                \
  XSHMEMI_CXX void shmem_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) {   \
    shmem_ctx_##N##_get(ctx, dest, source, nelems, pe);                                            \
  }                                                                                                \
  XSHMEMI_CXX void shmem_put_nbi(T *dest, const T *source, size_t nelems, int pe) {                \
    shmem_##N##_put_nbi(dest, source, nelems, pe);                                                 \
  }                                                                                                \
  XSHMEMI_CXX void shmem_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,         \
                                 int pe) {                                                         \
    shmem_ctx_##N##_put_nbi(ctx, dest, source, nelems, pe);                                        \
  }                                                                                                \
  XSHMEMI_CXX void shmem_get_nbi(T *dest, const T *source, size_t nelems, int pe) {                \
    shmem_##N##_get_nbi(dest, source, nelems, pe);                                                 \
  }                                                                                                \
  XSHMEMI_CXX void shmem_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,         \
                                 int pe) {                                                         \
    shmem_ctx_##N##_get_nbi(ctx, dest, source, nelems, pe);                                        \
  }                                                                                                \
  XSHMEMI_CXX void shmem_p(T *dest, T value, int pe) {                                             \
    shmem_##N##_p(dest, value, pe);                                                                \
  }                                                                                                \
  XSHMEMI_CXX void shmem_p(shmem_ctx_t ctx, T *dest, T value, int pe) {                            \
    shmem_ctx_##N##_p(ctx, dest, value, pe);                                                       \
  }                                                                                                \
  XSHMEMI_CXX T shmem_g(const T *source, int pe) {                                                 \
    return shmem_##N##_g(source, pe);                                                              \
  }                                                                                                \
  XSHMEMI_CXX T shmem_g(shmem_ctx_t ctx, const T *source, int pe) {                                \
    return shmem_ctx_##N##_g(ctx, source, pe);                                                     \
  }                                                                                                \
  XSHMEMI_CXX void shmem_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,              \
                              size_t nelems, int pe) {                                             \
    shmem_##N##_iput(dest, source, dst, sst, nelems, pe);                                          \
  }                                                                                                \
  XSHMEMI_CXX void shmem_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,            \
                              ptrdiff_t sst, size_t nelems, int pe) {                              \
    shmem_ctx_##N##_iput(ctx, dest, source, dst, sst, nelems, pe);                                 \
  }                                                                                                \
  XSHMEMI_CXX void shmem_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,              \
                              size_t nelems, int pe) {                                             \
    shmem_##N##_iget(dest, source, dst, sst, nelems, pe);                                          \
  }                                                                                                \
  XSHMEMI_CXX void shmem_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,            \
                              ptrdiff_t sst, size_t nelems, int pe) {                              \
    shmem_ctx_##N##_iget(ctx, dest, source, dst, sst, nelems, pe);                                 \
  }                                                                                                \
  XSHMEMI_CXX void shmem_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,   \
                                    uint64_t signal, int sig_op, int pe) {                         \
    shmem_##N##_put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe);                    \
  }                                                                                                \
  XSHMEMI_CXX void shmem_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,      \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {     \
    shmem_ctx_##N##_put_signal(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe);           \
  }                                                                                                \
  XSHMEMI_CXX void shmem_put_signal_nbi(T *dest, const T *source, size_t nelems,                   \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    shmem_##N##_put_signal_nbi(dest, source, nelems, sig_addr, signal, sig_op, pe);                \
  }                                                                                                \
  XSHMEMI_CXX void shmem_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,  \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    shmem_ctx_##N##_put_signal_nbi(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe);       \
  }                                                                                                \
  XSHMEMI_CXX int shmem_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,      \
                                  int PE_root) {                                                   \
    return shmem_##N##_broadcast(team, dest, source, nelems, PE_root);                             \
  }                                                                                                \
  XSHMEMI_CXX int shmem_collect(shmem_team_t team, T *dest, const T *source, size_t nelems) {      \
    return shmem_##N##_collect(team, dest, source, nelems);                                        \
  }                                                                                                \
  XSHMEMI_CXX int shmem_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems) {     \
    return shmem_##N##_fcollect(team, dest, source, nelems);                                       \
  }                                                                                                \
  XSHMEMI_CXX int shmem_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems) {     \
    return shmem_##N##_alltoall(team, dest, source, nelems);                                       \
  }                                                                                                \
  XSHMEMI_CXX int shmem_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,      \
                                  ptrdiff_t sst, size_t nelems) {                                  \
    return shmem_##N##_alltoalls(team, dest, source, dst, sst, nelems);                            \
  }
XSHMEMI_GEN_RMA(XSHMEMI_CXX_RMA, _)
#undef XSHMEMI_CXX_RMA

#define XSHMEMI_CXX_AMO_EXT(T, N, OP)                                                           \
  XSHMEMI_CXX T shmem_atomic_fetch(const T *source, int pe) {                                   \
    return shmem_##N##_atomic_fetch(source, pe);                                                \
  }                                                                                             \
  XSHMEMI_CXX T shmem_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe) {                  \
    return shmem_ctx_##N##_atomic_fetch(ctx, source, pe);                                       \
  }                                                                                             \
  XSHMEMI_CXX void shmem_atomic_set(T *dest, T value, int pe) {                                 \
    shmem_##N##_atomic_set(dest, value, pe);                                                    \
  }                                                                                             \
  XSHMEMI_CXX void shmem_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe) {                \
    shmem_ctx_##N##_atomic_set(ctx, dest, value, pe);                                           \
  }                                                                                             \
  XSHMEMI_CXX T shmem_atomic_swap(T *dest, T value, int pe) {                                   \
    return shmem_##N##_atomic_swap(dest, value, pe);                                            \
  }                                                                                             \
  XSHMEMI_CXX T shmem_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe) {                  \
    return shmem_ctx_##N##_atomic_swap(ctx, dest, value, pe);                                   \
  }                                                                                             \
  XSHMEMI_CXX void shmem_atomic_fetch_nbi(T *fetch, const T *source, int pe) {                  \
    shmem_##N##_atomic_fetch_nbi(fetch, source, pe);                                            \
  }                                                                                             \
  XSHMEMI_CXX void shmem_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe) { \
    shmem_ctx_##N##_atomic_fetch_nbi(ctx, fetch, source, pe);                                   \
  }                                                                                             \
  XSHMEMI_CXX void shmem_atomic_swap_nbi(T *fetch, T *dest, T value, int pe) {                  \
    shmem_##N##_atomic_swap_nbi(fetch, dest, value, pe);                                        \
  }                                                                                             \
  XSHMEMI_CXX void shmem_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) { \
    shmem_ctx_##N##_atomic_swap_nbi(ctx, fetch, dest, value, pe);                               \
  }
XSHMEMI_GEN_AMO_EXT(XSHMEMI_CXX_AMO_EXT, _)
#undef XSHMEMI_CXX_AMO_EXT

#define XSHMEMI_CXX_AMO_STD(T, N, OP)                                                             \
  XSHMEMI_CXX T shmem_atomic_compare_swap(T *dest, T cond, T value, int pe) {                     \
    return shmem_##N##_atomic_compare_swap(dest, cond, value, pe);                                \
  }                                                                                               \
  XSHMEMI_CXX T shmem_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe) {    \
    return shmem_ctx_##N##_atomic_compare_swap(ctx, dest, cond, value, pe);                       \
  }                                                                                               \
  XSHMEMI_CXX T shmem_atomic_fetch_inc(T *dest, int pe) {                                         \
    return shmem_##N##_atomic_fetch_inc(dest, pe);                                                \
  }                                                                                               \
  XSHMEMI_CXX T shmem_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe) {                        \
    return shmem_ctx_##N##_atomic_fetch_inc(ctx, dest, pe);                                       \
  }                                                                                               \
  XSHMEMI_CXX void shmem_atomic_inc(T *dest, int pe) {                                            \
    shmem_##N##_atomic_inc(dest, pe);                                                             \
  }                                                                                               \
  XSHMEMI_CXX void shmem_atomic_inc(shmem_ctx_t ctx, T *dest, int pe) {                           \
    shmem_ctx_##N##_atomic_inc(ctx, dest, pe);                                                    \
  }                                                                                               \
  XSHMEMI_CXX T shmem_atomic_fetch_add(T *dest, T value, int pe) {                                \
    return shmem_##N##_atomic_fetch_add(dest, value, pe);                                         \
  }                                                                                               \
  XSHMEMI_CXX T shmem_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe) {               \
    return shmem_ctx_##N##_atomic_fetch_add(ctx, dest, value, pe);                                \
  }                                                                                               \
  XSHMEMI_CXX void shmem_atomic_add(T *dest, T value, int pe) {                                   \
    shmem_##N##_atomic_add(dest, value, pe);                                                      \
  }                                                                                               \
  XSHMEMI_CXX void shmem_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe) {                  \
    shmem_ctx_##N##_atomic_add(ctx, dest, value, pe);                                             \
  }                                                                                               \
  XSHMEMI_CXX void shmem_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe) {    \
    shmem_##N##_atomic_compare_swap_nbi(fetch, dest, cond, value, pe);                            \
  }                                                                                               \
  XSHMEMI_CXX void shmem_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond,      \
                                                 T value, int pe) {                               \
    shmem_ctx_##N##_atomic_compare_swap_nbi(ctx, fetch, dest, cond, value, pe);                   \
  }                                                                                               \
  XSHMEMI_CXX void shmem_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe) {                        \
    shmem_##N##_atomic_fetch_inc_nbi(fetch, dest, pe);                                            \
  }                                                                                               \
  XSHMEMI_CXX void shmem_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe) {       \
    shmem_ctx_##N##_atomic_fetch_inc_nbi(ctx, fetch, dest, pe);                                   \
  }                                                                                               \
  XSHMEMI_CXX void shmem_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe) {               \
    shmem_##N##_atomic_fetch_add_nbi(fetch, dest, value, pe);                                     \
  }                                                                                               \
  XSHMEMI_CXX void shmem_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value,        \
                                              int pe) {                                           \
    shmem_ctx_##N##_atomic_fetch_add_nbi(ctx, fetch, dest, value, pe);                            \
  }                                                                                               \
  XSHMEMI_CXX void shmem_wait_until(T *ivar, int cmp, T cmp_value) {                              \
    shmem_##N##_wait_until(ivar, cmp, cmp_value);                                                 \
  }                                                                                               \
  XSHMEMI_CXX void shmem_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,      \
                                        T cmp_value) {                                            \
    shmem_##N##_wait_until_all(ivars, nelems, status, cmp, cmp_value);                            \
  }                                                                                               \
  XSHMEMI_CXX size_t shmem_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,    \
                                          T cmp_value) {                                          \
    return shmem_##N##_wait_until_any(ivars, nelems, status, cmp, cmp_value);                     \
  }                                                                                               \
  XSHMEMI_CXX size_t shmem_wait_until_some(T *ivars, size_t nelems, size_t *indices,              \
                                           const int *status, int cmp, T cmp_value) {             \
    return shmem_##N##_wait_until_some(ivars, nelems, indices, status, cmp, cmp_value);           \
  }                                                                                               \
  XSHMEMI_CXX void shmem_wait_until_all_vector(T *ivars, size_t nelems, const int *status,        \
                                               int cmp, T *cmp_values) {                          \
    shmem_##N##_wait_until_all_vector(ivars, nelems, status, cmp, cmp_values);                    \
  }                                                                                               \
  XSHMEMI_CXX size_t shmem_wait_until_any_vector(T *ivars, size_t nelems, const int *status,      \
                                                 int cmp, T *cmp_values) {                        \
    return shmem_##N##_wait_until_any_vector(ivars, nelems, status, cmp, cmp_values);             \
  }                                                                                               \
  XSHMEMI_CXX size_t shmem_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,       \
                                                  const int *status, int cmp, T *cmp_values) {    \
    return shmem_##N##_wait_until_some_vector(ivars, nelems, indices, status, cmp, cmp_values);   \
  }                                                                                               \
  XSHMEMI_CXX int shmem_test(T *ivar, int cmp, T cmp_value) {                                     \
    return shmem_##N##_test(ivar, cmp, cmp_value);                                                \
  }                                                                                               \
  XSHMEMI_CXX int shmem_test_all(T *ivars, size_t nelems, const int *status, int cmp,             \
                                 T cmp_value) {                                                   \
    return shmem_##N##_test_all(ivars, nelems, status, cmp, cmp_value);                           \
  }                                                                                               \
  XSHMEMI_CXX size_t shmem_test_any(T *ivars, size_t nelems, const int *status, int cmp,          \
                                    T cmp_value) {                                                \
    return shmem_##N##_test_any(ivars, nelems, status, cmp, cmp_value);                           \
  }                                                                                               \
  XSHMEMI_CXX size_t shmem_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, \
                                     int cmp, T cmp_value) {                                      \
    return shmem_##N##_test_some(ivars, nelems, indices, status, cmp, cmp_value);                 \
  }                                                                                               \
  XSHMEMI_CXX int shmem_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,      \
                                        T *cmp_values) {                                          \
    return shmem_##N##_test_all_vector(ivars, nelems, status, cmp, cmp_values);                   \
  }                                                                                               \
  XSHMEMI_CXX size_t shmem_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,   \
                                           T *cmp_values) {                                       \
    return shmem_##N##_test_any_vector(ivars, nelems, status, cmp, cmp_values);                   \
  }                                                                                               \
  XSHMEMI_CXX size_t shmem_test_some_vector(T *ivars, size_t nelems, size_t *indices,             \
                                            const int *status, int cmp, T *cmp_values) {          \
    return shmem_##N##_test_some_vector(ivars, nelems, indices, status, cmp, cmp_values);         \
  }
XSHMEMI_GEN_AMO_STD(XSHMEMI_CXX_AMO_STD, _)
#undef XSHMEMI_CXX_AMO_STD

/* FOP, OP, FOP_NBI: the routines' names from "_atomic" on (no C++ alternative token pasted). */
#define XSHMEMI_CXX_AMO_BIT_OP(T, N, FOP, OP, FOP_NBI)                                   \
  XSHMEMI_CXX T shmem##FOP(T *dest, T value, int pe) {                                   \
    return shmem_##N##FOP(dest, value, pe);                                              \
  }                                                                                      \
  XSHMEMI_CXX T shmem##FOP(shmem_ctx_t ctx, T *dest, T value, int pe) {                  \
    return shmem_ctx_##N##FOP(ctx, dest, value, pe);                                     \
  }                                                                                      \
  XSHMEMI_CXX void shmem##OP(T *dest, T value, int pe) {                                 \
    shmem_##N##OP(dest, value, pe);                                                      \
  }                                                                                      \
  XSHMEMI_CXX void shmem##OP(shmem_ctx_t ctx, T *dest, T value, int pe) {                \
    shmem_ctx_##N##OP(ctx, dest, value, pe);                                             \
  }                                                                                      \
  XSHMEMI_CXX void shmem##FOP_NBI(T *fetch, T *dest, T value, int pe) {                  \
    shmem_##N##FOP_NBI(fetch, dest, value, pe);                                          \
  }                                                                                      \
  XSHMEMI_CXX void shmem##FOP_NBI(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) { \
    shmem_ctx_##N##FOP_NBI(ctx, fetch, dest, value, pe);                                 \
  }
#define XSHMEMI_CXX_AMO_BIT(T, N, OP)                                                 \
  XSHMEMI_CXX_AMO_BIT_OP(T, N, _atomic_fetch_and, _atomic_and, _atomic_fetch_and_nbi) \
  XSHMEMI_CXX_AMO_BIT_OP(T, N, _atomic_fetch_or, _atomic_or, _atomic_fetch_or_nbi)    \
  XSHMEMI_CXX_AMO_BIT_OP(T, N, _atomic_fetch_xor, _atomic_xor, _atomic_fetch_xor_nbi)
XSHMEMI_GEN_AMO_BIT(XSHMEMI_CXX_AMO_BIT, _)
#undef XSHMEMI_CXX_AMO_BIT
#undef XSHMEMI_CXX_AMO_BIT_OP

#define XSHMEMI_CXX_REDUCE(T, N, OP)                                                       \
  XSHMEMI_CXX int shmem##OP(shmem_team_t team, T *dest, const T *source, size_t nreduce) { \
    return shmem_##N##OP(team, dest, source, nreduce);                                     \
  }
XSHMEMI_GEN_REDUCE_BIT(XSHMEMI_CXX_REDUCE, _and_reduce)
XSHMEMI_GEN_REDUCE_BIT(XSHMEMI_CXX_REDUCE, _or_reduce)
XSHMEMI_GEN_REDUCE_BIT(XSHMEMI_CXX_REDUCE, _xor_reduce)
XSHMEMI_GEN_REDUCE_ARITH(XSHMEMI_CXX_REDUCE, _max_reduce)
XSHMEMI_GEN_REDUCE_ARITH(XSHMEMI_CXX_REDUCE, _min_reduce)
XSHMEMI_GEN_SUMPROD(XSHMEMI_CXX_REDUCE, _sum_reduce)
XSHMEMI_GEN_SUMPROD(XSHMEMI_CXX_REDUCE, _prod_reduce)
XSHMEMI_GEN_REDUCE_ARITH(XSHMEMI_CXX_REDUCE, _sum_inscan)
XSHMEMI_GEN_REDUCE_ARITH(XSHMEMI_CXX_REDUCE, _sum_exscan)
#undef XSHMEMI_CXX_REDUCE

/* shmem_sync(team) is shmem_team_sync(team). */
XSHMEMI_CXX int shmem_sync(shmem_team_t team) {
  return shmem_team_sync(team);
}
}  // extern "C++"
#undef XSHMEMI_CXX
#endif /* C11 / C++ */

#endif /* XSHMEM_COMPAT_SHMEM_H */
