/* The C11 generic names (shmem_put, shmem_p, shmem_g, ... built on _Generic) used inside code stamped
   from the type table, as a test that checks every type does. This compiles only if the _Generic
   association lists do not expand through the same group macros (GPUSHMEM_TYPES_*) as GPUSHMEM_RMA_TYPES:
   a macro is not expanded again inside its own expansion, so the nested list would stay unexpanded. */
#include <shmem.h>

#define STAMP(T, N)                                                             \
  T generic_in_xmacro_##N(T *dest, const T *source, size_t n) {                 \
    shmem_put(dest, source, n, 0);                                              \
    shmem_get(dest, source, n, 0);                                              \
    shmem_put_nbi(dest, source, n, 0);                                          \
    shmem_get_nbi(dest, source, n, 0);                                          \
    shmem_p(dest, *source, 0);                                                  \
    shmem_iput(dest, source, 2, 1, n, 0);                                       \
    shmem_iget(dest, source, 1, 2, n, 0);                                       \
    shmem_put(SHMEM_CTX_DEFAULT, dest, source, n, 0);                           \
    shmem_get_nbi(SHMEM_CTX_DEFAULT, dest, source, n, 0);                       \
    shmem_iput(SHMEM_CTX_DEFAULT, dest, source, 1, 1, n, 0);                    \
    shmem_p(SHMEM_CTX_DEFAULT, dest, shmem_g(SHMEM_CTX_DEFAULT, source, 0), 0); \
    return shmem_g(source, 0);                                                  \
  }
GPUSHMEM_RMA_TYPES(STAMP)
