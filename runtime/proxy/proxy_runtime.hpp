// The CPU proxy of this PE's GPU (design.md §4): the channels device code writes requests into, the proxy
// thread that executes them over the network (runtime_backend.hpp), and its watchdog. Exists in GPU mode
// when some PE is reached through the network; device code then reaches those PEs through it
// (include/gpushmem/device/transport/proxy.cuh).
#pragma once

#include <string>

#include "core/status.hpp"

namespace gpushmem::proxy_rt {

// shmem_init, after net::init: allocates GPUSHMEM_PROXY_CHANNELS channels (pinned, mapped host memory for the
// rings, control words and bounce memory; device memory for the producers' words), starts the proxy thread
// and marks every PE reached through the network as GPUSHMEM_PEER_PROXY in the device state. Nothing in host
// mode or when every PE is mapped.
[[nodiscard]] Status start(const char *call);
// shmem_finalize, once this PE's kernels are done (gpu::drain): executes what is left in the rings, stops
// the thread, detaches the channels from the device state and frees them.
void stop(const char *call);
// Whether the proxy runs, and its one-line description.
bool running();
std::string describe();
// Whether device code reaches PE pe through the proxy (thread safe between start and stop).
bool reaches(int pe);
// How device code reaches PE pe when it goes through the proxy (SHMEM_INFO, gpushmem-info --peers), else "".
std::string device_path(int pe);

}  // namespace gpushmem::proxy_rt
