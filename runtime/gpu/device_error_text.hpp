// The host's sentence for a sticky device error record (gpushmem/device_error.h). No CUDA here: unit tests use it.
#pragma once

#include <string>

#include "gpushmem/device_error.h"

namespace gpushmem::gpu {

// "device error in shmem_int_p: pe=1, address 0x340010000: gave up after GPUSHMEM_DEVICE_TIMEOUT=60 s waiting
// for room in a full proxy ring (block 46,0,0 thread 0,0,0)". The record's strings are read within their fields
// even when the device cut them without a NUL.
std::string device_error_text(const gpushmem_device_error_t &e);

}  // namespace gpushmem::gpu
