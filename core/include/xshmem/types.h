/*
 * xshmem public API: type tables and constants.
 *
 * The X-macro tables below list the OpenSHMEM type classes once; the API header, the host
 * implementation and the tests expand them, so a type is added in one place. Each entry is
 * X(C type, name used in function names).
 */
#ifndef XSHMEM_TYPES_H
#define XSHMEM_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* The standard RMA types (put, get, p, g, iput, iget, put_signal). long double is host-only. */
// clang-format off
#define XSHMEM_RMA_TYPES_NO_LD(X) \
  X(float, float) X(double, double) X(char, char) X(signed char, schar) X(short, short) \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned char, uchar) \
  X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) \
  X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) \
  X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
#define XSHMEM_RMA_TYPES(X) XSHMEM_RMA_TYPES_NO_LD(X) X(long double, longdouble)

/* Fixed-size RMA (put8, put16, ...): X(bits, C type that copies that many bytes). */
#define XSHMEM_SIZED_TYPES(X) X(8, uint8_t) X(16, uint16_t) X(32, uint32_t) X(64, uint64_t)

/* Standard AMO types: compare_swap, fetch_inc, inc, fetch_add, add (and everything below). */
#define XSHMEM_AMO_STANDARD_TYPES(X) \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) \
  X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64) \
  X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Extended AMO types: fetch, set, swap. */
#define XSHMEM_AMO_EXTENDED_TYPES(X) XSHMEM_AMO_STANDARD_TYPES(X) X(float, float) X(double, double)

/* Bitwise AMO types: fetch_and, and, fetch_or, or, fetch_xor, xor. */
#define XSHMEM_AMO_BITWISE_TYPES(X) \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) \
  X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

/* Point-to-point synchronization types (wait_until, test families): the standard AMO types plus
 * the deprecated short/ushort of the typed interface. */
#define XSHMEM_P2P_TYPES(X) XSHMEM_AMO_STANDARD_TYPES(X) X(short, short) X(unsigned short, ushort)
/* ---- collectives: reductions ----
 * Team reductions (OpenSHMEM 1.5 team-based reduction table). Bitwise: and_reduce, or_reduce,
 * xor_reduce. Arithmetic: max_reduce, min_reduce, sum_reduce, prod_reduce, and the 1.6 scans
 * sum_inscan, sum_exscan. long double is host-only. Complex types (XSHMEM_REDUCE_COMPLEX_TYPES):
 * sum_reduce and prod_reduce only. */
#define XSHMEM_REDUCE_BITWISE_TYPES(X) \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) \
  X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) \
  X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) \
  X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)
#define XSHMEM_REDUCE_ARITH_TYPES_NO_LD(X) \
  X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long) \
  X(long long, longlong) X(ptrdiff_t, ptrdiff) X(unsigned char, uchar) \
  X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) \
  X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) \
  X(uint64_t, uint64) X(size_t, size) X(float, float) X(double, double)
#define XSHMEM_REDUCE_ARITH_TYPES(X) XSHMEM_REDUCE_ARITH_TYPES_NO_LD(X) X(long double, longdouble)
/* The complex types of sum_reduce and prod_reduce (complexd, complexf). */
#define XSHMEM_REDUCE_COMPLEX_TYPES(X) X(xshmem_complexd_t, complexd) X(xshmem_complexf_t, complexf)
/* ---- end collectives: reductions ---- */
// clang-format on

/* The element types of the complex reductions: C's double _Complex and float _Complex. C++ has
 * no _Complex; GCC, Clang and nvcc accept it as an extension with C's layout (__extension__ keeps
 * -pedantic quiet), so C and C++ callers pass the same type. Real part first, then imaginary
 * part: the layout of std::complex<double> and std::complex<float> too, whose arrays a C++
 * caller may pass through a reinterpret_cast. */
#if defined(__GNUC__) || defined(__clang__)
__extension__ typedef double _Complex xshmem_complexd_t;
__extension__ typedef float _Complex xshmem_complexf_t;
#elif !defined(__cplusplus)
typedef double _Complex xshmem_complexd_t;
typedef float _Complex xshmem_complexf_t;
#else
typedef struct xshmem_complexd {
  double re, im;
} xshmem_complexd_t;
typedef struct xshmem_complexf {
  float re, im;
} xshmem_complexf_t;
#endif

/* Feature macros: this API has the OpenSHMEM 1.5 distributed locks (xshmem_set_lock, ...) and the
 * complexd/complexf reductions. Here, with the type tables, because shmem.h and the generator of
 * its aliases read this header alone. */
#define XSHMEM_HAVE_LOCKS 1
#define XSHMEM_HAVE_COMPLEX_REDUCE 1

/* Comparison operators of wait_until/test/signal_wait_until. */
#define XSHMEM_CMP_EQ 0
#define XSHMEM_CMP_NE 1
#define XSHMEM_CMP_GT 2
#define XSHMEM_CMP_GE 3
#define XSHMEM_CMP_LT 4
#define XSHMEM_CMP_LE 5

/* Signal operators of put_signal. */
#define XSHMEM_SIGNAL_SET 0
#define XSHMEM_SIGNAL_ADD 1

/* Teams. A handle names the same team on every member; XSHMEM_TEAM_INVALID is not a team. */
typedef int32_t xshmem_team_t;
#define XSHMEM_TEAM_INVALID ((xshmem_team_t)-1)
#define XSHMEM_TEAM_WORLD ((xshmem_team_t)0)
/* The PEs this PE can load and store directly (xshmem_ptr non-NULL), this PE included. */
#define XSHMEM_TEAM_SHARED ((xshmem_team_t)1)
/* The PEs on this PE's node. */
#define XSHMEMX_TEAM_NODE ((xshmem_team_t)2)
/* Teams that can exist at once on a PE, the predefined three included. */
#define XSHMEM_MAX_TEAMS 64
/* team_get_config / team_split_* configuration. */
typedef struct xshmem_team_config {
  int num_contexts; /* contexts the team's creator means to create on it (a hint) */
} xshmem_team_config_t;
#define XSHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* Thread levels of xshmem_init_thread / xshmem_query_thread, in increasing order (OpenSHMEM
 * SHMEM_THREAD_*): SINGLE, one thread in the process; FUNNELED, only the thread that called init
 * calls xshmem; SERIALIZED, any thread, never two at once; MULTIPLE, any threads at once. */
#define XSHMEM_THREAD_SINGLE 0
#define XSHMEM_THREAD_FUNNELED 1
#define XSHMEM_THREAD_SERIALIZED 2
#define XSHMEM_THREAD_MULTIPLE 3

/* ---- Contexts (begin) ---------------------------------------------------------------------
 * A context is an ordering domain of one PE: fence and quiet on a context order and complete the
 * operations issued on it. A handle is local to the PE (and process) that created it. Device code
 * can use handles too: a handle carries its team (see <xshmem/device/ctx.h>). */
typedef int32_t xshmem_ctx_t;
/* The context every plain (non-ctx) call uses; its team is XSHMEM_TEAM_WORLD. */
#define XSHMEM_CTX_DEFAULT ((xshmem_ctx_t)0)
/* Not a context: what a failed creation returns. fence/quiet on it are no-ops; RMA and atomics on
 * it stop the job in checked mode. */
#define XSHMEM_CTX_INVALID ((xshmem_ctx_t)-1)
/* Options of xshmem_ctx_create / xshmem_team_create_ctx (OR them). SERIALIZED: the program never
 * calls on the context from two threads at once; PRIVATE: only the creating thread uses it;
 * NOSTORE: quiet on it need not complete the PE's plain stores to symmetric memory. */
#define XSHMEM_CTX_SERIALIZED (1L << 0)
#define XSHMEM_CTX_PRIVATE (1L << 1)
#define XSHMEM_CTX_NOSTORE (1L << 2)
/* ---- Contexts (end) ---------------------------------------------------------------------- */

/* Library version (info_get_version). */
#define XSHMEM_MAJOR_VERSION 1
#define XSHMEM_MINOR_VERSION 5
#define XSHMEM_VENDOR_STRING "xshmem 0.1"
#define XSHMEM_MAX_NAME_LEN 64

/* Exit code of a job stopped by a checked-mode error (bad argument to an API call). */
#define XSHMEM_EXIT_CHECK 86
/* Exit status of a job stopped because a PE's GPU context failed (a kernel faulted or trapped
 * outside checked mode): the runtime's watchdog stops every PE instead of leaving peers waiting. */
#define XSHMEM_EXIT_DEVICE_FAULT 87

#endif /* XSHMEM_TYPES_H */
