// xshmem core: host API operations on GPU heaps (heap_on_device()).
//
// The host cannot load or store GPU memory, so the host API moves data with copies on the
// internal stream (cudaMemcpyAsync from/to the peer's mapped address, UVA) and runs atomics,
// signals and world syncs as one-thread kernels executing the device path code on the device
// state. Implemented in device_ops.cu with CUDA (XSHMEM_HAVE_CUDA). The per-peer operations reach
// the host API through the HOST_CE path code (host_ce_ops()); the rest (reads of this PE's heap,
// syncs, collectives) is called where host_path.h's helpers on the heap's kind say so. Without
// CUDA those entries stop the job (cuda_none.cc: never reached, no heap is in GPU memory there).
// Errors stop the job (fatal) with the CUDA error named.
#ifndef XSHMEM_CORE_CUDA_DEVICE_OPS_H
#define XSHMEM_CORE_CUDA_DEVICE_OPS_H

#include <cstddef>
#include <cstdint>

#include <xshmem/device/amo.h>
#include <xshmem/device/state.h>

#include "../runtime.h"

namespace xshmem::core::gpu {

// The HOST_CE path's operations (copy, copy_strided, amo, put_signal, quiet below) as the table
// build_state gives the host's copy of the state on a GPU heap (dev::state_t::host_ce): the
// dispatchers run them for the peers whose host path code is XSHMEM_PATH_HOST_CE. NULL in a build
// without CUDA (no heap is ever in GPU memory there).
const dev::host_ce_ops_t *host_ce_ops();

// The address of symmetric `sym` at `pe` in this process (UVA), for copies; stops the job when
// `pe`'s heap is not mapped (its host path is not HOST_CE: only those are served this way).
void *peer_addr(const void *sym, int pe);

// Copies n bytes on the internal stream (cudaMemcpyDefault); blocking waits for the copy.
void copy(void *dst, const void *src, size_t n, bool blocking);
// count elements of `elem` bytes, dst and src `dpitch`/`spitch` bytes apart (iput/iget).
void copy_strided(void *dst, size_t dpitch, const void *src, size_t spitch, size_t elem,
                  size_t count, bool blocking);

// Runs atomic `op` on symmetric `dest` at `pe` (width 4 or 8 bytes; operands as bits) in a
// kernel; returns the old value's bits. Waits for completion.
uint64_t amo(dev::amo_op op, size_t width, void *dest, uint64_t value, uint64_t cond, int pe);

// put (n may be 0) followed by a signal update, ordered after the data, on the internal stream.
void put_signal(void *dest, const void *source, size_t n, uint64_t *sig_addr, uint64_t signal,
                int sig_op, int pe, bool blocking);

// Copies n bytes of this PE's GPU heap at `sym` to host memory (waits).
void read_local(void *host_dst, const void *sym, size_t n);

// Completes every operation issued on the internal stream.
void quiet();

// World sync (barrier: quiet first) run by a kernel on the internal stream; waits for it.
void world_sync(bool barrier);

// Team `team` (a handle of this PE) in a kernel on the internal stream; waits for it. kind 0:
// team_sync, 1: team_barrier (quiet first), 2: one-word allreduce of `value` with dev::word_op
// `op` (returns the result).
uint64_t team_op(int team, int kind, uint64_t value, int op);

// Runs data-movement collective `op` (dev::coll_move_op) of team handle `team` in a one-block
// kernel on the internal stream (the path code of <xshmem/device/coll_move.h>); waits for it.
// nbytes: bytes per member (alltoalls: nelems * elem), elem: element size (alltoalls: 1, 2, 4,
// 8 or 16), dst/sst: alltoalls strides in elements, root: broadcast root. Returns the path
// code's result (0).
int coll_move(int op, int team, void *dest, const void *source, size_t nbytes, size_t elem,
              ptrdiff_t dst, ptrdiff_t sst, int root);

// Reduction or scan `op` (dev::reduce_op) over elements of type code `dtype` (dev::reduce_dtype)
// on team `team`, run by a one-block kernel on the internal stream (the path code's block form);
// waits for it. Returns the path code's result (0). With a `stream` (a cudaStream_t), enqueues
// the work there and returns 0 at once (the caller has checked membership and the type).
int reduce(int team, int op, int dtype, void *dest, const void *source, size_t n,
           void *stream = nullptr);

// Copies device_state() (the struct; its pointers are device addresses) to *out. False when
// there is no device state.
bool state_image(dev::state_t *out);

// The services table's heap_amo and heap_apply (services_v1.h): the operations of ops[0, n) on
// this PE's GPU heap (atomics, copies in and out), in array order on a stream of their own, waited
// for once (per 1024 atomics); each entry gets its status and, an atomic, its old value. An entry
// with a host heap, an address, width, op or kind out of range gets XSHMEM_ERR_INVALID (logged,
// naming its src_pe) and is skipped. Returns the first entry's error, else XSHMEM_SUCCESS. Stops
// the job when a kernel or copy fails or has not run within 30 s (XSHMEM_WAIT_TIMEOUT when
// longer). heap_amo_open (at cuda::open) creates the stream and entry buffer, heap_amo_close (at
// cuda::close, after the transports have stopped) frees them.
xshmem_status_t heap_apply(xshmem_heap_op_v1_t *ops, size_t n);
Status heap_amo_open();
void heap_amo_close();

// Loads this library's kernels on the current device now. With CUDA lazy loading (the default
// since CUDA 12.2) a kernel is loaded at its first launch, which may wait for every kernel
// running on the device: a user kernel spinning in signal_wait_until for a host put_signal would
// then never see the signal kernel start (deadlock). Called once the GPU side is open; returns 0
// or the cudaError_t of the first kernel that failed to load (its name in *failed).
int load_kernels(const char **failed);

}  // namespace xshmem::core::gpu

#endif  // XSHMEM_CORE_CUDA_DEVICE_OPS_H
