// Which GPU this PE uses, and how that GPU reaches the GPUs of the other PEs on the node. Private to
// runtime/gpu.
#pragma once

#include <cstdint>
#include <string>

#include "gpu/cuda_loader.hpp"
#include "gpu/gpu.hpp"

namespace gpushmem::gpu {

struct Device {
  int ordinal = -1;  // CUDA runtime device number in this process
  CUdevice cu = 0;
  CUcontext ctx = nullptr;  // the context this PE's CUDA work runs in
  bool from_application = false;
  uint64_t granularity = 0;  // recommended granularity of a shareable allocation on this device
  uint8_t uuid[16] = {};
  std::string name;
  std::string bus_id;
};

// Chooses this PE's device: the device of the context current on this thread if the application made one
// current before shmem_init (that context stays current), else node-local rank modulo the visible devices
// (its primary context is made current, as cudaSetDevice does for the application's own CUDA runtime).
// not_supported (logged as a warning) when the device cannot export VMM allocations as file descriptors;
// any other error was logged and is fatal.
Status choose_device(const char *call, const Driver &d, int local_rank, int device_count, Device *out);

// The visible device with this UUID, or -1 (a device hidden by CUDA_VISIBLE_DEVICES, or on another node).
int ordinal_of(const uint8_t uuid[16]);

// How a PE whose GPU is visible device `mine` reaches memory on visible device `theirs`.
Link link_between(int mine, int theirs);

}  // namespace gpushmem::gpu
