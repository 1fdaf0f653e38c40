/* A datatype describing `bytes` contiguous bytes, so collectives can move blocks larger than INT_MAX. */
#ifndef GPUSHMEM_BOOTSTRAP_MPI_BYTES_H
#define GPUSHMEM_BOOTSTRAP_MPI_BYTES_H

#include <mpi.h>
#include <stddef.h>

/* Largest count passed with MPI_BYTE. Tests build a variant with a tiny value to exercise the derived type. */
#ifndef GPUSHMEM_MPI_MAX_COUNT
#define GPUSHMEM_MPI_MAX_COUNT 2147483647 /* INT_MAX */
#endif

typedef struct mpi_bytes {
  MPI_Datatype type; /* MPI_BYTE, or a committed derived type of extent `bytes` */
  int count;         /* bytes when type is MPI_BYTE, else 1 */
  int derived;       /* 1: mpi_bytes_free must free `type` */
} mpi_bytes_t;

/* Describes one block of `bytes` bytes. Returns an MPI error code; on error nothing is left to free.
   Local (not collective); every rank passing the same `bytes` gets a matching type signature. */
int mpi_bytes_make(size_t bytes, mpi_bytes_t *out);

void mpi_bytes_free(mpi_bytes_t *b);

#endif /* GPUSHMEM_BOOTSTRAP_MPI_BYTES_H */
