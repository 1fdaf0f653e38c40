// The rdma-core functions the real-NIC provisioner calls, loaded at run time (dlopen of libibverbs.so.1 and
// libmlx5.so.1, dlsym of each function), never linked: libgpushmem builds, loads and runs where rdma-core is not
// installed, and says so only when IBGDA is asked for. Types come from rdma-core's headers when they were there at
// build time (GPUSHMEM_MLX5_HAVE_RDMA_CORE); without them this file declares nothing but the guard, and the
// provisioner refuses with "built without rdma-core headers".
//
// Some verbs are static inline wrappers in <infiniband/verbs.h> around an exported function of another
// signature, or expand to one through a macro: ibv_query_port (the exported symbol fills the older, shorter
// struct _compat_ibv_port_attr, the prefix of struct ibv_port_attr), ibv_reg_mr (a macro over the exported
// ibv_reg_mr or ibv_reg_mr_iova2), ibv_get_device_list (a macro adding static providers). The table holds the
// exported symbols, with their own signatures.
#pragma once

// GPUSHMEM_MLX5_WITHOUT_RDMA_CORE builds as if the headers were absent (unit.mlx5_without_rdma_core checks that this
// configuration compiles on machines that have them).
#if !defined(GPUSHMEM_MLX5_WITHOUT_RDMA_CORE) && __has_include(<infiniband/verbs.h>) && \
    __has_include(<infiniband/mlx5dv.h>)
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#define GPUSHMEM_MLX5_HAVE_RDMA_CORE 1
#endif

#include <cstddef>
#include <cstdint>
#include <string>

namespace gpushmem::ibgda::mlx5nic {

#ifdef GPUSHMEM_MLX5_HAVE_RDMA_CORE

struct VerbsApi {
  // libibverbs.so.1
  ibv_device **(*get_device_list)(int *num) = nullptr;
  void (*free_device_list)(ibv_device **list) = nullptr;
  const char *(*get_device_name)(ibv_device *dev) = nullptr;
  int (*close_device)(ibv_context *ctx) = nullptr;
  int (*query_device)(ibv_context *ctx, ibv_device_attr *attr) = nullptr;
  // The exported ibv_query_port: fills the compat prefix of struct ibv_port_attr (state .. link_layer).
  int (*query_port_compat)(ibv_context *ctx, uint8_t port, void *compat_attr) = nullptr;
  int (*query_gid)(ibv_context *ctx, uint8_t port, int index, ibv_gid *gid) = nullptr;
  ibv_pd *(*alloc_pd)(ibv_context *ctx) = nullptr;
  int (*dealloc_pd)(ibv_pd *pd) = nullptr;
  ibv_mr *(*reg_mr)(ibv_pd *pd, void *addr, size_t length, int access) = nullptr;  // the exported, plain one
  // rdma-core 34 and later; nullptr before.
  ibv_mr *(*reg_dmabuf_mr)(ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd, int access) = nullptr;
  int (*dereg_mr)(ibv_mr *mr) = nullptr;
  ibv_ah *(*create_ah)(ibv_pd *pd, ibv_ah_attr *attr) = nullptr;
  int (*destroy_ah)(ibv_ah *ah) = nullptr;
  // libmlx5.so.1
  bool (*is_supported)(ibv_device *dev) = nullptr;
  ibv_context *(*open_device)(ibv_device *dev, mlx5dv_context_attr *attr) = nullptr;
  int (*init_obj)(mlx5dv_obj *obj, uint64_t obj_type) = nullptr;
  int (*devx_general_cmd)(ibv_context *ctx, const void *in, size_t inlen, void *out, size_t outlen) = nullptr;
  mlx5dv_devx_obj *(*devx_obj_create)(ibv_context *ctx, const void *in, size_t inlen, void *out,
                                      size_t outlen) = nullptr;
  int (*devx_obj_modify)(mlx5dv_devx_obj *obj, const void *in, size_t inlen, void *out, size_t outlen) = nullptr;
  int (*devx_obj_destroy)(mlx5dv_devx_obj *obj) = nullptr;
  mlx5dv_devx_umem *(*devx_umem_reg)(ibv_context *ctx, void *addr, size_t size, uint32_t access) = nullptr;
  // rdma-core 35 and later (dma-buf umems: 43), nullptr before; takes a UmemIn (below).
  mlx5dv_devx_umem *(*devx_umem_reg_ex)(ibv_context *ctx, void *in) = nullptr;
  int (*devx_umem_dereg)(mlx5dv_devx_umem *umem) = nullptr;
  mlx5dv_devx_uar *(*devx_alloc_uar)(ibv_context *ctx, uint32_t flags) = nullptr;
  void (*devx_free_uar)(mlx5dv_devx_uar *uar) = nullptr;
  int (*devx_query_eqn)(ibv_context *ctx, uint32_t vector, uint32_t *eqn) = nullptr;
};

// struct mlx5dv_devx_umem_in as rdma-core 43 and later declare it in mlx5dv.h, spelled here so that older headers
// (without dmabuf_fd, or without the struct: before 35) still compile; an older libmlx5 refuses the dma-buf bit of
// comp_mask, and the caller registers by address instead.
struct UmemIn {
  void *addr;  // with a dma-buf: the offset into it
  size_t size;
  uint32_t access;
  uint64_t pgsz_bitmap;
  uint64_t comp_mask;
  int dmabuf_fd;
};
constexpr uint64_t kUmemMaskDmabuf = 1u << 0;  // MLX5DV_UMEM_MASK_DMABUF (enum mlx5dv_devx_umem_in_mask)

// Loads both libraries and every function once (thread safe); later calls return the same answer. nullptr with
// *why naming the library or the function that is missing and what to install.
const VerbsApi *verbs_api(std::string *why);
// What verbs_api does once, for libraries of these names, uncached: false with *why and *api cleared when one is
// missing or lacks a function, and then neither library stays loaded (its handles are closed); true keeps both
// loaded for good. Tests name a missing library to reach the refusals.
bool load_verbs_api(const char *verbs_lib, const char *mlx5_lib, VerbsApi *api, std::string *why);

#endif  // GPUSHMEM_MLX5_HAVE_RDMA_CORE

}  // namespace gpushmem::ibgda::mlx5nic
