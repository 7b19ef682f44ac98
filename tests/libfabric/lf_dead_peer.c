/* A dead or frozen peer is an error within seconds (docs/semantics.md, "libfabric"): PE 0 runs a
 * long loop of 1 MiB puts and gets to PE 1; PE 1 ends itself mid-transfer with SIGKILL ("kill") or
 * freezes with SIGSTOP ("stop"). PE 0 must stop with an error naming pe 1, long before the
 * bootstrap's liveness time-out (60 s).
 *
 * No launcher: the program forks its two PEs itself (unique-id init), so that nothing but the
 * transport can notice the peer's death (xshmem-run would stop PE 0 as soon as PE 1 dies). It
 * prints "lf_dead_peer: peer pid N" so the caller can reap a stopped peer, and the wall-clock time
 * its loop started, from which the caller times the end. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xshmem/xshmem.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  const int freeze = argc > 1 && strcmp(argv[1], "stop") == 0;
  const double limit = 30.0; /* the loop's own bound: reaching it is the failure */
  xshmem_uniqueid_t uid;
  if (xshmem_get_uniqueid(&uid) != 0) return 2;
  fflush(stdout);
  pid_t child = fork();
  if (child < 0) return 2;
  const int rank = child == 0 ? 1 : 0;
  if (rank == 0) {
    printf("lf_dead_peer: peer pid %d\n", (int)child);
    fflush(stdout);
  }
  xshmem_init_attr_t attr;
  xshmem_set_attr_uniqueid_args(rank, 2, &uid, &attr);
  if (xshmem_init_attr(XSHMEM_INIT_WITH_UNIQUEID, &attr) != 0) return 2;
  const size_t len = 1u << 20;
  char *buf = (char *)xshmem_malloc(len);
  char *src = (char *)malloc(len);
  for (size_t i = 0; i < len; ++i) src[i] = (char)(i * 7 + (size_t)rank);
  xshmem_barrier_all();
  if (rank == 1) {
    usleep(300 * 1000); /* PE 0 is well into its loop */
    raise(freeze ? SIGSTOP : SIGKILL);
    /* continued by the caller after the test: leave */
    _exit(0);
  }
  const double t0 = now();
  {
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    printf("lf_dead_peer: loop start %lld.%09ld\n", (long long)rt.tv_sec, rt.tv_nsec);
    fflush(stdout);
  }
  long rounds = 0;
  while (now() - t0 < limit) {
    xshmem_putmem(buf, src, len, 1);
    xshmem_getmem(src, buf, len, 1);
    ++rounds;
  }
  fprintf(stderr, "lf_dead_peer: pe 0 ran %ld rounds for %.0f s with pe 1 %s and saw no error\n",
          rounds, limit, freeze ? "stopped" : "dead");
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  return 3;
}
