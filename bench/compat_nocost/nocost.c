/*
 * nocost: the "no cost" check of issue 14 (shmem.h vs the xshmem_ call, same run). Each PE
 * drives its right neighbour over the host data path (hostshm, or whatever XSHMEM_TRANSPORTS
 * picks) with the same operation through its OpenSHMEM name and through its xshmem_ name,
 * alternating the two in rounds so that both see the same machine. PE 0 prints, per metric, the
 * median ns per call of each and their ratio; the program checks what it moved (exit 1 if wrong).
 *   p_8B        shmem_long_p            vs xshmem_long_p
 *   fetch_add   shmem_long_atomic_fetch_add vs xshmem_long_atomic_fetch_add (dependent)
 *   put_64B     shmem_putmem (64 bytes) vs xshmem_putmem
 * Both names are one symbol of libxshmem (a linker alias), so the ratio measures noise. Build
 * (no CMake target: like the other bench/ programs it builds against any tree's headers):
 *   cc -O2 -std=c11 nocost.c -I<tree>/core/include -L<build>/lib -lxshmem -o nocost
 * Run: xshmem-run -n 2 ./nocost [rounds] [calls per round]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <shmem.h>
#include <xshmem/xshmem.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return v[n / 2];
}

enum { MAX_ROUNDS = 101 };

int main(int argc, char **argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 21;
  const long calls = argc > 2 ? atol(argv[2]) : 200000;
  if (rounds < 1 || rounds > MAX_ROUNDS || calls < 1) {
    fprintf(stderr, "usage: nocost [rounds 1..%d] [calls per round]\n", MAX_ROUNDS);
    return 2;
  }
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes;
  long *cell = shmem_calloc(2, sizeof(long));
  char *buf = shmem_malloc(64);
  char src[64];
  for (int i = 0; i < 64; ++i) src[i] = (char)(me * 7 + i);
  static double t[3][2][MAX_ROUNDS];
  long sink = 0;
  for (int r = 0; r < rounds; ++r) {
    for (int k = 0; k < 2; ++k) {
      /* odd rounds run the xshmem_ name first */
      const int which = (k + r) % 2; /* 0: shmem_, 1: xshmem_ */
      shmem_barrier_all();
      double t0 = now_ns();
      if (which == 0)
        for (long i = 0; i < calls; ++i) shmem_long_p(&cell[0], i, right);
      else
        for (long i = 0; i < calls; ++i) xshmem_long_p(&cell[0], i, right);
      shmem_quiet();
      t[0][which][r] = (now_ns() - t0) / (double)calls;
      t0 = now_ns();
      if (which == 0)
        for (long i = 0; i < calls; ++i) sink += shmem_long_atomic_fetch_add(&cell[1], 1, right);
      else
        for (long i = 0; i < calls; ++i) sink += xshmem_long_atomic_fetch_add(&cell[1], 1, right);
      t[1][which][r] = (now_ns() - t0) / (double)calls;
      t0 = now_ns();
      if (which == 0)
        for (long i = 0; i < calls; ++i) shmem_putmem(buf, src, sizeof src, right);
      else
        for (long i = 0; i < calls; ++i) xshmem_putmem(buf, src, sizeof src, right);
      shmem_quiet();
      t[2][which][r] = (now_ns() - t0) / (double)calls;
    }
  }
  shmem_barrier_all();
  /* what arrived: the last p, every fetch_add, the 64 bytes of the left neighbour */
  const int left = (me + npes - 1) % npes;
  int bad = cell[0] != calls - 1 || cell[1] != 2L * rounds * calls;
  for (int i = 0; i < 64; ++i) bad |= buf[i] != (char)(left * 7 + i);
  if (bad) fprintf(stderr, "nocost: pe %d: wrong data (cell %ld %ld)\n", me, cell[0], cell[1]);
  if (me == 0) {
    static const char *const names[3] = {"p_8B", "fetch_add", "put_64B"};
    printf("nocost: %d PEs, %d rounds of %ld calls, median ns per call (sink %ld)\n", npes, rounds,
           calls, sink % 7);
    printf("%-10s %12s %12s %8s\n", "metric", "shmem_", "xshmem_", "ratio");
    for (int m = 0; m < 3; ++m) {
      const double a = median(t[m][0], rounds), b = median(t[m][1], rounds);
      printf("%-10s %12.1f %12.1f %8.3f\n", names[m], a, b, a / b);
    }
  }
  shmem_barrier_all();
  shmem_free(buf);
  shmem_free(cell);
  shmem_finalize();
  return bad;
}
