// <gpushmem/mlx5_format.h> alone, as C++ (its layout assertions and constexpr builders).
#include <gpushmem/mlx5_format.h>

static_assert(gpushmem_mlx5_bswap32(gpushmem_mlx5_ctrl(8, 0, 1, 2, 3, 0, 0).qpn_ds_be) == ((2u << 8) | 3u),
              "ctrl builder is constexpr");

uint32_t header_alone_mlx5_format_h_cpp(const gpushmem_mlx5_cqe64_t *c) {
  return gpushmem_mlx5_cqe_opcode(c->op_own);
}
