// ce_starve: does a small device-to-host copy on a non-blocking stream finish while GPU threads
// of the same process poll a word (the GDA posters' wait for room polls the collapsed CQE, which
// the software NIC model keeps in page-locked host memory)? Session 21's STR-04 question: the
// model's copy of a put's source hung while the flood kernel's 128 threads waited for room.
//   ce_starve test          the configurations below, one line each
//   ce_starve spin SECONDS  a kernel that spins on GPU memory that long (run it in another
//                           process beside `test` to add time-slicing with a second context)
// Build: nvcc -O2 -arch=sm_90 -o ce_starve tools/probe/ce_starve.cu
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

// Polls *word (host-mapped or GPU memory) until it is nonzero, with the device back-off of
// atomic.h (4096 spins, then sleeps doubling from 32 ns up to sleep_max).
__global__ void poll(const volatile unsigned *word, const volatile unsigned *release,
                     unsigned sleep_max) {
  unsigned ns = 32, spins = 0;
  for (unsigned i = 0;; ++i) {
    if (*word != 0) break;
    if ((i & 1023) == 0 && *release != 0) break;
    if (spins < 4096) {
      ++spins;
      continue;
    }
    __nanosleep(ns);
    if (ns < sleep_max) ns *= 2;
  }
}

__global__ void spin(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "spin") == 0) {
    int clk = 0;
    CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
    spin<<<1, 32>>>(static_cast<long long>(atof(argv[2]) * clk * 1000.0));
    CK(cudaDeviceSynchronize());
    return 0;
  }
  unsigned *host_word = nullptr, *dev_word = nullptr, *release = nullptr;
  CK(cudaHostAlloc(&host_word, 4096, cudaHostAllocMapped));
  CK(cudaHostAlloc(&release, 4096, cudaHostAllocMapped));
  CK(cudaMalloc(&dev_word, 4096));
  char *src = nullptr, *dst = nullptr;
  CK(cudaMalloc(&src, 4096));
  CK(cudaMemset(src, 7, 4096));
  CK(cudaHostAlloc(&dst, 4096, cudaHostAllocDefault));
  cudaStream_t sk, sc;
  CK(cudaStreamCreateWithFlags(&sk, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&sc, cudaStreamNonBlocking));
  CK(cudaDeviceSynchronize());
  struct cfg {
    int blocks, threads;
    bool host;
    unsigned sleep_max;
  } cfgs[] = {{0, 0, true, 1024},      {1, 32, true, 1024},      {1, 128, true, 1024},
              {8, 128, true, 1024},    {64, 128, true, 1024},    {1, 128, false, 1024},
              {64, 128, false, 1024},  {1, 128, true, 16384},    {64, 128, true, 16384},
              {128, 1024, true, 1024}, {128, 1024, false, 1024}, {128, 1024, true, 16384}};
  for (const cfg &c : cfgs) {
    *host_word = 0;
    *release = 0;
    CK(cudaMemset(dev_word, 0, 4));
    CK(cudaDeviceSynchronize());
    if (c.blocks > 0)
      poll<<<c.blocks, c.threads, 0, sk>>>(c.host ? host_word : dev_word, release, c.sleep_max);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    double worst = 0, total = 0;
    int done = 0;
    bool stuck = false;
    for (int k = 0; k < 20 && !stuck; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      CK(cudaMemcpyAsync(dst, src + 64 * k, 32, cudaMemcpyDeviceToHost, sc));
      cudaError_t q;
      while ((q = cudaStreamQuery(sc)) == cudaErrorNotReady) {
        if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(3)) {
          stuck = true;
          break;
        }
      }
      const double us =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      if (!stuck) {
        CK(q);
        ++done;
        total += us;
        worst = us > worst ? us : worst;
      }
    }
    *release = 1;
    *host_word = 1;
    CK(cudaStreamSynchronize(sk));
    CK(cudaStreamSynchronize(sc));
    printf(
        "pollers %4d x %-4d on %-4s sleep_max %5u ns: %s%d copies of 32 B D2H, mean %.1f us, worst "
        "%.1f us\n",
        c.blocks, c.threads, c.host ? "host" : "gpu", c.sleep_max,
        stuck ? "STUCK (3 s) after " : "", done, done ? total / done : 0.0, worst);
    fflush(stdout);
  }
  return 0;
}
