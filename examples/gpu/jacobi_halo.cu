/*
 * 2-D Jacobi iteration for Laplace's equation on an N x N grid, split in row blocks across PEs, with the
 * halo rows exchanged by GPU threads through put-with-signal.
 *
 * The top edge holds sin(pi x), the other edges 0, the inside starts at 0. The interior rows 1..N-2 are
 * split into contiguous blocks, one per PE; each PE keeps one halo row above and one below its block. In
 * iteration k every CTA updates some of the PE's rows; the CTA that updates the first (last) row first
 * waits until the upper (lower) neighbour's row of iteration k-1 has arrived (shmem_signal_wait_until on a
 * signal word, >= k-1), and after the update sends the row into that neighbour's halo with
 * shmemx_putmem_signal_nbi_block, setting the neighbour's signal word to k (SHMEM_SIGNAL_SET). Two grids
 * alternate, so a neighbour running one iteration ahead writes a halo nobody reads any more.
 *
 * After K iterations the program prints the residual ||4u - (sum of the 4 neighbours)||_2 over the
 * interior and checks the whole grid against the same K iterations computed on one GPU by PE 0 (explicitly
 * rounded arithmetic makes both bit-identical; the residual must agree to 1e-9 relative).
 *
 *   mpirun -np 2 build/bin/jacobi_halo [-n 512] [-k 1000]
 */
#include <shmem.h>
#include <shmemx.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gpu_example.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kFromUp = 0, kFromDown = 1; /* the two signal words: who wrote the halo */

/* Interior rows 1..n-2 in contiguous blocks; the first (n-2) % npes PEs take one row more. */
struct Rows {
  int first, count;
};
__host__ __device__ inline Rows rows_of(int pe, int npes, int n) {
  const int m = n - 2, base = m / npes, extra = m % npes;
  return {1 + pe * base + (pe < extra ? pe : extra), base + (pe < extra ? 1 : 0)};
}

__device__ inline double initial(int row, int col, int n) {
  return row == 0 ? sinpi(static_cast<double>(col) / (n - 1)) : 0.0;
}

/* Sum of the four neighbours of u[r][c], explicitly rounded (no FMA contraction), so the distributed run
   and the reference compute the same bits. */
__device__ inline double neighbours(const double *u, int r, int c, int n) {
  const double *p = u + static_cast<size_t>(r) * n + c;
  return __dadd_rn(__dadd_rn(p[-n], p[n]), __dadd_rn(p[-1], p[1]));
}
__device__ inline double update(const double *u, int r, int c, int n) {
  return __dmul_rn(0.25, neighbours(u, r, c, n));
}
__device__ inline double residual_sq(const double *u, int r, int c, int n) {
  const double d = __dsub_rn(neighbours(u, r, c, n), __dmul_rn(4.0, u[static_cast<size_t>(r) * n + c]));
  return __dmul_rn(d, d);
}

/* rows local rows of u, local row 0 being global row `row0`. */
__global__ void init_kernel(double *u, int row0, int rows, int n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < static_cast<size_t>(rows) * n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    u[i] = initial(row0 + static_cast<int>(i / n), static_cast<int>(i % n), n);
}

/* Before reading a halo row: the neighbour's row of iteration `iter` (or later) has arrived. */
__device__ inline void wait_halos(int lr, int count, uint64_t *sig, int up, int down, uint64_t iter) {
  if (threadIdx.x == 0) {
    if (lr == 1 && up >= 0) shmem_signal_wait_until(&sig[kFromUp], SHMEM_CMP_GE, iter);
    if (lr == count && down >= 0) shmem_signal_wait_until(&sig[kFromDown], SHMEM_CMP_GE, iter);
  }
  __syncthreads();
}

/* Iteration k: cur holds iteration k-1 (local rows 0..count+1), nxt receives iteration k. */
__global__ void step_kernel(const double *cur, double *nxt, int count, int n, uint64_t k, uint64_t *sig, int up,
                            int down, int up_count) {
  const size_t row_bytes = static_cast<size_t>(n) * sizeof(double);
  for (int lr = 1 + blockIdx.x; lr <= count; lr += gridDim.x) {
    wait_halos(lr, count, sig, up, down, k - 1);
    for (int c = 1 + threadIdx.x; c < n - 1; c += blockDim.x)
      nxt[static_cast<size_t>(lr) * n + c] = update(cur, lr, c, n);
    /* The boundary rows go into the neighbours' halos of the same grid (the put syncs the CTA first). */
    if (lr == 1 && up >= 0)
      shmemx_putmem_signal_nbi_block(nxt + static_cast<size_t>(up_count + 1) * n, nxt + n, row_bytes, &sig[kFromDown],
                                     k, SHMEM_SIGNAL_SET, up);
    if (lr == count && down >= 0)
      shmemx_putmem_signal_nbi_block(nxt, nxt + static_cast<size_t>(count) * n, row_bytes, &sig[kFromUp], k,
                                     SHMEM_SIGNAL_SET, down);
  }
  /* The nbi puts read rows that iteration k+2 overwrites: complete them before the kernel ends. */
  __syncthreads();
  if (threadIdx.x == 0) shmem_quiet();
}

/* Adds this PE's part of the squared residual of iteration `iter` to *sum. */
__global__ void residual_kernel(const double *u, int count, int n, uint64_t iter, uint64_t *sig, int up, int down,
                                double *sum) {
  double part = 0;
  for (int lr = 1 + blockIdx.x; lr <= count; lr += gridDim.x) {
    wait_halos(lr, count, sig, up, down, iter);
    for (int c = 1 + threadIdx.x; c < n - 1; c += blockDim.x) part += residual_sq(u, lr, c, n);
  }
  atomicAdd(sum, part);
}

/* Sends this PE's rows into PE 0's full grid and its residual part into PE 0's partials[me]. */
__global__ void gather_kernel(double *grid, const double *u, Rows mine, int n, double *partials, const double *sum,
                              int me) {
  shmemx_putmem_block(grid + static_cast<size_t>(mine.first) * n, u + n,
                      static_cast<size_t>(mine.count) * n * sizeof(double), 0);
  if (threadIdx.x == 0) {
    shmem_double_p(&partials[me], *sum, 0);
    shmem_quiet();
  }
}

/* The single-GPU reference: the same update over the whole grid. */
__global__ void ref_step_kernel(const double *cur, double *nxt, int n) {
  for (int r = 1 + blockIdx.x; r < n - 1; r += gridDim.x)
    for (int c = 1 + threadIdx.x; c < n - 1; c += blockDim.x)
      nxt[static_cast<size_t>(r) * n + c] = update(cur, r, c, n);
}
__global__ void ref_residual_kernel(const double *u, int n, double *sum) {
  double part = 0;
  for (int r = 1 + blockIdx.x; r < n - 1; r += gridDim.x)
    for (int c = 1 + threadIdx.x; c < n - 1; c += blockDim.x) part += residual_sq(u, r, c, n);
  atomicAdd(sum, part);
}

/* PE 0: K iterations on one GPU; returns the residual and leaves the grid in `out` (n*n, host). */
double reference(int n, int iters, std::vector<double> &out) {
  const size_t elems = static_cast<size_t>(n) * n;
  double *g[2], *sum;
  for (double *&p : g) EXAMPLE_CUDA_CHECK(cudaMalloc(&p, elems * sizeof(double)));
  EXAMPLE_CUDA_CHECK(cudaMalloc(&sum, sizeof(double)));
  const int ctas = n < 1024 ? n : 1024;
  for (double *p : g) init_kernel<<<256, kThreads>>>(p, 0, n, n);
  for (int k = 1; k <= iters; ++k) ref_step_kernel<<<ctas, kThreads>>>(g[(k - 1) % 2], g[k % 2], n);
  EXAMPLE_CUDA_CHECK(cudaMemset(sum, 0, sizeof(double)));
  ref_residual_kernel<<<ctas, kThreads>>>(g[iters % 2], n, sum);
  EXAMPLE_CUDA_CHECK(cudaGetLastError());
  double r2 = 0;
  out.resize(elems);
  EXAMPLE_CUDA_CHECK(cudaMemcpy(&r2, sum, sizeof r2, cudaMemcpyDeviceToHost));
  EXAMPLE_CUDA_CHECK(cudaMemcpy(out.data(), g[iters % 2], elems * sizeof(double), cudaMemcpyDeviceToHost));
  for (double *p : g) EXAMPLE_CUDA_CHECK(cudaFree(p));
  EXAMPLE_CUDA_CHECK(cudaFree(sum));
  return std::sqrt(r2);
}

}  // namespace

int main(int argc, char **argv) {
  int n = 512, iters = 1000, opt;
  while ((opt = getopt(argc, argv, "n:k:")) != -1) {
    if (opt == 'n')
      n = std::atoi(optarg);
    else if (opt == 'k')
      iters = std::atoi(optarg);
    else {
      std::fprintf(stderr, "usage: %s [-n grid size (512)] [-k iterations (1000)]\n", argv[0]);
      return 2;
    }
  }
  example_require_gpu("jacobi_halo");
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  if (iters < 1 || n - 2 < npes) {
    if (me == 0)
      std::fprintf(stderr,
                   "jacobi_halo: need -k >= 1 and at least one interior row per PE (-n %d gives %d rows "
                   "for %d PEs)\n",
                   n, n - 2, npes);
    shmem_finalize();
    return 2;
  }
  const Rows mine = rows_of(me, npes, n);
  const int up = me > 0 ? me - 1 : -1, down = me < npes - 1 ? me + 1 : -1;
  const int up_count = up >= 0 ? rows_of(up, npes, n).count : 0;
  const size_t local_elems = static_cast<size_t>(rows_of(0, npes, n).count + 2) * n; /* PE 0 has the most rows */

  double *u[2];
  for (double *&p : u) p = static_cast<double *>(shmem_malloc(local_elems * sizeof(double)));
  example_require_gpu_heap("jacobi_halo", u[0]);
  uint64_t *sig = static_cast<uint64_t *>(shmem_calloc(2, sizeof(uint64_t)));
  double *partials = static_cast<double *>(shmem_calloc(static_cast<size_t>(npes), sizeof(double)));
  double *grid = static_cast<double *>(shmem_malloc(static_cast<size_t>(n) * n * sizeof(double)));
  double *sum = nullptr;
  EXAMPLE_CUDA_CHECK(cudaMalloc(&sum, sizeof(double)));
  EXAMPLE_CUDA_CHECK(cudaMemset(sum, 0, sizeof(double)));
  for (double *p : u) init_kernel<<<256, kThreads>>>(p, mine.first - 1, mine.count + 2, n);
  EXAMPLE_CUDA_CHECK(cudaGetLastError());
  EXAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
  shmem_barrier_all(); /* no neighbour writes a halo before its owner has initialised the grids */

  cudaEvent_t t0, t1;
  EXAMPLE_CUDA_CHECK(cudaEventCreate(&t0));
  EXAMPLE_CUDA_CHECK(cudaEventCreate(&t1));
  const int ctas = mine.count < 1024 ? mine.count : 1024;
  EXAMPLE_CUDA_CHECK(cudaEventRecord(t0));
  for (int k = 1; k <= iters; ++k)
    step_kernel<<<ctas, kThreads>>>(u[(k - 1) % 2], u[k % 2], mine.count, n, static_cast<uint64_t>(k), sig, up, down,
                                    up_count);
  EXAMPLE_CUDA_CHECK(cudaEventRecord(t1));
  residual_kernel<<<ctas, kThreads>>>(u[iters % 2], mine.count, n, static_cast<uint64_t>(iters), sig, up, down, sum);
  gather_kernel<<<1, kThreads>>>(grid, u[iters % 2], mine, n, partials, sum, me);
  EXAMPLE_CUDA_CHECK(cudaGetLastError());
  EXAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
  float ms = 0;
  EXAMPLE_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
  shmem_barrier_all(); /* every PE's rows and residual part are in PE 0's memory */

  int errors = 0;
  if (me == 0) {
    std::printf("jacobi_halo: %d x %d grid, %d iterations, %d PEs;", n, n, iters, npes);
    for (int pe = 0; pe < npes; ++pe)
      std::printf(" PE %d rows %d..%d%s", pe, rows_of(pe, npes, n).first,
                  rows_of(pe, npes, n).first + rows_of(pe, npes, n).count - 1, pe + 1 < npes ? "," : "\n");
    std::vector<double> parts(static_cast<size_t>(npes)), got(static_cast<size_t>(n) * n), want;
    EXAMPLE_CUDA_CHECK(cudaMemcpy(parts.data(), partials, parts.size() * sizeof(double), cudaMemcpyDeviceToHost));
    EXAMPLE_CUDA_CHECK(cudaMemcpy(got.data(), grid, got.size() * sizeof(double), cudaMemcpyDeviceToHost));
    double r2 = 0;
    for (double p : parts) r2 += p;
    const double residual = std::sqrt(r2), ref = reference(n, iters, want);
    const double rel = std::fabs(residual - ref) / (ref != 0 ? std::fabs(ref) : 1.0);
    double worst = 0;
    size_t worst_at = 0;
    for (size_t i = static_cast<size_t>(n); i < static_cast<size_t>(n - 1) * n; ++i) {
      const double d = std::fabs(got[i] - want[i]);
      if (d > worst || d != d) worst = d, worst_at = i;
    }
    const bool ok = rel <= 1e-9 && worst <= 1e-12;
    errors = ok ? 0 : 1;
    std::printf("residual after %d iterations: %.12e (single-GPU reference %.12e, relative difference %.2e)\n", iters,
                residual, ref, rel);
    std::printf("largest |u - reference| over the grid: %.3e (row %zu, column %zu)\n", worst, worst_at / n,
                worst_at % n);
    std::printf("time: %.2f us per iteration, halo exchange included -> %s\n", 1e3 * ms / iters, ok ? "PASS" : "FAIL");
  }
  const int job_errors = example_job_errors(errors);

  EXAMPLE_CUDA_CHECK(cudaEventDestroy(t0));
  EXAMPLE_CUDA_CHECK(cudaEventDestroy(t1));
  EXAMPLE_CUDA_CHECK(cudaFree(sum));
  shmem_free(grid);
  shmem_free(partials);
  shmem_free(sig);
  for (double *p : u) shmem_free(p);
  shmem_finalize();
  return job_errors == 0 ? 0 : 1;
}
