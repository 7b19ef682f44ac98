// xshmem device API: the groups of threads an operation runs on.
//
// Every operation of the path code is written once, templated on the group G that runs it:
// - thread_group: one thread. The plain (thread-scope) device forms, and every host call (the
//   host is a thread group).
// - warp_group: the 32 consecutive threads of the block's linear index (x fastest) a thread
//   belongs to; the last warp of a block whose size is not a multiple of 32 is the threads that
//   exist. The _warp forms.
// - block_group: every thread of the block (any 1D, 2D or 3D shape). The _block forms.
// - grid_group: every thread of a 1D grid, without a barrier (the runtime's own kernels).
// A group operation is called by every thread of the group with identical arguments. A group
// has a rank (0 .. size - 1) for the calling thread, a size, and sync(), the group's barrier,
// which also orders the members' memory accesses (cumulativity of the PTX memory model). The
// group's leader (rank 0) is the thread that issues what one thread must issue for the whole
// group (a signal, a dissemination round, a proxy request).
#ifndef XSHMEM_DEVICE_GROUP_H
#define XSHMEM_DEVICE_GROUP_H

#include <type_traits>

#include <xshmem/device/state.h>

namespace xshmem::dev {

struct thread_group {
  static constexpr bool kThread = true;
  XSHMEM_HD_INLINE static unsigned rank() { return 0; }
  XSHMEM_HD_INLINE static unsigned size() { return 1; }
  XSHMEM_HD_INLINE static void sync() {}
};

#if defined(__CUDACC__)
struct warp_group {
  static constexpr bool kThread = false;
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
  static constexpr bool kThread = false;
  __device__ __forceinline__ static unsigned rank() { return warp_group::linear(); }
  __device__ __forceinline__ static unsigned size() { return blockDim.x * blockDim.y * blockDim.z; }
  __device__ __forceinline__ static void sync() { __syncthreads(); }
};
// Every thread of a 1D grid, for phases of work that kernels on one stream separate (the
// runtime's large reductions): it has no sync() (a grid has no barrier outside cooperative
// launches), so an operation that synchronises its group does not compile for it.
struct grid_group {
  static constexpr bool kThread = false;
  __device__ __forceinline__ static unsigned rank() {
    return blockIdx.x * blockDim.x + threadIdx.x;
  }
  __device__ __forceinline__ static unsigned size() { return gridDim.x * blockDim.x; }
};
#endif

// A group whose bulk copies to LSA peers keep more loads in flight per thread (the collectives'
// data movement, lsa::copy_bulk); otherwise G itself.
template <typename G>
struct bulk_group : G {
  static constexpr bool kBulk = true;
};
template <typename G, typename = void>
struct is_bulk : std::false_type {};
template <typename G>
struct is_bulk<G, std::void_t<decltype(G::kBulk)>> : std::bool_constant<G::kBulk> {};
template <typename G>
inline constexpr bool is_bulk_v = is_bulk<G>::value;

// Whether the calling thread is the group's leader.
template <typename G>
XSHMEM_HD_INLINE bool group_leader() {
  return G::rank() == 0;
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_GROUP_H
