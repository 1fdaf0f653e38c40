/*
 * The device state: everything a GPU thread needs to reach other PEs. One definition, included by the host
 * compiler (which fills it) and by nvcc (whose kernels read it), with its layout pinned by static
 * assertions on both sides. Versioned because it crosses the library boundary into user kernels.
 */
#ifndef GPUSHMEM_DEVICE_STATE_H
#define GPUSHMEM_DEVICE_STATE_H

#include <stddef.h>
#include <stdint.h>

#define GPUSHMEM_DEVICE_STATE_VERSION 1

/* How one peer is reached from device code. */
enum gpushmem_peer_transport {
  GPUSHMEM_PEER_UNREACHABLE = 0,
  GPUSHMEM_PEER_P2P = 1,   /* peer_base[pe] is mapped: direct loads and stores */
  GPUSHMEM_PEER_IBGDA = 2, /* the GPU writes NIC work requests itself */
  GPUSHMEM_PEER_PROXY = 3  /* requests go through the CPU proxy ring */
};

typedef struct gpushmem_device_state {
  uint32_t version;     /* GPUSHMEM_DEVICE_STATE_VERSION */
  uint32_t struct_size; /* sizeof(gpushmem_device_state_t) */
  int32_t my_pe;
  int32_t n_pes;
  uint64_t heap_size;      /* bytes of each PE's symmetric heap */
  char *heap_base;         /* this PE's heap */
  char **peer_base;        /* [n_pes]: where each PE's heap is mapped here, NULL when not mapped */
  uint8_t *peer_transport; /* [n_pes]: enum gpushmem_peer_transport */
  uint64_t reserved[8];    /* room for the proxy and IBGDA tables without changing the size */
} gpushmem_device_state_t;

/* The layout both compilers must agree on (LP64). */
#ifdef __cplusplus
static_assert(sizeof(gpushmem_device_state_t) == 112, "device state layout changed: bump the version");
static_assert(offsetof(gpushmem_device_state_t, heap_base) == 24, "device state layout changed");
static_assert(offsetof(gpushmem_device_state_t, reserved) == 48, "device state layout changed");
#else
_Static_assert(sizeof(gpushmem_device_state_t) == 112, "device state layout changed: bump the version");
_Static_assert(offsetof(gpushmem_device_state_t, heap_base) == 24, "device state layout changed");
#endif

#endif /* GPUSHMEM_DEVICE_STATE_H */
