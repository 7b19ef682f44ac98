// dispatch: what the device dispatchers cost, without a runtime.
//
// The public device API (xshmem.h) on a device state made by hand: no xshmem_init, no
// libxshmem (the state-sink registration is stubbed here). PE 0 and PE 1 are both LSA peers
// mapped onto one cudaMalloc'ed heap, so every call runs the dispatcher's LSA case exactly as to
// an NVLink peer. Only headers are used, so the same file builds against any tree's headers, and
// builds of two trees run side by side on one GPU (issue 12: the seam change's cost):
//   nvcc -arch=sm_90 -O2 -std=c++17 dispatch.cu -I<tree>/core/include -I<tree>/device/include \
//        -I<tree>/plugins/include -I<build>/core/include -o dispatch_<tree>
//   ./dispatch_<tree> <tag> [reps]
// One line per metric: tag, name, median over reps. Latencies in ns per call (one thread), block
// copies in GB/s (32 blocks x 1024 threads, nbi + quiet). fadd_sum and fadd_dep are the loops of
// xshmem-perf's dev.atomic_fetch_add_lat and _chain_lat; fadd_chain, fadd_indep and add are
// loops whose results the compiler may drop (it turns them into reductions).
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

#if defined(XSHMEM_DEVICE_STATE_LAYOUT)
extern "C" int xshmemi_register_device_state_sink2(int, const char *,
                                                   int (*)(const void *, size_t, int)) {
  return 0;
}
#else
extern "C" int xshmemi_register_device_state_sink(int (*)(const void *, size_t, int)) {
  return 0;
}
#endif

#define CK(call)                                                            \
  do {                                                                      \
    cudaError_t e_ = (call);                                                \
    if (e_ != cudaSuccess) {                                                \
      fprintf(stderr, "dispatch: %s: %s\n", #call, cudaGetErrorString(e_)); \
      exit(1);                                                              \
    }                                                                       \
  } while (0)

constexpr int kIters = 20000;
__device__ __forceinline__ unsigned long long gt() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__global__ void k_fadd_chain(uint64_t *ctr, int pe, unsigned long long *ns, uint64_t *out) {
  uint64_t v = 0;
  auto t0 = gt();
  for (int i = 0; i < kIters; ++i) v = xshmem_uint64_atomic_fetch_add(ctr + (v & 0), 1, pe);
  ns[0] = gt() - t0;
  out[0] = v;
}
__global__ void k_fadd_indep(uint64_t *ctr, int pe, unsigned long long *ns, uint64_t *out) {
  uint64_t v = 0;
  auto t0 = gt();
  for (int i = 0; i < kIters; ++i) v += xshmem_uint64_atomic_fetch_add(ctr + (i & 7), 1, pe);
  ns[0] = gt() - t0;
  out[0] = v;
}
__global__ void k_add(uint64_t *ctr, int pe, unsigned long long *ns) {
  auto t0 = gt();
  for (int i = 0; i < kIters; ++i) xshmem_uint64_atomic_add(ctr + (i & 7), 1, pe);
  xshmem_quiet();
  ns[0] = gt() - t0;
}
__global__ void k_g_chain(int *chain, int pe, unsigned long long *ns, int *out) {
  int v = 0;
  auto t0 = gt();
  for (int i = 0; i < kIters; ++i) v = xshmem_int_g(chain + (v & 1), pe);
  ns[0] = gt() - t0;
  out[0] = v;
}
__global__ void k_p(int *flag, int pe, unsigned long long *ns) {
  auto t0 = gt();
  for (int i = 0; i < kIters; ++i) xshmem_int_p(flag + (i & 7), i, pe);
  xshmem_quiet();
  ns[0] = gt() - t0;
}
// kPut: xshmemx_putmem_nbi_block to pe, else xshmemx_getmem_nbi_block from it; `reps` copies of
// n bytes per block, then one quiet.
template <bool kPut>
__global__ void k_block(uint8_t *dst, const uint8_t *src, size_t n, int reps, int pe,
                        unsigned long long *ns) {
  auto t0 = gt();
  for (int r = 0; r < reps; ++r) {
    if constexpr (kPut) {
      xshmemx_putmem_nbi_block(dst + blockIdx.x * n, src + blockIdx.x * n, n, pe);
    } else {
      xshmemx_getmem_nbi_block(dst + blockIdx.x * n, src + blockIdx.x * n, n, pe);
    }
  }
  if (threadIdx.x == 0) xshmem_quiet();
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) ns[0] = gt() - t0;
}

__global__ void k_fadd_sum(uint64_t *ctr, int peer, unsigned long long *ns, uint64_t *out) {
  uint64_t acc = 0;
  auto t0 = gt();
  for (int i = 0; i < kIters; ++i)
    acc += xshmem_uint64_atomic_fetch_add(ctr, uint64_t(i % 7) + 1, peer);
  ns[0] = gt() - t0;
  out[0] = acc;
}
__global__ void k_fadd_dep(uint64_t *ctr, int peer, unsigned long long *ns, uint64_t *out) {
  uint64_t inc = 1, x = 0;
  auto t0 = gt();
  for (int i = 0; i < kIters; ++i) {
    const uint64_t old = xshmem_uint64_atomic_fetch_add(ctr, inc, peer);
    x += old;
    inc = (old & 3) + 1;
  }
  ns[0] = gt() - t0;
  out[0] = x;
}
__global__ void k_psig(uint64_t *inbox, const uint64_t *outbox, uint64_t *sig, int pe,
                       unsigned long long *ns) {
  const uint64_t base = sig[0];
  auto t0 = gt();
  for (int i = 1; i <= kIters / 4; ++i) {
    xshmem_putmem_signal(inbox, outbox, 8, sig, base + i, XSHMEM_SIGNAL_SET, pe);
    xshmem_signal_wait_until(sig, XSHMEM_CMP_GE, base + i);
  }
  ns[0] = gt() - t0;
}

static double med(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char **argv) {
  const char *tag = argc > 1 ? argv[1] : "?";
  const int reps = argc > 2 ? atoi(argv[2]) : 9;
  const size_t heap = size_t{160} << 20;
  uint8_t *h = nullptr;
  CK(cudaMalloc(&h, heap));
  CK(cudaMemset(h, 0, heap));
  xshmem::dev::peer_t peers[2] = {};
  for (auto &p : peers) {
    p.path = XSHMEM_PATH_LSA;
    p.base = reinterpret_cast<uintptr_t>(h);
  }
  xshmem::dev::peer_t *dpeers = nullptr;
  CK(cudaMalloc(&dpeers, sizeof peers));
  CK(cudaMemcpy(dpeers, peers, sizeof peers, cudaMemcpyHostToDevice));
  xshmem::dev::state_t s{};
#if defined(XSHMEM_DEVICE_STATE_LAYOUT)
  s.layout = XSHMEM_DEVICE_STATE_LAYOUT;
#endif
  s.my_pe = 0;
  s.n_pes = 2;
  s.heap_base = reinterpret_cast<uintptr_t>(h);
  s.heap_size = heap;
  s.peers = dpeers;
  s.internal = reinterpret_cast<xshmem::dev::internal_region_t *>(h);
  CK(cudaMemcpyToSymbol(xshmemi_dstate, &s, sizeof s));
  const size_t off = (sizeof(xshmem::dev::internal_region_t) + 4095) & ~size_t{4095};
  uint64_t *ctr = reinterpret_cast<uint64_t *>(h + off);
  int *ints = reinterpret_cast<int *>(h + off + 4096);
  uint8_t *dst = h + off + 8192;
  uint8_t *src = dst + (size_t{64} << 20);
  unsigned long long *ns;
  uint64_t *u;
  int *iv;
  CK(cudaMallocManaged(&ns, 64));
  CK(cudaMallocManaged(&u, 64));
  CK(cudaMallocManaged(&iv, 64));
  const int pe = 1;
  struct R {
    const char *name;
    std::vector<double> v;
  };
  std::vector<R> rows = {
      {"fadd_sum_ns"},     {"fadd_dep_ns"},     {"psig_ns"},         {"fadd_chain_ns"},
      {"fadd_indep_ns"},   {"add_ns"},          {"g_chain_ns"},      {"p_ns"},
      {"put_blk_4K_GBs"},  {"put_blk_64K_GBs"}, {"put_blk_1M_GBs"},  {"get_blk_4K_GBs"},
      {"get_blk_64K_GBs"}, {"get_blk_1M_GBs"},  {"put_perf_1M_GBs"}, {"get_perf_1M_GBs"}};
  for (int r = 0; r <= reps; ++r) {
    int k = 0;
    auto rec = [&](double x) {
      if (r > 0) rows[k].v.push_back(x);
      ++k;
    };
    k_fadd_sum<<<1, 1>>>(ctr + 16, pe, ns, u);
    CK(cudaDeviceSynchronize());
    rec(double(ns[0]) / kIters);
    k_fadd_dep<<<1, 1>>>(ctr + 24, pe, ns, u);
    CK(cudaDeviceSynchronize());
    rec(double(ns[0]) / kIters);
    k_psig<<<1, 1>>>(ctr + 32, ctr + 40, ctr + 48, pe, ns);
    CK(cudaDeviceSynchronize());
    rec(double(ns[0]) / (kIters / 4));
    k_fadd_chain<<<1, 1>>>(ctr, pe, ns, u);
    CK(cudaDeviceSynchronize());
    rec(double(ns[0]) / kIters);
    k_fadd_indep<<<1, 1>>>(ctr, pe, ns, u);
    CK(cudaDeviceSynchronize());
    rec(double(ns[0]) / kIters);
    k_add<<<1, 1>>>(ctr, pe, ns);
    CK(cudaDeviceSynchronize());
    rec(double(ns[0]) / kIters);
    k_g_chain<<<1, 1>>>(ints, pe, ns, iv);
    CK(cudaDeviceSynchronize());
    rec(double(ns[0]) / kIters);
    k_p<<<1, 1>>>(ints + 8, pe, ns);
    CK(cudaDeviceSynchronize());
    rec(double(ns[0]) / kIters);
    const size_t sizes[3] = {4096, 65536, size_t{1} << 20};
    for (int dir = 0; dir < 2; ++dir)
      for (size_t n : sizes) {
        const int blocks = 32;
        const int rp = n >= (size_t{1} << 20) ? 2 : int((size_t{1} << 21) / n);
        (dir == 0 ? k_block<true> : k_block<false>)<<<blocks, 1024>>>(dst, src, n, rp, pe, ns);
        CK(cudaDeviceSynchronize());
        rec(double(n) * blocks * rp / double(ns[0]));
      }
    // xshmem-perf's dev.put_bw / dev.get_bw grid at 1 MiB: 256 blocks x 512 threads, 4 KiB per
    // block, 50 iterations.
    for (int dir = 0; dir < 2; ++dir) {
      (dir == 0 ? k_block<true> : k_block<false>)<<<256, 512>>>(dst, src, 4096, 50, pe, ns);
      CK(cudaDeviceSynchronize());
      rec(double(size_t{1} << 20) * 50 / double(ns[0]));
    }
  }
  for (auto &row : rows) printf("%s %s %.2f\n", tag, row.name, med(row.v));
  return 0;
}
