/* <gpushmem/device_error.h> alone, as strict C11. */
#include <gpushmem/device_error.h>

uint32_t header_alone_device_error_h_c(const gpushmem_device_error_t *e) {
  return e->state == 2 ? e->kind : (uint32_t)GPUSHMEM_DEVICE_ERROR_NONE;
}
