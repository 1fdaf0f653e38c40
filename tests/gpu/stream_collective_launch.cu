// shmemx_collective_launch (include/gpushmem/device/collective_launch.cuh):
//   - a grid that fits (one block per SM) runs a kernel that needs co-residency: every block puts a value
//     into the next PE, the grid syncs, one thread runs the device shmem_barrier_all, the grid syncs again,
//     and every block reads what the previous PE put. Launched three times, with barrier_all_on_stream in
//     between, so the device barrier and the stream barrier share one sequence correctly;
//   - a grid one block larger than what can be co-resident is refused with cudaErrorCooperativeLaunchTooLarge
//     and the message on stderr (ctest checks the text), and nothing runs: no hang;
//   - a block larger than the GPU allows is refused with an error, not launched.
#include <cooperative_groups.h>

#include "stream_util.cuh"

namespace cg = cooperative_groups;

namespace {

constexpr unsigned int kThreads = 128;

__global__ void ring_kernel(int *dst, int *out, int round) {
  cg::grid_group grid = cg::this_grid();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const unsigned int b = blockIdx.x;
  if (threadIdx.x == 0) shmem_int_p(&dst[b], me * 100000 + round * 1000 + static_cast<int>(b), (me + 1) % npes);
  grid.sync();  // every block has put (the device barrier below completes the puts of the whole PE)
  if (b == 0 && threadIdx.x == 0) shmem_barrier_all();
  grid.sync();
  if (threadIdx.x == 0) out[b] = dst[b];
}

int launch_ring(unsigned int blocks, unsigned int threads, int *dst, int *out, int round, cudaStream_t stream) {
  void *args[] = {&dst, &out, &round};
  return shmemx_collective_launch(reinterpret_cast<const void *>(&ring_kernel), dim3(blocks), dim3(threads), args, 0,
                                  stream);
}

}  // namespace

int main() {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int prev = (me + npes - 1) % npes;
  int device = 0, sms = 0, per_sm = 0;
  STREAM_CUDA_OK(cudaGetDevice(&device));
  STREAM_CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  STREAM_CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ring_kernel, kThreads, 0));
  const unsigned int fit = static_cast<unsigned int>(per_sm * sms);
  const unsigned int blocks = static_cast<unsigned int>(sms);  // fits whenever one block per SM does

  int *dst = static_cast<int *>(shmem_calloc(fit + 1, sizeof(int)));
  PE_CHECK(dst != nullptr, "shmem_calloc(%u ints) failed", fit + 1);
  if (dst == nullptr || !stream_gpu_mode(dst, (me + 1) % npes)) return pe_finish("stream_collective_launch");
  int *out = nullptr;
  STREAM_CUDA_OK(cudaMalloc(&out, (fit + 1) * sizeof(int)));
  cudaStream_t stream;
  STREAM_CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // The grid that fits, three rounds. Between rounds the stream's barrier (same sequence as the device's)
  // keeps a fast PE from overwriting dst before the others have read it.
  std::vector<int> got(blocks);
  for (int round = 0; round < 3; ++round) {
    const int rc = launch_ring(blocks, kThreads, dst, out, round, stream);
    PE_CHECK(rc == 0, "round %d: shmemx_collective_launch(%u blocks of %u threads) returned %d (%s)", round, blocks,
             kThreads, rc, cudaGetErrorName(static_cast<cudaError_t>(rc)));
    if (rc != 0) break;
    shmemx_barrier_all_on_stream(stream);
    STREAM_CUDA_OK(cudaMemcpyAsync(got.data(), out, blocks * sizeof(int), cudaMemcpyDeviceToHost, stream));
    STREAM_CUDA_OK(cudaStreamSynchronize(stream));
    for (unsigned int b = 0; b < blocks; ++b) {
      const int want = prev * 100000 + round * 1000 + static_cast<int>(b);
      PE_CHECK(got[b] == want, "round %d block %u: read %d after the device barrier, expected %d (from PE %d)", round,
               b, got[b], want, prev);
    }
  }

  // One block too many: refused before launching, with the message, and nothing runs.
  STREAM_CUDA_OK(cudaMemset(out, 0xff, (fit + 1) * sizeof(int)));
  int rc = launch_ring(fit + 1, kThreads, dst, out, 9, stream);
  PE_CHECK(rc == cudaErrorCooperativeLaunchTooLarge,
           "shmemx_collective_launch(%u blocks, at most %u co-resident) returned %d (%s), expected "
           "cudaErrorCooperativeLaunchTooLarge",
           fit + 1, fit, rc, cudaGetErrorName(static_cast<cudaError_t>(rc)));
  // A block the GPU cannot have.
  rc = launch_ring(1, 4096, dst, out, 9, stream);
  PE_CHECK(rc != 0, "shmemx_collective_launch with a block of 4096 threads returned 0");
  STREAM_CUDA_OK(cudaStreamSynchronize(stream));
  STREAM_CUDA_OK(cudaGetLastError());  // the refusals left no error behind for the application
  int untouched = 0;
  STREAM_CUDA_OK(cudaMemcpy(&untouched, out, sizeof untouched, cudaMemcpyDeviceToHost));
  PE_CHECK(untouched == -1, "a refused launch ran: out[0] is %d", untouched);

  STREAM_CUDA_OK(cudaStreamDestroy(stream));
  STREAM_CUDA_OK(cudaFree(out));
  shmem_barrier_all();
  shmem_free(dst);
  return pe_finish("stream_collective_launch");
}
