/*
 * An NVSHMEM-style host program in C, written here from NVSHMEM's documented API: it includes <nvshmem.h>
 * and <nvshmemx.h> and uses only nvshmem_ / nvshmemx_ / NVSHMEM_ names, built against gpushmem's compat
 * headers. Puts around a ring, an atomic add, a team reduction, a signal, a status and version query, and
 * checks every value.
 */
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>

static int failures;
#define EXPECT(cond, ...)                        \
  do {                                           \
    if (!(cond)) {                               \
      ++failures;                                \
      fprintf(stderr, "nvshmem_host: FAILED: "); \
      fprintf(stderr, __VA_ARGS__);              \
      fprintf(stderr, "\n");                     \
    }                                            \
  } while (0)

int main(void) {
  EXPECT(nvshmemx_init_status() == NVSHMEM_STATUS_NOT_INITIALIZED, "status before init");
  nvshmem_init();
  EXPECT(nvshmemx_init_status() == NVSHMEM_STATUS_IS_INITIALIZED, "status after init");
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  EXPECT(nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD) == me, "team_my_pe");
  EXPECT(nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE) >= 1, "node team");
  int *ring = (int *)nvshmem_calloc(4, sizeof(int));
  long *counter = (long *)nvshmem_calloc(1, sizeof(long));
  long *src = (long *)nvshmem_malloc(sizeof(long)), *sum = (long *)nvshmem_malloc(sizeof(long));
  uint64_t *sig = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));
  nvshmem_barrier_all();

  int mine[4] = {me, me + 1, me + 2, me + 3};
  nvshmem_int_put(ring, mine, 4, (me + 1) % n);
  nvshmem_long_atomic_add(counter, me + 1, 0);
  nvshmem_quiet();
  nvshmem_barrier_all();
  const int left = (me + n - 1) % n;
  for (int i = 0; i < 4; ++i) EXPECT(ring[i] == left + i, "ring[%d] = %d, want %d", i, ring[i], left + i);
  if (me == 0) EXPECT(*counter == (long)n * (n + 1) / 2, "counter %ld", *counter);

  *src = 10 + me;
  nvshmem_long_sum_reduce(NVSHMEM_TEAM_WORLD, sum, src, 1);
  EXPECT(*sum == 10L * n + (long)n * (n - 1) / 2, "sum_reduce %ld", *sum);

  nvshmem_putmem_signal(ring, mine, sizeof(int), sig, 7, NVSHMEM_SIGNAL_SET, (me + 1) % n);
  nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, 7);
  EXPECT(nvshmem_signal_fetch(sig) == 7, "signal");

  int major = 0, minor = 0, patch = 0;
  nvshmemx_vendor_get_version_info(&major, &minor, &patch);
  EXPECT(major == NVSHMEM_VENDOR_MAJOR_VERSION && minor == NVSHMEM_VENDOR_MINOR_VERSION, "version");
  EXPECT(nvshmemx_buffer_register(mine, sizeof mine) == 0, "buffer_register");
  EXPECT(nvshmemx_buffer_unregister(mine) == 0, "buffer_unregister");

  nvshmem_free(ring);
  nvshmem_free(counter);
  nvshmem_free(src);
  nvshmem_free(sum);
  nvshmem_free(sig);
  if (me == 0 && failures == 0) printf("nvshmem_host: %d PEs: ring, atomic, reduce, signal checked: PASS\n", n);
  nvshmem_finalize();
  return failures != 0;
}
