/*
 * An NVSHMEM-style CUDA program, written here from NVSHMEM's documented API and built unchanged against
 * gpushmem's compat headers: each PE picks its GPU from its rank on the node, a kernel puts the PE's number
 * to the next PE with nvshmem_int_p, a barrier on the stream orders it, and the host checks what arrived.
 */
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>

__global__ void ring(int *dest) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  nvshmem_int_p(dest, me, (me + 1) % n);
}

int main() {
  nvshmem_init();
  int devices = 0;
  cudaGetDeviceCount(&devices);
  cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE) % (devices > 0 ? devices : 1));
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  int *dest = static_cast<int *>(nvshmem_malloc(sizeof(int)));
  int got = -1;
  ring<<<1, 1, 0, stream>>>(dest);
  nvshmemx_barrier_all_on_stream(stream);
  cudaMemcpyAsync(&got, dest, sizeof(int), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  const int want = (me + n - 1) % n;
  std::printf("nvshmem_ring: PE %d of %d received %d (want %d): %s\n", me, n, got, want, got == want ? "PASS" : "FAIL");
  nvshmem_free(dest);
  cudaStreamDestroy(stream);
  nvshmem_finalize();
  return got == want ? 0 : 1;
}
