// <gpushmem/mlx5_wqe.hpp> alone, compiled by nvcc for the device: the encoder the IBGDA producer will use,
// built into registers and stored one 16-byte unit at a time into a send queue.
#include <gpushmem/mlx5_wqe.hpp>

__global__ void header_alone_mlx5_wqe_kernel(uint8_t *sq, uint32_t wqebbs, uint32_t index, uint64_t raddr,
                                             uint32_t rkey, int value) {
  gpushmem::mlx5::Wqe w;
  gpushmem::mlx5::build_write_inline(&w, {index, 7, GPUSHMEM_MLX5_CTRL_CQ_UPDATE}, {raddr, rkey}, &value, sizeof value);
  for (uint32_t k = 0; k < w.ds; ++k)
    *reinterpret_cast<uint4 *>(sq + gpushmem_mlx5_unit_offset(wqebbs, index, k)) =
        *reinterpret_cast<const uint4 *>(&w.unit[k]);
  gpushmem::mlx5::Decoded d;
  if (gpushmem::mlx5::decode(gpushmem::mlx5::WqeReader{&w}, &d) != GPUSHMEM_MLX5_SYND_OK) __trap();
}
