// xshmem: the OpenSHMEM-named API for CUDA translation units.
//
// Included by <xshmem/xshmem.h> when nvcc compiles C++ (define XSHMEM_NO_DEVICE_API before
// including it to get the plain C declarations instead). nvcc forbids a __host__ and a __device__
// function of one signature, so each API function is declared here once, __host__ __device__:
// in device code it runs the path code on this translation unit's copy of the device state; in
// host code it calls the library's host implementation (exported as xshmemi_h_<name>, the same
// functions as the C entry points). Build with plain `nvcc -arch=sm_90` (no -rdc needed) and
// link libxshmem.
//
// Device state: every translation unit that includes this header holds the state in its own
// __constant__ copy. A static object registers, at program start, a callback of this unit with
// libxshmem, which calls it at the end of xshmem_init (and for units loaded later, at once); the
// callback copies the state into this unit's copy with cudaMemcpyToSymbol, on the PE's GPU.
// Kernels launched before xshmem_init has returned see an empty state.
//
// Alternatively, pass the state explicitly: xshmemx_device_handle() returns it by value (a
// kernel argument), and the xshmem::dev:: functions of <xshmem/device/path.h> and coop.h take it
// as first argument.
//
// Rules for kernels (see README "Writing kernels"):
// - _warp functions are called by every thread of a warp, _block functions by every thread of a
//   block, all with identical arguments; each returns once the group's operation is done.
// - barrier_all, sync_all (thread, warp and block forms) are called by one thread (warp, block)
//   per PE at a time, in the same order on every PE.
// - A kernel whose blocks wait on each other or on other PEs (barriers, wait_until, signal waits)
//   must have all its blocks resident at once: at most one wave (blocks <= SMs x blocks per SM,
//   cudaOccupancyMaxActiveBlocksPerMultiprocessor), or cudaLaunchCooperativeKernel.
// - On the device, _any scans from the first element (no per-caller fairness cursor).
// - CUDA loads kernels lazily (default since CUDA 12.2), and a first launch may wait for the
//   kernels already running. A kernel that waits for another of the program's kernels launched
//   after it (on any stream) deadlocks unless that kernel was loaded first: cudaFuncGetAttributes
//   on it, or CUDA_MODULE_LOADING=EAGER. libxshmem loads its own kernels (host signals, atomics,
//   barriers on GPU heaps) at init.
#ifndef XSHMEM_DEVICE_CUDA_API_H
#define XSHMEM_DEVICE_CUDA_API_H

#if !defined(__CUDACC__) || !defined(__cplusplus)
#error "xshmem/device/cuda_api.h is for CUDA C++ translation units (nvcc)"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include <xshmem/device/coll_move.h>
#include <xshmem/device/coop.h>
#include <xshmem/device/path.h>
#include <xshmem/types.h>

// The device state by value, for kernels that take it as an argument (valid until finalize).
xshmem::dev::state_t xshmemx_device_handle(void);

// This translation unit's copy of the device state.
static __constant__ xshmem::dev::state_t xshmemi_dstate;

namespace {
int xshmemi_state_sink(const void *state, size_t size, int device) {
  // The registration checked the layout; the size and the state's own layout field are checked
  // again here, so a table of another layout never reaches this unit's kernels.
  if (size != sizeof(xshmem::dev::state_t) ||
      static_cast<const xshmem::dev::state_t *>(state)->layout != XSHMEMI_UNIT_STATE_LAYOUT) {
    fprintf(stderr,
            "xshmem: kernel module %s: the device state (%zu bytes, layout %d) differs from this "
            "module's (%zu bytes, layout %d): rebuild it against the installed xshmem headers\n",
            XSHMEMI_UNIT_FILE, size,
            size >= sizeof(int32_t) ? static_cast<const xshmem::dev::state_t *>(state)->layout : -1,
            sizeof(xshmem::dev::state_t), XSHMEMI_UNIT_STATE_LAYOUT);
    return static_cast<int>(cudaErrorInvalidValue);
  }
  cudaError_t err = cudaSetDevice(device);
  if (err == cudaSuccess) err = cudaMemcpyToSymbol(xshmemi_dstate, state, size);
  return static_cast<int>(err);
}
// With the device-state layout this unit is compiled against: the runtime refuses the unit
// (one line naming it) when that is not the library's.
[[maybe_unused]] const int xshmemi_sink_registered =
    XSHMEMI_REGISTER_DEVICE_STATE_SINK(&xshmemi_state_sink);
}  // namespace

// XSHMEMI_SEL(device code, host code): picks one per compilation pass.
#if defined(__CUDA_ARCH__)
#define XSHMEMI_SEL(d, h) d
#else
#define XSHMEMI_SEL(d, h) h
#endif
#define XSHMEMI_DS (::xshmemi_dstate)
#define XSHMEMI_HD static __host__ __device__ __forceinline__
#define XSHMEMI_D static __device__ __forceinline__

// ---- global_exit ------------------------------------------------------------------------------
extern "C" void xshmemi_h_global_exit(int status) __attribute__((noreturn));
// In a kernel: the runtime stops every PE with `status` within ~10 ms (the calling thread waits
// for the end of the process).
XSHMEMI_HD void xshmem_global_exit(int status) {
#if defined(__CUDA_ARCH__)
  xshmem::dev::device_global_exit(XSHMEMI_DS.device_error, status);
#else
  xshmemi_h_global_exit(status);
#endif
}

// ---- Teams (the handle indexes the device copy of the team table) ------------------------------
extern "C" int xshmemi_h_team_my_pe(xshmem_team_t);
extern "C" int xshmemi_h_team_n_pes(xshmem_team_t);
extern "C" int xshmemi_h_team_translate_pe(xshmem_team_t, int, xshmem_team_t);
extern "C" void *xshmemi_h_team_ptr(xshmem_team_t, const void *, int);
extern "C" int xshmemi_h_team_sync(xshmem_team_t);
XSHMEMI_HD int xshmem_team_my_pe(xshmem_team_t team) {
#if defined(__CUDA_ARCH__)
  const xshmem::dev::team_t t = xshmem::dev::team_of(XSHMEMI_DS, team);
  return xshmem::dev::team_member(t) ? t.my_index : -1;
#else
  return xshmemi_h_team_my_pe(team);
#endif
}
XSHMEMI_HD int xshmem_team_n_pes(xshmem_team_t team) {
#if defined(__CUDA_ARCH__)
  const xshmem::dev::team_t t = xshmem::dev::team_of(XSHMEMI_DS, team);
  return xshmem::dev::team_member(t) ? t.size : -1;
#else
  return xshmemi_h_team_n_pes(team);
#endif
}
XSHMEMI_HD int xshmem_team_translate_pe(xshmem_team_t src_team, int src_pe,
                                        xshmem_team_t dest_team) {
  return XSHMEMI_SEL(xshmem::dev::team_translate_pe(XSHMEMI_DS, src_team, src_pe, dest_team),
                     xshmemi_h_team_translate_pe(src_team, src_pe, dest_team));
}
XSHMEMI_HD void *xshmem_team_ptr(xshmem_team_t team, const void *dest, int pe) {
  return XSHMEMI_SEL(xshmem::dev::team_ptr(XSHMEMI_DS, xshmem::dev::team_of(XSHMEMI_DS, team),
                                           const_cast<void *>(dest), pe),
                     xshmemi_h_team_ptr(team, dest, pe));
}
// On the device: one thread per member (the warp/block forms: every thread of one warp/block).
XSHMEMI_HD int xshmem_team_sync(xshmem_team_t team) {
#if defined(__CUDA_ARCH__)
  xshmem::dev::team_sync(XSHMEMI_DS, xshmem::dev::team_of(XSHMEMI_DS, team));
  return 0;
#else
  return xshmemi_h_team_sync(team);
#endif
}
XSHMEMI_D int xshmemx_team_sync_warp(xshmem_team_t team) {
  __syncwarp();
  if (xshmem::dev::warp_group::rank() == 0)
    xshmem::dev::team_sync(XSHMEMI_DS, xshmem::dev::team_of(XSHMEMI_DS, team));
  __syncwarp();
  return 0;
}
XSHMEMI_D int xshmemx_team_sync_block(xshmem_team_t team) {
  __syncthreads();
  if (xshmem::dev::block_group::rank() == 0)
    xshmem::dev::team_sync(XSHMEMI_DS, xshmem::dev::team_of(XSHMEMI_DS, team));
  __syncthreads();
  return 0;
}

// ---- Query --------------------------------------------------------------------------------------
extern "C" int xshmemi_h_my_pe(void);
extern "C" int xshmemi_h_n_pes(void);
extern "C" void *xshmemi_h_ptr(const void *dest, int pe);
XSHMEMI_HD int xshmem_my_pe(void) {
  return XSHMEMI_SEL(XSHMEMI_DS.my_pe, xshmemi_h_my_pe());
}
XSHMEMI_HD int xshmem_n_pes(void) {
  return XSHMEMI_SEL(XSHMEMI_DS.n_pes, xshmemi_h_n_pes());
}
XSHMEMI_HD void *xshmem_ptr(const void *dest, int pe) {
  return XSHMEMI_SEL((pe >= 0 && pe < XSHMEMI_DS.n_pes && xshmem::dev::in_heap(XSHMEMI_DS, dest, 1))
                         ? xshmem::dev::ptr(XSHMEMI_DS, const_cast<void *>(dest), pe)
                         : nullptr,
                     xshmemi_h_ptr(dest, pe));
}

// ---- RMA ----------------------------------------------------------------------------------------
#define XSHMEMI_RMA(T, N)                                                                          \
  extern "C" void xshmemi_h_##N##_put(T *, const T *, size_t, int);                                \
  extern "C" void xshmemi_h_##N##_get(T *, const T *, size_t, int);                                \
  extern "C" void xshmemi_h_##N##_put_nbi(T *, const T *, size_t, int);                            \
  extern "C" void xshmemi_h_##N##_get_nbi(T *, const T *, size_t, int);                            \
  extern "C" void xshmemi_h_##N##_p(T *, T, int);                                                  \
  extern "C" T xshmemi_h_##N##_g(const T *, int);                                                  \
  extern "C" void xshmemi_h_##N##_iput(T *, const T *, ptrdiff_t, ptrdiff_t, size_t, int);         \
  extern "C" void xshmemi_h_##N##_iget(T *, const T *, ptrdiff_t, ptrdiff_t, size_t, int);         \
  XSHMEMI_HD void xshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe) {              \
    XSHMEMI_SEL(xshmem::dev::put(XSHMEMI_DS, dest, source, nelems, pe),                            \
                xshmemi_h_##N##_put(dest, source, nelems, pe));                                    \
  }                                                                                                \
  XSHMEMI_HD void xshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe) {              \
    XSHMEMI_SEL(xshmem::dev::get(XSHMEMI_DS, dest, source, nelems, pe),                            \
                xshmemi_h_##N##_get(dest, source, nelems, pe));                                    \
  }                                                                                                \
  XSHMEMI_HD void xshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe) {          \
    XSHMEMI_SEL(xshmem::dev::put_nbi(XSHMEMI_DS, dest, source, nelems, pe),                        \
                xshmemi_h_##N##_put_nbi(dest, source, nelems, pe));                                \
  }                                                                                                \
  XSHMEMI_HD void xshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe) {          \
    XSHMEMI_SEL(xshmem::dev::get_nbi(XSHMEMI_DS, dest, source, nelems, pe),                        \
                xshmemi_h_##N##_get_nbi(dest, source, nelems, pe));                                \
  }                                                                                                \
  XSHMEMI_HD void xshmem_##N##_p(T *dest, T value, int pe) {                                       \
    XSHMEMI_SEL(xshmem::dev::p(XSHMEMI_DS, dest, value, pe), xshmemi_h_##N##_p(dest, value, pe));  \
  }                                                                                                \
  XSHMEMI_HD T xshmem_##N##_g(const T *source, int pe) {                                           \
    return XSHMEMI_SEL(xshmem::dev::g(XSHMEMI_DS, source, pe), xshmemi_h_##N##_g(source, pe));     \
  }                                                                                                \
  XSHMEMI_HD void xshmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,        \
                                    size_t nelems, int pe) {                                       \
    XSHMEMI_SEL(xshmem::dev::iput(XSHMEMI_DS, dest, source, dst, sst, nelems, pe),                 \
                xshmemi_h_##N##_iput(dest, source, dst, sst, nelems, pe));                         \
  }                                                                                                \
  XSHMEMI_HD void xshmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,        \
                                    size_t nelems, int pe) {                                       \
    XSHMEMI_SEL(xshmem::dev::iget(XSHMEMI_DS, dest, source, dst, sst, nelems, pe),                 \
                xshmemi_h_##N##_iget(dest, source, dst, sst, nelems, pe));                         \
  }                                                                                                \
  XSHMEMI_D void xshmemx_##N##_put_warp(T *dest, const T *source, size_t nelems, int pe) {         \
    xshmem::dev::putmem_warp(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe);                    \
  }                                                                                                \
  XSHMEMI_D void xshmemx_##N##_get_warp(T *dest, const T *source, size_t nelems, int pe) {         \
    xshmem::dev::getmem_warp(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe);                    \
  }                                                                                                \
  XSHMEMI_D void xshmemx_##N##_put_nbi_warp(T *dest, const T *source, size_t nelems, int pe) {     \
    xshmem::dev::putmem_nbi_warp(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe);                \
  }                                                                                                \
  XSHMEMI_D void xshmemx_##N##_get_nbi_warp(T *dest, const T *source, size_t nelems, int pe) {     \
    xshmem::dev::getmem_nbi_warp(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe);                \
  }                                                                                                \
  XSHMEMI_D void xshmemx_##N##_put_block(T *dest, const T *source, size_t nelems, int pe) {        \
    xshmem::dev::putmem_block(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe);                   \
  }                                                                                                \
  XSHMEMI_D void xshmemx_##N##_get_block(T *dest, const T *source, size_t nelems, int pe) {        \
    xshmem::dev::getmem_block(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe);                   \
  }                                                                                                \
  XSHMEMI_D void xshmemx_##N##_put_nbi_block(T *dest, const T *source, size_t nelems, int pe) {    \
    xshmem::dev::putmem_nbi_block(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe);               \
  }                                                                                                \
  XSHMEMI_D void xshmemx_##N##_get_nbi_block(T *dest, const T *source, size_t nelems, int pe) {    \
    xshmem::dev::getmem_nbi_block(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe);               \
  }                                                                                                \
  XSHMEMI_D void xshmemx_##N##_iput_warp(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,   \
                                         size_t nelems, int pe) {                                  \
    xshmem::dev::iput_group<xshmem::dev::warp_group>(XSHMEMI_DS, ::xshmem::dev::kCtxDefault, dest, \
                                                     source, dst, sst, nelems, pe, false);         \
  }                                                                                                \
  XSHMEMI_D void xshmemx_##N##_iget_warp(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,   \
                                         size_t nelems, int pe) {                                  \
    xshmem::dev::iget_group<xshmem::dev::warp_group>(XSHMEMI_DS, ::xshmem::dev::kCtxDefault, dest, \
                                                     source, dst, sst, nelems, pe, false);         \
  }                                                                                                \
  XSHMEMI_D void xshmemx_##N##_iput_block(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,  \
                                          size_t nelems, int pe) {                                 \
    xshmem::dev::iput_group<xshmem::dev::block_group>(XSHMEMI_DS, ::xshmem::dev::kCtxDefault,      \
                                                      dest, source, dst, sst, nelems, pe, false);  \
  }                                                                                                \
  XSHMEMI_D void xshmemx_##N##_iget_block(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,  \
                                          size_t nelems, int pe) {                                 \
    xshmem::dev::iget_group<xshmem::dev::block_group>(XSHMEMI_DS, ::xshmem::dev::kCtxDefault,      \
                                                      dest, source, dst, sst, nelems, pe, false);  \
  }
XSHMEM_RMA_TYPES_NO_LD(XSHMEMI_RMA)
#undef XSHMEMI_RMA

// The element of the 128-bit sized interfaces.
struct alignas(16) xshmemi_bits128_t {
  unsigned char b[16];
};
#define XSHMEMI_SIZED(BITS, T)                                                                     \
  extern "C" void xshmemi_h_put##BITS(void *, const void *, size_t, int);                          \
  extern "C" void xshmemi_h_get##BITS(void *, const void *, size_t, int);                          \
  extern "C" void xshmemi_h_put##BITS##_nbi(void *, const void *, size_t, int);                    \
  extern "C" void xshmemi_h_get##BITS##_nbi(void *, const void *, size_t, int);                    \
  extern "C" void xshmemi_h_iput##BITS(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);   \
  extern "C" void xshmemi_h_iget##BITS(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);   \
  XSHMEMI_HD void xshmem_put##BITS(void *dest, const void *source, size_t nelems, int pe) {        \
    XSHMEMI_SEL(xshmem::dev::putmem(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe),             \
                xshmemi_h_put##BITS(dest, source, nelems, pe));                                    \
  }                                                                                                \
  XSHMEMI_HD void xshmem_get##BITS(void *dest, const void *source, size_t nelems, int pe) {        \
    XSHMEMI_SEL(xshmem::dev::getmem(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe),             \
                xshmemi_h_get##BITS(dest, source, nelems, pe));                                    \
  }                                                                                                \
  XSHMEMI_HD void xshmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe) {  \
    XSHMEMI_SEL(xshmem::dev::putmem_nbi(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe),         \
                xshmemi_h_put##BITS##_nbi(dest, source, nelems, pe));                              \
  }                                                                                                \
  XSHMEMI_HD void xshmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe) {  \
    XSHMEMI_SEL(xshmem::dev::getmem_nbi(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe),         \
                xshmemi_h_get##BITS##_nbi(dest, source, nelems, pe));                              \
  }                                                                                                \
  XSHMEMI_HD void xshmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,  \
                                    size_t nelems, int pe) {                                       \
    XSHMEMI_SEL(xshmem::dev::iput(XSHMEMI_DS, static_cast<T *>(dest),                              \
                                  static_cast<const T *>(source), dst, sst, nelems, pe),           \
                xshmemi_h_iput##BITS(dest, source, dst, sst, nelems, pe));                         \
  }                                                                                                \
  XSHMEMI_HD void xshmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,  \
                                    size_t nelems, int pe) {                                       \
    XSHMEMI_SEL(xshmem::dev::iget(XSHMEMI_DS, static_cast<T *>(dest),                              \
                                  static_cast<const T *>(source), dst, sst, nelems, pe),           \
                xshmemi_h_iget##BITS(dest, source, dst, sst, nelems, pe));                         \
  }                                                                                                \
  XSHMEMI_D void xshmemx_put##BITS##_warp(void *dest, const void *source, size_t nelems, int pe) { \
    xshmem::dev::putmem_warp(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe);                    \
  }                                                                                                \
  XSHMEMI_D void xshmemx_get##BITS##_warp(void *dest, const void *source, size_t nelems, int pe) { \
    xshmem::dev::getmem_warp(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe);                    \
  }                                                                                                \
  XSHMEMI_D void xshmemx_put##BITS##_nbi_warp(void *dest, const void *source, size_t nelems,       \
                                              int pe) {                                            \
    xshmem::dev::putmem_nbi_warp(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe);                \
  }                                                                                                \
  XSHMEMI_D void xshmemx_get##BITS##_nbi_warp(void *dest, const void *source, size_t nelems,       \
                                              int pe) {                                            \
    xshmem::dev::getmem_nbi_warp(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe);                \
  }                                                                                                \
  XSHMEMI_D void xshmemx_put##BITS##_block(void *dest, const void *source, size_t nelems,          \
                                           int pe) {                                               \
    xshmem::dev::putmem_block(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe);                   \
  }                                                                                                \
  XSHMEMI_D void xshmemx_get##BITS##_block(void *dest, const void *source, size_t nelems,          \
                                           int pe) {                                               \
    xshmem::dev::getmem_block(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe);                   \
  }                                                                                                \
  XSHMEMI_D void xshmemx_put##BITS##_nbi_block(void *dest, const void *source, size_t nelems,      \
                                               int pe) {                                           \
    xshmem::dev::putmem_nbi_block(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe);               \
  }                                                                                                \
  XSHMEMI_D void xshmemx_get##BITS##_nbi_block(void *dest, const void *source, size_t nelems,      \
                                               int pe) {                                           \
    xshmem::dev::getmem_nbi_block(XSHMEMI_DS, dest, source, nelems * sizeof(T), pe);               \
  }                                                                                                \
  XSHMEMI_D void xshmemx_iput##BITS##_warp(void *dest, const void *source, ptrdiff_t dst,          \
                                           ptrdiff_t sst, size_t nelems, int pe) {                 \
    xshmem::dev::iput_group<xshmem::dev::warp_group>(                                              \
        XSHMEMI_DS, ::xshmem::dev::kCtxDefault, static_cast<T *>(dest),                            \
        static_cast<const T *>(source), dst, sst, nelems, pe, false);                              \
  }                                                                                                \
  XSHMEMI_D void xshmemx_iget##BITS##_warp(void *dest, const void *source, ptrdiff_t dst,          \
                                           ptrdiff_t sst, size_t nelems, int pe) {                 \
    xshmem::dev::iget_group<xshmem::dev::warp_group>(                                              \
        XSHMEMI_DS, ::xshmem::dev::kCtxDefault, static_cast<T *>(dest),                            \
        static_cast<const T *>(source), dst, sst, nelems, pe, false);                              \
  }                                                                                                \
  XSHMEMI_D void xshmemx_iput##BITS##_block(void *dest, const void *source, ptrdiff_t dst,         \
                                            ptrdiff_t sst, size_t nelems, int pe) {                \
    xshmem::dev::iput_group<xshmem::dev::block_group>(                                             \
        XSHMEMI_DS, ::xshmem::dev::kCtxDefault, static_cast<T *>(dest),                            \
        static_cast<const T *>(source), dst, sst, nelems, pe, false);                              \
  }                                                                                                \
  XSHMEMI_D void xshmemx_iget##BITS##_block(void *dest, const void *source, ptrdiff_t dst,         \
                                            ptrdiff_t sst, size_t nelems, int pe) {                \
    xshmem::dev::iget_group<xshmem::dev::block_group>(                                             \
        XSHMEMI_DS, ::xshmem::dev::kCtxDefault, static_cast<T *>(dest),                            \
        static_cast<const T *>(source), dst, sst, nelems, pe, false);                              \
  }
XSHMEM_SIZED_TYPES(XSHMEMI_SIZED)
XSHMEMI_SIZED(128, xshmemi_bits128_t)
#undef XSHMEMI_SIZED

extern "C" void xshmemi_h_putmem(void *, const void *, size_t, int);
extern "C" void xshmemi_h_getmem(void *, const void *, size_t, int);
extern "C" void xshmemi_h_putmem_nbi(void *, const void *, size_t, int);
extern "C" void xshmemi_h_getmem_nbi(void *, const void *, size_t, int);
XSHMEMI_HD void xshmem_putmem(void *dest, const void *source, size_t nbytes, int pe) {
  XSHMEMI_SEL(xshmem::dev::putmem(XSHMEMI_DS, dest, source, nbytes, pe),
              xshmemi_h_putmem(dest, source, nbytes, pe));
}
XSHMEMI_HD void xshmem_getmem(void *dest, const void *source, size_t nbytes, int pe) {
  XSHMEMI_SEL(xshmem::dev::getmem(XSHMEMI_DS, dest, source, nbytes, pe),
              xshmemi_h_getmem(dest, source, nbytes, pe));
}
XSHMEMI_HD void xshmem_putmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  XSHMEMI_SEL(xshmem::dev::putmem_nbi(XSHMEMI_DS, dest, source, nbytes, pe),
              xshmemi_h_putmem_nbi(dest, source, nbytes, pe));
}
XSHMEMI_HD void xshmem_getmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  XSHMEMI_SEL(xshmem::dev::getmem_nbi(XSHMEMI_DS, dest, source, nbytes, pe),
              xshmemi_h_getmem_nbi(dest, source, nbytes, pe));
}
XSHMEMI_D void xshmemx_putmem_warp(void *dest, const void *source, size_t nbytes, int pe) {
  xshmem::dev::putmem_warp(XSHMEMI_DS, dest, source, nbytes, pe);
}
XSHMEMI_D void xshmemx_getmem_warp(void *dest, const void *source, size_t nbytes, int pe) {
  xshmem::dev::getmem_warp(XSHMEMI_DS, dest, source, nbytes, pe);
}
XSHMEMI_D void xshmemx_putmem_nbi_warp(void *dest, const void *source, size_t nbytes, int pe) {
  xshmem::dev::putmem_nbi_warp(XSHMEMI_DS, dest, source, nbytes, pe);
}
XSHMEMI_D void xshmemx_getmem_nbi_warp(void *dest, const void *source, size_t nbytes, int pe) {
  xshmem::dev::getmem_nbi_warp(XSHMEMI_DS, dest, source, nbytes, pe);
}
XSHMEMI_D void xshmemx_putmem_block(void *dest, const void *source, size_t nbytes, int pe) {
  xshmem::dev::putmem_block(XSHMEMI_DS, dest, source, nbytes, pe);
}
XSHMEMI_D void xshmemx_getmem_block(void *dest, const void *source, size_t nbytes, int pe) {
  xshmem::dev::getmem_block(XSHMEMI_DS, dest, source, nbytes, pe);
}
XSHMEMI_D void xshmemx_putmem_nbi_block(void *dest, const void *source, size_t nbytes, int pe) {
  xshmem::dev::putmem_nbi_block(XSHMEMI_DS, dest, source, nbytes, pe);
}
XSHMEMI_D void xshmemx_getmem_nbi_block(void *dest, const void *source, size_t nbytes, int pe) {
  xshmem::dev::getmem_nbi_block(XSHMEMI_DS, dest, source, nbytes, pe);
}

// ---- Atomics ------------------------------------------------------------------------------------
#define XSHMEMI_AMO_EXT(T, N)                                                        \
  extern "C" T xshmemi_h_##N##_atomic_fetch(const T *, int);                         \
  extern "C" void xshmemi_h_##N##_atomic_set(T *, T, int);                           \
  extern "C" T xshmemi_h_##N##_atomic_swap(T *, T, int);                             \
  extern "C" void xshmemi_h_##N##_atomic_fetch_nbi(T *, const T *, int);             \
  extern "C" void xshmemi_h_##N##_atomic_swap_nbi(T *, T *, T, int);                 \
  XSHMEMI_HD T xshmem_##N##_atomic_fetch(const T *source, int pe) {                  \
    return XSHMEMI_SEL(xshmem::dev::atomic_fetch(XSHMEMI_DS, source, pe),            \
                       xshmemi_h_##N##_atomic_fetch(source, pe));                    \
  }                                                                                  \
  XSHMEMI_HD void xshmem_##N##_atomic_set(T *dest, T value, int pe) {                \
    XSHMEMI_SEL(xshmem::dev::atomic_set(XSHMEMI_DS, dest, value, pe),                \
                xshmemi_h_##N##_atomic_set(dest, value, pe));                        \
  }                                                                                  \
  XSHMEMI_HD T xshmem_##N##_atomic_swap(T *dest, T value, int pe) {                  \
    return XSHMEMI_SEL(xshmem::dev::atomic_swap(XSHMEMI_DS, dest, value, pe),        \
                       xshmemi_h_##N##_atomic_swap(dest, value, pe));                \
  }                                                                                  \
  XSHMEMI_HD void xshmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe) { \
    XSHMEMI_SEL(*fetch = xshmem::dev::atomic_fetch(XSHMEMI_DS, source, pe),          \
                xshmemi_h_##N##_atomic_fetch_nbi(fetch, source, pe));                \
  }                                                                                  \
  XSHMEMI_HD void xshmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe) { \
    XSHMEMI_SEL(*fetch = xshmem::dev::atomic_swap(XSHMEMI_DS, dest, value, pe),      \
                xshmemi_h_##N##_atomic_swap_nbi(fetch, dest, value, pe));            \
  }
XSHMEM_AMO_EXTENDED_TYPES(XSHMEMI_AMO_EXT)
#undef XSHMEMI_AMO_EXT

#define XSHMEMI_AMO_STD(T, N)                                                                 \
  extern "C" T xshmemi_h_##N##_atomic_compare_swap(T *, T, T, int);                           \
  extern "C" T xshmemi_h_##N##_atomic_fetch_inc(T *, int);                                    \
  extern "C" void xshmemi_h_##N##_atomic_inc(T *, int);                                       \
  extern "C" T xshmemi_h_##N##_atomic_fetch_add(T *, T, int);                                 \
  extern "C" void xshmemi_h_##N##_atomic_add(T *, T, int);                                    \
  extern "C" void xshmemi_h_##N##_atomic_compare_swap_nbi(T *, T *, T, T, int);               \
  extern "C" void xshmemi_h_##N##_atomic_fetch_inc_nbi(T *, T *, int);                        \
  extern "C" void xshmemi_h_##N##_atomic_fetch_add_nbi(T *, T *, T, int);                     \
  XSHMEMI_HD T xshmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe) {           \
    return XSHMEMI_SEL(xshmem::dev::atomic_compare_swap(XSHMEMI_DS, dest, cond, value, pe),   \
                       xshmemi_h_##N##_atomic_compare_swap(dest, cond, value, pe));           \
  }                                                                                           \
  XSHMEMI_HD T xshmem_##N##_atomic_fetch_inc(T *dest, int pe) {                               \
    return XSHMEMI_SEL(xshmem::dev::atomic_fetch_inc(XSHMEMI_DS, dest, pe),                   \
                       xshmemi_h_##N##_atomic_fetch_inc(dest, pe));                           \
  }                                                                                           \
  XSHMEMI_HD void xshmem_##N##_atomic_inc(T *dest, int pe) {                                  \
    XSHMEMI_SEL(xshmem::dev::atomic_inc(XSHMEMI_DS, dest, pe),                                \
                xshmemi_h_##N##_atomic_inc(dest, pe));                                        \
  }                                                                                           \
  XSHMEMI_HD T xshmem_##N##_atomic_fetch_add(T *dest, T value, int pe) {                      \
    return XSHMEMI_SEL(xshmem::dev::atomic_fetch_add(XSHMEMI_DS, dest, value, pe),            \
                       xshmemi_h_##N##_atomic_fetch_add(dest, value, pe));                    \
  }                                                                                           \
  XSHMEMI_HD void xshmem_##N##_atomic_add(T *dest, T value, int pe) {                         \
    XSHMEMI_SEL(xshmem::dev::atomic_add(XSHMEMI_DS, dest, value, pe),                         \
                xshmemi_h_##N##_atomic_add(dest, value, pe));                                 \
  }                                                                                           \
  XSHMEMI_HD void xshmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value,    \
                                                       int pe) {                              \
    XSHMEMI_SEL(*fetch = xshmem::dev::atomic_compare_swap(XSHMEMI_DS, dest, cond, value, pe), \
                xshmemi_h_##N##_atomic_compare_swap_nbi(fetch, dest, cond, value, pe));       \
  }                                                                                           \
  XSHMEMI_HD void xshmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe) {              \
    XSHMEMI_SEL(*fetch = xshmem::dev::atomic_fetch_inc(XSHMEMI_DS, dest, pe),                 \
                xshmemi_h_##N##_atomic_fetch_inc_nbi(fetch, dest, pe));                       \
  }                                                                                           \
  XSHMEMI_HD void xshmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe) {     \
    XSHMEMI_SEL(*fetch = xshmem::dev::atomic_fetch_add(XSHMEMI_DS, dest, value, pe),          \
                xshmemi_h_##N##_atomic_fetch_add_nbi(fetch, dest, value, pe));                \
  }
XSHMEM_AMO_STANDARD_TYPES(XSHMEMI_AMO_STD)
#undef XSHMEMI_AMO_STD

#define XSHMEMI_AMO_BIT_OP(T, N, OP)                                                         \
  extern "C" T xshmemi_h_##N##_atomic_fetch_##OP(T *, T, int);                               \
  extern "C" void xshmemi_h_##N##_atomic_##OP(T *, T, int);                                  \
  extern "C" void xshmemi_h_##N##_atomic_fetch_##OP##_nbi(T *, T *, T, int);                 \
  XSHMEMI_HD T xshmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe) {                    \
    return XSHMEMI_SEL(xshmem::dev::atomic_fetch_##OP(XSHMEMI_DS, dest, value, pe),          \
                       xshmemi_h_##N##_atomic_fetch_##OP(dest, value, pe));                  \
  }                                                                                          \
  XSHMEMI_HD void xshmem_##N##_atomic_##OP(T *dest, T value, int pe) {                       \
    XSHMEMI_SEL(xshmem::dev::atomic_##OP(XSHMEMI_DS, dest, value, pe),                       \
                xshmemi_h_##N##_atomic_##OP(dest, value, pe));                               \
  }                                                                                          \
  XSHMEMI_HD void xshmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe) { \
    XSHMEMI_SEL(*fetch = xshmem::dev::atomic_fetch_##OP(XSHMEMI_DS, dest, value, pe),        \
                xshmemi_h_##N##_atomic_fetch_##OP##_nbi(fetch, dest, value, pe));            \
  }
#define XSHMEMI_AMO_BIT(T, N)   \
  XSHMEMI_AMO_BIT_OP(T, N, and) \
  XSHMEMI_AMO_BIT_OP(T, N, or)  \
  XSHMEMI_AMO_BIT_OP(T, N, xor)
XSHMEM_AMO_BITWISE_TYPES(XSHMEMI_AMO_BIT)
#undef XSHMEMI_AMO_BIT
#undef XSHMEMI_AMO_BIT_OP

// ---- Signals ------------------------------------------------------------------------------------
#define XSHMEMI_SIG(T, N)                                                                        \
  extern "C" void xshmemi_h_##N##_put_signal(T *, const T *, size_t, uint64_t *, uint64_t, int,  \
                                             int);                                               \
  extern "C" void xshmemi_h_##N##_put_signal_nbi(T *, const T *, size_t, uint64_t *, uint64_t,   \
                                                 int, int);                                      \
  XSHMEMI_HD void xshmem_##N##_put_signal(T *dest, const T *source, size_t nelems,               \
                                          uint64_t *sig_addr, uint64_t signal, int sig_op,       \
                                          int pe) {                                              \
    XSHMEMI_SEL(                                                                                 \
        xshmem::dev::put_signal(XSHMEMI_DS, dest, source, nelems, sig_addr, signal, sig_op, pe), \
        xshmemi_h_##N##_put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe));         \
  }                                                                                              \
  XSHMEMI_HD void xshmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,           \
                                              uint64_t *sig_addr, uint64_t signal, int sig_op,   \
                                              int pe) {                                          \
    XSHMEMI_SEL(                                                                                 \
        xshmem::dev::put_signal_nbi(XSHMEMI_DS, dest, source, nelems, sig_addr, signal, sig_op,  \
                                    pe),                                                         \
        xshmemi_h_##N##_put_signal_nbi(dest, source, nelems, sig_addr, signal, sig_op, pe));     \
  }                                                                                              \
  XSHMEMI_D void xshmemx_##N##_put_signal_warp(T *dest, const T *source, size_t nelems,          \
                                               uint64_t *sig_addr, uint64_t signal, int sig_op,  \
                                               int pe) {                                         \
    xshmem::dev::putmem_signal_warp(XSHMEMI_DS, dest, source, nelems * sizeof(T), sig_addr,      \
                                    signal, sig_op, pe);                                         \
  }                                                                                              \
  XSHMEMI_D void xshmemx_##N##_put_signal_nbi_warp(T *dest, const T *source, size_t nelems,      \
                                                   uint64_t *sig_addr, uint64_t signal,          \
                                                   int sig_op, int pe) {                         \
    xshmem::dev::putmem_signal_nbi_warp(XSHMEMI_DS, dest, source, nelems * sizeof(T), sig_addr,  \
                                        signal, sig_op, pe);                                     \
  }                                                                                              \
  XSHMEMI_D void xshmemx_##N##_put_signal_block(T *dest, const T *source, size_t nelems,         \
                                                uint64_t *sig_addr, uint64_t signal, int sig_op, \
                                                int pe) {                                        \
    xshmem::dev::putmem_signal_block(XSHMEMI_DS, dest, source, nelems * sizeof(T), sig_addr,     \
                                     signal, sig_op, pe);                                        \
  }                                                                                              \
  XSHMEMI_D void xshmemx_##N##_put_signal_nbi_block(T *dest, const T *source, size_t nelems,     \
                                                    uint64_t *sig_addr, uint64_t signal,         \
                                                    int sig_op, int pe) {                        \
    xshmem::dev::putmem_signal_nbi_block(XSHMEMI_DS, dest, source, nelems * sizeof(T), sig_addr, \
                                         signal, sig_op, pe);                                    \
  }
XSHMEM_RMA_TYPES_NO_LD(XSHMEMI_SIG)
#undef XSHMEMI_SIG

#define XSHMEMI_SIG_SIZED(BITS, T)                                                                 \
  extern "C" void xshmemi_h_put##BITS##_signal(void *, const void *, size_t, uint64_t *, uint64_t, \
                                               int, int);                                          \
  extern "C" void xshmemi_h_put##BITS##_signal_nbi(void *, const void *, size_t, uint64_t *,       \
                                                   uint64_t, int, int);                            \
  XSHMEMI_HD void xshmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,         \
                                            uint64_t *sig_addr, uint64_t signal, int sig_op,       \
                                            int pe) {                                              \
    XSHMEMI_SEL(xshmem::dev::putmem_signal(XSHMEMI_DS, dest, source, nelems * sizeof(T), sig_addr, \
                                           signal, sig_op, pe),                                    \
                xshmemi_h_put##BITS##_signal(dest, source, nelems, sig_addr, signal, sig_op, pe)); \
  }                                                                                                \
  XSHMEMI_HD void xshmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems,     \
                                                uint64_t *sig_addr, uint64_t signal, int sig_op,   \
                                                int pe) {                                          \
    XSHMEMI_SEL(                                                                                   \
        xshmem::dev::putmem_signal_nbi(XSHMEMI_DS, dest, source, nelems * sizeof(T), sig_addr,     \
                                       signal, sig_op, pe),                                        \
        xshmemi_h_put##BITS##_signal_nbi(dest, source, nelems, sig_addr, signal, sig_op, pe));     \
  }
XSHMEM_SIZED_TYPES(XSHMEMI_SIG_SIZED)
XSHMEMI_SIG_SIZED(128, xshmemi_bits128_t)
#undef XSHMEMI_SIG_SIZED

extern "C" void xshmemi_h_putmem_signal(void *, const void *, size_t, uint64_t *, uint64_t, int,
                                        int);
extern "C" void xshmemi_h_putmem_signal_nbi(void *, const void *, size_t, uint64_t *, uint64_t, int,
                                            int);
extern "C" void xshmemi_h_signal_add(uint64_t *, uint64_t, int);
extern "C" void xshmemi_h_signal_set(uint64_t *, uint64_t, int);
extern "C" uint64_t xshmemi_h_signal_fetch(const uint64_t *);
extern "C" uint64_t xshmemi_h_signal_wait_until(uint64_t *, int, uint64_t);
XSHMEMI_HD void xshmem_putmem_signal(void *dest, const void *source, size_t nbytes,
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  XSHMEMI_SEL(
      xshmem::dev::putmem_signal(XSHMEMI_DS, dest, source, nbytes, sig_addr, signal, sig_op, pe),
      xshmemi_h_putmem_signal(dest, source, nbytes, sig_addr, signal, sig_op, pe));
}
XSHMEMI_HD void xshmem_putmem_signal_nbi(void *dest, const void *source, size_t nbytes,
                                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  XSHMEMI_SEL(xshmem::dev::putmem_signal_nbi(XSHMEMI_DS, dest, source, nbytes, sig_addr, signal,
                                             sig_op, pe),
              xshmemi_h_putmem_signal_nbi(dest, source, nbytes, sig_addr, signal, sig_op, pe));
}
XSHMEMI_D void xshmemx_putmem_signal_warp(void *dest, const void *source, size_t nbytes,
                                          uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  xshmem::dev::putmem_signal_warp(XSHMEMI_DS, dest, source, nbytes, sig_addr, signal, sig_op, pe);
}
XSHMEMI_D void xshmemx_putmem_signal_nbi_warp(void *dest, const void *source, size_t nbytes,
                                              uint64_t *sig_addr, uint64_t signal, int sig_op,
                                              int pe) {
  xshmem::dev::putmem_signal_nbi_warp(XSHMEMI_DS, dest, source, nbytes, sig_addr, signal, sig_op,
                                      pe);
}
XSHMEMI_D void xshmemx_putmem_signal_block(void *dest, const void *source, size_t nbytes,
                                           uint64_t *sig_addr, uint64_t signal, int sig_op,
                                           int pe) {
  xshmem::dev::putmem_signal_block(XSHMEMI_DS, dest, source, nbytes, sig_addr, signal, sig_op, pe);
}
XSHMEMI_D void xshmemx_putmem_signal_nbi_block(void *dest, const void *source, size_t nbytes,
                                               uint64_t *sig_addr, uint64_t signal, int sig_op,
                                               int pe) {
  xshmem::dev::putmem_signal_nbi_block(XSHMEMI_DS, dest, source, nbytes, sig_addr, signal, sig_op,
                                       pe);
}
XSHMEMI_HD void xshmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe) {
  XSHMEMI_SEL(xshmem::dev::signal_op(XSHMEMI_DS, sig_addr, signal, xshmem::dev::kSignalAdd, pe),
              xshmemi_h_signal_add(sig_addr, signal, pe));
}
XSHMEMI_HD void xshmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe) {
  XSHMEMI_SEL(xshmem::dev::signal_op(XSHMEMI_DS, sig_addr, signal, xshmem::dev::kSignalSet, pe),
              xshmemi_h_signal_set(sig_addr, signal, pe));
}
XSHMEMI_HD uint64_t xshmem_signal_fetch(const uint64_t *sig_addr) {
  return XSHMEMI_SEL(xshmem::dev::signal_fetch(sig_addr), xshmemi_h_signal_fetch(sig_addr));
}
XSHMEMI_HD uint64_t xshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
  return XSHMEMI_SEL(xshmem::dev::signal_wait_until(XSHMEMI_DS, sig_addr, cmp, cmp_value),
                     xshmemi_h_signal_wait_until(sig_addr, cmp, cmp_value));
}

// ---- Point-to-point synchronization -------------------------------------------------------------
#define XSHMEMI_P2P(T, N)                                                                          \
  extern "C" void xshmemi_h_##N##_wait_until(T *, int, T);                                         \
  extern "C" void xshmemi_h_##N##_wait_until_all(T *, size_t, const int *, int, T);                \
  extern "C" size_t xshmemi_h_##N##_wait_until_any(T *, size_t, const int *, int, T);              \
  extern "C" size_t xshmemi_h_##N##_wait_until_some(T *, size_t, size_t *, const int *, int, T);   \
  extern "C" void xshmemi_h_##N##_wait_until_all_vector(T *, size_t, const int *, int, const T *); \
  extern "C" size_t xshmemi_h_##N##_wait_until_any_vector(T *, size_t, const int *, int,           \
                                                          const T *);                              \
  extern "C" size_t xshmemi_h_##N##_wait_until_some_vector(T *, size_t, size_t *, const int *,     \
                                                           int, const T *);                        \
  extern "C" int xshmemi_h_##N##_test(T *, int, T);                                                \
  extern "C" int xshmemi_h_##N##_test_all(T *, size_t, const int *, int, T);                       \
  extern "C" size_t xshmemi_h_##N##_test_any(T *, size_t, const int *, int, T);                    \
  extern "C" size_t xshmemi_h_##N##_test_some(T *, size_t, size_t *, const int *, int, T);         \
  extern "C" int xshmemi_h_##N##_test_all_vector(T *, size_t, const int *, int, const T *);        \
  extern "C" size_t xshmemi_h_##N##_test_any_vector(T *, size_t, const int *, int, const T *);     \
  extern "C" size_t xshmemi_h_##N##_test_some_vector(T *, size_t, size_t *, const int *, int,      \
                                                     const T *);                                   \
  XSHMEMI_HD void xshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value) {                         \
    XSHMEMI_SEL(                                                                                   \
        xshmem::dev::wait_until(XSHMEMI_DS, xshmem::dev::wait_site{xshmem::dev::kWaitUntil}, ivar, \
                                cmp, cmp_value),                                                   \
        xshmemi_h_##N##_wait_until(ivar, cmp, cmp_value));                                         \
  }                                                                                                \
  XSHMEMI_HD void xshmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, \
                                              T cmp_value) {                                       \
    XSHMEMI_SEL(xshmem::dev::wait_until_all(XSHMEMI_DS, ivars, nelems, status, cmp, cmp_value),    \
                xshmemi_h_##N##_wait_until_all(ivars, nelems, status, cmp, cmp_value));            \
  }                                                                                                \
  XSHMEMI_HD size_t xshmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status,        \
                                                int cmp, T cmp_value) {                            \
    return XSHMEMI_SEL(                                                                            \
        xshmem::dev::wait_until_any(XSHMEMI_DS, ivars, nelems, status, cmp, cmp_value, nullptr),   \
        xshmemi_h_##N##_wait_until_any(ivars, nelems, status, cmp, cmp_value));                    \
  }                                                                                                \
  XSHMEMI_HD size_t xshmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,         \
                                                 const int *status, int cmp, T cmp_value) {        \
    return XSHMEMI_SEL(                                                                            \
        xshmem::dev::wait_until_some(XSHMEMI_DS, ivars, nelems, indices, status, cmp, cmp_value),  \
        xshmemi_h_##N##_wait_until_some(ivars, nelems, indices, status, cmp, cmp_value));          \
  }                                                                                                \
  XSHMEMI_HD void xshmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,   \
                                                     int cmp, const T *cmp_values) {               \
    XSHMEMI_SEL(                                                                                   \
        xshmem::dev::wait_until_all_vector(XSHMEMI_DS, ivars, nelems, status, cmp, cmp_values),    \
        xshmemi_h_##N##_wait_until_all_vector(ivars, nelems, status, cmp, cmp_values));            \
  }                                                                                                \
  XSHMEMI_HD size_t xshmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, \
                                                       int cmp, const T *cmp_values) {             \
    return XSHMEMI_SEL(                                                                            \
        xshmem::dev::wait_until_any_vector(XSHMEMI_DS, ivars, nelems, status, cmp, cmp_values,     \
                                           nullptr),                                               \
        xshmemi_h_##N##_wait_until_any_vector(ivars, nelems, status, cmp, cmp_values));            \
  }                                                                                                \
  XSHMEMI_HD size_t xshmem_##N##_wait_until_some_vector(                                           \
      T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const T *cmp_values) { \
    return XSHMEMI_SEL(                                                                            \
        xshmem::dev::wait_until_some_vector(XSHMEMI_DS, ivars, nelems, indices, status, cmp,       \
                                            cmp_values),                                           \
        xshmemi_h_##N##_wait_until_some_vector(ivars, nelems, indices, status, cmp, cmp_values));  \
  }                                                                                                \
  XSHMEMI_HD int xshmem_##N##_test(T *ivar, int cmp, T cmp_value) {                                \
    return XSHMEMI_SEL(xshmem::dev::test(ivar, cmp, cmp_value),                                    \
                       xshmemi_h_##N##_test(ivar, cmp, cmp_value));                                \
  }                                                                                                \
  XSHMEMI_HD int xshmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,        \
                                       T cmp_value) {                                              \
    return XSHMEMI_SEL(xshmem::dev::test_all(ivars, nelems, status, cmp, cmp_value),               \
                       xshmemi_h_##N##_test_all(ivars, nelems, status, cmp, cmp_value));           \
  }                                                                                                \
  XSHMEMI_HD size_t xshmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,     \
                                          T cmp_value) {                                           \
    return XSHMEMI_SEL(xshmem::dev::test_any(ivars, nelems, status, cmp, cmp_value, nullptr),      \
                       xshmemi_h_##N##_test_any(ivars, nelems, status, cmp, cmp_value));           \
  }                                                                                                \
  XSHMEMI_HD size_t xshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,               \
                                           const int *status, int cmp, T cmp_value) {              \
    return XSHMEMI_SEL(xshmem::dev::test_some(ivars, nelems, indices, status, cmp, cmp_value),     \
                       xshmemi_h_##N##_test_some(ivars, nelems, indices, status, cmp, cmp_value)); \
  }                                                                                                \
  XSHMEMI_HD int xshmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                              const T *cmp_values) {                               \
    return XSHMEMI_SEL(xshmem::dev::test_all_vector(ivars, nelems, status, cmp, cmp_values),       \
                       xshmemi_h_##N##_test_all_vector(ivars, nelems, status, cmp, cmp_values));   \
  }                                                                                                \
  XSHMEMI_HD size_t xshmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status,       \
                                                 int cmp, const T *cmp_values) {                   \
    return XSHMEMI_SEL(                                                                            \
        xshmem::dev::test_any_vector(ivars, nelems, status, cmp, cmp_values, nullptr),             \
        xshmemi_h_##N##_test_any_vector(ivars, nelems, status, cmp, cmp_values));                  \
  }                                                                                                \
  XSHMEMI_HD size_t xshmem_##N##_test_some_vector(                                                 \
      T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const T *cmp_values) { \
    return XSHMEMI_SEL(                                                                            \
        xshmem::dev::test_some_vector(ivars, nelems, indices, status, cmp, cmp_values),            \
        xshmemi_h_##N##_test_some_vector(ivars, nelems, indices, status, cmp, cmp_values));        \
  }
XSHMEM_P2P_TYPES(XSHMEMI_P2P)
#undef XSHMEMI_P2P

// ---- Ordering and synchronization ---------------------------------------------------------------
extern "C" void xshmemi_h_fence(void);
extern "C" void xshmemi_h_quiet(void);
extern "C" void xshmemi_h_barrier_all(void);
extern "C" void xshmemi_h_sync_all(void);
XSHMEMI_HD void xshmem_fence(void) {
  XSHMEMI_SEL(xshmem::dev::fence(XSHMEMI_DS), xshmemi_h_fence());
}
XSHMEMI_HD void xshmem_quiet(void) {
  XSHMEMI_SEL(xshmem::dev::quiet(XSHMEMI_DS), xshmemi_h_quiet());
}
// On the device: one thread per PE (see the rules above).
XSHMEMI_HD void xshmem_barrier_all(void) {
  XSHMEMI_SEL(xshmem::dev::barrier_all(XSHMEMI_DS), xshmemi_h_barrier_all());
}
XSHMEMI_HD void xshmem_sync_all(void) {
  XSHMEMI_SEL(xshmem::dev::sync_all(XSHMEMI_DS), xshmemi_h_sync_all());
}
// Every thread of the block (warp) calls; one block (warp) per PE.
XSHMEMI_D void xshmemx_barrier_all_block(void) {
  xshmem::dev::barrier_all_block(XSHMEMI_DS);
}
XSHMEMI_D void xshmemx_sync_all_block(void) {
  xshmem::dev::sync_all_block(XSHMEMI_DS);
}
XSHMEMI_D void xshmemx_barrier_all_warp(void) {
  xshmem::dev::barrier_all_warp(XSHMEMI_DS);
}
XSHMEMI_D void xshmemx_sync_all_warp(void) {
  xshmem::dev::sync_all_warp(XSHMEMI_DS);
}

// ---- Distributed locks (<xshmem/device/lock.h>) -------------------------------------------------
// Thread scope: any number of threads, of any PEs and kernels and of host code, may contend for
// one lock; each holder is the calling thread (a warp or block takes the lock through one of its
// threads and shares the critical section itself). A thread that waits for a lock whose holder
// cannot run (a block of the same kernel that is not resident) deadlocks.
#include <xshmem/device/lock.h>
extern "C" void xshmemi_h_set_lock(long *);
extern "C" int xshmemi_h_test_lock(long *);
extern "C" void xshmemi_h_clear_lock(long *);
XSHMEMI_HD void xshmem_set_lock(long *lock) {
  XSHMEMI_SEL(xshmem::dev::set_lock(XSHMEMI_DS, lock), xshmemi_h_set_lock(lock));
}
XSHMEMI_HD int xshmem_test_lock(long *lock) {
  return XSHMEMI_SEL(xshmem::dev::test_lock(XSHMEMI_DS, lock), xshmemi_h_test_lock(lock));
}
XSHMEMI_HD void xshmem_clear_lock(long *lock) {
  XSHMEMI_SEL(xshmem::dev::clear_lock(XSHMEMI_DS, lock), xshmemi_h_clear_lock(lock));
}

// ---- Contexts (begin) ---------------------------------------------------------------------------
// The ctx forms: `pe` is numbered in the context's team, which the handle carries
// (<xshmem/device/ctx.h>), so device code translates it with the team table of the device state;
// contexts need no table of their own on the GPU, and a host thread may create or destroy them
// while kernels run. A kernel may use XSHMEM_CTX_DEFAULT and any context of its PE's host
// process, until the context is destroyed. On the device: fence/quiet/pe_quiet on
// XSHMEM_CTX_INVALID do nothing; an operation on XSHMEM_CTX_INVALID, or to a pe outside the team,
// targets pe -1 (reported by -DXSHMEM_DEVICE_CHECKS=1 kernels, undefined otherwise); the
// PRIVATE/destroyed checks of the host calls are not made. The context goes down to the
// dispatchers (rma.h, amo.h, signal.h), which give it to the path: LSA completes an operation
// before it returns, so there fence/quiet of a context are the thread's fence/quiet; the PROXY
// path (proxy.h) uses it to pick the proxy channel. Thread forms only (no _warp/_block ctx forms
// yet).
#include <xshmem/device/ctx.h>
#define XSHMEMI_CW(ctx, pe) ::xshmem::dev::ctx_world_pe(XSHMEMI_DS, ctx, pe)
#define XSHMEMI_CTX_RMA(T, N)                                                                      \
  extern "C" void xshmemi_h_ctx_##N##_put(xshmem_ctx_t, T *, const T *, size_t, int);              \
  extern "C" void xshmemi_h_ctx_##N##_get(xshmem_ctx_t, T *, const T *, size_t, int);              \
  extern "C" void xshmemi_h_ctx_##N##_put_nbi(xshmem_ctx_t, T *, const T *, size_t, int);          \
  extern "C" void xshmemi_h_ctx_##N##_get_nbi(xshmem_ctx_t, T *, const T *, size_t, int);          \
  extern "C" void xshmemi_h_ctx_##N##_p(xshmem_ctx_t, T *, T, int);                                \
  extern "C" T xshmemi_h_ctx_##N##_g(xshmem_ctx_t, const T *, int);                                \
  extern "C" void xshmemi_h_ctx_##N##_iput(xshmem_ctx_t, T *, const T *, ptrdiff_t, ptrdiff_t,     \
                                           size_t, int);                                           \
  extern "C" void xshmemi_h_ctx_##N##_iget(xshmem_ctx_t, T *, const T *, ptrdiff_t, ptrdiff_t,     \
                                           size_t, int);                                           \
  extern "C" void xshmemi_h_ctx_##N##_put_signal(xshmem_ctx_t, T *, const T *, size_t, uint64_t *, \
                                                 uint64_t, int, int);                              \
  extern "C" void xshmemi_h_ctx_##N##_put_signal_nbi(xshmem_ctx_t, T *, const T *, size_t,         \
                                                     uint64_t *, uint64_t, int, int);              \
  XSHMEMI_HD void xshmem_ctx_##N##_put(xshmem_ctx_t ctx, T *dest, const T *source, size_t nelems,  \
                                       int pe) {                                                   \
    XSHMEMI_SEL(xshmem::dev::put(XSHMEMI_DS, ctx, dest, source, nelems, XSHMEMI_CW(ctx, pe)),      \
                xshmemi_h_ctx_##N##_put(ctx, dest, source, nelems, pe));                           \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_##N##_get(xshmem_ctx_t ctx, T *dest, const T *source, size_t nelems,  \
                                       int pe) {                                                   \
    XSHMEMI_SEL(xshmem::dev::get(XSHMEMI_DS, ctx, dest, source, nelems, XSHMEMI_CW(ctx, pe)),      \
                xshmemi_h_ctx_##N##_get(ctx, dest, source, nelems, pe));                           \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_##N##_put_nbi(xshmem_ctx_t ctx, T *dest, const T *source,             \
                                           size_t nelems, int pe) {                                \
    XSHMEMI_SEL(xshmem::dev::put_nbi(XSHMEMI_DS, ctx, dest, source, nelems, XSHMEMI_CW(ctx, pe)),  \
                xshmemi_h_ctx_##N##_put_nbi(ctx, dest, source, nelems, pe));                       \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_##N##_get_nbi(xshmem_ctx_t ctx, T *dest, const T *source,             \
                                           size_t nelems, int pe) {                                \
    XSHMEMI_SEL(xshmem::dev::get_nbi(XSHMEMI_DS, ctx, dest, source, nelems, XSHMEMI_CW(ctx, pe)),  \
                xshmemi_h_ctx_##N##_get_nbi(ctx, dest, source, nelems, pe));                       \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_##N##_p(xshmem_ctx_t ctx, T *dest, T value, int pe) {                 \
    XSHMEMI_SEL(xshmem::dev::p(XSHMEMI_DS, ctx, dest, value, XSHMEMI_CW(ctx, pe)),                 \
                xshmemi_h_ctx_##N##_p(ctx, dest, value, pe));                                      \
  }                                                                                                \
  XSHMEMI_HD T xshmem_ctx_##N##_g(xshmem_ctx_t ctx, const T *source, int pe) {                     \
    return XSHMEMI_SEL(xshmem::dev::g(XSHMEMI_DS, ctx, source, XSHMEMI_CW(ctx, pe)),               \
                       xshmemi_h_ctx_##N##_g(ctx, source, pe));                                    \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_##N##_iput(xshmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, \
                                        ptrdiff_t sst, size_t nelems, int pe) {                    \
    XSHMEMI_SEL(                                                                                   \
        xshmem::dev::iput(XSHMEMI_DS, ctx, dest, source, dst, sst, nelems, XSHMEMI_CW(ctx, pe)),   \
        xshmemi_h_ctx_##N##_iput(ctx, dest, source, dst, sst, nelems, pe));                        \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_##N##_iget(xshmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, \
                                        ptrdiff_t sst, size_t nelems, int pe) {                    \
    XSHMEMI_SEL(                                                                                   \
        xshmem::dev::iget(XSHMEMI_DS, ctx, dest, source, dst, sst, nelems, XSHMEMI_CW(ctx, pe)),   \
        xshmemi_h_ctx_##N##_iget(ctx, dest, source, dst, sst, nelems, pe));                        \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_##N##_put_signal(xshmem_ctx_t ctx, T *dest, const T *source,          \
                                              size_t nelems, uint64_t *sig_addr, uint64_t signal,  \
                                              int sig_op, int pe) {                                \
    XSHMEMI_SEL(                                                                                   \
        xshmem::dev::put_signal(XSHMEMI_DS, ctx, dest, source, nelems, sig_addr, signal, sig_op,   \
                                XSHMEMI_CW(ctx, pe)),                                              \
        xshmemi_h_ctx_##N##_put_signal(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe));  \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_##N##_put_signal_nbi(xshmem_ctx_t ctx, T *dest, const T *source,      \
                                                  size_t nelems, uint64_t *sig_addr,               \
                                                  uint64_t signal, int sig_op, int pe) {           \
    XSHMEMI_SEL(xshmem::dev::put_signal_nbi(XSHMEMI_DS, ctx, dest, source, nelems, sig_addr,       \
                                            signal, sig_op, XSHMEMI_CW(ctx, pe)),                  \
                xshmemi_h_ctx_##N##_put_signal_nbi(ctx, dest, source, nelems, sig_addr, signal,    \
                                                   sig_op, pe));                                   \
  }
XSHMEM_RMA_TYPES_NO_LD(XSHMEMI_CTX_RMA)
#undef XSHMEMI_CTX_RMA

#define XSHMEMI_CTX_SIZED(BITS, T)                                                                 \
  extern "C" void xshmemi_h_ctx_put##BITS(xshmem_ctx_t, void *, const void *, size_t, int);        \
  extern "C" void xshmemi_h_ctx_get##BITS(xshmem_ctx_t, void *, const void *, size_t, int);        \
  extern "C" void xshmemi_h_ctx_put##BITS##_nbi(xshmem_ctx_t, void *, const void *, size_t, int);  \
  extern "C" void xshmemi_h_ctx_get##BITS##_nbi(xshmem_ctx_t, void *, const void *, size_t, int);  \
  extern "C" void xshmemi_h_ctx_iput##BITS(xshmem_ctx_t, void *, const void *, ptrdiff_t,          \
                                           ptrdiff_t, size_t, int);                                \
  extern "C" void xshmemi_h_ctx_iget##BITS(xshmem_ctx_t, void *, const void *, ptrdiff_t,          \
                                           ptrdiff_t, size_t, int);                                \
  extern "C" void xshmemi_h_ctx_put##BITS##_signal(xshmem_ctx_t, void *, const void *, size_t,     \
                                                   uint64_t *, uint64_t, int, int);                \
  extern "C" void xshmemi_h_ctx_put##BITS##_signal_nbi(xshmem_ctx_t, void *, const void *, size_t, \
                                                       uint64_t *, uint64_t, int, int);            \
  XSHMEMI_HD void xshmem_ctx_put##BITS(xshmem_ctx_t ctx, void *dest, const void *source,           \
                                       size_t nelems, int pe) {                                    \
    XSHMEMI_SEL(xshmem::dev::putmem(XSHMEMI_DS, ctx, dest, source, nelems * sizeof(T),             \
                                    XSHMEMI_CW(ctx, pe)),                                          \
                xshmemi_h_ctx_put##BITS(ctx, dest, source, nelems, pe));                           \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_get##BITS(xshmem_ctx_t ctx, void *dest, const void *source,           \
                                       size_t nelems, int pe) {                                    \
    XSHMEMI_SEL(xshmem::dev::getmem(XSHMEMI_DS, ctx, dest, source, nelems * sizeof(T),             \
                                    XSHMEMI_CW(ctx, pe)),                                          \
                xshmemi_h_ctx_get##BITS(ctx, dest, source, nelems, pe));                           \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_put##BITS##_nbi(xshmem_ctx_t ctx, void *dest, const void *source,     \
                                             size_t nelems, int pe) {                              \
    XSHMEMI_SEL(xshmem::dev::putmem_nbi(XSHMEMI_DS, ctx, dest, source, nelems * sizeof(T),         \
                                        XSHMEMI_CW(ctx, pe)),                                      \
                xshmemi_h_ctx_put##BITS##_nbi(ctx, dest, source, nelems, pe));                     \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_get##BITS##_nbi(xshmem_ctx_t ctx, void *dest, const void *source,     \
                                             size_t nelems, int pe) {                              \
    XSHMEMI_SEL(xshmem::dev::getmem_nbi(XSHMEMI_DS, ctx, dest, source, nelems * sizeof(T),         \
                                        XSHMEMI_CW(ctx, pe)),                                      \
                xshmemi_h_ctx_get##BITS##_nbi(ctx, dest, source, nelems, pe));                     \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_iput##BITS(xshmem_ctx_t ctx, void *dest, const void *source,          \
                                        ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {     \
    XSHMEMI_SEL(                                                                                   \
        xshmem::dev::iput(XSHMEMI_DS, ctx, static_cast<T *>(dest), static_cast<const T *>(source), \
                          dst, sst, nelems, XSHMEMI_CW(ctx, pe)),                                  \
        xshmemi_h_ctx_iput##BITS(ctx, dest, source, dst, sst, nelems, pe));                        \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_iget##BITS(xshmem_ctx_t ctx, void *dest, const void *source,          \
                                        ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {     \
    XSHMEMI_SEL(                                                                                   \
        xshmem::dev::iget(XSHMEMI_DS, ctx, static_cast<T *>(dest), static_cast<const T *>(source), \
                          dst, sst, nelems, XSHMEMI_CW(ctx, pe)),                                  \
        xshmemi_h_ctx_iget##BITS(ctx, dest, source, dst, sst, nelems, pe));                        \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_put##BITS##_signal(xshmem_ctx_t ctx, void *dest, const void *source,  \
                                                size_t nelems, uint64_t *sig_addr,                 \
                                                uint64_t signal, int sig_op, int pe) {             \
    XSHMEMI_SEL(xshmem::dev::putmem_signal(XSHMEMI_DS, ctx, dest, source, nelems * sizeof(T),      \
                                           sig_addr, signal, sig_op, XSHMEMI_CW(ctx, pe)),         \
                xshmemi_h_ctx_put##BITS##_signal(ctx, dest, source, nelems, sig_addr, signal,      \
                                                 sig_op, pe));                                     \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_put##BITS##_signal_nbi(                                               \
      xshmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr,         \
      uint64_t signal, int sig_op, int pe) {                                                       \
    XSHMEMI_SEL(xshmem::dev::putmem_signal_nbi(XSHMEMI_DS, ctx, dest, source, nelems * sizeof(T),  \
                                               sig_addr, signal, sig_op, XSHMEMI_CW(ctx, pe)),     \
                xshmemi_h_ctx_put##BITS##_signal_nbi(ctx, dest, source, nelems, sig_addr, signal,  \
                                                     sig_op, pe));                                 \
  }
XSHMEM_SIZED_TYPES(XSHMEMI_CTX_SIZED)
XSHMEMI_CTX_SIZED(128, xshmemi_bits128_t)
#undef XSHMEMI_CTX_SIZED

extern "C" void xshmemi_h_ctx_putmem(xshmem_ctx_t, void *, const void *, size_t, int);
extern "C" void xshmemi_h_ctx_getmem(xshmem_ctx_t, void *, const void *, size_t, int);
extern "C" void xshmemi_h_ctx_putmem_nbi(xshmem_ctx_t, void *, const void *, size_t, int);
extern "C" void xshmemi_h_ctx_getmem_nbi(xshmem_ctx_t, void *, const void *, size_t, int);
extern "C" void xshmemi_h_ctx_putmem_signal(xshmem_ctx_t, void *, const void *, size_t, uint64_t *,
                                            uint64_t, int, int);
extern "C" void xshmemi_h_ctx_putmem_signal_nbi(xshmem_ctx_t, void *, const void *, size_t,
                                                uint64_t *, uint64_t, int, int);
XSHMEMI_HD void xshmem_ctx_putmem(xshmem_ctx_t ctx, void *dest, const void *source, size_t nbytes,
                                  int pe) {
  XSHMEMI_SEL(xshmem::dev::putmem(XSHMEMI_DS, ctx, dest, source, nbytes, XSHMEMI_CW(ctx, pe)),
              xshmemi_h_ctx_putmem(ctx, dest, source, nbytes, pe));
}
XSHMEMI_HD void xshmem_ctx_getmem(xshmem_ctx_t ctx, void *dest, const void *source, size_t nbytes,
                                  int pe) {
  XSHMEMI_SEL(xshmem::dev::getmem(XSHMEMI_DS, ctx, dest, source, nbytes, XSHMEMI_CW(ctx, pe)),
              xshmemi_h_ctx_getmem(ctx, dest, source, nbytes, pe));
}
XSHMEMI_HD void xshmem_ctx_putmem_nbi(xshmem_ctx_t ctx, void *dest, const void *source,
                                      size_t nbytes, int pe) {
  XSHMEMI_SEL(xshmem::dev::putmem_nbi(XSHMEMI_DS, ctx, dest, source, nbytes, XSHMEMI_CW(ctx, pe)),
              xshmemi_h_ctx_putmem_nbi(ctx, dest, source, nbytes, pe));
}
XSHMEMI_HD void xshmem_ctx_getmem_nbi(xshmem_ctx_t ctx, void *dest, const void *source,
                                      size_t nbytes, int pe) {
  XSHMEMI_SEL(xshmem::dev::getmem_nbi(XSHMEMI_DS, ctx, dest, source, nbytes, XSHMEMI_CW(ctx, pe)),
              xshmemi_h_ctx_getmem_nbi(ctx, dest, source, nbytes, pe));
}
XSHMEMI_HD void xshmem_ctx_putmem_signal(xshmem_ctx_t ctx, void *dest, const void *source,
                                         size_t nbytes, uint64_t *sig_addr, uint64_t signal,
                                         int sig_op, int pe) {
  XSHMEMI_SEL(xshmem::dev::putmem_signal(XSHMEMI_DS, ctx, dest, source, nbytes, sig_addr, signal,
                                         sig_op, XSHMEMI_CW(ctx, pe)),
              xshmemi_h_ctx_putmem_signal(ctx, dest, source, nbytes, sig_addr, signal, sig_op, pe));
}
XSHMEMI_HD void xshmem_ctx_putmem_signal_nbi(xshmem_ctx_t ctx, void *dest, const void *source,
                                             size_t nbytes, uint64_t *sig_addr, uint64_t signal,
                                             int sig_op, int pe) {
  XSHMEMI_SEL(
      xshmem::dev::putmem_signal_nbi(XSHMEMI_DS, ctx, dest, source, nbytes, sig_addr, signal,
                                     sig_op, XSHMEMI_CW(ctx, pe)),
      xshmemi_h_ctx_putmem_signal_nbi(ctx, dest, source, nbytes, sig_addr, signal, sig_op, pe));
}

#define XSHMEMI_CTX_AMO_EXT(T, N)                                                                 \
  extern "C" T xshmemi_h_ctx_##N##_atomic_fetch(xshmem_ctx_t, const T *, int);                    \
  extern "C" void xshmemi_h_ctx_##N##_atomic_set(xshmem_ctx_t, T *, T, int);                      \
  extern "C" T xshmemi_h_ctx_##N##_atomic_swap(xshmem_ctx_t, T *, T, int);                        \
  extern "C" void xshmemi_h_ctx_##N##_atomic_fetch_nbi(xshmem_ctx_t, T *, const T *, int);        \
  extern "C" void xshmemi_h_ctx_##N##_atomic_swap_nbi(xshmem_ctx_t, T *, T *, T, int);            \
  XSHMEMI_HD T xshmem_ctx_##N##_atomic_fetch(xshmem_ctx_t ctx, const T *source, int pe) {         \
    return XSHMEMI_SEL(xshmem::dev::atomic_fetch(XSHMEMI_DS, ctx, source, XSHMEMI_CW(ctx, pe)),   \
                       xshmemi_h_ctx_##N##_atomic_fetch(ctx, source, pe));                        \
  }                                                                                               \
  XSHMEMI_HD void xshmem_ctx_##N##_atomic_set(xshmem_ctx_t ctx, T *dest, T value, int pe) {       \
    XSHMEMI_SEL(xshmem::dev::atomic_set(XSHMEMI_DS, ctx, dest, value, XSHMEMI_CW(ctx, pe)),       \
                xshmemi_h_ctx_##N##_atomic_set(ctx, dest, value, pe));                            \
  }                                                                                               \
  XSHMEMI_HD T xshmem_ctx_##N##_atomic_swap(xshmem_ctx_t ctx, T *dest, T value, int pe) {         \
    return XSHMEMI_SEL(                                                                           \
        xshmem::dev::atomic_swap(XSHMEMI_DS, ctx, dest, value, XSHMEMI_CW(ctx, pe)),              \
        xshmemi_h_ctx_##N##_atomic_swap(ctx, dest, value, pe));                                   \
  }                                                                                               \
  XSHMEMI_HD void xshmem_ctx_##N##_atomic_fetch_nbi(xshmem_ctx_t ctx, T *fetch, const T *source,  \
                                                    int pe) {                                     \
    XSHMEMI_SEL(*fetch = xshmem::dev::atomic_fetch(XSHMEMI_DS, ctx, source, XSHMEMI_CW(ctx, pe)), \
                xshmemi_h_ctx_##N##_atomic_fetch_nbi(ctx, fetch, source, pe));                    \
  }                                                                                               \
  XSHMEMI_HD void xshmem_ctx_##N##_atomic_swap_nbi(xshmem_ctx_t ctx, T *fetch, T *dest, T value,  \
                                                   int pe) {                                      \
    XSHMEMI_SEL(*fetch =                                                                          \
                    xshmem::dev::atomic_swap(XSHMEMI_DS, ctx, dest, value, XSHMEMI_CW(ctx, pe)),  \
                xshmemi_h_ctx_##N##_atomic_swap_nbi(ctx, fetch, dest, value, pe));                \
  }
XSHMEM_AMO_EXTENDED_TYPES(XSHMEMI_CTX_AMO_EXT)
#undef XSHMEMI_CTX_AMO_EXT

#define XSHMEMI_CTX_AMO_STD(T, N)                                                                  \
  extern "C" T xshmemi_h_ctx_##N##_atomic_compare_swap(xshmem_ctx_t, T *, T, T, int);              \
  extern "C" T xshmemi_h_ctx_##N##_atomic_fetch_inc(xshmem_ctx_t, T *, int);                       \
  extern "C" void xshmemi_h_ctx_##N##_atomic_inc(xshmem_ctx_t, T *, int);                          \
  extern "C" T xshmemi_h_ctx_##N##_atomic_fetch_add(xshmem_ctx_t, T *, T, int);                    \
  extern "C" void xshmemi_h_ctx_##N##_atomic_add(xshmem_ctx_t, T *, T, int);                       \
  extern "C" void xshmemi_h_ctx_##N##_atomic_compare_swap_nbi(xshmem_ctx_t, T *, T *, T, T, int);  \
  extern "C" void xshmemi_h_ctx_##N##_atomic_fetch_inc_nbi(xshmem_ctx_t, T *, T *, int);           \
  extern "C" void xshmemi_h_ctx_##N##_atomic_fetch_add_nbi(xshmem_ctx_t, T *, T *, T, int);        \
  XSHMEMI_HD T xshmem_ctx_##N##_atomic_compare_swap(xshmem_ctx_t ctx, T *dest, T cond, T value,    \
                                                    int pe) {                                      \
    return XSHMEMI_SEL(                                                                            \
        xshmem::dev::atomic_compare_swap(XSHMEMI_DS, ctx, dest, cond, value, XSHMEMI_CW(ctx, pe)), \
        xshmemi_h_ctx_##N##_atomic_compare_swap(ctx, dest, cond, value, pe));                      \
  }                                                                                                \
  XSHMEMI_HD T xshmem_ctx_##N##_atomic_fetch_inc(xshmem_ctx_t ctx, T *dest, int pe) {              \
    return XSHMEMI_SEL(xshmem::dev::atomic_fetch_inc(XSHMEMI_DS, ctx, dest, XSHMEMI_CW(ctx, pe)),  \
                       xshmemi_h_ctx_##N##_atomic_fetch_inc(ctx, dest, pe));                       \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_##N##_atomic_inc(xshmem_ctx_t ctx, T *dest, int pe) {                 \
    XSHMEMI_SEL(xshmem::dev::atomic_inc(XSHMEMI_DS, ctx, dest, XSHMEMI_CW(ctx, pe)),               \
                xshmemi_h_ctx_##N##_atomic_inc(ctx, dest, pe));                                    \
  }                                                                                                \
  XSHMEMI_HD T xshmem_ctx_##N##_atomic_fetch_add(xshmem_ctx_t ctx, T *dest, T value, int pe) {     \
    return XSHMEMI_SEL(                                                                            \
        xshmem::dev::atomic_fetch_add(XSHMEMI_DS, ctx, dest, value, XSHMEMI_CW(ctx, pe)),          \
        xshmemi_h_ctx_##N##_atomic_fetch_add(ctx, dest, value, pe));                               \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_##N##_atomic_add(xshmem_ctx_t ctx, T *dest, T value, int pe) {        \
    XSHMEMI_SEL(xshmem::dev::atomic_add(XSHMEMI_DS, ctx, dest, value, XSHMEMI_CW(ctx, pe)),        \
                xshmemi_h_ctx_##N##_atomic_add(ctx, dest, value, pe));                             \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_##N##_atomic_compare_swap_nbi(xshmem_ctx_t ctx, T *fetch, T *dest,    \
                                                           T cond, T value, int pe) {              \
    XSHMEMI_SEL(*fetch = xshmem::dev::atomic_compare_swap(XSHMEMI_DS, ctx, dest, cond, value,      \
                                                          XSHMEMI_CW(ctx, pe)),                    \
                xshmemi_h_ctx_##N##_atomic_compare_swap_nbi(ctx, fetch, dest, cond, value, pe));   \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_##N##_atomic_fetch_inc_nbi(xshmem_ctx_t ctx, T *fetch, T *dest,       \
                                                        int pe) {                                  \
    XSHMEMI_SEL(*fetch =                                                                           \
                    xshmem::dev::atomic_fetch_inc(XSHMEMI_DS, ctx, dest, XSHMEMI_CW(ctx, pe)),     \
                xshmemi_h_ctx_##N##_atomic_fetch_inc_nbi(ctx, fetch, dest, pe));                   \
  }                                                                                                \
  XSHMEMI_HD void xshmem_ctx_##N##_atomic_fetch_add_nbi(xshmem_ctx_t ctx, T *fetch, T *dest,       \
                                                        T value, int pe) {                         \
    XSHMEMI_SEL(*fetch = xshmem::dev::atomic_fetch_add(XSHMEMI_DS, ctx, dest, value,               \
                                                       XSHMEMI_CW(ctx, pe)),                       \
                xshmemi_h_ctx_##N##_atomic_fetch_add_nbi(ctx, fetch, dest, value, pe));            \
  }
XSHMEM_AMO_STANDARD_TYPES(XSHMEMI_CTX_AMO_STD)
#undef XSHMEMI_CTX_AMO_STD

#define XSHMEMI_CTX_AMO_BIT_OP(T, N, OP)                                                          \
  extern "C" T xshmemi_h_ctx_##N##_atomic_fetch_##OP(xshmem_ctx_t, T *, T, int);                  \
  extern "C" void xshmemi_h_ctx_##N##_atomic_##OP(xshmem_ctx_t, T *, T, int);                     \
  extern "C" void xshmemi_h_ctx_##N##_atomic_fetch_##OP##_nbi(xshmem_ctx_t, T *, T *, T, int);    \
  XSHMEMI_HD T xshmem_ctx_##N##_atomic_fetch_##OP(xshmem_ctx_t ctx, T *dest, T value, int pe) {   \
    return XSHMEMI_SEL(                                                                           \
        xshmem::dev::atomic_fetch_##OP(XSHMEMI_DS, dest, value, XSHMEMI_CW(ctx, pe)),             \
        xshmemi_h_ctx_##N##_atomic_fetch_##OP(ctx, dest, value, pe));                             \
  }                                                                                               \
  XSHMEMI_HD void xshmem_ctx_##N##_atomic_##OP(xshmem_ctx_t ctx, T *dest, T value, int pe) {      \
    XSHMEMI_SEL(xshmem::dev::atomic_##OP(XSHMEMI_DS, dest, value, XSHMEMI_CW(ctx, pe)),           \
                xshmemi_h_ctx_##N##_atomic_##OP(ctx, dest, value, pe));                           \
  }                                                                                               \
  XSHMEMI_HD void xshmem_ctx_##N##_atomic_fetch_##OP##_nbi(xshmem_ctx_t ctx, T *fetch, T *dest,   \
                                                           T value, int pe) {                     \
    XSHMEMI_SEL(*fetch =                                                                          \
                    xshmem::dev::atomic_fetch_##OP(XSHMEMI_DS, dest, value, XSHMEMI_CW(ctx, pe)), \
                xshmemi_h_ctx_##N##_atomic_fetch_##OP##_nbi(ctx, fetch, dest, value, pe));        \
  }
#define XSHMEMI_CTX_AMO_BIT(T, N)   \
  XSHMEMI_CTX_AMO_BIT_OP(T, N, and) \
  XSHMEMI_CTX_AMO_BIT_OP(T, N, or)  \
  XSHMEMI_CTX_AMO_BIT_OP(T, N, xor)
XSHMEM_AMO_BITWISE_TYPES(XSHMEMI_CTX_AMO_BIT)
#undef XSHMEMI_CTX_AMO_BIT
#undef XSHMEMI_CTX_AMO_BIT_OP

extern "C" void xshmemi_h_ctx_fence(xshmem_ctx_t);
extern "C" void xshmemi_h_ctx_quiet(xshmem_ctx_t);
extern "C" void xshmemi_h_ctx_pe_quiet(xshmem_ctx_t, const int *, int);
extern "C" void xshmemi_h_pe_quiet(const int *, int);
extern "C" int xshmemi_h_ctx_get_team(xshmem_ctx_t, xshmem_team_t *);
XSHMEMI_HD void xshmem_ctx_fence(xshmem_ctx_t ctx) {
#if defined(__CUDA_ARCH__)
  if (!xshmem::dev::ctx_is_invalid(ctx)) xshmem::dev::fence(XSHMEMI_DS, ctx);
#else
  xshmemi_h_ctx_fence(ctx);
#endif
}
XSHMEMI_HD void xshmem_ctx_quiet(xshmem_ctx_t ctx) {
#if defined(__CUDA_ARCH__)
  if (!xshmem::dev::ctx_is_invalid(ctx)) xshmem::dev::quiet(XSHMEMI_DS, ctx);
#else
  xshmemi_h_ctx_quiet(ctx);
#endif
}
XSHMEMI_HD void xshmem_ctx_pe_quiet(xshmem_ctx_t ctx, const int *target_pes, int npes) {
#if defined(__CUDA_ARCH__)
  (void)target_pes;
  if (!xshmem::dev::ctx_is_invalid(ctx) && npes > 0) xshmem::dev::quiet(XSHMEMI_DS, ctx);
#else
  xshmemi_h_ctx_pe_quiet(ctx, target_pes, npes);
#endif
}
XSHMEMI_HD void xshmem_pe_quiet(const int *target_pes, int npes) {
#if defined(__CUDA_ARCH__)
  (void)target_pes;
  if (npes > 0) xshmem::dev::quiet(XSHMEMI_DS);
#else
  xshmemi_h_pe_quiet(target_pes, npes);
#endif
}
// On the device: the team the handle carries (no check that the context is alive).
XSHMEMI_HD int xshmem_ctx_get_team(xshmem_ctx_t ctx, xshmem_team_t *team) {
#if defined(__CUDA_ARCH__)
  const bool bad = xshmem::dev::ctx_is_invalid(ctx);
  if (team != nullptr) *team = bad ? XSHMEM_TEAM_INVALID : xshmem::dev::ctx_team(ctx);
  return bad ? -1 : 0;
#else
  return xshmemi_h_ctx_get_team(ctx, team);
#endif
}
#undef XSHMEMI_CW
// ---- Contexts (end) -----------------------------------------------------------------------------
// broadcast, collect, fcollect, alltoall, alltoalls (typed and mem) on a team (xshmem.h says
// what each does). On the device the plain form is called by one thread per member PE, the _warp
// (_block) form by every thread of one warp (block) per member, with identical arguments; one
// group per member at a time, the same collectives in the same order on every member. They
// contain team barriers: launch the kernels of every member so they run at once (see the rules
// above).
#define XSHMEMI_COLL_MOVE_GROUP(T, N, SUFFIX, G)                                               \
  XSHMEMI_D int xshmemx_##N##_broadcast##SUFFIX(xshmem_team_t team, T *dest, const T *source,  \
                                                size_t nelems, int PE_root) {                  \
    return xshmem::dev::broadcast<G>(XSHMEMI_DS, team, dest, source, nelems, PE_root);         \
  }                                                                                            \
  XSHMEMI_D int xshmemx_##N##_collect##SUFFIX(xshmem_team_t team, T *dest, const T *source,    \
                                              size_t nelems) {                                 \
    return xshmem::dev::collect<G>(XSHMEMI_DS, team, dest, source, nelems);                    \
  }                                                                                            \
  XSHMEMI_D int xshmemx_##N##_fcollect##SUFFIX(xshmem_team_t team, T *dest, const T *source,   \
                                               size_t nelems) {                                \
    return xshmem::dev::fcollect<G>(XSHMEMI_DS, team, dest, source, nelems);                   \
  }                                                                                            \
  XSHMEMI_D int xshmemx_##N##_alltoall##SUFFIX(xshmem_team_t team, T *dest, const T *source,   \
                                               size_t nelems) {                                \
    return xshmem::dev::alltoall<G>(XSHMEMI_DS, team, dest, source, nelems);                   \
  }                                                                                            \
  XSHMEMI_D int xshmemx_##N##_alltoalls##SUFFIX(xshmem_team_t team, T *dest, const T *source,  \
                                                ptrdiff_t dst, ptrdiff_t sst, size_t nelems) { \
    return xshmem::dev::alltoalls<G>(XSHMEMI_DS, team, dest, source, dst, sst, nelems);        \
  }
#define XSHMEMI_COLL_MOVE(T, N)                                                                    \
  extern "C" int xshmemi_h_##N##_broadcast(xshmem_team_t, T *, const T *, size_t, int);            \
  extern "C" int xshmemi_h_##N##_collect(xshmem_team_t, T *, const T *, size_t);                   \
  extern "C" int xshmemi_h_##N##_fcollect(xshmem_team_t, T *, const T *, size_t);                  \
  extern "C" int xshmemi_h_##N##_alltoall(xshmem_team_t, T *, const T *, size_t);                  \
  extern "C" int xshmemi_h_##N##_alltoalls(xshmem_team_t, T *, const T *, ptrdiff_t, ptrdiff_t,    \
                                           size_t);                                                \
  XSHMEMI_HD int xshmem_##N##_broadcast(xshmem_team_t team, T *dest, const T *source,              \
                                        size_t nelems, int PE_root) {                              \
    return XSHMEMI_SEL(xshmem::dev::broadcast<xshmem::dev::coll_thread>(XSHMEMI_DS, team, dest,    \
                                                                        source, nelems, PE_root),  \
                       xshmemi_h_##N##_broadcast(team, dest, source, nelems, PE_root));            \
  }                                                                                                \
  XSHMEMI_HD int xshmem_##N##_collect(xshmem_team_t team, T *dest, const T *source,                \
                                      size_t nelems) {                                             \
    return XSHMEMI_SEL(                                                                            \
        xshmem::dev::collect<xshmem::dev::coll_thread>(XSHMEMI_DS, team, dest, source, nelems),    \
        xshmemi_h_##N##_collect(team, dest, source, nelems));                                      \
  }                                                                                                \
  XSHMEMI_HD int xshmem_##N##_fcollect(xshmem_team_t team, T *dest, const T *source,               \
                                       size_t nelems) {                                            \
    return XSHMEMI_SEL(                                                                            \
        xshmem::dev::fcollect<xshmem::dev::coll_thread>(XSHMEMI_DS, team, dest, source, nelems),   \
        xshmemi_h_##N##_fcollect(team, dest, source, nelems));                                     \
  }                                                                                                \
  XSHMEMI_HD int xshmem_##N##_alltoall(xshmem_team_t team, T *dest, const T *source,               \
                                       size_t nelems) {                                            \
    return XSHMEMI_SEL(                                                                            \
        xshmem::dev::alltoall<xshmem::dev::coll_thread>(XSHMEMI_DS, team, dest, source, nelems),   \
        xshmemi_h_##N##_alltoall(team, dest, source, nelems));                                     \
  }                                                                                                \
  XSHMEMI_HD int xshmem_##N##_alltoalls(xshmem_team_t team, T *dest, const T *source,              \
                                        ptrdiff_t dst, ptrdiff_t sst, size_t nelems) {             \
    return XSHMEMI_SEL(xshmem::dev::alltoalls<xshmem::dev::coll_thread>(XSHMEMI_DS, team, dest,    \
                                                                        source, dst, sst, nelems), \
                       xshmemi_h_##N##_alltoalls(team, dest, source, dst, sst, nelems));           \
  }                                                                                                \
  XSHMEMI_COLL_MOVE_GROUP(T, N, _warp, xshmem::dev::warp_group)                                    \
  XSHMEMI_COLL_MOVE_GROUP(T, N, _block, xshmem::dev::block_group)
XSHMEM_RMA_TYPES_NO_LD(XSHMEMI_COLL_MOVE)
#undef XSHMEMI_COLL_MOVE
// The mem forms: the byte-typed forms under their OpenSHMEM names.
#define XSHMEMI_COLL_MOVE_MEM(SUFFIX, G)                                                          \
  XSHMEMI_D int xshmemx_broadcastmem##SUFFIX(xshmem_team_t team, void *dest, const void *source,  \
                                             size_t nelems, int PE_root) {                        \
    return xshmem::dev::broadcastmem<G>(XSHMEMI_DS, xshmem::dev::team_of(XSHMEMI_DS, team), dest, \
                                        source, nelems, PE_root);                                 \
  }                                                                                               \
  XSHMEMI_D int xshmemx_collectmem##SUFFIX(xshmem_team_t team, void *dest, const void *source,    \
                                           size_t nelems) {                                       \
    return xshmem::dev::collectmem<G>(XSHMEMI_DS, xshmem::dev::team_of(XSHMEMI_DS, team), dest,   \
                                      source, nelems);                                            \
  }                                                                                               \
  XSHMEMI_D int xshmemx_fcollectmem##SUFFIX(xshmem_team_t team, void *dest, const void *source,   \
                                            size_t nelems) {                                      \
    return xshmem::dev::fcollectmem<G>(XSHMEMI_DS, xshmem::dev::team_of(XSHMEMI_DS, team), dest,  \
                                       source, nelems);                                           \
  }                                                                                               \
  XSHMEMI_D int xshmemx_alltoallmem##SUFFIX(xshmem_team_t team, void *dest, const void *source,   \
                                            size_t nelems) {                                      \
    return xshmem::dev::alltoallmem<G>(XSHMEMI_DS, xshmem::dev::team_of(XSHMEMI_DS, team), dest,  \
                                       source, nelems);                                           \
  }                                                                                               \
  XSHMEMI_D int xshmemx_alltoallsmem##SUFFIX(xshmem_team_t team, void *dest, const void *source,  \
                                             ptrdiff_t dst, ptrdiff_t sst, size_t nelems) {       \
    return xshmem::dev::alltoalls<G>(XSHMEMI_DS, team, static_cast<unsigned char *>(dest),        \
                                     static_cast<const unsigned char *>(source), dst, sst,        \
                                     nelems);                                                     \
  }
XSHMEMI_COLL_MOVE_MEM(_warp, xshmem::dev::warp_group)
XSHMEMI_COLL_MOVE_MEM(_block, xshmem::dev::block_group)
#undef XSHMEMI_COLL_MOVE_MEM
#undef XSHMEMI_COLL_MOVE_GROUP
extern "C" int xshmemi_h_broadcastmem(xshmem_team_t, void *, const void *, size_t, int);
extern "C" int xshmemi_h_collectmem(xshmem_team_t, void *, const void *, size_t);
extern "C" int xshmemi_h_fcollectmem(xshmem_team_t, void *, const void *, size_t);
extern "C" int xshmemi_h_alltoallmem(xshmem_team_t, void *, const void *, size_t);
extern "C" int xshmemi_h_alltoallsmem(xshmem_team_t, void *, const void *, ptrdiff_t, ptrdiff_t,
                                      size_t);
XSHMEMI_HD int xshmem_broadcastmem(xshmem_team_t team, void *dest, const void *source,
                                   size_t nelems, int PE_root) {
  return XSHMEMI_SEL(
      xshmem::dev::broadcastmem<xshmem::dev::coll_thread>(
          XSHMEMI_DS, xshmem::dev::team_of(XSHMEMI_DS, team), dest, source, nelems, PE_root),
      xshmemi_h_broadcastmem(team, dest, source, nelems, PE_root));
}
XSHMEMI_HD int xshmem_collectmem(xshmem_team_t team, void *dest, const void *source,
                                 size_t nelems) {
  return XSHMEMI_SEL(xshmem::dev::collectmem<xshmem::dev::coll_thread>(
                         XSHMEMI_DS, xshmem::dev::team_of(XSHMEMI_DS, team), dest, source, nelems),
                     xshmemi_h_collectmem(team, dest, source, nelems));
}
XSHMEMI_HD int xshmem_fcollectmem(xshmem_team_t team, void *dest, const void *source,
                                  size_t nelems) {
  return XSHMEMI_SEL(xshmem::dev::fcollectmem<xshmem::dev::coll_thread>(
                         XSHMEMI_DS, xshmem::dev::team_of(XSHMEMI_DS, team), dest, source, nelems),
                     xshmemi_h_fcollectmem(team, dest, source, nelems));
}
XSHMEMI_HD int xshmem_alltoallmem(xshmem_team_t team, void *dest, const void *source,
                                  size_t nelems) {
  return XSHMEMI_SEL(xshmem::dev::alltoallmem<xshmem::dev::coll_thread>(
                         XSHMEMI_DS, xshmem::dev::team_of(XSHMEMI_DS, team), dest, source, nelems),
                     xshmemi_h_alltoallmem(team, dest, source, nelems));
}
XSHMEMI_HD int xshmem_alltoallsmem(xshmem_team_t team, void *dest, const void *source,
                                   ptrdiff_t dst, ptrdiff_t sst, size_t nelems) {
  return XSHMEMI_SEL(xshmem::dev::alltoalls<xshmem::dev::coll_thread>(
                         XSHMEMI_DS, team, static_cast<unsigned char *>(dest),
                         static_cast<const unsigned char *>(source), dst, sst, nelems),
                     xshmemi_h_alltoallsmem(team, dest, source, dst, sst, nelems));
}

// Team reductions and scans (<xshmem/device/coll_reduce.h>). The plain form is called by one
// thread per member; _warp by every thread of one warp, _block by every thread of one block, with
// identical arguments. One caller (thread, warp or block) per member and team at a time, every
// member in the same order of collectives on the team.
#include <xshmem/device/coll_reduce.h>
#define XSHMEMI_RED(T, N, OP, CODE)                                                          \
  extern "C" int xshmemi_h_##N##_##OP(xshmem_team_t, T *, const T *, size_t);                \
  XSHMEMI_HD int xshmem_##N##_##OP(xshmem_team_t team, T *dest, const T *source, size_t n) { \
    return XSHMEMI_SEL(                                                                      \
        (xshmem::dev::team_reduce<xshmem::dev::reduce_thread_group, xshmem::dev::CODE>(      \
            XSHMEMI_DS, xshmem::dev::team_of(XSHMEMI_DS, team), dest, source, n)),           \
        xshmemi_h_##N##_##OP(team, dest, source, n));                                        \
  }                                                                                          \
  XSHMEMI_D int xshmemx_##N##_##OP##_warp(xshmem_team_t team, T *dest, const T *source,      \
                                          size_t n) {                                        \
    return xshmem::dev::team_reduce<xshmem::dev::warp_group, xshmem::dev::CODE>(             \
        XSHMEMI_DS, xshmem::dev::team_of(XSHMEMI_DS, team), dest, source, n);                \
  }                                                                                          \
  XSHMEMI_D int xshmemx_##N##_##OP##_block(xshmem_team_t team, T *dest, const T *source,     \
                                           size_t n) {                                       \
    return xshmem::dev::team_reduce<xshmem::dev::block_group, xshmem::dev::CODE>(            \
        XSHMEMI_DS, xshmem::dev::team_of(XSHMEMI_DS, team), dest, source, n);                \
  }
#define XSHMEMI_RED_BIT(T, N)            \
  XSHMEMI_RED(T, N, and_reduce, kRedAnd) \
  XSHMEMI_RED(T, N, or_reduce, kRedOr)   \
  XSHMEMI_RED(T, N, xor_reduce, kRedXor)
#define XSHMEMI_RED_ARITH(T, N)            \
  XSHMEMI_RED(T, N, max_reduce, kRedMax)   \
  XSHMEMI_RED(T, N, min_reduce, kRedMin)   \
  XSHMEMI_RED(T, N, sum_reduce, kRedSum)   \
  XSHMEMI_RED(T, N, prod_reduce, kRedProd) \
  XSHMEMI_RED(T, N, sum_inscan, kScanIn)   \
  XSHMEMI_RED(T, N, sum_exscan, kScanEx)
XSHMEM_REDUCE_BITWISE_TYPES(XSHMEMI_RED_BIT)
XSHMEM_REDUCE_ARITH_TYPES_NO_LD(XSHMEMI_RED_ARITH)
#undef XSHMEMI_RED_ARITH
#undef XSHMEMI_RED_BIT
#undef XSHMEMI_RED
// The complex reductions (sum, prod): the _Complex arrays folded as complex_t, their layout.
#define XSHMEMI_RED_CPLX_OP(T, N, OP, CODE)                                                    \
  extern "C" int xshmemi_h_##N##_##OP(xshmem_team_t, T *, const T *, size_t);                  \
  XSHMEMI_HD int xshmem_##N##_##OP(xshmem_team_t team, T *dest, const T *source, size_t n) {   \
    return XSHMEMI_SEL(                                                                        \
        (xshmem::dev::team_reduce<xshmem::dev::reduce_thread_group, xshmem::dev::CODE>(        \
            XSHMEMI_DS, xshmem::dev::team_of(XSHMEMI_DS, team), xshmem::dev::as_complex(dest), \
            xshmem::dev::as_complex(source), n)),                                              \
        xshmemi_h_##N##_##OP(team, dest, source, n));                                          \
  }                                                                                            \
  XSHMEMI_D int xshmemx_##N##_##OP##_warp(xshmem_team_t team, T *dest, const T *source,        \
                                          size_t n) {                                          \
    return xshmem::dev::team_reduce<xshmem::dev::warp_group, xshmem::dev::CODE>(               \
        XSHMEMI_DS, xshmem::dev::team_of(XSHMEMI_DS, team), xshmem::dev::as_complex(dest),     \
        xshmem::dev::as_complex(source), n);                                                   \
  }                                                                                            \
  XSHMEMI_D int xshmemx_##N##_##OP##_block(xshmem_team_t team, T *dest, const T *source,       \
                                           size_t n) {                                         \
    return xshmem::dev::team_reduce<xshmem::dev::block_group, xshmem::dev::CODE>(              \
        XSHMEMI_DS, xshmem::dev::team_of(XSHMEMI_DS, team), xshmem::dev::as_complex(dest),     \
        xshmem::dev::as_complex(source), n);                                                   \
  }
#define XSHMEMI_RED_CPLX(T, N)                   \
  XSHMEMI_RED_CPLX_OP(T, N, sum_reduce, kRedSum) \
  XSHMEMI_RED_CPLX_OP(T, N, prod_reduce, kRedProd)
XSHMEM_REDUCE_COMPLEX_TYPES(XSHMEMI_RED_CPLX)
#undef XSHMEMI_RED_CPLX
#undef XSHMEMI_RED_CPLX_OP

// Launches a kernel whose blocks wait for each other or for other PEs (barriers, wait_until,
// flags set by another block) so that every block is resident at once: a grid larger than what
// fits on this GPU is refused (one line on stderr, cudaErrorCooperativeLaunchTooLarge) instead of
// deadlocking. Cooperative launch where the device supports it. Arguments as cudaLaunchKernel's;
// every PE launches its own (a collective launch in NVSHMEM's sense: all PEs' kernels must be
// running for the waits to end).
inline cudaError_t xshmemx_collective_launch(const void *func, dim3 grid, dim3 block, void **args,
                                             size_t shared_mem, cudaStream_t stream) {
  int dev = 0, sms = 0, per_sm = 0, coop = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
  if (e == cudaSuccess)
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, block.x * block.y * block.z,
                                                      shared_mem);
  if (e != cudaSuccess) return e;
  const long long blocks = static_cast<long long>(grid.x) * grid.y * grid.z;
  if (blocks > static_cast<long long>(sms) * per_sm) {
    fprintf(stderr,
            "xshmem: xshmemx_collective_launch: grid of %lld blocks of %u threads does not fit "
            "at once on this GPU (%d SMs x %d blocks); launch at most %lld (pe %d)\n",
            blocks, block.x * block.y * block.z, sms, per_sm, static_cast<long long>(sms) * per_sm,
            xshmemi_h_my_pe());
    return cudaErrorCooperativeLaunchTooLarge;
  }
  return coop ? cudaLaunchCooperativeKernel(func, grid, block, args, shared_mem, stream)
              : cudaLaunchKernel(func, grid, block, args, shared_mem, stream);
}

#undef XSHMEMI_D
#undef XSHMEMI_HD
#undef XSHMEMI_DS
#undef XSHMEMI_SEL

#endif  // XSHMEM_DEVICE_CUDA_API_H
