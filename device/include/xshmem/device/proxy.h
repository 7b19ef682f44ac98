// xshmem path code: the PROXY path, as the dispatchers (rma.h, amo.h, signal.h) call it.
//
// Host threads reach a PROXY peer through the serving transport's data operations directly
// (DESIGN.md "Host and device share the code": "PROXY: ... or the transport's host operation
// directly"): no ring and no proxy thread between the caller and the transport, so a CPU PE pays
// only the transport's own cost. Remote locations go to the transport as heap offsets; the
// transport channel is the context's entry modulo state_t::num_channels, so threads using
// different contexts use different transport queues. A transport error stops the job with the
// operation and the peer named (state_t::on_remote_error).
//
// GPU threads (and host threads of a CPU PE with XSHMEM_PROXY_HOST) reach it through the proxy
// engine's channel rings (proxy_ring.h; the engine, core/src/proxy/, runs when some peer of the
// PE is PROXY): the group's leader writes one request into the channel of (ctx, thread) and a
// proxy thread of this process executes it with the same transport operations. A request that
// fails, or a ring wait past XSHMEM_WAIT_TIMEOUT, is reported through the device error mailbox
// (kDevProxyFailed) and the GPU thread traps; the runtime's watchdog stops the job with one line
// naming the call and the peer (a host thread stops the job as for a failed transport call).
//
// fence and quiet: the host's complete its own transport operations on ctx's channel and, when
// GPU threads of this PE use the rings (state_t::proxy), everything the rings hold too, so that
// a host quiet or barrier after a kernel covers the kernel's nbi operations. A GPU thread's
// complete what its channel holds (a block-wide quiet with the warp channel map: every channel).
//
// Each function takes the group G that runs the operation (group.h) and the context the call
// names. The group's leader issues the request for the whole group; the caller synchronises the
// group after (the dispatchers' group wrappers do).
#ifndef XSHMEM_DEVICE_PROXY_H
#define XSHMEM_DEVICE_PROXY_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xshmem/device/ctx_handle.h>
#include <xshmem/device/group.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/proxy_ring.h>
#include <xshmem/device/state.h>

namespace xshmem::dev::proxy {

// The ABI's operand type for T (4- or 8-byte integers and floating point).
template <typename T>
XSHMEM_HD_INLINE constexpr xshmem_amo_type_t amo_type() {
  if constexpr (static_cast<T>(0.5) != static_cast<T>(0)) {
    return sizeof(T) == 4 ? XSHMEM_AMO_F32 : XSHMEM_AMO_F64;
  } else if constexpr (static_cast<T>(-1) < static_cast<T>(0)) {
    return sizeof(T) == 4 ? XSHMEM_AMO_I32 : XSHMEM_AMO_I64;
  } else {
    return sizeof(T) == 4 ? XSHMEM_AMO_U32 : XSHMEM_AMO_U64;
  }
}
template <typename T>
XSHMEM_HD_INLINE uint64_t to_bits(T v) {
  uint64_t b = 0;
  memcpy(&b, &v, sizeof(T));
  return b;
}
template <typename T>
XSHMEM_HD_INLINE T from_bits(uint64_t b) {
  T v;
  memcpy(&v, &b, sizeof(T));
  return v;
}

#if !defined(__CUDA_ARCH__)
namespace host {

// The transport channel of context `ctx`: its entry (ctx_handle.h) modulo the channels.
inline int channel(const state_t &s, int32_t ctx) {
  const int n = s.num_channels > 0 ? s.num_channels : 1;
  return ctx < 0 ? 0 : static_cast<int>(ctx_entry(ctx) % n);
}

inline void check(const state_t &s, int pe, const char *op, int st) {
  if (st == XSHMEM_SUCCESS) return;
  if (s.on_remote_error != nullptr) s.on_remote_error(pe, op, st);
  fprintf(stderr, "xshmem: pe %d: %s to pe %d failed in its transport (status %d); aborting\n",
          s.my_pe, op, pe, st);
  abort();
}

inline void put(const state_t &s, int32_t ctx, void *dest, const void *source, size_t nbytes,
                int pe, bool nbi) {
  const host_remote_t &r = s.remote[pe];
  check(s, pe, "put",
        r.ops->put(r.tctx, channel(s, ctx), pe, heap_offset(s, dest), source, nbytes,
                   nbi ? XSHMEM_DATA_NBI : 0u));
}
inline void get(const state_t &s, int32_t ctx, void *dest, const void *source, size_t nbytes,
                int pe, bool nbi) {
  const host_remote_t &r = s.remote[pe];
  check(s, pe, "get",
        r.ops->get(r.tctx, channel(s, ctx), pe, dest, heap_offset(s, source), nbytes,
                   nbi ? XSHMEM_DATA_NBI : 0u));
}
inline uint64_t amo(const state_t &s, int32_t ctx, xshmem_amo_op_t op, void *dest,
                    xshmem_amo_type_t type, uint64_t value, uint64_t cond, int pe) {
  const host_remote_t &r = s.remote[pe];
  uint64_t fetched = 0;
  check(s, pe, "atomic",
        r.ops->amo(r.tctx, channel(s, ctx), pe, heap_offset(s, dest), op, type, value, cond,
                   &fetched, 0u));
  return fetched;
}
inline void put_signal(const state_t &s, int32_t ctx, void *dest, const void *source, size_t nbytes,
                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, bool nbi) {
  const host_remote_t &r = s.remote[pe];
  check(s, pe, "put_signal",
        r.ops->put_signal(r.tctx, channel(s, ctx), pe, heap_offset(s, dest), source, nbytes,
                          heap_offset(s, sig_addr), signal, sig_op, nbi ? XSHMEM_DATA_NBI : 0u));
}
inline void signal(const state_t &s, int32_t ctx, uint64_t *sig_addr, uint64_t signal, int sig_op,
                   int pe) {
  const host_remote_t &r = s.remote[pe];
  const xshmem_amo_op_t op = sig_op == kSignalAdd ? XSHMEM_AMO_ADD : XSHMEM_AMO_SET;
  check(s, pe, "signal",
        r.ops->amo(r.tctx, channel(s, ctx), pe, heap_offset(s, sig_addr), op, XSHMEM_AMO_U64,
                   signal, 0, nullptr, 0u));
}
// fence / quiet over every transport that serves a PROXY peer (state_t::remote_transports),
// then the rings GPU threads of this PE fill (state_t::proxy), if any.
inline void fence(const state_t &s, int32_t ctx) {
  for (int i = 0; i < s.n_remote_transports; ++i) {
    const host_remote_t &r = s.remote_transports[i];
    check(s, -1, "fence", r.ops->fence(r.tctx, channel(s, ctx)));
  }
  if (s.proxy != nullptr)
    for (uint32_t c = 0; c < s.proxy->num; ++c)
      check(s, -1, "fence", ring::fence_channel(s, s.proxy, c));
}
inline void quiet(const state_t &s, int32_t ctx) {
  for (int i = 0; i < s.n_remote_transports; ++i) {
    const host_remote_t &r = s.remote_transports[i];
    check(s, -1, "quiet", r.ops->quiet(r.tctx, channel(s, ctx)));
  }
  if (s.proxy != nullptr) check(s, -1, "quiet", ring::quiet_all(s, s.proxy));
}

// Strided operations of a host thread in few transport calls, where every local buffer is host
// memory (the heap is: no HOST_CE ops): an iget reads the span from its first to its last element
// in pieces of at most kStridedPiece bytes into a buffer here and scatters the elements; an iput
// to a contiguous destination gathers its elements here and writes each piece with one put. A
// piece completes locally before the buffer is reused (earlier than an nbi form must, which is
// allowed). Reading the gaps between source elements is harmless (the span is symmetric: the
// checks cover its first and last element, and the transport splits it at its chunks); writing
// the gaps of a strided destination is not, so an iput with a destination stride other than 1
// stays one transport put per element, as do spans wider than kStridedGap bytes per element.
// RMA-04 over the libfabric staged path: 81 s per element, 7 s in pieces. false: not taken.
constexpr size_t kStridedPiece = size_t{1} << 20;
constexpr size_t kStridedGap = 4096;
template <bool kPut, typename T>
inline bool strided_pieces(const state_t &s, int32_t ctx, T *dest, const T *source, ptrdiff_t dst,
                           ptrdiff_t sst, size_t nelems, int pe) {
  if (s.host_ce != nullptr || nelems < 2) return false;
  // kPut: the local side is `source` (stride sst), the remote `dest` (dst); else the reverse.
  const ptrdiff_t rstride = kPut ? dst : sst, lstride = kPut ? sst : dst;
  if (rstride <= 0 || lstride <= 0) return false;
  if (kPut ? rstride != 1 : static_cast<size_t>(rstride) * sizeof(T) > kStridedGap) return false;
  if (rstride == 1 && lstride == 1) {  // both contiguous: one operation, no buffer
    if constexpr (kPut)
      put(s, ctx, dest, source, nelems * sizeof(T), pe, true);
    else
      get(s, ctx, dest, source, nelems * sizeof(T), pe, true);
    return true;
  }
  const size_t step = static_cast<size_t>(rstride) * sizeof(T);  // bytes per element, remote
  const size_t per = kStridedPiece / step > 0 ? kStridedPiece / step : 1;
  // Bytes from the first to the last of k elements, remote.
  auto span_of = [&](size_t k) { return ((k - 1) * static_cast<size_t>(rstride) + 1) * sizeof(T); };
  T *buf = static_cast<T *>(malloc(span_of(per < nelems ? per : nelems)));
  if (buf == nullptr) return false;
  for (size_t i = 0; i < nelems; i += per) {
    const size_t k = nelems - i < per ? nelems - i : per;
    const size_t span = span_of(k);
    const ptrdiff_t at = static_cast<ptrdiff_t>(i);
    if constexpr (kPut) {
      for (size_t j = 0; j < k; ++j)
        memcpy(buf + j, source + (at + static_cast<ptrdiff_t>(j)) * lstride, sizeof(T));
      put(s, ctx, dest + at, buf, span, pe, false);
    } else {
      get(s, ctx, buf, source + at * rstride, span, pe, false);
      for (size_t j = 0; j < k; ++j)
        memcpy(dest + (at + static_cast<ptrdiff_t>(j)) * lstride, buf + j * rstride, sizeof(T));
    }
  }
  free(buf);
  return true;
}

}  // namespace host
#endif  // !__CUDA_ARCH__

// Whether the calling thread goes through the rings: GPU threads always; host threads when the
// PE runs the engine for them (XSHMEM_PROXY_HOST on a CPU PE).
XSHMEM_HD_INLINE bool via_rings(const state_t &s) {
#if defined(__CUDA_ARCH__)
  (void)s;
  return true;
#else
  return s.host_rings != 0;
#endif
}

// A failed ring request: a GPU thread reports it through the device error mailbox and traps (see
// the header); a host thread stops the job like a failed transport operation.
XSHMEM_HD_INLINE void ring_check(const state_t &s, int32_t op, int pe, size_t nbytes, int st) {
  if (st == XSHMEM_SUCCESS) return;
#if defined(__CUDA_ARCH__)
  // The mailbox report of a device check (ops.h), the status in its `align` field; traps.
  // Inline, not through device_check_failed: that call, on the PROXY branch of a group copy,
  // slowed the LSA copy in the same loop (xshmem-perf dev.get_bw at 4 KiB, 64 KiB, 1 MiB on one
  // H200, against the tree before the PROXY path: 0.95, 0.95, 0.91 with the call, 1.06, 1.06,
  // 1.08 with the report inline).
  mailbox_report(s.device_error, kDevProxyFailed, op, pe, nullptr, nbytes,
                 static_cast<size_t>(static_cast<int64_t>(st)));
  __trap();
#else
  (void)nbytes;
  host::check(s, pe, op_name(op), st);
#endif
}

// The ring requests, out of line: the dispatchers' switch then holds a call for the PROXY case,
// and their LSA cases compile as tight as before this path existed (inlined, the ring code kept
// a loop of LSA atomics from being unrolled: 48 -> 243 ns per fetch_add on one H200).
#if defined(__CUDACC__)
#define XSHMEM_PROXY_COLD __host__ __device__ __noinline__ inline
#else
#define XSHMEM_PROXY_COLD __attribute__((noinline)) inline
#endif
// The put and get requests, inline: the group forms (warp, block, bulk) call these directly,
// because a call on the PROXY branch of a group copy costs its LSA copy more than the inlined
// request does (bench/dispatch on one H200, xshmem-perf's get grid at 1 MiB, 256 blocks x 512
// threads of 4 KiB gets: 2424 GB/s with the call, 2605 inline, 2630 before the PROXY path
// existed). Thread-scope calls go through ring_put/ring_get, out of line.
XSHMEM_HD_INLINE void ring_put_inline(const state_t &s, int32_t ctx, int32_t op, void *dest,
                                      const void *source, size_t nbytes, int pe, bool nbi) {
  ring_check(s, op, pe, nbytes,
             ring::put(s, s.proxy, ctx, pe, heap_offset(s, dest), source, nbytes, nbi));
}
XSHMEM_HD_INLINE void ring_get_inline(const state_t &s, int32_t ctx, int32_t op, void *dest,
                                      const void *source, size_t nbytes, int pe, bool nbi) {
  ring_check(s, op, pe, nbytes,
             ring::get(s, s.proxy, ctx, pe, dest, heap_offset(s, source), nbytes, nbi));
}
XSHMEM_PROXY_COLD void ring_put(const state_t &s, int32_t ctx, int32_t op, void *dest,
                                const void *source, size_t nbytes, int pe, bool nbi) {
  ring_put_inline(s, ctx, op, dest, source, nbytes, pe, nbi);
}
XSHMEM_PROXY_COLD void ring_get(const state_t &s, int32_t ctx, int32_t op, void *dest,
                                const void *source, size_t nbytes, int pe, bool nbi) {
  ring_get_inline(s, ctx, op, dest, source, nbytes, pe, nbi);
}
XSHMEM_PROXY_COLD uint64_t ring_amo(const state_t &s, int32_t ctx, int op, void *dest, int type,
                                    uint64_t value, uint64_t cond, int pe, size_t width) {
  uint64_t old = 0;
  ring_check(s, kDevOpAtomic, pe, width,
             ring::amo(s, s.proxy, ctx, pe, heap_offset(s, dest), op, type, value, cond, &old));
  return old;
}
XSHMEM_PROXY_COLD void ring_put_signal(const state_t &s, int32_t ctx, void *dest,
                                       const void *source, size_t nbytes, uint64_t *sig_addr,
                                       uint64_t signal, int sig_op, int pe, bool nbi) {
  ring_check(s, kDevOpPutSignal, pe, nbytes,
             ring::put_signal(s, s.proxy, ctx, pe, heap_offset(s, dest), source, nbytes,
                              heap_offset(s, sig_addr), signal, sig_op, nbi));
}
XSHMEM_PROXY_COLD void ring_signal(const state_t &s, int32_t ctx, uint64_t *sig_addr,
                                   uint64_t signal, int sig_op, int pe, bool fenced) {
  // A fence request first: a channel delivers in order.
  const xshmem_amo_op_t op = sig_op == kSignalAdd ? XSHMEM_AMO_ADD : XSHMEM_AMO_SET;
  if (!fenced) ring_check(s, kDevOpFence, pe, 0, ring::fence(s, s.proxy, ctx));
  ring_check(s, kDevOpSignal, pe, 8,
             ring::amo(s, s.proxy, ctx, pe, heap_offset(s, sig_addr), op, XSHMEM_AMO_U64, signal, 0,
                       nullptr));
}
XSHMEM_PROXY_COLD void ring_fence(const state_t &s, int32_t ctx) {
  ring_check(s, kDevOpFence, -1, 0, ring::fence(s, s.proxy, ctx));
}
// Quiet of ctx through the rings; `group`: for a group of several warps, which may have used
// several channels when they are picked per warp (then every channel).
XSHMEM_PROXY_COLD void ring_quiet(const state_t &s, int32_t ctx, bool group) {
  const bool all = group && s.proxy->map == ring::kMapWarp;
  ring_check(s, kDevOpQuiet, -1, 0,
             all ? ring::quiet_all(s, s.proxy) : ring::quiet(s, s.proxy, ctx));
}

template <typename G>
XSHMEM_HD_INLINE void put(const state_t &s, int32_t ctx, void *dest, const void *source,
                          size_t nbytes, int pe, bool nbi) {
  if (!group_leader<G>()) return;
  if (via_rings(s)) {
    if constexpr (G::kThread) {
      ring_put(s, ctx, kDevOpPut, dest, source, nbytes, pe, nbi);
    } else {  // group forms: inline (see ring_put_inline)
      ring_put_inline(s, ctx, kDevOpPut, dest, source, nbytes, pe, nbi);
    }
    return;
  }
#if !defined(__CUDA_ARCH__)
  host::put(s, ctx, dest, source, nbytes, pe, nbi);
#endif
}

template <typename G>
XSHMEM_HD_INLINE void get(const state_t &s, int32_t ctx, void *dest, const void *source,
                          size_t nbytes, int pe, bool nbi) {
  if (!group_leader<G>()) return;
  if (via_rings(s)) {
    if constexpr (G::kThread) {
      ring_get(s, ctx, kDevOpGet, dest, source, nbytes, pe, nbi);
    } else {
      ring_get_inline(s, ctx, kDevOpGet, dest, source, nbytes, pe, nbi);
    }
    return;
  }
#if !defined(__CUDA_ARCH__)
  host::get(s, ctx, dest, source, nbytes, pe, nbi);
#endif
}

// Strided forms: element i from source[i * sst] to dest[i * dst] (strides in elements), one
// non-blocking element operation each (through the rings, elements of up to kInlineBytes ride
// inside their requests; or the transport; a host thread over a host heap in pieces where it
// can, host::strided_pieces), then completed unless nbi. One helper for both.
template <typename G, bool kPut, typename T>
XSHMEM_HD_INLINE void strided(const state_t &s, int32_t ctx, T *dest, const T *source,
                              ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe, bool nbi) {
  if (!group_leader<G>()) return;
  const bool rings = via_rings(s);
#if !defined(__CUDA_ARCH__)
  if (!rings && host::strided_pieces<kPut>(s, ctx, dest, source, dst, sst, nelems, pe)) {
    if (!nbi) host::quiet(s, ctx);
    return;
  }
#endif
  for (size_t i = 0; i < nelems; ++i) {
    T *d = dest + static_cast<ptrdiff_t>(i) * dst;
    const T *src = source + static_cast<ptrdiff_t>(i) * sst;
    if (rings) {
      if constexpr (kPut)
        ring_put(s, ctx, kDevOpIput, d, src, sizeof(T), pe, true);
      else
        ring_get(s, ctx, kDevOpIget, d, src, sizeof(T), pe, true);
      continue;
    }
#if !defined(__CUDA_ARCH__)
    if constexpr (kPut)
      host::put(s, ctx, d, src, sizeof(T), pe, true);
    else
      host::get(s, ctx, d, src, sizeof(T), pe, true);
#endif
  }
  if (nbi) return;
  if (rings) {
    ring_quiet(s, ctx, false);
    return;
  }
#if !defined(__CUDA_ARCH__)
  host::quiet(s, ctx);
#endif
}
template <typename G, typename T>
XSHMEM_HD_INLINE void iput(const state_t &s, int32_t ctx, T *dest, const T *source, ptrdiff_t dst,
                           ptrdiff_t sst, size_t nelems, int pe, bool nbi) {
  strided<G, true>(s, ctx, dest, source, dst, sst, nelems, pe, nbi);
}
template <typename G, typename T>
XSHMEM_HD_INLINE void iget(const state_t &s, int32_t ctx, T *dest, const T *source, ptrdiff_t dst,
                           ptrdiff_t sst, size_t nelems, int pe, bool nbi) {
  strided<G, false>(s, ctx, dest, const_cast<T *>(source), dst, sst, nelems, pe, nbi);
}

// Atomic `op` (the ABI's code) on symmetric `dest` at `pe`; the old value. Thread scope.
template <typename T>
XSHMEM_HD_INLINE T amo(const state_t &s, int32_t ctx, xshmem_amo_op_t op, T *dest, T value, T cond,
                       int pe) {
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    if (via_rings(s))
      return from_bits<T>(
          ring_amo(s, ctx, op, dest, amo_type<T>(), to_bits(value), to_bits(cond), pe, sizeof(T)));
#if !defined(__CUDA_ARCH__)
    return from_bits<T>(
        host::amo(s, ctx, op, dest, amo_type<T>(), to_bits(value), to_bits(cond), pe));
#else
    return T{};
#endif
  } else {
    (void)ctx, (void)op, (void)dest, (void)value, (void)cond;
    unreachable_path(s, pe);  // no transport has atomics of this width
    return T{};
  }
}

template <typename G>
XSHMEM_HD_INLINE void put_signal(const state_t &s, int32_t ctx, void *dest, const void *source,
                                 size_t nbytes, uint64_t *sig_addr, uint64_t signal, int sig_op,
                                 int pe, bool nbi) {
  if (!group_leader<G>()) return;
  if (via_rings(s)) {
    ring_put_signal(s, ctx, dest, source, nbytes, sig_addr, signal, sig_op, pe, nbi);
    return;
  }
#if !defined(__CUDA_ARCH__)
  host::put_signal(s, ctx, dest, source, nbytes, sig_addr, signal, sig_op, pe, nbi);
#endif
}

// The signal alone, ordered after the caller's earlier operations to pe (`fenced`: the caller
// fenced right before).
template <typename G>
XSHMEM_HD_INLINE void signal(const state_t &s, int32_t ctx, uint64_t *sig_addr, uint64_t signal,
                             int sig_op, int pe, bool fenced) {
  if (!group_leader<G>()) return;
  if (via_rings(s)) {
    ring_signal(s, ctx, sig_addr, signal, sig_op, pe, fenced);
    return;
  }
#if !defined(__CUDA_ARCH__)
  if (!fenced) host::fence(s, ctx);
  host::signal(s, ctx, sig_addr, signal, sig_op, pe);
#endif
}

// fence / quiet of context ctx on this path. A GPU PE without PROXY peers has no rings: one load
// and a branch.
template <typename G>
XSHMEM_HD_INLINE void fence(const state_t &s, int32_t ctx) {
#if defined(__CUDA_ARCH__)
  if (s.proxy == nullptr || !group_leader<G>()) return;
  ring_fence(s, ctx);
#else
  if (group_leader<G>()) host::fence(s, ctx);
#endif
}
template <typename G>
XSHMEM_HD_INLINE void quiet(const state_t &s, int32_t ctx) {
#if defined(__CUDA_ARCH__)
  if (s.proxy == nullptr || !group_leader<G>()) return;
  ring_quiet(s, ctx, !std::is_same_v<G, thread_group> && !std::is_same_v<G, warp_group>);
#else
  if (group_leader<G>()) host::quiet(s, ctx);
#endif
}

}  // namespace xshmem::dev::proxy

#endif  // XSHMEM_DEVICE_PROXY_H
