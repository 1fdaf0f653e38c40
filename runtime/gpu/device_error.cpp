// The sticky device error (gpushmem/device_error.h): pinned host memory the GPU maps, filled by the first failing
// device call of this PE. The host reports it once: when a runtime CUDA call meets the failed kernel's error,
// from the proxy's watchdog, and at shmem_finalize.
#include "gpu/device_error.hpp"

#include <atomic>
#include <cstring>

#include "core/log.hpp"
#include "gpu/cuda_loader.hpp"
#include "gpu/device_error_text.hpp"
#include "gpu/gpu.hpp"
#include "gpu/session.hpp"
#include "state.hpp"

namespace gpushmem::gpu {

Status create_device_error(const char *call, Session &s) {
  void *p = nullptr;
  cudaError_t e = cudaHostAlloc(&p, sizeof(gpushmem_device_error_t), cudaHostAllocMapped | cudaHostAllocPortable);
  if (e != cudaSuccess)
    return rt_failed(e, call, "pinned host memory is exhausted or locked memory is limited (ulimit -l)",
                     "cudaHostAlloc(%zu bytes, mapped) for the sticky device error", sizeof(gpushmem_device_error_t));
  std::memset(p, 0, sizeof(gpushmem_device_error_t));
  void *d = nullptr;
  e = cudaHostGetDevicePointer(&d, p, 0);
  if (e != cudaSuccess) {
    (void)cudaFreeHost(p);
    return rt_failed(e, call, "the GPU cannot map pinned host memory",
                     "cudaHostGetDevicePointer of the sticky device error");
  }
  s.h_device_error = static_cast<gpushmem_device_error_t *>(p);
  s.d_device_error = static_cast<gpushmem_device_error_t *>(d);
  return Status::ok;
}

void free_device_error(Session &s) {
  if (s.h_device_error != nullptr) (void)cudaFreeHost(s.h_device_error);
  s.h_device_error = s.d_device_error = nullptr;
}

bool report_device_error(const char *where) {
  Session *s = session();
  if (s == nullptr || s->h_device_error == nullptr) return false;
  gpushmem_device_error_t *e = s->h_device_error;
  // Acquire: the device wrote the fields before the state (its system fence).
  if (std::atomic_ref<uint32_t>(e->state).load(std::memory_order_acquire) != 2u) return false;
  if (std::atomic_ref<uint32_t>(e->reported).exchange(1u, std::memory_order_acq_rel) != 0u) return true;
  GPUSHMEM_LOG_ERROR(log::Subsys::init, "%s (the device's own report, read by the host %s)",
                     device_error_text(*e).c_str(), where);
  return true;
}

void report_device_error_at_exit() {
  (void)report_device_error("at shmem_global_exit");
}

}  // namespace gpushmem::gpu
