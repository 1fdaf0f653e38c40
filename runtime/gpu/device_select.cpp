#include "gpu/device_select.hpp"

#include <cstring>

namespace gpushmem::gpu {
namespace {

constexpr const char *kExclusiveAdvice =
    "if the GPU is in exclusive-process compute mode another PE may hold it (nvidia-smi -q -d COMPUTE): switch "
    "it to the default mode (nvidia-smi -c DEFAULT) or run one PE per GPU; GPUSHMEM_DISABLE_CUDA=1 runs without "
    "the GPU";

bool device_attribute(const Driver &d, CUdevice dev, CUdevice_attribute attr, const char *attr_name, int *value,
                      const char *call) {
  CUresult rc = d.cuDeviceGetAttribute(value, attr, dev);
  if (rc == CUDA_SUCCESS) return true;
  (void)cu_failed(rc, call, "treating the attribute as unsupported", "cuDeviceGetAttribute(%s, device=%d)", attr_name,
                  static_cast<int>(dev));
  *value = 0;
  return false;
}

}  // namespace

Status choose_device(const char *call, const Driver &d, int local_rank, int device_count, Device *out) {
  Device dev;
  CUcontext current = nullptr;
  CUresult rc = d.cuCtxGetCurrent(&current);
  if (rc != CUDA_SUCCESS)
    return cu_failed(rc, call, "the CUDA driver is not usable; GPUSHMEM_DISABLE_CUDA=1 runs without the GPU",
                     "cuCtxGetCurrent()");
  if (current != nullptr) {
    // The application chose: keep its context current (it may not be the primary one) and use its device.
    dev.from_application = true;
    dev.ctx = current;
    rc = d.cuCtxGetDevice(&dev.cu);
    if (rc != CUDA_SUCCESS)
      return cu_failed(rc, call, "the context the application made current is not usable", "cuCtxGetDevice()");
    cudaError_t e = cudaGetDevice(&dev.ordinal);  // the runtime follows the current context
    if (e != cudaSuccess)
      return rt_failed(e, call, "the context the application made current is not usable", "cudaGetDevice()");
  } else {
    dev.ordinal = local_rank % device_count;
    cudaError_t e = cudaSetDevice(dev.ordinal);
    if (e == cudaSuccess) e = cudaFree(nullptr);  // creates the primary context now, so it can be read back
    if (e != cudaSuccess)
      return rt_failed(e, call, kExclusiveAdvice, "cudaSetDevice(%d) (node-local rank %d modulo %d visible GPUs)",
                       dev.ordinal, local_rank, device_count);
    rc = d.cuCtxGetCurrent(&dev.ctx);
    if (rc != CUDA_SUCCESS || dev.ctx == nullptr)
      return cu_failed(rc != CUDA_SUCCESS ? rc : CUDA_ERROR_INVALID_CONTEXT, call, kExclusiveAdvice,
                       "cuCtxGetCurrent() after cudaSetDevice(%d)", dev.ordinal);
    rc = d.cuDeviceGet(&dev.cu, dev.ordinal);
    if (rc != CUDA_SUCCESS) return cu_failed(rc, call, kExclusiveAdvice, "cuDeviceGet(ordinal=%d)", dev.ordinal);
  }

  cudaDeviceProp prop{};
  cudaError_t e = cudaGetDeviceProperties(&prop, dev.ordinal);
  if (e != cudaSuccess)
    return rt_failed(e, call, "the device is not usable; GPUSHMEM_DISABLE_CUDA=1 runs without the GPU",
                     "cudaGetDeviceProperties(device=%d)", dev.ordinal);
  dev.name = prop.name;
  static_assert(sizeof dev.uuid == sizeof prop.uuid.bytes, "a CUDA UUID is 16 bytes");
  std::memcpy(dev.uuid, prop.uuid.bytes, sizeof dev.uuid);
  char bus[32] = {0};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, dev.ordinal) != cudaSuccess) {
    (void)cudaGetLastError();
    std::strcpy(bus, "?");
  }
  dev.bus_id = bus;

  int vmm = 0, posix_fd = 0;
  device_attribute(d, dev.cu, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                   "CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED", &vmm, call);
  device_attribute(d, dev.cu, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
                   "CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED", &posix_fd, call);
  if (!vmm || !posix_fd) {
    GPUSHMEM_LOG_WARN(log::Subsys::init,
                      "%s: GPU %d (%s, %s) cannot %s, which the GPU symmetric heap needs: the job uses host "
                      "memory for shmem_malloc",
                      call, dev.ordinal, dev.name.c_str(), dev.bus_id.c_str(),
                      !vmm ? "use CUDA virtual memory management"
                           : "export allocations as POSIX file descriptors (CUDA IPC disabled in this container?)");
    return Status::not_supported;
  }

  CUmemAllocationProp alloc{};
  alloc.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  alloc.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  alloc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  alloc.location.id = static_cast<int>(dev.cu);
  size_t granularity = 0;
  rc = d.cuMemGetAllocationGranularity(&granularity, &alloc, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
  if (rc != CUDA_SUCCESS || granularity == 0)
    return cu_failed(rc != CUDA_SUCCESS ? rc : CUDA_ERROR_INVALID_VALUE, call,
                     "the device cannot hold a shareable allocation; GPUSHMEM_DISABLE_CUDA=1 runs without the GPU",
                     "cuMemGetAllocationGranularity(device=%d, POSIX file descriptor, recommended)",
                     static_cast<int>(dev.cu));
  dev.granularity = granularity;

  GPUSHMEM_LOG_INFO(log::Subsys::init, "%s: GPU %d (%s, %s), %s; allocation granularity %zu bytes", call, dev.ordinal,
                    dev.name.c_str(), dev.bus_id.c_str(),
                    dev.from_application ? "the device of the context the application made current"
                                         : "node-local rank modulo visible GPUs",
                    granularity);
  *out = std::move(dev);
  return Status::ok;
}

int ordinal_of(const uint8_t uuid[16]) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) {
      (void)cudaGetLastError();
      continue;
    }
    if (std::memcmp(prop.uuid.bytes, uuid, 16) == 0) return i;
  }
  return -1;
}

Link link_between(int mine, int theirs) {
  if (mine == theirs) return Link::same_gpu;
  int can = 0;
  if (cudaDeviceCanAccessPeer(&can, mine, theirs) != cudaSuccess) {
    (void)cudaGetLastError();
    return Link::unreachable;
  }
  if (!can) return Link::unreachable;
  // NVLink carries the GPU's atomics natively, PCIe does not: the one attribute the runtime reports that
  // tells the two apart (and the one that matters for device-side atomics).
  int atomics = 0;
  if (cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, mine, theirs) != cudaSuccess) {
    (void)cudaGetLastError();
    atomics = 0;
  }
  return atomics ? Link::nvlink : Link::pcie;
}

}  // namespace gpushmem::gpu
