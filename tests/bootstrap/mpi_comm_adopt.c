/*
 * bootstrap_mpi_comm <libgpushmem_bootstrap_mpi.so>
 *
 * The application owns MPI: it initialises MPI, hands the plugin first nothing (the plugin must use
 * MPI_COMM_WORLD without finalising MPI) and then a split communicator whose numbering differs from
 * MPI_COMM_WORLD (the plugin must number PEs as that communicator does). MPI must still work afterwards.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "conformance_checks.h"

static void run_with(const char *path, MPI_Comm *comm, const char *what) {
  gpushmem_bootstrap_args_t args;
  memset(&args, 0, sizeof args);
  args.abi_version = GPUSHMEM_BOOTSTRAP_ABI_VERSION;
  args.struct_size = sizeof args;
  args.log = conformance_log;
  args.mpi_comm = comm;
  args.rank = -1;
  args.listen_fd = -1;

  MPI_Comm expect = comm != NULL ? *comm : MPI_COMM_WORLD;
  int rank = -1, size = -1;
  MPI_Comm_rank(expect, &rank);
  MPI_Comm_size(expect, &size);

  gpushmem_bootstrap_t b;
  conformance_load(path, &args, &b);
  if (b.rank != rank || b.size != size)
    conformance_fail(&b, what, "plugin reports rank %d of %d, the communicator says rank %d of %d", b.rank, b.size,
                     rank, size);
  conformance_run(&b);
  int rc = b.finalize(&b);
  if (rc != GPUSHMEM_BOOTSTRAP_OK) conformance_fail(NULL, what, "finalize returned %d", rc);
  int finalized = 1;
  MPI_Finalized(&finalized);
  if (finalized) conformance_fail(NULL, what, "the plugin finalised MPI, which the application owns");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: bootstrap_mpi_comm <path to libgpushmem_bootstrap_mpi.so> (run under mpirun)\n");
    return 64;
  }
  int provided = 0, world_rank = 0, world_size = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);

  run_with(argv[1], NULL, "MPI_COMM_WORLD adopted");

  /* Two halves (odd/even world ranks), numbered in reverse world order. */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_size - world_rank, &half);
  run_with(argv[1], &half, "split communicator adopted");
  if (MPI_Barrier(half) != MPI_SUCCESS) conformance_fail(NULL, "split communicator", "unusable after finalize");
  MPI_Comm_free(&half);

  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank == 0) printf("bootstrap_mpi_comm: %d ranks OK\n", world_size);
  MPI_Finalize();
  return 0;
}
