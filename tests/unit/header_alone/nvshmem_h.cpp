// <nvshmem.h> of gpushmem/compat/nvshmem alone, as C++.
#include <nvshmem.h>
#include <nvshmemx.h>

int header_alone_nvshmem_h_cpp() {
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  (void)nvshmemx_set_attr_uniqueid_args(0, 1, &id, &attr);
  int major = 0, minor = 0, patch = 0;
  nvshmemx_vendor_get_version_info(&major, &minor, &patch);
  return attr.uid_args.nranks + major + NVSHMEM_SIGNAL_SET + static_cast<int>(sizeof(nvshmem_team_t));
}
