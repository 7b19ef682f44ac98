/* The libfabric staged path (docs/semantics.md, "The libfabric transport"), across the chunk
 * boundary: every PE puts to and gets from its right neighbour sizes chunk-1, chunk, chunk+1 and
 * 3*chunk+7 (blocking and nbi, at an odd heap offset), with guard bytes on both sides of every
 * destination, and checks every byte against the writer's PE-dependent pattern. Run with
 * XSHMEM_LIBFABRIC_STAGED=1 and XSHMEM_LIBFABRIC_STAGED_CHUNK=<chunk>.
 *
 *   lf_staged CHUNK [bench]   (bench: also time 4-byte puts and gets, for diagnosis)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xshmem/xshmem.h>

enum { kGuard = 64, kSkew = 3 };
static const unsigned char kPoison = 0xA5, kGuardByte = 0x5A;

static unsigned char pattern(int pe, size_t size, size_t i, int round) {
  return (unsigned char)(i * 131u + (size_t)pe * 17u + size * 7u + (size_t)round * 29u + 1u);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Checks [base, base + kGuard + size + kGuard): guards intact, data = writer's pattern. */
static int check(const char *what, const unsigned char *base, size_t size, int writer, int round,
                 int me) {
  size_t bad = 0, first = (size_t)-1;
  for (size_t i = 0; i < kGuard; ++i) {
    if (base[i] != kGuardByte || base[kGuard + size + i] != kGuardByte) {
      fprintf(stderr, "lf_staged: pe %d: %s of %zu bytes: guard byte %zu %s changed\n", me, what,
              size, i, base[i] != kGuardByte ? "before the data" : "after the data");
      return 1;
    }
  }
  for (size_t i = 0; i < size; ++i)
    if (base[kGuard + i] != pattern(writer, size, i, round)) {
      if (first == (size_t)-1) first = i;
      ++bad;
    }
  if (bad) {
    fprintf(stderr,
            "lf_staged: pe %d: %s of %zu bytes from pe %d: %zu bytes differ, the first at byte "
            "%zu (0x%02x, expected 0x%02x)\n",
            me, what, size, writer, bad, first, base[kGuard + first],
            pattern(writer, size, first, round));
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2 || atol(argv[1]) < 2) {
    fprintf(stderr, "usage: lf_staged CHUNK [bench]\n");
    return 2;
  }
  const size_t chunk = (size_t)atol(argv[1]);
  xshmem_init();
  const int me = xshmem_my_pe(), n = xshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const size_t sizes[] = {chunk - 1, chunk, chunk + 1, 3 * chunk + 7};
  const size_t max = 3 * chunk + 7, span = kSkew + 2 * kGuard + max;
  unsigned char *dst = (unsigned char *)xshmem_malloc(span); /* written by the left neighbour */
  unsigned char *src = (unsigned char *)xshmem_malloc(span); /* read by the left neighbour */
  unsigned char *mine = (unsigned char *)malloc(span);
  unsigned char *got = (unsigned char *)malloc(span);
  if (!dst || !src || !mine || !got) {
    fprintf(stderr, "lf_staged: pe %d: allocation of %zu bytes failed\n", me, span);
    return 1;
  }
  int fails = 0, round = 0;
  for (int nbi = 0; nbi < 2; ++nbi) {
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s, ++round) {
      const size_t size = sizes[s];
      /* Destination: guards around the data, at an odd offset; source: this PE's pattern. */
      unsigned char *d = dst + kSkew;
      memset(dst, kPoison, span);
      memset(d, kGuardByte, kGuard);
      memset(d + kGuard + size, kGuardByte, kGuard);
      for (size_t i = 0; i < size; ++i) {
        mine[i] = pattern(me, size, i, round);
        src[kSkew + kGuard + i] = pattern(me, size, i, round);
      }
      memset(got, kGuardByte, span);
      xshmem_barrier_all();
      if (nbi) {
        xshmem_putmem_nbi(d + kGuard, mine, size, right);
        xshmem_getmem_nbi(got + kGuard, src + kSkew + kGuard, size, right);
        xshmem_quiet();
      } else {
        xshmem_putmem(d + kGuard, mine, size, right);
        xshmem_getmem(got + kGuard, src + kSkew + kGuard, size, right);
      }
      memset(mine, 0, size); /* the put's source is reusable on return (or after quiet) */
      xshmem_barrier_all();
      fails += check(nbi ? "put_nbi" : "put", d, size, left, round, me);
      fails += check(nbi ? "get_nbi" : "get", got, size, right, round, me);
      if (!fails && me == 0)
        printf("lf_staged: %s %zu bytes (chunk %zu): put and get ok\n", nbi ? "nbi" : "blocking",
               size, chunk);
    }
  }
  /* Remote completion of quiet: PE 0 puts 4 MiB (many chunks) to PE 1, quiets, then tells PE 1
   * outside xshmem (a file; no message on the transport that could be ordered behind the data).
   * PE 1 checks at once: every byte must be there when PE 0's quiet has returned. */
  {
    const size_t big = 4u << 20;
    unsigned char *b = (unsigned char *)xshmem_malloc(big);
    unsigned char *bsrc = (unsigned char *)malloc(big);
    char flag[128];
    snprintf(flag, sizeof flag, "/tmp/lf_staged.%d.quiet", (int)getppid());
    if (me == 1) {
      memset(b, kPoison, big);
      unlink(flag);
    }
    for (size_t i = 0; i < big; ++i) bsrc[i] = pattern(0, big, i, 99);
    xshmem_barrier_all();
    if (me == 0 && n > 1) {
      xshmem_putmem(b, bsrc, big, 1);
      xshmem_quiet();
      FILE *f = fopen(flag, "w");
      if (f) fclose(f);
    } else if (me == 1) {
      const double t0 = now();
      while (access(flag, F_OK) != 0 && now() - t0 < 20) usleep(100);
      size_t bad = 0, first = 0;
      for (size_t i = 0; i < big; ++i)
        if (b[i] != bsrc[i] && bad++ == 0) first = i;
      if (access(flag, F_OK) != 0) {
        fprintf(stderr, "lf_staged: pe 1: pe 0 did not finish its 4 MiB put and quiet in 20 s\n");
        ++fails;
      } else if (bad) {
        fprintf(stderr,
                "lf_staged: pe 1: after pe 0's quiet returned, %zu of the 4 MiB it put had not "
                "arrived (the first at byte %zu)\n",
                bad, first);
        ++fails;
      } else {
        printf("lf_staged: 4 MiB put complete at the target when quiet returned\n");
      }
      unlink(flag);
    }
    free(bsrc);
  }
  xshmem_barrier_all(); /* every PE has checked before the bench writes dst again */
  if (argc > 2 && strcmp(argv[2], "bench") == 0 && me == 0) {
    const int iters = 2000;
    double t0 = now();
    for (int i = 0; i < iters; ++i) xshmem_putmem(dst, &i, sizeof i, right);
    xshmem_quiet();
    double t1 = now();
    for (int i = 0; i < iters; ++i) xshmem_getmem(got, src, 4, right);
    double t2 = now();
    printf("lf_staged: bench: 4-byte put %.1f us, get %.1f us\n", (t1 - t0) / iters * 1e6,
           (t2 - t1) / iters * 1e6);
  }
  xshmem_barrier_all();
  int all = fails;
  int *sum = (int *)xshmem_malloc(sizeof(int));
  *sum = 0;
  xshmem_barrier_all();
  xshmem_int_atomic_add(sum, fails, 0);
  xshmem_barrier_all();
  if (me == 0) {
    all = xshmem_int_atomic_fetch(sum, 0);
    if (all == 0)
      printf("lf_staged: PASS (%d pes, chunk %zu)\n", n, chunk);
    else
      printf("lf_staged: FAIL: %d checks failed\n", all);
  }
  xshmem_finalize();
  return all || fails ? 1 : 0;
}
