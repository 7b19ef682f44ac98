/* osh_compare: one OpenSHMEM program timed against xshmem (xshmem-cc) and Open MPI's OSHMEM
 * (oshcc). See README.md; run.sh builds both and runs them alternately.
 *
 * Point-to-point metrics go from PE 0 to PE 1 (other PEs wait in a barrier); collectives use all
 * PEs. PE 0 prints one line per metric: "metric=<name> value=<x> unit=<us|MB/s|Mmsg/s>".
 * MB is 10^6 bytes. Each metric runs a warm-up, then timed iterations.
 *
 * Collectives use the OpenSHMEM 1.5 team forms (shmem_broadcastmem, shmem_int_sum_reduce,
 * shmem_alltoallmem on SHMEM_TEAM_WORLD) where shmem.h declares 1.5 or later; Open MPI 4.1's
 * OSHMEM declares 1.4, so there the 1.4 active-set forms (shmem_broadcast64,
 * shmem_int_sum_to_all, shmem_alltoall64, with pSync arrays alternated between calls) run
 * instead. The line "api=..." says which.
 *
 * Argument: an optional scale factor for the iteration counts (default 1.0). */
#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION >= 105
#define OSHC_TEAMS 1
#else
#define OSHC_TEAMS 0
#endif

#define BIG (1L << 20)  /* 1 MiB */
#define A2A_BYTES 4096L /* alltoall: bytes per PE */
#define RED_MAX 65536L  /* ints in the large reduction */
#define QUIET_EVERY 64  /* message rate: shmem_quiet every K puts */

static double scale = 1.0;
static int me, npes;

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static long iters(long n) {
  long v = (long)(n * scale);
  return v < 1 ? 1 : v;
}

static void report(const char *name, double value, const char *unit) {
  if (me == 0) {
    printf("metric=%s value=%.4f unit=%s\n", name, value, unit);
    fflush(stdout);
  }
}

static void fail(const char *what) {
  fprintf(stderr, "osh_compare: PE %d: %s\n", me, what);
  fflush(stderr);
  shmem_global_exit(1);
}

/* Symmetric buffers. */
static char *buf_src, *buf_dst;
static long *counter;
static long *ping_flag, *ping_data;
static int *red_src, *red_dst;
static char *a2a_src, *a2a_dst;
#if !OSHC_TEAMS
static long *psync[2];
static int *pwrk;
#endif

/* Message rate: n puts of `size` bytes to PE 1, shmem_quiet every QUIET_EVERY. */
static void put_rate(const char *name, size_t size, long n) {
  long warm = n / 10 + 1;
  shmem_barrier_all();
  if (me == 0) {
    for (long i = 0; i < warm; i++) {
      shmem_putmem(buf_dst, buf_src, size, 1);
      if ((i + 1) % QUIET_EVERY == 0) shmem_quiet();
    }
    shmem_quiet();
    double t0 = now_us();
    for (long i = 0; i < n; i++) {
      shmem_putmem(buf_dst, buf_src, size, 1);
      if ((i + 1) % QUIET_EVERY == 0) shmem_quiet();
    }
    shmem_quiet();
    double t = now_us() - t0;
    report(name, n / t, "Mmsg/s");
  }
  shmem_barrier_all();
}

/* Latency: n blocking gets of `size` bytes from PE 1. */
static void get_lat(const char *name, size_t size, long n) {
  long warm = n / 10 + 1;
  shmem_barrier_all();
  if (me == 0) {
    for (long i = 0; i < warm; i++) shmem_getmem(buf_dst, buf_src, size, 1);
    double t0 = now_us();
    for (long i = 0; i < n; i++) shmem_getmem(buf_dst, buf_src, size, 1);
    double t = now_us() - t0;
    report(name, t / n, "us");
  }
  shmem_barrier_all();
}

/* Bandwidth: n puts (or gets) of `size` bytes, shmem_quiet every `every` puts and at the end. */
static void bw(const char *name, size_t size, long n, long every, int is_get) {
  long warm = n / 10 + 1;
  shmem_barrier_all();
  if (me == 0) {
    for (long i = 0; i < warm; i++) {
      if (is_get)
        shmem_getmem(buf_dst, buf_src, size, 1);
      else
        shmem_putmem(buf_dst, buf_src, size, 1);
    }
    shmem_quiet();
    double t0 = now_us();
    for (long i = 0; i < n; i++) {
      if (is_get) {
        shmem_getmem(buf_dst, buf_src, size, 1);
      } else {
        shmem_putmem(buf_dst, buf_src, size, 1);
        if ((i + 1) % every == 0) shmem_quiet();
      }
    }
    shmem_quiet();
    double t = now_us() - t0;
    report(name, (double)size * n / t, "MB/s");
  }
  shmem_barrier_all();
}

static void fetch_add_lat(long n) {
  long warm = n / 10 + 1;
  shmem_barrier_all();
  if (me == 0) {
    for (long i = 0; i < warm; i++) (void)shmem_long_atomic_fetch_add(counter, 1, 1);
    double t0 = now_us();
    long last = 0;
    for (long i = 0; i < n; i++) last = shmem_long_atomic_fetch_add(counter, 1, 1);
    double t = now_us() - t0;
    if (last != warm + n - 1) fail("fetch_add returned a wrong value");
    report("fetch_add_lat", t / n, "us");
  }
  shmem_barrier_all();
}

static void barrier_lat(long n) {
  for (long i = 0; i < n / 10 + 1; i++) shmem_barrier_all();
  double t0 = now_us();
  for (long i = 0; i < n; i++) shmem_barrier_all();
  double t = now_us() - t0;
  report("barrier_all_lat", t / n, "us");
}

static void bcast_once(long i) {
#if OSHC_TEAMS
  (void)i;
  shmem_broadcastmem(SHMEM_TEAM_WORLD, buf_dst, buf_src, BIG, 0);
#else
  shmem_broadcast64(buf_dst, buf_src, BIG / 8, 0, 0, 0, npes, psync[i & 1]);
#endif
}

static void bcast_lat(long n) {
  for (long i = 0; i < n / 10 + 1; i++) bcast_once(i);
  shmem_barrier_all();
  double t0 = now_us();
  for (long i = 0; i < n; i++) bcast_once(i);
  shmem_barrier_all();
  double t = now_us() - t0;
  if (me != 0 && buf_dst[BIG - 1] != 'a') fail("broadcast delivered wrong data");
  report("bcast_1MiB", t / n, "us");
}

static void reduce_once(long count, long i) {
#if OSHC_TEAMS
  (void)i;
  shmem_int_sum_reduce(SHMEM_TEAM_WORLD, red_dst, red_src, (size_t)count);
#else
  shmem_int_sum_to_all(red_dst, red_src, (int)count, 0, 0, npes, pwrk, psync[i & 1]);
#endif
}

static void reduce_lat(const char *name, long count, long n) {
  for (long i = 0; i < n / 10 + 1; i++) reduce_once(count, i);
  shmem_barrier_all();
  double t0 = now_us();
  for (long i = 0; i < n; i++) reduce_once(count, i);
  shmem_barrier_all();
  double t = now_us() - t0;
  /* red_src[j] = j + 1 on every PE. */
  if (red_dst[count - 1] != (int)count * npes) fail("sum reduction gave a wrong result");
  report(name, t / n, "us");
}

static void a2a_once(long i) {
#if OSHC_TEAMS
  (void)i;
  shmem_alltoallmem(SHMEM_TEAM_WORLD, a2a_dst, a2a_src, A2A_BYTES);
#else
  shmem_alltoall64(a2a_dst, a2a_src, A2A_BYTES / 8, 0, 0, npes, psync[i & 1]);
#endif
}

static void a2a_lat(long n) {
  for (long i = 0; i < n / 10 + 1; i++) a2a_once(i);
  shmem_barrier_all();
  double t0 = now_us();
  for (long i = 0; i < n; i++) a2a_once(i);
  shmem_barrier_all();
  double t = now_us() - t0;
  /* Block p of the result came from PE p, which filled its source with p. */
  for (int p = 0; p < npes; p++)
    if (a2a_dst[p * A2A_BYTES + A2A_BYTES - 1] != (char)p) fail("alltoall delivered wrong data");
  report("alltoall_4KiB", t / n, "us");
}

/* Fenced ping-pong: put data, shmem_fence, put flag; the peer waits on the flag, checks the data
 * and answers the same way. Reports the round trip. */
static void pingpong(long n) {
  long warm = n / 10 + 1;
  *ping_flag = 0;
  shmem_barrier_all();
  double t0 = 0;
  if (me == 0) {
    for (long i = 1; i <= warm + n; i++) {
      if (i == warm + 1) t0 = now_us();
      shmem_long_p(ping_data, i, 1);
      shmem_fence();
      shmem_long_p(ping_flag, i, 1);
      shmem_long_wait_until(ping_flag, SHMEM_CMP_EQ, i);
      if (*ping_data != -i) fail("ping-pong: data arrived after the flag");
    }
    double t = now_us() - t0;
    report("pingpong_fence_rtt", t / n, "us");
  } else if (me == 1) {
    for (long i = 1; i <= warm + n; i++) {
      shmem_long_wait_until(ping_flag, SHMEM_CMP_EQ, i);
      if (*ping_data != i) fail("ping-pong: data arrived after the flag");
      shmem_long_p(ping_data, -i, 0);
      shmem_fence();
      shmem_long_p(ping_flag, i, 0);
    }
  }
  shmem_barrier_all();
}

int main(int argc, char **argv) {
  if (argc > 1) scale = atof(argv[1]);
  if (scale <= 0) scale = 1.0;
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  if (npes < 2) {
    if (me == 0) fprintf(stderr, "osh_compare: needs at least 2 PEs\n");
    shmem_finalize();
    return 1;
  }

  buf_src = shmem_malloc(BIG);
  buf_dst = shmem_malloc(BIG);
  counter = shmem_malloc(sizeof(long));
  ping_flag = shmem_malloc(sizeof(long));
  ping_data = shmem_malloc(sizeof(long));
  red_src = shmem_malloc(RED_MAX * sizeof(int));
  red_dst = shmem_malloc(RED_MAX * sizeof(int));
  a2a_src = shmem_malloc(A2A_BYTES * npes);
  a2a_dst = shmem_malloc(A2A_BYTES * npes);
#if !OSHC_TEAMS
  long sync_size = SHMEM_BCAST_SYNC_SIZE;
  if (SHMEM_REDUCE_SYNC_SIZE > sync_size) sync_size = SHMEM_REDUCE_SYNC_SIZE;
  if (SHMEM_ALLTOALL_SYNC_SIZE > sync_size) sync_size = SHMEM_ALLTOALL_SYNC_SIZE;
  long wrk = RED_MAX / 2 + 1;
  if (wrk < SHMEM_REDUCE_MIN_WRKDATA_SIZE) wrk = SHMEM_REDUCE_MIN_WRKDATA_SIZE;
  for (int k = 0; k < 2; k++) {
    psync[k] = shmem_malloc(sync_size * sizeof(long));
    if (!psync[k]) fail("shmem_malloc failed");
    for (long j = 0; j < sync_size; j++) psync[k][j] = SHMEM_SYNC_VALUE;
  }
  pwrk = shmem_malloc(wrk * sizeof(int));
  if (!pwrk) fail("shmem_malloc failed");
#endif
  if (!buf_src || !buf_dst || !counter || !ping_flag || !ping_data || !red_src || !red_dst ||
      !a2a_src || !a2a_dst)
    fail("shmem_malloc failed");
  memset(buf_src, 'a' + me, BIG);
  memset(buf_dst, 0, BIG);
  *counter = 0;
  for (long j = 0; j < RED_MAX; j++) red_src[j] = (int)(j + 1);
  memset(a2a_src, me, A2A_BYTES * npes);
  shmem_barrier_all();

  if (me == 0) {
    printf("api=%s npes=%d shmem=%d.%d scale=%g\n", OSHC_TEAMS ? "1.5-teams" : "1.4-active-set",
           npes, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, scale);
    fflush(stdout);
  }

  put_rate("put_rate_8B", 8, iters(2000000));
  put_rate("put_rate_64B", 64, iters(2000000));
  get_lat("get_lat_8B", 8, iters(500000));
  get_lat("get_lat_64B", 64, iters(500000));
  bw("put_bw_4KiB", 4096, iters(500000), QUIET_EVERY, 0);
  bw("put_bw_1MiB", BIG, iters(4000), 8, 0);
  bw("get_bw_1MiB", BIG, iters(4000), 8, 1);
  fetch_add_lat(iters(500000));
  barrier_lat(iters(200000));
  bcast_lat(iters(2000));
  reduce_lat("reduce_int_1", 1, iters(200000));
  reduce_lat("reduce_int_65536", RED_MAX, iters(2000));
  a2a_lat(iters(50000));
  pingpong(iters(200000));

  shmem_barrier_all();
#if !OSHC_TEAMS
  shmem_free(pwrk);
  shmem_free(psync[1]);
  shmem_free(psync[0]);
#endif
  shmem_free(a2a_dst);
  shmem_free(a2a_src);
  shmem_free(red_dst);
  shmem_free(red_src);
  shmem_free(ping_data);
  shmem_free(ping_flag);
  shmem_free(counter);
  shmem_free(buf_dst);
  shmem_free(buf_src);
  shmem_finalize();
  return 0;
}
