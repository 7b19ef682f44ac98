/* compat.depr.warns: a call of a deprecated routine (OpenSHMEM 1.5 deprecates shmem_long_fadd
 * and shmem_barrier with a pSync) is diagnosed by the compiler (-Wdeprecated-declarations). */
#include <shmem.h>

static long pSync[SHMEM_BARRIER_SYNC_SIZE];

long use(long *counter) {
#if CASE == 1
  return shmem_long_fadd(counter, 1, 0);
#else
  shmem_barrier(0, 0, shmem_n_pes(), pSync);
  return *counter;
#endif
}
