/* <gpushmem/bootstrap_plugin.h> alone, as strict C11 (plugins are written in C). */
#include <gpushmem/bootstrap_plugin.h>

int header_alone_bootstrap_plugin_h_c(const gpushmem_bootstrap_t *b) {
  gpushmem_bootstrap_init_fn init = 0;
  (void)init;
  return b->abi_version == GPUSHMEM_BOOTSTRAP_ABI_VERSION ? GPUSHMEM_BOOTSTRAP_OK : GPUSHMEM_BOOTSTRAP_EINVAL;
}
