#include "ibgda/mlx5/mlx5_verbs_api.hpp"

#ifdef GPUSHMEM_MLX5_HAVE_RDMA_CORE

#include <dlfcn.h>

#include <mutex>

namespace gpushmem::ibgda::mlx5nic {
namespace {

struct Loaded {
  VerbsApi api;
  bool ok = false;
  std::string why;
};

template <class F>
bool find(void *lib, const char *lib_name, const char *symbol, F *out, std::string *why) {
  *out = reinterpret_cast<F>(dlsym(lib, symbol));
  if (*out != nullptr) return true;
  *why = std::string(lib_name) + " has no " + symbol +
         ": rdma-core is too old for IBGDA (DevX needs rdma-core 21 or later; Debian/Ubuntu: apt-get install "
         "libibverbs1 ibverbs-providers from a current release)";
  return false;
}

template <class F>
void find_optional(void *lib, const char *symbol, F *out) {
  *out = reinterpret_cast<F>(dlsym(lib, symbol));
}

}  // namespace

bool load_verbs_api(const char *verbs_lib, const char *mlx5_lib, VerbsApi *out, std::string *why) {
  *out = VerbsApi{};
  void *verbs = dlopen(verbs_lib, RTLD_NOW | RTLD_LOCAL);
  if (verbs == nullptr) {
    const char *e = dlerror();
    *why = std::string("dlopen(") + verbs_lib + ") failed: " + (e != nullptr ? e : "not found") +
           "; install rdma-core (Debian/Ubuntu: apt-get install libibverbs1 ibverbs-providers)";
    return false;
  }
  void *mlx5 = dlopen(mlx5_lib, RTLD_NOW | RTLD_LOCAL);
  if (mlx5 == nullptr) {
    const char *e = dlerror();
    *why = std::string("dlopen(") + mlx5_lib + ") failed: " + (e != nullptr ? e : "not found") +
           "; install rdma-core's providers (Debian/Ubuntu: apt-get install ibverbs-providers)";
    (void)dlclose(verbs);  // nothing of it is kept: a refusal leaves no library loaded
    return false;
  }
  VerbsApi a;
  const char *v = verbs_lib;
  const char *m = mlx5_lib;
  const bool all =
      find(verbs, v, "ibv_get_device_list", &a.get_device_list, why) &&
      find(verbs, v, "ibv_free_device_list", &a.free_device_list, why) &&
      find(verbs, v, "ibv_get_device_name", &a.get_device_name, why) &&
      find(verbs, v, "ibv_close_device", &a.close_device, why) &&
      find(verbs, v, "ibv_query_device", &a.query_device, why) &&
      find(verbs, v, "ibv_query_port", &a.query_port_compat, why) &&
      find(verbs, v, "ibv_query_gid", &a.query_gid, why) && find(verbs, v, "ibv_alloc_pd", &a.alloc_pd, why) &&
      find(verbs, v, "ibv_dealloc_pd", &a.dealloc_pd, why) && find(verbs, v, "ibv_reg_mr", &a.reg_mr, why) &&
      find(verbs, v, "ibv_dereg_mr", &a.dereg_mr, why) && find(verbs, v, "ibv_create_ah", &a.create_ah, why) &&
      find(verbs, v, "ibv_destroy_ah", &a.destroy_ah, why) &&
      find(mlx5, m, "mlx5dv_is_supported", &a.is_supported, why) &&
      find(mlx5, m, "mlx5dv_open_device", &a.open_device, why) && find(mlx5, m, "mlx5dv_init_obj", &a.init_obj, why) &&
      find(mlx5, m, "mlx5dv_devx_general_cmd", &a.devx_general_cmd, why) &&
      find(mlx5, m, "mlx5dv_devx_obj_create", &a.devx_obj_create, why) &&
      find(mlx5, m, "mlx5dv_devx_obj_modify", &a.devx_obj_modify, why) &&
      find(mlx5, m, "mlx5dv_devx_obj_destroy", &a.devx_obj_destroy, why) &&
      find(mlx5, m, "mlx5dv_devx_umem_reg", &a.devx_umem_reg, why) &&
      find(mlx5, m, "mlx5dv_devx_umem_dereg", &a.devx_umem_dereg, why) &&
      find(mlx5, m, "mlx5dv_devx_alloc_uar", &a.devx_alloc_uar, why) &&
      find(mlx5, m, "mlx5dv_devx_free_uar", &a.devx_free_uar, why) &&
      find(mlx5, m, "mlx5dv_devx_query_eqn", &a.devx_query_eqn, why);
  if (!all) {
    // No function of either library is handed out, so neither stays loaded (before, both handles leaked).
    (void)dlclose(mlx5);
    (void)dlclose(verbs);
    return false;
  }
  find_optional(verbs, "ibv_reg_dmabuf_mr", &a.reg_dmabuf_mr);
  find_optional(mlx5, "mlx5dv_devx_umem_reg_ex", &a.devx_umem_reg_ex);
  // On success both libraries stay loaded for the life of the process: contexts opened through them may outlive
  // any one user.
  *out = a;
  return true;
}

namespace {

Loaded load() {
  Loaded l;
  l.ok = load_verbs_api("libibverbs.so.1", "libmlx5.so.1", &l.api, &l.why);
  return l;
}

}  // namespace

const VerbsApi *verbs_api(std::string *why) {
  static std::once_flag once;
  static Loaded loaded;
  std::call_once(once, [] { loaded = load(); });
  if (!loaded.ok) {
    *why = loaded.why;
    return nullptr;
  }
  return &loaded.api;
}

}  // namespace gpushmem::ibgda::mlx5nic

#endif  // GPUSHMEM_MLX5_HAVE_RDMA_CORE
