/*
 * compat.depr.death.<scenario>.np2.hostshm: how the active-set collectives fail (2 PEs, through
 * shmem.h, checked mode). Each scenario stops the job; death_check.sh checks the one line.
 *   bad_psync:         pSync[0] is 5 on every PE (never SHMEM_SYNC_VALUE): shmem_barrier stops
 *                      on entry, naming the word and its value, instead of returning early.
 *   not_member:        pe 1 calls shmem_barrier on the active set {0}: stopped, and pe 1 does not
 *                      touch pSync.
 *   barrier_deadline:  pe 1 never enters shmem_barrier (XSHMEM_WAIT_TIMEOUT=1s): pe 0's wait is
 *                      reported as shmem_barrier waiting in round 0 for pe 1 on pSync[0].
 *   collect_deadline:  pe 0 never enters shmem_collect64: pe 1's wait for its offset is reported
 *                      as shmem_collect64 waiting for pe 0 on pSync[64].
 * A PE that returns from a call the scenario never lets return exits 3.
 */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static long pSync[SHMEM_SYNC_SIZE];
static long src[4], dst[8];

int main(int argc, char **argv) {
  const char *scenario = argc > 1 ? argv[1] : "";
  shmem_init();
  const int me = shmem_my_pe();
  if (strcmp(scenario, "bad_psync") == 0) {
    pSync[0] = 5;
    shmem_barrier_all();
    shmem_barrier(0, 0, shmem_n_pes(), pSync);
    fprintf(stderr, "depr_death: pe %d returned from shmem_barrier with pSync[0] = 5\n", me);
    return 3;
  }
  if (strcmp(scenario, "not_member") == 0) {
    shmem_barrier(0, 0, 1, pSync); /* pe 0 is the set: it returns at once */
    if (me == 1) {
      fprintf(stderr, "depr_death: pe 1 returned from a barrier of a set without it\n");
      return 3;
    }
    shmem_barrier_all(); /* until pe 1's failure stops the job */
    return 3;
  }
  if (strcmp(scenario, "barrier_deadline") == 0) {
    if (me == 1) {
      sleep(30);
      return 3;
    }
    shmem_barrier(0, 0, 2, pSync);
    fprintf(stderr, "depr_death: pe 0 left a barrier pe 1 never entered\n");
    return 3;
  }
  if (strcmp(scenario, "collect_deadline") == 0) {
    if (me == 0) {
      sleep(30);
      return 3;
    }
    shmem_collect64(dst, src, 1, 0, 0, 2, pSync);
    fprintf(stderr, "depr_death: pe 1 left a collect pe 0 never entered\n");
    return 3;
  }
  fprintf(stderr, "depr_death: unknown scenario '%s'\n", scenario);
  return 2;
}
