/* Byte counts above INT_MAX: one derived datatype of exactly `bytes` bytes, so each collective is still a
   single MPI call with count 1 (chunking would need extra synchronisation and ordering rules). */
#include "mpi_bytes.h"

#include <limits.h>

int mpi_bytes_make(size_t bytes, mpi_bytes_t *out) {
  out->type = MPI_BYTE;
  out->count = (int)bytes;
  out->derived = 0;
  if (bytes <= (size_t)GPUSHMEM_MPI_MAX_COUNT) return MPI_SUCCESS;

  const size_t chunk = (size_t)GPUSHMEM_MPI_MAX_COUNT;
  const size_t nchunks = bytes / chunk;
  const size_t rest = bytes % chunk;
  if (nchunks > (size_t)INT_MAX) return MPI_ERR_COUNT;

  MPI_Datatype piece = MPI_DATATYPE_NULL, body = MPI_DATATYPE_NULL, whole = MPI_DATATYPE_NULL;
  int rc = MPI_Type_contiguous((int)chunk, MPI_BYTE, &piece);
  if (rc == MPI_SUCCESS) rc = MPI_Type_contiguous((int)nchunks, piece, &body);
  if (rc == MPI_SUCCESS && rest == 0) {
    whole = body;
    body = MPI_DATATYPE_NULL;
  } else if (rc == MPI_SUCCESS) {
    int lengths[2] = {1, (int)rest};
    MPI_Aint displs[2] = {0, (MPI_Aint)(nchunks * chunk)};
    MPI_Datatype types[2] = {body, MPI_BYTE};
    rc = MPI_Type_create_struct(2, lengths, displs, types, &whole);
  }
  /* Pin the extent to `bytes` so block r of an allgather lands at r*bytes whatever the implementation pads. */
  MPI_Datatype sized = MPI_DATATYPE_NULL;
  if (rc == MPI_SUCCESS) rc = MPI_Type_create_resized(whole, 0, (MPI_Aint)bytes, &sized);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&sized);

  if (piece != MPI_DATATYPE_NULL) MPI_Type_free(&piece);
  if (body != MPI_DATATYPE_NULL) MPI_Type_free(&body);
  if (whole != MPI_DATATYPE_NULL) MPI_Type_free(&whole);
  if (rc != MPI_SUCCESS) {
    if (sized != MPI_DATATYPE_NULL) MPI_Type_free(&sized);
    return rc;
  }
  out->type = sized;
  out->count = 1;
  out->derived = 1;
  return MPI_SUCCESS;
}

void mpi_bytes_free(mpi_bytes_t *b) {
  if (b->derived) MPI_Type_free(&b->type);
  b->derived = 0;
}
