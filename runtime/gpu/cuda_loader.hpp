// CUDA, reached without linking libcuda: the runtime API comes from the static CUDA runtime (which finds
// libcuda.so at run time and reports its absence as an error code), the driver's virtual-memory functions
// from cudaGetDriverEntryPointByVersion. On a machine without a driver nothing here fails hard: the
// runtime falls back to host mode. Private to runtime/gpu (includes the CUDA headers).
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <string>

#include "core/status.hpp"

namespace gpushmem::gpu {

// Driver entry points, each at the ABI version its typedef names (requested by version, so a newer driver
// keeps giving us these signatures).
struct Driver {
  PFN_cuGetErrorName_v6000 cuGetErrorName = nullptr;
  PFN_cuGetErrorString_v6000 cuGetErrorString = nullptr;
  PFN_cuDeviceGet_v2000 cuDeviceGet = nullptr;
  PFN_cuDeviceGetAttribute_v2000 cuDeviceGetAttribute = nullptr;
  PFN_cuCtxGetCurrent_v4000 cuCtxGetCurrent = nullptr;
  PFN_cuCtxSetCurrent_v4000 cuCtxSetCurrent = nullptr;
  PFN_cuCtxGetDevice_v2000 cuCtxGetDevice = nullptr;
  PFN_cuMemGetAllocationGranularity_v10020 cuMemGetAllocationGranularity = nullptr;
  PFN_cuMemCreate_v10020 cuMemCreate = nullptr;
  PFN_cuMemRelease_v10020 cuMemRelease = nullptr;
  PFN_cuMemExportToShareableHandle_v10020 cuMemExportToShareableHandle = nullptr;
  PFN_cuMemImportFromShareableHandle_v10020 cuMemImportFromShareableHandle = nullptr;
  PFN_cuMemAddressReserve_v10020 cuMemAddressReserve = nullptr;
  PFN_cuMemAddressFree_v10020 cuMemAddressFree = nullptr;
  PFN_cuMemMap_v10020 cuMemMap = nullptr;
  PFN_cuMemUnmap_v10020 cuMemUnmap = nullptr;
  PFN_cuMemSetAccess_v10020 cuMemSetAccess = nullptr;
  // Optional (nullptr where the driver lacks them): stream memory writes, performed by the GPU's front end in
  // stream order, no kernel (gpu_agent.cpp).
  PFN_cuStreamWriteValue32_v11070 cuStreamWriteValue32 = nullptr;
  PFN_cuStreamWriteValue64_v11070 cuStreamWriteValue64 = nullptr;
  // Optional: whether CUDA loads kernels lazily (module_loading.cpp).
  PFN_cuModuleGetLoadingMode_v11070 cuModuleGetLoadingMode = nullptr;
};

// Whether CUDA can be used here: a driver the built-in runtime accepts and at least one device.
// *device_count receives the number of visible devices; *why_not says what is missing otherwise, and
// *expected says whether that is the normal state of a machine without GPUs (no driver, no device) rather
// than something the user should fix (a driver too old for this build, a broken installation).
bool cuda_usable(int *device_count, std::string *why_not, bool *expected);

// Resolves every entry of Driver once (thread safe). nullptr when some entry is missing; the first call
// logs which one and why.
const Driver *driver();

// Driver / runtime version as "major.minor" ("none" without a driver).
std::string driver_version();
std::string runtime_version();

// Log "<call>: <what> failed: <CUDA error name>: <description>; <advice>" as an error and return the
// Status that suits the error (out_of_memory for allocation failures, system_error otherwise). `what` is
// printf-formatted and names the CUDA function with its arguments.
[[gnu::format(printf, 4, 5)]] Status cu_failed(CUresult rc, const char *call, const char *advice, const char *what,
                                               ...);
[[gnu::format(printf, 4, 5)]] Status rt_failed(cudaError_t rc, const char *call, const char *advice, const char *what,
                                               ...);

}  // namespace gpushmem::gpu
