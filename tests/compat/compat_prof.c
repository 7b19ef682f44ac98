/*
 * compat.prof.np<N>: the profiling interface. This program is its own profiling tool: it defines
 * shmem_long_p, shmem_long_atomic_fetch_add and shmem_pcontrol, which count their calls and
 * forward to the pshmem_ names. Its calls (typed, and through the C11 type-generic names, which
 * select the typed routine) reach these definitions instead of libxshmem's, the data still
 * arrives, and routines it does not define (shmem_long_g) are libxshmem's. Compiled -std=c11
 * -Wall -Wextra -Werror against <shmem.h> and <pshmem.h> only.
 */
#include <pshmem.h>
#include <shmem.h>

#include <stdio.h>

#include "check.h"

static long p_calls, fadd_calls;
static int pcontrol_calls, last_level = -100;

void shmem_long_p(long *dest, long value, int pe) {
  ++p_calls;
  pshmem_long_p(dest, value, pe);
}

long shmem_long_atomic_fetch_add(long *dest, long value, int pe) {
  ++fadd_calls;
  return pshmem_long_atomic_fetch_add(dest, value, pe);
}

void shmem_pcontrol(const int level, ...) {
  ++pcontrol_calls;
  last_level = level;
  pshmem_pcontrol(level);
}

enum { K = 10 };

int main(void) {
  shmem_init();
  const int me = compat_me = shmem_my_pe(), npes = shmem_n_pes();
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  shmem_pcontrol(2);
  CHECK(pcontrol_calls == 1 && last_level == 2, "shmem_pcontrol: %d calls, level %d",
        pcontrol_calls, last_level);
  long *d = shmem_calloc(K + 1, sizeof(long));
  CHECK(d != NULL, "calloc");
  if (d == NULL) return 1;
  for (int i = 0; i < K / 2; ++i) shmem_long_p(&d[i], 1000L * me + i, right);
  for (int i = K / 2; i < K; ++i) shmem_p(&d[i], 1000L * me + i, right); /* generic: long */
  long first = shmem_long_atomic_fetch_add(&d[K], 1, 0);
  long second = shmem_atomic_fetch_add(&d[K], 1L, 0); /* generic: long */
  CHECK(second > first, "fetch_add: %ld then %ld", first, second);
  shmem_barrier_all();
  CHECK(p_calls == K, "shmem_long_p intercepted %ld times, expected %d", p_calls, K);
  CHECK(fadd_calls == 2, "shmem_long_atomic_fetch_add intercepted %ld times, expected 2",
        fadd_calls);
  for (int i = 0; i < K; ++i) CHECK_EQ(d[i], 1000L * left + i, "data through pshmem_long_p");
  if (me == 0) CHECK_EQ(d[K], 2L * npes, "counter through pshmem_long_atomic_fetch_add");
  CHECK_EQ(shmem_long_g(&d[0], right), 1000L * me, "shmem_long_g (not intercepted)");
  shmem_pcontrol(0);
  CHECK(pcontrol_calls == 2 && last_level == 0, "shmem_pcontrol(0)");
  shmem_barrier_all();
  shmem_free(d);
  printf("compat_prof: pe %d of %d: %s (%ld shmem_long_p, %ld fetch_add intercepted)\n", me, npes,
         compat_failures ? "FAIL" : "ok", p_calls, fadd_calls);
  shmem_finalize();
  return compat_failures ? 1 : 0;
}
