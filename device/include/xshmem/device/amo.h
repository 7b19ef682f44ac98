// xshmem device API: the atomics dispatcher (amo_path; see rma.h for the shape).
//
// Atomic with respect to other atomics and to wait/test on the same location. Unordered with
// other operations unless separated by fence/quiet. Fetching forms return the old value.
#ifndef XSHMEM_DEVICE_AMO_H
#define XSHMEM_DEVICE_AMO_H

#include <xshmem/device/gda_path.h>
#include <xshmem/device/group.h>
#include <xshmem/device/host_ce.h>
#include <xshmem/device/lsa.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/proxy.h>
#include <xshmem/device/state.h>

namespace xshmem::dev {

// The atomic operations, as one code for the dispatcher. add, bit_and, bit_or and bit_xor are
// the non-fetching forms: no old value, so on LSA peers the GPU issues a reduction (RED) instead
// of an atomic that returns (ATOM), and on PROXY peers the request is posted, complete at quiet.
enum class amo_op {
  fetch,
  set,
  swap,
  compare_swap,
  fetch_add,
  fetch_and,
  fetch_or,
  fetch_xor,
  add,
  bit_and,
  bit_or,
  bit_xor
};

// The dispatcher: runs `op` on symmetric `dest` at `pe` under context ctx: value is the operand,
// cond the compare_swap condition. Returns the old value (meaningless for set). Atomics are
// thread scope (OpenSHMEM has no group atomics): G is thread_group, kept as a parameter so that
// every family has the same shape.
template <amo_op Op, typename G, typename T>
XSHMEM_HD_INLINE T amo_path(const state_t &s, int32_t ctx, T *dest, T value, T cond, int pe) {
  static_assert(G::kThread, "atomics are thread-scope operations");
  dcheck_remote(s, kDevOpAtomic, pe, dest, sizeof(T));
  dcheck_align(s, kDevOpAtomic, pe, dest, sizeof(T));
  // The ABI's code of Op (PROXY and GDA peers).
  constexpr xshmem_amo_op_t kOp = Op == amo_op::fetch          ? XSHMEM_AMO_FETCH
                                  : Op == amo_op::set          ? XSHMEM_AMO_SET
                                  : Op == amo_op::swap         ? XSHMEM_AMO_SWAP
                                  : Op == amo_op::compare_swap ? XSHMEM_AMO_COMPARE_SWAP
                                  : Op == amo_op::fetch_add    ? XSHMEM_AMO_FETCH_ADD
                                  : Op == amo_op::fetch_and    ? XSHMEM_AMO_FETCH_AND
                                  : Op == amo_op::fetch_or     ? XSHMEM_AMO_FETCH_OR
                                  : Op == amo_op::fetch_xor    ? XSHMEM_AMO_FETCH_XOR
                                  : Op == amo_op::add          ? XSHMEM_AMO_ADD
                                  : Op == amo_op::bit_and      ? XSHMEM_AMO_AND
                                  : Op == amo_op::bit_or       ? XSHMEM_AMO_OR
                                                               : XSHMEM_AMO_XOR;
  const peer_t peer = peer_of(s, pe);
  switch (peer.path) {
    case XSHMEM_PATH_LSA: {
      T *r = lsa_at(peer, s, dest);
      if constexpr (Op == amo_op::fetch) {
        return lsa::fetch(r);
      } else if constexpr (Op == amo_op::set) {
        lsa::set(r, value);
        return value;
      } else if constexpr (Op == amo_op::swap) {
        return lsa::swap(r, value);
      } else if constexpr (Op == amo_op::compare_swap) {
        return lsa::compare_swap(r, cond, value);
      } else if constexpr (Op == amo_op::fetch_add) {
        return lsa::fetch_add(r, value);
      } else if constexpr (Op == amo_op::fetch_and) {
        return lsa::fetch_and(r, value);
      } else if constexpr (Op == amo_op::fetch_or) {
        return lsa::fetch_or(r, value);
      } else if constexpr (Op == amo_op::fetch_xor) {
        return lsa::fetch_xor(r, value);
      } else if constexpr (Op == amo_op::add) {
        (void)lsa::fetch_add(r, value);  // the result unused: a reduction
        return T{};
      } else if constexpr (Op == amo_op::bit_and) {
        (void)lsa::fetch_and(r, value);
        return T{};
      } else if constexpr (Op == amo_op::bit_or) {
        (void)lsa::fetch_or(r, value);
        return T{};
      } else {
        static_assert(Op == amo_op::bit_xor);
        (void)lsa::fetch_xor(r, value);
        return T{};
      }
    }
    case XSHMEM_PATH_PROXY: {
      T old = proxy::amo(s, ctx, kOp, dest, value, cond, pe);
      return Op == amo_op::set ? value : old;
    }
    case XSHMEM_PATH_GDA:
      if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
        return gdapath::amo(s, ctx, kOp, dest, value, cond, pe);
      } else {
        unreachable_path(s, pe);  // no NIC has atomics of this width
        return T{};
      }
#if !defined(__CUDA_ARCH__)
    case XSHMEM_PATH_HOST_CE: {
      const T old = host_ce::amo(s, static_cast<int>(Op), dest, value, cond, pe);
      return Op == amo_op::set ? value : old;
    }
#endif
    default:
      unreachable_path(s, pe);
      return T{};
  }
}

// The thread-scope form under the default context (the ctx forms call amo_path).
template <amo_op Op, typename T>
XSHMEM_HD_INLINE T amo(const state_t &s, T *dest, T value, T cond, int pe) {
  return amo_path<Op, thread_group>(s, kCtxDefault, dest, value, cond, pe);
}

template <typename T>
XSHMEM_HD_INLINE T atomic_fetch(const state_t &s, const T *source, int pe) {
  return amo<amo_op::fetch>(s, const_cast<T *>(source), T{}, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE void atomic_set(const state_t &s, T *dest, T value, int pe) {
  amo<amo_op::set>(s, dest, value, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE T atomic_swap(const state_t &s, T *dest, T value, int pe) {
  return amo<amo_op::swap>(s, dest, value, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE T atomic_compare_swap(const state_t &s, T *dest, T cond, T value, int pe) {
  return amo<amo_op::compare_swap>(s, dest, value, cond, pe);
}
template <typename T>
XSHMEM_HD_INLINE T atomic_fetch_add(const state_t &s, T *dest, T value, int pe) {
  return amo<amo_op::fetch_add>(s, dest, value, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE void atomic_add(const state_t &s, T *dest, T value, int pe) {
  amo<amo_op::add>(s, dest, value, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE T atomic_fetch_inc(const state_t &s, T *dest, int pe) {
  return amo<amo_op::fetch_add>(s, dest, T{1}, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE void atomic_inc(const state_t &s, T *dest, int pe) {
  amo<amo_op::add>(s, dest, T{1}, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE T atomic_fetch_and(const state_t &s, T *dest, T value, int pe) {
  return amo<amo_op::fetch_and>(s, dest, value, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE void atomic_and(const state_t &s, T *dest, T value, int pe) {
  amo<amo_op::bit_and>(s, dest, value, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE T atomic_fetch_or(const state_t &s, T *dest, T value, int pe) {
  return amo<amo_op::fetch_or>(s, dest, value, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE void atomic_or(const state_t &s, T *dest, T value, int pe) {
  amo<amo_op::bit_or>(s, dest, value, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE T atomic_fetch_xor(const state_t &s, T *dest, T value, int pe) {
  return amo<amo_op::fetch_xor>(s, dest, value, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE void atomic_xor(const state_t &s, T *dest, T value, int pe) {
  amo<amo_op::bit_xor>(s, dest, value, T{}, pe);
}

// The ctx forms: the context goes to the path (its channel on PROXY peers).
template <typename T>
XSHMEM_HD_INLINE T atomic_fetch(const state_t &s, int32_t ctx, const T *source, int pe) {
  return amo_path<amo_op::fetch, thread_group>(s, ctx, const_cast<T *>(source), T{}, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE void atomic_set(const state_t &s, int32_t ctx, T *dest, T value, int pe) {
  amo_path<amo_op::set, thread_group>(s, ctx, dest, value, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE T atomic_swap(const state_t &s, int32_t ctx, T *dest, T value, int pe) {
  return amo_path<amo_op::swap, thread_group>(s, ctx, dest, value, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE T atomic_compare_swap(const state_t &s, int32_t ctx, T *dest, T cond, T value,
                                       int pe) {
  return amo_path<amo_op::compare_swap, thread_group>(s, ctx, dest, value, cond, pe);
}
template <typename T>
XSHMEM_HD_INLINE T atomic_fetch_add(const state_t &s, int32_t ctx, T *dest, T value, int pe) {
  return amo_path<amo_op::fetch_add, thread_group>(s, ctx, dest, value, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE void atomic_add(const state_t &s, int32_t ctx, T *dest, T value, int pe) {
  amo_path<amo_op::add, thread_group>(s, ctx, dest, value, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE T atomic_fetch_inc(const state_t &s, int32_t ctx, T *dest, int pe) {
  return amo_path<amo_op::fetch_add, thread_group>(s, ctx, dest, T{1}, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE void atomic_inc(const state_t &s, int32_t ctx, T *dest, int pe) {
  amo_path<amo_op::add, thread_group>(s, ctx, dest, T{1}, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE T atomic_fetch_and(const state_t &s, int32_t ctx, T *dest, T value, int pe) {
  return amo_path<amo_op::fetch_and, thread_group>(s, ctx, dest, value, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE void atomic_and(const state_t &s, int32_t ctx, T *dest, T value, int pe) {
  amo_path<amo_op::bit_and, thread_group>(s, ctx, dest, value, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE T atomic_fetch_or(const state_t &s, int32_t ctx, T *dest, T value, int pe) {
  return amo_path<amo_op::fetch_or, thread_group>(s, ctx, dest, value, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE void atomic_or(const state_t &s, int32_t ctx, T *dest, T value, int pe) {
  amo_path<amo_op::bit_or, thread_group>(s, ctx, dest, value, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE T atomic_fetch_xor(const state_t &s, int32_t ctx, T *dest, T value, int pe) {
  return amo_path<amo_op::fetch_xor, thread_group>(s, ctx, dest, value, T{}, pe);
}
template <typename T>
XSHMEM_HD_INLINE void atomic_xor(const state_t &s, int32_t ctx, T *dest, T value, int pe) {
  amo_path<amo_op::bit_xor, thread_group>(s, ctx, dest, value, T{}, pe);
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_AMO_H
