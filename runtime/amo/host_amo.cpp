// The out-of-line failure paths of host_amo.hpp and host_signal_wait.hpp.
#include "amo/host_amo.hpp"
#include "amo/host_signal_wait.hpp"

namespace gpushmem::amo {

void fail_gpu_word(const char *call, const char *arg) {
  api::fail(call,
            "%s is in the GPU symmetric heap: host atomics on GPU memory are not supported yet: use the device "
            "API (call it from a kernel) or allocate the word in the host heap",
            arg);
}

void fail_misaligned(const char *call, const char *arg, const void *addr, size_t bytes) {
  api::fail(call, "%s=%p is not aligned to %zu bytes: atomics need naturally aligned words", arg, addr, bytes);
}

void fail_bad_cmp(const char *call, int cmp) {
  api::fail(call, "cmp=%d is not a comparison: pass SHMEM_CMP_EQ, _NE, _GT, _GE, _LT or _LE", cmp);
}

void fail_bad_sig_op(const char *call, int sig_op) {
  api::fail(call, "sig_op=%d is not a signal operator: pass SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD", sig_op);
}

void fail_null(const char *call, const char *arg, size_t nelems) {
  if (nelems == 1) api::fail(call, "%s is NULL: pass the address of a local object to store the result in", arg);
  api::fail(call, "%s is NULL with nelems=%zu: pass an array of at least nelems elements", arg, nelems);
}

}  // namespace gpushmem::amo
