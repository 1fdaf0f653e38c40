// CUDA_MODULE_LOADING=EAGER, set when libgpushmem is loaded (GPUSHMEM_CUDA_EAGER_LOADING, env_table.def).
//
// Under lazy loading, CUDA's default since 12.2, the first launch of a kernel loads its code while holding the
// context's lock and waits for the work already running on the GPU. The CPU proxy's staging copies and the
// network agent's writes into this GPU heap are CUDA calls on the same context, so they wait for that lock. A
// kernel that waits for a put or a get through the proxy then never finishes while the application's thread,
// launching some other kernel for the first time, waits for it: four of the five stalls of the gpu-vhost tests
// (docs/results/2026-12-07-gpu-2). Eager loading moves every load to context creation, before any kernel runs.
#include "gpu/module_loading.hpp"

#include <atomic>
#include <cstdlib>

#include "core/log.hpp"
#include "env/env.hpp"

namespace gpushmem::gpu {
namespace {

// Runs when the dynamic loader loads libgpushmem: before the program's main and its first CUDA call, which reads
// CUDA_MODULE_LOADING, unless the program loaded the library later (dlopen) after using CUDA; then the setting
// comes too late and warn_if_lazy_loading says so. An explicit CUDA_MODULE_LOADING is never overridden.
[[gnu::constructor]] void request_eager_loading() {
  if (env::early_bool("GPUSHMEM_CUDA_EAGER_LOADING")) (void)setenv("CUDA_MODULE_LOADING", "EAGER", 0);
}

}  // namespace

void warn_if_lazy_loading(const char *call, const Driver &d) {
  if (d.cuModuleGetLoadingMode == nullptr) return;
  CUmoduleLoadingMode mode = CU_MODULE_EAGER_LOADING;
  if (d.cuModuleGetLoadingMode(&mode) != CUDA_SUCCESS || mode != CU_MODULE_LAZY_LOADING) return;
  static std::atomic<bool> warned{false};  // once per process
  if (warned.exchange(true)) return;
  GPUSHMEM_LOG_WARN(log::Subsys::init,
                    "%s: CUDA loads kernels lazily here (CUDA_MODULE_LOADING is LAZY, or CUDA started before "
                    "libgpushmem was loaded, or GPUSHMEM_CUDA_EAGER_LOADING=0): the first launch of a kernel "
                    "then waits for this GPU's running kernels while holding the lock the CPU proxy and the "
                    "network agent need, so a kernel waiting on a PE of another node hangs if this process "
                    "launches a kernel for the first time meanwhile. Set CUDA_MODULE_LOADING=EAGER before the "
                    "program starts, or launch (or cudaFuncGetAttributes) every kernel once before such waits",
                    call);
}

}  // namespace gpushmem::gpu
