// xshmem core: the one path function of each host API operation, with its context.
//
// Every public entry point validates its arguments once, under its own name (checks.h; the ctx
// forms in ctx.cc resolve the context's team-relative PE first), then calls the function here
// for the operation: the plain forms pass XSHMEM_CTX_DEFAULT, the ctx forms their context. The
// functions check nothing; they run the dispatchers of <xshmem/device/rma.h>, amo.h and
// signal.h on the host's state: LSA peers by load/store, PROXY peers through the transport's
// data operations on the context's channel, and on a GPU heap HOST_CE peers (the host's code for
// its LSA peers there) through the copies and one-thread kernels of cuda/device_ops.h.
#ifndef XSHMEM_CORE_HOST_PATH_H
#define XSHMEM_CORE_HOST_PATH_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include <xshmem/device/amo.h>
#include <xshmem/device/rma.h>
#include <xshmem/device/signal.h>

#include "cuda/device_ops.h"
#include "runtime.h"

namespace xshmem::core::path {

// ---- the per-peer operations: the one dispatcher of each family, on the host's state ----
// On a GPU heap the host's state gives the LSA peers the HOST_CE code (path_state.h), whose case
// in the dispatcher runs the copies and kernels of cuda/device_ops.h.

template <typename T>
void put(int32_t ctx, T *dest, const T *source, size_t nelems, int pe, bool nbi) {
  dev::putmem_path<dev::thread_group>(state(), ctx, dest, source, nelems * sizeof(T), pe, nbi);
}
template <typename T>
void get(int32_t ctx, T *dest, const T *source, size_t nelems, int pe, bool nbi) {
  dev::getmem_path<dev::thread_group>(state(), ctx, dest, source, nelems * sizeof(T), pe, nbi);
}
template <typename T>
void p(int32_t ctx, T *dest, T value, int pe) {
  dev::p_path(state(), ctx, dest, value, pe);
}
template <typename T>
T g(int32_t ctx, const T *source, int pe) {
  return dev::g_path(state(), ctx, source, pe);
}
template <typename T>
void iput(int32_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
          int pe) {
  dev::iput_path<dev::thread_group>(state(), ctx, dest, source, dst, sst, nelems, pe, false);
}
template <typename T>
void iget(int32_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
          int pe) {
  dev::iget_path<dev::thread_group>(state(), ctx, dest, source, dst, sst, nelems, pe, false);
}

// Atomic `Op` at `pe` (HOST_CE: a one-thread kernel; the host cannot access GPU memory
// atomically).
template <dev::amo_op Op, typename T>
T amo(int32_t ctx, T *dest, T value, T cond, int pe) {
  return dev::amo_path<Op, dev::thread_group>(state(), ctx, dest, value, cond, pe);
}

template <typename T>
void put_signal(int32_t ctx, bool nbi, T *dest, const T *source, size_t nelems, uint64_t *sig_addr,
                uint64_t signal, int sig_op, int pe) {
  dev::putmem_signal_path<dev::thread_group>(state(), ctx, dest, source, nelems * sizeof(T),
                                             sig_addr, signal, sig_op, pe, nbi);
}

inline void signal(int32_t ctx, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  dev::signal_path<dev::thread_group>(state(), ctx, sig_addr, signal, sig_op, pe, false);
}

// fence / quiet of context ctx: the PE's memory ordering (every context shares the LSA and
// HOST_CE paths, which complete or order all of the PE's operations at once: HOST_CE's quiet
// drains its stream) and ctx's channel of each transport serving PROXY peers.
inline void fence(int32_t ctx) {
  dev::fence(state(), ctx);
}
inline void quiet(int32_t ctx) {
  dev::quiet(state(), ctx);
}

// ---- the work that is not one peer's operation, by where this PE's heap is ----
// Reading and waiting on this PE's own heap words, team syncs, world syncs and collectives have
// no target path to switch on: they depend on the local heap's kind, decided once at init
// (build_state gives the host's state the HOST_CE operations exactly when the heap is in GPU
// memory). Named for what each decides.

// Whether the host can load and store this PE's heap words (a host heap). When not (GPU memory),
// reads go through copy_local_words and writes through the CUDA copies.
inline bool heap_host_accessible() {
  return state().host_ce == nullptr;
}

// Whether team syncs, world syncs and barriers and the collectives run as kernels on the
// internal stream (GPU heap: their words are GPU memory, shared with device-side collectives)
// rather than as the path code on this thread.
inline bool team_ops_in_kernels() {
  return state().host_ce != nullptr;
}

// Runs f on the current values of the n heap words at `words` (this PE's): the words themselves
// when the host can load them, else a host copy of them, tested with the same code.
template <typename T, typename F>
auto on_local_words(const T *words, size_t n, F f) {
  if (heap_host_accessible()) return f(words);
  std::vector<T> copy(n);
  if (n != 0) gpu::read_local(copy.data(), words, n * sizeof(T));
  return f(static_cast<const T *>(copy.data()));
}

}  // namespace xshmem::core::path

#endif  // XSHMEM_CORE_HOST_PATH_H
