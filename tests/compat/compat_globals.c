/*
 * compat.globals.np<N>: what most existing OpenSHMEM programs do, global and static arrays as
 * the symmetric targets of RMA, atomics, signals, waits and collectives. Registered DISABLED in
 * CTest until global and static data are symmetric (issue 14 item 2); today the first put to a
 * global stops the job with "not a symmetric address". Same checks as compat_c.c: PE-dependent
 * data between poisoned guard words.
 */
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>

#include "check.h"

enum { N = 16, G = 4 };
#define POISON (-127L)

long target[N + 2 * G]; /* a global (bss) */
static long counter;    /* a static */
static uint64_t flag = 0;
static long bsrc[N], bdst[N + 1];
static long data_src[N] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}; /* .data */

static long val(int src, int dst, int i) {
  return 1000003L * (src + 1) + 1009L * (dst + 1) + 7L * i;
}

int main(void) {
  shmem_init();
  const int me = compat_me = shmem_my_pe(), npes = shmem_n_pes();
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  long s[N];
  for (int i = 0; i < N + 2 * G; ++i) target[i] = POISON;
  for (int i = 0; i < N; ++i) s[i] = val(me, right, i);
  shmem_barrier_all();
  CHECK(shmem_addr_accessible(target, right) == 1, "addr_accessible(global)");
  shmem_put(target + G, s, N, right);
  shmem_atomic_add(&counter, (long)me + 1, 0);
  shmem_put_signal(target + G, s, N, &flag, 1, SHMEM_SIGNAL_ADD, right);
  shmem_signal_wait_until(&flag, SHMEM_CMP_EQ, 1);
  shmem_barrier_all();
  for (int i = 0; i < N; ++i) CHECK_EQ(target[G + i], val(left, me, i), "put to a global");
  for (int i = 0; i < G; ++i) {
    CHECK_EQ(target[i], POISON, "guard below");
    CHECK_EQ(target[N + G + i], POISON, "guard above");
  }
  if (me == 0) CHECK_EQ(counter, (long)npes * (npes + 1) / 2, "atomic_add to a static");
  CHECK_EQ(shmem_g(&data_src[3], right), 4L, "shmem_g from .data");
  for (int i = 0; i < N; ++i) bsrc[i] = val(me, 0, i);
  bdst[N] = POISON;
  shmem_barrier_all();
  CHECK_EQ(shmem_broadcast(SHMEM_TEAM_WORLD, bdst, bsrc, N, 0), 0, "broadcast into a static");
  for (int i = 0; i < N; ++i) CHECK_EQ(bdst[i], val(0, 0, i), "broadcast data");
  CHECK_EQ(bdst[N], POISON, "broadcast guard");
  shmem_barrier_all();
  printf("compat_globals: pe %d of %d: %s (%d failed checks)\n", me, npes,
         compat_failures ? "FAIL" : "ok", compat_failures);
  shmem_finalize();
  return compat_failures ? 1 : 0;
}
