#include "gpu/cuda_loader.hpp"

#include <cstdarg>
#include <cstdio>
#include <mutex>

#include "gpu/device_error.hpp"

namespace gpushmem::gpu {
namespace {

// Every entry point is requested as it was in CUDA 12.0: the typedefs in Driver are those signatures, and
// a newer driver keeps serving them for this version even where it added a newer variant (cuCtxGetDevice
// gained a context argument in 13.0).
constexpr unsigned kDriverAbi = 12000;

std::string version_text(int v) {
  if (v <= 0) return "none";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

template <class F>
bool resolve(const char *name, F *out, std::string *why) {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  cudaError_t e = cudaGetDriverEntryPointByVersion(name, &fn, kDriverAbi, cudaEnableDefault, &found);
  if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || fn == nullptr) {
    char buf[320];
    std::snprintf(buf, sizeof buf, "cudaGetDriverEntryPointByVersion(\"%s\", version %u) failed: %s (%s)", name,
                  kDriverAbi, e != cudaSuccess ? cudaGetErrorName(e) : "symbol not found",
                  found == cudaDriverEntryPointVersionNotSufficent ? "the driver is older than CUDA 12.0"
                  : e != cudaSuccess                               ? cudaGetErrorString(e)
                                                                   : "the driver does not provide it");
    *why = buf;
    (void)cudaGetLastError();  // do not leave the error for the next runtime call to report
    return false;
  }
  *out = reinterpret_cast<F>(fn);
  return true;
}

// Entries the runtime can do without (their users fall back): left nullptr where the driver lacks them.
bool resolve_optional(Driver *d) {
  std::string ignored;
  if (!resolve("cuStreamWriteValue32", &d->cuStreamWriteValue32, &ignored) ||
      !resolve("cuStreamWriteValue64", &d->cuStreamWriteValue64, &ignored)) {
    d->cuStreamWriteValue32 = nullptr;
    d->cuStreamWriteValue64 = nullptr;
  }
  if (!resolve("cuModuleGetLoadingMode", &d->cuModuleGetLoadingMode, &ignored)) d->cuModuleGetLoadingMode = nullptr;
  return true;
}

bool resolve_all(Driver *d, std::string *why) {
  return resolve("cuGetErrorName", &d->cuGetErrorName, why) && resolve("cuGetErrorString", &d->cuGetErrorString, why) &&
         resolve("cuDeviceGet", &d->cuDeviceGet, why) &&
         resolve("cuDeviceGetAttribute", &d->cuDeviceGetAttribute, why) &&
         resolve("cuCtxGetCurrent", &d->cuCtxGetCurrent, why) && resolve("cuCtxSetCurrent", &d->cuCtxSetCurrent, why) &&
         resolve("cuCtxGetDevice", &d->cuCtxGetDevice, why) &&
         resolve("cuMemGetAllocationGranularity", &d->cuMemGetAllocationGranularity, why) &&
         resolve("cuMemCreate", &d->cuMemCreate, why) && resolve("cuMemRelease", &d->cuMemRelease, why) &&
         resolve("cuMemExportToShareableHandle", &d->cuMemExportToShareableHandle, why) &&
         resolve("cuMemImportFromShareableHandle", &d->cuMemImportFromShareableHandle, why) &&
         resolve("cuMemAddressReserve", &d->cuMemAddressReserve, why) &&
         resolve("cuMemAddressFree", &d->cuMemAddressFree, why) && resolve("cuMemMap", &d->cuMemMap, why) &&
         resolve("cuMemUnmap", &d->cuMemUnmap, why) && resolve("cuMemSetAccess", &d->cuMemSetAccess, why) &&
         resolve_optional(d);
}

void log_failure(const char *call, const char *what, const char *name, const char *text, const char *advice) {
  GPUSHMEM_LOG_ERROR(log::Subsys::heap, "%s: %s failed: %s: %s; %s", call, what, name, text, advice);
}

}  // namespace

bool cuda_usable(int *device_count, std::string *why_not, bool *expected) {
  *device_count = 0;
  int driver = 0;
  // Reports 0 without an error when libcuda is absent.
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  (void)cudaGetLastError();
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  (void)cudaGetLastError();  // the runtime keeps the error for the next call otherwise
  if (e == cudaSuccess && count > 0) {
    *device_count = count;
    return true;
  }
  *expected = true;
  if (driver == 0) {
    *why_not = "no CUDA driver (libcuda.so.1 not found)";
  } else if (e == cudaSuccess || e == cudaErrorNoDevice) {
    *why_not = "the CUDA driver sees no device (check CUDA_VISIBLE_DEVICES)";
  } else if (e == cudaErrorInsufficientDriver) {
    *expected = false;
    *why_not = "the CUDA driver supports CUDA " + version_text(driver) + " but this gpushmem was built with CUDA " +
               runtime_version() + ": update the driver, or build gpushmem with a CUDA toolkit the driver supports";
  } else {
    *expected = false;
    *why_not = std::string("cudaGetDeviceCount failed: ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e) +
               " (check the driver installation with nvidia-smi)";
  }
  return false;
}

const Driver *driver() {
  static Driver d;
  static bool ok = false;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string why;
    ok = resolve_all(&d, &why);
    if (!ok)
      GPUSHMEM_LOG_ERROR(log::Subsys::init,
                         "cannot use the CUDA driver's virtual memory functions: %s; update the driver (CUDA "
                         "12.0 or newer), or set GPUSHMEM_DISABLE_CUDA=1 to run without the GPU",
                         why.c_str());
  });
  return ok ? &d : nullptr;
}

std::string driver_version() {
  int v = 0;
  if (cudaDriverGetVersion(&v) != cudaSuccess) v = 0;
  (void)cudaGetLastError();
  return version_text(v);
}

std::string runtime_version() {
  return version_text(CUDART_VERSION);
}

Status cu_failed(CUresult rc, const char *call, const char *advice, const char *what, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, what);
  std::vsnprintf(buf, sizeof buf, what, ap);
  va_end(ap);
  const char *name = nullptr, *text = nullptr;
  const Driver *d = driver();
  if (d != nullptr) {
    if (d->cuGetErrorName(rc, &name) != CUDA_SUCCESS) name = nullptr;
    if (d->cuGetErrorString(rc, &text) != CUDA_SUCCESS) text = nullptr;
  }
  char code[32];
  std::snprintf(code, sizeof code, "CUresult %d", static_cast<int>(rc));
  log_failure(call, buf, name != nullptr ? name : code, text != nullptr ? text : "(no description)", advice);
  return rc == CUDA_ERROR_OUT_OF_MEMORY ? Status::out_of_memory : Status::system_error;
}

Status rt_failed(cudaError_t rc, const char *call, const char *advice, const char *what, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, what);
  std::vsnprintf(buf, sizeof buf, what, ap);
  va_end(ap);
  log_failure(call, buf, cudaGetErrorName(rc), cudaGetErrorString(rc), advice);
  // A failed kernel of this PE is the usual cause: its own report says which call and why.
  (void)report_device_error("after this CUDA error");
  (void)cudaGetLastError();
  return rc == cudaErrorMemoryAllocation ? Status::out_of_memory : Status::system_error;
}

}  // namespace gpushmem::gpu
