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
 *   iput_zero_stride the last PE calls shmem_int_iput with dst = 0
 *   iget_negative_stride  the last PE calls shmem_iget64 with sst = -2
 *   ctx_after_destroy     the last PE puts on a context it destroyed
 *   ctx_double_destroy    the last PE destroys a context twice
 *   ctx_invalid           the last PE puts on SHMEM_CTX_INVALID
 *   ctx_not_a_ctx         the last PE passes a made-up handle
 *   ctx_bad_options       the last PE asks shmem_ctx_create for an option bit that does not exist
 *   ctx_destroy_default   the last PE destroys SHMEM_CTX_DEFAULT
 *   ctx_private_thread    the last PE uses a SHMEM_CTX_PRIVATE context from a thread that did not create it
 *   ctx_team_pe_range     the last PE puts to PE n on a context of SHMEM_TEAM_SHARED (n PEs)
 *   ctx_team_destroyed    every PE makes a context of a new team, the team is destroyed, the last PE uses it
 *   put_null_source  the last PE calls shmem_long_put with source = NULL and nelems = 4
 *   get_null_dest    the last PE calls shmem_getmem_nbi with dest = NULL and nelems = 8
 *   iput_null_source the last PE calls shmem_long_iput with source = NULL and nelems = 4
 *   iget_null_dest   the last PE calls shmem_long_iget with dest = NULL and nelems = 4
 *   put_zero_bad_pe  the last PE calls shmem_putmem with nelems = 0 and pe = -1
 *   put_overflow     the last PE calls shmem_put64_signal with nelems whose byte count overflows size_t
 *   after_finalize   shmem_long_p after shmem_finalize
 *   free_twice       every PE frees one allocation twice (shmem_free is collective)
 *   free_foreign     the last PE passes malloc's memory to shmem_free
 *   free_inner       the last PE passes a pointer into an allocation (not its start) to shmem_free
 *   realloc_foreign  the last PE passes malloc's memory to shmem_realloc
 *   align_bad        the last PE asks shmem_align for an alignment that is not a power of two
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "pe_check.h"

static void *use_ctx(void *ctx) {
  static int value = 7;
  shmem_ctx_int_put((shmem_ctx_t)ctx, (int *)shmem_ptr(NULL, 0), &value, 0, 0);
  return NULL;
}

/* The context misuse cases: each ends the job inside the call. */
static void ctx_case(const char *c, int *x) {
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  if (strcmp(c, "ctx_bad_options") == 0) {
    (void)shmem_ctx_create(1L << 10, &ctx);
  } else if (strcmp(c, "ctx_destroy_default") == 0) {
    shmem_ctx_destroy(SHMEM_CTX_DEFAULT);
  } else if (strcmp(c, "ctx_team_pe_range") == 0) {
    if (shmem_team_create_ctx(SHMEM_TEAM_SHARED, 0, &ctx) == 0)
      shmem_ctx_int_p(ctx, x, 1, shmem_team_n_pes(SHMEM_TEAM_SHARED));
  } else if (strcmp(c, "ctx_invalid") == 0) {
    shmem_ctx_putmem(SHMEM_CTX_INVALID, x, x, sizeof *x, 0);
  } else if (strcmp(c, "ctx_not_a_ctx") == 0) {
    shmem_ctx_int_atomic_inc((shmem_ctx_t)(uintptr_t)0x1234, x, 0);
  } else if (shmem_ctx_create(strcmp(c, "ctx_private_thread") == 0 ? SHMEM_CTX_PRIVATE : 0, &ctx) == 0) {
    if (strcmp(c, "ctx_private_thread") == 0) {
      pthread_t thread;
      if (pthread_create(&thread, NULL, use_ctx, (void *)ctx) == 0) pthread_join(thread, NULL);
      return;
    }
    shmem_ctx_destroy(ctx);
    if (strcmp(c, "ctx_after_destroy") == 0) shmem_ctx_int_p(ctx, x, 1, 0);
    if (strcmp(c, "ctx_double_destroy") == 0) shmem_ctx_destroy(ctx);
  }
}

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
  } else if (strcmp(c, "iput_zero_stride") == 0) {
    int *x = (int *)shmem_malloc(8 * sizeof(int));
    int src[8] = {0};
    if (me == npes - 1) shmem_int_iput(x, src, 0, 1, 4, 0);
    shmem_barrier_all();
  } else if (strcmp(c, "iget_negative_stride") == 0) {
    uint64_t *x = (uint64_t *)shmem_malloc(8 * sizeof(uint64_t));
    uint64_t dst[8];
    if (me == npes - 1) shmem_iget64(dst, x + 7, 1, -2, 4, 0);
    shmem_barrier_all();
  } else if (strcmp(c, "ctx_team_destroyed") == 0) {
    int *x = (int *)shmem_malloc(sizeof(int));
    shmem_team_t team = SHMEM_TEAM_INVALID;
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &team) != 0 ||
        shmem_team_create_ctx(team, 0, &ctx) != 0) {
      fprintf(stderr, "errors: FAILED: cannot make the team or its context\n");
      return 0;
    }
    shmem_team_destroy(team);
    if (me == npes - 1) shmem_ctx_int_atomic_add(ctx, x, 1, 0);
    shmem_barrier_all();
  } else if (strncmp(c, "ctx_", 4) == 0) {
    int *x = (int *)shmem_malloc(sizeof(int));
    if (me == npes - 1) ctx_case(c, x);
    shmem_barrier_all();
  } else if (strcmp(c, "put_null_source") == 0 || strcmp(c, "get_null_dest") == 0 ||
             strcmp(c, "iput_null_source") == 0 || strcmp(c, "iget_null_dest") == 0 ||
             strcmp(c, "put_zero_bad_pe") == 0 || strcmp(c, "put_overflow") == 0) {
    long *x = (long *)shmem_malloc(8 * sizeof(long));
    uint64_t *sig = (uint64_t *)shmem_malloc(sizeof(uint64_t));
    long local[8] = {0};
    if (me == npes - 1) {
      if (strcmp(c, "put_null_source") == 0) shmem_long_put(x, NULL, 4, 0);
      if (strcmp(c, "get_null_dest") == 0) shmem_getmem_nbi(NULL, x, 8, 0);
      if (strcmp(c, "iput_null_source") == 0) shmem_long_iput(x, NULL, 1, 1, 4, 0);
      if (strcmp(c, "iget_null_dest") == 0) shmem_long_iget(NULL, x, 1, 1, 4, 0);
      if (strcmp(c, "put_zero_bad_pe") == 0) shmem_putmem(x, local, 0, -1);
      if (strcmp(c, "put_overflow") == 0) shmem_put64_signal(x, local, SIZE_MAX / 4, sig, 1, SHMEM_SIGNAL_SET, 0);
    }
    shmem_barrier_all();
  } else if (strcmp(c, "after_finalize") == 0) {
    long *x = (long *)shmem_malloc(sizeof(long));
    shmem_finalize();
    shmem_long_p(x, 1, 0);
    fprintf(stderr, "errors: FAILED: shmem_long_p after shmem_finalize returned\n");
    return 0;
  } else if (strncmp(c, "free_", 5) == 0 || strcmp(c, "realloc_foreign") == 0 || strcmp(c, "align_bad") == 0) {
    char *x = (char *)shmem_malloc(64);
    if (strcmp(c, "free_twice") == 0) {
      shmem_free(x);
      shmem_free(x);
    }
    if (me == npes - 1) {
      void *private_memory = malloc(64);
      if (strcmp(c, "free_foreign") == 0) shmem_free(private_memory);
      if (strcmp(c, "free_inner") == 0) shmem_free(x + 8);
      if (strcmp(c, "realloc_foreign") == 0) (void)shmem_realloc(private_memory, 128);
      if (strcmp(c, "align_bad") == 0) (void)shmem_align(3, 64);
      free(private_memory);
    }
    shmem_barrier_all();
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
