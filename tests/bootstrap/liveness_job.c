/* Liveness and lost-peer jobs for the tcp bootstrap (LIV-01, LIV-02, ERR-12), run by xshmem-run:
 *
 *   liveness_job stop_barrier VICTIM    every pe loops in xshmem_barrier_all; VICTIM is stopped
 *   liveness_job stop_wait VICTIM       the others wait_until a flag VICTIM would set; it is
 * stopped liveness_job stop_putstorm VICTIM   every pe puts to its neighbours nonstop; VICTIM is
 * stopped liveness_job kill_barrier VICTIM    as stop_barrier, but VICTIM is killed (SIGKILL)
 *   liveness_job extra_barrier VICTIM   VICTIM calls xshmem_barrier_all once more than the others,
 *                                       then every pe finalizes
 *
 * The stop and kill come from a helper child of VICTIM, 0.5 s into the loop: the runtime's
 * threads and sockets stay as they are, so only the bootstrap's liveness check (stop) or its
 * lost-connection check (kill) can end the job. The helper continues a stopped VICTIM after 12 s
 * (its own ABORT or lost connections then end it) and exits early if VICTIM is gone, so nothing
 * is left behind. A pe that is still looping after 60 s exits 99: the job failed to stop. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xshmem/xshmem.h>

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void sleep_s(double s) {
  struct timespec t = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
  nanosleep(&t, NULL);
}

/* Forks the helper that sends `sig` to this process after 0.5 s. */
static void start_helper(int sig) {
  pid_t victim = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    exit(2);
  }
  if (pid > 0) return;
  /* Hold none of the victim's sockets or heap: its peers must see exactly what it does. */
  for (int fd = 3; fd < 4096; ++fd) close(fd);
  sleep_s(0.5);
  fprintf(stderr, "liveness_job: sending signal %d to pe process %d\n", sig, (int)victim);
  kill(victim, sig);
  for (int i = 0; i < 120 && getppid() == victim; ++i) sleep_s(0.1);
  if (sig == SIGSTOP && getppid() == victim) kill(victim, SIGCONT);
  _exit(0);
}

static void too_long(const char *what, double start) {
  if (now_s() - start < 60) return;
  fprintf(stderr, "FAIL (pe %d): still in %s after 60 s; the job did not stop\n", xshmem_my_pe(),
          what);
  _exit(99);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr,
            "usage: %s stop_barrier|stop_wait|stop_putstorm|kill_barrier|extra_barrier "
            "VICTIM\n",
            argv[0]);
    return 2;
  }
  const char *mode = argv[1];
  const int victim = atoi(argv[2]);
  xshmem_init();
  const int me = xshmem_my_pe(), n = xshmem_n_pes();
  if (victim < 0 || victim >= n) {
    fprintf(stderr, "victim %d is not a pe of %d\n", victim, n);
    return 2;
  }
  enum { kBytes = 1 << 16 };
  int *flag = (int *)xshmem_calloc(1, sizeof(int));
  char *buf = (char *)xshmem_malloc(2 * kBytes);
  char *src = (char *)malloc(kBytes);
  for (int i = 0; i < kBytes; ++i) src[i] = (char)(me * 31 + i);
  xshmem_barrier_all();
  printf("pe %d of %d: %s, victim %d\n", me, n, mode, victim);
  fflush(stdout);
  double start = now_s();
  if (!strcmp(mode, "extra_barrier")) {
    if (me == victim) xshmem_barrier_all();
    xshmem_finalize();
    printf("pe %d: finalize returned\n", me);
    return 0;
  }
  if (me == victim) start_helper(strncmp(mode, "kill", 4) ? SIGSTOP : SIGKILL);
  if (!strcmp(mode, "stop_barrier") || !strcmp(mode, "kill_barrier")) {
    for (;;) {
      xshmem_barrier_all();
      too_long("barrier_all", start);
    }
  } else if (!strcmp(mode, "stop_wait")) {
    if (me == victim) {
      sleep_s(3); /* stopped before it gets here */
      for (int pe = 0; pe < n; ++pe) xshmem_int_p(flag, 1, pe);
    } else {
      xshmem_int_wait_until(flag, XSHMEM_CMP_EQ, 1);
      fprintf(stderr, "FAIL (pe %d): the flag arrived from a stopped pe\n", me);
      _exit(99);
    }
  } else if (!strcmp(mode, "stop_putstorm")) {
    for (;;) {
      xshmem_putmem(buf, src, kBytes, (me + 1) % n);
      xshmem_putmem(buf + kBytes, src, kBytes, (me + n - 1) % n);
      xshmem_quiet();
      too_long("a put storm", start);
    }
  } else {
    fprintf(stderr, "unknown mode '%s'\n", mode);
    return 2;
  }
  sleep_s(60);
  fprintf(stderr, "FAIL (pe %d): %s ended without the job stopping\n", me, mode);
  return 99;
}
