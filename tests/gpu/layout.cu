// A CUDA module compiled as if against another device-state layout
// (-DXSHMEM_DEVICE_STATE_LAYOUT_OVERRIDE, tests/gpu/CMakeLists.txt): its registration is refused
// with one line naming it, before xshmem_init, and an xshmem_init on a GPU heap then fails
// (status 1), so none of its kernels ever reads a table of the wrong layout. Exits 77 (skip) when
// no GPU is usable or the heap is not GPU memory (the refusal line is printed either way).
#include <cuda_runtime.h>
#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

#include <stdio.h>

__global__ void read_state(int *out) {
  *out = xshmem_n_pes();
}

int main() {
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    printf("SKIP layout: no usable GPU\n");
    return 77;
  }
  xshmem_init();
  // Reached only on a host heap: the refused module's state was never needed.
  printf("SKIP layout: xshmem_init returned (the heap is not GPU memory)\n");
  xshmem_finalize();
  return 77;
}
