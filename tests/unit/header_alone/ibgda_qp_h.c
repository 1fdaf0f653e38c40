/* <gpushmem/ibgda_qp.h> alone, as strict C11. */
#include <gpushmem/ibgda_qp.h>

uint32_t header_alone_ibgda_qp_h_c(const gpushmem_ibgda_qp_t *q) {
  return q->wqebbs + q->words->lock;
}
