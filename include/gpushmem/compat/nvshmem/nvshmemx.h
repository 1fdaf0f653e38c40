/* NVSHMEM source compatibility: <nvshmemx.h> (the extensions) is the same header as <nvshmem.h>. */
#ifndef GPUSHMEM_COMPAT_NVSHMEMX_H
#define GPUSHMEM_COMPAT_NVSHMEMX_H

#include "nvshmem.h"

#endif /* GPUSHMEM_COMPAT_NVSHMEMX_H */
