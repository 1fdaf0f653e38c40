/*
 * Ring exchange inside one CUDA kernel: the GPU version of ../ring.c, with every communication call made
 * by GPU threads.
 *
 * One CTA per PE. Thread 0 puts the PE's number to its right-hand neighbour (shmem_int_p) while the whole
 * CTA puts a block of 1024 longs there (shmemx_putmem_block); after a device barrier over all PEs
 * (shmemx_barrier_all_block) every PE checks what arrived from its left-hand neighbour. Then a token goes
 * once around the ring: at step s, PE s reads the token (shmem_long_g), adds its number, passes it right
 * (shmem_long_p + shmem_quiet), and everyone meets at a barrier; PE 0 ends with 0 + 1 + ... + (n-1).
 *
 * Launched on every PE with shmemx_collective_launch, as kernels that synchronise on the device must be.
 *
 *   mpirun -np 4 build/bin/ring_kernel      (any number of PEs; several may share one GPU)
 */
#include <shmem.h>
#include <shmemx.h>

#include <cstdio>

#include "gpu_example.cuh"

namespace {

constexpr int kBlock = 1024; /* longs in the neighbour block */
constexpr int kThreads = 128;

struct RingResult {
  int from_left;
  int block_errors;
  long token;
};

__global__ void ring_kernel(int *from_left, long *block, long *token, long *local, RingResult *out) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;

  /* 1. neighbour exchange */
  for (int i = threadIdx.x; i < kBlock; i += blockDim.x) local[i] = static_cast<long>(me) * 1000000 + i;
  if (threadIdx.x == 0) shmem_int_p(from_left, me, right);
  shmemx_putmem_block(block, local, kBlock * sizeof(long), right); /* syncs the CTA first: local is written */
  shmemx_barrier_all_block(); /* completes every PE's puts: our block and number have arrived */
  __shared__ int errors;
  if (threadIdx.x == 0) errors = 0;
  __syncthreads();
  for (int i = threadIdx.x; i < kBlock; i += blockDim.x)
    if (block[i] != static_cast<long>(left) * 1000000 + i) atomicAdd(&errors, 1);

  /* 2. a token around the ring */
  for (int step = 0; step < npes; ++step) {
    if (me == step && threadIdx.x == 0) {
      const long value = shmem_long_g(token, me) + me;
      shmem_long_p(token, value, right);
      shmem_quiet();
    }
    shmemx_barrier_all_block();
  }
  __syncthreads();
  if (threadIdx.x == 0) { /* volatile: these words were written by other PEs after we may have read them */
    out->from_left = *static_cast<volatile int *>(from_left);
    out->block_errors = errors;
    out->token = *static_cast<volatile long *>(token);
  }
}

}  // namespace

int main() {
  example_require_gpu("ring_kernel");
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int left = (me + npes - 1) % npes;

  int *from_left = static_cast<int *>(shmem_malloc(sizeof(int)));
  example_require_gpu_heap("ring_kernel", from_left);
  long *block = static_cast<long *>(shmem_malloc(kBlock * sizeof(long)));
  long *token = static_cast<long *>(shmem_calloc(1, sizeof(long)));
  long *local = nullptr;
  RingResult *result = nullptr;
  EXAMPLE_CUDA_CHECK(cudaMalloc(&local, kBlock * sizeof(long)));
  EXAMPLE_CUDA_CHECK(cudaMallocManaged(&result, sizeof *result));
  EXAMPLE_CUDA_CHECK(cudaMemset(from_left, 0xff, sizeof(int))); /* -1: nothing arrived */
  EXAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
  shmem_barrier_all(); /* nobody's put may land before its target has cleared from_left */

  /* The kernel waits on the other PEs inside device barriers: the collective launch is the one for that
     (it refuses a grid that could not be resident at once instead of letting it hang). */
  void *args[] = {&from_left, &block, &token, &local, &result};
  if (shmemx_collective_launch(reinterpret_cast<const void *>(ring_kernel), dim3(1), dim3(kThreads), args, 0,
                               nullptr) != 0)
    shmem_global_exit(1); /* it printed why */
  EXAMPLE_CUDA_CHECK(cudaDeviceSynchronize());

  int errors = (result->from_left != left) + (result->block_errors != 0);
  int device = -1;
  EXAMPLE_CUDA_CHECK(cudaGetDevice(&device));
  for (int pe = 0; pe < npes; ++pe) { /* one line per PE, in order */
    if (pe == me) {
      std::printf("PE %d of %d (GPU %d): got %d from PE %d, block %s\n", me, npes, device, result->from_left, left,
                  result->block_errors == 0 ? "OK" : "CORRUPT");
      std::fflush(stdout);
    }
    shmem_barrier_all();
  }
  const long expected_sum = static_cast<long>(npes) * (npes - 1) / 2;
  if (me == 0 && result->token != expected_sum) ++errors;
  const int job_errors = example_job_errors(errors);
  if (me == 0)
    std::printf("ring token after one lap: %ld (expected %ld) -> %s\n", result->token, expected_sum,
                job_errors == 0 ? "PASS" : "FAIL");

  EXAMPLE_CUDA_CHECK(cudaFree(local));
  EXAMPLE_CUDA_CHECK(cudaFree(result));
  shmem_free(token);
  shmem_free(block);
  shmem_free(from_left);
  shmem_finalize();
  return job_errors == 0 ? 0 : 1;
}
