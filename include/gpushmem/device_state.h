/*
 * The device state: everything a GPU thread needs to reach other PEs. One definition, included by the host
 * compiler (the runtime fills it) and by nvcc (kernels read it), with its layout pinned by static
 * assertions on both sides. Versioned because it crosses the library boundary into user kernels.
 *
 * How kernels reach it without -rdc: every CUDA translation unit that includes <shmem.h> gets its own
 * `static __constant__` copy of this struct plus a host function that copies a struct into that copy
 * (cudaMemcpyToSymbol, compiled in the user's TU so it uses the user's CUDA runtime). A static initialiser
 * in the same TU registers that function with libgpushmem through gpushmemi_register_device_state(); the
 * runtime calls every registered function at shmem_init and whenever the state changes (heap growth), and
 * at once for a TU registered after init.
 */
#ifndef GPUSHMEM_DEVICE_STATE_H
#define GPUSHMEM_DEVICE_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "gpushmem/device_error.h"
#include "gpushmem/proxy_channel.h"

struct gpushmem_ibgda_state; /* gpushmem/ibgda_qp.h */

#define GPUSHMEM_DEVICE_STATE_VERSION 6

/* The first bytes of every PE's GPU heap belong to the runtime (device barrier counters, sync words);
   user allocations start after them. Zeroed at init. Its layout is device/internal_area.cuh's. */
#define GPUSHMEM_DEVICE_INTERNAL_BYTES (64u * 1024u)

/* How one peer is reached from device code. */
enum gpushmem_peer_transport {
  GPUSHMEM_PEER_UNREACHABLE = 0,
  GPUSHMEM_PEER_P2P = 1,   /* peer_base[pe] is mapped: direct loads, stores and atomics */
  GPUSHMEM_PEER_IBGDA = 2, /* the GPU writes NIC work requests itself */
  GPUSHMEM_PEER_PROXY = 3  /* requests go through the CPU proxy ring */
};

typedef struct gpushmem_device_state {
  uint32_t version;     /* GPUSHMEM_DEVICE_STATE_VERSION; 0 means "not initialised" */
  uint32_t struct_size; /* sizeof(gpushmem_device_state_t) */
  int32_t my_pe;
  int32_t n_pes;
  uint64_t heap_size;      /* bytes of each PE's GPU heap mapped now, internal area included (grows) */
  char *heap_base;         /* this PE's GPU heap (device address); symmetric address = heap_base + offset */
  char **peer_base;        /* device array [n_pes]: where each PE's heap is mapped here, NULL if not */
  uint8_t *peer_transport; /* device array [n_pes]: enum gpushmem_peer_transport */
  uint32_t error_checks;   /* nonzero: device calls check PE range and symmetric addresses, then trap */
  uint32_t reserved32;
  /* Fast path to node-local heaps without a memory load: when the node's PEs are the world PEs
     first_local_pe .. first_local_pe + local_fast_count - 1 and all are mapped, PE pe's heap is at
     slot0 + (pe - first_local_pe) * slot_stride. local_fast_count 0: use peer_base[]. The table lives in
     global memory, which a system-scope fence can evict from L1; these fields live in the constant bank. */
  char *slot0;
  uint64_t slot_stride;
  int32_t first_local_pe;
  int32_t local_fast_count;
  /* Device array [GPUSHMEM_MAX_TEAMS] (gpushmem/team_state.h), indexed by a team handle's slot: the teams
     this PE belongs to, as device code sees them (size 0: a free slot). NULL before init. */
  const struct gpushmem_team_state *teams;
  /* The CPU proxy (peers whose peer_transport is GPUSHMEM_PEER_PROXY; gpushmem/proxy_channel.h): a device array of
     proxy_channel_count channels, the requests to PE pe going to channel pe % proxy_channel_count, so one PE's
     operations stay in order. NULL and 0 when no peer needs the proxy. */
  const gpushmem_proxy_channel_t *proxy_channels;
  uint32_t proxy_channel_count;
  uint32_t proxy_region_gpu_heap; /* the transport's region id of the GPU heap (remote word of a slot) */
  uint64_t device_timeout_ns;     /* GPUSHMEM_DEVICE_TIMEOUT: how long a GPU thread waits for the proxy; 0: forever */
  /* The sticky device error (gpushmem/device_error.h): pinned host memory the first failing device call fills. */
  struct gpushmem_device_error *device_error;
  /* IBGDA (peers whose peer_transport is GPUSHMEM_PEER_IBGDA; gpushmem/ibgda_qp.h): device memory; NULL when no
     peer is reached that way. */
  const struct gpushmem_ibgda_state *ibgda;
} gpushmem_device_state_t;

/* The layout both compilers must agree on (LP64). */
#ifdef __cplusplus
static_assert(sizeof(gpushmem_device_state_t) == 128, "device state layout changed: bump the version");
static_assert(offsetof(gpushmem_device_state_t, heap_base) == 24, "device state layout changed");
static_assert(offsetof(gpushmem_device_state_t, error_checks) == 48, "device state layout changed");
static_assert(offsetof(gpushmem_device_state_t, slot0) == 56, "device state layout changed");
static_assert(offsetof(gpushmem_device_state_t, local_fast_count) == 76, "device state layout changed");
static_assert(offsetof(gpushmem_device_state_t, teams) == 80, "device state layout changed");
static_assert(offsetof(gpushmem_device_state_t, proxy_channels) == 88, "device state layout changed");
static_assert(offsetof(gpushmem_device_state_t, device_error) == 112, "device state layout changed");
static_assert(offsetof(gpushmem_device_state_t, ibgda) == 120, "device state layout changed");
#else
_Static_assert(sizeof(gpushmem_device_state_t) == 128, "device state layout changed: bump the version");
_Static_assert(offsetof(gpushmem_device_state_t, heap_base) == 24, "device state layout changed");
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Copies `state` into one translation unit's __constant__ copy. Runs on the host, in the PE's device
   context. */
typedef void (*gpushmemi_device_state_updater_t)(const gpushmem_device_state_t *state);

/* Internal ABI between <shmem.h>'s device part and libgpushmem; not for applications. Registers an
   updater (idempotent for the same function); calls it at once when the state already exists.
   Returns 0. Thread safe. */
int gpushmemi_register_device_state(gpushmemi_device_state_updater_t updater);
/* The same for translation units inside libgpushmem itself (GPUSHMEM_BUILDING_LIBRARY): registered alike, but
   they do not count as the application using the device API, which is what puts the symmetric heap on the
   GPU when GPUSHMEM_SYMMETRIC_HEAP=auto. */
int gpushmemi_register_library_device_state(gpushmemi_device_state_updater_t updater);

#ifdef __cplusplus
}
#endif

#endif /* GPUSHMEM_DEVICE_STATE_H */
