/*
 * xshmem extensions beyond OpenSHMEM (xshmemx_ prefix).
 */
#ifndef XSHMEM_XSHMEMX_H
#define XSHMEM_XSHMEMX_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/xshmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Out-of-band collectives over the bootstrap, not over the data path: slow, for test harnesses
 * and tools that must agree even when the data path under test is broken. Every PE calls them in
 * the same order. Return 0 on success. */
int xshmemx_oob_allgather(const void *in, void *out, size_t len_per_pe);
int xshmemx_oob_barrier(void);

/* The name of the transport that serves `pe` ("hostshm", ...), or NULL if none does. */
const char *xshmemx_transport_name(int pe);

/* Where this PE's symmetric heap lives: the CUDA device ordinal (runtime numbering) of a GPU
 * heap, or -1 for a heap in host memory. */
int xshmemx_heap_device(void);

/* ---- On-stream operations (GPU heaps) ------------------------------------------------------
 * Enqueued on `stream` (a cudaStream_t: struct CUstream_st * is its definition, so no CUDA
 * header is needed here) in stream order with the caller's kernels and copies; the call returns
 * at once. They need a GPU heap (a host heap is a checked-mode error) and stop the job with a
 * diagnostic in a build without CUDA. Puts and gets are copies from/to the peer's mapped heap
 * (complete when the stream reaches them); put_signal updates the signal after the data;
 * quiet_on_stream completes what earlier work in the stream stored; barrier_all_on_stream is
 * xshmem_barrier_all in stream order (one per PE at a time, in the same order on every PE). */
struct CUstream_st;
void xshmemx_putmem_on_stream(void *dest, const void *source, size_t nbytes, int pe,
                              struct CUstream_st *stream);
void xshmemx_getmem_on_stream(void *dest, const void *source, size_t nbytes, int pe,
                              struct CUstream_st *stream);
void xshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nbytes,
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                     struct CUstream_st *stream);
void xshmemx_quiet_on_stream(struct CUstream_st *stream);
void xshmemx_barrier_all_on_stream(struct CUstream_st *stream);
/* xshmem_sync_all and xshmem_team_sync in stream order (no quiet: stores of earlier kernels are
 * ordered, not completed; use barrier_all_on_stream or quiet_on_stream for that). */
void xshmemx_sync_all_on_stream(struct CUstream_st *stream);
void xshmemx_team_sync_on_stream(xshmem_team_t team, struct CUstream_st *stream);
/* Team reductions and scans in stream order: xshmem_<T>_<op>_reduce, _sum_inscan, _sum_exscan
 * run when the stream reaches them (after its earlier kernels and copies; later work in the
 * stream sees dest complete). Return 0, or nonzero at once when this PE is not a member of the
 * team. Every member enqueues the same collectives in the same order (on any stream); large
 * sizes run on many blocks. No long double forms (GPU heaps have none). */
#define XSHMEMX_DECL_REDUCE_ON_STREAM(T, N, OP)                                                    \
  int xshmemx_##N##_##OP##_on_stream(xshmem_team_t team, T *dest, const T *source, size_t nreduce, \
                                     struct CUstream_st *stream);
#define XSHMEMX_DECL_REDUCE_ON_STREAM_BIT(T, N)   \
  XSHMEMX_DECL_REDUCE_ON_STREAM(T, N, and_reduce) \
  XSHMEMX_DECL_REDUCE_ON_STREAM(T, N, or_reduce)  \
  XSHMEMX_DECL_REDUCE_ON_STREAM(T, N, xor_reduce)
#define XSHMEMX_DECL_REDUCE_ON_STREAM_ARITH(T, N)  \
  XSHMEMX_DECL_REDUCE_ON_STREAM(T, N, max_reduce)  \
  XSHMEMX_DECL_REDUCE_ON_STREAM(T, N, min_reduce)  \
  XSHMEMX_DECL_REDUCE_ON_STREAM(T, N, sum_reduce)  \
  XSHMEMX_DECL_REDUCE_ON_STREAM(T, N, prod_reduce) \
  XSHMEMX_DECL_REDUCE_ON_STREAM(T, N, sum_inscan)  \
  XSHMEMX_DECL_REDUCE_ON_STREAM(T, N, sum_exscan)
XSHMEM_REDUCE_BITWISE_TYPES(XSHMEMX_DECL_REDUCE_ON_STREAM_BIT)
XSHMEM_REDUCE_ARITH_TYPES_NO_LD(XSHMEMX_DECL_REDUCE_ON_STREAM_ARITH)
#define XSHMEMX_DECL_REDUCE_ON_STREAM_COMPLEX(T, N) \
  XSHMEMX_DECL_REDUCE_ON_STREAM(T, N, sum_reduce)   \
  XSHMEMX_DECL_REDUCE_ON_STREAM(T, N, prod_reduce)
XSHMEM_REDUCE_COMPLEX_TYPES(XSHMEMX_DECL_REDUCE_ON_STREAM_COMPLEX)
#undef XSHMEMX_DECL_REDUCE_ON_STREAM_COMPLEX
#undef XSHMEMX_DECL_REDUCE_ON_STREAM_ARITH
#undef XSHMEMX_DECL_REDUCE_ON_STREAM_BIT
#undef XSHMEMX_DECL_REDUCE_ON_STREAM

#ifdef __cplusplus
}
#endif

#endif /* XSHMEM_XSHMEMX_H */
