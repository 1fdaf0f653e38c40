/* Misbehaving bootstrap plugins for the loader's unit tests, one per FAKE_* definition:
 *   FAKE_ABI_MISMATCH  fills the table but reports abi_version 999
 *   FAKE_SHORT_TABLE   reports a struct_size smaller than the ABI's table
 *   FAKE_ENOLAUNCHER   init fails with GPUSHMEM_BOOTSTRAP_ENOLAUNCHER
 *   FAKE_BAD_RANK      reports rank 2 of a size-2 job
 *   FAKE_MINIMAL       fills only the header fields: the loader must stub every entry
 */
#include <string.h>

#include "gpushmem/bootstrap_plugin.h"

static int fake_barrier(gpushmem_bootstrap_t *b) {
  (void)b;
  return GPUSHMEM_BOOTSTRAP_OK;
}

__attribute__((visibility("default"))) int gpushmem_bootstrap_plugin_init_v1(const gpushmem_bootstrap_args_t *args,
                                                                             gpushmem_bootstrap_t *out) {
  (void)args;
  memset(out, 0, sizeof *out);
  out->abi_version = GPUSHMEM_BOOTSTRAP_ABI_VERSION;
  out->struct_size = sizeof *out;
  out->name = "fake";
  out->rank = 0;
  out->size = 1;
  out->barrier = fake_barrier;
#if defined(FAKE_ABI_MISMATCH)
  out->abi_version = 999;
#elif defined(FAKE_SHORT_TABLE)
  out->struct_size = 16;
#elif defined(FAKE_ENOLAUNCHER)
  return GPUSHMEM_BOOTSTRAP_ENOLAUNCHER;
#elif defined(FAKE_BAD_RANK)
  out->rank = 2;
  out->size = 2;
#elif defined(FAKE_MINIMAL)
  out->barrier = NULL;
#else
#error "define one FAKE_* mode"
#endif
  return GPUSHMEM_BOOTSTRAP_OK;
}
