/*
 * compat.depr.np<N>: the deprecated forms of OpenSHMEM through shmem.h (built with
 * -Wno-deprecated-declarations): start_pes, _my_pe, shmalloc and friends, the old atomic names,
 * shmem_wait, the cache no-ops, and the active-set collectives with pSync, on two active sets
 * that overlap (A: PEs 0,1,2, stride 1; B: PEs 0,2,..., logPE_stride 1) used alternately with no
 * other synchronisation, each with its own pSync reused on every call; then a pSync reused by
 * another set after a barrier. PE-dependent data, poisoned destinations between guard words;
 * every pSync is back to SHMEM_SYNC_VALUE at the end.
 */
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

enum { N = 6, G = 2, MAXSET = 8, ITERS = 6 };
#define POISON (-77L)

static long pSyncA[SHMEM_SYNC_SIZE], pSyncB[SHMEM_SYNC_SIZE], pSyncW[SHMEM_REDUCE_SYNC_SIZE];

/* The buffers of one active set (a global: symmetric). */
struct bufs {
  long bsrc[N], bdst[N + 2 * G];
  int32_t fsrc[N], fdst[MAXSET * N + 2 * G];
  long csrc[N], cdst[MAXSET * N + 2 * G];
  long asrc[MAXSET * N], adst[MAXSET * N + 2 * G];
  int32_t ssrc[MAXSET * N * 2], sdst[MAXSET * N * 3 + 2 * G];
  long rsrc[N], rdst[N + 2 * G], rwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];
  double dsrc[N], ddst[N + 2 * G], dwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];
  int isrc[N], idst[N + 2 * G], iwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];
  short hsrc[N], hdst[N + 2 * G], hwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];
};
static struct bufs setA, setB, setW;

static long val(int set, int src, int dst, int it, int k) {
  return 100000L * (set + 1) + 10007L * (src + 1) + 101L * (dst + 1) + 13L * it + k;
}

static void poison_long(long *a, size_t n) {
  for (size_t i = 0; i < n; ++i) a[i] = POISON;
}
static void poison_i32(int32_t *a, size_t n) {
  for (size_t i = 0; i < n; ++i) a[i] = (int32_t)POISON;
}
static void guards_long(const long *a, size_t body, const char *what) {
  for (int g = 0; g < G; ++g) {
    CHECK_EQ(a[g], POISON, what);
    CHECK_EQ(a[G + body + g], POISON, what);
  }
}

/* Every collective once on the set (start, logs, size) that this PE is a member of (index me). */
static void run_set(int id, struct bufs *b, long *pSync, int start, int logs, int size, int it) {
  const int world = shmem_my_pe(), stride = 1 << logs, me = (world - start) / stride;
  /* Every destination is poisoned before any member starts: a collective may write a member's
   * dest as soon as it is called elsewhere (dest must be ready on all members at the call). */
  poison_long(b->bdst, N + 2 * G);
  poison_i32(b->fdst, MAXSET * N + 2 * G);
  poison_long(b->cdst, MAXSET * N + 2 * G);
  poison_long(b->adst, MAXSET * N + 2 * G);
  poison_i32(b->sdst, MAXSET * N * 3 + 2 * G);
  poison_long(b->rdst, N + 2 * G);
  for (int k = 0; k < N + 2 * G; ++k) {
    b->ddst[k] = POISON;
    b->idst[k] = (int)POISON;
  }
  shmem_sync(start, logs, size, pSync);
  /* broadcast64 from a root that moves with the iteration; the root's dest is untouched */
  const int root = it % size;
  for (int k = 0; k < N; ++k) b->bsrc[k] = val(id, root, 0, it, k);
  shmem_broadcast64(b->bdst + G, b->bsrc, N, root, start, logs, size, pSync);
  for (int k = 0; k < N; ++k)
    CHECK_EQ(b->bdst[G + k], me == root ? POISON : val(id, root, 0, it, k), "broadcast64");
  guards_long(b->bdst, N, "broadcast64 guard");

  /* fcollect32 */
  for (int k = 0; k < N; ++k) b->fsrc[k] = (int32_t)val(id, me, 1, it, k);
  shmem_fcollect32(b->fdst + G, b->fsrc, N, start, logs, size, pSync);
  for (int i = 0; i < size; ++i)
    for (int k = 0; k < N; ++k)
      CHECK_EQ(b->fdst[G + i * N + k], (int32_t)val(id, i, 1, it, k), "fcollect32");
  for (int g = 0; g < G; ++g) {
    CHECK_EQ(b->fdst[g], (int32_t)POISON, "fcollect32 guard");
    CHECK_EQ(b->fdst[G + size * N + g], (int32_t)POISON, "fcollect32 guard");
  }

  /* collect64: member i gives (i + it) % N + 1 elements */
  const int mine = (me + it) % N + 1;
  int total = 0, before = 0;
  for (int i = 0; i < size; ++i) {
    if (i == me) before = total;
    total += (i + it) % N + 1;
  }
  for (int k = 0; k < mine; ++k) b->csrc[k] = val(id, me, 2, it, k);
  shmem_collect64(b->cdst + G, b->csrc, (size_t)mine, start, logs, size, pSync);
  for (int i = 0, at = 0; i < size; ++i)
    for (int k = 0; k < (i + it) % N + 1; ++k, ++at)
      CHECK_EQ(b->cdst[G + at], val(id, i, 2, it, k), "collect64");
  guards_long(b->cdst, (size_t)total, "collect64 guard");
  (void)before;

  /* alltoall64: block j of my source goes to member j */
  for (int j = 0; j < size; ++j)
    for (int k = 0; k < N; ++k) b->asrc[j * N + k] = val(id, me, j, it, k);
  shmem_alltoall64(b->adst + G, b->asrc, N, start, logs, size, pSync);
  for (int i = 0; i < size; ++i)
    for (int k = 0; k < N; ++k)
      CHECK_EQ(b->adst[G + i * N + k], val(id, i, me, it, k), "alltoall64");
  guards_long(b->adst, (size_t)size * N, "alltoall64 guard");

  /* alltoalls32: source stride 2, dest stride 3 */
  for (int j = 0; j < size * N * 2; ++j)
    b->ssrc[j] = (int32_t)(j % 2 ? -1 : val(id, me, j / 2 / N, it, j / 2 % N));
  shmem_alltoalls32(b->sdst + G, b->ssrc, 3, 2, N, start, logs, size, pSync);
  for (int i = 0; i < size; ++i)
    for (int k = 0; k < N; ++k) {
      const int at = G + (i * N + k) * 3;
      CHECK_EQ(b->sdst[at], (int32_t)val(id, i, me, it, k), "alltoalls32");
      CHECK_EQ(b->sdst[at + 1], (int32_t)POISON, "alltoalls32 gap");
      CHECK_EQ(b->sdst[at + 2], (int32_t)POISON, "alltoalls32 gap");
    }

  /* reductions: long sum, double sum (exact: small integers), int max, short xor; in place too */
  for (int k = 0; k < N; ++k) {
    b->rsrc[k] = val(id, me, 3, it, k);
    b->dsrc[k] = (double)(me * 3 + k + it);
    b->isrc[k] = (int)val(id, (me + k) % size, 4, it, k);
    b->hsrc[k] = (short)((me + 1) << (k % 8));
  }
  shmem_long_sum_to_all(b->rdst + G, b->rsrc, N, start, logs, size, b->rwrk, pSync);
  shmem_double_sum_to_all(b->ddst + G, b->dsrc, N, start, logs, size, b->dwrk, pSync);
  shmem_int_max_to_all(b->idst + G, b->isrc, N, start, logs, size, b->iwrk, pSync);
  shmem_short_xor_to_all(b->hsrc, b->hsrc, N, start, logs, size, b->hwrk, pSync); /* in place */
  for (int k = 0; k < N; ++k) {
    long ls = 0;
    double ds = 0;
    int im = 0;
    short hx = 0;
    for (int i = 0; i < size; ++i) {
      ls += val(id, i, 3, it, k);
      ds += (double)(i * 3 + k + it);
      const int iv = (int)val(id, (i + k) % size, 4, it, k);
      im = i == 0 || iv > im ? iv : im;
      hx ^= (short)((i + 1) << (k % 8));
    }
    CHECK_EQ(b->rdst[G + k], ls, "long_sum_to_all");
    CHECK_EQ(b->ddst[G + k], ds, "double_sum_to_all");
    CHECK_EQ(b->idst[G + k], im, "int_max_to_all");
    CHECK_EQ(b->hsrc[k], hx, "short_xor_to_all in place");
  }
  guards_long(b->rdst, N, "long_sum_to_all guard");
  for (int g = 0; g < G; ++g) {
    CHECK_EQ(b->ddst[g], POISON, "double_sum_to_all guard");
    CHECK_EQ(b->idst[G + N + g], (int)POISON, "int_max_to_all guard");
  }

  /* barrier and the active-set sync: puts before are visible after */
  const int right = start + ((me + 1) % size) * stride;
  shmem_long_p(&b->bsrc[0], val(id, me, 5, it, 0), right);
  shmem_barrier(start, logs, size, pSync);
  CHECK_EQ(b->bsrc[0], val(id, (me + size - 1) % size, 5, it, 0), "barrier");
  shmem_sync(start, logs, size, pSync);
}

static void check_psync(const long *p, const char *what) {
  for (int i = 0; i < SHMEM_SYNC_SIZE; ++i)
    CHECK(p[i] == SHMEM_SYNC_VALUE, "%s: pSync[%d] is %ld", what, i, p[i]);
}

int main(void) {
  start_pes(0);
  const int me = compat_me = _my_pe(), npes = _num_pes();
  CHECK_EQ(me, shmem_my_pe(), "_my_pe");
  CHECK_EQ(npes, shmem_n_pes(), "_num_pes");
  shmem_set_cache_inv();
  shmem_clear_cache_inv();
  shmem_udcflush();

  /* Memory: shmalloc, shmemalign, shrealloc, shfree (symmetric: a put reaches them) */
  long *m = (long *)shmalloc(4 * sizeof(long));
  long *al = (long *)shmemalign(256, 2 * sizeof(long));
  CHECK(m != NULL && al != NULL && ((uintptr_t)al % 256) == 0, "shmalloc/shmemalign");
  m[0] = POISON;
  shmem_barrier_all();
  shmem_long_p(m, val(9, me, 0, 0, 0), (me + 1) % npes);
  shmem_barrier_all();
  CHECK_EQ(m[0], val(9, (me + npes - 1) % npes, 0, 0, 0), "put to shmalloc'd memory");
  m = (long *)shrealloc(m, 64 * sizeof(long));
  CHECK_EQ(m[0], val(9, (me + npes - 1) % npes, 0, 0, 0), "shrealloc keeps the contents");
  shfree(al);
  shfree(m);

  /* The old atomic names, on PE 0's counters */
  static long lc, lsw;
  static int ic;
  static long long llc;
  static double dsw;
  static float fsw;
  shmem_barrier_all();
  const long f = shmem_long_fadd(&lc, me + 1, 0);
  CHECK(f >= 0 && f < (long)npes * (npes + 1) / 2 + 12L * npes, "long_fadd fetched %ld", f);
  shmem_long_finc(&lc, 0);
  shmem_long_add(&lc, 10, 0);
  shmem_long_inc(&lc, 0);
  shmem_int_finc(&ic, 0);
  shmem_int_add(&ic, me, 0);
  shmem_longlong_fadd(&llc, 1000LL * (me + 1), 0);
  shmem_longlong_inc(&llc, 0);
  shmem_barrier_all();
  if (me == 0) {
    CHECK_EQ(lc, (long)npes * (npes + 1) / 2 + 12L * npes, "old long atomics");
    CHECK_EQ(ic, npes + npes * (npes - 1) / 2, "old int atomics");
    CHECK_EQ(llc, 1000LL * npes * (npes + 1) / 2 + npes, "old longlong atomics");
  }
  shmem_barrier_all();
  /* cswap: exactly one PE wins; swap, fetch, set */
  const long prev = shmem_long_cswap(&lsw, 0, me + 100, 0);
  static long winners;
  if (prev == 0) shmem_long_inc(&winners, 0);
  shmem_barrier_all();
  if (me == 0) {
    CHECK_EQ(winners, 1L, "long_cswap winners");
    CHECK(lsw >= 100 && lsw < 100 + npes, "long_cswap value %ld", lsw);
  }
  shmem_barrier_all();
  if (me == npes - 1) {
    shmem_long_set(&lsw, 5, 0);
    CHECK_EQ(shmem_long_fetch(&lsw, 0), 5L, "long_set/fetch");
    CHECK_EQ(shmem_swap(&lsw, 6, 0), 5L, "untyped swap");
    CHECK_EQ(shmem_long_swap(&lsw, 7, 0), 6L, "long_swap");
    shmem_double_set(&dsw, 1.5, 0);
    CHECK_EQ(shmem_double_swap(&dsw, 2.5, 0), 1.5, "double_swap");
    CHECK_EQ(shmem_float_swap(&fsw, 3.5f, 0), 0.0f, "float_swap");
    CHECK_EQ(shmem_float_fetch(&fsw, 0), 3.5f, "float_fetch");
    CHECK_EQ(shmem_int_cswap(&ic, -1, 0, 0), npes + npes * (npes - 1) / 2, "int_cswap miss");
  }
  shmem_barrier_all();

  /* shmem_wait and the typed forms: wait while the word still holds its old value */
  static long wl, wl2;
  static int wi;
  static short ws;
  static long long wll;
  shmem_barrier_all();
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  shmem_long_p(&wl, val(8, me, right, 0, 0), right);
  shmem_long_p(&wl2, val(8, me, right, 0, 1), right);
  shmem_int_p(&wi, me + 1, right);
  shmem_short_p(&ws, (short)(me + 1), right);
  shmem_longlong_p(&wll, me + 1, right);
  shmem_wait(&wl, 0);
  shmem_long_wait(&wl2, 0);
  shmem_int_wait(&wi, 0);
  shmem_short_wait(&ws, 0);
  shmem_longlong_wait(&wll, 0);
  CHECK_EQ(wl, val(8, left, me, 0, 0), "shmem_wait");
  CHECK_EQ(wl2, val(8, left, me, 0, 1), "shmem_long_wait");
  CHECK_EQ(wi, left + 1, "shmem_int_wait");
  CHECK_EQ(ws, left + 1, "shmem_short_wait");
  CHECK_EQ(wll, left + 1, "shmem_longlong_wait");
  shmem_barrier_all();

  /* Active sets. A: PEs 0..min(3, npes)-1, stride 1. B: PEs 0, 2, ... (logPE_stride 1). They
   * overlap on PE 0 (and 2): members of both alternate A and B calls, each set with its own
   * pSync reused by every call, no other synchronisation. W: the whole world. */
  const int sizeA = npes < 3 ? npes : 3, sizeB = (npes + 1) / 2;
  const int inA = me < sizeA, inB = me % 2 == 0;
  for (int it = 0; it < ITERS; ++it) {
    if (inA) run_set(0, &setA, pSyncA, 0, 0, sizeA, it);
    if (inB) run_set(1, &setB, pSyncB, 0, 1, sizeB, it);
    run_set(2, &setW, pSyncW, 0, 0, npes, it);
  }
  /* Every member of every set has returned: every pSync is back at SHMEM_SYNC_VALUE. The
   * barrier after the checks is part of the protocol, not a delay: once it releases the PEs, the
   * first one out starts B on pSyncA and adds its round-0 token to its partner's pSyncA[0] at
   * once, so without it a PE still checking could see that token (pSyncA[0] == 1 on PE 0 or 2). */
  shmem_barrier_all();
  check_psync(pSyncA, "pSyncA restored");
  check_psync(pSyncB, "pSyncB restored");
  check_psync(pSyncW, "pSyncW restored");
  shmem_barrier_all();
  /* After a barrier, a pSync may serve another active set: A's for B, B's for A. */
  for (int it = 0; it < 2; ++it) {
    if (inB) run_set(1, &setB, pSyncA, 0, 1, sizeB, ITERS + it);
    shmem_barrier_all();
    if (inA) run_set(0, &setA, pSyncB, 0, 0, sizeA, ITERS + it);
    shmem_barrier_all();
  }
  /* A set that does not start at PE 0 (PEs 1..npes-1) */
  if (npes > 1 && me >= 1) run_set(3, &setA, pSyncA, 1, 0, npes - 1, 0);
  shmem_barrier_all();
  check_psync(pSyncA, "pSyncA restored after the reuse");
  check_psync(pSyncB, "pSyncB restored after the reuse");

  int all = compat_failures, total = 0;
  static int fails;
  shmem_int_atomic_add(&fails, all, 0);
  shmem_barrier_all();
  if (me == 0) {
    total = fails;
    if (total == 0)
      printf("PASS: compat_depr on %d PEs\n", npes);
    else
      printf("FAIL: %d failed checks\n", total);
  }
  total = shmem_int_g(&fails, 0);
  /* No shmem_finalize: start_pes finalizes at exit. */
  return total == 0 ? 0 : 1;
}
