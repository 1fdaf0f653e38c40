/*
 * NVSHMEM source compatibility: an NVSHMEM program includes <nvshmem.h> and <nvshmemx.h> as before and
 * builds against gpushmem when this folder comes first on its include path:
 *
 *   gpushmemc++ --nvshmem kernel.cu -o k          (the wrappers add -I<include>/gpushmem/compat/nvshmem)
 *   nvcc -I<prefix>/include/gpushmem/compat/nvshmem kernel.cu $(pkg-config --cflags --libs gpushmem)
 *
 * Every nvshmem_ / nvshmemx_ / NVSHMEM_ / NVSHMEMX_ name whose gpushmem name is the same with "nv" taken
 * off is mapped to it (nvshmem_names.h, generated from gpushmem's own headers); the initialisation
 * attributes, the unique id, teams named differently and the launch helpers are written here
 * (nvshmem_init.h); a name gpushmem has no equivalent for stops the build with a message naming it and
 * saying why (nvshmem_missing.h). docs/nvshmem-compat.md lists the differences.
 */
#ifndef GPUSHMEM_COMPAT_NVSHMEM_H
#define GPUSHMEM_COMPAT_NVSHMEM_H

#include <shmem.h>
#include <shmemx.h>

#include "gpushmem/compat/nvshmem/nvshmem_init.h"
#include "gpushmem/compat/nvshmem/nvshmem_missing.h"
#include "gpushmem/compat/nvshmem/nvshmem_names.h"

#endif /* GPUSHMEM_COMPAT_NVSHMEM_H */
