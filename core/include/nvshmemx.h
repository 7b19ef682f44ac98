/*
 * nvshmemx.h: <nvshmem.h> and NVSHMEM's nvshmemx_ extensions that xshmem provides, on xshmem
 * (issue 14 item 9, first part): initialisation with a unique id, the multicast pointer (always
 * NULL), the _warp and _block device forms, the on-stream calls and the collective launch. Each is
 * a static inline forward to the xshmem(x)_ routine of the same meaning; docs/compat.md, "NVSHMEM
 * programs", lists what is mapped and what is not.
 */
#ifndef XSHMEM_COMPAT_NVSHMEMX_H
#define XSHMEM_COMPAT_NVSHMEMX_H

#include <nvshmem.h>
#include <xshmem/xshmemx.h>

/* ---- Initialisation with a unique id (host) -------------------------------------------------
 * nvshmemx_get_uniqueid on one rank, shared by the program (MPI_Bcast, a file...), then
 * nvshmemx_set_attr_uniqueid_args and nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) on
 * every rank. Or, in an MPI program: attr.mpi_comm = &comm and
 * nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr) (the mpi bootstrap plugin; PE i is rank i
 * of comm). NVSHMEMX_INIT_WITH_SHMEM is not defined (no OpenSHMEM bootstrap), so a program that
 * names it does not compile. */
typedef xshmem_uniqueid_t nvshmemx_uniqueid_t;
typedef xshmem_init_attr_t nvshmemx_init_attr_t;
#define NVSHMEMX_INIT_WITH_UNIQUEID XSHMEM_INIT_WITH_UNIQUEID
/* attr.mpi_comm = &comm (an MPI_Comm of the application, MPI initialised): the job is comm. */
#define NVSHMEMX_INIT_WITH_MPI_COMM XSHMEM_INIT_WITH_MPI_COMM
#define NVSHMEMX_UNIQUEID_INITIALIZER \
  {                                   \
    { 0 }                             \
  }
#define NVSHMEMX_INIT_ATTR_INITIALIZER \
  { 0, 0, {{0}}, 0 }

NVSHMEMI_H int nvshmemx_get_uniqueid(nvshmemx_uniqueid_t *id) {
  return xshmem_get_uniqueid(id);
}
NVSHMEMI_H int nvshmemx_set_attr_uniqueid_args(int myrank, int nranks,
                                               const nvshmemx_uniqueid_t *id,
                                               nvshmemx_init_attr_t *attr) {
  return xshmem_set_attr_uniqueid_args(myrank, nranks, id, attr);
}
NVSHMEMI_H int nvshmemx_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr) {
  return xshmem_init_attr(flags, attr);
}

/* No multicast objects in xshmem: NULL for every team and address (NVSHMEM's answer where
 * multicast is not supported). */
NVSHMEMI_HD void *nvshmemx_mc_ptr(nvshmem_team_t team, const void *ptr) {
  (void)team;
  (void)ptr;
  return NULL;
}

/* ---- On-stream calls (host; a cudaStream_t is a struct CUstream_st *) ------------------------ */

NVSHMEMI_H void nvshmemx_putmem_on_stream(void *dest, const void *source, size_t nbytes, int pe,
                                          struct CUstream_st *stream) {
  xshmemx_putmem_on_stream(dest, source, nbytes, pe, stream);
}
NVSHMEMI_H void nvshmemx_getmem_on_stream(void *dest, const void *source, size_t nbytes, int pe,
                                          struct CUstream_st *stream) {
  xshmemx_getmem_on_stream(dest, source, nbytes, pe, stream);
}
NVSHMEMI_H void nvshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nbytes,
                                                 uint64_t *sig_addr, uint64_t signal, int sig_op,
                                                 int pe, struct CUstream_st *stream) {
  xshmemx_putmem_signal_on_stream(dest, source, nbytes, sig_addr, signal, sig_op, pe, stream);
}
NVSHMEMI_H void nvshmemx_quiet_on_stream(struct CUstream_st *stream) {
  xshmemx_quiet_on_stream(stream);
}
NVSHMEMI_H void nvshmemx_barrier_all_on_stream(struct CUstream_st *stream) {
  xshmemx_barrier_all_on_stream(stream);
}
NVSHMEMI_H void nvshmemx_sync_all_on_stream(struct CUstream_st *stream) {
  xshmemx_sync_all_on_stream(stream);
}
NVSHMEMI_H void nvshmemx_team_sync_on_stream(nvshmem_team_t team, struct CUstream_st *stream) {
  xshmemx_team_sync_on_stream(team, stream);
}
#define NVSHMEMI_RMA_ON_STREAM(T, N)                                                            \
  NVSHMEMI_H void nvshmemx_##N##_put_on_stream(T *dest, const T *source, size_t nelems, int pe, \
                                               struct CUstream_st *stream) {                    \
    xshmemx_putmem_on_stream(dest, source, nelems * sizeof(T), pe, stream);                     \
  }                                                                                             \
  NVSHMEMI_H void nvshmemx_##N##_get_on_stream(T *dest, const T *source, size_t nelems, int pe, \
                                               struct CUstream_st *stream) {                    \
    xshmemx_getmem_on_stream(dest, source, nelems * sizeof(T), pe, stream);                     \
  }
XSHMEM_RMA_TYPES_NO_LD(NVSHMEMI_RMA_ON_STREAM)
#undef NVSHMEMI_RMA_ON_STREAM
#define NVSHMEMI_RED_ON_STREAM(T, N, OP)                                                           \
  NVSHMEMI_H int nvshmemx_##N##_##OP##_reduce_on_stream(                                           \
      nvshmem_team_t team, T *dest, const T *source, size_t nreduce, struct CUstream_st *stream) { \
    return xshmemx_##N##_##OP##_reduce_on_stream(team, dest, source, nreduce, stream);             \
  }
#define NVSHMEMI_RED_ON_STREAM_BIT(T, N) \
  NVSHMEMI_RED_ON_STREAM(T, N, and)      \
  NVSHMEMI_RED_ON_STREAM(T, N, or) NVSHMEMI_RED_ON_STREAM(T, N, xor)
#define NVSHMEMI_RED_ON_STREAM_ARITH(T, N) \
  NVSHMEMI_RED_ON_STREAM(T, N, max)        \
  NVSHMEMI_RED_ON_STREAM(T, N, min)        \
  NVSHMEMI_RED_ON_STREAM(T, N, sum) NVSHMEMI_RED_ON_STREAM(T, N, prod)
XSHMEM_REDUCE_BITWISE_TYPES(NVSHMEMI_RED_ON_STREAM_BIT)
XSHMEM_REDUCE_ARITH_TYPES_NO_LD(NVSHMEMI_RED_ON_STREAM_ARITH)
#undef NVSHMEMI_RED_ON_STREAM_ARITH
#undef NVSHMEMI_RED_ON_STREAM_BIT
#undef NVSHMEMI_RED_ON_STREAM

/* ---- Device forms: _warp (every thread of a warp) and _block (every thread of a block) ------ */
#ifdef XSHMEM_DEVICE_API

/* nvshmemx_signal_op: NVSHMEM_SIGNAL_SET or NVSHMEM_SIGNAL_ADD on a remote signal. */
NVSHMEMI_HD void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  if (sig_op == NVSHMEM_SIGNAL_ADD)
    xshmem_signal_add(sig_addr, signal, pe);
  else
    xshmem_signal_set(sig_addr, signal, pe);
}

#define NVSHMEMI_GRP(S)                                                                           \
  NVSHMEMI_D void nvshmemx_putmem##S(void *dest, const void *source, size_t nbytes, int pe) {     \
    xshmemx_putmem##S(dest, source, nbytes, pe);                                                  \
  }                                                                                               \
  NVSHMEMI_D void nvshmemx_getmem##S(void *dest, const void *source, size_t nbytes, int pe) {     \
    xshmemx_getmem##S(dest, source, nbytes, pe);                                                  \
  }                                                                                               \
  NVSHMEMI_D void nvshmemx_putmem_nbi##S(void *dest, const void *source, size_t nbytes, int pe) { \
    xshmemx_putmem_nbi##S(dest, source, nbytes, pe);                                              \
  }                                                                                               \
  NVSHMEMI_D void nvshmemx_getmem_nbi##S(void *dest, const void *source, size_t nbytes, int pe) { \
    xshmemx_getmem_nbi##S(dest, source, nbytes, pe);                                              \
  }                                                                                               \
  NVSHMEMI_D void nvshmemx_putmem_signal##S(void *dest, const void *source, size_t nbytes,        \
                                            uint64_t *sig_addr, uint64_t signal, int sig_op,      \
                                            int pe) {                                             \
    xshmemx_putmem_signal##S(dest, source, nbytes, sig_addr, signal, sig_op, pe);                 \
  }                                                                                               \
  NVSHMEMI_D void nvshmemx_putmem_signal_nbi##S(void *dest, const void *source, size_t nbytes,    \
                                                uint64_t *sig_addr, uint64_t signal, int sig_op,  \
                                                int pe) {                                         \
    xshmemx_putmem_signal_nbi##S(dest, source, nbytes, sig_addr, signal, sig_op, pe);             \
  }                                                                                               \
  NVSHMEMI_D void nvshmemx_barrier_all##S(void) {                                                 \
    xshmemx_barrier_all##S();                                                                     \
  }                                                                                               \
  NVSHMEMI_D void nvshmemx_sync_all##S(void) {                                                    \
    xshmemx_sync_all##S();                                                                        \
  }                                                                                               \
  NVSHMEMI_D int nvshmemx_team_sync##S(nvshmem_team_t team) {                                     \
    return xshmemx_team_sync##S(team);                                                            \
  }                                                                                               \
  NVSHMEMI_D int nvshmemx_broadcastmem##S(nvshmem_team_t team, void *dest, const void *source,    \
                                          size_t nelems, int PE_root) {                           \
    return xshmemx_broadcastmem##S(team, dest, source, nelems, PE_root);                          \
  }                                                                                               \
  NVSHMEMI_D int nvshmemx_fcollectmem##S(nvshmem_team_t team, void *dest, const void *source,     \
                                         size_t nelems) {                                         \
    return xshmemx_fcollectmem##S(team, dest, source, nelems);                                    \
  }                                                                                               \
  NVSHMEMI_D int nvshmemx_alltoallmem##S(nvshmem_team_t team, void *dest, const void *source,     \
                                         size_t nelems) {                                         \
    return xshmemx_alltoallmem##S(team, dest, source, nelems);                                    \
  }
NVSHMEMI_GRP(_warp)
NVSHMEMI_GRP(_block)
#undef NVSHMEMI_GRP

#define NVSHMEMI_RMA_GRP(T, N, S)                                                                \
  NVSHMEMI_D void nvshmemx_##N##_put##S(T *dest, const T *source, size_t nelems, int pe) {       \
    xshmemx_##N##_put##S(dest, source, nelems, pe);                                              \
  }                                                                                              \
  NVSHMEMI_D void nvshmemx_##N##_get##S(T *dest, const T *source, size_t nelems, int pe) {       \
    xshmemx_##N##_get##S(dest, source, nelems, pe);                                              \
  }                                                                                              \
  NVSHMEMI_D void nvshmemx_##N##_put_nbi##S(T *dest, const T *source, size_t nelems, int pe) {   \
    xshmemx_##N##_put_nbi##S(dest, source, nelems, pe);                                          \
  }                                                                                              \
  NVSHMEMI_D void nvshmemx_##N##_get_nbi##S(T *dest, const T *source, size_t nelems, int pe) {   \
    xshmemx_##N##_get_nbi##S(dest, source, nelems, pe);                                          \
  }                                                                                              \
  NVSHMEMI_D void nvshmemx_##N##_iput##S(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                                         size_t nelems, int pe) {                                \
    xshmemx_##N##_iput##S(dest, source, dst, sst, nelems, pe);                                   \
  }                                                                                              \
  NVSHMEMI_D void nvshmemx_##N##_iget##S(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                                         size_t nelems, int pe) {                                \
    xshmemx_##N##_iget##S(dest, source, dst, sst, nelems, pe);                                   \
  }                                                                                              \
  NVSHMEMI_D void nvshmemx_##N##_put_signal##S(T *dest, const T *source, size_t nelems,          \
                                               uint64_t *sig_addr, uint64_t signal, int sig_op,  \
                                               int pe) {                                         \
    xshmemx_##N##_put_signal##S(dest, source, nelems, sig_addr, signal, sig_op, pe);             \
  }                                                                                              \
  NVSHMEMI_D void nvshmemx_##N##_put_signal_nbi##S(T *dest, const T *source, size_t nelems,      \
                                                   uint64_t *sig_addr, uint64_t signal,          \
                                                   int sig_op, int pe) {                         \
    xshmemx_##N##_put_signal_nbi##S(dest, source, nelems, sig_addr, signal, sig_op, pe);         \
  }                                                                                              \
  NVSHMEMI_D int nvshmemx_##N##_broadcast##S(nvshmem_team_t team, T *dest, const T *source,      \
                                             size_t nelems, int PE_root) {                       \
    return xshmemx_##N##_broadcast##S(team, dest, source, nelems, PE_root);                      \
  }                                                                                              \
  NVSHMEMI_D int nvshmemx_##N##_fcollect##S(nvshmem_team_t team, T *dest, const T *source,       \
                                            size_t nelems) {                                     \
    return xshmemx_##N##_fcollect##S(team, dest, source, nelems);                                \
  }                                                                                              \
  NVSHMEMI_D int nvshmemx_##N##_alltoall##S(nvshmem_team_t team, T *dest, const T *source,       \
                                            size_t nelems) {                                     \
    return xshmemx_##N##_alltoall##S(team, dest, source, nelems);                                \
  }
#define NVSHMEMI_RMA_WB(T, N) NVSHMEMI_RMA_GRP(T, N, _warp) NVSHMEMI_RMA_GRP(T, N, _block)
XSHMEM_RMA_TYPES_NO_LD(NVSHMEMI_RMA_WB)
#undef NVSHMEMI_RMA_WB
#undef NVSHMEMI_RMA_GRP

/* half and bfloat16 (nvshmem.h): the warp and block forms, as their 16 bits. */
#define NVSHMEMI_RMA16_GRP(T, N, S)                                                               \
  NVSHMEMI_D void nvshmemx_##N##_put##S(T *dest, const T *source, size_t nelems, int pe) {        \
    xshmemx_uint16_put##S(NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), nelems, pe);                 \
  }                                                                                               \
  NVSHMEMI_D void nvshmemx_##N##_get##S(T *dest, const T *source, size_t nelems, int pe) {        \
    xshmemx_uint16_get##S(NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), nelems, pe);                 \
  }                                                                                               \
  NVSHMEMI_D void nvshmemx_##N##_put_nbi##S(T *dest, const T *source, size_t nelems, int pe) {    \
    xshmemx_uint16_put_nbi##S(NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), nelems, pe);             \
  }                                                                                               \
  NVSHMEMI_D void nvshmemx_##N##_get_nbi##S(T *dest, const T *source, size_t nelems, int pe) {    \
    xshmemx_uint16_get_nbi##S(NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), nelems, pe);             \
  }                                                                                               \
  NVSHMEMI_D void nvshmemx_##N##_put_signal##S(T *dest, const T *source, size_t nelems,           \
                                               uint64_t *sig_addr, uint64_t signal, int sig_op,   \
                                               int pe) {                                          \
    xshmemx_uint16_put_signal##S(NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), nelems, sig_addr,     \
                                 signal, sig_op, pe);                                             \
  }                                                                                               \
  NVSHMEMI_D void nvshmemx_##N##_put_signal_nbi##S(T *dest, const T *source, size_t nelems,       \
                                                   uint64_t *sig_addr, uint64_t signal,           \
                                                   int sig_op, int pe) {                          \
    xshmemx_uint16_put_signal_nbi##S(NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), nelems, sig_addr, \
                                     signal, sig_op, pe);                                         \
  }                                                                                               \
  NVSHMEMI_D int nvshmemx_##N##_broadcast##S(nvshmem_team_t team, T *dest, const T *source,       \
                                             size_t nelems, int PE_root) {                        \
    return xshmemx_uint16_broadcast##S(team, NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), nelems,   \
                                       PE_root);                                                  \
  }                                                                                               \
  NVSHMEMI_D int nvshmemx_##N##_fcollect##S(nvshmem_team_t team, T *dest, const T *source,        \
                                            size_t nelems) {                                      \
    return xshmemx_uint16_fcollect##S(team, NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), nelems);   \
  }                                                                                               \
  NVSHMEMI_D int nvshmemx_##N##_alltoall##S(nvshmem_team_t team, T *dest, const T *source,        \
                                            size_t nelems) {                                      \
    return xshmemx_uint16_alltoall##S(team, NVSHMEMI_U16(dest), NVSHMEMI_CU16(source), nelems);   \
  }
NVSHMEMI_RMA16_GRP(half, half, _warp)
NVSHMEMI_RMA16_GRP(half, half, _block)
NVSHMEMI_RMA16_GRP(__nv_bfloat16, bfloat16, _warp)
NVSHMEMI_RMA16_GRP(__nv_bfloat16, bfloat16, _block)
#undef NVSHMEMI_RMA16_GRP

#define NVSHMEMI_RED_GRP(T, N, OP)                                                                 \
  NVSHMEMI_D int nvshmemx_##N##_##OP##_reduce_warp(nvshmem_team_t team, T *dest, const T *source,  \
                                                   size_t nreduce) {                               \
    return xshmemx_##N##_##OP##_reduce_warp(team, dest, source, nreduce);                          \
  }                                                                                                \
  NVSHMEMI_D int nvshmemx_##N##_##OP##_reduce_block(nvshmem_team_t team, T *dest, const T *source, \
                                                    size_t nreduce) {                              \
    return xshmemx_##N##_##OP##_reduce_block(team, dest, source, nreduce);                         \
  }
#define NVSHMEMI_RED_GRP_BIT(T, N) \
  NVSHMEMI_RED_GRP(T, N, and) NVSHMEMI_RED_GRP(T, N, or) NVSHMEMI_RED_GRP(T, N, xor)
#define NVSHMEMI_RED_GRP_ARITH(T, N) \
  NVSHMEMI_RED_GRP(T, N, max)        \
  NVSHMEMI_RED_GRP(T, N, min) NVSHMEMI_RED_GRP(T, N, sum) NVSHMEMI_RED_GRP(T, N, prod)
XSHMEM_REDUCE_BITWISE_TYPES(NVSHMEMI_RED_GRP_BIT)
XSHMEM_REDUCE_ARITH_TYPES_NO_LD(NVSHMEMI_RED_GRP_ARITH)
#undef NVSHMEMI_RED_GRP_ARITH
#undef NVSHMEMI_RED_GRP_BIT
#undef NVSHMEMI_RED_GRP

/* nvshmemx_collective_launch: xshmemx_collective_launch (every block resident at once, a grid
 * too large for the GPU refused); returns the cudaError_t as an int, as NVSHMEM does. */
static inline int nvshmemx_collective_launch(const void *func, dim3 grid, dim3 block, void **args,
                                             size_t shared_mem, cudaStream_t stream) {
  return (int)xshmemx_collective_launch(func, grid, block, args, shared_mem, stream);
}

#endif /* XSHMEM_DEVICE_API */

/* ---- nvshmemx_ calls xshmem does not provide (C++; see nvshmem.h) --------------------------- */
#ifdef __cplusplus
#define NVSHMEMI_NO_COLL_ON_STREAM "no on-stream broadcast, fcollect or alltoall yet"
NVSHMEMI_MISSING(nvshmemx_init_status, "no equivalent query yet")
NVSHMEMI_MISSING(nvshmemx_hostlib_init, "xshmem has no host-only library mode")
NVSHMEMI_MISSING(nvshmemx_buffer_register, "no registration of external buffers")
NVSHMEMI_MISSING(nvshmemx_buffer_unregister, "no registration of external buffers")
NVSHMEMI_MISSING(nvshmemx_collective_launch_query_gridsize, "not mapped yet")
NVSHMEMI_MISSING(nvshmemx_barrier_warp, "no team barrier; use quiet + nvshmemx_team_sync_warp")
NVSHMEMI_MISSING(nvshmemx_barrier_block, "no team barrier; use quiet + nvshmemx_team_sync_block")
NVSHMEMI_MISSING(nvshmemx_barrier_on_stream, "no team barrier on a stream")
NVSHMEMI_MISSING(nvshmemx_signal_wait_until_on_stream, "no stream wait on a signal yet")
NVSHMEMI_MISSING(nvshmemx_putmem_nbi_on_stream, "no _nbi on-stream forms yet")
NVSHMEMI_MISSING(nvshmemx_getmem_nbi_on_stream, "no _nbi on-stream forms yet")
NVSHMEMI_MISSING(nvshmemx_putmem_signal_nbi_on_stream, "no _nbi on-stream forms yet")
NVSHMEMI_MISSING(nvshmemx_broadcastmem_on_stream, NVSHMEMI_NO_COLL_ON_STREAM)
NVSHMEMI_MISSING(nvshmemx_fcollectmem_on_stream, NVSHMEMI_NO_COLL_ON_STREAM)
NVSHMEMI_MISSING(nvshmemx_alltoallmem_on_stream, NVSHMEMI_NO_COLL_ON_STREAM)
#define NVSHMEMI_MISSING_COLL_ON_STREAM(T, N)                                      \
  NVSHMEMI_MISSING(nvshmemx_##N##_broadcast_on_stream, NVSHMEMI_NO_COLL_ON_STREAM) \
  NVSHMEMI_MISSING(nvshmemx_##N##_fcollect_on_stream, NVSHMEMI_NO_COLL_ON_STREAM)  \
  NVSHMEMI_MISSING(nvshmemx_##N##_alltoall_on_stream, NVSHMEMI_NO_COLL_ON_STREAM)
XSHMEM_RMA_TYPES_NO_LD(NVSHMEMI_MISSING_COLL_ON_STREAM)
#undef NVSHMEMI_MISSING_COLL_ON_STREAM
#undef NVSHMEMI_NO_COLL_ON_STREAM
#endif /* __cplusplus */

#endif /* XSHMEM_COMPAT_NVSHMEMX_H */
