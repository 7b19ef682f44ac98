// nvprog.h: what the NVSHMEM-style programs of this folder share (issue 14 item 10). Plain CUDA
// and the NVSHMEM names only, as a program written for NVSHMEM would have them: no xshmem_ name
// appears in these programs, which build with plain nvcc (no -rdc) against <nvshmem.h>.
#ifndef NVPROG_H
#define NVPROG_H

#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <vector>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
              cudaGetErrorString(e_));                                     \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

// Exits 77 (CTest: skipped) where no GPU is usable: these programs need one per PE or a shared one.
inline void need_gpu(const char *prog) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    printf("%s: skipped: no usable GPU here (CUDA reports none)\n", prog);
    exit(77);
  }
}

// The value of element i of PE pe's data for salt s: differs across PEs, elements and salts.
__host__ __device__ inline int val(int pe, long i, int salt) {
  uint32_t x =
      static_cast<uint32_t>(i) * 2654435761u ^
      (static_cast<uint32_t>(pe + 1) * 0x9E3779B9u + static_cast<uint32_t>(salt) * 0x85EBCA6Bu);
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return static_cast<int>(x & 0x3fffffff);
}
// Guard elements around every buffer, and the value they keep.
constexpr long kGuard = 16;
__host__ __device__ inline int guard_val(int pe, long i) {
  return -1 - val(pe, i, 999);
}

// A symmetric int buffer of n elements with kGuard guard elements on each side; data() is what
// the program uses.
struct guarded {
  int *base = nullptr;
  long n = 0;
  int *data() const { return base + kGuard; }
};
inline guarded sym_ints(long n) {
  guarded g;
  g.n = n;
  g.base = static_cast<int *>(nvshmem_malloc((n + 2 * kGuard) * sizeof(int)));
  if (g.base == nullptr) {
    fprintf(stderr, "pe %d: nvshmem_malloc of %ld ints failed\n", nvshmem_my_pe(), n);
    exit(1);
  }
  return g;
}

// Host-side checks: counts mismatches, reports the first few with the PE, the case and the index.
struct checker {
  const char *prog;
  int me;
  int bad = 0;
  void expect(const char *what, long i, long long want, long long got) {
    if (want == got) return;
    if (++bad <= 8)
      fprintf(stderr, "%s: pe %d: %s[%ld] is %lld, expected %lld\n", prog, me, what, i, got, want);
  }
  // Fills the whole guarded buffer: guards with guard_val, data with fill(i).
  template <typename F>
  void fill(const guarded &g, F fill_fn) {
    std::vector<int> h(g.n + 2 * kGuard);
    for (long i = 0; i < g.n + 2 * kGuard; ++i) {
      const long d = i - kGuard;
      h[i] = d < 0 || d >= g.n ? guard_val(me, i) : fill_fn(d);
    }
    CUDA_CHECK(cudaMemcpy(g.base, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice));
  }
  // Checks data against want(i) and the guards against guard_val.
  template <typename F>
  void check(const char *what, const guarded &g, F want) {
    std::vector<int> h(g.n + 2 * kGuard);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h.data(), g.base, h.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (long i = 0; i < g.n + 2 * kGuard; ++i) {
      const long d = i - kGuard;
      if (d < 0 || d >= g.n) {
        if (h[i] != guard_val(me, i)) {
          char w[160];
          snprintf(w, sizeof w, "%s (guard %s)", what, d < 0 ? "before" : "after");
          expect(w, d, guard_val(me, i), h[i]);
        }
      } else {
        expect(what, d, want(d), h[i]);
      }
    }
  }
  // Prints the verdict for this PE and gives the exit status.
  int finish() {
    if (bad) {
      fprintf(stderr, "%s: pe %d: FAILED (%d mismatches)\n", prog, me, bad);
      return 1;
    }
    printf("%s: pe %d of %d: passed\n", prog, me, nvshmem_n_pes());
    return 0;
  }
};

#endif
