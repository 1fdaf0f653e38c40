/* <nvshmem.h> of gpushmem/compat/nvshmem alone, as strict C11. */
#include <nvshmem.h>
#include <nvshmemx.h>

int header_alone_nvshmem_h_c(void) {
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  (void)nvshmemx_set_attr_uniqueid_args(0, 1, &id, &attr);
  return attr.uid_args.nranks + NVSHMEM_CMP_EQ + (int)sizeof(nvshmem_team_t) + (int)NVSHMEMX_INIT_WITH_MPI_COMM;
}
