// gpushmem-info's view of the node's GPUs: what this process sees, without starting the runtime.
#include "gpu/device_select.hpp"

namespace gpushmem::gpu {

NodeReport probe() {
  NodeReport report;
  report.built_with_cuda = true;
  report.runtime_version = runtime_version();
  report.driver_version = driver_version();
  int count = 0;
  bool expected = true;
  if (!cuda_usable(&count, &report.why_not, &expected)) return report;
  report.available = true;
  const Driver *d = driver();
  for (int i = 0; i < count; ++i) {
    DeviceInfo info;
    info.ordinal = i;
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) == cudaSuccess) {
      info.name = prop.name;
      info.memory_bytes = prop.totalGlobalMem;
      info.cc_major = prop.major;
      info.cc_minor = prop.minor;
    } else {
      info.name = "?";
    }
    char bus[32] = {0};
    info.pci_bus_id = cudaDeviceGetPCIBusId(bus, sizeof bus, i) == cudaSuccess ? bus : "?";
    (void)cudaGetLastError();
    CUdevice dev = 0;
    int vmm = 0, posix_fd = 0, dma_buf = 0;
    if (d != nullptr && d->cuDeviceGet(&dev, i) == CUDA_SUCCESS) {
      // dma-buf export of device memory: what registering GPU memory with a NIC needs without nvidia-peermem.
      if (d->cuDeviceGetAttribute(&dma_buf, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, dev) != CUDA_SUCCESS) dma_buf = 0;
      if (d->cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev) != CUDA_SUCCESS)
        vmm = 0;
      if (d->cuDeviceGetAttribute(&posix_fd, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, dev) !=
          CUDA_SUCCESS)
        posix_fd = 0;
    }
    info.vmm = vmm != 0;
    info.posix_fd = posix_fd != 0;
    info.dma_buf = dma_buf != 0;
    report.devices.push_back(std::move(info));
  }
  report.link.assign(static_cast<size_t>(count), std::vector<Link>(static_cast<size_t>(count), Link::unreachable));
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < count; ++j) report.link[i][j] = link_between(i, j);
  return report;
}

}  // namespace gpushmem::gpu
