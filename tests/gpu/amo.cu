// GPU conformance: AMO-01 (every op x every type, fetched and final values exact; device thread
// and host API on GPU heaps), AMO-02 (fetching nbi ladders to every PE, fence between steps, one
// quiet), AMO-03 (fetch_add/fetch_inc uniqueness from every device thread of every PE on PE 0,
// 32 and 64 bits), AMO-04 (compare_swap chain across the threads of all PEs; spin-lock retry
// loop), AMO-05 (bitwise ownership), AMO-06 (boundary values), AMO-07 (adjacent 32-bit words of
// one 8-byte line updated concurrently by different PEs: system-scope atomics over NVLink next to
// atomics, p or byte-wise puts), AMO-08 (float/double fetch/set/swap bit-exact on -0.0, NaN
// payloads, denormals, +-inf) and AMO-09 (AMOs on a word its owner waits on; host-issued and
// device-issued AMOs on one word). Device cases are column T (one or many CUDA threads).
//
// AMO-01: PE me runs the op sequence on word `me` of its right neighbour, so every word has one
// writer; fetched values are checked where they return, final values by the owner.
// The other cases carve guarded regions (PE-dependent guard bytes on both sides, checked after
// the case) from one symmetric area; every poll that a broken library could leave unsatisfied is
// bounded by the GPU clock (kTimeoutNs) and reports a failure instead of hanging.
#include <math.h>

#include <algorithm>
#include <type_traits>

#include "gpu_test.h"

namespace {

// Base value of the sequence run by `pe` (the sequence adds 10 in total for standard types).
template <typename T>
__host__ __device__ T base_of(int pe) {
  return static_cast<T>(pe * 16 + 5);
}

// The standard-type sequence; returns nothing, checks fetched values. Runs in a kernel thread
// or on the host (the API functions are the same names).
#define GT_AMO_STD_SEQ(T, N)                                                                       \
  __host__ __device__ void amo_std_seq_##N(T *w, int me, int pe, T *fetch) {                       \
    T b = base_of<T>(me);                                                                          \
    xshmem_##N##_atomic_set(w, b, pe);                                                             \
    T v = xshmem_##N##_atomic_fetch(w, pe);                                                        \
    GT_CHECK(v == b, 0, b, v);                                                                     \
    v = xshmem_##N##_atomic_swap(w, static_cast<T>(b + 1), pe);                                    \
    GT_CHECK(v == b, 1, b, v);                                                                     \
    v = xshmem_##N##_atomic_compare_swap(w, static_cast<T>(b + 1), static_cast<T>(b + 2), pe);     \
    GT_CHECK(v == static_cast<T>(b + 1), 2, b + 1, v);                                             \
    v = xshmem_##N##_atomic_compare_swap(w, b, static_cast<T>(b + 9), pe); /* no swap */           \
    GT_CHECK(v == static_cast<T>(b + 2), 3, b + 2, v);                                             \
    v = xshmem_##N##_atomic_fetch_add(w, static_cast<T>(3), pe);                                   \
    GT_CHECK(v == static_cast<T>(b + 2), 4, b + 2, v);                                             \
    xshmem_##N##_atomic_add(w, static_cast<T>(2), pe);                                             \
    xshmem_##N##_atomic_inc(w, pe);                                                                \
    v = xshmem_##N##_atomic_fetch_inc(w, pe);                                                      \
    GT_CHECK(v == static_cast<T>(b + 8), 5, b + 8, v);                                             \
    xshmem_##N##_atomic_fetch_add_nbi(fetch, w, static_cast<T>(1), pe);                            \
    xshmem_quiet();                                                                                \
    GT_CHECK(*fetch == static_cast<T>(b + 9), 6, b + 9, *fetch);                                   \
    xshmem_##N##_atomic_fetch_inc_nbi(fetch, w, pe);                                               \
    xshmem_quiet();                                                                                \
    GT_CHECK(*fetch == static_cast<T>(b + 10), 7, b + 10, *fetch);                                 \
    xshmem_##N##_atomic_compare_swap_nbi(fetch, w, static_cast<T>(b + 11), static_cast<T>(b + 10), \
                                         pe);                                                      \
    xshmem_quiet();                                                                                \
    GT_CHECK(*fetch == static_cast<T>(b + 11), 8, b + 11, *fetch);                                 \
    xshmem_##N##_atomic_fetch_nbi(fetch, w, pe);                                                   \
    xshmem_quiet();                                                                                \
    GT_CHECK(*fetch == static_cast<T>(b + 10), 9, b + 10, *fetch);                                 \
    xshmem_##N##_atomic_swap_nbi(fetch, w, static_cast<T>(b + 10), pe);                            \
    xshmem_quiet();                                                                                \
    GT_CHECK(*fetch == static_cast<T>(b + 10), 10, b + 10, *fetch);                                \
  }                                                                                                \
  __global__ void amo_std_kernel_##N(T *w, int me, int pe, T *fetch) {                             \
    amo_std_seq_##N(w, me, pe, fetch);                                                             \
  }
XSHMEM_AMO_STANDARD_TYPES(GT_AMO_STD_SEQ)
#undef GT_AMO_STD_SEQ

// Floating point: fetch/set/swap (+nbi), with values whose bits matter (negative zero, a
// fraction).
#define GT_AMO_FP_SEQ(T, N)                                                 \
  __host__ __device__ void amo_fp_seq_##N(T *w, int me, int pe, T *fetch) { \
    T b = static_cast<T>(me) + static_cast<T>(0.25);                        \
    xshmem_##N##_atomic_set(w, b, pe);                                      \
    T v = xshmem_##N##_atomic_fetch(w, pe);                                 \
    GT_CHECK(v == b, 0, b * 4, v * 4);                                      \
    v = xshmem_##N##_atomic_swap(w, static_cast<T>(-0.0), pe);              \
    GT_CHECK(v == b, 1, b * 4, v * 4);                                      \
    xshmem_##N##_atomic_fetch_nbi(fetch, w, pe);                            \
    xshmem_quiet();                                                         \
    GT_CHECK(*fetch == 0 && signbit(*fetch), 2, 0, *fetch * 4);             \
    xshmem_##N##_atomic_swap_nbi(fetch, w, static_cast<T>(b + 1), pe);      \
    xshmem_quiet();                                                         \
    GT_CHECK(*fetch == 0 && signbit(*fetch), 3, 0, *fetch * 4);             \
  }                                                                         \
  __global__ void amo_fp_kernel_##N(T *w, int me, int pe, T *fetch) {       \
    amo_fp_seq_##N(w, me, pe, fetch);                                       \
  }
GT_AMO_FP_SEQ(float, float)
GT_AMO_FP_SEQ(double, double)
#undef GT_AMO_FP_SEQ

// Bitwise: and/or/xor and their fetching forms from a known pattern.
#define GT_AMO_BIT_SEQ(T, N)                                                                  \
  __host__ __device__ void amo_bit_seq_##N(T *w, int me, int pe, T *fetch) {                  \
    T b = static_cast<T>(0xF0F0u + me);                                                       \
    xshmem_##N##_atomic_set(w, b, pe);                                                        \
    T v = xshmem_##N##_atomic_fetch_or(w, static_cast<T>(0x0F00u), pe);                       \
    GT_CHECK(v == b, 0, b, v);                                                                \
    T c = static_cast<T>(b | 0x0F00u);                                                        \
    v = xshmem_##N##_atomic_fetch_and(w, static_cast<T>(0xFF0Fu), pe);                        \
    GT_CHECK(v == c, 1, c, v);                                                                \
    c = static_cast<T>(c & 0xFF0Fu);                                                          \
    v = xshmem_##N##_atomic_fetch_xor(w, static_cast<T>(0x1234u), pe);                        \
    GT_CHECK(v == c, 2, c, v);                                                                \
    c = static_cast<T>(c ^ 0x1234u);                                                          \
    xshmem_##N##_atomic_or(w, static_cast<T>(0x10000u), pe);                                  \
    xshmem_##N##_atomic_and(w, static_cast<T>(~static_cast<T>(1)), pe);                       \
    xshmem_##N##_atomic_xor(w, static_cast<T>(0x3u), pe);                                     \
    c = static_cast<T>(((c | 0x10000u) & ~static_cast<T>(1)) ^ 0x3u);                         \
    xshmem_##N##_atomic_fetch_xor_nbi(fetch, w, static_cast<T>(0), pe);                       \
    xshmem_quiet();                                                                           \
    GT_CHECK(*fetch == c, 3, c, *fetch);                                                      \
    xshmem_##N##_atomic_fetch_or_nbi(fetch, w, static_cast<T>(0), pe);                        \
    xshmem_##N##_atomic_fetch_and_nbi(fetch, w, static_cast<T>(~static_cast<T>(0)), pe);      \
    xshmem_quiet();                                                                           \
    GT_CHECK(*fetch == c, 4, c, *fetch);                                                      \
  }                                                                                           \
  __global__ void amo_bit_kernel_##N(T *w, int me, int pe, T *fetch) {                        \
    amo_bit_seq_##N(w, me, pe, fetch);                                                        \
  }                                                                                           \
  __host__ __device__ T bit_final_##N(int writer) {                                           \
    T c = static_cast<T>(((static_cast<T>(0xF0F0u + writer) | 0x0F00u) & 0xFF0Fu) ^ 0x1234u); \
    return static_cast<T>(((c | 0x10000u) & ~static_cast<T>(1)) ^ 0x3u);                      \
  }
XSHMEM_AMO_BITWISE_TYPES(GT_AMO_BIT_SEQ)
#undef GT_AMO_BIT_SEQ

// One 8-byte-aligned word per (type, writer) in a symmetric area.
constexpr int kWordsPerType = 8;

void amo01(uint64_t *area, bool host) {
  int t = 0;
  void *fetch_dev = nullptr;
  GT_CUDA(cudaMalloc(&fetch_dev, 16));
  alignas(16) unsigned char fetch_host[16];
  void *fetch = host ? static_cast<void *>(fetch_host) : fetch_dev;
  GT_CUDA(cudaMemset(area, 0, 64 * kWordsPerType * sizeof(uint64_t)));
  gt::barrier();
#define GT_RUN(KIND, T, N)                                                             \
  {                                                                                    \
    T *w = reinterpret_cast<T *>(area + t * kWordsPerType + gt::me);                   \
    if (host) {                                                                        \
      amo_##KIND##_seq_##N(w, gt::me, gt::peer, static_cast<T *>(fetch));              \
    } else {                                                                           \
      amo_##KIND##_kernel_##N<<<1, 1>>>(w, gt::me, gt::peer, static_cast<T *>(fetch)); \
      gt::device_sync(#KIND " " #N);                                                   \
    }                                                                                  \
    ++t;                                                                               \
  }
#define GT_RUN_STD(T, N) GT_RUN(std, T, N)
#define GT_RUN_BIT(T, N) GT_RUN(bit, T, N)
  XSHMEM_AMO_STANDARD_TYPES(GT_RUN_STD)
  GT_RUN(fp, float, float)
  GT_RUN(fp, double, double)
  XSHMEM_AMO_BITWISE_TYPES(GT_RUN_BIT)
#undef GT_RUN_STD
#undef GT_RUN_BIT
#undef GT_RUN
  gt::barrier();
  // Final values of the words the left neighbour worked on.
  std::vector<uint64_t> got(64 * kWordsPerType);
  GT_CUDA(cudaMemcpy(got.data(), area, got.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  t = 0;
#define GT_FINAL(T, EXPECTED)                                               \
  {                                                                         \
    T v;                                                                    \
    memcpy(&v, &got[t * kWordsPerType + gt::from], sizeof v);               \
    T e = (EXPECTED);                                                       \
    GT_CHECK(memcmp(&v, &e, sizeof v) == 0, t, (long long)e, (long long)v); \
    ++t;                                                                    \
  }
#define GT_FINAL_STD(T, N) GT_FINAL(T, static_cast<T>(base_of<T>(gt::from) + 10))
#define GT_FINAL_BIT(T, N) GT_FINAL(T, bit_final_##N(gt::from))
  XSHMEM_AMO_STANDARD_TYPES(GT_FINAL_STD)
  GT_FINAL(float, static_cast<float>(gt::from) + 1.25f)
  GT_FINAL(double, static_cast<double>(gt::from) + 1.25)
  XSHMEM_AMO_BITWISE_TYPES(GT_FINAL_BIT)
#undef GT_FINAL_STD
#undef GT_FINAL_BIT
#undef GT_FINAL
  GT_CUDA(cudaFree(fetch_dev));
}

// ---- AMO-03 ----------------------------------------------------------------------------------
constexpr int kK = 4;  // fetch_adds per thread

template <typename T>
__global__ void unique_kernel(T *counter, T *results, bool inc) {
  size_t tid = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  for (int k = 0; k < kK; ++k) {
    T v;
    if constexpr (sizeof(T) == 4) {
      v = inc ? xshmem_uint32_atomic_fetch_inc(reinterpret_cast<uint32_t *>(counter), 0)
              : xshmem_uint32_atomic_fetch_add(reinterpret_cast<uint32_t *>(counter), 1u, 0);
    } else {
      v = inc ? xshmem_uint64_atomic_fetch_inc(reinterpret_cast<uint64_t *>(counter), 0)
              : xshmem_uint64_atomic_fetch_add(reinterpret_cast<uint64_t *>(counter), 1ull, 0);
    }
    results[tid * kK + k] = v;
  }
}

template <typename T>
void amo03(void *area, bool inc) {
  // 2 blocks of 64 threads where PEs share a GPU
  const int blocks = gt::narrowed(16, 8), threads = gt::narrowed(256, 4);
  const size_t per_pe = size_t(blocks) * threads * kK;
  T *counter = static_cast<T *>(area);
  T *results = reinterpret_cast<T *>(static_cast<char *>(area) + 64);
  GT_CUDA(cudaMemset(counter, 0, 64));
  gt::barrier();
  unique_kernel<T><<<blocks, threads>>>(counter, results, inc);
  gt::barrier();
  if (gt::me == 0) {
    // Gather every PE's returned values with host gets (GPU heap -> host memory).
    std::vector<T> all(per_pe * gt::npes);
    for (int p = 0; p < gt::npes; ++p) {
      xshmem_getmem(all.data() + per_pe * p, results, per_pe * sizeof(T), p);
    }
    std::vector<unsigned char> seen(all.size(), 0);
    for (size_t i = 0; i < all.size(); ++i) {
      bool ok = all[i] < all.size() && !seen[all[i]];
      GT_CHECK(ok, i, -1, all[i]);
      if (all[i] < all.size()) seen[all[i]] = 1;
    }
    T final_value = xshmem_uint64_g(reinterpret_cast<uint64_t *>(counter), 0) &
                    (sizeof(T) == 4 ? 0xffffffffull : ~0ull);
    GT_CHECK(final_value == all.size(), 0, all.size(), final_value);
  }
}

// ---- Shared by AMO-02 and AMO-04..09 ---------------------------------------------------------

// A 64-bit value derived from (source PE, destination PE, index, iteration, case tag).
__host__ __device__ inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
__host__ __device__ inline uint64_t hv(int src, int dst, uint64_t i, uint64_t iter, uint32_t tag) {
  uint64_t x = mix64((uint64_t(uint32_t(src)) << 32) ^ uint32_t(dst) ^ (uint64_t(tag) << 48));
  x = mix64(x ^ i);
  return mix64(x ^ (iter * 0x100000001B3ull));
}

// Bit casts between T and the low sizeof(T) bytes of a uint64_t (comparisons of fetched values
// are on bits, so NaN payloads and -0.0 compare exactly).
template <typename T>
__host__ __device__ T from_bits(uint64_t b) {
  T v;
  memcpy(&v, &b, sizeof v);
  return v;
}
template <typename T>
__host__ __device__ uint64_t to_bits(T v) {
  uint64_t b = 0;
  memcpy(&b, &v, sizeof v);
  return b;
}

// Two's-complement wrapping addition (signed overflow in plain arithmetic is undefined).
template <typename T>
__host__ __device__ T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <typename T>
__host__ __device__ T bit_of(unsigned b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(U{1} << b));
}

using gt::arm;
using gt::Carver;
using gt::check_guards;
using gt::check_untouched;
using gt::Guarded;
using gt::guarded;
using gt::kTimeoutNs;
using gt::now_ns;

uint8_t *g_area = nullptr;
constexpr size_t kAreaBytes = size_t(32) << 20;
Carver carver() {
  return Carver{g_area, g_area + kAreaBytes};
}

template <typename T>
T read_local(const T *p) {
  T v;
  GT_CUDA(cudaMemcpy(&v, p, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}
template <typename T>
void write_local(T *p, T v) {
  GT_CUDA(cudaMemcpy(p, &v, sizeof v, cudaMemcpyHostToDevice));
}

// ---- Per-type entry points (device) ----------------------------------------------------------

#define GT_EXT_TAG(T, N)                                                                       \
  struct Tag_##N {                                                                             \
    using type = T;                                                                            \
    __device__ static T fetch(const T *s, int pe) { return xshmem_##N##_atomic_fetch(s, pe); } \
    __device__ static void set(T *d, T v, int pe) { xshmem_##N##_atomic_set(d, v, pe); }       \
    __device__ static T swap(T *d, T v, int pe) { return xshmem_##N##_atomic_swap(d, v, pe); } \
    __device__ static void fetch_nbi(T *f, const T *s, int pe) {                               \
      xshmem_##N##_atomic_fetch_nbi(f, s, pe);                                                 \
    }                                                                                          \
    __device__ static void swap_nbi(T *f, T *d, T v, int pe) {                                 \
      xshmem_##N##_atomic_swap_nbi(f, d, v, pe);                                               \
    }                                                                                          \
  };
XSHMEM_AMO_EXTENDED_TYPES(GT_EXT_TAG)
#undef GT_EXT_TAG

// Single-element p and put, for the 32-bit types of AMO-07.
template <class Tag>
struct RmaOps;
#define GT_RMA_OPS(T, N)                                                      \
  template <>                                                                 \
  struct RmaOps<Tag_##N> {                                                    \
    __device__ static void p(T *d, T v, int pe) { xshmem_##N##_p(d, v, pe); } \
    __device__ static void put(T *d, const T *s, size_t n, int pe) {          \
      xshmem_##N##_put(d, s, n, pe);                                          \
    }                                                                         \
  };
GT_RMA_OPS(uint32_t, uint32)
GT_RMA_OPS(int32_t, int32)
GT_RMA_OPS(unsigned int, uint)
#undef GT_RMA_OPS

template <class Tag>
struct StdOps {
  static constexpr bool kHas = false;
};
#define GT_STD_OPS(T, N)                                                                          \
  template <>                                                                                     \
  struct StdOps<Tag_##N> {                                                                        \
    static constexpr bool kHas = true;                                                            \
    __device__ static T cswap(T *d, T c, T v, int pe) {                                           \
      return xshmem_##N##_atomic_compare_swap(d, c, v, pe);                                       \
    }                                                                                             \
    __device__ static T fetch_inc(T *d, int pe) { return xshmem_##N##_atomic_fetch_inc(d, pe); }  \
    __device__ static void inc(T *d, int pe) { xshmem_##N##_atomic_inc(d, pe); }                  \
    __device__ static T fetch_add(T *d, T v, int pe) {                                            \
      return xshmem_##N##_atomic_fetch_add(d, v, pe);                                             \
    }                                                                                             \
    __device__ static void add(T *d, T v, int pe) { xshmem_##N##_atomic_add(d, v, pe); }          \
    __device__ static void cswap_nbi(T *f, T *d, T c, T v, int pe) {                              \
      xshmem_##N##_atomic_compare_swap_nbi(f, d, c, v, pe);                                       \
    }                                                                                             \
    __device__ static void fetch_inc_nbi(T *f, T *d, int pe) {                                    \
      xshmem_##N##_atomic_fetch_inc_nbi(f, d, pe);                                                \
    }                                                                                             \
    __device__ static void fetch_add_nbi(T *f, T *d, T v, int pe) {                               \
      xshmem_##N##_atomic_fetch_add_nbi(f, d, v, pe);                                             \
    }                                                                                             \
    __device__ static void wait_until(T *w, int cmp, T v) { xshmem_##N##_wait_until(w, cmp, v); } \
    __device__ static int test(T *w, int cmp, T v) { return xshmem_##N##_test(w, cmp, v); }       \
  };
XSHMEM_AMO_STANDARD_TYPES(GT_STD_OPS)
#undef GT_STD_OPS

template <class Tag>
struct BitOps {
  static constexpr bool kHas = false;
};
#define GT_BIT_OPS(T, N)                                                                  \
  template <>                                                                             \
  struct BitOps<Tag_##N> {                                                                \
    static constexpr bool kHas = true;                                                    \
    __device__ static T fetch_and(T *d, T v, int pe) {                                    \
      return xshmem_##N##_atomic_fetch_and(d, v, pe);                                     \
    }                                                                                     \
    __device__ static void and_(T *d, T v, int pe) { xshmem_##N##_atomic_and(d, v, pe); } \
    __device__ static T fetch_or(T *d, T v, int pe) {                                     \
      return xshmem_##N##_atomic_fetch_or(d, v, pe);                                      \
    }                                                                                     \
    __device__ static void or_(T *d, T v, int pe) { xshmem_##N##_atomic_or(d, v, pe); }   \
    __device__ static T fetch_xor(T *d, T v, int pe) {                                    \
      return xshmem_##N##_atomic_fetch_xor(d, v, pe);                                     \
    }                                                                                     \
    __device__ static void xor_(T *d, T v, int pe) { xshmem_##N##_atomic_xor(d, v, pe); } \
    __device__ static void fetch_and_nbi(T *f, T *d, T v, int pe) {                       \
      xshmem_##N##_atomic_fetch_and_nbi(f, d, v, pe);                                     \
    }                                                                                     \
    __device__ static void fetch_or_nbi(T *f, T *d, T v, int pe) {                        \
      xshmem_##N##_atomic_fetch_or_nbi(f, d, v, pe);                                      \
    }                                                                                     \
    __device__ static void fetch_xor_nbi(T *f, T *d, T v, int pe) {                       \
      xshmem_##N##_atomic_fetch_xor_nbi(f, d, v, pe);                                     \
    }                                                                                     \
  };
XSHMEM_AMO_BITWISE_TYPES(GT_BIT_OPS)
#undef GT_BIT_OPS

// ---- Operation model (the CPU version's, on the device) -----------------------------------------

enum class Op : int {
  kFetch,
  kSet,
  kSwap,
  kFetchNbi,
  kSwapNbi,
  kCswap,
  kCswapNbi,
  kFetchInc,
  kInc,
  kFetchIncNbi,
  kFetchAdd,
  kAdd,
  kFetchAddNbi,
  kFetchAnd,
  kAnd,
  kFetchAndNbi,
  kFetchOr,
  kOr,
  kFetchOrNbi,
  kFetchXor,
  kXor,
  kFetchXorNbi,
};
__host__ __device__ inline bool is_fetching(Op op) {
  return op != Op::kSet && op != Op::kInc && op != Op::kAdd && op != Op::kAnd && op != Op::kOr &&
         op != Op::kXor;
}
__host__ __device__ inline bool is_nbi(Op op) {
  return op == Op::kFetchNbi || op == Op::kSwapNbi || op == Op::kCswapNbi ||
         op == Op::kFetchIncNbi || op == Op::kFetchAddNbi || op == Op::kFetchAndNbi ||
         op == Op::kFetchOrNbi || op == Op::kFetchXorNbi;
}

// One step: operands a (value, cond or mask) and b (cswap's new value); the word before (= the
// fetched value) and after.
template <typename T>
struct Step {
  Op op;
  T a, b, old, now;
};

template <typename T>
__host__ __device__ T apply(Op op, T old, T a, T b) {
  switch (op) {
    case Op::kFetch:
    case Op::kFetchNbi:
      return old;
    case Op::kSet:
    case Op::kSwap:
    case Op::kSwapNbi:
      return a;
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case Op::kCswap:
      case Op::kCswapNbi:
        return old == a ? b : old;
      case Op::kFetchInc:
      case Op::kInc:
      case Op::kFetchIncNbi:
        return wrap_add(old, T{1});
      case Op::kFetchAdd:
      case Op::kAdd:
      case Op::kFetchAddNbi:
        return wrap_add(old, a);
      case Op::kFetchAnd:
      case Op::kAnd:
      case Op::kFetchAndNbi:
        return static_cast<T>(old & a);
      case Op::kFetchOr:
      case Op::kOr:
      case Op::kFetchOrNbi:
        return static_cast<T>(old | a);
      case Op::kFetchXor:
      case Op::kXor:
      case Op::kFetchXorNbi:
        return static_cast<T>(old ^ a);
      default:
        break;
    }
  }
  return old;
}

constexpr int kMaxSteps = 32;
template <typename T>
struct Script {
  T cur;
  int n = 0;
  bool overflow = false;
  Step<T> steps[kMaxSteps];
  __host__ __device__ explicit Script(T init) : cur(init) {}
  __host__ __device__ void add(Op op, T a = T{}, T b = T{}) {
    T now = apply(op, cur, a, b);
    if (n < kMaxSteps) {
      steps[n++] = Step<T>{op, a, b, cur, now};
    } else {
      overflow = true;
    }
    cur = now;
  }
};

// Issues one step on `dest` at `pe`; a fetching step leaves the fetched value in *fetch (nbi
// steps: after the next quiet).
template <class Tag, typename T = typename Tag::type>
__device__ void issue(const Step<T> &s, T *dest, int pe, T *fetch) {
  switch (s.op) {
    case Op::kFetch:
      *fetch = Tag::fetch(dest, pe);
      return;
    case Op::kSet:
      Tag::set(dest, s.a, pe);
      return;
    case Op::kSwap:
      *fetch = Tag::swap(dest, s.a, pe);
      return;
    case Op::kFetchNbi:
      Tag::fetch_nbi(fetch, dest, pe);
      return;
    case Op::kSwapNbi:
      Tag::swap_nbi(fetch, dest, s.a, pe);
      return;
    default:
      break;
  }
  if constexpr (StdOps<Tag>::kHas) {
    using S = StdOps<Tag>;
    switch (s.op) {
      case Op::kCswap:
        *fetch = S::cswap(dest, s.a, s.b, pe);
        return;
      case Op::kCswapNbi:
        S::cswap_nbi(fetch, dest, s.a, s.b, pe);
        return;
      case Op::kFetchInc:
        *fetch = S::fetch_inc(dest, pe);
        return;
      case Op::kInc:
        S::inc(dest, pe);
        return;
      case Op::kFetchIncNbi:
        S::fetch_inc_nbi(fetch, dest, pe);
        return;
      case Op::kFetchAdd:
        *fetch = S::fetch_add(dest, s.a, pe);
        return;
      case Op::kAdd:
        S::add(dest, s.a, pe);
        return;
      case Op::kFetchAddNbi:
        S::fetch_add_nbi(fetch, dest, s.a, pe);
        return;
      default:
        break;
    }
  }
  if constexpr (BitOps<Tag>::kHas) {
    using B = BitOps<Tag>;
    switch (s.op) {
      case Op::kFetchAnd:
        *fetch = B::fetch_and(dest, s.a, pe);
        return;
      case Op::kAnd:
        B::and_(dest, s.a, pe);
        return;
      case Op::kFetchAndNbi:
        B::fetch_and_nbi(fetch, dest, s.a, pe);
        return;
      case Op::kFetchOr:
        *fetch = B::fetch_or(dest, s.a, pe);
        return;
      case Op::kOr:
        B::or_(dest, s.a, pe);
        return;
      case Op::kFetchOrNbi:
        B::fetch_or_nbi(fetch, dest, s.a, pe);
        return;
      case Op::kFetchXor:
        *fetch = B::fetch_xor(dest, s.a, pe);
        return;
      case Op::kXor:
        B::xor_(dest, s.a, pe);
        return;
      case Op::kFetchXorNbi:
        B::fetch_xor_nbi(fetch, dest, s.a, pe);
        return;
      default:
        break;
    }
  }
  GT_CHECK(false, static_cast<int>(s.op), -1, -1);  // test bug: op not of this type's class
}

// ---- AMO-02 ----------------------------------------------------------------------------------
// Every thread of every PE owns slot [src][tid] on every PE and runs a ladder of fetching nbi
// operations on it at every PE (itself included): step k to every PE, a fence, step k+1; one
// quiet at the end; then every fetched value is checked, and each owner checks the final slots.
constexpr uint32_t kTagNbi = 0xA002;

template <class Tag>
__device__ Script<typename Tag::type> nbi_script(int src, int dst, int tid) {
  using T = typename Tag::type;
  uint64_t k = 0;
  auto v = [&]() { return from_bits<T>(hv(src, dst, k++, tid, kTagNbi)); };
  Script<T> s(v());
  s.add(Op::kFetchNbi);
  s.add(Op::kSwapNbi, v());
  s.add(Op::kSwapNbi, v());
  if constexpr (StdOps<Tag>::kHas) {
    T a = v();
    s.add(Op::kCswapNbi, s.cur, a);  // succeeds
    a = v();
    s.add(Op::kCswapNbi, wrap_add(s.cur, T{7}), a);  // fails
    s.add(Op::kFetchIncNbi);
    a = v();
    s.add(Op::kFetchAddNbi, a);
    a = v();
    s.add(Op::kCswapNbi, s.cur, a);
  }
  if constexpr (BitOps<Tag>::kHas) {
    s.add(Op::kFetchXorNbi, v());
    s.add(Op::kFetchOrNbi, v());
    s.add(Op::kFetchAndNbi, v());
  }
  s.add(Op::kSwapNbi, v());
  s.add(Op::kFetchNbi);
  return s;
}

template <class Tag>
__global__ void nbi_init_kernel(typename Tag::type *slots, int me, int npes, int nthreads) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < npes * nthreads;
       i += gridDim.x * blockDim.x) {
    slots[i] = nbi_script<Tag>(i / nthreads, me, i % nthreads).steps[0].old;
  }
}

template <class Tag>
__global__ void nbi_ladder_kernel(typename Tag::type *slots, typename Tag::type *fetched, int me,
                                  int npes) {
  using T = typename Tag::type;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int nthreads = gridDim.x * blockDim.x;
  T *slot = slots + size_t(me) * nthreads + tid;
  T *f = fetched + size_t(tid) * npes * kMaxSteps;  // [destination][step]
  const Script<T> probe = nbi_script<Tag>(me, me, tid);
  GT_CHECK(!probe.overflow, tid, 0, 1);
  for (int k = 0; k < probe.n; ++k) {
    for (int j = 0; j < npes; ++j) {
      const int d = (me + j) % npes;
      const Script<T> s = nbi_script<Tag>(me, d, tid);
      issue<Tag>(s.steps[k], slot, d, f + d * kMaxSteps + k);
    }
    xshmem_fence();
  }
  xshmem_quiet();
  for (int d = 0; d < npes; ++d) {
    const Script<T> s = nbi_script<Tag>(me, d, tid);
    for (int k = 0; k < s.n; ++k) {
      const uint64_t got = to_bits(f[d * kMaxSteps + k]), want = to_bits(s.steps[k].old);
      GT_CHECK(got == want, tid * 10000 + d * 100 + k, want, got);
    }
  }
}

template <class Tag>
__global__ void nbi_final_kernel(const typename Tag::type *slots, int me, int npes, int nthreads) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < npes * nthreads;
       i += gridDim.x * blockDim.x) {
    const uint64_t got = to_bits(slots[i]);
    const uint64_t want = to_bits(nbi_script<Tag>(i / nthreads, me, i % nthreads).cur);
    GT_CHECK(got == want, i, want, got);
  }
}

template <class Tag>
void amo02_type() {
  using T = typename Tag::type;
  const int blocks = 2, threads = gt::narrowed(64, 4), nth = blocks * threads;
  Carver c = carver();
  Guarded slots = guarded(c, size_t(gt::npes) * nth * sizeof(T));
  Guarded fetched = guarded(c, size_t(nth) * gt::npes * kMaxSteps * sizeof(T));
  arm(slots, 21);
  arm(fetched, 22);
  nbi_init_kernel<Tag><<<4, 128>>>(slots.as<T>(), gt::me, gt::npes, nth);
  gt::barrier();
  nbi_ladder_kernel<Tag><<<blocks, threads>>>(slots.as<T>(), fetched.as<T>(), gt::me, gt::npes);
  gt::barrier();
  nbi_final_kernel<Tag><<<4, 128>>>(slots.as<T>(), gt::me, gt::npes, nth);
  gt::device_sync("AMO-02 final values");
  check_guards(slots, 21);
  check_guards(fetched, 22);
}

void amo02() {
#define GT_RUN(T, N) amo02_type<Tag_##N>();
  XSHMEM_AMO_EXTENDED_TYPES(GT_RUN)
#undef GT_RUN
}

// ---- AMO-04 ----------------------------------------------------------------------------------
// cswap chain: a counter on PE 0 starts at base-1; participant g (thread t of PE p, g = t*npes+p,
// so the PEs interleave) retries compare_swap(base+g-1 -> base+g) until it succeeds: exactly once
// each, the counter ends at base+N-1. Every fetched value lies at or below the participant's own
// position and never decreases; a repeated attempt fails with a value at or after its own.
// No deadlock: participant g waits only for g-1, which waits for g-2 ... down to g = 0, which
// waits for nothing; all participants are resident (2 blocks of 32 threads per PE), and each poll
// gives up after kTimeoutNs (recorded as a failure). Every step of the chain hands over to the
// other PE (a round trip): where PEs share a GPU the blocks have gt::scaled(32, 4, 4) threads.
template <class Tag>
__global__ void chain_kernel(typename Tag::type *counter, int round, int me, int npes) {
  using T = typename Tag::type;
  using U = std::make_unsigned_t<T>;
  using S = StdOps<Tag>;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const long long per_pe = (long long)gridDim.x * blockDim.x;
  const long long g = (long long)tid * npes + me, n = per_pe * npes;
  const T start = wrap_add(static_cast<T>(round * 1000), static_cast<T>(~static_cast<T>(0)));
  const T expect = wrap_add(start, static_cast<T>(g));
  const T mine = wrap_add(start, static_cast<T>(g + 1));
  auto pos = [&](T v) { return static_cast<U>(static_cast<U>(v) - static_cast<U>(start)); };
  U last = 0;
  long long bad = 0;
  bool done = false;
  const uint64_t t0 = now_ns();
  while (true) {
    const T old = S::cswap(counter, expect, mine, 0);
    const U p = pos(old);
    if (p > static_cast<U>(g) || p < last) ++bad;
    last = p;
    if (old == expect) {
      done = true;
      break;
    }
    if (now_ns() - t0 > kTimeoutNs) break;
    __nanosleep(64);
  }
  GT_CHECK(done, g, (long long)expect, (long long)last);
  GT_CHECK(bad == 0, g, 0, bad);
  const U again = pos(S::cswap(counter, expect, mine, 0));
  GT_CHECK(again >= static_cast<U>(g + 1) && again <= static_cast<U>(n), g, g + 1, again);
}

template <class Tag>
void amo04_chain() {
  using T = typename Tag::type;
  const int blocks = 2, threads = gt::scaled(32, 4, 4);
  const long long n = (long long)blocks * threads * gt::npes;
  Carver c = carver();
  Guarded counter = guarded(c, sizeof(T));
  for (int round = 0; round < 3; ++round) {
    arm(counter, 40 + round);
    const T start = wrap_add(static_cast<T>(round * 1000), static_cast<T>(~static_cast<T>(0)));
    write_local(counter.as<T>(), start);
    gt::barrier();
    chain_kernel<Tag><<<blocks, threads>>>(counter.as<T>(), round, gt::me, gt::npes);
    gt::barrier();
    if (gt::me == 0) {
      const T got = read_local(counter.as<T>()), want = wrap_add(start, static_cast<T>(n));
      GT_CHECK(got == want, round, (long long)want, (long long)got);
    }
    check_guards(counter, 40 + round);
  }
}

// Lock-style retry loop: lane 0 of every warp of every PE takes a spin lock on PE 0
// (compare_swap 0 -> id+1, released with swap), and in the critical section appends its id to a
// history with a plain get/put counter. The counter and the history come out exact.
// No deadlock: the holder never waits (its critical section is gets, puts and a quiet), one thread
// per warp contends, and every acquisition attempt gives up after kTimeoutNs. 25 rounds
// (gt::scaled(25, 5, 2) where PEs share a GPU: every critical section is round trips).
__global__ void lock_kernel(long *lock, long *counter, int *history, int rounds, long total, int me,
                            int npes) {
  if ((threadIdx.x & 31) != 0) return;
  const int warps_per_block = (blockDim.x + 31) / 32;
  const int c = (blockIdx.x * warps_per_block + threadIdx.x / 32) * npes + me;
  long bad_holder = 0, bad_release = 0;
  for (int r = 0; r < rounds; ++r) {
    const uint64_t t0 = now_ns();
    bool got = false;
    while (true) {
      if (xshmem_long_atomic_compare_swap(lock, 0L, long(c + 1), 0) == 0) {
        got = true;
        break;
      }
      if (now_ns() - t0 > kTimeoutNs) break;
      __nanosleep(128);
    }
    GT_CHECK(got, c * 1000 + r, 0, -1);
    if (!got) return;
    if (xshmem_long_atomic_fetch(lock, 0) != c + 1) ++bad_holder;
    const long v = xshmem_long_g(counter, 0);
    if (v >= 0 && v < total) xshmem_int_p(history + v, c, 0);
    xshmem_long_p(counter, v + 1, 0);
    xshmem_quiet();  // the critical section's puts complete before the lock is released
    if (xshmem_long_atomic_swap(lock, 0L, 0) != c + 1) ++bad_release;
  }
  GT_CHECK(bad_holder == 0, c, 0, bad_holder);
  GT_CHECK(bad_release == 0, c, 0, bad_release);
}

__global__ void fill_int_kernel(int *p, size_t n, int v) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    p[i] = v;
  }
}

void amo04_lock() {
  const int blocks = 2, threads = 128, rounds = gt::scaled(25, 5, 2);
  const int per_pe = blocks * threads / 32;
  const int contenders = per_pe * gt::npes;
  const long total = long(rounds) * contenders;
  Carver c = carver();
  Guarded words = guarded(c, 2 * sizeof(long));  // [0] lock, [1] counter
  Guarded history = guarded(c, total * sizeof(int));
  arm(words, 45);
  arm(history, 46);
  long zero[2] = {0, 0};
  GT_CUDA(cudaMemcpy(words.data(), zero, sizeof zero, cudaMemcpyHostToDevice));
  fill_int_kernel<<<8, 256>>>(history.as<int>(), total, -1);
  gt::barrier();
  lock_kernel<<<blocks, threads>>>(words.as<long>(), words.as<long>() + 1, history.as<int>(),
                                   rounds, total, gt::me, gt::npes);
  gt::barrier();
  if (gt::me == 0) {
    long w[2];
    GT_CUDA(cudaMemcpy(w, words.data(), sizeof w, cudaMemcpyDeviceToHost));
    GT_CHECK(w[0] == 0, 0, 0, w[0]);
    GT_CHECK(w[1] == total, 1, total, w[1]);
    std::vector<int> h(total);
    GT_CUDA(cudaMemcpy(h.data(), history.data(), total * sizeof(int), cudaMemcpyDeviceToHost));
    std::vector<int> per(contenders, 0);
    for (long i = 0; i < total; ++i) {
      GT_CHECK(h[i] >= 0 && h[i] < contenders, i, -1, h[i]);
      if (h[i] >= 0 && h[i] < contenders) ++per[h[i]];
    }
    for (int k = 0; k < contenders; ++k) GT_CHECK(per[k] == rounds, 1000000 + k, rounds, per[k]);
  }
  check_guards(words, 45);
  check_guards(history, 46);
}

// ---- AMO-05 ----------------------------------------------------------------------------------
// Bitwise ownership: owner o = t*npes + p (thread t of PE p, t < tpp = min(32, width/npes)) owns
// bit o (round 0) or width-1-o (round 1) of one word on every PE, and sets, clears and toggles it
// there with fetch_or/and/xor (blocking and nbi alternating by thread), then xor/or/and, then
// restores the initial bit. Bits no one owns keep the PE-dependent initial pattern; each fetched
// value shows the owner's bit as the owner last left it. Every phase is its own kernel, followed by
// a barrier, the owner's check of its word, and a barrier.
constexpr uint32_t kTagBits = 0xA005;
constexpr int kOwnPhases = 7;

template <typename T>
__host__ __device__ T own_w0(int pe, int round) {
  return from_bits<T>(hv(pe, pe, 0, round, kTagBits));
}
__host__ __device__ inline unsigned own_bit(int owner, int round, unsigned width) {
  return round == 0 ? unsigned(owner) : width - 1 - unsigned(owner);
}
template <typename T>
__host__ __device__ T own_all(int owners, int round) {
  T a = 0;
  for (int o = 0; o < owners; ++o)
    a = static_cast<T>(a | bit_of<T>(own_bit(o, round, 8 * sizeof(T))));
  return a;
}
// Owners per PE: half the bits of the word are owned, so the other half must never change.
inline int own_tpp(size_t width) {
  if (size_t(gt::npes) > width) return 0;
  return static_cast<int>(std::max<size_t>(1, std::min<size_t>(32, width / (2 * gt::npes))));
}

template <class Tag>
__global__ void own_kernel(typename Tag::type *word, int phase, int round, int me, int npes,
                           int tpp) {
  using T = typename Tag::type;
  using B = BitOps<Tag>;
  const int t = threadIdx.x;
  if (t >= tpp) return;
  const unsigned width = 8 * sizeof(T);
  const int o = t * npes + me;
  const T bit = bit_of<T>(own_bit(o, round, width));
  const T others = static_cast<T>(~own_all<T>(tpp * npes, round));
  for (int j = 0; j < npes; ++j) {
    const int p = (me + j) % npes;
    const T w0 = own_w0<T>(p, round);
    T f{};
    bool before = false;
    switch (phase) {
      case 0:
        if (t % 2 == 0) {
          f = B::fetch_or(word, bit, p);
        } else {
          B::fetch_or_nbi(&f, word, bit, p);
          xshmem_quiet();
        }
        before = (w0 & bit) != 0;
        break;
      case 1:
        if (t % 2 == 1) {
          f = B::fetch_and(word, static_cast<T>(~bit), p);
        } else {
          B::fetch_and_nbi(&f, word, static_cast<T>(~bit), p);
          xshmem_quiet();
        }
        before = true;
        break;
      case 2:
        if (t % 2 == 0) {
          f = B::fetch_xor(word, bit, p);
        } else {
          B::fetch_xor_nbi(&f, word, bit, p);
          xshmem_quiet();
        }
        before = false;
        break;
      case 3:
        B::xor_(word, bit, p);
        break;
      case 4:
        B::or_(word, bit, p);
        break;
      case 5:
        B::and_(word, static_cast<T>(~bit), p);
        break;
      default:
        if (w0 & bit) B::or_(word, bit, p);
        break;
    }
    if (phase < 3) {
      GT_CHECK(static_cast<T>(f & others) == static_cast<T>(w0 & others), o * 100 + p,
               (long long)static_cast<T>(w0 & others), (long long)static_cast<T>(f & others));
      GT_CHECK(((f & bit) != 0) == before, o * 100 + p, before, (f & bit) != 0);
    }
  }
}

template <class Tag>
void amo05_type() {
  using T = typename Tag::type;
  const int tpp = own_tpp(8 * sizeof(T));
  if (tpp == 0) return;  // more PEs than bits: the row asks for arrays beyond 64 PEs
  Carver c = carver();
  Guarded word = guarded(c, sizeof(T));
  for (int round = 0; round < 2; ++round) {
    arm(word, 50 + round);
    const T w0 = own_w0<T>(gt::me, round);
    const T all = own_all<T>(tpp * gt::npes, round);
    const T base = static_cast<T>(w0 & ~all);
    const T expected[kOwnPhases] = {static_cast<T>(base | all),
                                    base,
                                    static_cast<T>(base | all),
                                    base,
                                    static_cast<T>(base | all),
                                    base,
                                    w0};
    write_local(word.as<T>(), w0);
    gt::barrier();
    for (int phase = 0; phase < kOwnPhases; ++phase) {
      own_kernel<Tag><<<1, 32>>>(word.as<T>(), phase, round, gt::me, gt::npes, tpp);
      gt::barrier();
      const T got = read_local(word.as<T>());
      GT_CHECK(got == expected[phase], round * 100 + phase, (long long)expected[phase],
               (long long)got);
      gt::barrier();  // every owner has read its word before the next phase changes it
    }
    check_guards(word, 50 + round);
  }
}

void amo05() {
#define GT_RUN(T, N) amo05_type<Tag_##N>();
  XSHMEM_AMO_BITWISE_TYPES(GT_RUN)
#undef GT_RUN
}

// ---- AMO-06 ----------------------------------------------------------------------------------
// Boundary values: thread t of PE me runs the script on word t at its right neighbour: a
// PE-dependent start moved to -5 by a negative addend, wrap-around of inc/add both ways,
// extremes, compare_swap equal / not equal at the extremes, swap returning the old extreme (and
// the bitwise ops at the extremes for bitwise types). After every step the sender checks the
// fetched value and reads the word back with atomic_fetch; the owner checks the final words.
constexpr uint32_t kTagBound = 0xA006;

template <class Tag>
__device__ Script<typename Tag::type> bound_script(int src, int dst, int tid) {
  using T = typename Tag::type;
  using U = std::make_unsigned_t<T>;
  constexpr bool is_signed = static_cast<T>(-1) < static_cast<T>(0);
  const T hi = is_signed ? static_cast<T>(static_cast<U>(~U{0}) >> 1) : static_cast<T>(~U{0});
  const T lo = is_signed ? static_cast<T>(static_cast<U>(U{1} << (8 * sizeof(T) - 1))) : T{0};
  const T m1 = static_cast<T>(~T{0});  // -1, or the maximum of an unsigned type
  const T x = from_bits<T>(hv(src, dst, 0, tid, kTagBound));
  const T neg_x = static_cast<T>(static_cast<U>(U{0} - static_cast<U>(x)));
  const T minus5 = wrap_add(m1, static_cast<T>(~T{3}));
  Script<T> s(from_bits<T>(hv(src, dst, 1, tid, kTagBound)));
  s.add(Op::kSet, x);
  s.add(Op::kFetchAdd, wrap_add(minus5, neg_x));  // x + (-5 - x) = -5
  s.add(Op::kFetchAdd, T{3});                     // -2
  s.add(Op::kFetchInc);                           // -1
  s.add(Op::kFetchInc);                           // 0 (wraps)
  s.add(Op::kAdd, lo);
  s.add(Op::kFetchAdd, m1);  // min - 1 wraps to max
  s.add(Op::kFetchInc);      // max + 1 wraps to min
  s.add(Op::kCswap, hi, T{0});
  s.add(Op::kCswap, s.cur, hi);
  s.add(Op::kSwap, lo);
  s.add(Op::kSwap, hi);
  s.add(Op::kFetchAdd, hi);  // max + max
  s.add(Op::kSet, lo);
  s.add(Op::kFetchAdd, lo);  // min + min
  s.add(Op::kInc);
  s.add(Op::kCswapNbi, hi, lo);
  s.add(Op::kCswapNbi, s.cur, wrap_add(lo, T{1}));
  s.add(Op::kFetchAddNbi, m1);
  s.add(Op::kSet, wrap_add(hi, m1));
  s.add(Op::kFetchIncNbi);
  s.add(Op::kFetchIncNbi);  // wraps
  if constexpr (BitOps<Tag>::kHas) {
    s.add(Op::kFetchXor, m1);
    s.add(Op::kFetchOr, hi);
    s.add(Op::kFetchAnd, lo);
    s.add(Op::kFetchXor, lo);
    s.add(Op::kFetchAndNbi, m1);
  }
  s.add(Op::kFetch);
  return s;
}

template <class Tag>
__global__ void bound_kernel(typename Tag::type *words, int me, int peer) {
  using T = typename Tag::type;
  const int tid = threadIdx.x;
  T *w = words + tid;
  const Script<T> s = bound_script<Tag>(me, peer, tid);
  GT_CHECK(!s.overflow, tid, 0, 1);
  for (int k = 0; k < s.n; ++k) {
    T f = T{};
    issue<Tag>(s.steps[k], w, peer, &f);
    if (is_nbi(s.steps[k].op)) xshmem_quiet();
    if (is_fetching(s.steps[k].op)) {
      GT_CHECK(f == s.steps[k].old, tid * 100 + k, (long long)s.steps[k].old, (long long)f);
    }
    const T now = Tag::fetch(w, peer);
    GT_CHECK(now == s.steps[k].now, 1000000 + tid * 100 + k, (long long)s.steps[k].now,
             (long long)now);
  }
}

template <class Tag>
__global__ void bound_final_kernel(const typename Tag::type *words, int me, int from) {
  const int tid = threadIdx.x;
  const auto want = bound_script<Tag>(from, me, tid).cur;
  GT_CHECK(words[tid] == want, tid, (long long)want, (long long)words[tid]);
}

template <class Tag>
void amo06_type() {
  using T = typename Tag::type;
  // 8 threads where PEs share a GPU over a proxy transport: every step is a round trip that
  // waits for the other process's time slice (at 32 threads the case took 89 s on one H200).
  const int threads = gt::proxy_narrowed(32, 4);
  Carver c = carver();
  Guarded words = guarded(c, threads * sizeof(T));
  arm(words, 60);
  gt::barrier();
  bound_kernel<Tag><<<1, threads>>>(words.as<T>(), gt::me, gt::peer);
  gt::barrier();
  bound_final_kernel<Tag><<<1, threads>>>(words.as<T>(), gt::me, gt::from);
  gt::device_sync("AMO-06 final values");
  check_guards(words, 60);
}

void amo06() {
#define GT_RUN(T, N) amo06_type<Tag_##N>();
  XSHMEM_AMO_STANDARD_TYPES(GT_RUN)
#undef GT_RUN
}

// ---- AMO-07 ----------------------------------------------------------------------------------
// Adjacent 32-bit words of one 8-byte line, updated concurrently by different PEs with
// system-scope atomics over NVLink (and by the home PE's own atomics): participant o = t*npes+p
// runs fetch_add on the low word of line o at the home PE and, on the high word of line o' (the
// same thread of the right neighbour, so a different PE), mode 0: single-element p, mode 1:
// fetch_add, mode 2: a 1-element put (byte-wise copy on the device path). Every fetched value is
// exact (one writer per word), and the home PE checks every final word and the guards.
constexpr uint32_t kTagAdj = 0xA007;
// Rounds: gt::scaled where PEs share a GPU (their kernels are time-sliced there, not concurrent).
constexpr int kAdjRounds = 1000;

template <typename T>
__host__ __device__ T adj_init(int line, int half) {
  return from_bits<T>(hv(line, half, 0, 0, kTagAdj));
}
template <typename T>
__host__ __device__ T adj_addend(int o, int half, int r) {
  return static_cast<T>(hv(o, half, r, 1, kTagAdj) & 0xFFFFu);
}
template <typename T>
__host__ __device__ T adj_put(int o, int r) {
  return from_bits<T>(hv(o, 2, r, 2, kTagAdj));
}

template <class Tag>
__global__ void adjacent_kernel(typename Tag::type *words, int mode, int home, int me, int npes,
                                int rounds) {
  using T = typename Tag::type;
  using S = StdOps<Tag>;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int o = t * npes + me, ro = t * npes + (me + 1) % npes;
  T *low = words + 2 * o;
  T *high = words + 2 * ro + 1;
  T cur_low = adj_init<T>(o, 0), cur_high = adj_init<T>(ro, 1);
  for (int r = 0; r < rounds; ++r) {
    const T a = adj_addend<T>(o, 0, r);
    const T f = S::fetch_add(low, a, home);
    GT_CHECK(f == cur_low, o * 10000 + r, (long long)cur_low, (long long)f);
    cur_low = wrap_add(cur_low, a);
    if (mode == 0) {
      RmaOps<Tag>::p(high, adj_put<T>(o, r), home);
    } else if (mode == 1) {
      const T b = adj_addend<T>(o, 1, r);
      const T h = S::fetch_add(high, b, home);
      GT_CHECK(h == cur_high, 100000000 + o * 10000 + r, (long long)cur_high, (long long)h);
      cur_high = wrap_add(cur_high, b);
    } else {
      const T v = adj_put<T>(o, r);
      RmaOps<Tag>::put(high, &v, 1, home);
    }
  }
}

template <class Tag>
void amo07_case(int mode, int home) {
  using T = typename Tag::type;
  static_assert(sizeof(T) == 4, "AMO-07 is about adjacent 32-bit words");
  // 16 threads a block where PEs share a GPU over a proxy transport (each fetch_add of the peer's
  // is a round trip through the proxies and the GPU's time slices).
  const int blocks = 2, threads = gt::proxy_narrowed(128, 8), rounds = gt::scaled(kAdjRounds);
  const int lines = blocks * threads * gt::npes;
  Carver c = carver();
  Guarded words = guarded(c, size_t(lines) * 2 * sizeof(T));
  arm(words, 70 + mode);
  std::vector<T> init(2 * size_t(lines));
  for (int x = 0; x < lines; ++x) {
    init[2 * x] = adj_init<T>(x, 0);
    init[2 * x + 1] = adj_init<T>(x, 1);
  }
  if (gt::me == home) {
    GT_CUDA(cudaMemcpy(words.data(), init.data(), init.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  gt::barrier();
  adjacent_kernel<Tag><<<blocks, threads>>>(words.as<T>(), mode, home, gt::me, gt::npes, rounds);
  gt::barrier();
  if (gt::me == home) {
    std::vector<T> got(init.size());
    GT_CUDA(cudaMemcpy(got.data(), words.data(), got.size() * sizeof(T), cudaMemcpyDeviceToHost));
    for (int x = 0; x < lines; ++x) {
      const int t = x / gt::npes, p = x % gt::npes;
      const int writer = t * gt::npes + (p + gt::npes - 1) % gt::npes;  // updates x's high word
      T lo = init[2 * x], hi = init[2 * x + 1];
      for (int r = 0; r < rounds; ++r) {
        lo = wrap_add(lo, adj_addend<T>(x, 0, r));
        if (mode == 1) hi = wrap_add(hi, adj_addend<T>(writer, 1, r));
      }
      if (mode != 1) hi = adj_put<T>(writer, rounds - 1);
      GT_CHECK(got[2 * x] == lo, 2 * x, (long long)lo, (long long)got[2 * x]);
      GT_CHECK(got[2 * x + 1] == hi, 2 * x + 1, (long long)hi, (long long)got[2 * x + 1]);
    }
  }
  check_guards(words, 70 + mode);
}

template <class Tag>
void amo07(int mode) {
  amo07_case<Tag>(mode, 0);
  amo07_case<Tag>(mode, gt::npes - 1);
}

// ---- AMO-08 ----------------------------------------------------------------------------------
// fetch/set/swap (blocking and nbi) on float and double with -0.0, quiet and signalling NaNs with
// payloads (some PE-dependent, negative ones too), denormals, +-inf: every fetched value and the
// final word (checked by the owner) are bit-exact. Thread t works on word t at the right
// neighbour, walking the special values from a thread- and PE-dependent offset, twice.
constexpr uint32_t kTagFloat = 0xA008;
constexpr int kSpecials = 13;

template <typename T>
__host__ __device__ T special(int src, int t, int i) {
  const uint64_t h = hv(src, t, i, 0, kTagFloat);
  const int k = (i + t + src) % kSpecials;
  if constexpr (sizeof(T) == 4) {
    const uint32_t bits[kSpecials] = {
        0x00000000u,                                         // +0
        0x80000000u,                                         // -0
        0x7F800000u,                                         // +inf
        0xFF800000u,                                         // -inf
        0x7FC00000u,                                         // default quiet NaN
        0xFFC00000u,                                         // negative quiet NaN
        0x7FC00000u | uint32_t(h & 0x3FFFFFu),               // quiet NaN, payload
        0x7F800000u | uint32_t(h & 0x3FFFFFu) | 1u,          // signalling NaN, payload
        0xFF800000u | uint32_t((h >> 22) & 0x3FFFFFu) | 1u,  // negative signalling NaN
        0x00000001u,                                         // smallest denormal
        0x807FFFFFu,                                         // largest negative denormal
        (uint32_t(h >> 40) & 0x7FFFFFu) | 1u,                // denormal, payload
        0x3F800000u ^ uint32_t(h & 0xFFu)};                  // a normal number
    return from_bits<T>(bits[k]);
  } else {
    const uint64_t m = 0xFFFFFFFFFFFFFull;  // 52 mantissa bits
    const uint64_t bits[kSpecials] = {0ull,
                                      0x8000000000000000ull,
                                      0x7FF0000000000000ull,
                                      0xFFF0000000000000ull,
                                      0x7FF8000000000000ull,
                                      0xFFF8000000000000ull,
                                      0x7FF8000000000000ull | (h & (m >> 1)),
                                      0x7FF0000000000000ull | (h & (m >> 1)) | 1ull,
                                      0xFFF0000000000000ull | ((h >> 11) & (m >> 1)) | 1ull,
                                      1ull,
                                      0x800FFFFFFFFFFFFFull,
                                      (h & m) | 1ull,
                                      0x3FF0000000000000ull ^ (h & 0xFFFFull)};
    return from_bits<T>(bits[k]);
  }
}
constexpr int kFloatSteps = 2 * kSpecials;

template <class Tag>
__global__ void float_kernel(typename Tag::type *words, int me, int peer) {
  using T = typename Tag::type;
  const int t = threadIdx.x;
  T *w = words + t;
  T prev = special<T>(me, t, 0);
  Tag::set(w, prev, peer);
  T f = Tag::fetch(w, peer);
  GT_CHECK(to_bits(f) == to_bits(prev), t * 100, to_bits(prev), to_bits(f));
  for (int i = 1; i < kFloatSteps; ++i) {
    const T v = special<T>(me, t, i);
    switch (i % 4) {
      case 0:
        Tag::set(w, v, peer);
        f = Tag::fetch(w, peer);
        GT_CHECK(to_bits(f) == to_bits(v), t * 100 + i, to_bits(v), to_bits(f));
        break;
      case 1:
        f = Tag::swap(w, v, peer);
        GT_CHECK(to_bits(f) == to_bits(prev), t * 100 + i, to_bits(prev), to_bits(f));
        break;
      case 2:
        Tag::swap_nbi(&f, w, v, peer);
        xshmem_quiet();
        GT_CHECK(to_bits(f) == to_bits(prev), t * 100 + i, to_bits(prev), to_bits(f));
        break;
      default:
        Tag::set(w, v, peer);
        Tag::fetch_nbi(&f, w, peer);
        xshmem_quiet();
        GT_CHECK(to_bits(f) == to_bits(v), t * 100 + i, to_bits(v), to_bits(f));
        break;
    }
    prev = v;
  }
}

template <class Tag>
__global__ void float_final_kernel(const typename Tag::type *words, int me, int from) {
  using T = typename Tag::type;
  const int t = threadIdx.x;
  const T want = special<T>(from, t, kFloatSteps - 1);
  GT_CHECK(to_bits(words[t]) == to_bits(want), t, to_bits(want), to_bits(words[t]));
  (void)me;
}

template <class Tag>
void amo08_type() {
  using T = typename Tag::type;
  const int threads = 32;
  Carver c = carver();
  Guarded words = guarded(c, threads * sizeof(T));
  arm(words, 80);
  gt::barrier();
  float_kernel<Tag><<<1, threads>>>(words.as<T>(), gt::me, gt::peer);
  gt::barrier();
  float_final_kernel<Tag><<<1, threads>>>(words.as<T>(), gt::me, gt::from);
  gt::device_sync("AMO-08 final values");
  check_guards(words, 80);
}

// ---- AMO-09 ----------------------------------------------------------------------------------
// (a) AMOs on a word the owner waits on: blocks 1.. of every PE run add/fetch_add/inc/fetch_inc
// on a word at the right neighbour; block 0's 32 threads wait_until(GE, total*(i+1)/64) on the
// own word while the left neighbour's AMOs arrive, check the value they return with, and thread
// 0 then polls (bounded) for the exact total and calls wait_until(EQ, total).
// No deadlock: the adders never wait; the waiters wait only for thresholds up to half the total,
// and the exact-total wait runs after a bounded poll has seen it.
constexpr uint32_t kTagWait = 0xA009;
constexpr int kWaitOps = 64;  // per adder: gt::scaled(kWaitOps, 10, 8) where PEs share a GPU

template <typename T>
__host__ __device__ T wait_addend(int pe, int t, int k) {
  return (k % 4 < 2) ? static_cast<T>((hv(pe, t, k, 0, kTagWait) & 0xFFu) + 1) : T{1};
}

template <class Tag>
__global__ void wait_amo_kernel(typename Tag::type *word, typename Tag::type total_from, int me,
                                int peer, int ops) {
  using T = typename Tag::type;
  using S = StdOps<Tag>;
  if (blockIdx.x == 0) {
    const int i = threadIdx.x;
    if (i >= 32) return;
    const T threshold = static_cast<T>(total_from / 64 * (i + 1));
    S::wait_until(word, XSHMEM_CMP_GE, threshold);
    const T seen = Tag::fetch(word, me);
    GT_CHECK(seen >= threshold, i, (long long)threshold, (long long)seen);
    GT_CHECK(S::test(word, XSHMEM_CMP_GE, threshold) == 1, i, 1, 0);
    if (i == 0) {
      const uint64_t t0 = now_ns();
      bool reached = false;
      while (!(reached = S::test(word, XSHMEM_CMP_EQ, total_from) != 0)) {
        if (now_ns() - t0 > kTimeoutNs) break;
        __nanosleep(256);
      }
      const T now = Tag::fetch(word, me);
      GT_CHECK(reached, -1, (long long)total_from, (long long)now);
      if (reached) {
        S::wait_until(word, XSHMEM_CMP_EQ, total_from);
        GT_CHECK(now == total_from, -2, (long long)total_from, (long long)now);
      }
    }
    return;
  }
  const int t = (blockIdx.x - 1) * blockDim.x + threadIdx.x;
  T last{};
  bool have_last = false;
  for (int k = 0; k < ops; ++k) {
    const T a = wait_addend<T>(me, t, k);
    T f{};
    bool fetched = true;
    switch (k % 4) {
      case 0:
        S::add(word, a, peer);
        fetched = false;
        break;
      case 1:
        f = S::fetch_add(word, a, peer);
        break;
      case 2:
        S::inc(word, peer);
        fetched = false;
        break;
      default:
        f = S::fetch_inc(word, peer);
        break;
    }
    if (fetched) {
      // This thread's own earlier additions are already in: its fetched values grow.
      GT_CHECK(!have_last || f > last, t * 100 + k, (long long)last, (long long)f);
      last = f;
      have_last = true;
    }
  }
}

template <class Tag>
void amo09_wait() {
  using T = typename Tag::type;
  // A blocking AMO at the peer each, and at least 8 (the four operations rotate).
  // 16 threads a block where PEs share a GPU over a proxy transport (round trips, as AMO-07; the
  // waiter's 5 s deadline for the last adds must hold).
  const int adder_blocks = 2, threads = gt::proxy_narrowed(128, 8),
            ops = gt::scaled(kWaitOps, 10, 8);
  T total = 0;
  for (int t = 0; t < adder_blocks * threads; ++t) {
    for (int k = 0; k < ops; ++k) total = wrap_add(total, wait_addend<T>(gt::from, t, k));
  }
  Carver c = carver();
  Guarded word = guarded(c, sizeof(T));
  arm(word, 90);
  write_local(word.as<T>(), T{0});
  gt::barrier();
  wait_amo_kernel<Tag><<<1 + adder_blocks, threads>>>(word.as<T>(), total, gt::me, gt::peer, ops);
  gt::barrier();
  const T got = read_local(word.as<T>());
  GT_CHECK(got == total, 0, (long long)total, (long long)got);
  check_guards(word, 90);
}

// (c) Host-issued and device-issued AMOs on one word (the documented rule: both are system-scope
// atomics on the GPU heap — the host API runs them as one-thread kernels — so they are one
// atomicity domain). A kernel on every PE runs fetch_add(1)/fetch_inc on a counter at PE 0 for
// ~20 ms (or kMixMax operations per thread) on a non-blocking stream, while the host of every PE
// issues kHostOps fetch_inc/fetch_add/fetch_add_nbi on the same counter. PE 0 gathers every
// fetched value: they are a permutation of 0..total-1, and the counter ends at total.
// No deadlock: nothing waits on anything; if the host's AMO kernels could not run beside the test
// kernel they would run after it (no overlap, still a valid run; PE 0 reports whether the host
// operations overlapped the kernel).
constexpr int kMixMax = 8192;
constexpr int kHostOps = 300;  // gt::scaled(kHostOps, 10, 8) where PEs share a GPU

template <typename T>
__global__ void mixed_kernel(T *counter, T *results, unsigned *counts, uint64_t duration_ns) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t t0 = now_ns();
  int k = 0;
  T last{};
  long long bad = 0;
  for (; k < kMixMax; ++k) {
    if (now_ns() - t0 > duration_ns) break;
    T v;
    if constexpr (sizeof(T) == 4) {
      v = (k % 2) ? xshmem_uint32_atomic_fetch_inc(reinterpret_cast<uint32_t *>(counter), 0)
                  : xshmem_uint32_atomic_fetch_add(reinterpret_cast<uint32_t *>(counter), 1u, 0);
    } else {
      v = (k % 2) ? xshmem_uint64_atomic_fetch_inc(reinterpret_cast<uint64_t *>(counter), 0)
                  : xshmem_uint64_atomic_fetch_add(reinterpret_cast<uint64_t *>(counter), 1ull, 0);
    }
    if (k > 0 && !(v > last)) ++bad;
    last = v;
    results[size_t(t) * kMixMax + k] = v;
  }
  counts[t] = static_cast<unsigned>(k);
  GT_CHECK(bad == 0, t, 0, bad);
}

template <typename T>
T host_fetch_op(T *counter, int k) {
  T v{};
  if constexpr (sizeof(T) == 4) {
    uint32_t *c = reinterpret_cast<uint32_t *>(counter);
    switch (k % 3) {
      case 0:
        v = xshmem_uint32_atomic_fetch_inc(c, 0);
        break;
      case 1:
        v = xshmem_uint32_atomic_fetch_add(c, 1u, 0);
        break;
      default:
        xshmem_uint32_atomic_fetch_add_nbi(reinterpret_cast<uint32_t *>(&v), c, 1u, 0);
        xshmem_quiet();
        break;
    }
  } else {
    uint64_t *c = reinterpret_cast<uint64_t *>(counter);
    switch (k % 3) {
      case 0:
        v = xshmem_uint64_atomic_fetch_inc(c, 0);
        break;
      case 1:
        v = xshmem_uint64_atomic_fetch_add(c, 1ull, 0);
        break;
      default:
        xshmem_uint64_atomic_fetch_add_nbi(reinterpret_cast<uint64_t *>(&v), c, 1ull, 0);
        xshmem_quiet();
        break;
    }
  }
  return v;
}

template <typename T>
void amo09_mixed() {
  // Each host AMO is a one-thread kernel, which waits for a time slice where PEs share a GPU.
  const int threads = 64, host_ops = gt::scaled(kHostOps, 10, 8);
  Carver c = carver();
  Guarded counter = guarded(c, sizeof(T));
  Guarded results = guarded(c, size_t(threads) * kMixMax * sizeof(T));
  Guarded counts = guarded(c, threads * sizeof(unsigned));
  Guarded host_results = guarded(c, host_ops * sizeof(T));
  arm(counter, 95);
  arm(results, 96);
  arm(counts, 97);
  arm(host_results, 98);
  write_local(counter.as<T>(), T{0});
  gt::barrier();
  cudaStream_t stream;
  GT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  mixed_kernel<T><<<1, threads, 0, stream>>>(counter.as<T>(), results.as<T>(),
                                             counts.as<unsigned>(), 20000000ull);
  GT_CUDA(cudaGetLastError());
  std::vector<T> mine(host_ops);
  for (int k = 0; k < host_ops; ++k) {
    mine[k] = host_fetch_op<T>(counter.as<T>(), k);
    GT_CHECK(k == 0 || mine[k] > mine[k - 1], k, (long long)mine[k - (k > 0)], (long long)mine[k]);
  }
  const bool overlapped = cudaStreamQuery(stream) == cudaErrorNotReady;
  (void)cudaGetLastError();  // cudaErrorNotReady is not an error
  GT_CUDA(cudaStreamSynchronize(stream));
  GT_CUDA(cudaStreamDestroy(stream));
  GT_CUDA(
      cudaMemcpy(host_results.data(), mine.data(), host_ops * sizeof(T), cudaMemcpyHostToDevice));
  std::vector<unsigned char> overlap_all(gt::npes);
  unsigned char ov = overlapped ? 1 : 0;
  if (xshmemx_oob_allgather(&ov, overlap_all.data(), 1) != 0) {
    fprintf(stderr, "pe %d: out-of-band allgather failed\n", gt::me);
    exit(1);
  }
  gt::barrier();
  if (gt::me == 0) {
    std::vector<T> all;
    for (int p = 0; p < gt::npes; ++p) {
      std::vector<unsigned> n(threads);
      std::vector<T> res(size_t(threads) * kMixMax), hres(host_ops);
      xshmem_getmem(n.data(), counts.data(), threads * sizeof(unsigned), p);
      xshmem_getmem(res.data(), results.data(), res.size() * sizeof(T), p);
      xshmem_getmem(hres.data(), host_results.data(), host_ops * sizeof(T), p);
      for (int t = 0; t < threads; ++t) {
        GT_CHECK(n[t] <= unsigned(kMixMax), t, kMixMax, n[t]);
        for (unsigned k = 0; k < n[t] && k < unsigned(kMixMax); ++k) {
          all.push_back(res[size_t(t) * kMixMax + k]);
        }
      }
      all.insert(all.end(), hres.begin(), hres.end());
    }
    const T final_value = read_local(counter.as<T>());
    GT_CHECK(final_value == T(all.size()), -1, (long long)all.size(), (long long)final_value);
    std::vector<unsigned char> seen(all.size(), 0);
    for (size_t i = 0; i < all.size(); ++i) {
      const bool ok = all[i] < all.size() && !seen[all[i]];
      GT_CHECK(ok, i, -1, (long long)all[i]);
      if (all[i] < all.size()) seen[all[i]] = 1;
    }
    int n_overlapped = 0;
    for (unsigned char o : overlap_all) n_overlapped += o;
    printf(
        "     AMO-09 %zu-bit: %zu fetched values; host AMOs overlapped the kernel on %d of %d "
        "PEs\n",
        8 * sizeof(T), all.size(), n_overlapped, gt::npes);
  }
  check_guards(counter, 95);
  check_guards(results, 96);
  check_guards(counts, 97);
  check_guards(host_results, 98);
}

}  // namespace

int main() {
  gt::start("gpu_amo");
  g_area = static_cast<uint8_t *>(xshmem_malloc(kAreaBytes));
  if (g_area == nullptr) return 1;
  void *area = g_area;
  gt::run("AMO-01 ops x types T", [&] { amo01(static_cast<uint64_t *>(area), false); });
  gt::run("AMO-01 ops x types H (host on GPU heap)",
          [&] { amo01(static_cast<uint64_t *>(area), true); });
  gt::run("AMO-02 nbi fetching ladders, all types T", amo02);
  gt::run("AMO-03 fetch_add uniqueness 32-bit T", [&] { amo03<uint32_t>(area, false); });
  gt::run("AMO-03 fetch_inc uniqueness 64-bit T", [&] { amo03<uint64_t>(area, true); });
  gt::run("AMO-04 cswap chain long T", amo04_chain<Tag_long>);
  gt::run("AMO-04 cswap chain int32 T", amo04_chain<Tag_int32>);
  gt::run("AMO-04 cswap chain uint64 T", amo04_chain<Tag_uint64>);
  gt::run("AMO-04 cswap lock retry loop T", amo04_lock);
  gt::run("AMO-05 bitwise ownership, bitwise types T", amo05);
  gt::run("AMO-06 boundary values, standard types T", amo06);
  const char *modes[] = {"amo+p", "amo+amo", "amo+put"};
  for (int mode = 0; mode < 3; ++mode) {
    char name[96];
    snprintf(name, sizeof name, "AMO-07 adjacent words %s uint32 T", modes[mode]);
    gt::run(name, [&] { amo07<Tag_uint32>(mode); });
    snprintf(name, sizeof name, "AMO-07 adjacent words %s int32 T", modes[mode]);
    gt::run(name, [&] { amo07<Tag_int32>(mode); });
    snprintf(name, sizeof name, "AMO-07 adjacent words %s uint T", modes[mode]);
    gt::run(name, [&] { amo07<Tag_uint>(mode); });
  }
  gt::run("AMO-08 float bit-exact T", amo08_type<Tag_float>);
  gt::run("AMO-08 double bit-exact T", amo08_type<Tag_double>);
  gt::run("AMO-09 AMOs under wait_until uint64 T", amo09_wait<Tag_uint64>);
  gt::run("AMO-09 AMOs under wait_until int32 T", amo09_wait<Tag_int32>);
  gt::run("AMO-09 host+device AMOs 32-bit T", amo09_mixed<uint32_t>);
  gt::run("AMO-09 host+device AMOs 64-bit T", amo09_mixed<uint64_t>);
  xshmem_free(g_area);
  return gt::finish();
}
