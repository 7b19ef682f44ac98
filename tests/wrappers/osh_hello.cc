// The C++ twin of osh_hello.c, built by xshmem-c++: the same global put target, generic calls
// (C++ overloads of shmem.h) and lock. Prints "osh_hello++: pe K of N: ok".
#include <shmem.h>

#include <cstdio>
#include <vector>

namespace {
constexpr int kN = 8, kRounds = 50;
int failures = 0;

void check(bool cond, const char *what, int line) {
  if (cond) return;
  std::fprintf(stderr, "osh_hello++: pe %d: FAIL: %s (line %d)\n", shmem_my_pe(), what, line);
  ++failures;
}
}  // namespace

long ring[kN];     // .bss: the put target
long counter = 0;  // .data: the atomic's target
long lock = 0;     // the lock
long guarded = 0;  // updated under the lock on PE 0, with no atomic

int main() {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;

  std::vector<long> src(kN);
  for (int i = 0; i < kN; ++i) src[i] = 1000L * me + i;
  shmem_put(ring, src.data(), kN, right);  // overload: shmem_long_put
  shmem_barrier_all();
  for (int i = 0; i < kN; ++i) check(ring[i] == 1000L * left + i, "put into a global", __LINE__);

  long fetched = shmem_atomic_fetch_add(&counter, static_cast<long>(me + 1), 0);
  check(fetched >= 0 && fetched < npes * (npes + 1) / 2, "fetched value in range", __LINE__);
  shmem_barrier_all();
  if (me == 0) check(counter == npes * (npes + 1) / 2, "atomic_fetch_add total", __LINE__);

  for (int r = 0; r < kRounds; ++r) {
    shmem_set_lock(&lock);
    long v = shmem_g(&guarded, 0);
    shmem_p(&guarded, v + 1, 0);
    shmem_quiet();
    shmem_clear_lock(&lock);
  }
  shmem_barrier_all();
  if (me == 0)
    check(guarded == static_cast<long>(kRounds) * npes, "increments under the lock", __LINE__);

  std::printf("osh_hello++: pe %d of %d: %s\n", me, npes, failures ? "FAIL" : "ok");
  shmem_finalize();
  return failures ? 1 : 0;
}
