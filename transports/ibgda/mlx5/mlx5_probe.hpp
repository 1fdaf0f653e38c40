// Would IBGDA work on this host? Each requirement of GPU-posted RDMA on an mlx5 NIC, checked as far as this
// host lets it be without creating queues: rdma-core's libraries (loaded at run time, never linked), an mlx5
// device (GPUSHMEM_HCA, or the first one), its DevX interface, dma-buf export of GPU memory (for queues in GPU
// memory and registering the GPU heap) or nvidia-peermem, and the NVIDIA driver's setting that lets a GPU map the
// NIC's doorbell page. `gpushmem-info --ibgda` prints the result; design.md §4 (IBGDA), transports-notes.md §1.6.
#pragma once

#include <string>
#include <vector>

namespace gpushmem::ibgda::mlx5nic {

enum class Result { yes, no, unknown };

struct Check {
  std::string name;  // what was checked
  Result result = Result::unknown;
  std::string detail;  // what was found
  std::string fix;     // what to change when it is not yes (empty otherwise)
};

struct Probe {
  std::vector<Check> checks;
  bool requirements_met = false;  // every check yes (unknowns allowed only for those that need a GPU here)
  std::string device;             // the mlx5 device chosen, if any
  std::string verdict;            // one sentence: what gpushmem does with network peers on this host, and why
};

// `hca`: the device to use (GPUSHMEM_HCA; empty: the first mlx5 device). `gpu_dma_buf`: whether the CUDA driver
// reports dma-buf support for the GPU (-1: no GPU or no CUDA here, so unknown).
Probe probe(const std::string &hca, int gpu_dma_buf);

const char *result_name(Result r);

}  // namespace gpushmem::ibgda::mlx5nic
