// CUDA's GpuOps (mlx5_gpu_ops.hpp). The driver functions the runtime API lacks (cuMemGetHandleForAddressRange,
// cuDeviceGetAttribute) come through cudaGetDriverEntryPointByVersion, as the rest of libgpushmem reaches the
// driver: nothing links libcuda.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "ibgda/mlx5/mlx5_gpu_ops.hpp"

namespace gpushmem::ibgda::mlx5nic {
namespace {

constexpr unsigned kDriverAbi = 12000;

std::string rt_error(const char *what, cudaError_t e) {
  return std::string(what) + " failed: " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
}

template <class F>
F driver_entry(const char *name) {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(name, &fn, kDriverAbi, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<F>(fn);
}

// cudaMalloc gives 256-byte alignment; a larger one takes a larger block, whose start free() needs.
struct Blocks {
  std::mutex lock;
  std::map<void *, void *> base_of;
};

}  // namespace

GpuOps cuda_gpu_ops() {
  auto blocks = std::make_shared<Blocks>();
  GpuOps ops;
  ops.alloc = [blocks](size_t bytes, size_t align, std::string *why) -> void * {
    void *base = nullptr;
    const size_t total = bytes + (align > 256 ? align : 0);
    cudaError_t e = cudaMalloc(&base, total);
    if (e != cudaSuccess) {
      *why = rt_error(("cudaMalloc(" + std::to_string(total) + ")").c_str(), e);
      return nullptr;
    }
    e = cudaMemset(base, 0, total);
    if (e == cudaSuccess) e = cudaStreamSynchronize(nullptr);
    if (e != cudaSuccess) {
      *why = rt_error("cudaMemset of new IBGDA memory", e);
      (void)cudaFree(base);
      return nullptr;
    }
    const uintptr_t a = align > 256 ? align : 1;
    void *p = reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(base) + a - 1) & ~(a - 1));
    std::lock_guard<std::mutex> g(blocks->lock);
    blocks->base_of[p] = base;
    return p;
  };
  ops.free = [blocks](void *p) {
    void *base = p;
    {
      std::lock_guard<std::mutex> g(blocks->lock);
      auto it = blocks->base_of.find(p);
      if (it != blocks->base_of.end()) {
        base = it->second;
        blocks->base_of.erase(it);
      }
    }
    (void)cudaFree(base);
  };
  ops.fill = [](void *dst, int value, size_t bytes, std::string *why) {
    cudaError_t e = cudaMemset(dst, value, bytes);
    if (e == cudaSuccess) e = cudaStreamSynchronize(nullptr);
    if (e != cudaSuccess) *why = rt_error("cudaMemset", e);
    return e == cudaSuccess;
  };
  ops.to_device = [](void *dst, const void *src, size_t bytes, std::string *why) {
    const cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) *why = rt_error("cudaMemcpy to the device", e);
    return e == cudaSuccess;
  };
  ops.dmabuf_fd = [](const void *p, size_t bytes, std::string *why) -> int {
    static const auto get_handle =
        driver_entry<PFN_cuMemGetHandleForAddressRange_v11070>("cuMemGetHandleForAddressRange");
    if (get_handle == nullptr) {
      *why = "the CUDA driver has no cuMemGetHandleForAddressRange (CUDA 11.7 or later)";
      return -1;
    }
    int fd = -1;
    const CUresult rc =
        get_handle(&fd, reinterpret_cast<CUdeviceptr>(p), bytes, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
    if (rc != CUDA_SUCCESS) {
      *why = "cuMemGetHandleForAddressRange(DMA_BUF_FD, " + std::to_string(bytes) + " bytes) failed with CUresult " +
             std::to_string(static_cast<int>(rc)) +
             " (dma-buf needs the open kernel modules or a driver with dma-buf support, and Linux 5.12 or later)";
      return -1;
    }
    return fd;
  };
  ops.map_io = [](void *host, size_t bytes, std::string *why) -> void * {
    cudaError_t e =
        cudaHostRegister(host, bytes, cudaHostRegisterIoMemory | cudaHostRegisterMapped | cudaHostRegisterPortable);
    if (e != cudaSuccess) {
      *why = rt_error("cudaHostRegister(the NIC's doorbell page, IoMemory | Mapped | Portable)", e) +
             " (the NVIDIA driver maps a NIC's BAR page into the GPU only with PeerMappingOverride=1 on most systems: "
             "options nvidia NVreg_RegistryDwords=\"PeerMappingOverride=1;\")";
      (void)cudaGetLastError();
      return nullptr;
    }
    void *dev = nullptr;
    e = cudaHostGetDevicePointer(&dev, host, 0);
    if (e != cudaSuccess) {
      *why = rt_error("cudaHostGetDevicePointer(the NIC's doorbell page)", e);
      (void)cudaHostUnregister(host);
      return nullptr;
    }
    return dev;
  };
  ops.unmap_io = [](void *host) { (void)cudaHostUnregister(host); };
  return ops;
}

std::string cuda_pci_bus_id() {
  int dev = 0;
  char buf[32] = {};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetPCIBusId(buf, sizeof buf, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return "";
  }
  return buf;
}

int cuda_dma_buf_supported() {
  static const auto get_device = driver_entry<PFN_cuDeviceGet_v2000>("cuDeviceGet");
  static const auto get_attribute = driver_entry<PFN_cuDeviceGetAttribute_v2000>("cuDeviceGetAttribute");
  int ordinal = 0;
  CUdevice dev = 0;
  int v = 0;
  if (get_device == nullptr || get_attribute == nullptr || cudaGetDevice(&ordinal) != cudaSuccess ||
      get_device(&dev, ordinal) != CUDA_SUCCESS ||
      get_attribute(&v, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, dev) != CUDA_SUCCESS)
    return -1;
  return v != 0 ? 1 : 0;
}

}  // namespace gpushmem::ibgda::mlx5nic
