// xshmem device API: warp and block variants (GPU only).
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

#include <xshmem/device/lsa.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/rma.h>
#include <xshmem/device/signal.h>
#include <xshmem/device/state.h>
#include <xshmem/device/sync.h>

namespace xshmem::dev {

// The groups a cooperative operation runs on: rank and size of the calling thread, and the
// group's barrier (which also orders the members' memory accesses).
struct warp_group {
  __device__ __forceinline__ static unsigned linear() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  }
  __device__ __forceinline__ static unsigned rank() { return linear() & 31u; }
  __device__ __forceinline__ static unsigned size() {
    unsigned total = blockDim.x * blockDim.y * blockDim.z;
    unsigned first = linear() & ~31u;
    return total - first < 32u ? total - first : 32u;
  }
  __device__ __forceinline__ static void sync() {
    unsigned n = size();
    __syncwarp(n == 32u ? 0xffffffffu : (1u << n) - 1u);
  }
};
struct block_group {
  __device__ __forceinline__ static unsigned rank() { return warp_group::linear(); }
  __device__ __forceinline__ static unsigned size() { return blockDim.x * blockDim.y * blockDim.z; }
  __device__ __forceinline__ static void sync() { __syncthreads(); }
};

// putmem/getmem by a group; G is warp_group or block_group.
template <typename G>
__device__ __forceinline__ void putmem_group(const state_t &s, void *dest, const void *source,
                                             size_t nbytes, int pe) {
  dcheck_remote(s, kDevOpPut, pe, dest, nbytes);
  dcheck_buffer(s, kDevOpPut, pe, source, nbytes);
  switch (peer_path(s, pe)) {
    case XSHMEM_PATH_LSA:
      lsa::copy_group(lsa_addr(s, dest, pe), source, nbytes, G::rank(), G::size());
      break;
    default:
      unreachable_path(s, pe);
  }
  G::sync();
}
template <typename G>
__device__ __forceinline__ void getmem_group(const state_t &s, void *dest, const void *source,
                                             size_t nbytes, int pe) {
  dcheck_remote(s, kDevOpGet, pe, source, nbytes);
  dcheck_buffer(s, kDevOpGet, pe, dest, nbytes);
  switch (peer_path(s, pe)) {
    case XSHMEM_PATH_LSA:
      lsa::copy_group(dest, lsa_addr(s, source, pe), nbytes, G::rank(), G::size());
      break;
    default:
      unreachable_path(s, pe);
  }
  G::sync();
}

// The group copies, synchronises, and its first thread updates the signal: the signal is
// ordered after every member's stores (each member fences first, so the ordering does not rest
// on the cumulativity of the group barrier alone).
template <typename G>
__device__ __forceinline__ void putmem_signal_group(const state_t &s, void *dest,
                                                    const void *source, size_t nbytes,
                                                    uint64_t *sig_addr, uint64_t signal, int sig_op,
                                                    int pe) {
  dcheck_remote(s, kDevOpPutSignal, pe, dest, nbytes);
  dcheck_buffer(s, kDevOpPutSignal, pe, source, nbytes);
  dcheck_sym(s, kDevOpPutSignal, pe, sig_addr, sizeof(uint64_t));
  dcheck_align(s, kDevOpPutSignal, pe, sig_addr, sizeof(uint64_t));
  switch (peer_path(s, pe)) {
    case XSHMEM_PATH_LSA:
      lsa::copy_group(lsa_addr(s, dest, pe), source, nbytes, G::rank(), G::size());
      atomic::fence();
      G::sync();
      // Every member fenced before the group barrier, so the first thread's update needs none.
      if (G::rank() == 0) lsa::signal(lsa_addr(s, sig_addr, pe), signal, sig_op, /*fenced=*/true);
      break;
    default:
      unreachable_path(s, pe);
  }
  G::sync();
}

// Strided put/get by a group: element i goes from source[i * sst] to dest[i * dst] (strides in
// elements), the group's threads taking every size()-th element.
template <typename G, typename T>
__device__ __forceinline__ void iput_group(const state_t &s, T *dest, const T *source,
                                           ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {
  if (nelems != 0) {
    dcheck_remote(s, kDevOpIput, pe, dest, sizeof(T));
    dcheck_sym(s, kDevOpIput, pe, dest + static_cast<ptrdiff_t>(nelems - 1) * dst, sizeof(T));
    dcheck_align(s, kDevOpIput, pe, dest, alignof(T));
    switch (peer_path(s, pe)) {
      case XSHMEM_PATH_LSA: {
        T *r = lsa_addr(s, dest, pe);
        for (size_t i = G::rank(); i < nelems; i += G::size()) {
          r[static_cast<ptrdiff_t>(i) * dst] = source[static_cast<ptrdiff_t>(i) * sst];
        }
        break;
      }
      default:
        unreachable_path(s, pe);
    }
  }
  G::sync();
}
template <typename G, typename T>
__device__ __forceinline__ void iget_group(const state_t &s, T *dest, const T *source,
                                           ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {
  if (nelems != 0) {
    dcheck_remote(s, kDevOpIget, pe, source, sizeof(T));
    dcheck_sym(s, kDevOpIget, pe, source + static_cast<ptrdiff_t>(nelems - 1) * sst, sizeof(T));
    dcheck_align(s, kDevOpIget, pe, source, alignof(T));
    switch (peer_path(s, pe)) {
      case XSHMEM_PATH_LSA: {
        const T *r = lsa_addr(s, source, pe);
        for (size_t i = G::rank(); i < nelems; i += G::size()) {
          dest[static_cast<ptrdiff_t>(i) * dst] = r[static_cast<ptrdiff_t>(i) * sst];
        }
        break;
      }
      default:
        unreachable_path(s, pe);
    }
  }
  G::sync();
}

__device__ __forceinline__ void putmem_warp(const state_t &s, void *dest, const void *source,
                                            size_t nbytes, int pe) {
  putmem_group<warp_group>(s, dest, source, nbytes, pe);
}
__device__ __forceinline__ void getmem_warp(const state_t &s, void *dest, const void *source,
                                            size_t nbytes, int pe) {
  getmem_group<warp_group>(s, dest, source, nbytes, pe);
}
__device__ __forceinline__ void putmem_signal_warp(const state_t &s, void *dest, const void *source,
                                                   size_t nbytes, uint64_t *sig_addr,
                                                   uint64_t signal, int sig_op, int pe) {
  putmem_signal_group<warp_group>(s, dest, source, nbytes, sig_addr, signal, sig_op, pe);
}
__device__ __forceinline__ void putmem_block(const state_t &s, void *dest, const void *source,
                                             size_t nbytes, int pe) {
  putmem_group<block_group>(s, dest, source, nbytes, pe);
}
__device__ __forceinline__ void getmem_block(const state_t &s, void *dest, const void *source,
                                             size_t nbytes, int pe) {
  getmem_group<block_group>(s, dest, source, nbytes, pe);
}
__device__ __forceinline__ void putmem_signal_block(const state_t &s, void *dest,
                                                    const void *source, size_t nbytes,
                                                    uint64_t *sig_addr, uint64_t signal, int sig_op,
                                                    int pe) {
  putmem_signal_group<block_group>(s, dest, source, nbytes, sig_addr, signal, sig_op, pe);
}

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
