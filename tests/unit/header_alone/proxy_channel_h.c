/* <gpushmem/proxy_channel.h> alone, as strict C11. */
#include <gpushmem/proxy_channel.h>

uint32_t header_alone_proxy_channel_h_c(const gpushmem_proxy_slot_t *s) {
  return gpushmem_proxy_header_op(s->header) + gpushmem_proxy_header_pe(s->header);
}
