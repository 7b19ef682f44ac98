// The proxy path from GPU threads: kernels enqueue into the engine's rings (pinned host memory
// mapped into the GPU) and the engine's host threads execute the requests with the fake
// transport. Built only with CUDA; needs a GPU (exit 77: skipped, with the reason).
//
// Checks: exact fetch_add totals and distinct fetched values from 1024 GPU threads, per-ctx and
// per-warp channel maps; every inline put lands; every get brings the right word; a kernel that
// spins on a word only its own proxy's put fills still finishes; the latency of one fetching
// atomic from a single GPU thread through the proxy.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <xshmem/device/proxy_ring.h>
#include "fake_transport.h"
#include "proxy/engine.h"

namespace ring = xshmem::dev::proxy::ring;
namespace at = xshmem::dev::atomic;

namespace {

constexpr int kPes = 4;
constexpr size_t kHeap = size_t{1} << 20;

#define CK(x)                                                                    \
  do {                                                                           \
    cudaError_t e_ = (x);                                                        \
    if (e_ != cudaSuccess) {                                                     \
      fprintf(stderr, "proxy_gpu: %s failed: %s\n", #x, cudaGetErrorString(e_)); \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

int failures = 0;
void expect(bool ok, const char *what) {
  printf("%s %s\n", ok ? "pass" : "FAIL", what);
  if (!ok) ++failures;
}

__global__ void producers(const xshmem::dev::state_t *s, ring::channels_t *cs, int iters,
                          uint64_t *fetched, uint64_t *got, int *status) {
  const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  const int32_t ctx = xshmem::dev::ctx_handle(static_cast<int32_t>(gid % 8), 0);
  int st = 0;
  for (int i = 0; i < iters; ++i) {
    uint64_t old = ~0ull;
    st |= ring::amo(*s, cs, ctx, 1, 0, XSHMEM_AMO_FETCH_ADD, XSHMEM_AMO_U64, 1, 0, &old);
    fetched[gid * iters + i] = old;
    st |= ring::amo(*s, cs, ctx, 1, 8, XSHMEM_AMO_ADD, XSHMEM_AMO_U32, 3, 0, nullptr);
  }
  const uint64_t v = 0xC0DE000000000000ull | gid;
  st |= ring::put(*s, cs, ctx, 2, 64 + uint64_t{gid} * 8, &v, 8);  // inline
  st |= ring::get(*s, cs, ctx, 3, &got[gid], uint64_t{gid} * 8, 8);
  st |= ring::quiet(*s, cs, ctx);
  status[gid] = st;
}

// Puts a flag into its own PE's heap (mapped into the GPU) without quiet and spins on it.
__global__ void self_wait(const xshmem::dev::state_t *s, ring::channels_t *cs, uint64_t *word,
                          int *status) {
  const uint64_t flag = 0x5E1F;
  int st = ring::put(*s, cs, 0, 0, 256, &flag, 8, true);
  const uint64_t end = xshmem::dev::wait_now_ns() + 10ull * 1000000000;
  while (at::load_acquire(word) != flag) {
    if (xshmem::dev::wait_now_ns() > end) {
      st = -100;
      break;
    }
  }
  *status = st;
}

__global__ void latency(const xshmem::dev::state_t *s, ring::channels_t *cs, int n, uint64_t *ns) {
  uint64_t old = 0;
  for (int i = 0; i < 100; ++i)
    ring::amo(*s, cs, 0, 1, 16, XSHMEM_AMO_FETCH_ADD, XSHMEM_AMO_U64, 1, 0, &old);
  const uint64_t t0 = xshmem::dev::wait_now_ns();
  for (int i = 0; i < n; ++i)
    ring::amo(*s, cs, 0, 1, 16, XSHMEM_AMO_FETCH_ADD, XSHMEM_AMO_U64, 1, 0, &old);
  *ns = (xshmem::dev::wait_now_ns() - t0) / static_cast<uint64_t>(n);
}

// Every thread's channel under the warp map, blocks of 48 threads in 2D (not a whole number of
// warps): out[block * 48 + linear tid].
__global__ void warp_channels(ring::channels_t *cs, uint32_t *out) {
  const unsigned tid = threadIdx.x + blockDim.x * threadIdx.y;
  out[blockIdx.x * 48 + tid] = ring::pick_channel(cs, 0);
}

void run_map(uint32_t map, const char *name) {
  pt::FakeTransport ft(kPes, kHeap);
  for (size_t i = 0; i < kHeap; ++i) ft.heap(3)[i] = static_cast<unsigned char>(i * 7 + 3);
  xshmem::proxy::Options o;
  o.channels = 4;
  o.slots = 64;
  o.threads = 2;
  o.map = map;
  o.mapped = true;
  std::unique_ptr<xshmem::proxy::Engine> e;
  if (!xshmem::proxy::Engine::create(o, ft.remote_table(), &e).ok()) {
    expect(false, "engine with mapped rings starts");
    return;
  }
  xshmem::dev::state_t hs;
  hs.my_pe = 0;
  hs.n_pes = kPes;
  hs.wait_timeout_ns = 20ull * 1000000000;
  xshmem::dev::state_t *ds = nullptr;
  CK(cudaMalloc(&ds, sizeof hs));
  CK(cudaMemcpy(ds, &hs, sizeof hs, cudaMemcpyHostToDevice));
  constexpr int kBlocks = 16, kThreads = 64, kIters = 8, kN = kBlocks * kThreads;
  uint64_t *fetched = nullptr;
  int *status = nullptr;
  uint64_t *got = nullptr;  // mapped host memory: the fake transport's get writes it
  CK(cudaMalloc(&fetched, sizeof(uint64_t) * kN * kIters));
  CK(cudaMalloc(&status, sizeof(int) * kN));
  CK(cudaHostAlloc(&got, sizeof(uint64_t) * kN, cudaHostAllocMapped));
  memset(got, 0, sizeof(uint64_t) * kN);
  const auto t0 = std::chrono::steady_clock::now();
  producers<<<kBlocks, kThreads>>>(ds, e->device_channels(), kIters, fetched, got, status);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::vector<uint64_t> f(kN * kIters);
  std::vector<int> st(kN);
  CK(cudaMemcpy(f.data(), fetched, sizeof(uint64_t) * f.size(), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(st.data(), status, sizeof(int) * kN, cudaMemcpyDeviceToHost));
  char what[200];
  snprintf(what, sizeof what, "[%s] every GPU thread's calls returned success", name);
  expect(std::all_of(st.begin(), st.end(), [](int v) { return v == 0; }), what);
  uint64_t total = 0;
  uint32_t total32 = 0;
  memcpy(&total, ft.heap(1), 8);
  memcpy(&total32, ft.heap(1) + 8, 4);
  snprintf(what, sizeof what, "[%s] fetch_add total %" PRIu64 " == %d, add total %u == %d", name,
           total, kN * kIters, total32, kN * kIters * 3);
  expect(total == uint64_t{kN} * kIters && total32 == uint32_t{kN} * kIters * 3, what);
  std::sort(f.begin(), f.end());
  bool perm = true;
  for (size_t i = 0; i < f.size(); ++i) perm &= f[i] == i;
  snprintf(what, sizeof what, "[%s] the %d fetched values are 0 .. %d, each once", name,
           kN * kIters, kN * kIters - 1);
  expect(perm, what);
  int bad_put = 0, bad_get = 0;
  for (int g = 0; g < kN; ++g) {
    uint64_t v = 0, w = 0;
    memcpy(&v, ft.heap(2) + 64 + g * 8, 8);
    memcpy(&w, ft.heap(3) + g * 8, 8);
    bad_put += v != (0xC0DE000000000000ull | static_cast<uint64_t>(g));
    bad_get += got[g] != w;
  }
  snprintf(what, sizeof what, "[%s] %d inline puts landed (%d wrong), %d gets right (%d wrong)",
           name, kN, bad_put, kN, bad_get);
  expect(bad_put == 0 && bad_get == 0, what);
  uint64_t used = 0;
  for (uint32_t c = 0; c < 4; ++c) used += ring::channel(e->host_channels(), c)->issued != 0;
  snprintf(what, sizeof what, "[%s] %" PRIu64 " of 4 channels carried requests", name, used);
  expect(used == 4, what);
  printf("proxy gpu [%s]: %d threads x %d fetch_add + add, put, get, quiet: %.1f ms\n", name, kN,
         kIters, ms);

  if (map == ring::kMapWarp) {
    // The hardware warp picks the channel: blocks of 48 threads hold warps of 32 and 16 lanes;
    // the channel of block b's warp w is (2b + w) mod 4 for every lane of it.
    constexpr int kB = 5, kT = 48;
    uint32_t *chans = nullptr;
    CK(cudaMallocManaged(&chans, sizeof(uint32_t) * kB * kT));
    warp_channels<<<kB, dim3(16, 3)>>>(e->device_channels(), chans);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int wrong = 0;
    for (int b = 0; b < kB; ++b)
      for (int t = 0; t < kT; ++t) wrong += chans[b * kT + t] != uint32_t(2 * b + t / 32) % 4;
    snprintf(what, sizeof what,
             "[%s] every lane of a warp uses its warp's channel (48-thread blocks): %d wrong", name,
             wrong);
    expect(wrong == 0, what);
    CK(cudaFree(chans));
  }
  if (map == ring::kMapCtx) {
    // Self-progress: a kernel spins on a word of its own heap that only its proxy's put fills.
    CK(cudaHostRegister(ft.heap(0), kHeap, cudaHostRegisterMapped));
    uint64_t *word = nullptr;
    CK(cudaHostGetDevicePointer(reinterpret_cast<void **>(&word), ft.heap(0) + 256, 0));
    self_wait<<<1, 1>>>(ds, e->device_channels(), word, status);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int s0 = -1;
    CK(cudaMemcpy(&s0, status, sizeof s0, cudaMemcpyDeviceToHost));
    expect(s0 == 0, "a kernel spinning on data its own proxy delivers finishes");
    uint64_t *ns = nullptr;
    CK(cudaMalloc(&ns, sizeof *ns));
    latency<<<1, 1>>>(ds, e->device_channels(), 2000, ns);
    CK(cudaDeviceSynchronize());
    uint64_t per = 0;
    CK(cudaMemcpy(&per, ns, sizeof per, cudaMemcpyDeviceToHost));
    printf("proxy gpu: one GPU thread's fetch_add through the proxy: %" PRIu64 " ns per call\n",
           per);
    CK(cudaFree(ns));
    e.reset();  // before the heap goes away
    CK(cudaHostUnregister(ft.heap(0)));
  }
  e.reset();
  CK(cudaFreeHost(got));
  CK(cudaFree(status));
  CK(cudaFree(fetched));
  CK(cudaFree(ds));
}

}  // namespace

int main() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    printf("skip: no CUDA device (cudaGetDeviceCount gave %d)\n", n);
    return 77;
  }
  CK(cudaSetDevice(0));
  run_map(ring::kMapCtx, "ctx map");
  run_map(ring::kMapWarp, "warp map");
  printf("proxy gpu: %d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
