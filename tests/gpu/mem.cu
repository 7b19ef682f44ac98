// GPU conformance: MEM-09 (ptr and accessibility). On the GPU machine every PE of the node is an
// NVLink peer: xshmem_ptr is non-NULL for every PE (itself included), the same inside kernels as
// on the host, NULL for addresses outside the heap; stores through it are seen by the owner after
// a barrier; pe_accessible holds for every PE, addr_accessible for heap addresses and not for
// private memory. Also the explicit handle: a kernel that takes xshmemx_device_handle() as an
// argument and calls xshmem::dev:: functions.
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
    GT_CHECK(h != nullptr, pe, 1, 0);
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
  for (int pe = 0; pe < n; ++pe) {
    uint32_t e = 0xC0DE0000u + pe * 16 + gt::me;
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

}  // namespace

int main() {
  gt::start("gpu_mem");
  auto *sym = static_cast<uint32_t *>(xshmem_malloc(4096));
  if (sym == nullptr) return 1;
  gt::run("MEM-09 ptr host/device, stores through it", [&] { mem09(sym); });
  gt::run("MEM-09 explicit device handle argument", [&] { handle(sym); });
  xshmem_free(sym);
  return gt::finish();
}
