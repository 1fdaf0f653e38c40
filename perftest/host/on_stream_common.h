/*
 * The body of host_put_on_stream_bw and host_put_on_stream_latency (each defines PERF_OS_BW 1 or 0, then
 * includes this file): stream-ordered RMA issued from the host (gpushmem's shmemx_putmem_on_stream /
 * shmemx_getmem_on_stream), PE 0 <-> PE 1.
 *   bandwidth: -n operations of SIZE bytes enqueued on one stream, then cudaStreamSynchronize; GB/s.
 *   latency:   each operation enqueued and waited for (cudaStreamSynchronize); us per operation. Built only against
 * libraries whose <shmemx.h> offers the _on_stream calls with CUDA (gpushmem built with CUDA); exits 77 (skipped)
 * without a GPU symmetric heap. This file has no device code, so it asks for the GPU heap with
 * GPUSHMEM_SYMMETRIC_HEAP=gpu (unless set otherwise), and, as the host cannot touch that heap, keeps its job-wide error
 * count in GPU memory too. -a put | get | all (default all) reference: cudaMemcpyAsync of SIZE bytes between two
 * buffers of PE 0's GPU on the same stream, the same loop (local_ce_GBps / local_ce_us): the copy engines without
 * leaving the GPU. Checks: the receiving side copies the bytes back to the host and compares every one with the
 * pattern.
 */
#include <cuda_runtime_api.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_host.h"

#define CK(call)                                                                                    \
  do {                                                                                              \
    const cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                        \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      shmem_global_exit(1);                                                                         \
    }                                                                                               \
  } while (0)

typedef struct os_ctx {
  char *sym, *local, *local2;
  size_t size;
  cudaStream_t stream;
  int get;
} os_ctx;

static void os_run(void *p, int n) {
  os_ctx *c = (os_ctx *)p;
  for (int i = 0; i < n; ++i) {
    if (c->get)
      shmemx_getmem_on_stream(c->local, c->sym, c->size, 1, c->stream);
    else
      shmemx_putmem_on_stream(c->sym, c->local, c->size, 1, c->stream);
    if (!PERF_OS_BW) CK(cudaStreamSynchronize(c->stream));
  }
  CK(cudaStreamSynchronize(c->stream));
}

static void os_ref(void *p, int n) {
  os_ctx *c = (os_ctx *)p;
  for (int i = 0; i < n; ++i) {
    CK(cudaMemcpyAsync(c->local2, c->local, c->size, cudaMemcpyDeviceToDevice, c->stream));
    if (!PERF_OS_BW) CK(cudaStreamSynchronize(c->stream));
  }
  CK(cudaStreamSynchronize(c->stream));
}

/* Bandwidth programs report GB/s, latency programs microseconds per operation. */
static perf_summary os_figure(perf_summary us, size_t size) {
  return PERF_OS_BW ? perf_us_to_gbps(us, size) : us;
}

/* Collective: each PE puts its error count into slot me of PE 0's GPU array (stream-ordered); PE 0 sums
   them (the figure's check column), every PE keeps its own in the exit status. */
static long long os_job_errors(perf_host *h, int *errs, long local, cudaStream_t stream) {
  int v = (int)local;
  shmemx_putmem_on_stream(&errs[h->me], &v, sizeof v, 0, stream);
  CK(cudaStreamSynchronize(stream));
  shmem_barrier_all();
  long long total = local;
  if (h->me == 0) {
    int *all = (int *)perf_host_private(h, sizeof(int) * (size_t)h->npes);
    CK(cudaMemcpy(all, errs, sizeof(int) * (size_t)h->npes, cudaMemcpyDeviceToHost));
    total = 0;
    for (int pe = 0; pe < h->npes; ++pe) total += all[pe];
    free(all);
  }
  shmem_barrier_all();
  h->total_errors += h->me == 0 ? total : local;
  return total;
}

int main(int argc, char **argv) {
  static const char *const variants[] = {"all", "put", "get", NULL};
  perf_opts o;
  perf_opts_defaults(&o);
  o.max_bytes = PERF_OS_BW ? 64 << 20 : 1 << 20;
  o.iters = PERF_OS_BW ? 20 : 200;
  o.warmup = PERF_OS_BW ? 5 : 20;
  o.op = "all";
  perf_opts_parse(argc, argv, "befnwra", "-a put | get | all (default all)", &o);
  const int variant = perf_opts_choose(o.prog, 'a', o.op, variants);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    fprintf(stderr, "%s: SKIP: no usable CUDA device\n", o.prog);
    return 77;
  }
  setenv("GPUSHMEM_SYMMETRIC_HEAP", "gpu", 0);
  shmem_init();
  /* perf_host_start would keep its error word in the symmetric heap, which the host cannot touch here */
  perf_host h;
  memset(&h, 0, sizeof h);
  h.o = &o;
  h.bench = PERF_OS_BENCH;
  h.me = shmem_my_pe();
  h.npes = shmem_n_pes();
  shmem_info_get_name(h.library);
  h.samples = (double *)perf_host_private(&h, sizeof(double) * (size_t)o.repeats);
  if (h.npes < 2) {
    if (h.me == 0) fprintf(stderr, "%s: needs at least 2 PEs (started with %d)\n", h.bench, h.npes);
    shmem_finalize();
    return 2;
  }
  if (h.me == 0)
    printf("# %s: %s, %d PEs, %d iterations (+%d warm-up), median [min,max] of %d repeats\n", h.bench, h.library,
           h.npes, o.iters, o.warmup, o.repeats);
  os_ctx c;
  memset(&c, 0, sizeof c);
  c.sym = (char *)perf_host_malloc(&h, o.max_bytes);
  int *errs = (int *)perf_host_malloc(&h, sizeof(int) * (size_t)h.npes);
  struct cudaPointerAttributes attr;
  memset(&attr, 0, sizeof attr);
  if (cudaPointerGetAttributes(&attr, c.sym) != cudaSuccess || attr.type != cudaMemoryTypeDevice) {
    (void)cudaGetLastError();
    if (h.me == 0)
      fprintf(stderr, "%s: SKIP: shmem_malloc does not return GPU memory (no GPU symmetric heap)\n", h.bench);
    shmem_finalize();
    return 77;
  }
  CK(cudaMemset(errs, 0, sizeof(int) * (size_t)h.npes));
  CK(cudaDeviceSynchronize());
  shmem_barrier_all();
  CK(cudaMalloc((void **)&c.local, o.max_bytes));
  CK(cudaMalloc((void **)&c.local2, o.max_bytes));
  CK(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
  char *host = (char *)perf_host_private(&h, o.max_bytes);
  for (size_t size = o.min_bytes; size != 0; size = perf_next_size(&o, size)) {
    c.size = size;
    for (int v = 1; v <= 2; ++v) {
      if (variant != 0 && variant != v) continue;
      c.get = v == 2;
      const uint32_t seed = (uint32_t)size * 5u + (uint32_t)v;
      /* the sending side holds the pattern, the receiving side zeroes */
      perf_fill(host, size, seed);
      if (c.get) {
        if (h.me == 1) CK(cudaMemcpy(c.sym, host, size, cudaMemcpyHostToDevice));
        CK(cudaMemset(c.local, 0, size));
      } else {
        CK(cudaMemcpy(c.local, host, size, cudaMemcpyHostToDevice));
        if (h.me == 1) CK(cudaMemset(c.sym, 0, size));
      }
      CK(cudaDeviceSynchronize());
      shmem_barrier_all();
      perf_summary value, ref;
      memset(&value, 0, sizeof value);
      memset(&ref, 0, sizeof ref);
      if (h.me == 0) {
        if (c.get) { /* the reference must not touch the get's destination after the get: run it first */
          ref = os_figure(perf_host_time_us(&h, os_ref, &c), size);
          CK(cudaMemset(c.local, 0, size));
          CK(cudaDeviceSynchronize());
        } else {
          ref = os_figure(perf_host_time_us(&h, os_ref, &c), size);
        }
        value = os_figure(perf_host_time_us(&h, os_run, &c), size);
      }
      shmem_barrier_all();
      long bad = 0;
      if (c.get ? h.me == 0 : h.me == 1) {
        CK(cudaMemcpy(host, c.get ? c.local : c.sym, size, cudaMemcpyDeviceToHost));
        bad = perf_check(&h, host, size, seed, c.get ? "PE 0's get destination" : "PE 1's put destination");
      }
      perf_point p;
      memset(&p, 0, sizeof p);
      p.size = size;
      p.type = "";
      p.op = c.get ? "getmem_on_stream" : "putmem_on_stream";
      p.scope = "stream";
      p.metric = PERF_OS_BW ? "bw_GBps" : "lat_us";
      p.value = value;
      p.ref_name = PERF_OS_BW ? "local_ce_GBps" : "local_ce_us";
      p.ref = ref;
      p.errors = os_job_errors(&h, errs, bad, c.stream);
      perf_report(&h, &p);
    }
  }
  CK(cudaStreamDestroy(c.stream));
  CK(cudaFree(c.local));
  CK(cudaFree(c.local2));
  free(host);
  free(h.samples);
  shmem_barrier_all();
  shmem_free(errs);
  shmem_free(c.sym);
  shmem_finalize();
  if (h.total_errors != 0 && h.me == 0)
    fprintf(stderr, "%s: FAILED: %lld data errors over the run (the messages above name them)\n", h.bench,
            h.total_errors);
  return h.total_errors == 0 ? 0 : 1;
}
