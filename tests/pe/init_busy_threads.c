/*
 * shmem_init while other threads of the process allocate and map memory (an application's workers, an MPI
 * library's threads): 3 threads map and unmap pages, malloc and free large and small blocks and read the
 * program break in a loop from before shmem_init until after the first exchange. UCX's memory hooks, which
 * rewrite mmap and friends while they start, crashed such a process (issue seen in CI as a SIGSEGV during
 * shmem_init). Afterwards every PE puts a pattern to the next one, and checks what it got and what its
 * threads' own blocks still hold (no heap corruption).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pe_check.h"

enum { kThreads = 3, kElems = 4096 };

static atomic_int g_stop;

typedef struct {
  int id;
  long rounds;
  long bad;
} churn_arg;

static void *churn(void *p) {
  churn_arg *a = (churn_arg *)p;
  const size_t sizes[] = {64, 4096, 200000, 3u << 20};
  while (!atomic_load(&g_stop)) {
    size_t n = sizes[a->rounds % 4];
    unsigned char *m = (unsigned char *)malloc(n);
    void *map = mmap(NULL, 1u << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == NULL || map == MAP_FAILED) {
      a->bad++;
      free(m);
      break;
    }
    memset(m, a->id + 1, n);
    memset(map, a->id + 1, 4096);
    for (size_t i = 0; i < n; i += 997)
      if (m[i] != (unsigned char)(a->id + 1)) a->bad++;
    munmap(map, 1u << 20);
    free(m);
    (void)sbrk(0); /* the break itself is malloc's: only read it */
    a->rounds++;
  }
  return NULL;
}

int main(void) {
  pthread_t threads[kThreads];
  churn_arg args[kThreads];
  for (int t = 0; t < kThreads; ++t) {
    args[t] = (churn_arg){.id = t, .rounds = 0, .bad = 0};
    if (pthread_create(&threads[t], NULL, churn, &args[t]) != 0) {
      fprintf(stderr, "init_busy_threads: FAILED: cannot start thread %d\n", t);
      return 1;
    }
  }
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  long *dst = (long *)shmem_malloc(kElems * sizeof(long));
  long *src = (long *)malloc(kElems * sizeof(long));
  PE_CHECK(dst != NULL && src != NULL, "allocations failed");
  if (dst != NULL && src != NULL) {
    for (int i = 0; i < kElems; ++i) src[i] = ((long)me << 32) | i;
    shmem_barrier_all();
    shmem_long_put(dst, src, kElems, (me + 1) % npes);
    shmem_barrier_all();
    const int from = (me + npes - 1) % npes;
    for (int i = 0; i < kElems; ++i)
      PE_CHECK(dst[i] == (((long)from << 32) | i), "dst[%d] = %#lx, expected %#lx (from PE %d)", i, dst[i],
               ((long)from << 32) | i, from);
  }
  atomic_store(&g_stop, 1);
  for (int t = 0; t < kThreads; ++t) {
    pthread_join(threads[t], NULL);
    PE_CHECK(args[t].bad == 0, "thread %d saw %ld bad bytes or failed allocations", t, args[t].bad);
    PE_CHECK(args[t].rounds > 0, "thread %d never ran", t);
  }
  free(src);
  shmem_free(dst);
  return pe_finish("init_busy_threads");
}
