/* <gpushmem/mlx5_format.h> alone, as strict C11. */
#include <gpushmem/mlx5_format.h>

uint32_t header_alone_mlx5_format_h_c(const gpushmem_mlx5_ctrl_seg_t *c) {
  const gpushmem_mlx5_data_seg_t d = gpushmem_mlx5_data(8, 1, 2);
  return gpushmem_mlx5_ctrl_ds(c) + gpushmem_mlx5_bswap32(d.byte_count_be);
}
