// <gpushmem/ibgda_qp.h> alone, as C++ (its layout assertions).
#include <gpushmem/ibgda_qp.h>

uint32_t header_alone_ibgda_qp_h_cpp(const gpushmem_ibgda_qp_t *q) {
  return q->qpn;
}
