// selfops: one PE's device operations on itself, through the same path code as on a peer.
//
// The single-GPU form of the "no slower after the seam change" check (issue 12): when only one
// GPU is lent, PE 0 runs the device API on its own heap (the path byte of PE 0 is LSA, so every
// call goes through the dispatchers and the LSA path code exactly as to an NVLink peer). Only
// public headers are used, so the same file builds against an older tree's headers and library
// for a side-by-side comparison (plain nvcc, no -rdc, like examples/gpu_ring.cu):
//   nvcc -arch=sm_90 -O2 -std=c++17 selfops.cu -I<tree>/core/include -I<tree>/device/include \
//        -I<tree>/plugins/include -L<lib> -lxshmem -o selfops
// Run: xshmem-run -n 1 ./selfops [reps]. One line per metric: name, median over reps, min, max,
// unit. Every metric checks what it moved (a wrong value fails the program with exit 1).
//   put_bw_64MiB / get_bw_64MiB   GB/s, 32 blocks x 1024 threads, block-wide nbi copies + quiet
//   p_lat / g_lat                 ns per xshmem_int_p / dependent xshmem_int_g, one thread
//   fetch_add_lat                 ns per dependent xshmem_uint64_atomic_fetch_add, one thread
//   fetch_add_indep_lat           ns per independent fetch_add (results dead but the last)
//   put_signal_lat_8B             ns per 8-byte put_signal + wait for the signal, one thread
//   barrier_all_block_lat         ns per xshmemx_barrier_all_block, one block of 1024 threads
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

#define CK(call)                                                                  \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) {                                                      \
      fprintf(stderr, "selfops: %s failed: %s\n", #call, cudaGetErrorString(e_)); \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

constexpr int kIters = 10000;
constexpr size_t kBwBytes = size_t{64} << 20;
constexpr int kBwBlocks = 32;

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void fill(uint32_t *p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x)
    p[i] = static_cast<uint32_t>(i) * 2654435761u + seed;
}
__global__ void verify(const uint32_t *p, size_t n, uint32_t seed, unsigned *bad) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x)
    if (p[i] != static_cast<uint32_t>(i) * 2654435761u + seed) atomicAdd(bad, 1u);
}
__global__ void put_bw(uint8_t *dst, const uint8_t *src, size_t chunk, int pe) {
  xshmemx_putmem_nbi_block(dst + blockIdx.x * chunk, src + blockIdx.x * chunk, chunk, pe);
  if (threadIdx.x == 0) xshmem_quiet();
}
__global__ void get_bw(uint8_t *dst, const uint8_t *src, size_t chunk, int pe) {
  xshmemx_getmem_nbi_block(dst + blockIdx.x * chunk, src + blockIdx.x * chunk, chunk, pe);
  if (threadIdx.x == 0) xshmem_quiet();
}
__global__ void p_lat(int *flag, int pe, unsigned long long *ns) {
  const unsigned long long t0 = gtimer();
  for (int i = 0; i < kIters; ++i) xshmem_int_p(flag, i, pe);
  xshmem_quiet();
  ns[0] = gtimer() - t0;
}
__global__ void g_lat(int *chain, int pe, unsigned long long *ns, int *out) {
  int v = 0;
  const unsigned long long t0 = gtimer();
  for (int i = 0; i < kIters; ++i) v = xshmem_int_g(chain + (v & 1), pe);  // dependent loads
  ns[0] = gtimer() - t0;
  out[0] = v;
}
// Dependent: the next address depends on the value fetched (v >> 62 is 0 here, which the compiler
// cannot know), so each call waits for the one before it. fadd_indep_lat is the loop this file
// had until 2026-12-02, `ctr + (v & 0)`: the compiler sees the 0, the calls are independent and
// their results dead but the last, and what it measures is the issue rate of unrolled atomics.
__global__ void fadd_lat(uint64_t *ctr, int pe, unsigned long long *ns, uint64_t *out) {
  uint64_t v = 0;
  const unsigned long long t0 = gtimer();
  for (int i = 0; i < kIters; ++i) v = xshmem_uint64_atomic_fetch_add(ctr + (v >> 62), 1, pe);
  ns[0] = gtimer() - t0;
  out[0] = v;
}
__global__ void fadd_indep_lat(uint64_t *ctr, int pe, unsigned long long *ns, uint64_t *out) {
  uint64_t v = 0;
  const unsigned long long t0 = gtimer();
  for (int i = 0; i < kIters; ++i) v = xshmem_uint64_atomic_fetch_add(ctr + (v & 0), 1, pe);
  ns[0] = gtimer() - t0;
  out[0] = v;
}
__global__ void psig_lat(uint64_t *inbox, const uint64_t *outbox, uint64_t *sig, uint64_t base,
                         int pe, unsigned long long *ns) {
  const unsigned long long t0 = gtimer();
  for (int i = 1; i <= kIters; ++i) {
    xshmem_putmem_signal(inbox, outbox, 8, sig, base + i, XSHMEM_SIGNAL_SET, pe);
    xshmem_signal_wait_until(sig, XSHMEM_CMP_GE, base + i);
  }
  ns[0] = gtimer() - t0;
}
__global__ void barrier_lat(unsigned long long *ns) {
  const unsigned long long t0 = gtimer();
  for (int i = 0; i < 1000; ++i) xshmemx_barrier_all_block();
  if (threadIdx.x == 0) ns[0] = gtimer() - t0;
}

struct Row {
  const char *name, *unit;
  std::vector<double> v;
};

int main(int argc, char **argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("selfops: no GPU here, nothing to do\n");
    return 77;
  }
  const int reps = argc > 1 ? atoi(argv[1]) : 7;
  xshmem_init();
  const int me = xshmem_my_pe();
  uint8_t *dst = static_cast<uint8_t *>(xshmem_malloc(kBwBytes));
  uint8_t *src = static_cast<uint8_t *>(xshmem_malloc(kBwBytes));
  int *flag = static_cast<int *>(xshmem_calloc(4, sizeof(int)));
  uint64_t *ctr = static_cast<uint64_t *>(xshmem_calloc(4, sizeof(uint64_t)));
  uint64_t *box = static_cast<uint64_t *>(xshmem_calloc(4, sizeof(uint64_t)));
  unsigned long long *ns = nullptr;
  unsigned *bad = nullptr;
  int *iout = nullptr;
  uint64_t *uout = nullptr;
  CK(cudaMallocManaged(&ns, 64));
  CK(cudaMallocManaged(&bad, 64));
  CK(cudaMallocManaged(&iout, 64));
  CK(cudaMallocManaged(&uout, 64));
  if (!dst || !src || !flag || !ctr || !box) {
    fprintf(stderr, "selfops: xshmem_malloc failed\n");
    return 1;
  }
  Row rows[] = {{"put_bw_64MiB", "GB/s", {}},
                {"get_bw_64MiB", "GB/s", {}},
                {"p_lat", "ns", {}},
                {"g_lat", "ns", {}},
                {"fetch_add_lat", "ns", {}},
                {"put_signal_lat_8B", "ns", {}},
                {"barrier_all_block_lat", "ns", {}},
                {"fetch_add_indep_lat", "ns", {}}};
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  int failed = 0;
  uint64_t sigbase = 0;
  for (int rep = 0; rep <= reps; ++rep) {  // rep 0 warms up, unrecorded
    const bool keep = rep > 0;
    const size_t chunk = kBwBytes / kBwBlocks;
    for (int dir = 0; dir < 2; ++dir) {
      const uint32_t seed = 0x1234u * (rep + 1) + dir;
      fill<<<256, 256>>>(reinterpret_cast<uint32_t *>(src), kBwBytes / 4, seed);
      CK(cudaMemset(dst, 0, kBwBytes));
      CK(cudaDeviceSynchronize());
      CK(cudaEventRecord(a));
      if (dir == 0)
        put_bw<<<kBwBlocks, 1024>>>(dst, src, chunk, me);
      else
        get_bw<<<kBwBlocks, 1024>>>(dst, src, chunk, me);
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, a, b));
      *bad = 0;
      verify<<<256, 256>>>(reinterpret_cast<uint32_t *>(dst), kBwBytes / 4, seed, bad);
      CK(cudaDeviceSynchronize());
      if (*bad) {
        fprintf(stderr, "selfops: %s: %u words wrong\n", rows[dir].name, *bad);
        failed = 1;
      }
      if (keep) rows[dir].v.push_back(kBwBytes / (ms * 1e-3) / 1e9);
    }
    p_lat<<<1, 1>>>(flag, me, ns);
    CK(cudaDeviceSynchronize());
    int fv = -1;
    CK(cudaMemcpy(&fv, flag, sizeof fv, cudaMemcpyDeviceToHost));
    if (fv != kIters - 1) {
      fprintf(stderr, "selfops: p_lat: flag %d, expected %d\n", fv, kIters - 1);
      failed = 1;
    }
    if (keep) rows[2].v.push_back(double(ns[0]) / kIters);
    g_lat<<<1, 1>>>(flag, me, ns, iout);
    CK(cudaDeviceSynchronize());
    if (keep) rows[3].v.push_back(double(ns[0]) / kIters);
    struct {
      void (*kernel)(uint64_t *, int, unsigned long long *, uint64_t *);
      Row &row;
    } const fadds[] = {{fadd_lat, rows[4]}, {fadd_indep_lat, rows[7]}};
    for (const auto &f : fadds) {
      CK(cudaMemset(ctr, 0, 8));
      f.kernel<<<1, 1>>>(ctr, me, ns, uout);
      CK(cudaDeviceSynchronize());
      if (*uout != kIters - 1) {
        fprintf(stderr, "selfops: %s: last old value %llu, expected %d\n", f.row.name,
                static_cast<unsigned long long>(*uout), kIters - 1);
        failed = 1;
      }
      if (keep) f.row.v.push_back(double(ns[0]) / kIters);
    }
    psig_lat<<<1, 1>>>(box, box + 1, box + 2, sigbase, me, ns);
    CK(cudaDeviceSynchronize());
    sigbase += kIters;
    uint64_t sv = 0;
    CK(cudaMemcpy(&sv, box + 2, 8, cudaMemcpyDeviceToHost));
    if (sv != sigbase) {
      fprintf(stderr, "selfops: put_signal_lat: signal %llu, expected %llu\n",
              static_cast<unsigned long long>(sv), static_cast<unsigned long long>(sigbase));
      failed = 1;
    }
    if (keep) rows[5].v.push_back(double(ns[0]) / kIters);
    barrier_lat<<<1, 1024>>>(ns);
    CK(cudaDeviceSynchronize());
    if (keep) rows[6].v.push_back(double(ns[0]) / 1000);
  }
  if (me == 0)
    for (Row &r : rows) {
      std::sort(r.v.begin(), r.v.end());
      printf("selfops %-24s %10.3f %10.3f %10.3f %s\n", r.name, r.v[r.v.size() / 2], r.v.front(),
             r.v.back(), r.unit);
    }
  xshmem_free(dst);
  xshmem_free(src);
  xshmem_finalize();
  return failed;
}
