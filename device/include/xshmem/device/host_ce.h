// xshmem path code: the HOST_CE path (XSHMEM_PATH_HOST_CE, state.h), the host's way to an LSA
// peer when the heap is in GPU memory.
//
// The host cannot load or store GPU memory, so for these peers the host's copy of the state holds
// HOST_CE instead of LSA (the device's copy keeps LSA) and the dispatchers' host-compiled code
// runs the operations here: copies through the peer's mapping (peer_t::base, as for LSA) and
// one-thread kernels for atomics and signals, all on the runtime's internal stream
// (state_t::host_ce). Host only: device code never sees the code, and its case compiles away.
// The operations order among themselves (one stream); quiet completes them.
#ifndef XSHMEM_DEVICE_HOST_CE_H
#define XSHMEM_DEVICE_HOST_CE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <xshmem/device/ops.h>
#include <xshmem/device/state.h>

namespace xshmem::dev::host_ce {

#if !defined(__CUDA_ARCH__)

inline void put(const state_t &s, void *dest, const void *source, size_t nbytes, int pe, bool nbi) {
  s.host_ce->copy(lsa_addr(s, dest, pe), source, nbytes, !nbi);
}
inline void get(const state_t &s, void *dest, const void *source, size_t nbytes, int pe, bool nbi) {
  s.host_ce->copy(dest, lsa_addr(s, source, pe), nbytes, !nbi);
}
// A pageable source is staged before the copy call returns, so `value` may go away at once.
template <typename T>
inline void p(const state_t &s, T *dest, T value, int pe) {
  s.host_ce->copy(lsa_addr(s, dest, pe), &value, sizeof(T), false);
}
template <typename T>
inline T g(const state_t &s, const T *source, int pe) {
  T value;
  s.host_ce->copy(&value, lsa_addr(s, source, pe), sizeof(T), true);
  return value;
}
// Strides in elements (non-negative: the public calls check them).
template <typename T>
inline void iput(const state_t &s, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, int pe, bool nbi) {
  s.host_ce->copy_strided(lsa_addr(s, dest, pe), static_cast<size_t>(dst) * sizeof(T), source,
                          static_cast<size_t>(sst) * sizeof(T), sizeof(T), nelems, !nbi);
}
template <typename T>
inline void iget(const state_t &s, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, int pe, bool nbi) {
  s.host_ce->copy_strided(dest, static_cast<size_t>(dst) * sizeof(T), lsa_addr(s, source, pe),
                          static_cast<size_t>(sst) * sizeof(T), sizeof(T), nelems, !nbi);
}

// Atomic `op` (an amo_op, as int) on symmetric `dest` at `pe`; operands travel as T's bits (4 or
// 8 bytes: the public atomics' widths; another width is no path here).
template <typename T>
inline T amo(const state_t &s, int op, T *dest, T value, T cond, int pe) {
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    uint64_t v = 0, c = 0;
    memcpy(&v, &value, sizeof(T));
    memcpy(&c, &cond, sizeof(T));
    const uint64_t old = s.host_ce->amo(op, sizeof(T), dest, v, c, pe);
    T r;
    memcpy(&r, &old, sizeof(T));
    return r;
  } else {
    (void)op, (void)dest, (void)value, (void)cond;
    unreachable_path(s, pe);
    return T{};
  }
}

inline void put_signal(const state_t &s, void *dest, const void *source, size_t nbytes,
                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, bool nbi) {
  s.host_ce->put_signal(dest, source, nbytes, sig_addr, signal, sig_op, pe, !nbi);
}
// The signal alone, after the stream's earlier copies (stream order).
inline void signal(const state_t &s, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  s.host_ce->put_signal(nullptr, nullptr, 0, sig_addr, signal, sig_op, pe, false);
}

// Completes the stream's operations; nothing when the host's state has no HOST_CE peers.
inline void quiet(const state_t &s) {
  if (s.host_ce != nullptr) s.host_ce->quiet();
}

#endif  // !__CUDA_ARCH__

}  // namespace xshmem::dev::host_ce

#endif  // XSHMEM_DEVICE_HOST_CE_H
