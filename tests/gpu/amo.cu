// GPU conformance: AMO-01 (every op x every type, fetched and final values exact; device thread
// and host API on GPU heaps) and AMO-03 (fetch_add/fetch_inc uniqueness from every device
// thread of every PE on PE 0, 32 and 64 bits).
//
// AMO-01: PE me runs the op sequence on word `me` of its right neighbour, so every word has one
// writer; fetched values are checked where they return, final values by the owner.
#include <math.h>

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
  const int blocks = 16, threads = 256;
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

}  // namespace

int main() {
  gt::start("gpu_amo");
  const size_t area_bytes = 1 << 20;
  void *area = xshmem_malloc(area_bytes);
  if (area == nullptr) return 1;
  gt::run("AMO-01 ops x types T", [&] { amo01(static_cast<uint64_t *>(area), false); });
  gt::run("AMO-01 ops x types H (host on GPU heap)",
          [&] { amo01(static_cast<uint64_t *>(area), true); });
  gt::run("AMO-03 fetch_add uniqueness 32-bit T", [&] { amo03<uint32_t>(area, false); });
  gt::run("AMO-03 fetch_inc uniqueness 64-bit T", [&] { amo03<uint64_t>(area, true); });
  xshmem_free(area);
  return gt::finish();
}
