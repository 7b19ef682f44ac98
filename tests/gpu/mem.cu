// GPU conformance: MEM-09 (ptr and accessibility). xshmem_ptr is non-NULL for the PE itself and
// its NVLink peers, NULL for peers a proxy transport serves (gt::lsa_peer), the same inside
// kernels as on the host, NULL for addresses outside the heap; stores through it are seen by the
// owner after a barrier; pe_accessible holds for every PE, addr_accessible for heap addresses and
// not for private memory. Also the explicit handle: a kernel that takes xshmemx_device_handle() as
// an argument and calls xshmem::dev:: functions.
//
// Also MEM-09 from many threads (loads and stores through xshmem_ptr of both PEs, guards
// around the stored range), the negative accessibility answers (cudaMalloc'd, pinned, malloc'd
// and stack addresses; invalid PE numbers), and INIT-01 on the device: every thread of a
// multi-block kernel sees the host's my_pe/n_pes, which match the launcher.
#include "gpu_test.h"

namespace {

__global__ void ptr_kernel(uint32_t *sym, void **out, int npes, int me, const void *outside) {
  for (int pe = 0; pe < npes; ++pe) out[pe] = xshmem_ptr(sym, pe);
  out[npes] = xshmem_ptr(outside, 0);
  out[npes + 1] = xshmem_ptr(sym, npes);  // no such PE
  // Store into every PE's array through the mapping: slot `me` of PE pe gets a tagged value.
  for (int pe = 0; pe < npes; ++pe) {
    auto *p = static_cast<uint32_t *>(xshmem_ptr(sym, pe));
    if (p != nullptr) p[me] = 0xC0DE0000u + me * 16 + pe;
  }
}

__global__ void handle_kernel(xshmem::dev::state_t s, uint32_t *sym, int peer) {
  xshmem::dev::p(s, sym + 64 + s.my_pe, 0xBEEF0000u + uint32_t(s.my_pe), peer);
  xshmem::dev::quiet(s);
}

void mem09(uint32_t *sym) {
  const int n = gt::npes;
  GT_CUDA(cudaMemset(sym, 0, 4096));
  gt::barrier();
  void **out;
  GT_CUDA(cudaMallocManaged(&out, (n + 2) * sizeof(void *)));
  int local = 0;
  ptr_kernel<<<1, 1>>>(sym, out, n, gt::me, out);  // managed memory: outside the heap
  gt::device_sync("ptr kernel");
  for (int pe = 0; pe < n; ++pe) {
    void *h = xshmem_ptr(sym, pe);
    GT_CHECK((h != nullptr) == gt::lsa_peer(pe), pe, gt::lsa_peer(pe), h != nullptr);
    GT_CHECK(out[pe] == h, pe, (long long)(uintptr_t)h, (long long)(uintptr_t)out[pe]);
    GT_CHECK(xshmem_pe_accessible(pe) == 1, pe, 1, 0);
    GT_CHECK(xshmem_addr_accessible(sym, pe) == 1, pe, 1, 0);
    GT_CHECK(xshmem_addr_accessible(&local, pe) == 0, pe, 0, 1);
  }
  GT_CHECK(xshmem_ptr(sym, gt::me) == sym, -1, (long long)(uintptr_t)sym,
           (long long)(uintptr_t)xshmem_ptr(sym, gt::me));
  GT_CHECK(out[n] == nullptr, n, 0, (long long)(uintptr_t)out[n]);
  GT_CHECK(out[n + 1] == nullptr, n + 1, 0, (long long)(uintptr_t)out[n + 1]);
  gt::barrier();
  uint32_t got[64];
  GT_CUDA(cudaMemcpy(got, sym, sizeof got, cudaMemcpyDeviceToHost));
  for (int pe = 0; pe < n; ++pe) {  // PE pe stored into this PE's array if it maps it
    uint32_t e = gt::lsa_peer(pe) ? 0xC0DE0000u + pe * 16 + gt::me : 0;
    GT_CHECK(got[pe] == e, pe, e, got[pe]);
  }
  GT_CUDA(cudaFree(out));
}

void handle(uint32_t *sym) {
  GT_CUDA(cudaMemset(sym, 0, 4096));
  gt::barrier();
  xshmem::dev::state_t s = xshmemx_device_handle();
  GT_CHECK(s.my_pe == gt::me && s.n_pes == gt::npes, 0, gt::me, s.my_pe);
  handle_kernel<<<1, 1>>>(s, sym, gt::peer);
  gt::barrier();
  uint32_t got;
  GT_CUDA(cudaMemcpy(&got, sym + 64 + gt::from, sizeof got, cudaMemcpyDeviceToHost));
  GT_CHECK(got == 0xBEEF0000u + uint32_t(gt::from), 0, 0xBEEF0000u + gt::from, got);
}

// ---- MEM-09 from many threads -------------------------------------------------------------------
//
// Words of `sym` (32-bit): A = [16, 16 + kN) is written by the left neighbour (`from`) through
// its xshmem_ptr(sym, peer), B = [kBOff, kBOff + kN) by this PE through xshmem_ptr(sym, me);
// every other word of the first kWords keeps its guard. After a barrier each thread checks its word
// of A (the peer's stores are visible to the owner), loads the peer's B through xshmem_ptr(sym,
// peer) (the owner's stores are visible to the peer), and the guards.
constexpr int kN = 1024, kAOff = 16, kBOff = 2048, kWords = 3088;

__host__ __device__ inline uint32_t word_a(int pe, int i) {
  return 0xA5000000u ^ uint32_t(pe) * 0x01000193u ^ uint32_t(i) * 2654435761u;
}
__host__ __device__ inline uint32_t word_b(int pe, int i) {
  return 0x3C000000u ^ uint32_t(pe + 7) * 0x9E3779B1u ^ uint32_t(i) * 0x85EBCA77u;
}
__host__ __device__ inline uint32_t word_guard(int pe, int w) {
  return 0x6A000000u ^ uint32_t(pe) << 16 ^ uint32_t(w) * 0x2C1B3C6Du;
}
__host__ __device__ inline bool in_a(int w) {
  return w >= kAOff && w < kAOff + kN;
}
__host__ __device__ inline bool in_b(int w) {
  return w >= kBOff && w < kBOff + kN;
}

__global__ void ptr_store_kernel(uint32_t *sym, int me, int peer, bool peer_lsa,
                                 const void *private_buf) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  auto *remote = static_cast<uint32_t *>(xshmem_ptr(sym, peer));
  auto *self = static_cast<uint32_t *>(xshmem_ptr(sym, me));
  GT_CHECK((remote != nullptr) == peer_lsa, i, peer_lsa, remote != nullptr);
  GT_CHECK(self == sym, i, (long long)(uintptr_t)sym, (long long)(uintptr_t)self);
  // Interior addresses translate by the same offset.
  auto *remote_i = static_cast<uint32_t *>(xshmem_ptr(sym + kAOff + i, peer));
  GT_CHECK(remote == nullptr ? remote_i == nullptr : remote_i == remote + kAOff + i, i,
           (long long)(uintptr_t)(remote + kAOff + i), (long long)(uintptr_t)remote_i);
  GT_CHECK(xshmem_ptr(private_buf, peer) == nullptr, i, 0,
           (long long)(uintptr_t)xshmem_ptr(private_buf, peer));
  GT_CHECK(xshmem_ptr(sym, -1) == nullptr, i, 0, 1);
  if (i >= kN || self == nullptr) return;
  // A only through a load/store peer's pointer; B, this PE's own words, always.
  if (remote != nullptr) remote[kAOff + i] = word_a(me, i);
  self[kBOff + i] = word_b(me, i);
}

// from_lsa: `from` maps this PE and stored slot A through its pointer (else A keeps its guards).
__global__ void ptr_load_kernel(const uint32_t *sym, int me, int peer, int from, bool from_lsa) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const auto *remote = static_cast<const uint32_t *>(xshmem_ptr(sym, peer));
  if (i < kN) {
    uint32_t a = sym[kAOff + i];
    const uint32_t want_a = from_lsa ? word_a(from, i) : word_guard(me, kAOff + i);
    GT_CHECK(a == want_a, kAOff + i, want_a, a);
    uint32_t b = sym[kBOff + i];
    GT_CHECK(b == word_b(me, i), kBOff + i, word_b(me, i), b);
    if (remote != nullptr) {
      uint32_t rb = reinterpret_cast<const volatile uint32_t *>(remote)[kBOff + i];
      GT_CHECK(rb == word_b(peer, i), 100000 + kBOff + i, word_b(peer, i), rb);
    }
  }
  for (int w = i; w < kWords; w += gridDim.x * blockDim.x) {
    if (in_a(w) || in_b(w)) continue;
    GT_CHECK(sym[w] == word_guard(me, w), w, word_guard(me, w), sym[w]);
  }
}

void mem09_threads(uint32_t *sym) {
  std::vector<uint32_t> init(kWords);
  for (int w = 0; w < kWords; ++w) init[w] = word_guard(gt::me, w);
  GT_CUDA(cudaMemcpy(sym, init.data(), kWords * sizeof(uint32_t), cudaMemcpyHostToDevice));
  void *private_buf;
  GT_CUDA(cudaMalloc(&private_buf, 256));
  gt::barrier();
  ptr_store_kernel<<<kN / 256, 256>>>(sym, gt::me, gt::peer, gt::lsa_peer(gt::peer), private_buf);
  gt::barrier();
  ptr_load_kernel<<<kN / 256, 256>>>(sym, gt::me, gt::peer, gt::from, gt::lsa_peer(gt::from));
  gt::device_sync("ptr load kernel");
  GT_CUDA(cudaFree(private_buf));
}

// ---- MEM-09 accessibility answers on the host
// ----------------------------------------------------

void mem09_accessible(uint8_t *sym, size_t bytes) {
  const int n = gt::npes;
  void *dev_buf = nullptr, *pinned = nullptr;
  GT_CUDA(cudaMalloc(&dev_buf, 256));
  GT_CUDA(cudaMallocHost(&pinned, 256));
  void *heap_priv = malloc(256);
  int stack_word = gt::me;
  const void *outside[] = {dev_buf, pinned, heap_priv, &stack_word};
  for (int pe = 0; pe < n; ++pe) {
    GT_CHECK(xshmem_pe_accessible(pe) == 1, pe, 1, 0);
    GT_CHECK(xshmem_addr_accessible(sym, pe) == 1, pe, 1, 0);
    GT_CHECK(xshmem_addr_accessible(sym + bytes - 1, pe) == 1, 1000 + pe, 1, 0);
    void *base = xshmem_ptr(sym, pe);
    GT_CHECK((base != nullptr) == gt::lsa_peer(pe), 2000 + pe, gt::lsa_peer(pe), base != nullptr);
    void *last = xshmem_ptr(sym + bytes - 1, pe);
    GT_CHECK(base == nullptr ? last == nullptr : last == static_cast<uint8_t *>(base) + bytes - 1,
             3000 + pe, (long long)(uintptr_t)base + bytes - 1, (long long)(uintptr_t)last);
    for (int k = 0; k < 4; ++k) {
      GT_CHECK(xshmem_addr_accessible(outside[k], pe) == 0, 10000 + pe * 10 + k, 0, 1);
      GT_CHECK(xshmem_ptr(outside[k], pe) == nullptr, 20000 + pe * 10 + k, 0,
               (long long)(uintptr_t)xshmem_ptr(outside[k], pe));
    }
  }
  for (int pe : {-1, n, n + 5}) {
    GT_CHECK(xshmem_pe_accessible(pe) == 0, pe, 0, 1);
    GT_CHECK(xshmem_addr_accessible(sym, pe) == 0, 100 + pe, 0, 1);
    GT_CHECK(xshmem_ptr(sym, pe) == nullptr, 200 + pe, 0,
             (long long)(uintptr_t)xshmem_ptr(sym, pe));
  }
  free(heap_priv);
  GT_CUDA(cudaFreeHost(pinned));
  GT_CUDA(cudaFree(dev_buf));
}

// ---- INIT-01 on the device
// -------------------------------------------------------------------------

__global__ void init01_kernel(xshmem::dev::state_t s, int me, int npes) {
  const long long t =
      blockIdx.x * (long long)(blockDim.x * blockDim.y) + threadIdx.y * blockDim.x + threadIdx.x;
  GT_CHECK(xshmem_my_pe() == me, t, me, xshmem_my_pe());
  GT_CHECK(xshmem_n_pes() == npes, t, npes, xshmem_n_pes());
  GT_CHECK(s.my_pe == me, 1000000 + t, me, s.my_pe);
  GT_CHECK(s.n_pes == npes, 1000000 + t, npes, s.n_pes);
}

void init01() {
  const int me = xshmem_my_pe(), n = xshmem_n_pes();
  GT_CHECK(xshmem_query_initialized() == 1, 0, 1, xshmem_query_initialized());
  GT_CHECK(me >= 0 && me < n, 1, n, me);
  GT_CHECK(me == gt::me && n == gt::npes, 2, gt::me, me);
  // The launcher's size and rank (xshmem-run's tcp bootstrap), where it set them.
  if (const char *size = getenv("XSHMEM_BOOTSTRAP_TCP_SIZE"))
    GT_CHECK(atoi(size) == n, 3, atoi(size), n);
  if (const char *rank = getenv("XSHMEM_BOOTSTRAP_TCP_RANK"))
    GT_CHECK(atoi(rank) == me, 4, atoi(rank), me);
  // The world is a permutation of 0..n-1, every PE reporting the same n.
  int mine[2] = {me, n};
  std::vector<int> all(2 * size_t(n));
  if (xshmemx_oob_allgather(mine, all.data(), sizeof mine) != 0) {
    GT_CHECK(false, 5, 0, 1);
    return;
  }
  for (int pe = 0; pe < n; ++pe) {
    GT_CHECK(all[2 * pe] == pe, 100 + pe, pe, all[2 * pe]);
    GT_CHECK(all[2 * pe + 1] == n, 200 + pe, n, all[2 * pe + 1]);
  }
  // Every thread of a multi-block 2D grid, through the implicit state and the explicit handle.
  init01_kernel<<<8, dim3(32, 4)>>>(xshmemx_device_handle(), me, n);
  gt::device_sync("INIT-01 kernel");
}

}  // namespace

int main() {
  gt::start("gpu_mem");
  auto *sym = static_cast<uint32_t *>(xshmem_malloc(4096));
  if (sym == nullptr) return 1;
  gt::run("MEM-09 ptr host/device, stores through it", [&] { mem09(sym); });
  gt::run("MEM-09 explicit device handle argument", [&] { handle(sym); });
  auto *big = static_cast<uint32_t *>(xshmem_malloc(kWords * sizeof(uint32_t)));
  if (big == nullptr) return 1;
  gt::run("MEM-09 loads/stores through ptr, 1024 threads T", [&] { mem09_threads(big); });
  gt::run("MEM-09 pe/addr_accessible, ptr outside heap H",
          [&] { mem09_accessible(reinterpret_cast<uint8_t *>(big), kWords * sizeof(uint32_t)); });
  gt::run("INIT-01 my_pe/n_pes host, launcher, kernel T", [&] { init01(); });
  xshmem_free(big);
  xshmem_free(sym);
  return gt::finish();
}
