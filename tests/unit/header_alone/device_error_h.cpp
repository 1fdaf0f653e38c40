// <gpushmem/device_error.h> alone, as C++ (its layout assertions).
#include <gpushmem/device_error.h>

static_assert(sizeof(gpushmem_device_error_t::call) == GPUSHMEM_DEVICE_ERROR_CALL_BYTES, "call field");

int64_t header_alone_device_error_h_cpp(const gpushmem_device_error_t *e) {
  return e->value;
}
