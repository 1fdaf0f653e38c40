/* Uses an NVSHMEM name gpushmem has no equivalent for: must not compile (pe.compat.nvshmem_missing_*). */
#include <nvshmem.h>
#include <nvshmemx.h>

int main(void) {
  nvshmem_init();
  int *p = (int *)nvshmem_malloc(sizeof(int));
#if defined(USE_HALF)
  nvshmem_half_p(0, 0, 0);
#else
  void *mc = (void *)(long)nvshmemx_mc_ptr(NVSHMEM_TEAM_WORLD, p);
  (void)mc;
#endif
  nvshmem_finalize();
  return 0;
}
