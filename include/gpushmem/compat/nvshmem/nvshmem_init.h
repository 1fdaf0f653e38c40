/*
 * Part of gpushmem/compat/nvshmem/nvshmem.h: the NVSHMEM names whose gpushmem counterpart is spelled or
 * shaped differently, written out: initialisation with attributes (an MPI communicator or a unique id),
 * the initialisation status, the node team, buffer registration, the library version, and the
 * collective-launch grid query.
 */
#ifndef GPUSHMEM_COMPAT_NVSHMEM_INIT_H
#define GPUSHMEM_COMPAT_NVSHMEM_INIT_H

#ifndef GPUSHMEM_COMPAT_NVSHMEM_H
#error "part of <nvshmem.h> (gpushmem/compat/nvshmem): include <nvshmem.h> instead"
#endif

#include <stddef.h>
#include <stdio.h>

#include "gpushmem/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- nvshmemx_init_attr ------------------------------------------------------------------------------ */
/* Flags of nvshmemx_init_attr: how the PEs find each other. */
#define NVSHMEMX_INIT_THREAD_PES 1u           /* PEs are threads of one process: not supported (an error) */
#define NVSHMEMX_INIT_WITH_MPI_COMM (1u << 1) /* attr->mpi_comm points to an MPI_Comm: its ranks are the PEs */
#define NVSHMEMX_INIT_WITH_SHMEM (1u << 2)    /* started by an OpenSHMEM launcher: the usual bootstrap */
#define NVSHMEMX_INIT_WITH_UNIQUEID (1u << 3) /* rank, size and id set by nvshmemx_set_attr_uniqueid_args */

/* NVSHMEM's attribute structure: `mpi_comm` as there; the unique-id arguments are filled by
   nvshmemx_set_attr_uniqueid_args (do not set them by hand). */
typedef struct {
  int version;
  void *mpi_comm;
  struct {
    int rank;
    int nranks;
    const shmemx_uniqueid_t *uniqueid;
  } uid_args;
} nvshmemx_init_attr_t;

#define NVSHMEMX_INIT_ATTR_INITIALIZER \
  {                                    \
    0, NULL, {                         \
      -1, 0, NULL                      \
    }                                  \
  }
#define NVSHMEMX_UNIQUEID_INITIALIZER \
  {                                   \
    { 0 }                             \
  }

static inline int nvshmemx_set_attr_uniqueid_args(int myrank, int nranks, const shmemx_uniqueid_t *uniqueid,
                                                  nvshmemx_init_attr_t *attr) {
  if (attr == NULL) return 1;
  attr->uid_args.rank = myrank;
  attr->uid_args.nranks = nranks;
  attr->uid_args.uniqueid = uniqueid;
  return 0;
}

/* shmemx_init_attr under NVSHMEM's signature. Returns 0 on success (gpushmem says why otherwise). */
static inline int nvshmemx_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr) {
  shmemx_init_attr_t a = SHMEMX_INIT_ATTR_INITIALIZER;
  if ((flags & NVSHMEMX_INIT_THREAD_PES) != 0) {
    fprintf(stderr,
            "nvshmemx_init_attr: NVSHMEMX_INIT_THREAD_PES (PEs as threads of one process) is not "
            "supported by gpushmem: start one process per PE\n");
    return 1;
  }
  if ((flags & (NVSHMEMX_INIT_WITH_MPI_COMM | NVSHMEMX_INIT_WITH_UNIQUEID)) != 0 && attr == NULL) {
    fprintf(stderr, "nvshmemx_init_attr: flags %#x need attr, which is NULL\n", flags);
    return 1;
  }
  if ((flags & NVSHMEMX_INIT_WITH_MPI_COMM) != 0) {
    a.bootstrap = "mpi";
    a.mpi_comm = attr->mpi_comm;
  } else if ((flags & NVSHMEMX_INIT_WITH_UNIQUEID) != 0) {
    a.rank = attr->uid_args.rank;
    a.size = attr->uid_args.nranks;
    a.uniqueid = attr->uid_args.uniqueid;
  }
  int provided = 0;
  return shmemx_init_attr(SHMEM_THREAD_SINGLE, &provided, &a);
}
/* The host-library forms initialise the same way. */
#define nvshmemx_hostlib_init_attr nvshmemx_init_attr
#define nvshmemx_hostlib_finalize shmem_finalize

/* ---- status, version ------------------------------------------------------------------------------- */
#define NVSHMEM_STATUS_NOT_INITIALIZED 0
#define NVSHMEM_STATUS_IS_BOOTSTRAPPED 1
#define NVSHMEM_STATUS_IS_INITIALIZED 2
static inline int nvshmemx_init_status(void) {
  int initialized = 0;
  shmemx_query_initialized(&initialized);
  return initialized ? NVSHMEM_STATUS_IS_INITIALIZED : NVSHMEM_STATUS_NOT_INITIALIZED;
}

/* gpushmem's own version (NVSHMEM_MAJOR_VERSION / MINOR are the OpenSHMEM specification's, as there). */
#define NVSHMEM_VENDOR_MAJOR_VERSION GPUSHMEM_VERSION_MAJOR
#define NVSHMEM_VENDOR_MINOR_VERSION GPUSHMEM_VERSION_MINOR
#define NVSHMEM_VENDOR_PATCH_VERSION GPUSHMEM_VERSION_PATCH
static inline void nvshmemx_vendor_get_version_info(int *major, int *minor, int *patch) {
  if (major != NULL) *major = GPUSHMEM_VERSION_MAJOR;
  if (minor != NULL) *minor = GPUSHMEM_VERSION_MINOR;
  if (patch != NULL) *patch = GPUSHMEM_VERSION_PATCH;
}

/* ---- teams ----------------------------------------------------------------------------------------- */
/* The PEs of this node: gpushmem's SHMEM_TEAM_SHARED (the PEs whose memory this PE reaches directly, which
   are those of its node or virtual host). */
#define NVSHMEMX_TEAM_NODE SHMEM_TEAM_SHARED

/* ---- buffer registration ---------------------------------------------------------------------------- */
/* NVSHMEM needs non-symmetric buffers registered before network transfers use them; gpushmem reaches any
   buffer (the proxy stages what the network cannot read), so these only check their arguments. */
static inline int nvshmemx_buffer_register(void *addr, size_t length) {
  return addr == NULL && length != 0 ? 1 : 0;
}
static inline int nvshmemx_buffer_unregister(void *addr) {
  (void)addr;
  return 0;
}
static inline void nvshmemx_buffer_unregister_all(void) {}

#ifdef __cplusplus
}
#endif

/* ---- collective launch: the largest co-resident grid ------------------------------------------------ */
#if defined(__CUDACC__) && defined(GPUSHMEMI_DEVICE_API)
/* How many blocks of `block` threads of `func` fit on this GPU at once (what shmemx_collective_launch
   accepts); 0 on success. */
static inline int nvshmemx_collective_launch_query_gridsize(const void *func, dim3 block, void **args,
                                                            size_t shared_mem, int *gridsize) {
  (void)args;
  int device = -1, sms = 0, per_sm = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (err == cudaSuccess)
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, (int)(block.x * block.y * block.z), shared_mem);
  if (err != cudaSuccess) return (int)err;
  if (gridsize != NULL) *gridsize = per_sm * sms;
  return 0;
}
#endif

#endif /* GPUSHMEM_COMPAT_NVSHMEM_INIT_H */
