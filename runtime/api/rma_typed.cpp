// Typed RMA for every standard RMA type, stamped from the type table.
#include "rma/host_rma.hpp"
#include "shmem.h"

using namespace gpushmem;

#define GPUSHMEM_DEFINE_TYPED_RMA(T, N)                                                       \
  GPUSHMEM_EXPORT void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe) {     \
    rma::put<T>("shmem_" #N "_put", dest, source, nelems, pe);                                \
  }                                                                                           \
  GPUSHMEM_EXPORT void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe) {     \
    rma::get<T>("shmem_" #N "_get", dest, source, nelems, pe);                                \
  }                                                                                           \
  GPUSHMEM_EXPORT void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe) { \
    rma::put_nbi<T>("shmem_" #N "_put_nbi", dest, source, nelems, pe);                        \
  }                                                                                           \
  GPUSHMEM_EXPORT void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe) { \
    rma::get<T>("shmem_" #N "_get_nbi", dest, source, nelems, pe);                            \
  }                                                                                           \
  GPUSHMEM_EXPORT void shmem_##N##_p(T *dest, T value, int pe) {                              \
    rma::p<T>("shmem_" #N "_p", dest, value, pe);                                             \
  }                                                                                           \
  GPUSHMEM_EXPORT T shmem_##N##_g(const T *source, int pe) {                                  \
    return rma::g<T>("shmem_" #N "_g", source, pe);                                           \
  }
GPUSHMEM_RMA_TYPES(GPUSHMEM_DEFINE_TYPED_RMA)
