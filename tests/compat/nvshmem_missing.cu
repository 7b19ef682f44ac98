// nvshmem_missing.cu: a call of an NVSHMEM routine that xshmem does not provide does not compile,
// and the diagnostic names it (CTest compat.nvshmem.missing.*). CASE selects the call.
#include <nvshmemx.h>

int main() {
  nvshmem_init();
#if CASE == 1
  nvshmem_barrier(NVSHMEM_TEAM_WORLD);
#elif CASE == 2
  nvshmemx_putmem_nbi_on_stream(nullptr, nullptr, 0, 0, nullptr);
#elif CASE == 3
  nvshmem_half_sum_reduce(NVSHMEM_TEAM_WORLD, static_cast<half *>(nullptr),
                          static_cast<const half *>(nullptr), 1);
#endif
  nvshmem_finalize();
  return 0;
}
