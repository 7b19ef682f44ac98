// xshmem path code: the PROXY path as the host runs it.
//
// A host thread that reaches a PROXY peer calls the serving transport's data operations
// directly (DESIGN.md "Host and device share the code": "PROXY: ... or the transport's host
// operation directly"): no ring and no proxy thread between the caller and the transport, so a
// CPU PE pays only the transport's own cost. GPU threads reach PROXY peers through the proxy
// engine's channel rings instead; on the device these functions trap (unreachable_path).
//
// Remote locations go to the transport as heap offsets; the channel is the context's entry
// modulo the channels the job has (state_t::num_channels), so threads using different contexts
// use different transport queues. A transport error stops the job with the operation and the
// peer named (state_t::on_remote_error).
#ifndef XSHMEM_DEVICE_HOST_REMOTE_H
#define XSHMEM_DEVICE_HOST_REMOTE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <xshmem/device/ops.h>
#include <xshmem/device/state.h>

namespace xshmem::dev::remote {

#if !defined(__CUDA_ARCH__)

// The transport channel of context `ctx` (bits 8-30 of a handle are its entry; see ctx.h).
inline int channel(const state_t &s, int32_t ctx) {
  const int n = s.num_channels > 0 ? s.num_channels : 1;
  return ctx < 0 ? 0 : static_cast<int>((ctx >> 8) % n);
}

inline void check(const state_t &s, int pe, const char *op, xshmem_status_t st) {
  if (st == XSHMEM_SUCCESS) return;
  if (s.on_remote_error != nullptr) s.on_remote_error(pe, op, st);
  fprintf(stderr, "xshmem: pe %d: %s to pe %d failed in its transport (status %d); aborting\n",
          s.my_pe, op, pe, st);
  abort();
}

inline const host_remote_t &of(const state_t &s, int pe) {
  return s.remote[pe];
}

inline void put(const state_t &s, int32_t ctx, void *dest, const void *source, size_t nbytes,
                int pe, bool nbi) {
  const host_remote_t &r = of(s, pe);
  check(s, pe, "put",
        r.ops->put(r.tctx, channel(s, ctx), pe, heap_offset(s, dest), source, nbytes,
                   nbi ? XSHMEM_DATA_NBI : 0u));
}

inline void get(const state_t &s, int32_t ctx, void *dest, const void *source, size_t nbytes,
                int pe, bool nbi) {
  const host_remote_t &r = of(s, pe);
  check(s, pe, "get",
        r.ops->get(r.tctx, channel(s, ctx), pe, dest, heap_offset(s, source), nbytes,
                   nbi ? XSHMEM_DATA_NBI : 0u));
}

// The ABI's operand type for T (4- or 8-byte integers and floating point; remote::amo is only
// instantiated for those widths).
template <typename T>
constexpr xshmem_amo_type_t amo_type() {
  if constexpr (static_cast<T>(0.5) != static_cast<T>(0)) {
    return sizeof(T) == 4 ? XSHMEM_AMO_F32 : XSHMEM_AMO_F64;
  } else if constexpr (static_cast<T>(-1) < static_cast<T>(0)) {
    return sizeof(T) == 4 ? XSHMEM_AMO_I32 : XSHMEM_AMO_I64;
  } else {
    return sizeof(T) == 4 ? XSHMEM_AMO_U32 : XSHMEM_AMO_U64;
  }
}

template <typename T>
inline uint64_t to_bits(T v) {
  uint64_t b = 0;
  memcpy(&b, &v, sizeof(T));
  return b;
}
template <typename T>
inline T from_bits(uint64_t b) {
  T v;
  memcpy(&v, &b, sizeof(T));
  return v;
}

// Runs `op` on symmetric `dest` at `pe`; returns the old value for fetching ops.
template <typename T>
inline T amo(const state_t &s, int32_t ctx, xshmem_amo_op_t op, T *dest, T value, T cond, int pe) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics are 4 or 8 bytes wide");
  const host_remote_t &r = of(s, pe);
  uint64_t fetched = 0;
  check(s, pe, "atomic",
        r.ops->amo(r.tctx, channel(s, ctx), pe, heap_offset(s, dest), op, amo_type<T>(),
                   to_bits(value), to_bits(cond), &fetched, 0u));
  return from_bits<T>(fetched);
}

inline void put_signal(const state_t &s, int32_t ctx, void *dest, const void *source, size_t nbytes,
                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, bool nbi) {
  const host_remote_t &r = of(s, pe);
  check(s, pe, "put_signal",
        r.ops->put_signal(r.tctx, channel(s, ctx), pe, heap_offset(s, dest), source, nbytes,
                          heap_offset(s, sig_addr), signal, sig_op, nbi ? XSHMEM_DATA_NBI : 0u));
}

inline void signal(const state_t &s, int32_t ctx, uint64_t *sig_addr, uint64_t signal, int sig_op,
                   int pe) {
  const host_remote_t &r = of(s, pe);
  const xshmem_amo_op_t op = sig_op == kSignalAdd ? XSHMEM_AMO_ADD : XSHMEM_AMO_SET;
  check(s, pe, "signal",
        r.ops->amo(r.tctx, channel(s, ctx), pe, heap_offset(s, sig_addr), op, XSHMEM_AMO_U64,
                   signal, 0, nullptr, 0u));
}

// fence / quiet over every transport that serves a PROXY peer (state_t::remote_transports).
inline void fence(const state_t &s, int32_t ctx) {
  for (int i = 0; i < s.n_remote_transports; ++i) {
    const host_remote_t &r = s.remote_transports[i];
    check(s, -1, "fence", r.ops->fence(r.tctx, channel(s, ctx)));
  }
}
inline void quiet(const state_t &s, int32_t ctx) {
  for (int i = 0; i < s.n_remote_transports; ++i) {
    const host_remote_t &r = s.remote_transports[i];
    check(s, -1, "quiet", r.ops->quiet(r.tctx, channel(s, ctx)));
  }
}

#endif  // !__CUDA_ARCH__

}  // namespace xshmem::dev::remote

#endif  // XSHMEM_DEVICE_HOST_REMOTE_H
