/*
 * The sticky device error: what the first failing device call of a PE leaves for the host, in pinned host memory
 * the GPU maps (gpushmem_device_state_t.device_error). The device also prints its message, but a trap can lose
 * that printf; the host reports this record (once) when a runtime call meets the failed kernel's CUDA error,
 * from the proxy's watchdog, and at shmem_finalize (runtime/gpu/device_error.cpp). Shared by host and device
 * code; layout pinned.
 *
 * Written today for the waits and paths that fail away from the call's own arguments: a proxy wait past
 * GPUSHMEM_DEVICE_TIMEOUT, an unreachable PE, a bad team. (A file whose device state is not set has no pointer to
 * the record: that error only prints.) Bad arguments
 * (PE range, symmetric address, alignment, an invalid value) and calls without a proxy path only print: their
 * checks sit in every kernel's fast path, and recording there costs those kernels registers
 * (unit.device_register_budget). The other kinds are defined for them all the same.
 */
#ifndef GPUSHMEM_DEVICE_ERROR_H
#define GPUSHMEM_DEVICE_ERROR_H

#include <stddef.h>
#include <stdint.h>

/* What went wrong; each names what `value` and `text` hold. */
enum gpushmem_device_error_kind {
  GPUSHMEM_DEVICE_ERROR_NONE = 0,
  GPUSHMEM_DEVICE_ERROR_NOT_INITIALIZED = 1,   /* the file's device state is not set */
  GPUSHMEM_DEVICE_ERROR_PE = 2,                /* pe out of range; value: the PE count */
  GPUSHMEM_DEVICE_ERROR_ADDRESS = 3,           /* not a symmetric address; text: the argument; value: its bytes */
  GPUSHMEM_DEVICE_ERROR_UNREACHABLE = 4,       /* no path to pe from this GPU */
  GPUSHMEM_DEVICE_ERROR_ALIGNMENT = 5,         /* text: the argument; value: the alignment */
  GPUSHMEM_DEVICE_ERROR_ARGUMENT = 6,          /* text: the argument, then what is allowed; value: its value */
  GPUSHMEM_DEVICE_ERROR_TEAM = 7,              /* text: why the team is refused */
  GPUSHMEM_DEVICE_ERROR_PROXY_TIMEOUT = 8,     /* text: what it waited for; value: the timeout in seconds */
  GPUSHMEM_DEVICE_ERROR_PROXY_UNSUPPORTED = 9, /* the call has no proxy path yet */
  GPUSHMEM_DEVICE_ERROR_IBGDA = 10             /* text: the work request; value: the NIC's syndrome, or -1: a wait for
                                                  the NIC that passed GPUSHMEM_DEVICE_TIMEOUT */
};

#define GPUSHMEM_DEVICE_ERROR_CALL_BYTES 64
#define GPUSHMEM_DEVICE_ERROR_TEXT_BYTES 136

typedef struct gpushmem_device_error {
  uint32_t state; /* 0: none; 1: the first failing thread is writing; 2: written (the fields below are complete) */
  uint32_t kind;  /* enum gpushmem_device_error_kind */
  int32_t pe;     /* the PE the call named (-1: none) */
  uint32_t block[3];
  uint32_t thread[3];
  uint32_t reported;                           /* the host's: nonzero once it reported the record */
  uint64_t address;                            /* the address the call named */
  int64_t value;                               /* per kind, above */
  char call[GPUSHMEM_DEVICE_ERROR_CALL_BYTES]; /* the device call, NUL-terminated (cut to fit) */
  char text[GPUSHMEM_DEVICE_ERROR_TEXT_BYTES]; /* per kind, above; two strings are joined by a NUL */
} gpushmem_device_error_t;

#ifdef __cplusplus
static_assert(sizeof(gpushmem_device_error_t) == 256, "device error layout changed: bump the device state version");
static_assert(offsetof(gpushmem_device_error_t, address) == 40, "device error layout changed");
static_assert(offsetof(gpushmem_device_error_t, call) == 56, "device error layout changed");
#else
_Static_assert(sizeof(gpushmem_device_error_t) == 256, "device error layout changed: bump the device state version");
#endif

#endif /* GPUSHMEM_DEVICE_ERROR_H */
