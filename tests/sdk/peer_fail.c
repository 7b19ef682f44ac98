/*
 * sdk.example.peer_{stopped,exits}: a peer of the example transport fails in the middle of a job.
 *
 *   peer_fail stop   PE 1 stops itself (SIGSTOP) after a barrier: its receiver thread stops too,
 *                    so PE 0's next get gets no reply; within XSHMEM_EXAMPLE_TIMEOUT the get
 *                    fails naming pe 1 and the job stops.
 *   peer_fail exit   PE 1 exits without finalizing: its connections close; PE 0's transport
 *                    sees it (the receiver thread, or the next get) and names pe 1.
 *
 * PE 0 keeps reading a PE-dependent word from PE 1 (checking its value, guard words around it)
 * for at most 20 s; getting there without an error is a failure (exit 2).
 */
#define _DEFAULT_SOURCE /* usleep */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xshmem/xshmem.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  const int stop = argc > 1 && strcmp(argv[1], "stop") == 0;
  xshmem_init();
  const int me = xshmem_my_pe();
  uint64_t *w = xshmem_malloc(3 * sizeof *w);
  w[0] = w[2] = 0x6a6a6a6a6a6a6a6aULL;
  w[1] = 0xabc000ULL + (uint64_t)me;
  xshmem_barrier_all();
  if (me == 1) {
    printf("peer_fail: pe 1 %s\n", stop ? "stops itself" : "exits without finalizing");
    fflush(stdout);
    if (stop) raise(SIGSTOP);
    _exit(5);
  }
  if (me != 0) { /* other PEs wait for the job to be stopped */
    sleep(30);
    return 3;
  }
  const double start = now_s();
  long reads = 0;
  while (now_s() - start < 20.0) {
    uint64_t got[3] = {0, 0, 0};
    xshmem_getmem(got, w, sizeof got, 1);
    if (got[0] != 0x6a6a6a6a6a6a6a6aULL || got[1] != 0xabc001ULL || got[2] != got[0]) {
      printf("peer_fail: pe 0 read 0x%llx 0x%llx 0x%llx from pe 1\n", (unsigned long long)got[0],
             (unsigned long long)got[1], (unsigned long long)got[2]);
      return 1;
    }
    ++reads;
    usleep(1000);
  }
  printf("peer_fail: pe 0 read pe 1's word %ld times for 20 s and saw no error\n", reads);
  return 2;
}
