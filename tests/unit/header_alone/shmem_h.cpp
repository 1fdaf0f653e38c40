// <shmem.h> alone, as strict C++: it must bring everything it uses, and its overloads must resolve.
#include <shmem.h>

int header_alone_shmem_h_cpp(int *dest, long double *ld) {
  shmem_p(dest, 1, 0);
  shmem_iput(dest, dest, 2, 1, 1, 0);
  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
  shmem_p(ctx, dest, 2, 0);
  shmem_iget(ctx, dest, dest, 1, 2, 1, 0);
  (void)shmem_atomic_fetch_add(ctx, dest, 1, 0);
  (void)shmem_fadd(dest, 1, 0);
  shmem_put(ld, ld, 1, 0);
  return shmem_g(dest, 0) + shmem_g(ctx, dest, 0) + SHMEM_MAJOR_VERSION;
}

/* Locks (gpushmem/api/lock.h) and a deprecated generic AMO name (gpushmem/api/amo_deprecated_generic.h). */
int header_alone_shmem_h_cpp_lock(long *lock) {
  shmem_set_lock(lock);
  shmem_clear_lock(lock);
  return shmem_test_lock(lock) + (int)shmem_fadd(lock, 1L, 0);
}
