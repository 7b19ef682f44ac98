/* LOCK-01 and COLL-08 (complex) from C: the C declarations of the locks and of the complex
 * reductions (double _Complex / float _Complex arrays built with <complex.h>'s I) against the
 * library built in C++. Every PE increments a counter on the last PE under a lock (g, add, p; the
 * quiet is clear_lock's); then complexd/complexf sum and prod of Gaussian integers that depend
 * on the PE and the element, exact, with guard elements around dest. Exits 1 on any mismatch
 * (after printing it), 0 when all is exact. Waits: the lock's honour XSHMEM_WAIT_TIMEOUT (set
 * by the CTest entry). */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>

#include <xshmem/xshmem.h>

#if !defined(XSHMEM_HAVE_LOCKS) || !defined(XSHMEM_HAVE_COMPLEX_REDUCE)
#error "xshmem.h does not announce the locks and the complex reductions"
#endif

#define N 5     /* elements per reduction */
#define GUARD 2 /* guard elements on each side of dest */
#define ROUNDS 25

static int failures = 0;

static void fail(const char *what, int i, double gr, double gi, double wr, double wi) {
  if (++failures <= 8)
    fprintf(stderr, "pe %d: %s element %d is (%g, %g), expected (%g, %g)\n", xshmem_my_pe(), what,
            i, gr, gi, wr, wi);
}

/* Element i of PE p's source: a Gaussian integer with a nonzero real part. */
static const double kRe[4] = {-2, -1, 1, 2};
static double part_re(int p, int i) {
  return kRe[(p * 7 + i * 3) % 4];
}
static double part_im(int p, int i) {
  return (double)((p * 5 + i) % 5 - 2);
}

int main(void) {
  xshmem_init();
  const int me = xshmem_my_pe(), n = xshmem_n_pes(), target = n - 1;
  long *lock = xshmem_malloc(sizeof(long));
  long *counter = xshmem_malloc(sizeof(long));
  double _Complex *dsrc = xshmem_malloc(N * sizeof(double _Complex));
  double _Complex *ddst = xshmem_malloc((N + 2 * GUARD) * sizeof(double _Complex));
  float _Complex *fsrc = xshmem_malloc(N * sizeof(float _Complex));
  float _Complex *fdst = xshmem_malloc((N + 2 * GUARD) * sizeof(float _Complex));
  if (!lock || !counter || !dsrc || !ddst || !fsrc || !fdst) {
    fprintf(stderr, "pe %d: xshmem_malloc failed\n", me);
    return 1;
  }
  *lock = 0;
  *counter = 1000 + target;
  xshmem_barrier_all();

  /* The counter under the lock: PE p adds p + 1 + round each round. */
  for (int r = 0; r < ROUNDS; ++r) {
    xshmem_set_lock(lock);
    const long c = xshmem_long_g(counter, target);
    xshmem_long_p(counter, c + me + 1 + r, target);
    xshmem_clear_lock(lock);
  }
  xshmem_barrier_all();
  if (me == target) {
    long want = 1000 + target;
    for (int p = 0; p < n; ++p)
      for (int r = 0; r < ROUNDS; ++r) want += p + 1 + r;
    if (*counter != want) {
      fprintf(stderr, "pe %d: counter is %ld, expected %ld\n", me, *counter, want);
      ++failures;
    }
  }
  /* The lock is free again: each PE in turn takes it with test_lock. */
  for (int p = 0; p < n; ++p) {
    xshmem_barrier_all();
    if (p != me) continue;
    const int rc = xshmem_test_lock(lock);
    if (rc != 0) {
      fprintf(stderr, "pe %d: test_lock on the free lock returned %d\n", me, rc);
      ++failures;
    } else {
      xshmem_clear_lock(lock);
    }
  }
  xshmem_barrier_all();

  /* Complex sums and products. */
  for (int op = 0; op < 2; ++op) {
    for (int i = 0; i < N + 2 * GUARD; ++i) {
      ddst[i] = -77.0 - 77.0 * I;
      fdst[i] = -77.0f - 77.0f * I;
    }
    for (int i = 0; i < N; ++i) {
      dsrc[i] = part_re(me, i) + part_im(me, i) * I;
      fsrc[i] = (float)part_re(me, i) + (float)part_im(me, i) * I;
    }
    const int rd = op == 0 ? xshmem_complexd_sum_reduce(XSHMEM_TEAM_WORLD, ddst + GUARD, dsrc, N)
                           : xshmem_complexd_prod_reduce(XSHMEM_TEAM_WORLD, ddst + GUARD, dsrc, N);
    const int rf = op == 0 ? xshmem_complexf_sum_reduce(XSHMEM_TEAM_WORLD, fdst + GUARD, fsrc, N)
                           : xshmem_complexf_prod_reduce(XSHMEM_TEAM_WORLD, fdst + GUARD, fsrc, N);
    if (rd != 0 || rf != 0) {
      fprintf(stderr, "pe %d: complex reductions returned %d and %d\n", me, rd, rf);
      ++failures;
    }
    for (int i = 0; i < N; ++i) {
      double wr = part_re(0, i), wi = part_im(0, i);
      for (int p = 1; p < n; ++p) {
        const double br = part_re(p, i), bi = part_im(p, i);
        if (op == 0) {
          wr += br, wi += bi;
        } else {
          const double tr = wr * br - wi * bi;
          wi = wr * bi + wi * br;
          wr = tr;
        }
      }
      const double _Complex d = ddst[GUARD + i];
      const float _Complex f = fdst[GUARD + i];
      const char *what = op == 0 ? "sum" : "prod";
      if (creal(d) != wr || cimag(d) != wi) fail(what, i, creal(d), cimag(d), wr, wi);
      if (crealf(f) != (float)wr || cimagf(f) != (float)wi)
        fail(what, i, crealf(f), cimagf(f), wr, wi);
    }
    for (int g = 0; g < GUARD; ++g) {
      const int at[2] = {g, GUARD + N + g};
      for (int k = 0; k < 2; ++k) {
        if (creal(ddst[at[k]]) != -77.0 || cimag(ddst[at[k]]) != -77.0 ||
            crealf(fdst[at[k]]) != -77.0f || cimagf(fdst[at[k]]) != -77.0f)
          fail("guard", at[k], creal(ddst[at[k]]), cimag(ddst[at[k]]), -77.0, -77.0);
      }
    }
    xshmem_barrier_all();
  }

  xshmem_free(fdst);
  xshmem_free(fsrc);
  xshmem_free(ddst);
  xshmem_free(dsrc);
  xshmem_free(counter);
  xshmem_free(lock);
  int all = failures;
  xshmem_finalize();
  if (all == 0 && me == 0) printf("lock_complex_c: %d PEs, all exact\n", n);
  return all == 0 ? 0 : 1;
}
