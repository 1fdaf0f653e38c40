// IBGDA for this PE's GPU (design.md §4): device code posts mlx5 work requests to queue pairs of its own for the
// PEs the network reaches, instead of handing them to the CPU proxy. Chosen with GPUSHMEM_TRANSPORTS listing ibgda;
// with GPUSHMEM_IBGDA_EMULATE=1 the queue pairs are served by a NIC emulator thread that executes them through
// ucx/ (transports/ibgda/emu). Without the emulator the queue pairs are a real mlx5 NIC's (transports/ibgda/mlx5);
// where they cannot be made it says why and device code keeps the CPU proxy.
#pragma once

#include <string>

#include "core/status.hpp"

namespace gpushmem::ibgda_rt {

// shmem_init, after net::init and before proxy_rt::start: in GPU mode with ibgda listed, creates the queue pairs of
// every PE reached through the network (emulated: and starts the emulator; real NIC: collective over the PEs that
// get here) and marks those PEs GPUSHMEM_PEER_IBGDA in the device state (the proxy then serves none of them).
// Nothing otherwise.
[[nodiscard]] Status start(const char *call);
// shmem_finalize, once this PE's kernels are done (gpu::drain): executes what the doorbell records still publish,
// stops the emulator, detaches IBGDA from the device state and frees the queues. A real NIC's queue pairs and the
// heap's registration stay until release: the peers' work requests may still write into this PE's heap.
void stop(const char *call);
// shmem_finalize, past the barrier every PE reaches after its stop (no peer's work request is in flight any more):
// frees a real NIC's queue pairs and registrations.
void release();
bool running();
// Whether device code reaches PE pe through IBGDA (between start and stop).
bool reaches(int pe);
// How device code reaches PE pe through IBGDA (SHMEM_INFO, gpushmem-info --peers), else "".
std::string device_path(int pe);
// Whether an IBGDA thread serves this PE's network (the NIC emulator's, between its polls; a real NIC has none).
bool serves_network();

}  // namespace gpushmem::ibgda_rt
