// <pshmem.h> in C++, where <shmem.h> also declares C++ overloads of some names (shmem_sync, shmem_wait_until):
// every p-name is declared with its C routine's type. A profiling wrapper of shmem_int_p, written in C++,
// forwards to pshmem_int_p; the deprecated active-set pshmem_sync and pshmem_wait_until still work.
#include <pshmem.h>

#include "pe_check.h"

static long p_calls;

extern "C" void shmem_int_p(int *dest, int value, int pe) {
  ++p_calls;
  pshmem_int_p(dest, value, pe);
}

int main() {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  int *box = static_cast<int *>(shmem_malloc(sizeof(int)));
  long *flag = static_cast<long *>(shmem_calloc(1, sizeof(long)));
  long *sync_words = static_cast<long *>(shmem_malloc(SHMEM_BARRIER_SYNC_SIZE * sizeof(long)));
  for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) sync_words[i] = SHMEM_SYNC_VALUE;
  *box = -1;
  shmem_barrier_all();
  shmem_int_p(box, me, (me + 1) % npes);
  pshmem_long_p(flag, 1, (me + 1) % npes);
  pshmem_wait_until(flag, SHMEM_CMP_EQ, 1);  // the deprecated long form
  pshmem_sync(0, 0, npes, sync_words);       // the deprecated active-set sync
  PE_CHECK(*box == (me + npes - 1) % npes, "box holds %d, expected %d", *box, (me + npes - 1) % npes);
  PE_CHECK(p_calls == 1, "the shmem_int_p wrapper ran %ld times, expected 1", p_calls);
  shmem_barrier_all();
  shmem_free(sync_words);
  shmem_free(flag);
  shmem_free(box);
  return pe_finish("pshmem_cxx");
}
