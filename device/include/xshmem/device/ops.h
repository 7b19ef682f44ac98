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

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_OPS_H
