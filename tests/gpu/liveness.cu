// GPU conformance LIV-03 (wait_deadline), T column: with XSHMEM_WAIT_TIMEOUT set, a GPU thread
// that waits longer in a device wait reports the call, the PE and the value it waited for
// through the device mailbox and traps; the watchdog prints the line and stops every PE (status
// 1), also a PE that is stopped (SIGSTOP) or sleeping on the host.
//
// Usage: gpu_liveness <scenario> (2 PEs):
//   wait_never: pe 0 puts 3 into pe 1's word; pe 1's kernel (block 1, thread 2) waits for 5.
//   signal_never: pe 0 sets pe 1's signal to 2; pe 1's kernel waits for >= 7.
//   barrier_sleeper: pe 0's kernel enters xshmem_barrier_all; pe 1 sleeps on the host.
//   stopped_peer: pe 1 stops itself (SIGSTOP); pe 0's kernel waits for a word pe 1 would set.
// A PE whose kernel ends, or that is still alive 15 s later, exits 3.
#include <cuda_runtime.h>
#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

namespace {

enum Scenario { kWaitNever, kSignalNever, kBarrierSleeper, kStoppedPeer, kNone };

__global__ void wait_kernel(int scenario, int *ivar, uint64_t *sig) {
  if (blockIdx.x != 1 || threadIdx.x != 2) return;
  switch (scenario) {
    case kWaitNever:
    case kStoppedPeer:
      xshmem_int_wait_until(ivar, XSHMEM_CMP_EQ, 5);
      break;
    case kSignalNever:
      xshmem_signal_wait_until(sig, XSHMEM_CMP_GE, 7);
      break;
    case kBarrierSleeper:
      xshmem_barrier_all();
      break;
    default:
      break;
  }
}

}  // namespace

int main(int argc, char **argv) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    printf("SKIP liveness: no usable GPU (%s)\n",
           e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
    return 77;
  }
  const char *names[] = {"wait_never", "signal_never", "barrier_sleeper", "stopped_peer"};
  int scenario = kNone;
  for (int i = 0; i < kNone; ++i) {
    if (argc > 1 && strcmp(argv[1], names[i]) == 0) scenario = i;
  }
  if (scenario == kNone) {
    fprintf(stderr, "usage: gpu_liveness wait_never|signal_never|barrier_sleeper|stopped_peer\n");
    return 2;
  }
  xshmem_init();
  const int me = xshmem_my_pe();
  int *ivar = static_cast<int *>(xshmem_calloc(1, sizeof(int)));
  uint64_t *sig = static_cast<uint64_t *>(xshmem_calloc(1, sizeof(uint64_t)));
  cudaPointerAttributes attr{};
  if (ivar == nullptr || sig == nullptr || cudaPointerGetAttributes(&attr, ivar) != cudaSuccess ||
      attr.type != cudaMemoryTypeDevice || xshmem_n_pes() != 2) {
    if (me == 0) printf("SKIP liveness: needs 2 PEs with GPU heaps\n");
    xshmem_finalize();
    return 77;
  }
  if (me == 0 && scenario == kWaitNever) xshmem_int_p(ivar, 3, 1);
  if (me == 0 && scenario == kSignalNever) xshmem_signal_set(sig, 2, 1);
  xshmem_quiet();
  xshmem_barrier_all();
  if (me == 0) printf("liveness: %s\n", names[scenario]);
  fflush(stdout);
  const int waiter = scenario == kBarrierSleeper || scenario == kStoppedPeer ? 0 : 1;
  if (me == waiter) {
    wait_kernel<<<2, 32>>>(scenario, ivar, sig);
    e = cudaDeviceSynchronize();
    fprintf(stderr, "pe %d: kernel ended (%s); waiting for the runtime to stop the job\n", me,
            cudaGetErrorString(e));
    fflush(stderr);
  } else if (scenario == kStoppedPeer) {
    raise(SIGSTOP);
  }
  sleep(15);
  fprintf(stderr, "pe %d: the job is still running 15 s later\n", me);
  return 3;
}
