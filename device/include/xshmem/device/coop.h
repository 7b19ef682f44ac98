// xshmem device API: warp and block variants (GPU only), by name; the code is the dispatchers'
// (rma.h, signal.h) run by the group (group.h).
//
// A warp variant is called by every thread of a warp, a block variant by every thread of a block
// (any 1D, 2D or 3D shape), all with identical arguments: the threads share the work and the
// call returns in each thread once the whole operation is done (the group synchronises). Calling
// one from only some threads of the group hangs or loses data. A warp is 32 consecutive threads
// of the block's linear index (x fastest); the last warp of a block whose size is not a multiple
// of 32 is the threads that exist.
#ifndef XSHMEM_DEVICE_COOP_H
#define XSHMEM_DEVICE_COOP_H

#if defined(__CUDACC__)

#include <stddef.h>
#include <stdint.h>

#include <xshmem/device/group.h>
#include <xshmem/device/lsa.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/rma.h>
#include <xshmem/device/signal.h>
#include <xshmem/device/state.h>
#include <xshmem/device/sync.h>

namespace xshmem::dev {

// The warp and block forms of the RMA and signal dispatchers (rma.h, signal.h), by name. The nbi
// forms pass nbi to the dispatcher (an LSA copy completes at once either way; a PROXY request
// of an nbi form completes by the next quiet).
#define XSHMEMI_COOP_FORMS(SCOPE, G)                                                               \
  __device__ __forceinline__ void putmem_##SCOPE(const state_t &s, void *dest, const void *source, \
                                                 size_t nbytes, int pe) {                          \
    putmem_group<G>(s, kCtxDefault, dest, source, nbytes, pe, false);                              \
  }                                                                                                \
  __device__ __forceinline__ void getmem_##SCOPE(const state_t &s, void *dest, const void *source, \
                                                 size_t nbytes, int pe) {                          \
    getmem_group<G>(s, kCtxDefault, dest, source, nbytes, pe, false);                              \
  }                                                                                                \
  __device__ __forceinline__ void putmem_nbi_##SCOPE(const state_t &s, void *dest,                 \
                                                     const void *source, size_t nbytes, int pe) {  \
    putmem_group<G>(s, kCtxDefault, dest, source, nbytes, pe, true);                               \
  }                                                                                                \
  __device__ __forceinline__ void getmem_nbi_##SCOPE(const state_t &s, void *dest,                 \
                                                     const void *source, size_t nbytes, int pe) {  \
    getmem_group<G>(s, kCtxDefault, dest, source, nbytes, pe, true);                               \
  }                                                                                                \
  __device__ __forceinline__ void putmem_signal_##SCOPE(                                           \
      const state_t &s, void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,         \
      uint64_t signal, int sig_op, int pe) {                                                       \
    putmem_signal_group<G>(s, kCtxDefault, dest, source, nbytes, sig_addr, signal, sig_op, pe,     \
                           false);                                                                 \
  }                                                                                                \
  __device__ __forceinline__ void putmem_signal_nbi_##SCOPE(                                       \
      const state_t &s, void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,         \
      uint64_t signal, int sig_op, int pe) {                                                       \
    putmem_signal_group<G>(s, kCtxDefault, dest, source, nbytes, sig_addr, signal, sig_op, pe,     \
                           true);                                                                  \
  }
XSHMEMI_COOP_FORMS(warp, warp_group)
XSHMEMI_COOP_FORMS(block, block_group)
#undef XSHMEMI_COOP_FORMS

// World barrier and sync by one block: the group barrier orders every thread's earlier
// operations before the first thread's quiet (fences are cumulative in the PTX memory model), so
// that one quiet completes them all; the first thread runs the dissemination, and no thread
// leaves before it is done. One block per PE calls it (the epoch counts calls per PE). A quiet
// per thread before the group barrier cost a second fence on the critical path.
__device__ __forceinline__ void barrier_all_block(const state_t &s) {
  __syncthreads();
  if (block_group::rank() == 0) barrier_all(s);
  __syncthreads();
}
__device__ __forceinline__ void sync_all_block(const state_t &s) {
  __syncthreads();
  if (block_group::rank() == 0) sync_all(s);
  __syncthreads();
}
__device__ __forceinline__ void barrier_all_warp(const state_t &s) {
  warp_group::sync();
  if (warp_group::rank() == 0) barrier_all(s);
  warp_group::sync();
}
__device__ __forceinline__ void sync_all_warp(const state_t &s) {
  warp_group::sync();
  if (warp_group::rank() == 0) sync_all(s);
  warp_group::sync();
}

}  // namespace xshmem::dev

#endif  // __CUDACC__

#endif  // XSHMEM_DEVICE_COOP_H
