/*
 * xshmem public host API (C and C++).
 *
 * OpenSHMEM 1.5/1.6 names under the xshmem_ prefix. Host functions run the same path code that
 * GPU threads run (the thread-scope device API compiled for the host). Unless stated otherwise:
 * - `pe` is a PE number in the world team, 0 <= pe < xshmem_n_pes();
 * - `dest` (and, for gets, `source`) are symmetric addresses: inside the symmetric heap, returned
 *   by xshmem_malloc and friends on every PE;
 * - with XSHMEM_CHECKS on (the default), a bad argument stops the whole job with a one-line
 *   diagnostic naming the call, the argument and the PE, and exit status XSHMEM_EXIT_CHECK.
 * Ordering follows OpenSHMEM: puts to a PE may be delivered in any order unless separated by
 * xshmem_fence (per destination) or xshmem_quiet (completes everything outstanding).
 */
#ifndef XSHMEM_XSHMEM_H
#define XSHMEM_XSHMEM_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/types.h>

/* Compiled by nvcc as C++, the data-path functions below (RMA, atomics, signals, point-to-point
 * synchronization, ordering, my_pe, n_pes, ptr) are __host__ __device__ functions callable in
 * kernels too: see <xshmem/device/cuda_api.h>. XSHMEM_NO_DEVICE_API before the include keeps the
 * plain C declarations. */
#if defined(__CUDACC__) && defined(__cplusplus) && !defined(XSHMEM_NO_DEVICE_API)
#define XSHMEM_DEVICE_API 1
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Setup and query ------------------------------------------------------------------------ */

/* Starts the runtime: loads plugins, joins the job through the bootstrap, creates the symmetric
 * heap and connects every peer. Collective. Exits the process with a diagnostic on failure.
 * OpenSHMEM 1.6: may be called again while initialised (only counted, no communication); each
 * call, of this or of any init routine, needs a matching xshmem_finalize. After the last
 * finalize the job may be initialised again, with the same PE numbers. */
void xshmem_init(void);
/* Like xshmem_init, asking for thread support `requested` (an XSHMEM_THREAD_* level). Returns 0
 * and stores the level provided in *provided (if not NULL): always XSHMEM_THREAD_MULTIPLE.
 * Returns nonzero, without initialising, when `requested` is not one of the four levels, or
 * when init fails before the job is formed. Counted like xshmem_init. */
int xshmem_init_thread(int requested, int *provided);
/* Stores in *provided (if not NULL) the thread level the runtime provides: always
 * XSHMEM_THREAD_MULTIPLE, whichever init routine was used; callable before init too. */
void xshmem_query_thread(int *provided);
/* Collective. A finalize that does not match the last outstanding init acts as
 * xshmem_barrier_all and leaves the runtime usable. The last one barriers, then tears everything
 * down, leaving no thread, file descriptor or shared-memory segment that init created (rank 0
 * of a tcp job keeps its listening socket for a later init of the same job). Any thread may call
 * it; the init/finalize pairs of different threads are counted together. */
void xshmem_finalize(void);
/* This PE's number in the world team, and the number of PEs. */
#ifndef XSHMEM_DEVICE_API
int xshmem_my_pe(void);
int xshmem_n_pes(void);
#endif
/* Whether the runtime is initialised (1: an init not yet matched by the last finalize) or not
 * (0). Callable at any time, from any thread. */
int xshmem_query_initialized(void);
/* Stops every PE of the job, whatever each is doing (waiting, in a barrier, computing), within
 * seconds: each process exits with `status` (its low 8 bits). Prints one line naming the status
 * and this PE on stderr. Any thread may call it; if PEs call it at once with different statuses,
 * each PE exits with one of them. Before init it exits this process only. Does not return. */
#ifndef XSHMEM_DEVICE_API
void xshmem_global_exit(int status) __attribute__((noreturn));
#endif
/* Stores XSHMEM_MAJOR_VERSION and XSHMEM_MINOR_VERSION (the OpenSHMEM version followed) in
 * *major and *minor; a NULL pointer is skipped. Callable at any time. */
void xshmem_info_get_version(int *major, int *minor);
/* Writes XSHMEM_VENDOR_STRING, NUL-terminated, into `name` (at least XSHMEM_MAX_NAME_LEN bytes;
 * never more are written); NULL is ignored. Callable at any time. */
void xshmem_info_get_name(char *name);

/* Opaque unique id for applications with their own launcher (torch.distributed, ...): rank 0
 * calls xshmem_get_uniqueid, sends the bytes to every process, and each calls xshmem_init_attr
 * with XSHMEM_INIT_WITH_UNIQUEID. */
typedef struct xshmem_uniqueid {
  char internal[128];
} xshmem_uniqueid_t;
typedef struct xshmem_init_attr {
  int rank;   /* this process's rank in the job */
  int nranks; /* job size */
  xshmem_uniqueid_t uid;
  /* With XSHMEM_INIT_WITH_MPI_COMM: points to an MPI_Comm (MPI initialised by the application);
   * the job is that communicator's processes, PE i its rank i. */
  void *mpi_comm;
} xshmem_init_attr_t;
#define XSHMEM_INIT_WITH_UNIQUEID 1u
#define XSHMEM_INIT_WITH_MPI_COMM 2u
/* Fills *id (returns 0 on success). Only one process calls it, before any init. */
int xshmem_get_uniqueid(xshmem_uniqueid_t *id);
/* Fills *attr for init with a unique id. Returns 0. */
int xshmem_set_attr_uniqueid_args(int rank, int nranks, const xshmem_uniqueid_t *id,
                                  xshmem_init_attr_t *attr);
/* Like xshmem_init; with XSHMEM_INIT_WITH_UNIQUEID joins the job described by *attr (rank,
 * nranks, uid); with XSHMEM_INIT_WITH_MPI_COMM the job is the MPI communicator *attr->mpi_comm,
 * through the mpi bootstrap plugin. Returns 0 on success, nonzero (with a one-line reason) on
 * failure. */
int xshmem_init_attr(unsigned int flags, xshmem_init_attr_t *attr);

/* Address of `dest` at `pe` that this PE can load and store directly, or NULL if `pe` is not
 * load/store reachable. */
#ifndef XSHMEM_DEVICE_API
void *xshmem_ptr(const void *dest, int pe);
#endif
/* 1 if `addr` is a symmetric address reachable at `pe`, else 0. */
int xshmem_addr_accessible(const void *addr, int pe);
/* 1 if `pe` is a PE of this job that this PE can communicate with, else 0. */
int xshmem_pe_accessible(int pe);

/* ---- Teams --------------------------------------------------------------------------------- */

/* Splits `parent` (collective over its members, identical arguments): the new team holds the
 * parent's PEs start, start + stride, ... (size of them; a negative stride reverses the order;
 * stride 0 only with size 1). Returns 0 on every parent PE and *new_team = the team on members,
 * XSHMEM_TEAM_INVALID elsewhere; nonzero and XSHMEM_TEAM_INVALID on every PE when the triplet is
 * out of range, the parent is not a team of this PE, or no team slot is free on some member.
 * The team is usable at once. `config` (may be NULL) is read for the bits of `config_mask`. */
int xshmem_team_split_strided(xshmem_team_t parent, int start, int stride, int size,
                              const xshmem_team_config_t *config, long config_mask,
                              xshmem_team_t *new_team);
/* Splits `parent` into a 2D grid with `xrange` columns (xrange > size acts as size): the x-team
 * of a PE is its row (parent PEs with the same index / xrange), the y-team its column (same
 * index % xrange); the last row may be short. 0 on success on every PE, else nonzero and both
 * handles XSHMEM_TEAM_INVALID on every PE. */
int xshmem_team_split_2d(xshmem_team_t parent, int xrange, const xshmem_team_config_t *xaxis_config,
                         long xaxis_mask, xshmem_team_t *xaxis_team,
                         const xshmem_team_config_t *yaxis_config, long yaxis_mask,
                         xshmem_team_t *yaxis_team);
/* Collective over the team's members: releases the team (and its contexts). No-op for
 * XSHMEM_TEAM_INVALID; the predefined teams cannot be destroyed (checked mode stops the job). */
void xshmem_team_destroy(xshmem_team_t team);
/* The configuration the team was created with (bits of `config_mask`); 0, or nonzero for a
 * handle that is not a team of this PE. */
int xshmem_team_get_config(xshmem_team_t team, long config_mask, xshmem_team_config_t *config);
#ifndef XSHMEM_DEVICE_API
/* This PE's number in `team`, and the team's size; -1 for a handle that is not a team of this
 * PE. */
int xshmem_team_my_pe(xshmem_team_t team);
int xshmem_team_n_pes(xshmem_team_t team);
/* The number in `dest_team` of PE `src_pe` of `src_team`, or -1 (not a member, invalid team or
 * PE). */
int xshmem_team_translate_pe(xshmem_team_t src_team, int src_pe, xshmem_team_t dest_team);
/* xshmem_ptr with a team-relative PE number. */
void *xshmem_team_ptr(xshmem_team_t team, const void *dest, int pe);
/* Every member of `team` arrives before any leaves; this PE's stores before the call are visible
 * to every member after it (remote updates are not completed: quiet first). Returns 0. */
int xshmem_team_sync(xshmem_team_t team);
#endif

/* ---- Symmetric memory (collective over the world; identical arguments on every PE) --------- */

/* Size 0 returns NULL without synchronising. Failure (heap exhausted) returns NULL on every PE.
 * malloc/calloc/align barrier on exit, free on entry, realloc on entry and exit. */
void *xshmem_malloc(size_t size);
void *xshmem_calloc(size_t count, size_t size);
void *xshmem_align(size_t alignment, size_t size); /* alignment: power of two */
void *xshmem_realloc(void *ptr, size_t size);
void *xshmem_malloc_with_hints(size_t size, long hints);
void xshmem_free(void *ptr); /* NULL: no-op, no barrier */
#define XSHMEM_MALLOC_ATOMICS_REMOTE 1L
#define XSHMEM_MALLOC_SIGNAL_REMOTE 2L

#ifndef XSHMEM_DEVICE_API
/* ---- RMA ----------------------------------------------------------------------------------- */

/* Blocking put returns once `source` may be reused; blocking get once `dest` holds the data.
 * _nbi variants complete at the next quiet. p/g move one element; iput/iget take strides in
 * elements (dst, sst >= 1). */
#define XSHMEM_DECL_RMA(T, N)                                                                   \
  void xshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);                       \
  void xshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);                       \
  void xshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);                   \
  void xshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);                   \
  void xshmem_##N##_p(T *dest, T value, int pe);                                                \
  T xshmem_##N##_g(const T *source, int pe);                                                    \
  void xshmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                         int pe);                                                               \
  void xshmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                         int pe);
XSHMEM_RMA_TYPES(XSHMEM_DECL_RMA)
#undef XSHMEM_DECL_RMA

#define XSHMEM_DECL_SIZED(BITS, T)                                                     \
  void xshmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);        \
  void xshmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);        \
  void xshmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);  \
  void xshmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);  \
  void xshmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                         size_t nelems, int pe);                                       \
  void xshmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                         size_t nelems, int pe);
XSHMEM_SIZED_TYPES(XSHMEM_DECL_SIZED)
XSHMEM_DECL_SIZED(128, void)
#undef XSHMEM_DECL_SIZED

void xshmem_putmem(void *dest, const void *source, size_t nbytes, int pe);
void xshmem_getmem(void *dest, const void *source, size_t nbytes, int pe);
void xshmem_putmem_nbi(void *dest, const void *source, size_t nbytes, int pe);
void xshmem_getmem_nbi(void *dest, const void *source, size_t nbytes, int pe);

/* ---- Atomics ------------------------------------------------------------------------------- */

/* Fetching atomics return the old value; _nbi fetching variants store it to *fetch, valid after
 * the next quiet. Non-fetching atomics complete at the next quiet. */
#define XSHMEM_DECL_AMO_EXT(T, N)                                        \
  T xshmem_##N##_atomic_fetch(const T *source, int pe);                  \
  void xshmem_##N##_atomic_set(T *dest, T value, int pe);                \
  T xshmem_##N##_atomic_swap(T *dest, T value, int pe);                  \
  void xshmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe); \
  void xshmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);
XSHMEM_AMO_EXTENDED_TYPES(XSHMEM_DECL_AMO_EXT)
#undef XSHMEM_DECL_AMO_EXT

#define XSHMEM_DECL_AMO_STD(T, N)                                                        \
  T xshmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);                  \
  T xshmem_##N##_atomic_fetch_inc(T *dest, int pe);                                      \
  void xshmem_##N##_atomic_inc(T *dest, int pe);                                         \
  T xshmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                             \
  void xshmem_##N##_atomic_add(T *dest, T value, int pe);                                \
  void xshmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe); \
  void xshmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);                     \
  void xshmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);
XSHMEM_AMO_STANDARD_TYPES(XSHMEM_DECL_AMO_STD)
#undef XSHMEM_DECL_AMO_STD

#define XSHMEM_DECL_AMO_BIT(T, N)                                             \
  T xshmem_##N##_atomic_fetch_and(T *dest, T value, int pe);                  \
  void xshmem_##N##_atomic_and(T *dest, T value, int pe);                     \
  T xshmem_##N##_atomic_fetch_or(T *dest, T value, int pe);                   \
  void xshmem_##N##_atomic_or(T *dest, T value, int pe);                      \
  T xshmem_##N##_atomic_fetch_xor(T *dest, T value, int pe);                  \
  void xshmem_##N##_atomic_xor(T *dest, T value, int pe);                     \
  void xshmem_##N##_atomic_fetch_and_nbi(T *fetch, T *dest, T value, int pe); \
  void xshmem_##N##_atomic_fetch_or_nbi(T *fetch, T *dest, T value, int pe);  \
  void xshmem_##N##_atomic_fetch_xor_nbi(T *fetch, T *dest, T value, int pe);
XSHMEM_AMO_BITWISE_TYPES(XSHMEM_DECL_AMO_BIT)
#undef XSHMEM_DECL_AMO_BIT

/* ---- Signals ------------------------------------------------------------------------------- */

/* Puts `nelems` elements, then updates the 64-bit signal at `sig_addr` on `pe` with `signal`
 * (sig_op XSHMEM_SIGNAL_SET or XSHMEM_SIGNAL_ADD). A PE that observes the signal update sees the
 * data. nelems == 0 still updates the signal. */
#define XSHMEM_DECL_SIG(T, N)                                                                   \
  void xshmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,     \
                               uint64_t signal, int sig_op, int pe);                            \
  void xshmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                                   uint64_t signal, int sig_op, int pe);
XSHMEM_RMA_TYPES(XSHMEM_DECL_SIG)
#undef XSHMEM_DECL_SIG
#define XSHMEM_DECL_SIG_SIZED(BITS, T)                                                     \
  void xshmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,            \
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
  void xshmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems,        \
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
XSHMEM_SIZED_TYPES(XSHMEM_DECL_SIG_SIZED)
XSHMEM_DECL_SIG_SIZED(128, void)
#undef XSHMEM_DECL_SIG_SIZED
void xshmem_putmem_signal(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                          uint64_t signal, int sig_op, int pe);
void xshmem_putmem_signal_nbi(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                              uint64_t signal, int sig_op, int pe);
/* Atomically adds to / sets the signal at `pe` (OpenSHMEM 1.6). */
void xshmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe);
void xshmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe);
/* Reads the local signal atomically. */
uint64_t xshmem_signal_fetch(const uint64_t *sig_addr);
/* Waits until the local signal satisfies `cmp` against `cmp_value`; returns the value seen. */
uint64_t xshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- Point-to-point synchronization -------------------------------------------------------- */

/* wait_until blocks until *ivar (a local symmetric word) satisfies cmp; test returns 1 if it
 * does. _all/_any/_some act on arrays; `status` (may be NULL) excludes entries that are nonzero;
 * _vector variants take one comparison value per element. _any returns an index or SIZE_MAX,
 * _some returns how many indices it wrote to `indices`. */
#define XSHMEM_DECL_P2P(T, N)                                                                      \
  void xshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                                     \
  void xshmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,            \
                                   T cmp_value);                                                   \
  size_t xshmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,          \
                                     T cmp_value);                                                 \
  size_t xshmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, \
                                      int cmp, T cmp_value);                                       \
  void xshmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,     \
                                          const T *cmp_values);                                    \
  size_t xshmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,   \
                                            const T *cmp_values);                                  \
  size_t xshmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,             \
                                             const int *status, int cmp, const T *cmp_values);     \
  int xshmem_##N##_test(T *ivar, int cmp, T cmp_value);                                            \
  int xshmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);     \
  size_t xshmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);  \
  size_t xshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,       \
                                int cmp, T cmp_value);                                             \
  int xshmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,            \
                                   const T *cmp_values);                                           \
  size_t xshmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,         \
                                      const T *cmp_values);                                        \
  size_t xshmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,                   \
                                       const int *status, int cmp, const T *cmp_values);
XSHMEM_P2P_TYPES(XSHMEM_DECL_P2P)
#undef XSHMEM_DECL_P2P

/* ---- collectives: data movement ---- */

/* Team collectives (OpenSHMEM 1.5 team forms): every member of `team` calls, in the same order
 * on every member, with the same `nelems` (collect: its own count) and root; dest and source are
 * symmetric and identical on every member. The call returns once this PE's `dest` holds the
 * result and its `source` may be reused; the next collective on the team may follow at once.
 * 1.6 readiness: `dest` must be ready on every member before any member calls (members write
 * into each other's dest directly). Each returns 0, or nonzero (nothing done) for a team that is
 * not a team of this PE when checks are off (checked mode stops the job). nelems 0 moves
 * nothing (NULL buffers allowed) but still synchronises the team.
 * - broadcast: source at member PE_root -> dest of every member, PE_root included (team-relative
 *   root; source == dest allowed).
 * - fcollect: member i's nelems elements land at dest[i * nelems] of every member.
 * - collect: like fcollect with per-member counts; member i's part follows those of members
 *   0..i-1 (concatenation in team order).
 * - alltoall: block j of source (nelems elements at source[j * nelems]) goes to member j, at
 *   dest[me * nelems].
 * - alltoalls: as alltoall with element strides: source[(j * nelems + i) * sst] goes to member j
 *   at dest[(me * nelems + i) * dst]; dst, sst >= 1.
 * The mem forms count bytes. */
#define XSHMEM_DECL_COLL_MOVE(T, N)                                                       \
  int xshmem_##N##_broadcast(xshmem_team_t team, T *dest, const T *source, size_t nelems, \
                             int PE_root);                                                \
  int xshmem_##N##_collect(xshmem_team_t team, T *dest, const T *source, size_t nelems);  \
  int xshmem_##N##_fcollect(xshmem_team_t team, T *dest, const T *source, size_t nelems); \
  int xshmem_##N##_alltoall(xshmem_team_t team, T *dest, const T *source, size_t nelems); \
  int xshmem_##N##_alltoalls(xshmem_team_t team, T *dest, const T *source, ptrdiff_t dst, \
                             ptrdiff_t sst, size_t nelems);
XSHMEM_RMA_TYPES(XSHMEM_DECL_COLL_MOVE)
#undef XSHMEM_DECL_COLL_MOVE
int xshmem_broadcastmem(xshmem_team_t team, void *dest, const void *source, size_t nelems,
                        int PE_root);
int xshmem_collectmem(xshmem_team_t team, void *dest, const void *source, size_t nelems);
int xshmem_fcollectmem(xshmem_team_t team, void *dest, const void *source, size_t nelems);
int xshmem_alltoallmem(xshmem_team_t team, void *dest, const void *source, size_t nelems);
int xshmem_alltoallsmem(xshmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                        ptrdiff_t sst, size_t nelems);
/* ---- end collectives: data movement ---- */

/* ---- Ordering and synchronization ---------------------------------------------------------- */

/* Orders puts, AMOs and put-with-signal to each PE: those before the fence are delivered before
 * those after it, per destination. */
void xshmem_fence(void);
/* Completes every put, get, AMO and put-with-signal issued by this PE; they are visible to all
 * PEs on return. */
void xshmem_quiet(void);
/* quiet + every PE of the world arrives before any leaves. */
void xshmem_barrier_all(void);
/* Every PE arrives before any leaves; does not complete remote updates (quiet does). */
void xshmem_sync_all(void);

/* ---- collectives: reductions ---- */
/* Team reductions (collective over `team`'s members, identical arguments): dest[i] becomes the
 * combination over all members, in team order, of their source[i], for i < nreduce. dest and
 * source are symmetric, the same on every member, and either equal (in place) or disjoint.
 * Every member gets bit-identical results; integer sums and products wrap around. Returns 0, or
 * nonzero when `team` is not a team of this PE (checked mode stops the job instead). The source
 * need not be synchronised before the call; dest and source may be reused once it returns.
 * Algorithm: XSHMEM_COLL_REDUCE_ALGO (auto, direct, rsag). */
#define XSHMEM_DECL_REDUCE(T, N, OP) \
  int xshmem_##N##_##OP##_reduce(xshmem_team_t team, T *dest, const T *source, size_t nreduce);
#define XSHMEM_DECL_REDUCE_BIT(T, N) \
  XSHMEM_DECL_REDUCE(T, N, and) XSHMEM_DECL_REDUCE(T, N, or) XSHMEM_DECL_REDUCE(T, N, xor)
/* Arithmetic reductions, and the OpenSHMEM 1.6 scans: sum_inscan gives member i the sum over
 * members 0..i, sum_exscan over members 0..i-1 (zero on member 0). */
#define XSHMEM_DECL_REDUCE_ARITH(T, N)                                                      \
  XSHMEM_DECL_REDUCE(T, N, max)                                                             \
  XSHMEM_DECL_REDUCE(T, N, min)                                                             \
  XSHMEM_DECL_REDUCE(T, N, sum)                                                             \
  XSHMEM_DECL_REDUCE(T, N, prod)                                                            \
  int xshmem_##N##_sum_inscan(xshmem_team_t team, T *dest, const T *source, size_t nelems); \
  int xshmem_##N##_sum_exscan(xshmem_team_t team, T *dest, const T *source, size_t nelems);
XSHMEM_REDUCE_BITWISE_TYPES(XSHMEM_DECL_REDUCE_BIT)
XSHMEM_REDUCE_ARITH_TYPES(XSHMEM_DECL_REDUCE_ARITH)
#undef XSHMEM_DECL_REDUCE_ARITH
#undef XSHMEM_DECL_REDUCE_BIT
#undef XSHMEM_DECL_REDUCE
/* ---- end collectives: reductions ---- */
#else
/* ---- collectives: reductions (host only: long double) ---- */
#define XSHMEM_DECL_REDUCE_LD(T, N)                                                           \
  int xshmem_##N##_max_reduce(xshmem_team_t team, T *dest, const T *source, size_t nreduce);  \
  int xshmem_##N##_min_reduce(xshmem_team_t team, T *dest, const T *source, size_t nreduce);  \
  int xshmem_##N##_sum_reduce(xshmem_team_t team, T *dest, const T *source, size_t nreduce);  \
  int xshmem_##N##_prod_reduce(xshmem_team_t team, T *dest, const T *source, size_t nreduce); \
  int xshmem_##N##_sum_inscan(xshmem_team_t team, T *dest, const T *source, size_t nelems);   \
  int xshmem_##N##_sum_exscan(xshmem_team_t team, T *dest, const T *source, size_t nelems);
XSHMEM_DECL_REDUCE_LD(long double, longdouble)
#undef XSHMEM_DECL_REDUCE_LD
/* ---- end collectives: reductions ---- */
/* Host only (no long double in device code). */
#define XSHMEM_DECL_RMA_LD(T, N)                                                                \
  void xshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);                       \
  void xshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);                       \
  void xshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);                   \
  void xshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);                   \
  void xshmem_##N##_p(T *dest, T value, int pe);                                                \
  T xshmem_##N##_g(const T *source, int pe);                                                    \
  void xshmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                         int pe);                                                               \
  void xshmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                         int pe);                                                               \
  void xshmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,     \
                               uint64_t signal, int sig_op, int pe);                            \
  void xshmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                                   uint64_t signal, int sig_op, int pe);
XSHMEM_DECL_RMA_LD(long double, longdouble)
#undef XSHMEM_DECL_RMA_LD
/* ---- collectives: data movement ---- */
int xshmem_longdouble_broadcast(xshmem_team_t team, long double *dest, const long double *source,
                                size_t nelems, int PE_root);
int xshmem_longdouble_collect(xshmem_team_t team, long double *dest, const long double *source,
                              size_t nelems);
int xshmem_longdouble_fcollect(xshmem_team_t team, long double *dest, const long double *source,
                               size_t nelems);
int xshmem_longdouble_alltoall(xshmem_team_t team, long double *dest, const long double *source,
                               size_t nelems);
int xshmem_longdouble_alltoalls(xshmem_team_t team, long double *dest, const long double *source,
                                ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
/* ---- end collectives: data movement ---- */
#endif /* XSHMEM_DEVICE_API */

/* ---- collectives: complex reductions ---- */
/* xshmem_complexd_sum_reduce, _prod_reduce, and the complexf pair (OpenSHMEM 1.5 team reduction
 * table): as the reductions above, on xshmem_complexd_t / xshmem_complexf_t (double _Complex and
 * float _Complex, <xshmem/types.h>). sum adds real and imaginary parts; prod is the textbook
 * product (ac - bd, ad + bc) in team order, without C's Annex G recovery of infinities, the same
 * rounding on host and GPU (no fused multiply-add). In kernels the thread, _warp and _block
 * forms too. */
/* XSHMEM_HAVE_COMPLEX_REDUCE: <xshmem/types.h>. */
#ifndef XSHMEM_DEVICE_API
#define XSHMEM_DECL_REDUCE_COMPLEX(T, N)                                                     \
  int xshmem_##N##_sum_reduce(xshmem_team_t team, T *dest, const T *source, size_t nreduce); \
  int xshmem_##N##_prod_reduce(xshmem_team_t team, T *dest, const T *source, size_t nreduce);
XSHMEM_REDUCE_COMPLEX_TYPES(XSHMEM_DECL_REDUCE_COMPLEX)
#undef XSHMEM_DECL_REDUCE_COMPLEX
#endif /* XSHMEM_DEVICE_API */
/* ---- end collectives: complex reductions ---- */

/* ---- Distributed locks (OpenSHMEM 1.5) -----------------------------------------------------
 * `lock` is a symmetric long that the program sets to 0 on every PE before any PE uses it (a
 * barrier between); the calls are not collective. Holders are served in the order they asked (a
 * ticket lock on PE 0's copy of the lock, <xshmem/device/lock.h>), so N PEs acquiring K times each
 * finish after N * K hand-overs. In kernels the three are thread-scope device calls too, any
 * number of threads contending. Undefined: clear_lock by a PE that does not hold the lock,
 * set_lock by its holder. */
/* XSHMEM_HAVE_LOCKS: <xshmem/types.h>. */
#ifndef XSHMEM_DEVICE_API
/* Blocks until this PE (thread) holds `lock`. A wait past XSHMEM_WAIT_TIMEOUT stops the job
 * naming the lock and the ticket it waited for. */
void xshmem_set_lock(long *lock);
/* Takes `lock` if no PE holds or waits for it: returns 0 when this PE now holds it, 1 otherwise
 * (at once, without waiting or queueing). */
int xshmem_test_lock(long *lock);
/* Completes this PE's puts, gets and atomics (xshmem_quiet), so the next holder sees what was
 * done under the lock, then releases `lock`. */
void xshmem_clear_lock(long *lock);
#endif /* XSHMEM_DEVICE_API */

/* ---- Contexts (begin) ------------------------------------------------------------------------
 * A context is an ordering domain: xshmem_ctx_fence and xshmem_ctx_quiet order and complete the
 * operations issued on that context (fence per destination PE, as xshmem_fence). The plain calls
 * use XSHMEM_CTX_DEFAULT. In the ctx forms `pe` is numbered in the context's team
 * (0 <= pe < xshmem_team_n_pes(team); world numbers for XSHMEM_CTX_DEFAULT and the contexts of
 * xshmem_ctx_create); the other arguments and the completion rules are the plain call's. A handle
 * belongs to the PE that created it. XSHMEM_CTX_PRIVATE contexts are used only by the creating
 * thread (checked mode stops the job otherwise); XSHMEM_CTX_SERIALIZED ones by one thread at a
 * time (the program's promise, not checked). Compiled by nvcc, the ctx data-path calls and
 * xshmem_ctx_get_team are callable in kernels too (see <xshmem/device/cuda_api.h>). */

/* Creates a context on the world team (xshmem_ctx_create) or on `team`, a team this PE is a
 * member of (xshmem_team_create_ctx). `options`: XSHMEM_CTX_SERIALIZED, XSHMEM_CTX_PRIVATE,
 * XSHMEM_CTX_NOSTORE OR-ed, or 0; other bits stop the job in checked mode. Local to this PE (no
 * other PE takes part), any thread. Returns 0 with the handle in *ctx; or nonzero with
 * XSHMEM_CTX_INVALID in *ctx when XSHMEM_MAX_CONTEXTS contexts of this PE exist already
 * (destroying one makes room again) or `team` is not a team of this PE. A failure is not an
 * error: the library stays usable. */
int xshmem_ctx_create(long options, xshmem_ctx_t *ctx);
int xshmem_team_create_ctx(xshmem_team_t team, long options, xshmem_ctx_t *ctx);
/* Completes the context's operations (as xshmem_ctx_quiet) and releases it. A no-op for
 * XSHMEM_CTX_INVALID. XSHMEM_CTX_DEFAULT, or a handle that is not a live context of this PE,
 * stops the job in checked mode. xshmem_team_destroy destroys the team's contexts; a
 * XSHMEM_CTX_PRIVATE one left then stops the job in checked mode (destroy those first). */
void xshmem_ctx_destroy(xshmem_ctx_t ctx);

/* The context RMA declarations of one type (used in both branches below). */
#define XSHMEM_DECL_CTX_RMA(T, N)                                                                 \
  void xshmem_ctx_##N##_put(xshmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);   \
  void xshmem_ctx_##N##_get(xshmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);   \
  void xshmem_ctx_##N##_put_nbi(xshmem_ctx_t ctx, T *dest, const T *source, size_t nelems,        \
                                int pe);                                                          \
  void xshmem_ctx_##N##_get_nbi(xshmem_ctx_t ctx, T *dest, const T *source, size_t nelems,        \
                                int pe);                                                          \
  void xshmem_ctx_##N##_p(xshmem_ctx_t ctx, T *dest, T value, int pe);                            \
  T xshmem_ctx_##N##_g(xshmem_ctx_t ctx, const T *source, int pe);                                \
  void xshmem_ctx_##N##_iput(xshmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,           \
                             ptrdiff_t sst, size_t nelems, int pe);                               \
  void xshmem_ctx_##N##_iget(xshmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,           \
                             ptrdiff_t sst, size_t nelems, int pe);                               \
  void xshmem_ctx_##N##_put_signal(xshmem_ctx_t ctx, T *dest, const T *source, size_t nelems,     \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);      \
  void xshmem_ctx_##N##_put_signal_nbi(xshmem_ctx_t ctx, T *dest, const T *source, size_t nelems, \
                                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);

#ifndef XSHMEM_DEVICE_API
/* Stores the team of `ctx` in *team (XSHMEM_TEAM_WORLD for XSHMEM_CTX_DEFAULT and the contexts
 * of xshmem_ctx_create) and returns 0; for XSHMEM_CTX_INVALID, or a handle that is not a live
 * context of this PE, stores XSHMEM_TEAM_INVALID and returns nonzero. */
int xshmem_ctx_get_team(xshmem_ctx_t ctx, xshmem_team_t *team);

/* RMA, atomics and put-with-signal on a context: the plain calls' semantics, `pe` in the
 * context's team. On XSHMEM_CTX_INVALID (or a destroyed context) they stop the job in checked
 * mode. */
XSHMEM_RMA_TYPES(XSHMEM_DECL_CTX_RMA)

#define XSHMEM_DECL_CTX_SIZED(BITS, T)                                                             \
  void xshmem_ctx_put##BITS(xshmem_ctx_t ctx, void *dest, const void *source, size_t nelems,       \
                            int pe);                                                               \
  void xshmem_ctx_get##BITS(xshmem_ctx_t ctx, void *dest, const void *source, size_t nelems,       \
                            int pe);                                                               \
  void xshmem_ctx_put##BITS##_nbi(xshmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                  int pe);                                                         \
  void xshmem_ctx_get##BITS##_nbi(xshmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                  int pe);                                                         \
  void xshmem_ctx_iput##BITS(xshmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,      \
                             ptrdiff_t sst, size_t nelems, int pe);                                \
  void xshmem_ctx_iget##BITS(xshmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,      \
                             ptrdiff_t sst, size_t nelems, int pe);                                \
  void xshmem_ctx_put##BITS##_signal(xshmem_ctx_t ctx, void *dest, const void *source,             \
                                     size_t nelems, uint64_t *sig_addr, uint64_t signal,           \
                                     int sig_op, int pe);                                          \
  void xshmem_ctx_put##BITS##_signal_nbi(xshmem_ctx_t ctx, void *dest, const void *source,         \
                                         size_t nelems, uint64_t *sig_addr, uint64_t signal,       \
                                         int sig_op, int pe);
XSHMEM_SIZED_TYPES(XSHMEM_DECL_CTX_SIZED)
XSHMEM_DECL_CTX_SIZED(128, void)
#undef XSHMEM_DECL_CTX_SIZED

void xshmem_ctx_putmem(xshmem_ctx_t ctx, void *dest, const void *source, size_t nbytes, int pe);
void xshmem_ctx_getmem(xshmem_ctx_t ctx, void *dest, const void *source, size_t nbytes, int pe);
void xshmem_ctx_putmem_nbi(xshmem_ctx_t ctx, void *dest, const void *source, size_t nbytes, int pe);
void xshmem_ctx_getmem_nbi(xshmem_ctx_t ctx, void *dest, const void *source, size_t nbytes, int pe);
void xshmem_ctx_putmem_signal(xshmem_ctx_t ctx, void *dest, const void *source, size_t nbytes,
                              uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void xshmem_ctx_putmem_signal_nbi(xshmem_ctx_t ctx, void *dest, const void *source, size_t nbytes,
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);

#define XSHMEM_DECL_CTX_AMO_EXT(T, N)                                                          \
  T xshmem_ctx_##N##_atomic_fetch(xshmem_ctx_t ctx, const T *source, int pe);                  \
  void xshmem_ctx_##N##_atomic_set(xshmem_ctx_t ctx, T *dest, T value, int pe);                \
  T xshmem_ctx_##N##_atomic_swap(xshmem_ctx_t ctx, T *dest, T value, int pe);                  \
  void xshmem_ctx_##N##_atomic_fetch_nbi(xshmem_ctx_t ctx, T *fetch, const T *source, int pe); \
  void xshmem_ctx_##N##_atomic_swap_nbi(xshmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
XSHMEM_AMO_EXTENDED_TYPES(XSHMEM_DECL_CTX_AMO_EXT)
#undef XSHMEM_DECL_CTX_AMO_EXT

#define XSHMEM_DECL_CTX_AMO_STD(T, N)                                                         \
  T xshmem_ctx_##N##_atomic_compare_swap(xshmem_ctx_t ctx, T *dest, T cond, T value, int pe); \
  T xshmem_ctx_##N##_atomic_fetch_inc(xshmem_ctx_t ctx, T *dest, int pe);                     \
  void xshmem_ctx_##N##_atomic_inc(xshmem_ctx_t ctx, T *dest, int pe);                        \
  T xshmem_ctx_##N##_atomic_fetch_add(xshmem_ctx_t ctx, T *dest, T value, int pe);            \
  void xshmem_ctx_##N##_atomic_add(xshmem_ctx_t ctx, T *dest, T value, int pe);               \
  void xshmem_ctx_##N##_atomic_compare_swap_nbi(xshmem_ctx_t ctx, T *fetch, T *dest, T cond,  \
                                                T value, int pe);                             \
  void xshmem_ctx_##N##_atomic_fetch_inc_nbi(xshmem_ctx_t ctx, T *fetch, T *dest, int pe);    \
  void xshmem_ctx_##N##_atomic_fetch_add_nbi(xshmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
XSHMEM_AMO_STANDARD_TYPES(XSHMEM_DECL_CTX_AMO_STD)
#undef XSHMEM_DECL_CTX_AMO_STD

#define XSHMEM_DECL_CTX_AMO_BIT_OP(T, N, OP)                                                  \
  T xshmem_ctx_##N##_atomic_fetch_##OP(xshmem_ctx_t ctx, T *dest, T value, int pe);           \
  void xshmem_ctx_##N##_atomic_##OP(xshmem_ctx_t ctx, T *dest, T value, int pe);              \
  void xshmem_ctx_##N##_atomic_fetch_##OP##_nbi(xshmem_ctx_t ctx, T *fetch, T *dest, T value, \
                                                int pe);
#define XSHMEM_DECL_CTX_AMO_BIT(T, N)   \
  XSHMEM_DECL_CTX_AMO_BIT_OP(T, N, and) \
  XSHMEM_DECL_CTX_AMO_BIT_OP(T, N, or)  \
  XSHMEM_DECL_CTX_AMO_BIT_OP(T, N, xor)
XSHMEM_AMO_BITWISE_TYPES(XSHMEM_DECL_CTX_AMO_BIT)
#undef XSHMEM_DECL_CTX_AMO_BIT
#undef XSHMEM_DECL_CTX_AMO_BIT_OP

/* Ordering on one context: fence orders the context's puts, AMOs and put-with-signal per
 * destination; quiet completes every operation issued on the context, visible to all PEs on
 * return (on a XSHMEM_CTX_NOSTORE context it need not complete plain stores; xshmem completes
 * them anyway). Both are no-ops for XSHMEM_CTX_INVALID. */
void xshmem_ctx_fence(xshmem_ctx_t ctx);
void xshmem_ctx_quiet(xshmem_ctx_t ctx);
/* quiet restricted to the operations to the `npes` PEs of `target_pes` (numbered in the
 * context's team; world numbers for xshmem_pe_quiet); npes == 0 returns at once (OpenSHMEM
 * 1.6). xshmem may complete more than asked. */
void xshmem_ctx_pe_quiet(xshmem_ctx_t ctx, const int *target_pes, int npes);
void xshmem_pe_quiet(const int *target_pes, int npes);
#else
/* Host only (no long double in device code). */
XSHMEM_DECL_CTX_RMA(long double, longdouble)
#endif /* XSHMEM_DEVICE_API */
#undef XSHMEM_DECL_CTX_RMA
/* ---- Contexts (end) ------------------------------------------------------------------------ */

#ifdef __cplusplus
}
#endif

#ifdef XSHMEM_DEVICE_API
#include <xshmem/device/cuda_api.h>
#endif

#endif /* XSHMEM_XSHMEM_H */
