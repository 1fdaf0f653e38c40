/*
 * The profiling interface: this program defines shmem_putmem, shmem_long_atomic_fetch_add and
 * shmem_barrier_all itself, counts the calls and forwards them to pshmem_putmem, pshmem_long_atomic_fetch_add
 * and pshmem_barrier_all, the library's own routines (what a tracing tool does). The data must still arrive,
 * the counts must be the calls this program made, and p-names of queries and deprecated routines must answer
 * as the plain ones do. Built in C here; pshmem_cxx.cpp compiles <pshmem.h> as C++.
 */
#include <pshmem.h>

#include "pe_check.h"

static long putmem_calls, fadd_calls, barrier_calls;

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe) {
  ++putmem_calls;
  pshmem_putmem(dest, source, nelems, pe);
}
long shmem_long_atomic_fetch_add(long *dest, long value, int pe) {
  ++fadd_calls;
  return pshmem_long_atomic_fetch_add(dest, value, pe);
}
void shmem_barrier_all(void) {
  ++barrier_calls;
  pshmem_barrier_all();
}

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  shmem_pcontrol(1);
  PE_CHECK(pshmem_my_pe() == me && p_my_pe() == me, "pshmem_my_pe %d / p_my_pe %d, expected %d", pshmem_my_pe(),
           p_my_pe(), me);
  PE_CHECK(pshmem_n_pes() == npes && p_num_pes() == npes, "pshmem_n_pes %d / p_num_pes %d, expected %d", pshmem_n_pes(),
           p_num_pes(), npes);

  long *slot = (long *)shmem_malloc(sizeof(long));
  long *counter = (long *)pshmem_malloc(sizeof(long));
  *slot = -1;
  *counter = 0;
  shmem_barrier_all();
  const long mine = 1000 + me;
  shmem_putmem(slot, &mine, sizeof mine, (me + 1) % npes);
  const long old = shmem_long_atomic_fetch_add(counter, 1, 0);
  PE_CHECK(old >= 0 && old < npes, "fetch_add returned %ld, expected 0..%d", old, npes - 1);
  shmem_barrier_all();
  const long from = 1000 + (me + npes - 1) % npes;
  PE_CHECK(*slot == from, "slot holds %ld, expected %ld (the put went through pshmem_putmem)", *slot, from);
  if (me == 0) PE_CHECK(*counter == npes, "counter is %ld after %d fetch_adds", *counter, npes);
  PE_CHECK(putmem_calls == 1, "shmem_putmem wrapper ran %ld times, expected 1", putmem_calls);
  PE_CHECK(fadd_calls == 1, "shmem_long_atomic_fetch_add wrapper ran %ld times, expected 1", fadd_calls);
  PE_CHECK(barrier_calls == 2, "shmem_barrier_all wrapper ran %ld times, expected 2", barrier_calls);
  pshmem_free(counter);
  shmem_free(slot);
  return pe_finish("pshmem");
}
