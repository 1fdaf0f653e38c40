/*
 * gpushmem bootstrap plugin ABI (pure C, versioned).
 *
 * A bootstrap plugin turns the processes that some launcher started into numbered PEs and gives the
 * core a handful of out-of-band collectives used only during set-up and teardown (never on a data
 * path). Each plugin is one shared object, libgpushmem_bootstrap_<name>.so, that exports exactly one
 * symbol: GPUSHMEM_BOOTSTRAP_PLUGIN_SYMBOL, a function that fills a gpushmem_bootstrap_t.
 *
 * Contract for every function in the table:
 *  - Collective functions (allgather, alltoall, bcast, barrier, finalize) must be called by every PE,
 *    in the same order, from one thread at a time. They block until complete.
 *  - They return GPUSHMEM_BOOTSTRAP_OK (0) or a negative GPUSHMEM_BOOTSTRAP_E* code and never exit the
 *    process themselves, except abort().
 *  - A plugin writes its own diagnostics through the log callback given at init.
 * Only C types cross this boundary.
 */
#ifndef GPUSHMEM_BOOTSTRAP_PLUGIN_H
#define GPUSHMEM_BOOTSTRAP_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any incompatible change of the structs below. The loader refuses another major. */
#define GPUSHMEM_BOOTSTRAP_ABI_VERSION 1
#define GPUSHMEM_BOOTSTRAP_PLUGIN_SYMBOL "gpushmem_bootstrap_plugin_init_v1"

enum {
  GPUSHMEM_BOOTSTRAP_OK = 0,
  GPUSHMEM_BOOTSTRAP_EINVAL = -1,      /* a bad argument */
  GPUSHMEM_BOOTSTRAP_ENOTSUP = -2,     /* the plugin does not implement this entry */
  GPUSHMEM_BOOTSTRAP_ENOLAUNCHER = -3, /* the launcher this plugin serves is not present */
  GPUSHMEM_BOOTSTRAP_EIO = -4,         /* communication with the launcher or a peer failed */
  GPUSHMEM_BOOTSTRAP_ETIMEDOUT = -5    /* a peer did not answer in time */
};

/* Log levels passed to the core's log callback. */
enum { GPUSHMEM_BOOTSTRAP_LOG_ERROR = 0, GPUSHMEM_BOOTSTRAP_LOG_WARN = 1, GPUSHMEM_BOOTSTRAP_LOG_INFO = 2 };

typedef void (*gpushmem_bootstrap_log_fn)(int level, const char *plugin, const char *message);

/*
 * What the core hands a plugin at init. `attr` carries the application's explicit choice made through
 * shmemx_init_attr (may be NULL); each plugin reads only the fields meant for it.
 */
typedef struct gpushmem_bootstrap_args {
  uint32_t abi_version; /* GPUSHMEM_BOOTSTRAP_ABI_VERSION of the core */
  uint32_t struct_size; /* sizeof(gpushmem_bootstrap_args_t) as the core knows it */
  gpushmem_bootstrap_log_fn log;
  /* mpi: pointer to an MPI_Comm the application owns (NULL: MPI_COMM_WORLD, MPI_Init if needed). */
  void *mpi_comm;
  /* tcp: explicit rank, size and unique id ("host:port" text written by shmemx_get_uniqueid).
     rank < 0 means "not given": the plugin then reads the launcher's environment. */
  int32_t rank;
  int32_t size;
  const char *unique_id;
  /* tcp: a listening socket this process already holds for the id (from shmemx_get_uniqueid or
     gpushmemrun), or -1. Only rank 0 uses it. */
  int32_t listen_fd;
  /* seconds a collective may wait for a peer before failing with ETIMEDOUT (0: plugin default). */
  int32_t timeout_s;
} gpushmem_bootstrap_args_t;

/*
 * The function table a plugin fills. Entries it leaves NULL are replaced by the loader with a stub
 * that returns GPUSHMEM_BOOTSTRAP_ENOTSUP.
 */
typedef struct gpushmem_bootstrap {
  uint32_t abi_version; /* the plugin's GPUSHMEM_BOOTSTRAP_ABI_VERSION */
  uint32_t struct_size; /* sizeof(gpushmem_bootstrap_t) as the plugin knows it */
  const char *name;     /* "mpi", "pmix", "tcp", "single", ... */
  int rank;             /* this process's PE number, 0..size-1 */
  int size;             /* number of PEs in the job */
  void *state;          /* plugin private */

  /* Every PE contributes `bytes` at in; out receives size*bytes, rank r's block at r*bytes. */
  int (*allgather)(struct gpushmem_bootstrap *b, const void *in, void *out, size_t bytes);
  /* in holds size blocks of `bytes`; block j goes to rank j, out receives block r from rank r. */
  int (*alltoall)(struct gpushmem_bootstrap *b, const void *in, void *out, size_t bytes);
  /* root's buf is copied to buf on every rank. */
  int (*bcast)(struct gpushmem_bootstrap *b, void *buf, size_t bytes, int root);
  int (*barrier)(struct gpushmem_bootstrap *b);
  /* Ends every PE of the job with exit status `status`; prints why. Callable from any one PE, alone.
     Never returns. */
  void (*abort)(struct gpushmem_bootstrap *b, int status, const char *why);
  /* Collective; releases everything the plugin holds. MPI_Finalize only if the plugin called MPI_Init. */
  int (*finalize)(struct gpushmem_bootstrap *b);
} gpushmem_bootstrap_t;

/* The one symbol each plugin exports. Returns GPUSHMEM_BOOTSTRAP_OK and fills *out, or an error code
   (ENOLAUNCHER when the launcher it serves is absent). */
typedef int (*gpushmem_bootstrap_init_fn)(const gpushmem_bootstrap_args_t *args, gpushmem_bootstrap_t *out);

#ifdef __cplusplus
}
#endif

#endif /* GPUSHMEM_BOOTSTRAP_PLUGIN_H */
