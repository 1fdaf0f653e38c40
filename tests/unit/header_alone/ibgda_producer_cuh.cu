// The IBGDA producer protocol (gpushmem/ibgda_producer.hpp) instantiated for the device with its PTX memory
// operations (gpushmem/device/transport/ibgda_mem.cuh): compiled with nvcc here; run on a GPU once the device
// producer lands (issue 14).
#include <gpushmem/device/transport/ibgda_mem.cuh>

__global__ void header_alone_ibgda_producer_kernel(gpushmem_ibgda_qp_t qp, uint64_t raddr, uint32_t rkey,
                                                   uint64_t laddr, uint32_t lkey, int *outcome) {
  using Mem = gpushmem::device::IbgdaMem;
  namespace ibgda = gpushmem::ibgda;
  namespace mlx5 = gpushmem::mlx5;
  const int value = static_cast<int>(threadIdx.x);
  ibgda::Outcome o = ibgda::post<Mem>(
      qp, 1,
      [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
        mlx5::build_write_inline(w, p, {raddr + threadIdx.x * 4u, rkey}, &value, sizeof value);
      },
      (threadIdx.x & 1u) != 0, 1000000000ull);
  if (o == ibgda::Outcome::ok)
    o = ibgda::post<Mem>(
        qp, 1,
        [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
          mlx5::build_fetch_add(w, p, {raddr, rkey}, {laddr + threadIdx.x * 8u, lkey}, 1);
        },
        false, 1000000000ull);
  if (o == ibgda::Outcome::ok) o = ibgda::quiet<Mem>(qp, 1000000000ull);
  outcome[threadIdx.x] = static_cast<int>(o);
}
