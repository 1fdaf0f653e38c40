/*
 * An NVSHMEM-style halo exchange, written here from NVSHMEM's documented API and built unchanged against
 * gpushmem's compat headers: for 20 iterations every PE's block of threads sends its boundary to both
 * neighbours with nvshmemx_int_put_signal_nbi_block (the signal counts iterations), waits for both
 * neighbours' data with nvshmem_signal_wait_until, and checks every element on the GPU.
 */
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>

constexpr int kHalo = 1024, kIters = 20;

__global__ void exchange(int *from_left, int *from_right, int *send, uint64_t *sig_left, uint64_t *sig_right,
                         int *errors) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int left = (me + n - 1) % n, right = (me + 1) % n;
  for (int it = 1; it <= kIters; ++it) {
    for (int i = threadIdx.x; i < kHalo; i += blockDim.x) send[i] = me * 1000000 + it * 1000 + i % 1000;
    __syncthreads();
    /* my data lands in the right neighbour's from_left and the left neighbour's from_right */
    nvshmemx_int_put_signal_nbi_block(from_left, send, kHalo, sig_left, 1, NVSHMEM_SIGNAL_ADD, right);
    nvshmemx_int_put_signal_nbi_block(from_right, send, kHalo, sig_right, 1, NVSHMEM_SIGNAL_ADD, left);
    if (threadIdx.x == 0) {
      nvshmem_signal_wait_until(sig_left, NVSHMEM_CMP_GE, (uint64_t)it);
      nvshmem_signal_wait_until(sig_right, NVSHMEM_CMP_GE, (uint64_t)it);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < kHalo; i += blockDim.x) {
      if (from_left[i] != left * 1000000 + it * 1000 + i % 1000) atomicAdd(errors, 1);
      if (from_right[i] != right * 1000000 + it * 1000 + i % 1000) atomicAdd(errors, 1);
    }
    /* nobody overwrites a halo before its owner has checked it, nor reuses `send` early */
    __syncthreads();
    if (threadIdx.x == 0) {
      nvshmem_quiet();
      nvshmem_barrier_all();
    }
    __syncthreads();
  }
}

int main() {
  nvshmem_init();
  int devices = 0;
  cudaGetDeviceCount(&devices);
  cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE) % (devices > 0 ? devices : 1));
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  int *from_left = static_cast<int *>(nvshmem_malloc(kHalo * sizeof(int)));
  int *from_right = static_cast<int *>(nvshmem_malloc(kHalo * sizeof(int)));
  int *send = static_cast<int *>(nvshmem_malloc(kHalo * sizeof(int)));
  uint64_t *sigs = static_cast<uint64_t *>(nvshmem_calloc(2, sizeof(uint64_t)));
  int *errors = nullptr;
  cudaMalloc(&errors, sizeof(int));
  cudaMemset(errors, 0, sizeof(int));
  nvshmem_barrier_all();
  void *args[] = {&from_left, &from_right, &send, &sigs, nullptr, &errors};
  uint64_t *sig_right = sigs + 1;
  args[4] = &sig_right;
  const int rc = nvshmemx_collective_launch((const void *)exchange, dim3(1), dim3(256), args, 0, 0);
  const cudaError_t err = cudaDeviceSynchronize();
  int bad = -1;
  cudaMemcpy(&bad, errors, sizeof(int), cudaMemcpyDeviceToHost);
  const bool ok = rc == 0 && err == cudaSuccess && bad == 0;
  std::printf("nvshmem_halo: PE %d of %d: %d iterations of %d ints each way, %d wrong (%s): %s\n", me, n, kIters, kHalo,
              bad, cudaGetErrorString(err), ok ? "PASS" : "FAIL");
  nvshmem_barrier_all();
  nvshmem_free(from_left);
  nvshmem_free(from_right);
  nvshmem_free(send);
  nvshmem_free(sigs);
  cudaFree(errors);
  nvshmem_finalize();
  return ok ? 0 : 1;
}
