/*
 * Queries: my_pe / n_pes (argv[1] is the expected number of PEs), pe_accessible, addr_accessible (heap
 * yes, stack and malloc no), shmem_ptr for every PE of this node (SHMEM_TEAM_SHARED) with stores through it
 * seen by the owner and NULL for PEs of other nodes (virtual hosts), the others then written with shmem_int_p,
 * info_get_version / info_get_name, and with the argument "thread": shmem_init_thread and shmem_query_thread.
 */
#include <string.h>

#include "pe_check.h"

int main(int argc, char **argv) {
  const int expected_npes = argc > 1 ? atoi(argv[1]) : -1;
  const int thread_mode = argc > 2 && strcmp(argv[2], "thread") == 0;
  if (thread_mode) {
    int provided = -1;
    int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    PE_CHECK(rc == 0, "shmem_init_thread returned %d", rc);
    PE_CHECK(provided >= SHMEM_THREAD_SINGLE && provided <= SHMEM_THREAD_MULTIPLE,
             "shmem_init_thread: provided=%d is not a thread level", provided);
    int queried = -1;
    shmem_query_thread(&queried);
    PE_CHECK(queried == provided, "shmem_query_thread gave %d, shmem_init_thread provided %d", queried, provided);
  } else {
    shmem_init();
    int queried = -1;
    shmem_query_thread(&queried);
    PE_CHECK(queried >= SHMEM_THREAD_SINGLE && queried <= SHMEM_THREAD_MULTIPLE,
             "shmem_query_thread after shmem_init gave %d", queried);
  }
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  PE_CHECK(npes == expected_npes, "shmem_n_pes() = %d, the job has %d PEs", npes, expected_npes);
  PE_CHECK(me >= 0 && me < npes, "shmem_my_pe() = %d outside 0..%d", me, npes - 1);
  PE_CHECK(_my_pe() == me && _num_pes() == npes, "_my_pe/_num_pes disagree: %d/%d", _my_pe(), _num_pes());

  /* Every PE has a distinct number: each sets its bit on PE 0. */
  int *seen = (int *)shmem_calloc((size_t)npes, sizeof(int));
  shmem_int_p(&seen[me], 1, 0);
  shmem_barrier_all();
  if (me == 0)
    for (int pe = 0; pe < npes; ++pe) PE_CHECK(seen[pe] == 1, "no PE reported number %d", pe);

  /* Accessibility. */
  int *heap = (int *)shmem_malloc(64 * sizeof(int));
  int on_stack = 0;
  int *private_mem = (int *)malloc(sizeof(int));
  for (int pe = 0; pe < npes; ++pe) {
    PE_CHECK(shmem_pe_accessible(pe) == 1, "shmem_pe_accessible(%d) = 0", pe);
    PE_CHECK(shmem_addr_accessible(heap, pe) == 1, "shmem_addr_accessible(heap, %d) = 0", pe);
    PE_CHECK(shmem_addr_accessible(heap + 63, pe) == 1, "shmem_addr_accessible(heap + 63, %d) = 0", pe);
    PE_CHECK(shmem_addr_accessible(&on_stack, pe) == 0, "shmem_addr_accessible(stack, %d) = 1", pe);
    PE_CHECK(shmem_addr_accessible(private_mem, pe) == 0, "shmem_addr_accessible(malloc, %d) = 1", pe);
  }
  PE_CHECK(shmem_pe_accessible(-1) == 0, "shmem_pe_accessible(-1) = 1");
  PE_CHECK(shmem_pe_accessible(npes) == 0, "shmem_pe_accessible(n_pes) = 1");
  PE_CHECK(shmem_addr_accessible(heap, npes) == 0, "shmem_addr_accessible(heap, n_pes) = 1");

  /* shmem_ptr: a usable address for every PE of this node (SHMEM_TEAM_SHARED); stores through it are seen by
     the owner, and the own PE's pointer is the address itself. PEs of other nodes (virtual hosts) have none:
     they get the value through the network. */
  for (int i = 0; i < 64; ++i) heap[i] = -1;
  shmem_barrier_all();
  for (int pe = 0; pe < npes; ++pe) {
    int *remote = (int *)shmem_ptr(heap, pe);
    const int same_node = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED) >= 0;
    if (same_node)
      PE_CHECK(remote != NULL, "shmem_ptr(heap, %d) = NULL for a PE of this node", pe);
    else
      PE_CHECK(remote == NULL, "shmem_ptr(heap, %d) = %p for a PE of another node", pe, (void *)remote);
    if (pe == me) PE_CHECK(remote == heap, "shmem_ptr(heap, own PE) = %p, expected %p", (void *)remote, (void *)heap);
    if (remote != NULL)
      remote[me] = 1000 + me;
    else
      shmem_int_p(&heap[me], 1000 + me, pe);
  }
  PE_CHECK(shmem_ptr(&on_stack, 0) == NULL, "shmem_ptr(stack address, 0) is not NULL");
  shmem_barrier_all();
  for (int s = 0; s < npes; ++s)
    PE_CHECK(heap[s] == 1000 + s, "store through shmem_ptr by PE %d: expected %d, got %d", s, 1000 + s, heap[s]);
  for (int s = npes; s < 64; ++s) PE_CHECK(heap[s] == -1, "element %d changed to %d (nobody wrote it)", s, heap[s]);

  /* Library information. */
  int major = -1, minor = -1;
  shmem_info_get_version(&major, &minor);
  PE_CHECK(major == 1 && minor == 5, "shmem_info_get_version gave %d.%d, expected 1.5", major, minor);
  PE_CHECK(SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION == 5, "header version %d.%d", SHMEM_MAJOR_VERSION,
           SHMEM_MINOR_VERSION);
  char name[SHMEM_MAX_NAME_LEN + 1];
  memset(name, 'Z', sizeof name);
  shmem_info_get_name(name);
  size_t len = strnlen(name, sizeof name);
  PE_CHECK(len > 0 && len < SHMEM_MAX_NAME_LEN, "shmem_info_get_name: length %zu (not NUL-terminated within %d?)", len,
           SHMEM_MAX_NAME_LEN);
  PE_CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0, "shmem_info_get_name gave '%.*s', header says '%s'", (int)len, name,
           SHMEM_VENDOR_STRING);

  free(private_mem);
  shmem_free(heap);
  shmem_free(seen);
  return pe_finish(thread_mode ? "query thread" : "query");
}
