#include "ibgda/mlx5/mlx5_probe.hpp"

#include <dlfcn.h>
#include <errno.h>

#include <cstring>
#include <fstream>

#if __has_include(<infiniband/mlx5dv.h>)
#include <infiniband/mlx5dv.h>
#define GPUSHMEM_PROBE_HAVE_MLX5DV 1
#endif

namespace gpushmem::ibgda::mlx5nic {

const char *result_name(Result r) {
  switch (r) {
    case Result::yes:
      return "yes";
    case Result::no:
      return "no";
    case Result::unknown:
      return "unknown";
  }
  return "?";
}

namespace {

Check make(const char *name, Result r, std::string detail, std::string fix = {}) {
  Check c;
  c.name = name;
  c.result = r;
  c.detail = std::move(detail);
  if (r != Result::yes) c.fix = std::move(fix);
  return c;
}

// The NVIDIA driver's PeerMappingOverride (cudaHostRegister of the NIC's doorbell page with IoMemory needs it
// on most systems): 1 / 0 from /proc/driver/nvidia/params, -1 when the file or the key is not there.
int peer_mapping_override() {
  std::ifstream in("/proc/driver/nvidia/params");
  if (!in) return -1;
  std::string line;
  while (std::getline(in, line)) {
    const auto at = line.find("RegistryDwords");
    if (at == std::string::npos) continue;
    if (line.find("PeerMappingOverride=1") != std::string::npos) return 1;
    return 0;
  }
  return 0;
}

bool module_loaded(const char *name) {
  std::ifstream in(std::string("/sys/module/") + name + "/initstate");
  return static_cast<bool>(in);
}

void add_gpu_checks(Probe *p, int gpu_dma_buf) {
  const bool peermem = module_loaded("nvidia_peermem");
  if (gpu_dma_buf == 1)
    p->checks.push_back(make("GPU memory for the NIC (dma-buf)", Result::yes,
                             "the CUDA driver exports device memory as dma-buf" +
                                 std::string(peermem ? "; nvidia-peermem is loaded too" : "")));
  else if (peermem)
    p->checks.push_back(make("GPU memory for the NIC (dma-buf)", Result::yes,
                             "no dma-buf export, but nvidia-peermem is loaded (registration through it)"));
  else
    p->checks.push_back(make("GPU memory for the NIC (dma-buf)", gpu_dma_buf == 0 ? Result::no : Result::unknown,
                             gpu_dma_buf == 0 ? "the CUDA driver does not export device memory as dma-buf, and "
                                                "nvidia-peermem is not loaded"
                                              : "no GPU or no CUDA driver here to ask",
                             "a driver with dma-buf support (open kernel modules, CUDA 11.7 or later, Linux 5.12 or "
                             "later), or load nvidia-peermem (modprobe nvidia-peermem)"));
  const int pmo = peer_mapping_override();
  p->checks.push_back(
      make("doorbell page mappable by the GPU", pmo == 1 ? Result::yes : Result::unknown,
           pmo == 1   ? "the NVIDIA driver has PeerMappingOverride=1"
           : pmo == 0 ? "the NVIDIA driver's registry has no PeerMappingOverride=1; mapping the NIC's doorbell page "
                        "into the GPU (cudaHostRegister with cudaHostRegisterIoMemory) fails on most systems without it"
                      : "no NVIDIA driver parameters here (/proc/driver/nvidia/params)",
           "set it and reload the driver: options nvidia NVreg_RegistryDwords=\"PeerMappingOverride=1;\" in "
           "/etc/modprobe.d/, then update the initramfs and reboot"));
}

}  // namespace

Probe probe(const std::string &hca, int gpu_dma_buf) {
  Probe p;
#ifndef GPUSHMEM_PROBE_HAVE_MLX5DV
  (void)hca;
  p.checks.push_back(make("rdma-core headers at build time", Result::no,
                          "gpushmem was built without <infiniband/mlx5dv.h>",
                          "install rdma-core's headers (Debian/Ubuntu: apt-get install libibverbs-dev) and rebuild"));
  add_gpu_checks(&p, gpu_dma_buf);
  p.verdict = "no IBGDA: built without rdma-core; device operations to other nodes go through the CPU proxy";
  return p;
#else
  p.checks.push_back(make("rdma-core headers at build time", Result::yes, "<infiniband/mlx5dv.h>"));
  void *verbs = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
  if (verbs == nullptr) {
    const char *e = dlerror();
    p.checks.push_back(make("libibverbs", Result::no, e != nullptr ? e : "libibverbs.so.1 not found",
                            "install rdma-core (Debian/Ubuntu: apt-get install libibverbs1 ibverbs-providers)"));
    add_gpu_checks(&p, gpu_dma_buf);
    p.verdict = "no IBGDA: rdma-core is not installed; device operations to other nodes go through the CPU proxy";
    return p;
  }
  p.checks.push_back(make("libibverbs", Result::yes, "libibverbs.so.1 loaded"));
  auto get_list = reinterpret_cast<decltype(&ibv_get_device_list)>(dlsym(verbs, "ibv_get_device_list"));
  auto free_list = reinterpret_cast<decltype(&ibv_free_device_list)>(dlsym(verbs, "ibv_free_device_list"));
  auto dev_name = reinterpret_cast<decltype(&ibv_get_device_name)>(dlsym(verbs, "ibv_get_device_name"));
  auto close_dev = reinterpret_cast<decltype(&ibv_close_device)>(dlsym(verbs, "ibv_close_device"));
  int n = 0;
  errno = 0;
  ibv_device **list = get_list != nullptr ? get_list(&n) : nullptr;
  const int list_errno = errno;
  std::string names, chosen_why;
  ibv_device *chosen = nullptr;
  for (int i = 0; list != nullptr && i < n; ++i) {
    const char *name = dev_name(list[i]);
    names += (names.empty() ? "" : ", ") + std::string(name);
    const bool wanted = hca.empty() ? std::strncmp(name, "mlx5_", 5) == 0 : hca == name;
    if (wanted && chosen == nullptr) chosen = list[i];
  }
  if (list == nullptr || n == 0) {
    p.checks.push_back(
        make("RDMA devices", Result::no,
             list == nullptr ? std::string("none: ibv_get_device_list failed: ") + std::strerror(list_errno)
                             : "none: the kernel exposes no RDMA device (/sys/class/infiniband is empty)",
             "an mlx5 NIC (ConnectX-5 or later, BlueField) with its drivers loaded (mlx5_core, mlx5_ib)"));
  } else {
    p.checks.push_back(make("RDMA devices", Result::yes, names));
  }
  if (list != nullptr && n > 0) {
    if (chosen == nullptr) {
      p.checks.push_back(
          make("mlx5 device", Result::no,
               hca.empty() ? "none of them is an mlx5 device" : "GPUSHMEM_HCA=" + hca + " is not among them",
               hca.empty() ? "IBGDA needs an mlx5 NIC (ConnectX-5 or later)" : "name one of the devices listed above"));
    } else {
      p.device = dev_name(chosen);
      p.checks.push_back(make(
          "mlx5 device", Result::yes,
          p.device + (hca.empty() ? " (the first mlx5 device; GPUSHMEM_HCA chooses another)" : " (GPUSHMEM_HCA)")));
      void *mlx5 = dlopen("libmlx5.so.1", RTLD_NOW | RTLD_LOCAL);
      auto supported = mlx5 != nullptr
                           ? reinterpret_cast<decltype(&mlx5dv_is_supported)>(dlsym(mlx5, "mlx5dv_is_supported"))
                           : nullptr;
      auto open_dv = mlx5 != nullptr
                         ? reinterpret_cast<decltype(&mlx5dv_open_device)>(dlsym(mlx5, "mlx5dv_open_device"))
                         : nullptr;
      if (supported == nullptr || open_dv == nullptr) {
        p.checks.push_back(make("mlx5 direct verbs (libmlx5)", Result::no,
                                mlx5 == nullptr ? "libmlx5.so.1 not found" : "libmlx5.so.1 lacks mlx5dv_open_device",
                                "install rdma-core's providers (Debian/Ubuntu: apt-get install ibverbs-providers)"));
      } else if (!supported(chosen)) {
        p.checks.push_back(make("mlx5 direct verbs (libmlx5)", Result::no, p.device + " does not support mlx5dv",
                                "use a ConnectX-5 or later"));
      } else {
        p.checks.push_back(make("mlx5 direct verbs (libmlx5)", Result::yes, "mlx5dv supports " + p.device));
        mlx5dv_context_attr attr{};
        attr.flags = MLX5DV_CONTEXT_FLAGS_DEVX;
        errno = 0;
        ibv_context *ctx = open_dv(chosen, &attr);
        if (ctx == nullptr) {
          p.checks.push_back(make("DevX", Result::no,
                                  std::string("mlx5dv_open_device(DEVX) failed: ") + std::strerror(errno),
                                  "DevX needs mlx5_ib with DevX support (Linux 5.1 or later, current firmware) and "
                                  "the permission to use it (root, or CAP_NET_RAW)"));
        } else {
          p.checks.push_back(make("DevX", Result::yes, "opened " + p.device + " with DevX"));
          if (close_dev != nullptr) close_dev(ctx);
        }
      }
    }
  }
  if (list != nullptr && free_list != nullptr) free_list(list);
  add_gpu_checks(&p, gpu_dma_buf);
  bool all = true;
  for (const Check &c : p.checks) all = all && c.result == Result::yes;
  p.requirements_met = all;
  if (all) {
    p.verdict = "the host meets IBGDA's requirements with " + p.device +
                ": with ibgda in GPUSHMEM_TRANSPORTS, shmem_init creates the queue pairs on it (where that fails, it "
                "says why and device operations to other nodes go through the CPU proxy)";
  } else {
    for (const Check &c : p.checks)
      if (c.result == Result::no) {
        p.verdict =
            "no IBGDA: " + c.name + ": " + c.detail + "; device operations to other nodes go through the CPU proxy";
        break;
      }
    if (p.verdict.empty())
      p.verdict =
          "IBGDA undecided here (some checks need a GPU or its driver); device operations to other nodes go "
          "through the CPU proxy";
  }
  return p;
#endif
}

}  // namespace gpushmem::ibgda::mlx5nic
