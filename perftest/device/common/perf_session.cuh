/*
 * Start and end of every device benchmark: shmem_init, the PE/GPU map, the check that shmem_malloc really
 * returns GPU memory, a stream with two events for timing, and the job-wide error count that decides
 * each table row's check column and the exit status.
 */
#ifndef GPUSHMEM_PERF_SESSION_CUH
#define GPUSHMEM_PERF_SESSION_CUH

#include <cuda_runtime.h>
#include "perf_shmem.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "perf_cuda.cuh"

struct perf_session {
  const char *prog = "";
  int me = -1;
  int npes = 0;
  int device = -1;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  int *errors = nullptr; /* symmetric, npes ints: slot s holds PE s's error count of the latest check */
  long long total_errors = 0;
};

#ifdef PERF_USE_NVSHMEM
/* NVSHMEM uses the GPU current at nvshmem_init: give each PE of a node its own (its local rank, from the
   launcher's environment, modulo the visible GPUs), as gpushmem's shmem_init does by itself. */
inline void perf_select_local_gpu(const char *prog) {
  const char *names[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "PMIX_LOCAL_RANK"};
  for (const char *name : names) {
    const char *v = std::getenv(name);
    if (v == nullptr || *v == '\0') continue;
    int count = 0;
    PERF_CUDA_CHECK(cudaGetDeviceCount(&count));
    const int local = std::atoi(v);
    if (count > 0 && local >= 0) PERF_CUDA_CHECK(cudaSetDevice(local % count));
    return;
  }
  std::fprintf(stderr, "# %s: no local rank in the environment (%s, ...): every PE uses GPU 0\n", prog, names[0]);
}
#endif

/* Skips without a GPU (status 77), starts the library, requires at least `min_pes` PEs and a GPU heap,
   and prints which GPU each PE uses (lines starting with '#'). */
inline perf_session perf_start(const char *prog, int min_pes) {
  perf_require_gpu(prog);
#ifdef PERF_USE_NVSHMEM
  perf_select_local_gpu(prog);
#endif
  nvshmem_init();
  perf_shmem_active() = true;
  perf_session s;
  s.prog = prog;
  s.me = nvshmem_my_pe();
  s.npes = nvshmem_n_pes();
  if (s.npes < min_pes) {
    if (s.me == 0) std::fprintf(stderr, "%s: needs at least %d PEs (started with %d)\n", prog, min_pes, s.npes);
    perf_shmem_active() = false;
    nvshmem_finalize();
    std::exit(2);
  }
  s.errors = static_cast<int *>(nvshmem_malloc(static_cast<size_t>(s.npes) * sizeof(int)));
  cudaPointerAttributes attr{};
  if (s.errors == nullptr || cudaPointerGetAttributes(&attr, s.errors) != cudaSuccess ||
      attr.type != cudaMemoryTypeDevice) {
    (void)cudaGetLastError(); /* clear a failed attribute query: the message below says what it means */
    std::fprintf(stderr,
                 "%s: PE %d: shmem_malloc returned %p, which is not GPU memory: the GPU symmetric heap is not "
                 "active (is GPUSHMEM_DISABLE_CUDA set, or did shmem_init find no usable GPU?). Device "
                 "benchmarks need it.\n",
                 prog, s.me, static_cast<void *>(s.errors));
    perf_die(1);
  }
  PERF_CUDA_CHECK(cudaMemset(s.errors, 0, static_cast<size_t>(s.npes) * sizeof(int)));
  PERF_CUDA_CHECK(cudaDeviceSynchronize()); /* cudaMemset may return before it is done */
  PERF_CUDA_CHECK(cudaGetDevice(&s.device));
  PERF_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
  PERF_CUDA_CHECK(cudaEventCreate(&s.start));
  PERF_CUDA_CHECK(cudaEventCreate(&s.stop));
  cudaDeviceProp prop{};
  PERF_CUDA_CHECK(cudaGetDeviceProperties(&prop, s.device));
  for (int pe = 0; pe < s.npes; ++pe) { /* one line per PE, in PE order */
    if (pe == s.me) {
      std::printf("# %s: PE %d of %d on GPU %d (%s, PCI %04x:%02x:%02x)\n", prog, s.me, s.npes, s.device, prop.name,
                  prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
      std::fflush(stdout);
    }
    nvshmem_barrier_all();
  }
  return s;
}

/* Milliseconds that the work `launch` enqueues on s.stream takes, measured with CUDA events. */
template <class Launch>
double perf_time_ms(perf_session &s, Launch &&launch) {
  PERF_CUDA_CHECK(cudaEventRecord(s.start, s.stream));
  launch();
  PERF_CUDA_CHECK(cudaGetLastError());
  PERF_CUDA_CHECK(cudaEventRecord(s.stop, s.stream));
  PERF_CUDA_CHECK(cudaEventSynchronize(s.stop));
  float ms = 0;
  PERF_CUDA_CHECK(cudaEventElapsedTime(&ms, s.start, s.stop));
  return ms;
}

static __global__ void perf_publish_errors_kernel(int *slots, int count, int me, int npes) {
  for (int pe = 0; pe < npes; ++pe) nvshmem_int_p(&slots[me], count, pe);
  nvshmem_quiet();
}

/* Collective: the sum over all PEs of `local` (published with device puts, so it also exercises the path
   under test). */
inline long long perf_job_sum(perf_session &s, long long local) {
  const int count = local > 0x3fffffff ? 0x3fffffff : static_cast<int>(local);
  PERF_CUDA_CHECK(cudaDeviceSynchronize());
  perf_publish_errors_kernel<<<1, 1, 0, s.stream>>>(s.errors, count, s.me, s.npes);
  PERF_CUDA_CHECK(cudaGetLastError());
  PERF_CUDA_CHECK(cudaStreamSynchronize(s.stream));
  nvshmem_barrier_all();
  std::vector<int> all(static_cast<size_t>(s.npes));
  PERF_CUDA_CHECK(cudaMemcpy(all.data(), s.errors, all.size() * sizeof(int), cudaMemcpyDeviceToHost));
  nvshmem_barrier_all(); /* nobody publishes the next sum's terms before everyone has read these */
  long long total = 0;
  for (int v : all) total += v;
  return total;
}

/* Collective: every PE passes the errors it found in the latest check; every PE gets the job's total,
   which also counts towards the exit status. */
inline long long perf_job_errors(perf_session &s, long long local) {
  const long long total = perf_job_sum(s, local);
  s.total_errors += total;
  return total;
}

/* Releases everything and returns the exit status: 0 when no check failed on any PE. */
inline int perf_finish(perf_session &s) {
  PERF_CUDA_CHECK(cudaDeviceSynchronize());
  nvshmem_barrier_all();
  nvshmem_free(s.errors);
  PERF_CUDA_CHECK(cudaEventDestroy(s.start));
  PERF_CUDA_CHECK(cudaEventDestroy(s.stop));
  PERF_CUDA_CHECK(cudaStreamDestroy(s.stream));
  perf_shmem_active() = false;
  nvshmem_finalize();
  if (s.total_errors != 0 && s.me == 0)
    std::fprintf(stderr, "%s: FAILED: %lld data errors over the run (messages above name them)\n", s.prog,
                 s.total_errors);
  return s.total_errors == 0 ? 0 : 1;
}

#endif /* GPUSHMEM_PERF_SESSION_CUH */
