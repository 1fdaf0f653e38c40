// Byte and sized RMA: shmem_putmem / getmem (+ _nbi) and shmem_put{8..128} / get{8..128} (+ _nbi).
#include "rma/host_rma.hpp"
#include "shmem.h"

using namespace gpushmem;

GPUSHMEM_EXPORT void shmem_putmem(void *dest, const void *source, size_t nelems, int pe) {
  rma::put_bytes("shmem_putmem", dest, source, nelems, 1, pe);
}
GPUSHMEM_EXPORT void shmem_getmem(void *dest, const void *source, size_t nelems, int pe) {
  rma::get_bytes("shmem_getmem", dest, source, nelems, 1, pe);
}
// Load/store transfers finish at once, so the non-blocking forms are the blocking ones; quiet still
// provides the remote-visibility fence they need.
GPUSHMEM_EXPORT void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe) {
  rma::put_bytes_nbi("shmem_putmem_nbi", dest, source, nelems, 1, pe);
}
GPUSHMEM_EXPORT void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe) {
  rma::get_bytes("shmem_getmem_nbi", dest, source, nelems, 1, pe);
}

#define GPUSHMEM_DEFINE_SIZED_RMA(S)                                                               \
  GPUSHMEM_EXPORT void shmem_put##S(void *dest, const void *source, size_t nelems, int pe) {       \
    rma::put_bytes("shmem_put" #S, dest, source, nelems, S / 8, pe);                               \
  }                                                                                                \
  GPUSHMEM_EXPORT void shmem_get##S(void *dest, const void *source, size_t nelems, int pe) {       \
    rma::get_bytes("shmem_get" #S, dest, source, nelems, S / 8, pe);                               \
  }                                                                                                \
  GPUSHMEM_EXPORT void shmem_put##S##_nbi(void *dest, const void *source, size_t nelems, int pe) { \
    rma::put_bytes_nbi("shmem_put" #S "_nbi", dest, source, nelems, S / 8, pe);                    \
  }                                                                                                \
  GPUSHMEM_EXPORT void shmem_get##S##_nbi(void *dest, const void *source, size_t nelems, int pe) { \
    rma::get_bytes("shmem_get" #S "_nbi", dest, source, nelems, S / 8, pe);                        \
  }
GPUSHMEM_RMA_SIZES(GPUSHMEM_DEFINE_SIZED_RMA)
