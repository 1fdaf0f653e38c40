// <gpushmem/bootstrap_plugin.h> alone, as strict C++.
#include <gpushmem/bootstrap_plugin.h>

int header_alone_bootstrap_plugin_h_cpp(const gpushmem_bootstrap_t *b) {
  gpushmem_bootstrap_init_fn init = nullptr;
  (void)init;
  return b->abi_version == GPUSHMEM_BOOTSTRAP_ABI_VERSION ? GPUSHMEM_BOOTSTRAP_OK : GPUSHMEM_BOOTSTRAP_EINVAL;
}
