/* Atomicity across paths (docs/semantics.md "Atomicity across paths"): every PE hammers one
 * counter on every PE with fetch_add, add and compare_swap while some pairs reach each other
 * through hostshm (CPU atomics on shared memory) and others through libfabric (active messages
 * that the target's progress thread executes). The totals must be exact: any update lost
 * between the two paths changes them.
 *
 *   xshmem-run -n 4 lf_amo_mixed [iterations]
 * with XSHMEM_TRANSPORTS=hostshm,libfabric and XSHMEM_PAIR_TRANSPORTS naming libfabric pairs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

int main(int argc, char **argv) {
  const int iters = argc > 1 ? atoi(argv[1]) : 300;
  xshmem_init();
  const int me = xshmem_my_pe(), n = xshmem_n_pes();
  /* guard words around the counter, PE-dependent */
  uint64_t *w = (uint64_t *)xshmem_malloc(3 * sizeof(uint64_t));
  w[0] = 0xa5a5000000000000ull + (uint64_t)me;
  w[1] = 1000u * (uint64_t)me; /* the counter starts at a PE-dependent value */
  w[2] = 0x5a5a000000000000ull + (uint64_t)me;
  xshmem_barrier_all();
  /* Peers on the LSA path (hostshm) update in bursts (their atomics take nanoseconds, the
   * libfabric ones a round trip), so that CPU atomics are in flight at the target while its
   * progress thread applies the libfabric ones. Each PE counts what it added to each target. */
  uint64_t *contrib = (uint64_t *)xshmem_calloc((size_t)n, sizeof(uint64_t));
  uint64_t *mine = (uint64_t *)calloc((size_t)n, sizeof(uint64_t));
  const int burst = 64;
  long cas_retries = 0;
  for (int i = 0; i < iters; ++i) {
    for (int k = 0; k < n; ++k) {
      const int pe = (me + k + i) % n;
      const char *tr = xshmemx_transport_name(pe);
      const int lsa = tr && strcmp(tr, "hostshm") == 0;
      for (int b = 0; b < (lsa ? burst : 1); ++b) {
        (void)xshmem_uint64_atomic_fetch_add(&w[1], 1, pe);
        xshmem_uint64_atomic_add(&w[1], 2, pe);
        /* compare_swap loop: +3 */
        uint64_t old = xshmem_uint64_atomic_fetch(&w[1], pe);
        for (;;) {
          uint64_t seen = xshmem_uint64_atomic_compare_swap(&w[1], old, old + 3, pe);
          if (seen == old) break;
          old = seen;
          ++cas_retries;
        }
        mine[pe] += 6;
      }
    }
  }
  xshmem_barrier_all();
  for (int pe = 0; pe < n; ++pe) xshmem_uint64_p(&contrib[me], mine[pe], pe);
  xshmem_barrier_all();
  uint64_t want = 1000u * (uint64_t)me;
  for (int pe = 0; pe < n; ++pe) want += contrib[pe];
  int bad = 0;
  if (w[1] != want) {
    fprintf(stderr, "lf_amo_mixed: pe %d: counter is %llu, expected %llu (lost %lld updates)\n", me,
            (unsigned long long)w[1], (unsigned long long)want, (long long)(want - w[1]));
    bad = 1;
  }
  if (w[0] != 0xa5a5000000000000ull + (uint64_t)me ||
      w[2] != 0x5a5a000000000000ull + (uint64_t)me) {
    fprintf(stderr, "lf_amo_mixed: pe %d: guard words changed (%llx, %llx)\n", me,
            (unsigned long long)w[0], (unsigned long long)w[2]);
    bad = 1;
  }
  printf("lf_amo_mixed: pe %d: counter %llu (expected %llu), %ld compare_swap retries%s\n", me,
         (unsigned long long)w[1], (unsigned long long)want, cas_retries, bad ? " FAIL" : " ok");
  int all_bad = 0;
  int *flag = (int *)xshmem_malloc(sizeof(int));
  *flag = bad;
  xshmem_barrier_all();
  for (int pe = 0; pe < n; ++pe) all_bad |= xshmem_int_g(flag, pe);
  xshmem_barrier_all();
  xshmem_free(flag);
  xshmem_free(contrib);
  xshmem_free(w);
  free(mine);
  xshmem_finalize();
  return all_bad ? 1 : 0;
}
