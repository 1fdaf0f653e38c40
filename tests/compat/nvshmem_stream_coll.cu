/*
 * NVSHMEM-style stream and collective-launch use, written here from NVSHMEM's documented API and built
 * unchanged against gpushmem's compat headers: a kernel started with nvshmemx_collective_launch (its grid
 * size from nvshmemx_collective_launch_query_gridsize) reduces over NVSHMEM_TEAM_WORLD and synchronises on
 * the device; then stream-ordered puts, a quiet and a barrier on the stream move the result around a ring; then
 * the stream-ordered reduction (nvshmemx_int_sum_reduce_on_stream) sums the ring's values again.
 */
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>

__global__ void reduce_then_sync(int *dst, const int *src) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, dst, src, 1);
    nvshmem_barrier_all();
  }
}

int main() {
  nvshmem_init();
  int devices = 0;
  cudaGetDeviceCount(&devices);
  cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE) % (devices > 0 ? devices : 1));
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  int *src = static_cast<int *>(nvshmem_malloc(sizeof(int)));
  int *dst = static_cast<int *>(nvshmem_malloc(sizeof(int)));
  int *ring = static_cast<int *>(nvshmem_malloc(sizeof(int)));
  const int mine = me + 1;
  cudaMemcpy(src, &mine, sizeof(int), cudaMemcpyHostToDevice);
  nvshmemx_barrier_all_on_stream(stream);
  cudaStreamSynchronize(stream);

  int grid = 0;
  const int q = nvshmemx_collective_launch_query_gridsize((const void *)reduce_then_sync, dim3(32), nullptr, 0, &grid);
  void *args[] = {&dst, &src};
  const int rc = nvshmemx_collective_launch((const void *)reduce_then_sync, dim3(1), dim3(32), args, 0, stream);
  nvshmemx_putmem_on_stream(ring, dst, sizeof(int), (me + 1) % n, stream);
  nvshmemx_quiet_on_stream(stream);
  nvshmemx_barrier_all_on_stream(stream);
  int sum = -1, got = -1, again = -1;
  cudaMemcpyAsync(&sum, dst, sizeof(int), cudaMemcpyDeviceToHost, stream);
  cudaMemcpyAsync(&got, ring, sizeof(int), cudaMemcpyDeviceToHost, stream);
  const int rc2 = nvshmemx_int_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, src, ring, 1, stream);
  cudaMemcpyAsync(&again, src, sizeof(int), cudaMemcpyDeviceToHost, stream);
  const cudaError_t err = cudaStreamSynchronize(stream);
  const int want = n * (n + 1) / 2;
  const bool ok = q == 0 && grid >= 1 && rc == 0 && rc2 == 0 && err == cudaSuccess && sum == want && got == want &&
                  again == n * want;
  std::printf(
      "nvshmem_stream_coll: PE %d of %d: co-resident grid %d, sum %d, ring %d (want %d), on-stream sum %d "
      "(want %d): %s\n",
      me, n, grid, sum, got, want, again, n * want, ok ? "PASS" : "FAIL");
  nvshmem_free(src);
  nvshmem_free(dst);
  nvshmem_free(ring);
  cudaStreamDestroy(stream);
  nvshmem_finalize();
  return ok ? 0 : 1;
}
