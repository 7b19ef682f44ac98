// GPU conformance ERR-11 (device_error_propagation): a device thread of one PE makes an ERR-01,
// ERR-02 or ERR-03 mistake while the other PE's kernel waits for a word nobody will ever write.
// The whole job must end within seconds with a nonzero status on every PE, the one-line
// diagnostic naming the call family, the argument and the PE, and at least one PE with status 86
// (checked by tests/conformance/death_check.sh). No PE may be left spinning in its device wait.
//
// Usage: err_device <scenario>; scenarios: bad_pe_put, bad_pe_atomic, nonsym_put,
// misaligned_atomic, past_heap_get, null_put (ERR-09 from a device thread); no_finalize (no
// mistake: every PE returns from main without xshmem_finalize, and the processes must exit);
// global_exit (INIT-05 from a device thread: xshmem_global_exit(42) in a kernel). PE 0
// makes the mistake from block 3, thread 5; every other PE waits on its own `never` word in a
// kernel (and so does PE 0's block 0).
#include <cuda_runtime.h>
#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

namespace {

enum Scenario {
  kBadPePut,
  kBadPeAtomic,
  kNonsymPut,
  kMisalignedAtomic,
  kPastHeapGet,
  kNullPut,
  kNoFinalize,
  kGlobalExit,
  kNone
};

__global__ void mistake_kernel(int scenario, uint64_t *never, uint64_t *sym, uint64_t *private_buf,
                               int npes) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    // Waits forever unless the job is torn down.
    xshmem_uint64_wait_until(never, XSHMEM_CMP_EQ, 1);
    return;
  }
  if (blockIdx.x != 3 || threadIdx.x != 5 || xshmem_my_pe() != 0) return;
  __nanosleep(100000);  // the peer is in its wait by now (not needed for the check; realistic)
  const int peer = 1 % npes;
  switch (scenario) {
    case kBadPePut:
      xshmem_uint64_p(sym, 42, npes + 5);
      break;
    case kBadPeAtomic:
      xshmem_uint64_atomic_add(sym, 1, -1);
      break;
    case kNonsymPut:
      xshmem_putmem(private_buf, sym, 64, peer);
      break;
    case kMisalignedAtomic:
      xshmem_uint64_atomic_add(reinterpret_cast<uint64_t *>(reinterpret_cast<char *>(sym) + 4), 1,
                               peer);
      break;
    case kPastHeapGet:
      // Starts inside the block, runs far past the end of the heap.
      xshmem_getmem(private_buf, sym, size_t{1} << 40, peer);
      break;
    case kGlobalExit:  // INIT-05 from a device thread: every PE exits with 42
      xshmem_global_exit(42);
      break;
    case kNullPut:  // ERR-09 from a device thread: NULL source, nonzero length
      xshmem_putmem(sym, nullptr, 16, peer);
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
    printf("SKIP err_device: no usable GPU (%s)\n",
           e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
    return 77;
  }
  const char *names[] = {"bad_pe_put",    "bad_pe_atomic", "nonsym_put",  "misaligned_atomic",
                         "past_heap_get", "null_put",      "no_finalize", "global_exit"};
  int scenario = kNone;
  for (int i = 0; i < kNone; ++i) {
    if (argc > 1 && strcmp(argv[1], names[i]) == 0) scenario = i;
  }
  if (scenario == kNone) {
    fprintf(stderr,
            "usage: err_device bad_pe_put|bad_pe_atomic|nonsym_put|misaligned_atomic|"
            "past_heap_get|null_put|no_finalize|global_exit\n");
    return 2;
  }
  xshmem_init();
  const int me = xshmem_my_pe(), npes = xshmem_n_pes();
  uint64_t *never = static_cast<uint64_t *>(xshmem_calloc(1, sizeof(uint64_t)));
  uint64_t *sym = static_cast<uint64_t *>(xshmem_calloc(16, sizeof(uint64_t)));
  cudaPointerAttributes attr{};
  if (never == nullptr || sym == nullptr || cudaPointerGetAttributes(&attr, sym) != cudaSuccess ||
      attr.type != cudaMemoryTypeDevice) {
    if (me == 0) printf("SKIP err_device: the symmetric heap is not GPU memory\n");
    xshmem_finalize();
    return 77;
  }
  cudaSetDevice(attr.device);
  uint64_t *private_buf = nullptr;
  cudaMalloc(&private_buf, 4096);
  xshmem_barrier_all();
  if (me == 0) printf("err_device: %s, %d PEs\n", names[scenario], npes);
  fflush(stdout);
  if (scenario == kNoFinalize) {
    // Returns from main without xshmem_finalize while the runtime's threads run: the process
    // must still exit (no hang, no crash in exit handlers); the launcher sees the PEs leave.
    return 0;
  }
  mistake_kernel<<<4, 32>>>(scenario, never, sym, private_buf, npes);
  e = cudaDeviceSynchronize();
  // The kernel failed (or never ends on the waiting PE). The runtime must stop the job on its own
  // within seconds: stay alive long enough that an early exit of this program cannot be what
  // ended it, then fail.
  fprintf(stderr, "pe %d: kernel ended (%s); waiting for the runtime to stop the job\n", me,
          cudaGetErrorString(e));
  fflush(stderr);
  sleep(15);
  fprintf(stderr, "pe %d: the job is still running 15 s later\n", me);
  return 3;
}
