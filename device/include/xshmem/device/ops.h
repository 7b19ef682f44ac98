// xshmem device API: operation codes and the per-peer path dispatch hook.
//
// The codes equal the public XSHMEM_CMP_* and XSHMEM_SIGNAL_* of <xshmem/types.h> (the host API
// checks that at compile time); they are repeated here so the device headers stand alone.
#ifndef XSHMEM_DEVICE_OPS_H
#define XSHMEM_DEVICE_OPS_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/device/state.h>

#if !defined(__CUDA_ARCH__)
#include <stdio.h>
#include <stdlib.h>
#endif

namespace xshmem::dev {

// Comparison operators of wait_until/test/signal_wait_until.
enum cmp_t : int { kCmpEq = 0, kCmpNe = 1, kCmpGt = 2, kCmpGe = 3, kCmpLt = 4, kCmpLe = 5 };
// The default context (XSHMEM_CTX_DEFAULT): the plain forms are its ctx forms.
inline constexpr int32_t kCtxDefault = 0;

// Signal operators.
enum sig_op_t : int { kSignalSet = 0, kSignalAdd = 1 };

// Whether `value cmp operand` holds. An unknown cmp never holds (the host API rejects it first).
template <typename T>
XSHMEM_HD_INLINE bool compare(int cmp, T value, T operand) {
  switch (cmp) {
    case kCmpEq:
      return value == operand;
    case kCmpNe:
      return value != operand;
    case kCmpGt:
      return value > operand;
    case kCmpGe:
      return value >= operand;
    case kCmpLt:
      return value < operand;
    case kCmpLe:
      return value <= operand;
    default:
      return false;
  }
}

// Called when an operation meets a peer whose path this build cannot serve (NONE, or a path
// whose code is not there yet). The host stops the job through state_t::on_bad_path; a GPU
// thread traps, which the host reports as a kernel failure. Only returns if the hook does.
XSHMEM_HD_INLINE void unreachable_path(const state_t &s, int pe) {
#if defined(__CUDA_ARCH__)
  (void)s;
  (void)pe;
  __trap();
#else
  if (s.on_bad_path != nullptr) {
    s.on_bad_path(pe);
  } else {
    fprintf(stderr, "xshmem: pe %d: no data path to pe %d (path %d); aborting\n", s.my_pe, pe,
            s.peers != nullptr ? static_cast<int>(s.peers[pe].path) : -1);
    abort();
  }
#endif
}

// Device checked mode is compiled in only when XSHMEM_DEVICE_CHECKS is 1 (-DXSHMEM_DEVICE_CHECKS=1
// on the nvcc line of the kernels to check). Off by default: the checks' branches sit between
// back-to-back remote operations and stop them from overlapping (measured on 2 x H200:
// atomic_fetch_add back to back 0.49 -> 1.0 us). Without them a bad call still faults, and the
// runtime's watchdog stops the job (XSHMEM_EXIT_DEVICE_FAULT) instead of a hang.
#ifndef XSHMEM_DEVICE_CHECKS
#define XSHMEM_DEVICE_CHECKS 0
#endif

#if defined(__CUDA_ARCH__)
// The device error mailbox (device_error_t): the first GPU thread of the PE that reports claims
// it and writes the code, the call, the pe and where it runs (true: this thread writes the rest,
// then mailbox_publish); a later one, or no mailbox, gets false.
__device__ __forceinline__ bool mailbox_claim(device_error_t *e, int32_t code, int32_t op,
                                              int32_t pe) {
  if (e == nullptr || atomicCAS(&e->claimed, 0u, 1u) != 0u) return false;
  e->code = code;
  e->op = op;
  e->pe = pe;
  e->block[0] = blockIdx.x;
  e->block[1] = blockIdx.y;
  e->block[2] = blockIdx.z;
  e->thread[0] = threadIdx.x;
  e->thread[1] = threadIdx.y;
  e->thread[2] = threadIdx.z;
  return true;
}
// Makes the claimed report visible to the watchdog (the fields before `ready`).
__device__ __forceinline__ void mailbox_publish(device_error_t *e) {
  __threadfence_system();
  atomicExch(&e->ready, 1u);
  __threadfence_system();
}
#endif

#if defined(__CUDA_ARCH__)
// Writes a report into the mailbox (the first of the PE wins); the caller then traps.
__device__ __forceinline__ void mailbox_report(device_error_t *e, int32_t code, int32_t op, int pe,
                                               const void *addr, size_t size, size_t align) {
  if (mailbox_claim(e, code, op, pe)) {
    e->addr = reinterpret_cast<uintptr_t>(addr);
    e->size = size;
    e->align = align;
    mailbox_publish(e);
  }
}
// Reports a device-side checked-mode violation (see device_error_t) and traps. Out of line: the
// fast paths only carry the comparisons.
__device__ __noinline__ inline void device_check_failed(device_error_t *e, int32_t code, int32_t op,
                                                        int pe, const void *addr, size_t size,
                                                        size_t align) {
  mailbox_report(e, code, op, pe, addr, size, align);
  __trap();
}
#endif

#if defined(__CUDA_ARCH__)
// xshmem_global_exit from a GPU thread: the request goes through the same host-memory mailbox
// as a device check (the first report of the PE wins), and the runtime's watchdog stops every PE
// with `status`. The thread then waits (sleeping) for the process to end: the context stays
// sound, and peers waiting on this PE are stopped by the job's end, not by a fault.
__device__ __noinline__ inline void device_global_exit(device_error_t *e, int status) {
  if (mailbox_claim(e, kDevGlobalExit, 0, status)) mailbox_publish(e);
  if (e == nullptr) __trap();
  for (;;) __nanosleep(1000000);
}
#endif

// Device checked mode (XSHMEM_DEVICE_CHECKS, and state_t::device_checks from XSHMEM_CHECKS at
// run time): the pe of a call, and the symmetric range and
// alignment of a remote address. The host API checks its own arguments (core/src/checks.cc), so
// these compile to nothing on the host.
XSHMEM_HD_INLINE void dcheck_pe(const state_t &s, int32_t op, int pe) {
#if defined(__CUDA_ARCH__) && XSHMEM_DEVICE_CHECKS
  if (s.device_checks && static_cast<unsigned>(pe) >= static_cast<unsigned>(s.n_pes))
    device_check_failed(s.device_error, kDevCheckPe, op, pe, nullptr, 0, 0);
#else
  (void)s, (void)op, (void)pe;
#endif
}
XSHMEM_HD_INLINE void dcheck_sym(const state_t &s, int32_t op, int pe, const void *addr,
                                 size_t size) {
#if defined(__CUDA_ARCH__) && XSHMEM_DEVICE_CHECKS
  if (s.device_checks && size != 0 && !in_heap(s, addr, size))
    device_check_failed(s.device_error, kDevCheckSymmetric, op, pe, addr, size, 0);
#else
  (void)s, (void)op, (void)pe, (void)addr, (void)size;
#endif
}
XSHMEM_HD_INLINE void dcheck_align(const state_t &s, int32_t op, int pe, const void *addr,
                                   size_t align) {
#if defined(__CUDA_ARCH__) && XSHMEM_DEVICE_CHECKS
  if (s.device_checks && (reinterpret_cast<uintptr_t>(addr) & (align - 1)) != 0)
    device_check_failed(s.device_error, kDevCheckAlign, op, pe, addr, 0, align);
#else
  (void)s, (void)op, (void)pe, (void)addr, (void)align;
#endif
}
XSHMEM_HD_INLINE void dcheck_buffer(const state_t &s, int32_t op, int pe, const void *local,
                                    size_t size) {
#if defined(__CUDA_ARCH__) && XSHMEM_DEVICE_CHECKS
  if (s.device_checks && size != 0 && local == nullptr)
    device_check_failed(s.device_error, kDevCheckNull, op, pe, nullptr, size, 0);
#else
  (void)s, (void)op, (void)pe, (void)local, (void)size;
#endif
}
// pe, then [addr, addr + size) symmetric (the usual RMA pair).
XSHMEM_HD_INLINE void dcheck_remote(const state_t &s, int32_t op, int pe, const void *addr,
                                    size_t size) {
  dcheck_pe(s, op, pe);
  dcheck_sym(s, op, pe, addr, size);
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_OPS_H
