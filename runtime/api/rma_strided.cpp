// Strided RMA: shmem_TYPE_iput / iget for every standard RMA type and shmem_iputSIZE / igetSIZE, stamped from
// the type table over one template per direction (rma/host_strided.hpp).
#include "rma/host_strided.hpp"
#include "shmem.h"

using namespace gpushmem;

namespace gpushmem::rma {

void fail_stride(const char *call, const char *arg, ptrdiff_t stride) {
  api::fail(call, "%s=%td: strides count elements and must be at least 1", arg, stride);
}

void fail_strided_extent(const char *call, const char *arg, ptrdiff_t stride, size_t nelems, size_t elem_bytes) {
  api::fail(call, "%s=%td with nelems=%zu elements of %zu bytes spans more than the address space", arg, stride, nelems,
            elem_bytes);
}

}  // namespace gpushmem::rma

#define GPUSHMEM_DEFINE_STRIDED(T, N)                                                                          \
  GPUSHMEM_EXPORT void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                                        int pe) {                                                              \
    rma::iput<sizeof(T)>("shmem_" #N "_iput", dest, source, dst, sst, nelems, pe);                             \
  }                                                                                                            \
  GPUSHMEM_EXPORT void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                                        int pe) {                                                              \
    rma::iget<sizeof(T)>("shmem_" #N "_iget", dest, source, dst, sst, nelems, pe);                             \
  }
GPUSHMEM_RMA_TYPES(GPUSHMEM_DEFINE_STRIDED)

#define GPUSHMEM_DEFINE_SIZED_STRIDED(S)                                                                          \
  GPUSHMEM_EXPORT void shmem_iput##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                                     int pe) {                                                                    \
    rma::iput<(S) / 8>("shmem_iput" #S, dest, source, dst, sst, nelems, pe);                                      \
  }                                                                                                               \
  GPUSHMEM_EXPORT void shmem_iget##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                                     int pe) {                                                                    \
    rma::iget<(S) / 8>("shmem_iget" #S, dest, source, dst, sst, nelems, pe);                                      \
  }
GPUSHMEM_RMA_SIZES(GPUSHMEM_DEFINE_SIZED_STRIDED)
