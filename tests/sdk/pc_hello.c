/*
 * sdk.pkgconfig: a tiny C program built only with `pkg-config --cflags --libs xshmem` against
 * the installed prefix and started by the installed xshmem-run. Each PE puts a PE-dependent
 * block into its right neighbour's buffer between guard words, then adds its rank + 1 to a
 * counter on PE 0; each checks what arrived, PE 0 also the counter. Exit 0 only if all matched.
 */
#include <stdint.h>
#include <stdio.h>

#include <xshmem/xshmem.h>

enum { N = 64, GUARD = 4 };
#define GUARD_WORD 0x5afe5afe5afe5afeULL

static uint64_t value(int pe, int i) {
  return 0x1000000ULL * (uint64_t)(pe + 1) + 17ULL * (uint64_t)i + 3;
}

int main(void) {
  xshmem_init();
  const int me = xshmem_my_pe(), n = xshmem_n_pes();
  uint64_t *buf = xshmem_malloc((N + 2 * GUARD) * sizeof *buf);
  uint64_t *counter = xshmem_calloc(1, sizeof *counter);
  if (buf == NULL || counter == NULL) {
    printf("pc_hello: pe %d: xshmem_malloc failed\n", me);
    return 1;
  }
  for (int i = 0; i < N + 2 * GUARD; ++i) buf[i] = GUARD_WORD;
  uint64_t mine[N];
  for (int i = 0; i < N; ++i) mine[i] = value(me, i);
  xshmem_barrier_all();
  xshmem_putmem(buf + GUARD, mine, sizeof mine, (me + 1) % n);
  xshmem_uint64_atomic_add(counter, (uint64_t)me + 1, 0);
  xshmem_barrier_all();
  int bad = 0;
  const int left = (me + n - 1) % n;
  for (int i = 0; i < N + 2 * GUARD; ++i) {
    const int in = i >= GUARD && i < GUARD + N;
    const uint64_t want = in ? value(left, i - GUARD) : GUARD_WORD;
    if (buf[i] != want && bad++ < 3)
      printf("pc_hello: pe %d: word %d is 0x%llx, expected 0x%llx\n", me, i,
             (unsigned long long)buf[i], (unsigned long long)want);
  }
  const uint64_t want_count = (uint64_t)n * (uint64_t)(n + 1) / 2;
  if (me == 0 && *counter != want_count && bad++ < 4)
    printf("pc_hello: pe 0: counter %llu, expected %llu\n", (unsigned long long)*counter,
           (unsigned long long)want_count);
  printf("pc_hello: pe %d of %d: %s (%d words from pe %d checked)\n", me, n, bad ? "FAIL" : "ok",
         N + 2 * GUARD, left);
  xshmem_free(counter);
  xshmem_free(buf);
  xshmem_finalize();
  return bad ? 1 : 0;
}
