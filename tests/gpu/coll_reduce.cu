// GPU conformance: COLL-08 (reductions), COLL-09 (scans), COLL-11 (back to back) and COLL-12
// (several blocks, each driving its own team) for the thread (T), warp (W) and block (B) forms,
// and the host API on the GPU heap (H); complexd and complexf sum and prod in every form too. Sizes
// 1, 77, 5003 and one larger than the 128 KiB team scratch (so the auto algorithm runs direct for
// the small ones and rsag for the large one; CTest also runs the program with
// XSHMEM_COLL_REDUCE_ALGO=direct and =rsag), also in place.
//
// Each kernel iteration fills the source from (pe, element, iteration, op), calls the
// collective, and checks dest against the combination over the team's members in team order
// (float data is exactly representable, so sums and products are exact).
#include <algorithm>
#include <type_traits>

#include "gpu_test.h"

namespace {

enum Op : int { kAnd, kOr, kXor, kMax, kMin, kSum, kProd, kInscan, kExscan };
constexpr const char *kOpName[] = {"and", "or",   "xor",    "max",   "min",
                                   "sum", "prod", "inscan", "exscan"};
constexpr size_t kBig = (size_t{128} << 10) / 4 + 37;   // 4-byte elements, > 128 KiB
constexpr size_t kHostGrid = (size_t{1} << 18) + 4099;  // floats: > 1 MiB

__host__ __device__ inline uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <typename T>
__host__ __device__ T gen(int op, int pe, size_t i, uint64_t iter) {
  const uint64_t h = mix(mix(mix(static_cast<uint64_t>(pe) * 131 + op) + i) + iter);
  if constexpr (std::is_same_v<T, float>) {
    if (op == kProd) return (h & 1 ? -1.0f : 1.0f) * static_cast<float>(1 << (h >> 4) % 4) / 2.0f;
    return static_cast<float>(static_cast<int64_t>(h % 200001) - 100000) / 2.0f;
  } else if constexpr (std::is_same_v<T, double>) {
    return static_cast<double>(static_cast<int64_t>(h % 2000001) - 1000000) / 2.0;
  } else {
    uint64_t v = h;
    if (op == kAnd) v = h | mix(h);
    if (op == kOr) v = h & mix(h);
    if (op == kProd) v = h | 1;
    return static_cast<T>(v);
  }
}

template <typename T>
__host__ __device__ T combine(int op, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return op == kMax    ? (a < b ? b : a)
           : op == kMin  ? (b < a ? b : a)
           : op == kProd ? a * b
                         : a + b;
  } else {
    const uint64_t x = static_cast<uint64_t>(a), y = static_cast<uint64_t>(b);
    switch (op) {
      case kAnd:
        return static_cast<T>(x & y);
      case kOr:
        return static_cast<T>(x | y);
      case kXor:
        return static_cast<T>(x ^ y);
      case kMax:
        return a < b ? b : a;
      case kMin:
        return b < a ? b : a;
      case kProd:
        return static_cast<T>(x * y);
      default:
        return static_cast<T>(x + y);
    }
  }
}

// Member `me` of the team (start, stride, size) at element i.
template <typename T>
__host__ __device__ T expected(int op, int start, int stride, int size, int me, size_t i,
                               uint64_t iter) {
  const int k1 = op == kInscan ? me + 1 : op == kExscan ? me : size;
  if (k1 == 0) return T(0);
  T acc = gen<T>(op, start, i, iter);
  for (int k = 1; k < k1; ++k) acc = combine<T>(op, acc, gen<T>(op, start + k * stride, i, iter));
  return acc;
}

// form 0: thread 0 alone; 1: the first warp; 2: the whole block.
#define GT_CALL(N, FN)                                                     \
  (form == 0   ? (tid == 0 ? xshmem_##N##_##FN(team, d, s, n) : 0)         \
   : form == 1 ? (tid < 32 ? xshmemx_##N##_##FN##_warp(team, d, s, n) : 0) \
               : xshmemx_##N##_##FN##_block(team, d, s, n))
#define GT_ARITH_CASES(N)           \
  case kMax:                        \
    return GT_CALL(N, max_reduce);  \
  case kMin:                        \
    return GT_CALL(N, min_reduce);  \
  case kSum:                        \
    return GT_CALL(N, sum_reduce);  \
  case kProd:                       \
    return GT_CALL(N, prod_reduce); \
  case kInscan:                     \
    return GT_CALL(N, sum_inscan);  \
  case kExscan:                     \
    return GT_CALL(N, sum_exscan);
#define GT_BIT_CASES(N)            \
  case kAnd:                       \
    return GT_CALL(N, and_reduce); \
  case kOr:                        \
    return GT_CALL(N, or_reduce);  \
  case kXor:                       \
    return GT_CALL(N, xor_reduce);

__device__ int call(int op, int form, unsigned tid, xshmem_team_t team, float *d, const float *s,
                    size_t n) {
  switch (op) { GT_ARITH_CASES(float) }
  return -2;
}
__device__ int call(int op, int form, unsigned tid, xshmem_team_t team, int *d, const int *s,
                    size_t n) {
  switch (op) { GT_ARITH_CASES(int) }
  return -2;
}
__device__ int call(int op, int form, unsigned tid, xshmem_team_t team, uint32_t *d,
                    const uint32_t *s, size_t n) {
  switch (op) {
    GT_BIT_CASES(uint32)
    GT_ARITH_CASES(uint32)
  }
  return -2;
}
__device__ int call(int op, int form, unsigned tid, xshmem_team_t team, double *d, const double *s,
                    size_t n) {
  switch (op) { GT_ARITH_CASES(double) }
  return -2;
}

using TeamDesc = gt::team_desc;

// One block per team (blockIdx.x indexes `teams` and the buffers, `stride_elems` apart).
template <typename T>
__global__ void reduce_kernel(const TeamDesc *teams, T *dest, T *source, size_t stride_elems,
                              size_t n, int op, int form, bool in_place, int my_pe, uint64_t iter0,
                              int iters) {
  const TeamDesc t = teams[blockIdx.x];
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  T *d = dest + blockIdx.x * stride_elems;
  T *s = in_place ? d : source + blockIdx.x * stride_elems;
  for (int it = 0; it < iters; ++it) {
    const uint64_t iter = iter0 + static_cast<uint64_t>(it) * 16 + blockIdx.x;
    for (size_t i = tid; i < n; i += threads) s[i] = gen<T>(op, my_pe, i, iter);
    __syncthreads();
    const int rc = call(op, form, tid, t.handle, d, s, n);
    GT_CHECK(rc == 0, -1, 0, rc);
    __syncthreads();
    for (size_t i = tid; i < n; i += threads) {
      const T want = expected<T>(op, t.start, t.stride, t.size, t.me, i, iter);
      GT_CHECK(d[i] == want, i, (long long)want, (long long)d[i]);
      if (!in_place) GT_CHECK(s[i] == gen<T>(op, my_pe, i, iter), i, 0, 1);
    }
    __syncthreads();
  }
}

using gt::describe;

template <typename T>
void device_case(TeamDesc *teams, int nteams, void *dest, void *source, size_t n, int op, int form,
                 bool in_place, int iters, uint64_t iter0) {
  gt::barrier();
  T *d = static_cast<T *>(dest), *s = static_cast<T *>(source);
  size_t stride = kBig;
  bool ip = in_place;
  int my_pe = gt::me;
  dim3 block = form == 2 ? dim3(8, 4, 4) : dim3(256);
  void *args[] = {&teams, &d, &s, &stride, &n, &op, &form, &ip, &my_pe, &iter0, &iters};
  GT_CUDA(xshmemx_collective_launch(reinterpret_cast<const void *>(reduce_kernel<T>), dim3(nteams),
                                    block, args, 0, nullptr));
  gt::device_sync("reduce kernel");
}

// The host API on the GPU heap: host fills the source with cudaMemcpy, calls, checks.
void host_case(void *dest, void *source, size_t n, int op, bool in_place, uint64_t iter) {
  gt::barrier();
  std::vector<float> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = gen<float>(op, gt::me, i, iter);
  float *d = static_cast<float *>(dest);
  float *s = in_place ? d : static_cast<float *>(source);
  GT_CUDA(cudaMemcpy(s, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  int rc = -1;
  switch (op) {
    case kSum:
      rc = xshmem_float_sum_reduce(XSHMEM_TEAM_WORLD, d, s, n);
      break;
    case kMax:
      rc = xshmem_float_max_reduce(XSHMEM_TEAM_WORLD, d, s, n);
      break;
    case kInscan:
      rc = xshmem_float_sum_inscan(XSHMEM_TEAM_WORLD, d, s, n);
      break;
    default:
      rc = xshmem_float_sum_exscan(XSHMEM_TEAM_WORLD, d, s, n);
      break;
  }
  GT_CHECK(rc == 0, -1, 0, rc);
  GT_CUDA(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; ++i) {
    const float want = expected<float>(op, 0, 1, gt::npes, gt::me, i, iter);
    GT_CHECK(h[i] == want, i, (long long)want, (long long)h[i]);
  }
}

// ---- Complex sums and products (COLL-08: complexd, complexf) -----------------------------------
// cx<F> has the layout of xshmem_complexd_t / xshmem_complexf_t (C's _Complex), passed through a
// cast. Sums: parts are halves of integers; products: Gaussian integers with a nonzero real part
// in {-2, -1, 1, 2} and an imaginary part in -2..2. Every result is exact and must equal the
// textbook combination in team order.
template <typename F>
struct cx {
  F re, im;
};
template <typename F>
__host__ __device__ cx<F> cgen(int op, int pe, size_t i, uint64_t iter) {
  const uint64_t h = mix(mix(mix(static_cast<uint64_t>(pe) * 131 + op + 7) + i) + iter);
  if (op == kProd) {
    const F re = static_cast<F>((h & 3) < 2 ? int(h & 3) - 2 : int(h & 3) - 1);
    return cx<F>{re, static_cast<F>(static_cast<int>((h >> 8) % 5) - 2)};
  }
  return cx<F>{static_cast<F>(static_cast<int64_t>(h % 200001) - 100000) / F(2),
               static_cast<F>(static_cast<int64_t>(mix(h) % 200001) - 100000) / F(2)};
}
template <typename F>
__host__ __device__ cx<F> ccombine(int op, cx<F> a, cx<F> b) {
  if (op == kProd) return cx<F>{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  return cx<F>{a.re + b.re, a.im + b.im};
}
template <typename F>
__host__ __device__ cx<F> cexpected(int op, int start, int stride, int size, size_t i,
                                    uint64_t iter) {
  cx<F> acc = cgen<F>(op, start, i, iter);
  for (int k = 1; k < size; ++k)
    acc = ccombine<F>(op, acc, cgen<F>(op, start + k * stride, i, iter));
  return acc;
}
template <typename F>
constexpr size_t cbig() {
  return (size_t{128} << 10) / sizeof(cx<F>) + 37;  // > the 128 KiB team scratch
}

#define GT_CX_CALLS(N, C)                                                                    \
  __device__ int ccall(int op, int form, unsigned tid, xshmem_team_t team, C *d, const C *s, \
                       size_t n) {                                                           \
    if (op == kSum) return GT_CALL(N, sum_reduce);                                           \
    if (op == kProd) return GT_CALL(N, prod_reduce);                                         \
    return -2;                                                                               \
  }
GT_CX_CALLS(complexd, xshmem_complexd_t)
GT_CX_CALLS(complexf, xshmem_complexf_t)
#undef GT_CX_CALLS
template <typename F>
using public_cx =
    std::conditional_t<std::is_same_v<F, double>, xshmem_complexd_t, xshmem_complexf_t>;

// One block: form as reduce_kernel's; the team is teams[0].
template <typename F>
__global__ void complex_kernel(const TeamDesc *teams, cx<F> *dest, cx<F> *source, size_t n, int op,
                               int form, bool in_place, int my_pe, uint64_t iter) {
  using C = public_cx<F>;
  static_assert(sizeof(C) == sizeof(cx<F>) && alignof(C) == alignof(cx<F>), "layout");
  const TeamDesc t = teams[0];
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  cx<F> *s = in_place ? dest : source;
  for (size_t i = tid; i < n; i += threads) s[i] = cgen<F>(op, my_pe, i, iter);
  __syncthreads();
  const int rc = ccall(op, form, tid, t.handle, reinterpret_cast<C *>(dest),
                       reinterpret_cast<const C *>(s), n);
  GT_CHECK(rc == 0, -1, 0, rc);
  __syncthreads();
  for (size_t i = tid; i < n; i += threads) {
    const cx<F> want = cexpected<F>(op, t.start, t.stride, t.size, i, iter);
    GT_CHECK(dest[i].re == want.re, i, (long long)want.re, (long long)dest[i].re);
    GT_CHECK(dest[i].im == want.im, i, (long long)want.im, (long long)dest[i].im);
  }
}

template <typename F>
void complex_case(TeamDesc *teams, void *dest, void *source, size_t n, int op, int form,
                  bool in_place, uint64_t iter) {
  gt::barrier();
  cx<F> *d = static_cast<cx<F> *>(dest), *s = static_cast<cx<F> *>(source);
  bool ip = in_place;
  int my_pe = gt::me;
  dim3 block = form == 2 ? dim3(8, 4, 4) : dim3(256);
  void *args[] = {&teams, &d, &s, &n, &op, &form, &ip, &my_pe, &iter};
  GT_CUDA(xshmemx_collective_launch(reinterpret_cast<const void *>(complex_kernel<F>), dim3(1),
                                    block, args, 0, nullptr));
  gt::device_sync("complex reduce kernel");
}

// The host API on the GPU heap (the runtime's kernel on its complex type codes).
template <typename F>
void complex_host_case(void *dest, void *source, size_t n, int op, uint64_t iter) {
  using C = public_cx<F>;
  gt::barrier();
  std::vector<cx<F>> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = cgen<F>(op, gt::me, i, iter);
  GT_CUDA(cudaMemcpy(source, h.data(), n * sizeof(cx<F>), cudaMemcpyHostToDevice));
  C *d = static_cast<C *>(dest);
  const C *s = static_cast<const C *>(source);
  int rc = -1;
  if constexpr (std::is_same_v<F, double>) {
    rc = op == kSum ? xshmem_complexd_sum_reduce(XSHMEM_TEAM_WORLD, d, s, n)
                    : xshmem_complexd_prod_reduce(XSHMEM_TEAM_WORLD, d, s, n);
  } else {
    rc = op == kSum ? xshmem_complexf_sum_reduce(XSHMEM_TEAM_WORLD, d, s, n)
                    : xshmem_complexf_prod_reduce(XSHMEM_TEAM_WORLD, d, s, n);
  }
  GT_CHECK(rc == 0, -1, 0, rc);
  GT_CUDA(cudaMemcpy(h.data(), dest, n * sizeof(cx<F>), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; ++i) {
    const cx<F> want = cexpected<F>(op, 0, 1, gt::npes, i, iter);
    GT_CHECK(h[i].re == want.re && h[i].im == want.im, i, (long long)want.re, (long long)h[i].re);
  }
}

}  // namespace

int main() {
  gt::start("gpu_coll_reduce");
  // Two blocks' worth of the widest type, and the largest host case.
  const size_t bytes = std::max(2 * kBig * sizeof(double), kHostGrid * sizeof(float));
  void *dest = xshmem_malloc(bytes), *source = xshmem_malloc(bytes);
  if (dest == nullptr || source == nullptr) return 1;
  xshmem_team_t rev = XSHMEM_TEAM_INVALID;
  const int n = gt::npes;
  if (xshmem_team_split_strided(XSHMEM_TEAM_WORLD, n - 1, -1, n, nullptr, 0, &rev) != 0) return 1;
  TeamDesc host_teams[2] = {describe(XSHMEM_TEAM_WORLD), describe(rev)};
  TeamDesc *teams = nullptr;
  GT_CUDA(cudaMalloc(&teams, sizeof host_teams));
  GT_CUDA(cudaMemcpy(teams, host_teams, sizeof host_teams, cudaMemcpyHostToDevice));
  const char *form_name[] = {"T", "W", "B"};
  const size_t sizes[] = {1, 77, 5003, kBig};
  uint64_t iter = 1;
  char name[160];
  for (int form = 0; form < 3; ++form) {
    for (int op : {kSum, kMax, kMin, kProd, kInscan, kExscan}) {
      for (size_t sz : sizes) {
        for (bool ip : {false, true}) {
          snprintf(name, sizeof name, "COLL-%s float_%s n=%zu%s %s", op >= kInscan ? "09" : "08",
                   kOpName[op], sz, ip ? " in place" : "", form_name[form]);
          gt::run(name,
                  [&] { device_case<float>(teams, 1, dest, source, sz, op, form, ip, 1, iter); });
          iter += 64;
        }
      }
    }
    for (int op : {kAnd, kOr, kXor, kSum, kProd, kMax}) {
      snprintf(name, sizeof name, "COLL-08 uint32_%s n=5003 and n=%zu %s", kOpName[op], kBig,
               form_name[form]);
      gt::run(name, [&] {
        device_case<uint32_t>(teams, 1, dest, source, 5003, op, form, false, 1, iter);
        device_case<uint32_t>(teams, 1, dest, source, kBig, op, form, true, 1, iter + 1);
      });
      iter += 64;
    }
    for (int op : {kSum, kMin, kInscan}) {
      snprintf(name, sizeof name, "COLL-08 int_%s, double_%s n=77 and n=%zu %s", kOpName[op],
               kOpName[op], kBig, form_name[form]);
      gt::run(name, [&] {
        device_case<int>(teams, 1, dest, source, 77, op, form, false, 1, iter);
        device_case<int>(teams, 1, dest, source, kBig, op, form, false, 1, iter + 1);
        device_case<double>(teams, 1, dest, source, 77, op, form, false, 1, iter + 2);
        device_case<double>(teams, 1, dest, source, kBig, op, form, true, 1, iter + 3);
      });
      iter += 64;
    }
    const int b2b = gt::scaled(50, 10, 4);  // a round trip (or more) each
    snprintf(name, sizeof name, "COLL-11 float_sum x%d back to back, n=77 and n=5003 %s", b2b,
             form_name[form]);
    gt::run(name, [&] {
      device_case<float>(teams, 1, dest, source, 77, kSum, form, false, b2b, iter);
      device_case<float>(teams, 1, dest, source, 5003, kSum, form, true, b2b, iter + 4096);
    });
    iter += 8192;
    snprintf(name, sizeof name, "COLL-12 two blocks: world and reversed team at once, %s",
             form_name[form]);
    gt::run(name, [&] {
      device_case<float>(teams, 2, dest, source, 5003, kSum, form, false, 10, iter);
      device_case<float>(teams, 2, dest, source, kBig / 2, kInscan, form, false, 3, iter + 4096);
    });
    iter += 8192;
  }
  for (int op : {kSum, kMax, kInscan, kExscan}) {
    snprintf(name, sizeof name,
             "COLL-0%s float_%s host API on the GPU heap, n=77, n=%zu and n=%zu H",
             op >= kInscan ? "9" : "8", kOpName[op], kBig, kHostGrid);
    gt::run(name, [&] {
      host_case(dest, source, 77, op, false, iter);
      host_case(dest, source, kBig, op, true, iter + 1);
      // Over 1 MiB: sums and max take the multi-block kernels (rsag by a grid) unless
      // XSHMEM_COLL_REDUCE_ALGO=direct.
      host_case(dest, source, kHostGrid, op, false, iter + 2);
    });
    iter += 64;
  }
  for (int form = 0; form < 3; ++form) {
    for (int op : {kSum, kProd}) {
      snprintf(name, sizeof name, "COLL-08 complexd_%s, complexf_%s n=77 and big %s", kOpName[op],
               kOpName[op], form_name[form]);
      gt::run(name, [&] {
        complex_case<double>(teams, dest, source, 77, op, form, false, iter);
        complex_case<double>(teams, dest, source, cbig<double>(), op, form, true, iter + 1);
        complex_case<float>(teams, dest, source, 77, op, form, true, iter + 2);
        complex_case<float>(teams, dest, source, cbig<float>(), op, form, false, iter + 3);
      });
      iter += 64;
    }
  }
  for (int op : {kSum, kProd}) {
    snprintf(name, sizeof name, "COLL-08 complexd_%s, complexf_%s host API on the GPU heap H",
             kOpName[op], kOpName[op]);
    gt::run(name, [&] {
      complex_host_case<double>(dest, source, cbig<double>(), op, iter);
      complex_host_case<float>(dest, source, 77, op, iter + 1);
    });
    iter += 64;
  }
  gt::run("COLL-10 nreduce 0 with NULL H", [&] {
    GT_CHECK(xshmem_float_sum_reduce(XSHMEM_TEAM_WORLD, nullptr, nullptr, 0) == 0, 0, 0, 1);
  });
  gt::barrier();
  GT_CUDA(cudaFree(teams));
  xshmem_team_destroy(rev);
  xshmem_free(source);
  xshmem_free(dest);
  return gt::finish();
}
