// GPU heap smoke test, 2 or more PEs on one host (xshmem-run -n 2): GPU symmetric heap, nvlink
// mappings and heap growth, checked by kernels.
//
//   1. every PE allocates a block, fills it with a kernel (values derived from PE and index);
//      xshmem_ptr(block, peer) is a mapping, and a kernel reads the peer's whole block through it;
//   2. every PE writes into its peer's block through the mapping; the owner checks it locally;
//   3. growth: blocks adding up to HEAP_SMOKE_GROW_BYTES (default 320M; run it with
//      XSHMEM_CUDA_HEAP_CHUNK smaller than that) are allocated, filled and read through the
//      peer's mapping, so chunks committed after init are mapped by the peers too;
//   4. init and finalize times are printed.
// Exits 77 ("no GPU") where no CUDA device is usable, 1 on any mismatch.
//
// Synchronisation between PEs uses the bootstrap's barrier (xshmemx_oob_barrier) after
// cudaDeviceSynchronize, so the test depends on nothing but the heap and the mappings.
#define XSHMEM_NO_DEVICE_API 1  // plain host declarations: this test checks the heap, not the API
#include <cuda_runtime.h>
#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

int g_me = -1;

#define CUDA_OK(call)                                                            \
  do {                                                                           \
    cudaError_t e_ = (call);                                                     \
    if (e_ != cudaSuccess) {                                                     \
      fprintf(stderr, "heap_smoke: pe %d: %s failed: %s (%s:%d)\n", g_me, #call, \
              cudaGetErrorString(e_), __FILE__, __LINE__);                       \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

// The value element i of a block holds: written by `src` for owner `dst` in phase `phase`.
__host__ __device__ uint32_t value(int src, int dst, size_t i, int phase) {
  uint64_t x = (static_cast<uint64_t>(src) << 48) ^ (static_cast<uint64_t>(dst) << 40) ^
               (static_cast<uint64_t>(phase) << 32) ^ i;
  x *= 0x9E3779B97F4A7C15ull;
  return static_cast<uint32_t>(x >> 32);
}

__global__ void fill(uint32_t *p, size_t n, int src, int dst, int phase) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    p[i] = value(src, dst, i, phase);
}

// Counts mismatches; keeps the first bad index.
__global__ void check(const uint32_t *p, size_t n, int src, int dst, int phase,
                      unsigned long long *bad, unsigned long long *first) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    if (p[i] != value(src, dst, i, phase)) {
      atomicAdd(bad, 1ull);
      atomicMin(first, static_cast<unsigned long long>(i));
    }
  }
}

int failures = 0;

// Runs `check` over n elements at p; reports and counts a failure.
void expect_block(const char *what, const uint32_t *p, size_t n, int src, int dst, int phase) {
  unsigned long long *res = nullptr;
  CUDA_OK(cudaMallocManaged(&res, 2 * sizeof(unsigned long long)));
  res[0] = 0;
  res[1] = ~0ull;
  check<<<264, 512>>>(p, n, src, dst, phase, res, res + 1);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  if (res[0] != 0) {
    ++failures;
    uint32_t got = 0;
    CUDA_OK(cudaMemcpy(&got, p + res[1], sizeof(got), cudaMemcpyDefault));
    fprintf(stderr,
            "heap_smoke: pe %d: %s: %llu of %zu elements wrong; first at %llu: got %08x, "
            "expected %08x (src pe %d, owner pe %d, phase %d)\n",
            g_me, what, res[0], n, res[1], got, value(src, dst, res[1], phase), src, dst, phase);
  }
  CUDA_OK(cudaFree(res));
}

void fill_block(uint32_t *p, size_t n, int src, int dst, int phase) {
  fill<<<264, 512>>>(p, n, src, dst, phase);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
}

void barrier() {
  if (xshmemx_oob_barrier() != 0) {
    fprintf(stderr, "heap_smoke: pe %d: xshmemx_oob_barrier failed\n", g_me);
    exit(1);
  }
}

size_t env_size(const char *name, size_t dflt) {
  const char *v = getenv(name);
  if (!v || !*v) return dflt;
  char *end = nullptr;
  double x = strtod(v, &end);
  switch (end && *end ? *end : ' ') {
    case 'K':
    case 'k':
      x *= 1024.0;
      break;
    case 'M':
    case 'm':
      x *= 1024.0 * 1024;
      break;
    case 'G':
    case 'g':
      x *= 1024.0 * 1024 * 1024;
      break;
    default:
      break;
  }
  return static_cast<size_t>(x);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main() {
  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess || ndev == 0) {
    printf("heap_smoke: SKIP: no GPU (%s)\n",
           e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device visible");
    return 77;
  }

  auto t0 = std::chrono::steady_clock::now();
  xshmem_init();
  const double init_s = seconds_since(t0);
  const int me = g_me = xshmem_my_pe(), npes = xshmem_n_pes();
  if (npes < 2) {
    fprintf(stderr, "heap_smoke: needs at least 2 PEs (run it with xshmem-run -n 2)\n");
    return 1;
  }
  const int peer = (me + 1) % npes, from = (me + npes - 1) % npes;

  // The runtime's default device choice on one host: the PE's local rank (= its PE number when
  // every PE runs on this host) modulo the visible devices, or XSHMEM_CUDA_DEVICE.
  const char *forced = getenv("XSHMEM_CUDA_DEVICE");
  const int dev = forced && atoi(forced) >= 0 ? atoi(forced) : me % ndev;
  CUDA_OK(cudaSetDevice(dev));
  printf("heap_smoke: pe %d of %d on cuda device %d of %d, transport to pe %d: %s\n", me, npes, dev,
         ndev, peer, xshmemx_transport_name(peer) ? xshmemx_transport_name(peer) : "(none)");

  // ---- 1 and 2: one block, read and written through the peer's mapping ----------------------
  const size_t n = (size_t(4) << 20) + 37;  // not a multiple of anything convenient
  auto *buf = static_cast<uint32_t *>(xshmem_malloc(n * sizeof(uint32_t)));
  auto *inbox = static_cast<uint32_t *>(xshmem_malloc(n * sizeof(uint32_t)));
  if (!buf || !inbox) {
    fprintf(stderr, "heap_smoke: pe %d: xshmem_malloc returned NULL\n", me);
    return 1;
  }
  cudaPointerAttributes attr{};
  CUDA_OK(cudaPointerGetAttributes(&attr, buf));
  if (attr.type != cudaMemoryTypeDevice || attr.device != dev) {
    ++failures;
    fprintf(stderr,
            "heap_smoke: pe %d: heap block %p is memory type %d on device %d, expected "
            "device memory on device %d\n",
            me, static_cast<void *>(buf), int(attr.type), attr.device, dev);
  }
  if (xshmem_ptr(buf, me) != buf) {
    ++failures;
    fprintf(stderr, "heap_smoke: pe %d: xshmem_ptr(buf, self) = %p, expected %p\n", me,
            xshmem_ptr(buf, me), static_cast<void *>(buf));
  }
  auto *peer_buf = static_cast<uint32_t *>(xshmem_ptr(buf, peer));
  auto *peer_inbox = static_cast<uint32_t *>(xshmem_ptr(inbox, peer));
  if (!peer_buf || !peer_inbox) {
    fprintf(stderr,
            "heap_smoke: pe %d: xshmem_ptr(.., pe %d) is NULL: the peer's heap is not "
            "mapped\n",
            me, peer);
    return 1;
  }
  fill_block(buf, n, me, me, 1);
  barrier();  // every PE's block is written
  expect_block("read of the peer's block through xshmem_ptr", peer_buf, n, peer, peer, 1);
  fill_block(peer_inbox, n, me, peer, 2);  // stores through the mapping
  barrier();
  expect_block("block written by the previous pe through its mapping", inbox, n, from, me, 2);
  barrier();  // nobody frees while a peer still reads

  // ---- 3: growth past the chunks committed so far ---------------------------------------------
  const size_t grow = env_size("HEAP_SMOKE_GROW_BYTES", size_t(320) << 20);
  std::vector<std::pair<uint32_t *, size_t>> blocks;
  for (size_t total = 0, k = 0; total < grow; ++k) {
    size_t bytes = std::min(grow - total, (grow / 3 + 4096) & ~size_t(4095)) + 4 * k;
    auto *p = static_cast<uint32_t *>(xshmem_malloc(bytes));
    if (!p) {
      ++failures;
      fprintf(stderr,
              "heap_smoke: pe %d: growth: xshmem_malloc(%zu) returned NULL after %zu "
              "bytes\n",
              me, bytes, total);
      break;
    }
    blocks.emplace_back(p, bytes / sizeof(uint32_t));
    total += bytes;
  }
  for (size_t k = 0; k < blocks.size(); ++k)
    fill_block(blocks[k].first, blocks[k].second, me, me, 10 + int(k));
  barrier();
  for (size_t k = 0; k < blocks.size(); ++k) {
    auto *pp = static_cast<uint32_t *>(xshmem_ptr(blocks[k].first, peer));
    char what[96];
    snprintf(what, sizeof(what), "growth block %zu (%zu bytes) read through the mapping", k,
             blocks[k].second * sizeof(uint32_t));
    if (!pp) {
      ++failures;
      fprintf(stderr, "heap_smoke: pe %d: %s: xshmem_ptr is NULL\n", me, what);
      continue;
    }
    expect_block(what, pp, blocks[k].second, peer, peer, 10 + int(k));
  }
  barrier();
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) xshmem_free(it->first);
  xshmem_free(inbox);
  xshmem_free(buf);

  auto t1 = std::chrono::steady_clock::now();
  xshmem_finalize();
  const double fin_s = seconds_since(t1);
  printf("heap_smoke: pe %d: %s: init %.3f s, finalize %.3f s, %zu growth blocks\n", me,
         failures ? "FAILED" : "ok", init_s, fin_s, blocks.size());
  return failures ? 1 : 0;
}
