/*
 * mpi_interop: xshmem and MPI in one program under mpirun, with the bootstrap left to detection.
 *
 *   mpi_interop xshmem-first   xshmem_init (gets pmix), then MPI_Init: both must work, since
 *                              PMIx_Init is reference counted and MPI uses the same libpmix
 *   mpi_interop mpi-first      MPI_Init, then xshmem_init (gets mpi, which reuses MPI)
 *   mpi_interop comm           MPI_Init, MPI_Comm_split of the world by rank parity in reversed
 *                              order, then xshmem_init_attr(XSHMEM_INIT_WITH_MPI_COMM): each half
 *                              is its own xshmem job, PE i its communicator's rank i (first a
 *                              NULL communicator and a NULL attr are refused)
 *
 * Each PE checks an MPI_Allreduce and an xshmem put of values derived from the PE numbers, and
 * that MPI (the communicator the job is made of) and xshmem agree on rank and size. The bootstrap
 * chosen is checked from the debug log by the CTest entry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <xshmem/xshmem.h>

static int check_both(MPI_Comm comm) {
  int me = xshmem_my_pe(), n = xshmem_n_pes(), mpi_rank = -1, mpi_size = -1, fails = 0;
  MPI_Comm_rank(comm, &mpi_rank);
  MPI_Comm_size(comm, &mpi_size);
  if (mpi_rank != me || mpi_size != n) {
    fprintf(stderr, "FAIL pe %d of %d: MPI says rank %d of %d\n", me, n, mpi_rank, mpi_size);
    return 1;
  }
  long mine = 1000L * (me + 1) + 7, sum = 0, want = 0;
  for (int r = 0; r < n; r++) want += 1000L * (r + 1) + 7;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm);
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
    fails = check_both(MPI_COMM_WORLD);
    MPI_Finalize();
    xshmem_finalize();
  } else if (argc == 2 && !strcmp(argv[1], "mpi-first")) {
    MPI_Init(&argc, &argv);
    xshmem_init();
    fails = check_both(MPI_COMM_WORLD);
    xshmem_finalize();
    MPI_Finalize();
  } else if (argc == 2 && !strcmp(argv[1], "comm")) {
    MPI_Init(&argc, &argv);
    int wr = 0, wn = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &wn);
    MPI_Comm half = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, wr % 2, -wr, &half);
    xshmem_init_attr_t attr;
    memset(&attr, 0, sizeof attr);
    if (xshmem_init_attr(XSHMEM_INIT_WITH_MPI_COMM, &attr) == 0 ||
        xshmem_init_attr(XSHMEM_INIT_WITH_MPI_COMM, NULL) == 0) {
      fprintf(stderr, "FAIL rank %d: init with a NULL communicator or attr succeeded\n", wr);
      fails++;
    }
    attr.mpi_comm = &half;
    if (xshmem_init_attr(XSHMEM_INIT_WITH_MPI_COMM, &attr) != 0) {
      fprintf(stderr, "FAIL rank %d: xshmem_init_attr(XSHMEM_INIT_WITH_MPI_COMM) failed\n", wr);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Reversed: PE 0 is the highest world rank of this parity. */
    int above = 0;
    for (int r = wr + 2; r < wn; r += 2) above++;
    if (xshmem_my_pe() != above || xshmem_n_pes() != (wn - wr % 2 + 1) / 2) {
      fprintf(stderr, "FAIL rank %d: pe %d of %d, expected pe %d of %d\n", wr, xshmem_my_pe(),
              xshmem_n_pes(), above, (wn - wr % 2 + 1) / 2);
      fails++;
    }
    fails += check_both(half);
    xshmem_finalize();
    MPI_Comm_free(&half);
    MPI_Finalize();
  } else {
    fprintf(stderr, "usage: %s xshmem-first|mpi-first|comm\n", argv[0]);
    return 2;
  }
  if (!fails) printf("mpi_interop %s: ok\n", argv[1]);
  return fails ? 1 : 0;
}
