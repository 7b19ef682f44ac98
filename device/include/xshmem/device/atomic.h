// xshmem device API: system-scope atomics, fences and wait back-off for host and device code.
//
// Compiled by nvcc these are libcu++ atomics at thread_scope_system (visible to the CPU, to other
// GPUs and to NICs); compiled by a host compiler they are std::atomic_ref. Every operation takes
// a plain pointer into memory that other PEs may access (a mapped peer heap or the own heap).
//
// Integer types of 1, 2, 4 and 8 bytes are operated on directly. float and double go through
// the unsigned integer of the same size, bit-cast, so NaN payloads, -0.0 and denormals survive
// fetch/set/swap bit for bit, and compare_swap compares bit patterns. Addresses must be aligned
// to the operand size.
#ifndef XSHMEM_DEVICE_ATOMIC_H
#define XSHMEM_DEVICE_ATOMIC_H

#include <stddef.h>
#include <stdint.h>

#include <type_traits>

#include <xshmem/device/state.h>

#if defined(__CUDACC__)
#include <cuda/atomic>
#else
#include <sched.h>

#include <atomic>
#endif

namespace xshmem::dev::atomic {

#if defined(__CUDACC__)
namespace ns = cuda::std;
template <typename U>
using ref_t = cuda::atomic_ref<U, cuda::thread_scope_system>;
#else
namespace ns = std;
template <typename U>
using ref_t = std::atomic_ref<U>;
#endif
using order_t = ns::memory_order;
inline constexpr order_t relaxed = ns::memory_order_relaxed;
inline constexpr order_t acquire = ns::memory_order_acquire;
inline constexpr order_t release = ns::memory_order_release;
inline constexpr order_t acq_rel = ns::memory_order_acq_rel;
inline constexpr order_t seq_cst = ns::memory_order_seq_cst;

// The unsigned integer with the size of T.
template <size_t N>
struct uint_of;
template <>
struct uint_of<1> {
  using type = uint8_t;
};
template <>
struct uint_of<2> {
  using type = uint16_t;
};
template <>
struct uint_of<4> {
  using type = uint32_t;
};
template <>
struct uint_of<8> {
  using type = uint64_t;
};

// The type an atomic on T really operates on: T itself for integers, the same-size unsigned
// integer for floating point.
template <typename T>
using repr_t = std::conditional_t<std::is_integral_v<T>, T, typename uint_of<sizeof(T)>::type>;

// Whether T can be accessed atomically (1/2/4/8-byte integers, float, double).
template <typename T>
inline constexpr bool is_atomic_type_v = (std::is_integral_v<T> || std::is_floating_point_v<T>)&&(
    sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);

template <typename To, typename From>
XSHMEM_HD_INLINE To bits(From v) {
  static_assert(sizeof(To) == sizeof(From), "bit cast between different sizes");
  return __builtin_bit_cast(To, v);
}

template <typename T>
XSHMEM_HD_INLINE ref_t<repr_t<T>> ref(T *addr) {
  static_assert(is_atomic_type_v<T>, "atomics need a 1, 2, 4 or 8-byte integer, float or double");
  return ref_t<repr_t<T>>(*reinterpret_cast<repr_t<T> *>(addr));
}

#if defined(__CUDA_ARCH__)
// Device accesses to 4- and 8-byte words through the .global state space. Every word these
// functions see is global memory (a symmetric heap, own or mapped peer). A generic-address
// atomic compiles to a try-global-else-shared sequence that branches on the atomic's outcome,
// so each one waited for its reply from the peer; the .global forms issue and move on, and
// back-to-back remote atomics overlap (see tools/probe/nvlink_probe.cu).
namespace gptx {
template <typename T>
inline constexpr bool word_v = is_atomic_type_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);

__device__ __forceinline__ size_t gaddr(const void *p) {
  return __cvta_generic_to_global(p);
}

// The operations on the same-size unsigned integer U (uint32_t or uint64_t).
#define XSHMEM_GPTX_OPS(U, SUF, C)                                                              \
  __device__ __forceinline__ U ld(const U *p, bool acq) {                                       \
    U v;                                                                                        \
    if (acq)                                                                                    \
      asm volatile("ld.acquire.sys.global." SUF " %0, [%1];"                                    \
                   : "=" C(v)                                                                   \
                   : "l"(gaddr(p))                                                              \
                   : "memory");                                                                 \
    else                                                                                        \
      asm volatile("ld.relaxed.sys.global." SUF " %0, [%1];"                                    \
                   : "=" C(v)                                                                   \
                   : "l"(gaddr(p))                                                              \
                   : "memory");                                                                 \
    return v;                                                                                   \
  }                                                                                             \
  __device__ __forceinline__ void st(U *p, U v, bool rel) {                                     \
    if (rel)                                                                                    \
      asm volatile("st.release.sys.global." SUF " [%0], %1;" ::"l"(gaddr(p)), C(v) : "memory"); \
    else                                                                                        \
      asm volatile("st.relaxed.sys.global." SUF " [%0], %1;" ::"l"(gaddr(p)), C(v) : "memory"); \
  }                                                                                             \
  __device__ __forceinline__ U cas(U *p, U cmp, U v) {                                          \
    U old;                                                                                      \
    asm volatile("atom.relaxed.sys.global.cas." SUF " %0, [%1], %2, %3;"                        \
                 : "=" C(old)                                                                   \
                 : "l"(gaddr(p)), C(cmp), C(v)                                                  \
                 : "memory");                                                                   \
    return old;                                                                                 \
  }
XSHMEM_GPTX_OPS(uint32_t, "b32", "r")
XSHMEM_GPTX_OPS(uint64_t, "b64", "l")
#undef XSHMEM_GPTX_OPS

// Read-modify-write `OP` (exch, add, and, or, xor), relaxed or release. K is the operand kind
// of the PTX type: "b" (bits), or "u" for add, which has no .b types (two's complement, so signed
// operands work alike).
#define XSHMEM_GPTX_RMW(NAME, OP, K)                                            \
  __device__ __forceinline__ uint32_t NAME(uint32_t *p, uint32_t v, bool rel) { \
    uint32_t old;                                                               \
    if (rel)                                                                    \
      asm volatile("atom.release.sys.global." OP "." K "32 %0, [%1], %2;"       \
                   : "=r"(old)                                                  \
                   : "l"(gaddr(p)), "r"(v)                                      \
                   : "memory");                                                 \
    else                                                                        \
      asm volatile("atom.relaxed.sys.global." OP "." K "32 %0, [%1], %2;"       \
                   : "=r"(old)                                                  \
                   : "l"(gaddr(p)), "r"(v)                                      \
                   : "memory");                                                 \
    return old;                                                                 \
  }                                                                             \
  __device__ __forceinline__ uint64_t NAME(uint64_t *p, uint64_t v, bool rel) { \
    uint64_t old;                                                               \
    if (rel)                                                                    \
      asm volatile("atom.release.sys.global." OP "." K "64 %0, [%1], %2;"       \
                   : "=l"(old)                                                  \
                   : "l"(gaddr(p)), "l"(v)                                      \
                   : "memory");                                                 \
    else                                                                        \
      asm volatile("atom.relaxed.sys.global." OP "." K "64 %0, [%1], %2;"       \
                   : "=l"(old)                                                  \
                   : "l"(gaddr(p)), "l"(v)                                      \
                   : "memory");                                                 \
    return old;                                                                 \
  }
XSHMEM_GPTX_RMW(exch, "exch", "b")
XSHMEM_GPTX_RMW(add, "add", "u")
XSHMEM_GPTX_RMW(and_, "and", "b")
XSHMEM_GPTX_RMW(or_, "or", "b")
XSHMEM_GPTX_RMW(xor_, "xor", "b")
#undef XSHMEM_GPTX_RMW

template <typename T>
using word_t = typename uint_of<sizeof(T)>::type;
template <typename T>
__device__ __forceinline__ word_t<T> *word(T *p) {
  return reinterpret_cast<word_t<T> *>(p);
}
}  // namespace gptx

#endif

template <typename T>
XSHMEM_HD_INLINE T load(const T *addr, order_t order = relaxed) {
#if defined(__CUDA_ARCH__)
  if constexpr (gptx::word_v<T>) {
    if (order == relaxed || order == acquire)
      return bits<T>(gptx::ld(gptx::word(const_cast<T *>(addr)), order == acquire));
  }
#endif
  return bits<T>(ref(const_cast<T *>(addr)).load(order));
}
template <typename T>
XSHMEM_HD_INLINE T load_acquire(const T *addr) {
  return load(addr, acquire);
}
template <typename T>
XSHMEM_HD_INLINE void store(T *addr, T value, order_t order = relaxed) {
#if defined(__CUDA_ARCH__)
  if constexpr (gptx::word_v<T>) {
    if (order == relaxed || order == release) {
      gptx::st(gptx::word(addr), bits<gptx::word_t<T>>(value), order == release);
      return;
    }
  }
#endif
  ref(addr).store(bits<repr_t<T>>(value), order);
}
template <typename T>
XSHMEM_HD_INLINE void store_release(T *addr, T value) {
  store(addr, value, release);
}
template <typename T>
XSHMEM_HD_INLINE T exchange(T *addr, T value, order_t order = relaxed) {
#if defined(__CUDA_ARCH__)
  if constexpr (gptx::word_v<T>) {
    if (order == relaxed || order == release)
      return bits<T>(gptx::exch(gptx::word(addr), bits<gptx::word_t<T>>(value), order == release));
  }
#endif
  return bits<T>(ref(addr).exchange(bits<repr_t<T>>(value), order));
}
// Stores `value` if *addr equals `expected` (bitwise); returns the old value either way.
template <typename T>
XSHMEM_HD_INLINE T compare_swap(T *addr, T expected, T value, order_t order = relaxed) {
#if defined(__CUDA_ARCH__)
  if constexpr (gptx::word_v<T>) {
    if (order == relaxed)
      return bits<T>(gptx::cas(gptx::word(addr), bits<gptx::word_t<T>>(expected),
                               bits<gptx::word_t<T>>(value)));
  }
#endif
  repr_t<T> old = bits<repr_t<T>>(expected);
  ref(addr).compare_exchange_strong(old, bits<repr_t<T>>(value), order, relaxed);
  return bits<T>(old);
}

#if defined(__CUDA_ARCH__)
#define XSHMEM_ATOMIC_RMW_FAST(FN)                                                                \
  if constexpr (gptx::word_v<T>) {                                                                \
    if (order == relaxed || order == release)                                                     \
      return bits<T>(gptx::FN(gptx::word(addr), bits<gptx::word_t<T>>(value), order == release)); \
  }
#else
#define XSHMEM_ATOMIC_RMW_FAST(FN)
#endif

template <typename T>
XSHMEM_HD_INLINE T fetch_add(T *addr, T value, order_t order = relaxed) {
  static_assert(std::is_integral_v<T>, "fetch_add is for integers");
  XSHMEM_ATOMIC_RMW_FAST(add)
  return ref(addr).fetch_add(value, order);
}
template <typename T>
XSHMEM_HD_INLINE T fetch_and(T *addr, T value, order_t order = relaxed) {
  static_assert(std::is_integral_v<T>, "fetch_and is for integers");
  XSHMEM_ATOMIC_RMW_FAST(and_)
  return ref(addr).fetch_and(value, order);
}
template <typename T>
XSHMEM_HD_INLINE T fetch_or(T *addr, T value, order_t order = relaxed) {
  static_assert(std::is_integral_v<T>, "fetch_or is for integers");
  XSHMEM_ATOMIC_RMW_FAST(or_)
  return ref(addr).fetch_or(value, order);
}
template <typename T>
XSHMEM_HD_INLINE T fetch_xor(T *addr, T value, order_t order = relaxed) {
  static_assert(std::is_integral_v<T>, "fetch_xor is for integers");
  XSHMEM_ATOMIC_RMW_FAST(xor_)
  return ref(addr).fetch_xor(value, order);
}
#undef XSHMEM_ATOMIC_RMW_FAST

// Orders this thread's earlier stores (plain or atomic, to any PE) before its later ones, and
// earlier loads before later accesses. On x86 a release fence is only a compiler barrier, which
// does not order the non-temporal stores glibc's memcpy uses for large copies: sfence does.
XSHMEM_HD_INLINE void fence() {
#if defined(__CUDA_ARCH__)
  cuda::atomic_thread_fence(acq_rel, cuda::thread_scope_system);
#else
  ns::atomic_thread_fence(acq_rel);
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_sfence();
#endif
#endif
}

// Completes this thread's earlier memory accesses before any later one (sequentially
// consistent; on x86 an mfence, which also drains non-temporal stores).
XSHMEM_HD_INLINE void quiet() {
#if defined(__CUDA_ARCH__)
  cuda::atomic_thread_fence(seq_cst, cuda::thread_scope_system);
#else
  ns::atomic_thread_fence(seq_cst);
#endif
}

#if !defined(__CUDA_ARCH__)
// Host waits: spins (with pause) before a wait starts giving its core away. The core sets it at
// init from XSHMEM_HOST_WAIT_SPINS (auto: 64, or 0 where this node's PEs outnumber the CPUs this
// process may run on, so that a waiting PE yields at once to the PE it waits for).
inline constexpr unsigned kHostWaitSpins = 64;  // the default, and auto's where not oversubscribed
inline unsigned g_host_wait_spins = kHostWaitSpins;
#endif

// Back-off for wait loops: spins briefly, then gives the core away. CI runs 8-16 PEs on 2 cores,
// so a host PE that only spins starves the PE it is waiting for.
class backoff {
 public:
  XSHMEM_HD_INLINE void operator()() {
#if defined(__CUDA_ARCH__)
    // Poll without sleeping first: a flag that arrives within a few microseconds (a ping-pong
    // over NVLink, a barrier partner) is seen at once instead of after a sleep ladder of ~2 us
    // (measured: sleeping from the first poll doubled p/put_signal round trips). Then sleep,
    // doubling up to kMaxSleepNs, so long waits leave issue slots to other warps.
    if (n_ < kDeviceSpins) {
      ++n_;
      return;
    }
    if (sleep_ns_ < kMinSleepNs) sleep_ns_ = kMinSleepNs;
    __nanosleep(sleep_ns_);
    if (sleep_ns_ < kMaxSleepNs) sleep_ns_ *= 2;
#else
    // n_ counts spins before yielding.
    if (n_ < g_host_wait_spins) {
      ++n_;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    } else {
      sched_yield();
    }
#endif
  }

 private:
  static constexpr unsigned kMinSleepNs = 32;
  static constexpr unsigned kMaxSleepNs = 1024;
  static constexpr unsigned kDeviceSpins = 4096;
  unsigned n_ = 0;
  unsigned sleep_ns_ = 0;  // device only
};

}  // namespace xshmem::dev::atomic

#endif  // XSHMEM_DEVICE_ATOMIC_H
