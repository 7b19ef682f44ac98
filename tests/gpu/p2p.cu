// GPU conformance: P2P-01 (wait_until with the 6 comparisons x every point-to-point type, trap
// values where signed and unsigned comparisons disagree; the waited word is updated by the
// left neighbour with atomic_set or p), plus the test/_all/_any/_some device forms and the host
// API's waits on GPU heaps.
//
// Every (type, cmp) case has its own word, initialised so that the comparison fails. A waiter
// returning early is caught: after the wait the word must hold the final value (the only value
// that satisfies the comparison). Block 0 waits on this PE's words; block 1 updates the right
// neighbour's words one by one, after a short delay.
#include "gpu_test.h"

namespace {

constexpr int kCmps = 6;

// (initial, comparison value, final) for cmp on T: initial fails, final holds; for signed types
// the values straddle zero through -1 (all ones), for unsigned ones through the maximum.
template <typename T>
struct trio {
  T init, value, final_value;
};
template <typename T>
__host__ __device__ trio<T> trio_for(int cmp) {
  const T ones = static_cast<T>(~static_cast<T>(0));
  const bool is_signed = static_cast<T>(-1) < static_cast<T>(0);
  if (is_signed) {
    switch (cmp) {
      case XSHMEM_CMP_EQ:
        return {static_cast<T>(0), ones, ones};
      case XSHMEM_CMP_NE:
        return {ones, ones, static_cast<T>(0)};
      case XSHMEM_CMP_GT:
        return {ones, static_cast<T>(0), static_cast<T>(1)};  // -1 > 0 false
      case XSHMEM_CMP_GE:
        return {ones, static_cast<T>(0), static_cast<T>(0)};
      case XSHMEM_CMP_LT:
        return {static_cast<T>(1), static_cast<T>(0), ones};  // -1 < 0
      default:
        return {static_cast<T>(1), static_cast<T>(0), ones};  // LE
    }
  }
  switch (cmp) {
    case XSHMEM_CMP_EQ:
      return {static_cast<T>(0), ones, ones};
    case XSHMEM_CMP_NE:
      return {ones, ones, static_cast<T>(1)};
    case XSHMEM_CMP_GT:
      return {static_cast<T>(1), static_cast<T>(1), ones};  // max > 1
    case XSHMEM_CMP_GE:
      return {static_cast<T>(0), ones, ones};
    case XSHMEM_CMP_LT:
      return {ones, static_cast<T>(1), static_cast<T>(0)};
    default:
      return {ones, static_cast<T>(0), static_cast<T>(0)};  // LE
  }
}

// Words are 8 bytes apart; type t's cases at [t * kCmps, t * kCmps + kCmps).
#define GT_P2P_KERNELS(T, N)                                                                     \
  __global__ void init_##N(uint64_t *words, int t) {                                             \
    for (int c = 0; c < kCmps; ++c) {                                                            \
      *reinterpret_cast<T *>(words + t * kCmps + c) = trio_for<T>(c).init;                       \
    }                                                                                            \
  }                                                                                              \
  __global__ void wait_##N(uint64_t *words, int t, int peer) {                                   \
    for (int c = 0; c < kCmps; ++c) {                                                            \
      T *w = reinterpret_cast<T *>(words + t * kCmps + c);                                       \
      trio<T> v = trio_for<T>(c);                                                                \
      if (blockIdx.x == 0) {                                                                     \
        xshmem_##N##_wait_until(w, c, v.value);                                                  \
        T seen = *reinterpret_cast<volatile T *>(w);                                             \
        GT_CHECK(seen == v.final_value, t * 100 + c, (long long)v.final_value, (long long)seen); \
        GT_CHECK(xshmem_##N##_test(w, c, v.value) == 1, t * 100 + c, 1, 0);                      \
      } else {                                                                                   \
        __nanosleep(2000);                                                                       \
        if (c % 2 == 0) {                                                                        \
          xshmem_##N##_p(w, v.final_value, peer);                                                \
        } else {                                                                                 \
          gt_set_##N(w, v.final_value, peer);                                                    \
        }                                                                                        \
      }                                                                                          \
    }                                                                                            \
  }

// atomic_set where the type has it (the extended AMO types), p otherwise (short, ushort).
#define GT_SET_AMO(T, N)                          \
  __device__ void gt_set_##N(T *w, T v, int pe) { \
    xshmem_##N##_atomic_set(w, v, pe);            \
  }
XSHMEM_AMO_STANDARD_TYPES(GT_SET_AMO)
#undef GT_SET_AMO
__device__ void gt_set_short(short *w, short v, int pe) {
  xshmem_short_p(w, v, pe);
}
__device__ void gt_set_ushort(unsigned short *w, unsigned short v, int pe) {
  xshmem_ushort_p(w, v, pe);
}

XSHMEM_P2P_TYPES(GT_P2P_KERNELS)
#undef GT_P2P_KERNELS

void p2p01(uint64_t *words) {
  int t = 0;
#define GT_RUN(T, N)                      \
  init_##N<<<1, 1>>>(words, t);           \
  gt::barrier();                          \
  wait_##N<<<2, 1>>>(words, t, gt::peer); \
  gt::device_sync("wait " #N);            \
  ++t;
  XSHMEM_P2P_TYPES(GT_RUN)
#undef GT_RUN
}

// The set forms on the device: 8 int words; the left neighbour sets them in a known order.
__global__ void sets_kernel(int *ivars, int peer) {
  const size_t n = 8;
  if (blockIdx.x == 1) {
    for (int i = 7; i >= 0; --i) {
      __nanosleep(1000);
      xshmem_int_atomic_set(ivars + i, i + 1, peer);
    }
    return;
  }
  int status[8] = {0, 0, 0, 0, 0, 0, 0, 1};  // index 7 excluded
  size_t first = xshmem_int_wait_until_any(ivars, n, status, XSHMEM_CMP_GT, 0);
  GT_CHECK(first < 7, 0, 7, first);
  GT_CHECK(ivars[first] == int(first) + 1, 1, first + 1, ivars[first]);
  size_t idx[8];
  size_t some = xshmem_int_wait_until_some(ivars, n, idx, status, XSHMEM_CMP_GT, 0);
  GT_CHECK(some >= 1 && some <= 7, 2, 1, some);
  for (size_t k = 0; k < some; ++k) GT_CHECK(ivars[idx[k]] == int(idx[k]) + 1, 3, k, idx[k]);
  xshmem_int_wait_until_all(ivars, n, status, XSHMEM_CMP_GT, 0);
  GT_CHECK(xshmem_int_test_all(ivars, n, nullptr, XSHMEM_CMP_GT, 0) == 1, 4, 1, 0);
  int values[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  xshmem_int_wait_until_all_vector(ivars, n, nullptr, XSHMEM_CMP_EQ, values);
  GT_CHECK(xshmem_int_test_any_vector(ivars, n, nullptr, XSHMEM_CMP_NE, values) == SIZE_MAX, 5, -1,
           0);
  GT_CHECK(xshmem_int_test_some_vector(ivars, n, idx, nullptr, XSHMEM_CMP_EQ, values) == 8, 6, 8,
           0);
  GT_CHECK(xshmem_int_test_any(ivars, n, status, XSHMEM_CMP_EQ, 8) == SIZE_MAX, 7, -1, 0);
}

void sets(int *ivars) {
  GT_CUDA(cudaMemset(ivars, 0, 8 * sizeof(int)));
  gt::barrier();
  sets_kernel<<<2, 1>>>(ivars, gt::peer);
  gt::device_sync("sets kernel");
}

// Host waits on a GPU heap: a kernel of the left neighbour sets the words after a delay.
__global__ void late_set_kernel(long *w, int peer) {
  for (int i = 0; i < 4; ++i) {
    __nanosleep(100000);
    xshmem_long_atomic_set(w + i, long(-1 - i), peer);
  }
}

void host_waits(long *w) {
  GT_CUDA(cudaMemset(w, 0, 4 * sizeof(long)));
  gt::barrier();
  cudaStream_t s;
  GT_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  late_set_kernel<<<1, 1, 0, s>>>(w, gt::peer);
  xshmem_long_wait_until(w, XSHMEM_CMP_LT, 0L);
  long v = xshmem_long_atomic_fetch(w, gt::me);
  GT_CHECK(v == -1, 0, -1, v);
  xshmem_long_wait_until_all(w, 4, nullptr, XSHMEM_CMP_LT, 0L);
  GT_CHECK(xshmem_long_test_all(w, 4, nullptr, XSHMEM_CMP_LT, 0L) == 1, 1, 1, 0);
  size_t idx[4];
  GT_CHECK(xshmem_long_test_some(w, 4, idx, nullptr, XSHMEM_CMP_LE, -3L) == 2, 2, 2, 0);
  GT_CHECK(idx[0] == 2 && idx[1] == 3, 3, 2, idx[0]);
  GT_CHECK(xshmem_long_test(w + 3, XSHMEM_CMP_EQ, -4L) == 1, 4, 1, 0);
  GT_CUDA(cudaStreamSynchronize(s));
  GT_CUDA(cudaStreamDestroy(s));
}

}  // namespace

int main() {
  gt::start("gpu_p2p");
  void *area = xshmem_malloc(1 << 16);
  if (area == nullptr) return 1;
  gt::run("P2P-01 wait_until 6 cmps x 14 types T", [&] { p2p01(static_cast<uint64_t *>(area)); });
  gt::run("P2P-01 wait_until_any/some/all(+vector), test T",
          [&] { sets(static_cast<int *>(area)); });
  gt::run("P2P-01 wait_until/test on GPU heap H", [&] { host_waits(static_cast<long *>(area)); });
  xshmem_free(area);
  return gt::finish();
}
