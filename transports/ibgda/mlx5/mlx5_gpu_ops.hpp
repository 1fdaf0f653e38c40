// What the real-NIC provisioner needs from the GPU, as functions: device memory for the queues, producer words,
// bounce memory and tables; a dma-buf of device memory for the NIC; the NIC's doorbell page mapped into the GPU.
// The runtime gives CUDA's (cuda_gpu_ops, mlx5_cuda_ops.cpp, built with CUDA only); tests give their own, so the
// provisioner itself needs no CUDA header.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace gpushmem::ibgda::mlx5nic {

struct GpuOps {
  // Zeroed device memory of `bytes`, its address a multiple of `align` (a power of two up to 64 KiB); nullptr
  // with *why naming the call that failed.
  std::function<void *(size_t bytes, size_t align, std::string *why)> alloc;
  std::function<void(void *p)> free;
  // Device memset / host-to-device copy, complete when they return.
  std::function<bool(void *dst, int value, size_t bytes, std::string *why)> fill;
  std::function<bool(void *dst, const void *src, size_t bytes, std::string *why)> to_device;
  // A dma-buf file descriptor for [p, p + bytes) (both host-page aligned), which the caller closes; -1 with *why
  // when the driver refuses (no dma-buf support: the caller falls back to nvidia-peermem).
  std::function<int(const void *p, size_t bytes, std::string *why)> dmabuf_fd;
  // Maps `bytes` of I/O memory at `host` (a page of the NIC's BAR holding a doorbell) into the GPU; its device
  // address, or nullptr with *why.
  std::function<void *(void *host, size_t bytes, std::string *why)> map_io;
  std::function<void(void *host)> unmap_io;
};

// CUDA's, for the current device and context (mlx5_cuda_ops.cpp; CUDA builds only).
GpuOps cuda_gpu_ops();
// The current device's PCI address ("0000:1B:00.0", "" when unknown) and whether its driver exports device memory
// as dma-buf (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED: 1, 0, -1 unknown), for the probe and the device choice.
std::string cuda_pci_bus_id();
int cuda_dma_buf_supported();

}  // namespace gpushmem::ibgda::mlx5nic
