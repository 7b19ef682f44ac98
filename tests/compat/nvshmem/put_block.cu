// put_block.cu (NVSHMEM-style program): block, warp and thread puts and gets of several sizes.
// Every block of a kernel moves its own chunk of a buffer to (or from) the right neighbour:
//   - nvshmemx_int_put_block / nvshmemx_putmem_nbi_block then nvshmem_quiet,
//   - nvshmemx_int_put_warp / nvshmemx_int_get_warp per warp,
//   - nvshmemx_int_get_block from the left neighbour,
//   - nvshmemx_int_iput_block (stride 2 at the target),
// each followed by a barrier, and every PE checks its buffer and the guards around it.
#include "nvprog.h"

enum way { kPutBlock, kPutNbiBlock, kPutWarp, kGetBlock, kGetWarp, kIputBlock, kWays };
const char *const kWayName[kWays] = {"int_put_block", "putmem_nbi_block", "int_put_warp",
                                     "int_get_block", "int_get_warp",     "int_iput_block"};

// Chunk c of n elements split into `parts` chunks.
__host__ __device__ inline void chunk(long n, int parts, int c, long *lo, long *hi) {
  *lo = n * c / parts;
  *hi = n * (c + 1) / parts;
}

__global__ void move(int w, int *dst, const int *src, long n) {
  const int me = nvshmem_my_pe(), np = nvshmem_n_pes();
  const int right = (me + 1) % np, left = (me + np - 1) % np;
  long lo, hi;
  if (w == kPutWarp || w == kGetWarp) {
    const int warps = gridDim.x * (blockDim.x / 32),
              wi = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    chunk(n, warps, wi, &lo, &hi);
    if (w == kPutWarp)
      nvshmemx_int_put_warp(dst + lo, src + lo, hi - lo, right);
    else
      nvshmemx_int_get_warp(dst + lo, src + lo, hi - lo, left);
    return;
  }
  chunk(n, gridDim.x, blockIdx.x, &lo, &hi);
  switch (w) {
    case kPutBlock:
      nvshmemx_int_put_block(dst + lo, src + lo, hi - lo, right);
      break;
    case kPutNbiBlock:
      nvshmemx_putmem_nbi_block(dst + lo, src + lo, (hi - lo) * sizeof(int), right);
      if (threadIdx.x == 0) nvshmem_quiet();
      break;
    case kGetBlock:
      nvshmemx_int_get_block(dst + lo, src + lo, hi - lo, left);
      break;
    case kIputBlock:  // element j of the chunk lands at 2 * j (dst holds 2n elements)
      nvshmemx_int_iput_block(dst + 2 * lo, src + lo, 2, 1, hi - lo, right);
      break;
  }
}

int main() {
  need_gpu("nvshmem_put_block");
  nvshmem_init();
  const int me = nvshmem_my_pe(), np = nvshmem_n_pes();
  const int left = (me + np - 1) % np;
  checker c{"nvshmem_put_block", me};
  const long sizes[] = {1, 7, 256, 4099, 65536};
  const long kMax = 65536;
  guarded dst = sym_ints(2 * kMax), src = sym_ints(kMax);
  for (long n : sizes) {
    for (int w = 0; w < kWays; ++w) {
      const int salt = static_cast<int>(n % 1000) * 10 + w;
      const long dn = w == kIputBlock ? 2 * n : n;
      guarded d{dst.base, dn}, s{src.base, n};
      // The guards move with the size: the buffer's elements past dn are guards now.
      c.fill(d, [&](long i) { return val(me, i, 5000 + salt); });
      c.fill(s, [&](long i) { return val(me, i, salt); });
      nvshmem_barrier_all();
      move<<<4, 128>>>(w, d.data(), s.data(), n);
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaDeviceSynchronize());
      nvshmem_barrier_all();
      char what[64];
      snprintf(what, sizeof what, "%s n=%ld", kWayName[w], n);
      // A put brings the left neighbour's source; a get reads the left neighbour's source too.
      const int from = left;
      if (w == kIputBlock) {
        c.check(what, d, [&](long i) {
          return i % 2 == 0 ? val(from, i / 2, salt) : val(me, i, 5000 + salt);
        });
      } else {
        c.check(what, d, [&](long i) { return val(from, i, salt); });
      }
      c.check("source", s, [&](long i) { return val(me, i, salt); });
      nvshmem_barrier_all();
    }
  }
  nvshmem_free(src.base);
  nvshmem_free(dst.base);
  const int rc = c.finish();
  nvshmem_finalize();
  return rc;
}
