// GPU conformance: LOCK-01 in the device column T (xshmem_set_lock, test_lock, clear_lock called
// by single CUDA threads, many of them at once), and host calls mixed in on GPU heaps.
//
// - counter T: every thread of a small grid on every PE, lanes of one warp included, takes the
//   lock K times and increments a non-atomic counter on the last PE (g, add, p, with no quiet of
//   its own: clear_lock's quiet must complete it), appending (contender, round)
//   to a history there; an atomic holder word catches two holders at once. Counter, history (each
//   acquisition once, each contender's rounds in order) and guards exact.
// - test_lock T: while PE 0's host holds the lock, one thread per PE gets 1 from test_lock (twice,
//   and queues nothing); then PE by PE a thread gets 0 on the free lock and releases it. PE 0's
//   copy of the lock then holds next ticket == ticket served == acquisitions (docs/semantics.md
//   "Locks").
// - host+device H/T: each PE's host thread and a kernel's threads contend for one lock at once,
//   incrementing one counter; exact.
// A lock wait that never ends stops the job through XSHMEM_WAIT_TIMEOUT (the CTest entry sets
// it): the device mailbox reports the waiting thread and the ticket it waited for.
#include <algorithm>
#include <vector>

#include "gpu_test.h"

namespace {

using gt::arm;
using gt::Carver;
using gt::check_guards;
using gt::Guarded;
using gt::guarded;

uint8_t *g_area = nullptr;
constexpr size_t kAreaBytes = size_t(8) << 20;
Carver carver() {
  return Carver{g_area, g_area + kAreaBytes};
}

// The increment of contender c in round r (1..1000).
__host__ __device__ long increment(int c, int r) {
  return 1 + long(gt::mix(uint64_t(c), uint64_t(r), 0x10C1) % 1000);
}

template <typename T>
T read_local(const T *p) {
  T v;
  GT_CUDA(cudaMemcpy(&v, p, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}
template <typename T>
void write_local(T *p, T v) {
  GT_CUDA(cudaMemcpy(p, &v, sizeof v, cudaMemcpyHostToDevice));
}

__global__ void fill_int_kernel(int *p, size_t n, int v) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    p[i] = v;
}

// words: [0] counter, [1] acquisitions so far, [2] holder (atomic), all on PE `target`.
// Contender c = global thread index * npes + me.
__global__ void counter_kernel(long *lock, long *words, int *history, int rounds, long total,
                               int me, int npes, int target) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int c = t * npes + me;
  long bad_holder = 0;
  for (int r = 0; r < rounds; ++r) {
    xshmem_set_lock(lock);
    const long was = xshmem_long_atomic_swap(words + 2, long(c + 1), target);
    if (was != 0) ++bad_holder;
    const long v = xshmem_long_g(words, target);
    const long count = xshmem_long_g(words + 1, target);
    if (count >= 0 && count < total) xshmem_int_p(history + count, c * 4096 + r, target);
    // No quiet of its own: clear_lock's completes the p's before the next holder reads.
    xshmem_long_p(words, v + increment(c, r), target);
    xshmem_long_p(words + 1, count + 1, target);
    if (xshmem_long_atomic_swap(words + 2, 0L, target) != c + 1) ++bad_holder;
    xshmem_clear_lock(lock);
  }
  GT_CHECK(bad_holder == 0, c, 0, bad_holder);
}

// PE 0's copy of the lock: next ticket and ticket served both `acquisitions`.
void check_lock_words(const long *lock, uint32_t acquisitions, int idx) {
  uint32_t w[2];
  xshmem_getmem(w, lock, sizeof w, 0);
  GT_CHECK(w[0] == acquisitions, idx, acquisitions, w[0]);
  GT_CHECK(w[1] == acquisitions, idx + 1, acquisitions, w[1]);
}

void lock_counter() {
  const int blocks = gt::narrowed(2, 2), threads = 64, rounds = gt::scaled(8, 4, 2);
  const int per_pe = blocks * threads, contenders = per_pe * gt::npes;
  const long total = long(rounds) * contenders;
  const int target = gt::npes - 1;
  Carver c = carver();
  Guarded lock = guarded(c, sizeof(long));
  Guarded words = guarded(c, 3 * sizeof(long));
  Guarded history = guarded(c, total * sizeof(int));
  arm(lock, 61);
  arm(words, 62);
  arm(history, 63);
  write_local(lock.as<long>(), 0L);
  const long base = long(gt::mix(uint64_t(target), 0x10C1) % 1000000);
  const long init[3] = {base, 0, 0};
  GT_CUDA(cudaMemcpy(words.data(), init, sizeof init, cudaMemcpyHostToDevice));
  fill_int_kernel<<<8, 256>>>(history.as<int>(), total, -1);
  gt::barrier();
  counter_kernel<<<blocks, threads>>>(lock.as<long>(), words.as<long>(), history.as<int>(), rounds,
                                      total, gt::me, gt::npes, target);
  gt::barrier();
  if (gt::me == target) {
    long w[3];
    GT_CUDA(cudaMemcpy(w, words.data(), sizeof w, cudaMemcpyDeviceToHost));
    long want = base;
    for (int k = 0; k < contenders; ++k)
      for (int r = 0; r < rounds; ++r) want += increment(k, r);
    GT_CHECK(w[0] == want, 0, want, w[0]);
    GT_CHECK(w[1] == total, 1, total, w[1]);
    GT_CHECK(w[2] == 0, 2, 0, w[2]);
    std::vector<int> h(total);
    GT_CUDA(cudaMemcpy(h.data(), history.data(), total * sizeof(int), cudaMemcpyDeviceToHost));
    std::vector<int> last(contenders, -1);
    for (long i = 0; i < total; ++i) {
      const int k = h[i] / 4096, r = h[i] % 4096;
      const bool ok = h[i] >= 0 && k < contenders && r == last[k] + 1;
      GT_CHECK(ok, i, -1, h[i]);
      if (ok) last[k] = r;
    }
    for (int k = 0; k < contenders; ++k)
      GT_CHECK(last[k] == rounds - 1, 100000 + k, rounds - 1, last[k]);
  }
  check_lock_words(lock.as<long>(), uint32_t(total), 200000);
  check_guards(lock, 61);
  check_guards(words, 62);
  check_guards(history, 63);
}

// One thread: test_lock must give `want`; on 0 it releases the lock again.
__global__ void test_lock_kernel(long *lock, int want, int tries) {
  for (int k = 0; k < tries; ++k) {
    const int rc = xshmem_test_lock(lock);
    GT_CHECK(rc == want, k, want, rc);
    if (rc == 0) xshmem_clear_lock(lock);
  }
}

void lock_test() {
  Carver c = carver();
  Guarded lock = guarded(c, sizeof(long));
  arm(lock, 64);
  write_local(lock.as<long>(), 0L);
  gt::barrier();
  if (gt::me == 0) xshmem_set_lock(lock.as<long>());  // host call on the GPU heap
  gt::barrier();
  test_lock_kernel<<<1, 1>>>(lock.as<long>(), 1, 2);
  gt::barrier();
  if (gt::me == 0) xshmem_clear_lock(lock.as<long>());
  for (int p = 0; p < gt::npes; ++p) {
    gt::barrier();
    if (p == gt::me) test_lock_kernel<<<1, 1>>>(lock.as<long>(), 0, 1);
  }
  gt::barrier();
  check_lock_words(lock.as<long>(), uint32_t(1 + gt::npes), 0);
  if (gt::me != 0) GT_CHECK(read_local(lock.as<long>()) == 0, 10, 0, read_local(lock.as<long>()));
  check_guards(lock, 64);
}

// Threads of a kernel increment counter[0] on PE 0 under the lock, `rounds` times each.
__global__ void mixed_kernel(long *lock, long *counter, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    xshmem_set_lock(lock);
    const long v = xshmem_long_g(counter, 0);
    xshmem_long_p(counter, v + 1, 0);
    xshmem_clear_lock(lock);
  }
}

void lock_mixed() {
  const int threads = 32, rounds = gt::scaled(4, 2, 2), host_rounds = gt::scaled(20, 5, 4);
  Carver c = carver();
  Guarded lock = guarded(c, sizeof(long));
  Guarded counter = guarded(c, sizeof(long));
  arm(lock, 65);
  arm(counter, 66);
  write_local(lock.as<long>(), 0L);
  write_local(counter.as<long>(), 0L);
  gt::barrier();
  cudaStream_t stream;
  GT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  mixed_kernel<<<1, threads, 0, stream>>>(lock.as<long>(), counter.as<long>(), rounds);
  GT_CUDA(cudaGetLastError());
  for (int r = 0; r < host_rounds; ++r) {
    xshmem_set_lock(lock.as<long>());
    const long v = xshmem_long_g(counter.as<long>(), 0);
    xshmem_long_p(counter.as<long>(), v + 1, 0);
    xshmem_clear_lock(lock.as<long>());
  }
  GT_CUDA(cudaStreamSynchronize(stream));
  GT_CUDA(cudaStreamDestroy(stream));
  gt::barrier();
  const long per_pe = long(threads) * rounds + host_rounds;
  if (gt::me == 0) {
    const long v = read_local(counter.as<long>());
    GT_CHECK(v == per_pe * gt::npes, 0, per_pe * gt::npes, v);
  }
  check_lock_words(lock.as<long>(), uint32_t(per_pe * gt::npes), 1);
  check_guards(lock, 65);
  check_guards(counter, 66);
}

}  // namespace

int main() {
  gt::start("gpu_lock");
  g_area = static_cast<uint8_t *>(xshmem_malloc(kAreaBytes));
  if (g_area == nullptr) return 1;
  gt::run("LOCK-01 counter under the lock T", lock_counter);
  gt::run("LOCK-01 test_lock while held, then free T", lock_test);
  gt::run("LOCK-01 host and device threads contend H+T", lock_mixed);
  xshmem_free(g_area);
  return gt::finish();
}
