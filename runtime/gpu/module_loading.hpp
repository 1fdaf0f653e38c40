// CUDA's kernel loading mode and the deadlock lazy loading causes beside the CPU proxy (module_loading.cpp).
// Private to runtime/gpu.
#pragma once

#include "gpu/cuda_loader.hpp"

namespace gpushmem::gpu {

// Where the network serves this PE's GPU heap or stages its buffers (prepare_network_buffers): warns once per
// process, naming `call`, when CUDA loads kernels lazily, with what to change.
void warn_if_lazy_loading(const char *call, const Driver &d);

}  // namespace gpushmem::gpu
