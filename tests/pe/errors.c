/*
 * Misuse that the library must report (naming the call) and turn into a failed job rather than a hang or
 * a silent wrong answer. argv[1] picks the case; each is expected to end the job with a non-zero status
 * (the CMake registration checks the status and the message). Reaching the end of a case is a failure.
 *   invalid_pe       the last PE calls shmem_int_p(.., pe = n_pes) while the others wait in a barrier
 *   stack_address    the last PE calls shmem_putmem with a stack address as dest
 *   before_init      shmem_my_pe before shmem_init
 *   double_init      shmem_init twice
 *   double_finalize  shmem_finalize twice
 *   bad_bootstrap,   just shmem_init, run with GPUSHMEM_BOOTSTRAP=nonsense or with a plugin folder that does
 *   bad_plugin_dir   not exist
 *   malloc_mismatch  shmem_malloc with a different size on each PE
 */
#include <string.h>

#include "pe_check.h"

int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "";
  if (strcmp(c, "before_init") == 0) {
    int pe = shmem_my_pe();
    fprintf(stderr, "errors: FAILED: shmem_my_pe before shmem_init returned %d instead of ending the job\n", pe);
    return 0; /* a status 0 fails the test too */
  }
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  if (strcmp(c, "invalid_pe") == 0) {
    int *x = (int *)shmem_malloc(sizeof(int));
    if (me == npes - 1) shmem_int_p(x, 1, npes);
    shmem_barrier_all();
  } else if (strcmp(c, "stack_address") == 0) {
    char on_stack[16] = "not symmetric";
    char *sym = (char *)shmem_malloc(sizeof on_stack);
    if (me == npes - 1) shmem_putmem(on_stack, sym, sizeof on_stack, 0);
    shmem_barrier_all();
  } else if (strcmp(c, "double_init") == 0) {
    shmem_init();
  } else if (strcmp(c, "double_finalize") == 0) {
    shmem_finalize();
    shmem_finalize();
    fprintf(stderr, "errors: FAILED: the second shmem_finalize returned\n");
    return 0;
  } else if (strcmp(c, "bad_bootstrap") == 0 || strcmp(c, "bad_plugin_dir") == 0) {
    /* Reaching this line means shmem_init accepted the environment. */
  } else if (strcmp(c, "malloc_mismatch") == 0) {
    void *p = shmem_malloc(1024 * (size_t)(me + 1));
    (void)p;
  } else {
    fprintf(stderr, "errors: unknown case '%s'\n", c);
    return 64;
  }
  fprintf(stderr, "errors: FAILED: PE %d: case '%s' did not end the job\n", me, c);
  shmem_finalize();
  return 0;
}
