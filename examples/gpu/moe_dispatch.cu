/*
 * Mixture-of-experts token dispatch, all communication by GPU threads.
 *
 * Every PE holds T tokens of H floats and routes each token to one of E = X * npes experts (a seeded hash
 * stands in for the router); expert e lives on PE e / X. Each PE packs, per destination PE, the tokens
 * routed there (in token order, followed by one (token, expert) record per token) and one CTA per
 * destination sends that variable-size block into the destination's inbox slot for this source with
 * shmemx_putmem_signal_block, the signal carrying the count (SHMEM_SIGNAL_SET to count + 1, so that 0
 * tokens still arrive as a signal); it also adds the count to the destination's total with
 * shmem_uint64_atomic_add. Each receiver waits for every source's signal (shmem_signal_wait_until), then
 * recomputes the routing and the token values and checks every token it got, and that it got all of them.
 *
 *   mpirun -np 4 build/bin/moe_dispatch [-t 512 tokens] [-d 256 floats per token] [-x 4 experts per PE]
 *                                       [-s 2024 seed]
 */
#include <shmem.h>
#include <shmemx.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gpu_example.cuh"

namespace {

constexpr int kThreads = 256;

struct Route {
  uint64_t seed;
  int tokens;  /* T: tokens per PE */
  int hidden;  /* H: floats per token (a multiple of 4) */
  int per_pe;  /* X: experts per PE */
  int experts; /* E = X * npes */
  size_t slot; /* bytes of one inbox / outbox slot: T tokens and T records, rounded up to 256 */
};

struct Record { /* follows the tokens in a slot, one per token */
  int token;
  int expert;
};

struct FirstError { /* the first mismatch a receiver found, for the message */
  int source, slot_index, element;
  float got, want;
};

__host__ __device__ inline uint64_t mix(uint64_t x) { /* splitmix64's finaliser */
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
__host__ __device__ inline int expert_of(const Route &r, int pe, int t) {
  return static_cast<int>(mix(r.seed ^ (static_cast<uint64_t>(pe) << 32) ^ static_cast<uint64_t>(t)) % r.experts);
}
/* Element h of token t of PE pe: multiples of 1/8 below 512, exact in float, so checks compare bits. */
__host__ __device__ inline float token_value(int pe, int t, int h) {
  return static_cast<float>((pe * 7919 + t * 131 + h * 17) % 4096) * 0.125f;
}

__global__ void fill_kernel(float *tokens, int me, Route r) {
  const size_t n = static_cast<size_t>(r.tokens) * r.hidden;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    tokens[i] = token_value(me, static_cast<int>(i / r.hidden), static_cast<int>(i % r.hidden));
}

/* CTA d packs the tokens routed to PE d into outbox slot d: the tokens, then their records. */
__global__ void pack_kernel(const float *tokens, char *outbox, int *counts, int me, Route r) {
  const int d = blockIdx.x;
  char *slot = outbox + d * r.slot;
  __shared__ int count;
  if (threadIdx.x == 0) { /* one thread keeps token order */
    int c = 0;
    for (int t = 0; t < r.tokens; ++t)
      if (expert_of(r, me, t) / r.per_pe == d) ++c;
    Record *rec = reinterpret_cast<Record *>(slot + static_cast<size_t>(c) * r.hidden * sizeof(float));
    c = 0;
    for (int t = 0; t < r.tokens; ++t) {
      const int e = expert_of(r, me, t);
      if (e / r.per_pe == d) rec[c++] = Record{t, e};
    }
    count = c;
    counts[d] = c;
  }
  __syncthreads();
  const Record *rec = reinterpret_cast<const Record *>(slot + static_cast<size_t>(count) * r.hidden * sizeof(float));
  const int vecs = r.hidden / 4;
  const float4 *src = reinterpret_cast<const float4 *>(tokens);
  float4 *dst = reinterpret_cast<float4 *>(slot);
  for (int i = threadIdx.x; i < count * vecs; i += blockDim.x)
    dst[i] = src[static_cast<size_t>(rec[i / vecs].token) * vecs + i % vecs];
}

/* CTA d sends outbox slot d to PE d's inbox slot for this PE, signalling count + 1. */
__global__ void dispatch_kernel(const char *outbox, char *inbox, const int *counts, uint64_t *arrived, uint64_t *total,
                                int me, Route r) {
  const int d = blockIdx.x, c = counts[d];
  const size_t bytes = static_cast<size_t>(c) * (r.hidden * sizeof(float) + sizeof(Record));
  shmemx_putmem_signal_block(inbox + me * r.slot, outbox + d * r.slot, bytes, &arrived[me],
                             static_cast<uint64_t>(c) + 1, SHMEM_SIGNAL_SET, d);
  if (threadIdx.x == 0) {
    shmem_uint64_atomic_add(total, static_cast<uint64_t>(c), d);
    shmem_quiet();
  }
}

/* CTA s waits for source s's block and checks it: the count, every record, every value.
   got[s]: tokens received from s; per_expert[x]: tokens for this PE's expert x. */
__global__ void receive_kernel(const char *inbox, uint64_t *arrived, int me, Route r, int *got, int *per_expert,
                               int *errors, FirstError *first) {
  const int s = blockIdx.x;
  const char *slot = inbox + s * r.slot;
  __shared__ int count;
  if (threadIdx.x == 0) {
    count = static_cast<int>(shmem_signal_wait_until(&arrived[s], SHMEM_CMP_NE, 0) - 1);
    int expected = 0;
    for (int t = 0; t < r.tokens; ++t)
      if (expert_of(r, s, t) / r.per_pe == me) ++expected;
    got[s] = count;
    if (count != expected && atomicAdd(errors, 1) == 0) *first = FirstError{s, -1, -1, float(count), float(expected)};
    if (count > expected) count = expected; /* never read past what was sent */
  }
  __syncthreads();
  const Record *rec = reinterpret_cast<const Record *>(slot + static_cast<size_t>(count) * r.hidden * sizeof(float));
  for (int j = threadIdx.x; j < count; j += blockDim.x) {
    const Record x = rec[j];
    const bool ok = x.token >= 0 && x.token < r.tokens && (j == 0 || x.token > rec[j - 1].token) &&
                    x.expert == expert_of(r, s, x.token) && x.expert / r.per_pe == me;
    if (ok)
      atomicAdd(&per_expert[x.expert - me * r.per_pe], 1);
    else if (atomicAdd(errors, 1) == 0)
      *first = FirstError{s, j, -1, float(x.token), float(x.expert)};
  }
  const float *values = reinterpret_cast<const float *>(slot);
  for (size_t i = threadIdx.x; i < static_cast<size_t>(count) * r.hidden; i += blockDim.x) {
    const int j = static_cast<int>(i / r.hidden), h = static_cast<int>(i % r.hidden);
    const int t = rec[j].token;
    const float want = t >= 0 && t < r.tokens ? token_value(s, t, h) : -1.0f;
    if (values[i] != want && atomicAdd(errors, 1) == 0) *first = FirstError{s, j, h, values[i], want};
  }
}

}  // namespace

int main(int argc, char **argv) {
  Route r{2024, 512, 256, 4, 0, 0};
  int opt;
  while ((opt = getopt(argc, argv, "t:d:x:s:")) != -1) {
    if (opt == 't')
      r.tokens = std::atoi(optarg);
    else if (opt == 'd')
      r.hidden = std::atoi(optarg);
    else if (opt == 'x')
      r.per_pe = std::atoi(optarg);
    else if (opt == 's')
      r.seed = std::strtoull(optarg, nullptr, 0);
    else {
      std::fprintf(stderr,
                   "usage: %s [-t tokens per PE (512)] [-d floats per token, a multiple of 4 (256)] "
                   "[-x experts per PE (4)] [-s seed (2024)]\n",
                   argv[0]);
      return 2;
    }
  }
  if (r.tokens < 1 || r.hidden < 4 || r.hidden % 4 != 0 || r.per_pe < 1) {
    std::fprintf(stderr, "moe_dispatch: need -t >= 1, -d a positive multiple of 4, -x >= 1\n");
    return 2;
  }
  example_require_gpu("moe_dispatch");
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  r.experts = r.per_pe * npes;
  r.slot = (static_cast<size_t>(r.tokens) * (r.hidden * sizeof(float) + sizeof(Record)) + 255) & ~size_t{255};

  char *inbox = static_cast<char *>(shmem_malloc(r.slot * npes));
  example_require_gpu_heap("moe_dispatch", inbox);
  uint64_t *arrived = static_cast<uint64_t *>(shmem_calloc(static_cast<size_t>(npes), sizeof(uint64_t)));
  uint64_t *total = static_cast<uint64_t *>(shmem_calloc(1, sizeof(uint64_t)));
  float *tokens = nullptr;
  char *outbox = nullptr;
  int *counts = nullptr, *got = nullptr, *per_expert = nullptr, *errors = nullptr;
  FirstError *first = nullptr;
  EXAMPLE_CUDA_CHECK(cudaMalloc(&tokens, static_cast<size_t>(r.tokens) * r.hidden * sizeof(float)));
  EXAMPLE_CUDA_CHECK(cudaMalloc(&outbox, r.slot * npes));
  EXAMPLE_CUDA_CHECK(cudaMalloc(&counts, npes * sizeof(int)));
  EXAMPLE_CUDA_CHECK(cudaMallocManaged(&got, npes * sizeof(int)));
  EXAMPLE_CUDA_CHECK(cudaMallocManaged(&per_expert, r.per_pe * sizeof(int)));
  EXAMPLE_CUDA_CHECK(cudaMallocManaged(&errors, sizeof(int)));
  EXAMPLE_CUDA_CHECK(cudaMallocManaged(&first, sizeof(FirstError)));
  for (int x = 0; x < r.per_pe; ++x) per_expert[x] = 0;
  *errors = 0;

  fill_kernel<<<256, kThreads>>>(tokens, me, r);
  pack_kernel<<<npes, kThreads>>>(tokens, outbox, counts, me, r);
  EXAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
  shmem_barrier_all(); /* every inbox and signal word is allocated and zero before anyone sends */
  dispatch_kernel<<<npes, kThreads>>>(outbox, inbox, counts, arrived, total, me, r);
  receive_kernel<<<npes, kThreads>>>(inbox, arrived, me, r, got, per_expert, errors, first);
  EXAMPLE_CUDA_CHECK(cudaGetLastError());
  EXAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
  shmem_barrier_all(); /* every PE's atomic add on our total has completed */

  uint64_t total_host = 0;
  EXAMPLE_CUDA_CHECK(cudaMemcpy(&total_host, total, sizeof total_host, cudaMemcpyDeviceToHost));
  long received = 0;
  for (int s = 0; s < npes; ++s) received += got[s];
  int bad = *errors;
  if (total_host != static_cast<uint64_t>(received)) ++bad;
  if (me == 0)
    std::printf("moe_dispatch: %d PEs x %d tokens of %d floats, %d experts (%d per PE), seed %llu\n", npes, r.tokens,
                r.hidden, r.experts, r.per_pe, static_cast<unsigned long long>(r.seed));
  for (int pe = 0; pe < npes; ++pe) { /* one line per PE, in order */
    if (pe == me) {
      std::printf("PE %d: received %ld tokens (from", me, received);
      for (int s = 0; s < npes; ++s) std::printf(" PE %d: %d%s", s, got[s], s + 1 < npes ? "," : ")");
      std::printf("; experts %d..%d got", me * r.per_pe, (me + 1) * r.per_pe - 1);
      for (int x = 0; x < r.per_pe; ++x) std::printf(" %d", per_expert[x]);
      std::printf("; total counter %llu -> %s\n", static_cast<unsigned long long>(total_host), bad ? "FAIL" : "OK");
      if (*errors != 0) {
        const FirstError &f = *first;
        std::fprintf(stderr, "PE %d: %d errors; first: source PE %d, %s %d, element %d: got %g, expected %g\n", me,
                     *errors, f.source, f.slot_index < 0 ? "count" : "token", f.slot_index, f.element, f.got, f.want);
      }
      if (total_host != static_cast<uint64_t>(received))
        std::fprintf(stderr, "PE %d: the atomic total says %llu tokens, the signals say %ld\n", me,
                     static_cast<unsigned long long>(total_host), received);
      std::fflush(stdout);
    }
    shmem_barrier_all();
  }
  const int job_errors = example_job_errors(bad);
  if (me == 0)
    std::printf("every token reached its expert's PE once, with the right values -> %s\n",
                job_errors == 0 ? "PASS" : "FAIL");

  EXAMPLE_CUDA_CHECK(cudaFree(tokens));
  EXAMPLE_CUDA_CHECK(cudaFree(outbox));
  EXAMPLE_CUDA_CHECK(cudaFree(counts));
  EXAMPLE_CUDA_CHECK(cudaFree(got));
  EXAMPLE_CUDA_CHECK(cudaFree(per_expert));
  EXAMPLE_CUDA_CHECK(cudaFree(errors));
  EXAMPLE_CUDA_CHECK(cudaFree(first));
  shmem_free(total);
  shmem_free(arrived);
  shmem_free(inbox);
  shmem_finalize();
  return job_errors == 0 ? 0 : 1;
}
