// <gpushmem/proxy_channel.h> alone, as C++ (its layout assertions and constexpr packing).
#include <gpushmem/proxy_channel.h>

static_assert(gpushmem_proxy_header_flags(gpushmem_proxy_header(1, 2, 0xa5, 3)) == 0xa5, "flags round-trip");

uint32_t header_alone_proxy_channel_h_cpp(const gpushmem_proxy_slot_t *s) {
  return gpushmem_proxy_header_seq(s->header);
}
