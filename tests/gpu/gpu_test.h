// GPU conformance programs: the small harness they share.
//
// Each program is one .cu file run with `xshmem-run -n 2` (any n >= 2 works: PE me talks to its
// right neighbour `peer` and hears from its left neighbour `from`). It exits 77 when no GPU is
// usable or the heap is not GPU memory, 1 when a case failed on any PE, else 0.
//
// Device checks record into a per-program failure record (count, and the first mismatch's line,
// index, expected and seen values), which the harness reads back and resets after each case.
// Host checks use the same record. Every PE reports per case; PE 0 prints one line per case with
// the failure counts of all PEs (gathered over the bootstrap, so a broken data path cannot hide
// a failure).
#ifndef XSHMEM_TESTS_GPU_TEST_H
#define XSHMEM_TESTS_GPU_TEST_H

#include <cuda_runtime.h>
#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <string.h>

#include <chrono>
#include <vector>

namespace gt {

// A 64-bit hash of up to four words: PE-, index- and iteration-dependent test data and seeded
// schedules that every PE (and the host model) can replay.
__host__ __device__ inline uint64_t mix(uint64_t a, uint64_t b = 0, uint64_t c = 0,
                                        uint64_t d = 0) {
  uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full ^
               (c + 0x27D4EB2F165667C5ull) * 0x165667B19E3779F9ull ^
               (d + 0x85EBCA77C2B2AE63ull) * 0xD6E8FEB86659FD93ull;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

// A team as a test sees it, for kernels: world PEs start + k * stride for k < size; `me` is this
// PE's index (-1 when it is not a member).
struct team_desc {
  xshmem_team_t handle;
  int start, stride, size, me;
  __host__ __device__ int wpe(int j) const { return start + j * stride; }
};
inline team_desc describe(xshmem_team_t h) {
  team_desc t{h, 0, 1, 0, -1};
  t.size = xshmem_team_n_pes(h);
  t.me = xshmem_team_my_pe(h);
  t.start = xshmem_team_translate_pe(h, 0, XSHMEM_TEAM_WORLD);
  t.stride = t.size > 1 ? xshmem_team_translate_pe(h, 1, XSHMEM_TEAM_WORLD) - t.start : 1;
  return t;
}

struct failure_t {
  unsigned long long count;
  int line;
  long long index, expected, seen;
};
__device__ failure_t d_fail;
inline failure_t h_fail;  // host checks

inline int me = -1, npes = 0, peer = -1, from = -1;
// PEs of this node per visible GPU (start): above 1 they share a GPU, whose kernels the two
// processes time-slice, and every round trip between them waits for a slice (a thousand times
// slower than between GPUs: ~1-5 ms over nvlink). The cases built on round trips scale their
// counts with scaled().
inline int gpu_sharers = 1;
// Where PEs share a GPU and a proxy transport (libfabric) serves the ring neighbours (start: on
// any PE, `peer` is not a load/store peer), a round trip also waits for the proxy and costs
// ~13.5 ms: scaled() divides by this further factor (10), else 1.
inline int proxy_div = 1;
constexpr int kProxyDiv = 10;
// Whether the nvlink transport serves `pe`.
inline bool nvlink_peer(int pe) {
  const char *t = xshmemx_transport_name(pe);
  return t != nullptr && strcmp(t, "nvlink") == 0;
}
// Whether this PE reaches `pe` by load/store (itself, or an NVLink peer): xshmem_ptr is non-NULL
// exactly for those; a proxy transport (libfabric) reaches a peer only through RMA.
inline bool lsa_peer(int pe) {
  return pe == me || nvlink_peer(pe);
}

// A count of round trips between PEs (iterations, rounds): n where PEs have GPUs of their own;
// where they share a GPU n / div (over nvlink), or n / (div * proxy_div) (over a proxy
// transport: n / 100 by default), but never below min(at_least, n), so a case keeps enough
// iterations to test what it alternates. div = 1 scales only over a proxy transport (cases whose
// round trips are blocking proxy operations, free over nvlink).
inline int scaled(int n, int div = 10, int at_least = 1) {
  if (gpu_sharers <= 1) return n;
  const int m = n / (div * proxy_div);
  const int lo = at_least < n ? at_least : n;
  return m > lo ? m : (lo > 1 ? lo : 1);
}
// A kernel's width (blocks, threads) where PEs share a GPU: n / div (at least 1), else n; the
// same over every transport.
inline int narrowed(int n, int div) {
  return gpu_sharers > 1 ? (n / div > 0 ? n / div : 1) : n;
}
// A kernel's width where PEs share a GPU and a proxy transport serves them (proxy_div > 1): every
// proxy request of a grid storm waits for the one proxy thread and the GPU's time slices, so a
// full-width grid's last requests wait past XSHMEM_WAIT_TIMEOUT. n / div (at least 1) there, else
// n.
inline bool proxy_shared() {
  return gpu_sharers > 1 && proxy_div > 1;
}
inline int proxy_narrowed(int n, int div) {
  return proxy_shared() ? (n / div > 0 ? n / div : 1) : n;
}

__device__ __noinline__ void record(int line, long long index, long long expected, long long seen) {
  unsigned long long old = atomicAdd(&d_fail.count, 1ull);
  if (old == 0) {
    d_fail.line = line;
    d_fail.index = index;
    d_fail.expected = expected;
    d_fail.seen = seen;
  }
}
inline void host_record(int line, long long index, long long expected, long long seen) {
  if (h_fail.count++ == 0) {
    h_fail.line = line;
    h_fail.index = index;
    h_fail.expected = expected;
    h_fail.seen = seen;
  }
}

// CHECK(condition, index, expected, seen) in device or host code.
#if defined(__CUDA_ARCH__)
#define GT_CHECK(cond, idx, exp, got)                                                        \
  do {                                                                                       \
    if (!(cond)) gt::record(__LINE__, (long long)(idx), (long long)(exp), (long long)(got)); \
  } while (0)
#else
#define GT_CHECK(cond, idx, exp, got)                                                             \
  do {                                                                                            \
    if (!(cond)) gt::host_record(__LINE__, (long long)(idx), (long long)(exp), (long long)(got)); \
  } while (0)
#endif

inline void cuda_ok(cudaError_t e, const char *what, int line) {
  if (e != cudaSuccess) {
    fprintf(stderr, "pe %d: %s failed (line %d): %s\n", me, what, line, cudaGetErrorString(e));
    fflush(stderr);
    exit(1);
  }
}
#define GT_CUDA(x) gt::cuda_ok((x), #x, __LINE__)

// Waits for the device, then checks the launch and the kernels' completion.
inline void device_sync(const char *what) {
  cuda_ok(cudaGetLastError(), what, __LINE__);
  cuda_ok(cudaDeviceSynchronize(), what, __LINE__);
}

// Byte pattern of PE `pe`'s buffer at byte j for `salt` (data and guards differ by salt).
__host__ __device__ inline uint8_t pat(int pe, size_t j, int salt) {
  uint32_t x = static_cast<uint32_t>(j) * 2654435761u ^ (static_cast<uint32_t>(pe) * 0x9E3779B9u +
                                                         static_cast<uint32_t>(salt) * 0x85EBCA6Bu);
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  x ^= static_cast<uint32_t>(j >> 32);
  return static_cast<uint8_t>(x);
}
__global__ void fill_kernel(uint8_t *p, size_t n, int pe, int salt) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    p[i] = pat(pe, i, salt);
  }
}
inline void fill(void *p, size_t n, int pe, int salt) {
  if (n == 0) return;
  fill_kernel<<<264, 256>>>(static_cast<uint8_t *>(p), n, pe, salt);
  device_sync("fill");
}

// Host barrier after the device is idle: what each PE's kernels stored is complete everywhere.
inline void barrier() {
  device_sync("kernels before the barrier");
  xshmem_barrier_all();
}

// The number of blocks of `kernel` with `threads` threads that fit at once on this GPU (kernels
// that wait on each other must stay within it).
template <typename K>
int max_resident_blocks(K kernel, int threads) {
  int dev = 0, sms = 0, per_sm = 0;
  GT_CUDA(cudaGetDevice(&dev));
  GT_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  GT_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
  return sms * per_sm;
}

__global__ void state_kernel(int *out) {
  out[0] = xshmem_my_pe();
  out[1] = xshmem_n_pes();
}

struct Summary {
  int cases = 0, failed = 0, unselected = 0;
};
inline Summary summary;

// A case not run here, with the reason (PE 0 prints one SKIP line; every PE calls it).
inline void skip(const char *label, const char *why) {
  if (me == 0) printf("SKIP %-44s %s\n", label, why);
}

// GT_CASES (optional): a comma-separated list of label prefixes ("AMO-07,AMO-09 host"); only
// the cases whose label starts with one of them run (every PE reads the same environment, so
// they agree). Unset or empty: every case. The final line counts the cases left out.
inline bool selected(const char *label) {
  const char *list = getenv("GT_CASES");
  if (list == nullptr || *list == '\0') return true;
  for (const char *p = list; *p != '\0';) {
    const char *end = strchr(p, ',');
    const size_t n = end != nullptr ? size_t(end - p) : strlen(p);
    if (n > 0 && strncmp(label, p, n) == 0) return true;
    if (end == nullptr) break;
    p = end + 1;
  }
  return false;
}

// Runs one case: body() launches kernels and/or host calls; afterwards every PE reports its
// failure record, and PE 0 prints the case's line. `label` is the conformance id and column.
template <typename F>
void run(const char *label, F body) {
  if (!selected(label)) {
    ++summary.unselected;
    return;
  }
  xshmem_barrier_all();
  auto t0 = std::chrono::steady_clock::now();
  body();
  device_sync(label);
  xshmem_barrier_all();
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  failure_t f;
  GT_CUDA(cudaMemcpyFromSymbol(&f, d_fail, sizeof f));
  if (f.count == 0 && h_fail.count != 0)
    f = h_fail;
  else
    f.count += h_fail.count;
  if (f.count != 0) {
    fprintf(stderr,
            "pe %d: %s: %llu mismatches; first at line %d: index %lld expected %lld (0x%llx) "
            "seen %lld (0x%llx)\n",
            me, label, f.count, f.line, f.index, f.expected, (unsigned long long)f.expected, f.seen,
            (unsigned long long)f.seen);
  }
  failure_t zero{};
  GT_CUDA(cudaMemcpyToSymbol(d_fail, &zero, sizeof zero));
  h_fail = zero;
  std::vector<unsigned long long> all(npes);
  if (xshmemx_oob_allgather(&f.count, all.data(), sizeof f.count) != 0) {
    fprintf(stderr, "pe %d: out-of-band allgather failed\n", me);
    exit(1);
  }
  bool ok = true;
  for (unsigned long long c : all) ok = ok && c == 0;
  ++summary.cases;
  if (!ok) ++summary.failed;
  if (me == 0) {
    printf("%-4s %-44s %9.1f ms", ok ? "PASS" : "FAIL", label, ms);
    if (!ok) {
      for (int p = 0; p < npes; ++p) printf("  pe%d:%llu", p, all[p]);
    }
    printf("\n");
    fflush(stdout);
  }
}

// Before xshmem_init: 77 without a GPU. After: 77 when the heap is not GPU memory; makes the
// heap's GPU current; checks that kernels of this program see the device state.
inline void start(const char *program) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    printf("SKIP %s: no usable GPU (%s)\n", program,
           e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
    exit(77);
  }
  xshmem_init();
  me = xshmem_my_pe();
  npes = xshmem_n_pes();
  peer = (me + 1) % npes;
  from = (me + npes - 1) % npes;
  void *probe = xshmem_malloc(64);
  cudaPointerAttributes attr{};
  bool device_memory = probe != nullptr && cudaPointerGetAttributes(&attr, probe) == cudaSuccess &&
                       attr.type == cudaMemoryTypeDevice;
  (void)cudaGetLastError();
  if (!device_memory && !nvlink_peer(peer)) {
    if (me == 0) printf("SKIP %s: the symmetric heap is not GPU memory (XSHMEM_HEAP?)\n", program);
    xshmem_finalize();
    exit(77);
  }
  if (device_memory) GT_CUDA(cudaSetDevice(attr.device));
  xshmem_free(probe);
  // The node team: PEs of this host, whatever path reaches them (SHARED holds only the PEs this
  // one reaches by load/store, so over a proxy transport it is this PE alone).
  const int node_pes = xshmem_team_n_pes(XSHMEMX_TEAM_NODE);
  gpu_sharers = node_pes > n ? (node_pes + n - 1) / n : 1;
  // The proxy factor, the same on every PE (their kernels wait on each other's counts).
  const int proxy_here = gpu_sharers > 1 && !lsa_peer(peer) ? 1 : 0;
  std::vector<int> proxy_all(npes);
  if (xshmemx_oob_allgather(&proxy_here, proxy_all.data(), sizeof proxy_here) != 0) {
    fprintf(stderr, "pe %d: out-of-band allgather failed\n", me);
    exit(1);
  }
  for (int x : proxy_all) {
    if (x != 0) proxy_div = kProxyDiv;
  }
  if (me == 0) printf("%s: %d PEs\n", program, npes);
  if (me == 0 && gpu_sharers > 1)
    printf(
        "%s: %d PEs of this node share each of its %d GPUs: the round-trip cases run scaled "
        "counts (gt::scaled: iterations / %s, at least a few per case; gt::narrowed: threads or "
        "blocks / 4 or / 8)\n",
        program, gpu_sharers, n,
        proxy_div > 1 ? "100 over a proxy transport (/ 10 where only proxy operations wait)"
                      : "10 over nvlink");
  run("device state published", [] {
    int *out;
    GT_CUDA(cudaMallocManaged(&out, 2 * sizeof(int)));
    state_kernel<<<1, 1>>>(out);
    device_sync("state kernel");
    GT_CHECK(out[0] == me, 0, me, out[0]);
    GT_CHECK(out[1] == npes, 1, npes, out[1]);
    GT_CUDA(cudaFree(out));
  });
}

inline int finish() {
  xshmem_finalize();
  if (me == 0) {
    if (summary.unselected != 0)
      printf("%d cases, %d failed (%d not selected by GT_CASES)\n", summary.cases, summary.failed,
             summary.unselected);
    else
      printf("%d cases, %d failed\n", summary.cases, summary.failed);
  }
  return summary.failed == 0 ? 0 : 1;
}

// ---- Helpers shared by the programs ----------------------------------------------------------

// The GPU's nanosecond clock: bounds every poll that a broken library could leave unsatisfied,
// so a lost update is a recorded failure, not a hang.
__device__ inline uint64_t now_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
constexpr uint64_t kTimeoutNs = 5000000000ull;

// Carves symmetric regions out of a program's symmetric area: the same offsets on every PE.
struct Carver {
  uint8_t *next;
  uint8_t *end;
  uint8_t *take(size_t n) {
    uint8_t *p = next;
    next += (n + 255) & ~size_t(255);
    if (next > end) {
      fprintf(stderr, "pe %d: test bug: the symmetric area is too small\n", me);
      exit(1);
    }
    return p;
  }
};

// A destination region of n bytes with kGuardBand bytes on each side; arm() fills the whole
// block with this PE's pattern of `salt` (the case then initialises what it needs),
// check_guards() checks that both guard bands still hold it.
constexpr size_t kGuardBand = 256;
struct Guarded {
  uint8_t *block = nullptr;
  size_t n = 0;
  uint8_t *data() const { return block + kGuardBand; }
  template <typename T>
  T *as() const {
    return reinterpret_cast<T *>(data());
  }
};
inline Guarded guarded(Carver &c, size_t n) {
  return Guarded{c.take(n + 2 * kGuardBand), n};
}
inline void arm(const Guarded &g, int salt) {
  fill(g.block, g.n + 2 * kGuardBand, me, salt);
}
// Bytes [from, to) of a block still hold pat(pe, j, salt); index -1 - j on a mismatch.
__global__ void untouched_kernel(const uint8_t *block, size_t from, size_t to, int pe, int salt) {
  for (size_t j = from + blockIdx.x * size_t(blockDim.x) + threadIdx.x; j < to;
       j += size_t(gridDim.x) * blockDim.x) {
    uint8_t e = pat(pe, j, salt);
    GT_CHECK(block[j] == e, -1 - (long long)j, e, block[j]);
  }
}
inline void check_untouched(const uint8_t *block, size_t from, size_t to, int salt) {
  if (to <= from) return;
  untouched_kernel<<<32, 256>>>(block, from, to, me, salt);
  device_sync("guard check");
}
inline void check_guards(const Guarded &g, int salt) {
  check_untouched(g.block, 0, kGuardBand, salt);
  check_untouched(g.block, kGuardBand + g.n, g.n + 2 * kGuardBand, salt);
}

}  // namespace gt

#endif  // XSHMEM_TESTS_GPU_TEST_H
