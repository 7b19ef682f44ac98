// xshmem core: the one path function of each host API operation, with its context.
//
// Every public entry point validates its arguments once, under its own name (checks.h; the ctx
// forms in ctx.cc resolve the context's team-relative PE first), then calls the function here
// for the operation: the plain forms pass XSHMEM_CTX_DEFAULT, the ctx forms their context. The
// functions check nothing; they run the dispatchers of <xshmem/device/rma.h>, amo.h and
// signal.h on the host's state (PROXY peers: the transport's data operations on the context's
// channel), or on GPU heaps the copies and one-thread kernels of cuda/device_ops.h.
#ifndef XSHMEM_CORE_HOST_PATH_H
#define XSHMEM_CORE_HOST_PATH_H

#include <cstddef>
#include <cstdint>

#include <xshmem/device/amo.h>
#include <xshmem/device/rma.h>
#include <xshmem/device/signal.h>

#include "cuda/device_ops.h"
#include "runtime.h"

namespace xshmem::core::path {

template <typename T>
void put(int32_t ctx, T *dest, const T *source, size_t nelems, int pe, bool nbi) {
  XSHMEM_IF_GPU_HEAP {
    return gpu::copy(gpu::peer_addr(dest, pe), source, nelems * sizeof(T), !nbi);
  }
  dev::putmem_path<dev::thread_group>(state(), ctx, dest, source, nelems * sizeof(T), pe, nbi);
}
template <typename T>
void get(int32_t ctx, T *dest, const T *source, size_t nelems, int pe, bool nbi) {
  XSHMEM_IF_GPU_HEAP {
    return gpu::copy(dest, gpu::peer_addr(source, pe), nelems * sizeof(T), !nbi);
  }
  dev::getmem_path<dev::thread_group>(state(), ctx, dest, source, nelems * sizeof(T), pe, nbi);
}
template <typename T>
void p(int32_t ctx, T *dest, T value, int pe) {
  // A pageable source is staged before cudaMemcpyAsync returns, so `value` may go away.
  XSHMEM_IF_GPU_HEAP {
    return gpu::copy(gpu::peer_addr(dest, pe), &value, sizeof(T), false);
  }
  dev::p_path(state(), ctx, dest, value, pe);
}
template <typename T>
T g(int32_t ctx, const T *source, int pe) {
  XSHMEM_IF_GPU_HEAP {
    T value;
    gpu::copy(&value, gpu::peer_addr(source, pe), sizeof(T), true);
    return value;
  }
  return dev::g_path(state(), ctx, source, pe);
}
template <typename T>
void iput(int32_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
          int pe) {
  XSHMEM_IF_GPU_HEAP {
    return gpu::copy_strided(gpu::peer_addr(dest, pe), static_cast<size_t>(dst) * sizeof(T), source,
                             static_cast<size_t>(sst) * sizeof(T), sizeof(T), nelems, true);
  }
  dev::iput_path<dev::thread_group>(state(), ctx, dest, source, dst, sst, nelems, pe, false);
}
template <typename T>
void iget(int32_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
          int pe) {
  XSHMEM_IF_GPU_HEAP {
    return gpu::copy_strided(dest, static_cast<size_t>(dst) * sizeof(T), gpu::peer_addr(source, pe),
                             static_cast<size_t>(sst) * sizeof(T), sizeof(T), nelems, true);
  }
  dev::iget_path<dev::thread_group>(state(), ctx, dest, source, dst, sst, nelems, pe, false);
}

// Atomic `Op` at `pe`: the dispatcher on host heaps, a one-thread kernel on GPU heaps (the host
// cannot access GPU memory atomically). Operands travel as the bits of T (4 or 8 bytes).
template <dev::amo_op Op, typename T>
T amo(int32_t ctx, T *dest, T value, T cond, int pe) {
  XSHMEM_IF_GPU_HEAP {
    using U = typename dev::atomic::uint_of<sizeof(T)>::type;
    uint64_t old =
        gpu::amo(Op, sizeof(T), dest, dev::atomic::bits<U>(value), dev::atomic::bits<U>(cond), pe);
    return dev::atomic::bits<T>(static_cast<U>(old));
  }
  return dev::amo_path<Op, dev::thread_group>(state(), ctx, dest, value, cond, pe);
}

template <typename T>
void put_signal(int32_t ctx, bool nbi, T *dest, const T *source, size_t nelems, uint64_t *sig_addr,
                uint64_t signal, int sig_op, int pe) {
  XSHMEM_IF_GPU_HEAP {
    return gpu::put_signal(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe, !nbi);
  }
  dev::putmem_signal_path<dev::thread_group>(state(), ctx, dest, source, nelems * sizeof(T),
                                             sig_addr, signal, sig_op, pe, nbi);
}

inline void signal(int32_t ctx, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  XSHMEM_IF_GPU_HEAP {
    return gpu::put_signal(nullptr, nullptr, 0, sig_addr, signal, sig_op, pe, false);
  }
  dev::signal_path<dev::thread_group>(state(), ctx, sig_addr, signal, sig_op, pe, false);
}

// fence / quiet of context ctx: the PE's memory ordering (every context shares the LSA and
// GPU-heap paths, which complete or order all of the PE's operations at once) and ctx's channel
// of each transport serving PROXY peers.
inline void fence(int32_t ctx) {
  dev::fence(state(), ctx);
}
inline void quiet(int32_t ctx) {
  XSHMEM_IF_GPU_HEAP {
    gpu::quiet();
  }
  dev::quiet(state(), ctx);
}

}  // namespace xshmem::core::path

#endif  // XSHMEM_CORE_HOST_PATH_H
