/*
 * An OpenSHMEM program as users write them, built by the compiler wrappers (xshmem-cc, from the
 * build tree and from an install prefix) and by a CMake project with find_package(xshmem): a
 * global array as the target of a C11 type-generic put, a global counter updated with the
 * generic shmem_atomic_fetch_add, and a global lock guarding a read-modify-write on PE 0. Prints
 * "osh_hello: pe K of N: ok" and exits 0 when every check holds.
 */
#include <shmem.h>

#include <stdio.h>

enum { N = 8, ROUNDS = 50 };

long ring[N];     /* .bss: the put target */
int counter = 0;  /* .data: the atomic's target */
long lock = 0;    /* the lock (a symmetric long, zero at the start) */
long guarded = 0; /* updated under the lock on PE 0, with no atomic */

static int failures;
#define CHECK(cond, what)                                                                    \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      fprintf(stderr, "osh_hello: pe %d: FAIL: %s (%s:%d)\n", shmem_my_pe(), what, __FILE__, \
              __LINE__);                                                                     \
      ++failures;                                                                            \
    }                                                                                        \
  } while (0)

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;

  long src[N];
  for (int i = 0; i < N; ++i) src[i] = 1000L * me + i;
  shmem_put(ring, src, N, right); /* C11 generic: shmem_long_put */
  shmem_barrier_all();
  for (int i = 0; i < N; ++i) CHECK(ring[i] == 1000L * left + i, "put into a global");

  int fetched = shmem_atomic_fetch_add(&counter, me + 1, 0); /* shmem_int_atomic_fetch_add */
  CHECK(fetched >= 0 && fetched < npes * (npes + 1) / 2, "fetched value in range");
  shmem_barrier_all();
  if (me == 0) CHECK(counter == npes * (npes + 1) / 2, "atomic_fetch_add total");

  for (int r = 0; r < ROUNDS; ++r) {
    shmem_set_lock(&lock);
    long v = shmem_g(&guarded, 0);
    shmem_p(&guarded, v + 1, 0);
    shmem_quiet();
    shmem_clear_lock(&lock);
  }
  shmem_barrier_all();
  if (me == 0) CHECK(guarded == (long)ROUNDS * npes, "increments under the lock");

  printf("osh_hello: pe %d of %d: %s\n", me, npes, failures ? "FAIL" : "ok");
  shmem_finalize();
  return failures ? 1 : 0;
}
