// GPU conformance: P2P-01 (wait_until with the 6 comparisons x every point-to-point type, trap
// values where signed and unsigned comparisons disagree; the waited word is updated by the
// left neighbour with atomic_set or p), plus the test/_all/_any/_some device forms and the host
// API's waits on GPU heaps.
//
// Every (type, cmp) case has its own word, initialised so that the comparison fails. A waiter
// returning early is caught: after the wait the word must hold the final value (the only value
// that satisfies the comparison). Block 0 waits on this PE's words; block 1 updates the right
// neighbour's words one by one, after a short delay.
//
// P2P-02 (device _all/_any/_some and _vector waits: masks, empty sets, unique indices), P2P-03
// (device test family; test never true before the update, payload complete once it is) and
// P2P-04 (a device thread waits on words updated by p, AMO and put_signal while the rest of the
// kernel keeps issuing RMA; T/W/B = the storm by threads, warps or blocks) follow below.
#include <vector>

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

// ---- Shared by P2P-02/03/04 ---------------------------------------------------------------------

using gt::mix;

// The device API of one point-to-point type, for templates.
#define GT_P2P_TAG(T, N)                                                                      \
  struct D_##N {                                                                              \
    using type = T;                                                                           \
    __device__ static void wait_all(T *v, size_t n, const int *s, int c, T x) {               \
      xshmem_##N##_wait_until_all(v, n, s, c, x);                                             \
    }                                                                                         \
    __device__ static size_t wait_any(T *v, size_t n, const int *s, int c, T x) {             \
      return xshmem_##N##_wait_until_any(v, n, s, c, x);                                      \
    }                                                                                         \
    __device__ static size_t wait_some(T *v, size_t n, size_t *i, const int *s, int c, T x) { \
      return xshmem_##N##_wait_until_some(v, n, i, s, c, x);                                  \
    }                                                                                         \
    __device__ static void wait_all_v(T *v, size_t n, const int *s, int c, const T *x) {      \
      xshmem_##N##_wait_until_all_vector(v, n, s, c, x);                                      \
    }                                                                                         \
    __device__ static size_t wait_any_v(T *v, size_t n, const int *s, int c, const T *x) {    \
      return xshmem_##N##_wait_until_any_vector(v, n, s, c, x);                               \
    }                                                                                         \
    __device__ static size_t wait_some_v(T *v, size_t n, size_t *i, const int *s, int c,      \
                                         const T *x) {                                        \
      return xshmem_##N##_wait_until_some_vector(v, n, i, s, c, x);                           \
    }                                                                                         \
    __device__ static int test(T *v, int c, T x) { return xshmem_##N##_test(v, c, x); }       \
    __device__ static int test_all(T *v, size_t n, const int *s, int c, T x) {                \
      return xshmem_##N##_test_all(v, n, s, c, x);                                            \
    }                                                                                         \
    __device__ static size_t test_any(T *v, size_t n, const int *s, int c, T x) {             \
      return xshmem_##N##_test_any(v, n, s, c, x);                                            \
    }                                                                                         \
    __device__ static size_t test_some(T *v, size_t n, size_t *i, const int *s, int c, T x) { \
      return xshmem_##N##_test_some(v, n, i, s, c, x);                                        \
    }                                                                                         \
    __device__ static int test_all_v(T *v, size_t n, const int *s, int c, const T *x) {       \
      return xshmem_##N##_test_all_vector(v, n, s, c, x);                                     \
    }                                                                                         \
    __device__ static size_t test_any_v(T *v, size_t n, const int *s, int c, const T *x) {    \
      return xshmem_##N##_test_any_vector(v, n, s, c, x);                                     \
    }                                                                                         \
    __device__ static size_t test_some_v(T *v, size_t n, size_t *i, const int *s, int c,      \
                                         const T *x) {                                        \
      return xshmem_##N##_test_some_vector(v, n, i, s, c, x);                                 \
    }                                                                                         \
    /* set: atomic_set, or p for short and ushort; p: a template (few types use it) */        \
    __device__ static void set(T *d, T v, int pe) { gt_set_##N(d, v, pe); }                   \
    template <int = 0>                                                                        \
    __device__ static void p(T *d, T v, int pe) {                                             \
      xshmem_##N##_p(d, v, pe);                                                               \
    }                                                                                         \
  };
XSHMEM_P2P_TYPES(GT_P2P_TAG)
#undef GT_P2P_TAG

constexpr size_t kNel = 12;
constexpr size_t kGuardNel = 4;  // guard elements after the kNel words
__host__ __device__ inline bool excluded(size_t i) {
  return i % 4 == 3;
}

// A condition, scalar (GE against one value, with trap values: the unsatisfied values satisfy
// the comparison of the opposite signedness) or per element (_vector: EQ against values that
// depend on the updating and the waiting PE; the unsatisfied value differs in the top bit).
template <typename T>
struct dcond {
  bool vector;
  int cmp;
  T cv;
  T cvals[kNel];
  __device__ T sat(size_t i) const {
    if (vector) return cvals[i];
    return is_signed() ? static_cast<T>(i & 7) : ones();
  }
  __device__ T unsat(size_t i) const {
    if (vector) return static_cast<T>(cvals[i] ^ top());
    if (is_signed()) return i % 2 ? static_cast<T>(-1) : top();  // -1, the minimum
    return i % 2 ? static_cast<T>(ones() ^ top()) : static_cast<T>(0);
  }
  __device__ static bool is_signed() { return static_cast<T>(-1) < static_cast<T>(0); }
  __device__ static T ones() { return static_cast<T>(~static_cast<T>(0)); }
  __device__ static T top() { return static_cast<T>(static_cast<T>(1) << (8 * sizeof(T) - 1)); }
};
template <typename T>
__device__ dcond<T> make_dcond(bool vector, int src, int dst, int t) {
  dcond<T> c{};
  c.vector = vector;
  c.cmp = vector ? XSHMEM_CMP_EQ : XSHMEM_CMP_GE;
  c.cv = dcond<T>::is_signed() ? static_cast<T>(0) : dcond<T>::ones();
  for (size_t i = 0; i < kNel; ++i) c.cvals[i] = static_cast<T>(mix(src, dst, i, 0x2000 + t));
  return c;
}

// The set forms through the condition (scalar or _vector).
template <class D, typename T = typename D::type>
__device__ void c_wait_all(const dcond<T> &c, T *v, size_t n, const int *st) {
  if (c.vector) return D::wait_all_v(v, n, st, c.cmp, c.cvals);
  D::wait_all(v, n, st, c.cmp, c.cv);
}
template <class D, typename T = typename D::type>
__device__ size_t c_wait_any(const dcond<T> &c, T *v, size_t n, const int *st) {
  if (c.vector) return D::wait_any_v(v, n, st, c.cmp, c.cvals);
  return D::wait_any(v, n, st, c.cmp, c.cv);
}
template <class D, typename T = typename D::type>
__device__ size_t c_wait_some(const dcond<T> &c, T *v, size_t n, size_t *idx, const int *st) {
  if (c.vector) return D::wait_some_v(v, n, idx, st, c.cmp, c.cvals);
  return D::wait_some(v, n, idx, st, c.cmp, c.cv);
}
template <class D, typename T = typename D::type>
__device__ int c_test_all(const dcond<T> &c, T *v, size_t n, const int *st) {
  if (c.vector) return D::test_all_v(v, n, st, c.cmp, c.cvals);
  return D::test_all(v, n, st, c.cmp, c.cv);
}
template <class D, typename T = typename D::type>
__device__ size_t c_test_any(const dcond<T> &c, T *v, size_t n, const int *st) {
  if (c.vector) return D::test_any_v(v, n, st, c.cmp, c.cvals);
  return D::test_any(v, n, st, c.cmp, c.cv);
}
template <class D, typename T = typename D::type>
__device__ size_t c_test_some(const dcond<T> &c, T *v, size_t n, size_t *idx, const int *st) {
  if (c.vector) return D::test_some_v(v, n, idx, st, c.cmp, c.cvals);
  return D::test_some(v, n, idx, st, c.cmp, c.cv);
}

template <typename T>
__device__ T vload_t(const T *p) {
  return *reinterpret_cast<const volatile T *>(p);
}
template <typename T>
__device__ T guard_t(int me, int t, size_t i) {
  return static_cast<T>(mix(me, t, i, 0x6000));
}

// Bitmask of indices idx[0..count): unique and within `allowed` (else 0 and a failure).
__device__ unsigned mask_of(const size_t *idx, size_t count, unsigned allowed, long long where) {
  unsigned m = 0;
  for (size_t k = 0; k < count; ++k) {
    const bool ok = idx[k] < kNel && (allowed >> idx[k] & 1u) && !(m >> idx[k] & 1u);
    GT_CHECK(ok, where * 100 + k, allowed, idx[k] < kNel ? idx[k] : 99);
    if (!ok) return 0;
    m |= 1u << idx[k];
  }
  return m;
}

// ---- P2P-02 wait_until_all/any/some(+_vector) on the device ------------------------------------
// Block 0 (one thread) waits on this PE's kNel words, which the left neighbour's block 1 updates
// (atomic_set; p for short/ushort). Phases, each started by the waiter with a go word at the
// updater's PE after it has reset its words and quieted:
//  1 empty sets (nelems 0, everything excluded) return at once; then wait_until_all with a status
//    mask while the updater satisfies the included words in scrambled order;
//  2-4 wait_until_any: the excluded words satisfied (to be ignored), one included word per phase
//    updated: the index returned is that one;
//  5 wait_until_some: a subset S updated one by one; calls that exclude what earlier calls
//    returned collect exactly S (1 or more unique indices each); then one call returns all of S;
//    _any with the same masking also collects S;
//  6 NULL status (every word counts): local words, no updater.
// The words are followed by guard elements, checked at the end. (On the device _any scans from
// the first element: no fairness cursor, so repeated unmasked _any calls are not checked.)

template <class D>
__global__ void p2p02_kernel(typename D::type *ivars, uint64_t *go, int t, bool vector, int me,
                             int peer, int from) {
  using T = typename D::type;
  constexpr unsigned kSubset = (1u << 1) | (1u << 4) | (1u << 6) | (1u << 9);
  if (blockIdx.x == 1) {  // updater of the right neighbour's words
    const dcond<T> c = make_dcond<T>(vector, me, peer, t);
    xshmem_uint64_wait_until(go, XSHMEM_CMP_GE, uint64_t(1));
    for (size_t j = 0; j < kNel; ++j) {
      const size_t i = (j * 5) % kNel;
      if (excluded(i)) continue;
      __nanosleep(500);
      D::set(ivars + i, c.sat(i), peer);
    }
    for (int r = 0; r < 3; ++r) {
      const size_t j = size_t(4 * r + r % 3);
      xshmem_uint64_wait_until(go, XSHMEM_CMP_GE, uint64_t(2 + r));
      __nanosleep(2000);
      D::set(ivars + j, c.sat(j), peer);
    }
    xshmem_uint64_wait_until(go, XSHMEM_CMP_GE, uint64_t(5));
    for (size_t i = 0; i < kNel; ++i) {
      if (!(kSubset >> i & 1u)) continue;
      __nanosleep(1000);
      D::set(ivars + i, c.sat(i), peer);
    }
    return;
  }
  const dcond<T> c = make_dcond<T>(vector, from, me, t);
  int status[kNel], all_masked[kNel], st[kNel];
  for (size_t i = 0; i < kNel; ++i) {
    status[i] = excluded(i) ? 1 : 0;
    all_masked[i] = 1;
  }
  size_t idx[kNel + 1];
  auto reset = [&](bool excluded_sat) {
    for (size_t i = 0; i < kNel; ++i)
      ivars[i] = excluded_sat && excluded(i) ? c.sat(i) : c.unsat(i);
  };
  // Phase 1.
  reset(false);
  for (size_t g = 0; g < kGuardNel; ++g) ivars[kNel + g] = guard_t<T>(me, t, g);
  GT_CHECK(c_test_all<D>(c, ivars, kNel, all_masked) == 1, 100, 1, 0);
  c_wait_all<D>(c, ivars, 0, nullptr);
  c_wait_all<D>(c, ivars, kNel, all_masked);
  GT_CHECK(c_wait_any<D>(c, ivars, 0, nullptr) == SIZE_MAX, 101, -1, 0);
  GT_CHECK(c_wait_any<D>(c, ivars, kNel, all_masked) == SIZE_MAX, 102, -1, 0);
  GT_CHECK(c_wait_some<D>(c, ivars, 0, idx, nullptr) == 0, 103, 0, 1);
  GT_CHECK(c_wait_some<D>(c, ivars, kNel, idx, all_masked) == 0, 104, 0, 1);
  xshmem_quiet();
  xshmem_uint64_atomic_set(go, uint64_t(1), from);
  c_wait_all<D>(c, ivars, kNel, status);
  for (size_t i = 0; i < kNel; ++i) {
    const T want = excluded(i) ? c.unsat(i) : c.sat(i);
    const T got = vload_t(ivars + i);
    GT_CHECK(got == want, 200 + i, (long long)want, (long long)got);
  }
  // Phases 2-4.
  for (int r = 0; r < 3; ++r) {
    const size_t j = size_t(4 * r + r % 3);
    reset(true);
    xshmem_quiet();
    xshmem_uint64_atomic_set(go, uint64_t(2 + r), from);
    const size_t got = c_wait_any<D>(c, ivars, kNel, status);
    GT_CHECK(got == j, 300 + r, j, got);
    GT_CHECK(vload_t(ivars + j) == c.sat(j), 310 + r, (long long)c.sat(j),
             (long long)vload_t(ivars + j));
  }
  // Phase 5.
  reset(true);
  xshmem_quiet();
  xshmem_uint64_atomic_set(go, uint64_t(5), from);
  for (size_t i = 0; i < kNel; ++i) st[i] = status[i];
  unsigned collected = 0;
  for (int calls = 0; calls < 4 && collected != kSubset; ++calls) {
    const size_t n = c_wait_some<D>(c, ivars, kNel, idx, st);
    GT_CHECK(n >= 1 && n <= 4, 400 + calls, 1, n);
    const unsigned m = mask_of(idx, n < kNel ? n : kNel, kSubset & ~collected, 410 + calls);
    collected |= m;
    for (size_t i = 0; i < kNel; ++i)
      if (m >> i & 1u) st[i] = 1;
  }
  GT_CHECK(collected == kSubset, 420, kSubset, collected);
  {
    const size_t n = c_wait_some<D>(c, ivars, kNel, idx, status);
    GT_CHECK(n == 4, 430, 4, n);
    GT_CHECK(mask_of(idx, n < kNel ? n : kNel, kSubset, 431) == kSubset, 432, kSubset, 0);
  }
  for (size_t i = 0; i < kNel; ++i) st[i] = status[i];
  collected = 0;
  for (int calls = 0; calls < 4; ++calls) {
    const size_t got = c_wait_any<D>(c, ivars, kNel, st);
    const bool ok = got < kNel && (kSubset >> got & 1u) && !(collected >> got & 1u);
    GT_CHECK(ok, 440 + calls, kSubset, got);
    if (!ok) break;
    collected |= 1u << got;
    st[got] = 1;
  }
  GT_CHECK(collected == kSubset, 450, kSubset, collected);
  // Everything satisfied is masked now (a wait would block: test instead).
  GT_CHECK(c_test_any<D>(c, ivars, kNel, st) == SIZE_MAX, 451, -1, 0);
  // Phase 6: NULL status includes every word.
  for (size_t i = 0; i < kNel; ++i) ivars[i] = c.sat(i);
  c_wait_all<D>(c, ivars, kNel, nullptr);
  GT_CHECK(c_wait_any<D>(c, ivars, kNel, nullptr) < kNel, 500, 0, kNel);
  GT_CHECK(c_wait_some<D>(c, ivars, kNel, idx, nullptr) == kNel, 501, kNel, 0);
  for (size_t g = 0; g < kGuardNel; ++g) {
    const T got = vload_t(ivars + kNel + g);
    GT_CHECK(got == guard_t<T>(me, t, g), 600 + g, (long long)guard_t<T>(me, t, g), (long long)got);
  }
}

void p2p02(void *area, uint64_t *go) {
  int t = 0;
#define GT_RUN(T, N)                                                                   \
  for (int v = 0; v < 2; ++v) {                                                        \
    GT_CUDA(cudaMemset(go, 0, sizeof(uint64_t)));                                      \
    gt::barrier();                                                                     \
    p2p02_kernel<D_##N>                                                                \
        <<<2, 1>>>(static_cast<T *>(area), go, t, v == 1, gt::me, gt::peer, gt::from); \
    gt::barrier();                                                                     \
  }                                                                                    \
  ++t;
  XSHMEM_P2P_TYPES(GT_RUN)
#undef GT_RUN
}

// ---- P2P-03 test family on the device ----------------------------------------------------------
// Local: test with every comparison (0 for the start value, 1 for the satisfying one, the values
// straddling the signed/unsigned boundary); test_all/_any/_some (scalar and _vector) with masks,
// empty sets, none/some/all satisfied. Remote: the left neighbour puts 61 words, fences and sets
// the flag (atomic_set or p); the owner polls test(flag EQ this iteration's value): never 1
// before the owner has released the iteration, and once 1 the payload is complete. 300
// iterations per type.

template <class D>
__global__ void p2p03_local(typename D::type *ivars, int t, int me) {
  using T = typename D::type;
  for (int cmp = 0; cmp < 6; ++cmp) {
    const trio<T> v = trio_for<T>(cmp);
    ivars[0] = v.init;
    GT_CHECK(D::test(ivars, cmp, v.value) == 0, 10 * cmp, 0, 1);
    ivars[0] = v.final_value;
    GT_CHECK(D::test(ivars, cmp, v.value) == 1, 10 * cmp + 1, 1, 0);
  }
  int status[kNel], all_masked[kNel], st[kNel];
  for (size_t i = 0; i < kNel; ++i) {
    status[i] = excluded(i) ? 1 : 0;
    all_masked[i] = 1;
  }
  size_t idx[kNel + 1];
  constexpr unsigned kSubset = (1u << 0) | (1u << 2) | (1u << 5) | (1u << 10);
  for (int v = 0; v < 2; ++v) {
    const dcond<T> c = make_dcond<T>(v == 1, me, me, t);
    const long long w = 1000 * (v + 1);
    for (size_t i = 0; i < kNel; ++i) ivars[i] = c.unsat(i);
    GT_CHECK(c_test_all<D>(c, ivars, kNel, status) == 0, w + 1, 0, 1);
    GT_CHECK(c_test_all<D>(c, ivars, 0, nullptr) == 1, w + 2, 1, 0);
    GT_CHECK(c_test_all<D>(c, ivars, kNel, all_masked) == 1, w + 3, 1, 0);
    GT_CHECK(c_test_any<D>(c, ivars, kNel, status) == SIZE_MAX, w + 4, -1, 0);
    GT_CHECK(c_test_any<D>(c, ivars, 0, nullptr) == SIZE_MAX, w + 5, -1, 0);
    GT_CHECK(c_test_some<D>(c, ivars, kNel, idx, status) == 0, w + 6, 0, 1);
    GT_CHECK(c_test_some<D>(c, ivars, 0, idx, nullptr) == 0, w + 7, 0, 1);
    // Only excluded words satisfied.
    for (size_t i = 0; i < kNel; ++i) ivars[i] = excluded(i) ? c.sat(i) : c.unsat(i);
    GT_CHECK(c_test_all<D>(c, ivars, kNel, status) == 0, w + 8, 0, 1);
    GT_CHECK(c_test_any<D>(c, ivars, kNel, status) == SIZE_MAX, w + 9, -1, 0);
    GT_CHECK(c_test_some<D>(c, ivars, kNel, idx, status) == 0, w + 10, 0, 1);
    GT_CHECK(c_test_any<D>(c, ivars, kNel, all_masked) == SIZE_MAX, w + 11, -1, 0);
    GT_CHECK(c_test_some<D>(c, ivars, kNel, idx, all_masked) == 0, w + 12, 0, 1);
    // A subset of the included words satisfied.
    for (size_t i = 0; i < kNel; ++i)
      if (kSubset >> i & 1u) ivars[i] = c.sat(i);
    GT_CHECK(c_test_all<D>(c, ivars, kNel, status) == 0, w + 13, 0, 1);
    const size_t any = c_test_any<D>(c, ivars, kNel, status);
    GT_CHECK(any < kNel && (kSubset >> any & 1u), w + 14, kSubset, any);
    const size_t cnt = c_test_some<D>(c, ivars, kNel, idx, status);
    GT_CHECK(cnt == 4, w + 15, 4, cnt);
    GT_CHECK(mask_of(idx, cnt < kNel ? cnt : kNel, kSubset, w + 16) == kSubset, w + 17, kSubset, 0);
    for (size_t i = 0; i < kNel; ++i) st[i] = status[i];
    unsigned collected = 0;
    for (int calls = 0; calls < 8; ++calls) {
      const size_t k = c_test_some<D>(c, ivars, kNel, idx, st);
      if (k == 0) break;
      const unsigned m = mask_of(idx, k < kNel ? k : kNel, kSubset & ~collected, w + 18);
      collected |= m;
      for (size_t i = 0; i < kNel; ++i)
        if (m >> i & 1u) st[i] = 1;
      if (m == 0) break;
    }
    GT_CHECK(collected == kSubset, w + 19, kSubset, collected);
    // Every included word satisfied.
    for (size_t i = 0; i < kNel; ++i) ivars[i] = excluded(i) ? c.unsat(i) : c.sat(i);
    GT_CHECK(c_test_all<D>(c, ivars, kNel, status) == 1, w + 20, 1, 0);
    GT_CHECK(c_test_all<D>(c, ivars, kNel, nullptr) == 0, w + 21, 0, 1);
  }
}

void p2p03_local_all(void *area) {
  int t = 0;
#define GT_RUN(T, N)                                               \
  p2p03_local<D_##N><<<1, 1>>>(static_cast<T *>(area), t, gt::me); \
  gt::device_sync("p2p03 local " #N);                              \
  ++t;
  XSHMEM_P2P_TYPES(GT_RUN)
#undef GT_RUN
}

constexpr int kP3Iters = 300;  // rounds (gt::scaled: a round trip each)
constexpr size_t kP3Payload = 61;

// The flag's value for iteration `it` (it = -1: the start value), never repeating.
template <typename T>
__host__ __device__ T p3_flag(int s, int t, int it) {
  const T k = static_cast<T>(mix(s, t, 0x3000) | (uint64_t{1} << (8 * sizeof(T) - 1)));
  return static_cast<T>(k ^ static_cast<T>(it + 1));
}

template <class D>
__global__ void p2p03_init(typename D::type *flag, int t, int from) {
  *flag = p3_flag<typename D::type>(from, t, -1);
}

// Block 0 updates the right neighbour; block 1 owns this PE's flag and payload.
template <class D>
__global__ void p2p03_remote(typename D::type *flag, uint64_t *payload, uint64_t *ack,
                             uint64_t *src, bool use_p, int t, int me, int peer, int from,
                             int iters) {
  using T = typename D::type;
  for (int it = 0; it < iters; ++it) {
    if (blockIdx.x == 0) {
      xshmem_uint64_wait_until(ack, XSHMEM_CMP_GE, uint64_t(it + 1));
      for (size_t i = 0; i < kP3Payload; ++i) src[i] = mix(me, peer, it, i);
      xshmem_uint64_put(payload, src, kP3Payload, peer);
      xshmem_fence();
      if (use_p) {
        D::template p<>(flag, p3_flag<T>(me, t, it), peer);
      } else {
        D::set(flag, p3_flag<T>(me, t, it), peer);
      }
    } else {
      const T want = p3_flag<T>(from, t, it);
      GT_CHECK(D::test(flag, XSHMEM_CMP_EQ, want) == 0, it * 1000LL + 1, 0, 1);  // too early
      xshmem_uint64_atomic_set(ack, uint64_t(it + 1), from);
      while (D::test(flag, XSHMEM_CMP_EQ, want) == 0) __nanosleep(32);
      const T seen = vload_t(flag);
      GT_CHECK(seen == want, it * 1000LL + 2, (long long)want, (long long)seen);
      for (size_t i = 0; i < kP3Payload; ++i) {
        const uint64_t got = vload_t(payload + i);
        GT_CHECK(got == mix(from, me, it, i), it * 1000LL + 100 + i, mix(from, me, it, i), got);
      }
      const uint64_t g = vload_t(payload + kP3Payload);
      GT_CHECK(g == mix(me, 0x77), it * 1000LL + 999, mix(me, 0x77), g);
    }
  }
}

template <class D>
void p2p03_remote_one(void *area, int t, bool use_p) {
  using T = typename D::type;
  auto *flag = static_cast<T *>(area);
  auto *ack = reinterpret_cast<uint64_t *>(static_cast<char *>(area) + 64);
  auto *payload = reinterpret_cast<uint64_t *>(static_cast<char *>(area) + 128);
  uint64_t *src;
  GT_CUDA(cudaMalloc(&src, kP3Payload * 8));
  const uint64_t guard = mix(gt::me, 0x77);
  GT_CUDA(cudaMemcpy(payload + kP3Payload, &guard, 8, cudaMemcpyHostToDevice));
  GT_CUDA(cudaMemset(ack, 0, 8));
  p2p03_init<D><<<1, 1>>>(flag, t, gt::from);
  gt::barrier();
  p2p03_remote<D><<<2, 1>>>(flag, payload, ack, src, use_p, t, gt::me, gt::peer, gt::from,
                            gt::scaled(kP3Iters, 10, 4));
  gt::barrier();
  GT_CUDA(cudaFree(src));
}

void p2p03_remote_all(void *area) {
  p2p03_remote_one<D_int>(area, 0, false);
  p2p03_remote_one<D_uint64>(area, 9, false);
  p2p03_remote_one<D_ptrdiff>(area, 11, true);
  p2p03_remote_one<D_short>(area, 12, true);
  p2p03_remote_one<D_ushort>(area, 13, true);
}

// ---- P2P-04 device wait progress ---------------------------------------------------------------
// Thread 0 of block 0 runs 300 rounds (gt::scaled where PEs share a GPU) with the neighbours: it
// updates the right neighbour's word (round r: p, atomic_add or put_signal with a payload,
// rotating; the word reaches r + 1), waits for its own word to reach r + 1 (wait_until or
// signal_wait_until), checks it (and the payload) and acks to the left neighbour, whose next update
// waits for that ack. Meanwhile every other thread (T), warp (W) or block (B) of the kernel puts
// its own slot at the right neighbour and gets a slice of its read-only area, over and over, until
// thread 0 is done (at least 8 times). The grid stays within the co-resident blocks: the storm
// waits for block 0. Afterwards each PE checks every slot (the last iteration's contents, guard
// after it; slots of non-storming units untouched).

enum scope_t { kThread, kWarp, kBlock };
const char *const kScopeName[] = {"T", "W", "B"};
constexpr int kP4Rounds = 300;
constexpr int kP4MinIters = 8;
constexpr size_t kP4Payload = 32;  // words with the put_signal updates
constexpr unsigned kP4Threads = 128;
constexpr size_t kP4Guard = 64;  // bytes after each slot's data
constexpr size_t kP4Ro = 65536;  // read-only area

__host__ __device__ inline size_t p4_chunk(scope_t sc) {
  return sc == kThread ? 64 : sc == kWarp ? 1024 : 4096;
}
__host__ __device__ inline size_t p4_getsize(scope_t sc) {
  return sc == kThread ? 64 : sc == kWarp ? 256 : 1024;
}
__host__ __device__ inline size_t p4_slot(scope_t sc) {
  return p4_chunk(sc) + kP4Guard;
}
__host__ __device__ inline unsigned p4_units(scope_t sc, unsigned blocks) {
  return sc == kThread ? blocks * kP4Threads : sc == kWarp ? blocks * (kP4Threads / 32) : blocks;
}
// Units that do not storm: block 0's first warp (T, W), block 0 (B).
__host__ __device__ inline bool p4_idle(scope_t sc, unsigned u) {
  return sc == kThread ? u < 32 : u == 0;
}

struct p4_t {
  uint64_t *word;     // symmetric: [0] waited word, [1] ack
  uint64_t *payload;  // symmetric: kP4Payload words
  uint64_t *psrc;     // private: kP4Payload words
  uint8_t *storm;     // symmetric: units x slot
  const uint8_t *ro;  // symmetric: kP4Ro bytes, owner's pattern
  uint8_t *src;       // private: units x chunk
  uint8_t *got;       // private: units x getsize
  unsigned *stop;     // private device word
  int rounds;         // the waiter's rounds: kP4Rounds, scaled where PEs share a GPU
};

__device__ void p4_waiter(const p4_t &a, int me, int peer, int from) {
  for (int r = 0; r < a.rounds; ++r) {
    if (r > 0) xshmem_uint64_wait_until(a.word + 1, XSHMEM_CMP_GE, uint64_t(r));
    const int method = r % 3;
    if (method == 0) {
      xshmem_uint64_p(a.word, uint64_t(r + 1), peer);
    } else if (method == 1) {
      xshmem_uint64_atomic_add(a.word, 1, peer);
    } else {
      for (size_t i = 0; i < kP4Payload; ++i) a.psrc[i] = mix(me, peer, r, i);
      xshmem_uint64_put_signal(a.payload, a.psrc, kP4Payload, a.word, uint64_t(r + 1),
                               XSHMEM_SIGNAL_SET, peer);
    }
    uint64_t seen;
    if (method == 2) {
      seen = xshmem_signal_wait_until(a.word, XSHMEM_CMP_GE, uint64_t(r + 1));
    } else {
      xshmem_uint64_wait_until(a.word, XSHMEM_CMP_GE, uint64_t(r + 1));
      seen = *reinterpret_cast<volatile uint64_t *>(a.word);
    }
    GT_CHECK(seen == uint64_t(r + 1), r, r + 1, seen);
    if (method == 2) {
      for (size_t i = 0; i < kP4Payload; ++i) {
        const uint64_t got = *reinterpret_cast<volatile uint64_t *>(a.payload + i);
        GT_CHECK(got == mix(from, me, r, i), r * 1000LL + i, mix(from, me, r, i), got);
      }
    }
    xshmem_uint64_atomic_set(a.word + 1, uint64_t(r + 1), from);
  }
  xshmem_quiet();
  *reinterpret_cast<volatile unsigned *>(a.stop) = 1;
  __threadfence();
}

// One storm iteration's data word i of unit u (word 0 is the iteration + 1).
__host__ __device__ inline uint64_t p4_word(int pe, unsigned u, uint64_t it, size_t i) {
  return i == 0 ? it + 1 : mix(pe, u, it, i);
}

__global__ void p4_kernel(p4_t a, scope_t sc, int me, int peer, int from) {
  const unsigned tid = threadIdx.x, lane = tid % 32;
  const bool waiter = blockIdx.x == 0 && tid == 0;
  if (waiter) {
    p4_waiter(a, me, peer, from);
    return;
  }
  const unsigned u = sc == kThread ? blockIdx.x * kP4Threads + tid
                     : sc == kWarp ? blockIdx.x * (kP4Threads / 32) + tid / 32
                                   : blockIdx.x;
  if (p4_idle(sc, u)) return;  // the rest of the waiter's warp (T, W) or block (B)
  const size_t chunk = p4_chunk(sc), gsz = p4_getsize(sc), words = chunk / 8;
  uint64_t *src = reinterpret_cast<uint64_t *>(a.src + size_t(u) * chunk);
  uint8_t *dst = a.storm + size_t(u) * p4_slot(sc);
  uint8_t *got = a.got + size_t(u) * gsz;
  const size_t ro_off = (size_t(u) * gsz) % kP4Ro;
  const unsigned rank = sc == kThread ? 0 : sc == kWarp ? lane : tid;
  const unsigned size = sc == kThread ? 1 : sc == kWarp ? 32 : blockDim.x;
  __shared__ unsigned s_stop;
  for (uint64_t it = 0;; ++it) {
    unsigned st = 0;
    if (rank == 0) st = it >= kP4MinIters && *reinterpret_cast<volatile unsigned *>(a.stop) != 0;
    if (sc == kWarp) {
      st = __shfl_sync(0xffffffffu, st, 0);
    } else if (sc == kBlock) {
      if (tid == 0) s_stop = st;
      __syncthreads();
      st = s_stop;
      __syncthreads();
    }
    if (st) break;
    for (size_t i = rank; i < words; i += size) src[i] = p4_word(me, u, it, i);
    if (sc == kThread) {
      xshmem_putmem(dst, src, chunk, peer);
      xshmem_getmem(got, a.ro + ro_off, gsz, peer);
    } else if (sc == kWarp) {
      __syncwarp();
      xshmemx_putmem_warp(dst, src, chunk, peer);
      xshmemx_getmem_warp(got, a.ro + ro_off, gsz, peer);
    } else {
      __syncthreads();
      xshmemx_putmem_block(dst, src, chunk, peer);
      xshmemx_getmem_block(got, a.ro + ro_off, gsz, peer);
    }
    for (size_t b = rank; b < gsz; b += size) {
      const uint8_t e = gt::pat(peer, ro_off + b, 55);
      GT_CHECK(got[b] == e, u * 100000LL + b, e, got[b]);
    }
    if (sc == kWarp) {
      __syncwarp();
    } else if (sc == kBlock) {
      __syncthreads();
    }
  }
  xshmem_quiet();
}

__global__ void p4_verify(const uint8_t *storm, scope_t sc, unsigned units, int me, int from) {
  const size_t slot = p4_slot(sc), chunk = p4_chunk(sc);
  const size_t total = size_t(units) * slot / 8;
  const uint64_t *w = reinterpret_cast<const uint64_t *>(storm);
  for (size_t x = blockIdx.x * size_t(blockDim.x) + threadIdx.x; x < total;
       x += size_t(gridDim.x) * blockDim.x) {
    const unsigned u = unsigned(x * 8 / slot);
    const size_t i = (x * 8 % slot) / 8;
    const uint64_t head = w[size_t(u) * slot / 8];
    uint64_t e;
    if (p4_idle(sc, u) || i * 8 >= chunk) {
      e = mix(me, x, 0x4444);  // guard
    } else {
      if (i == 0) GT_CHECK(head >= kP4MinIters, u * 10000LL, kP4MinIters, head);
      e = p4_word(from, u, head - 1, i);
    }
    GT_CHECK(w[x] == e, u * 10000LL + i, e, w[x]);
  }
}
__global__ void p4_guard(uint8_t *storm, size_t bytes, int me) {
  uint64_t *w = reinterpret_cast<uint64_t *>(storm);
  for (size_t x = blockIdx.x * size_t(blockDim.x) + threadIdx.x; x < bytes / 8;
       x += size_t(gridDim.x) * blockDim.x)
    w[x] = mix(me, x, 0x4444);
}

void p2p04(scope_t sc) {
  // 64 storming blocks; 2 when PEs share a GPU (every blocking operation through the proxy then
  // waits for the other process's time slice, and the waiter's requests queue behind the storm's).
  const int resident = gt::max_resident_blocks(p4_kernel, kP4Threads), cap = gt::narrowed(64, 32);
  const unsigned blocks = unsigned(resident < cap ? resident : cap);
  const unsigned units = p4_units(sc, blocks);
  // Every PE must use the same layout: the smallest block count of all.
  std::vector<unsigned> all(gt::npes);
  if (xshmemx_oob_allgather(&blocks, all.data(), sizeof blocks) != 0) {
    GT_CHECK(false, 0, 0, 1);
    return;
  }
  unsigned grid = blocks;
  for (unsigned b : all) grid = b < grid ? b : grid;
  const unsigned max_units = p4_units(sc, 64);
  const size_t storm_bytes = size_t(max_units) * p4_slot(sc);
  p4_t a{};
  a.rounds = gt::scaled(kP4Rounds, 10, 4);  // at least 4: the update methods rotate by 3
  a.word = static_cast<uint64_t *>(xshmem_calloc(2, sizeof(uint64_t)));
  a.payload = static_cast<uint64_t *>(xshmem_malloc(kP4Payload * 8));
  a.storm = static_cast<uint8_t *>(xshmem_malloc(storm_bytes));
  auto *ro = static_cast<uint8_t *>(xshmem_malloc(kP4Ro));
  a.ro = ro;
  GT_CUDA(cudaMalloc(&a.psrc, kP4Payload * 8));
  GT_CUDA(cudaMalloc(&a.src, size_t(max_units) * p4_chunk(sc)));
  GT_CUDA(cudaMalloc(&a.got, size_t(max_units) * p4_getsize(sc)));
  GT_CUDA(cudaMalloc(&a.stop, sizeof(unsigned)));
  GT_CUDA(cudaMemset(a.stop, 0, sizeof(unsigned)));
  GT_CUDA(cudaMemset(a.word, 0, 2 * sizeof(uint64_t)));
  gt::fill(ro, kP4Ro, gt::me, 55);
  p4_guard<<<132, 256>>>(a.storm, storm_bytes, gt::me);
  gt::barrier();
  p4_kernel<<<grid, kP4Threads>>>(a, sc, gt::me, gt::peer, gt::from);
  gt::barrier();
  p4_verify<<<132, 256>>>(a.storm, sc, p4_units(sc, grid), gt::me, gt::from);
  gt::device_sync("P2P-04 verify");
  (void)units;
  GT_CUDA(cudaFree(a.stop));
  GT_CUDA(cudaFree(a.got));
  GT_CUDA(cudaFree(a.src));
  GT_CUDA(cudaFree(a.psrc));
  xshmem_free(ro);
  xshmem_free(a.storm);
  xshmem_free(a.payload);
  xshmem_free(a.word);
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
  auto *go = static_cast<uint64_t *>(xshmem_malloc(sizeof(uint64_t)));
  if (go == nullptr) return 1;
  gt::run("P2P-02 wait_until_all/any/some(+vector) T", [&] { p2p02(area, go); });
  gt::run("P2P-03 test/_all/_any/_some local T", [&] { p2p03_local_all(area); });
  gt::run("P2P-03 test never early, then payload T", [&] { p2p03_remote_all(area); });
  for (scope_t sc : {kThread, kWarp, kBlock}) {
    char label[96];
    snprintf(label, sizeof label, "P2P-04 wait progress under RMA storm %s", kScopeName[sc]);
    gt::run(label, [&] { p2p04(sc); });
  }
  xshmem_free(go);
  xshmem_free(area);
  return gt::finish();
}
