/* Programs that end without shmem_finalize, as programs written for OpenSHMEM 1.0-1.4 often do.
   argv[1]:
     return     shmem_init, puts to the next PE (non-blocking, never quieted), return 0 from main: the library
                finalizes at exit (the puts complete in its barrier) and the job exits 0
     start_pes  start_pes(0), the same puts, return 0
     exit0      shmem_init, the same puts, exit(0) from a nested call
     exit3      PE 1 calls exit(3) while the others wait in shmem_barrier_all: the job ends non-zero,
                naming PE 1, instead of the others waiting for it (or PE 1 waiting in a finalize) */
#include <stdlib.h>
#include <string.h>

#include "pe_check.h"

static long *word;

static void put_to_next(void) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  *word = -1;
  shmem_barrier_all();
  const long mine = 1000 + me;
  shmem_long_put_nbi(word, &mine, 1, (me + 1) % n);
  /* Completed by the finalize at exit (its barrier quiets), so the next PE could read it there; here
     every PE only says it got this far. */
  printf("exit_without_finalize: PE %d leaves without shmem_finalize\n", me);
  fflush(stdout);
}

static void leave(void) {
  exit(0);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "return";
  if (strcmp(mode, "start_pes") == 0)
    start_pes(0);
  else
    shmem_init();
  word = (long *)shmem_malloc(sizeof(long));
  if (strcmp(mode, "exit3") == 0) {
    shmem_barrier_all();
    if (shmem_my_pe() == 1) {
      fprintf(stderr, "exit_without_finalize: PE 1 calls exit(3)\n");
      exit(3);
    }
    shmem_barrier_all(); /* PE 1 never arrives */
    return 0;
  }
  put_to_next();
  if (strcmp(mode, "exit0") == 0) leave();
  return 0;
}
