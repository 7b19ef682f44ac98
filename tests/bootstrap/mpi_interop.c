/*
 * mpi_interop: xshmem and MPI in one program under mpirun, with the bootstrap left to detection.
 *
 *   mpi_interop xshmem-first   xshmem_init (gets pmix), then MPI_Init: both must work, since
 *                              PMIx_Init is reference counted and MPI uses the same libpmix
 *   mpi_interop mpi-first      MPI_Init, then xshmem_init (gets mpi, which reuses MPI)
 *
 * Each PE checks an MPI_Allreduce and an xshmem put of values derived from the PE numbers, and
 * that MPI and xshmem agree on rank and size. The bootstrap chosen is checked from the debug log
 * by the CTest entry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <xshmem/xshmem.h>

static int check_both(void) {
  int me = xshmem_my_pe(), n = xshmem_n_pes(), mpi_rank = -1, mpi_size = -1, fails = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
  if (mpi_rank != me || mpi_size != n) {
    fprintf(stderr, "FAIL pe %d of %d: MPI says rank %d of %d\n", me, n, mpi_rank, mpi_size);
    return 1;
  }
  long mine = 1000L * (me + 1) + 7, sum = 0, want = 0;
  for (int r = 0; r < n; r++) want += 1000L * (r + 1) + 7;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (sum != want)
    fprintf(stderr, "FAIL pe %d: MPI_Allreduce gave %ld, expected %ld\n", me, sum, want), fails++;
  long *slot = xshmem_malloc(2 * sizeof(long));
  if (!slot) {
    fprintf(stderr, "FAIL pe %d: xshmem_malloc failed\n", me);
    return 1;
  }
  slot[0] = -1;
  slot[1] = 0x5a5a5a5a; /* guard */
  xshmem_barrier_all();
  long v = 31L * me + 5;
  xshmem_long_put(slot, &v, 1, (me + 1) % n);
  xshmem_barrier_all();
  int left = (me + n - 1) % n;
  if (slot[0] != 31L * left + 5 || slot[1] != 0x5a5a5a5a)
    fprintf(stderr, "FAIL pe %d: put from pe %d gave %ld (guard %lx), expected %ld\n", me, left,
            slot[0], (unsigned long)slot[1], 31L * left + 5),
        fails++;
  xshmem_free(slot);
  return fails;
}

int main(int argc, char **argv) {
  setenv("XSHMEM_HEAP", "host", 0);
  int fails = 0;
  if (argc == 2 && !strcmp(argv[1], "xshmem-first")) {
    xshmem_init();
    MPI_Init(&argc, &argv);
    fails = check_both();
    MPI_Finalize();
    xshmem_finalize();
  } else if (argc == 2 && !strcmp(argv[1], "mpi-first")) {
    MPI_Init(&argc, &argv);
    xshmem_init();
    fails = check_both();
    xshmem_finalize();
    MPI_Finalize();
  } else {
    fprintf(stderr, "usage: %s xshmem-first|mpi-first\n", argv[0]);
    return 2;
  }
  if (!fails) printf("mpi_interop %s: ok\n", argv[1]);
  return fails ? 1 : 0;
}
