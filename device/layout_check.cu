// Compiled by nvcc: the shared host/device structures must have the layout the host compiler gives them
// (the static assertions live in the headers), and the public headers must be valid CUDA.
#include <shmem.h>
#include <shmemx.h>

#include "gpushmem/device_state.h"

static_assert(__is_trivially_copyable(gpushmem_device_state_t), "device state is copied to the GPU by value");

// A kernel that touches every field, so the device compiler really lays the struct out.
__global__ void gpushmem_layout_probe(const gpushmem_device_state_t *s, uint64_t *out) {
  out[0] = s->version + s->struct_size + static_cast<uint64_t>(s->my_pe) + static_cast<uint64_t>(s->n_pes) +
           s->heap_size + reinterpret_cast<uintptr_t>(s->heap_base) + reinterpret_cast<uintptr_t>(s->peer_base) +
           reinterpret_cast<uintptr_t>(s->peer_transport);
}
