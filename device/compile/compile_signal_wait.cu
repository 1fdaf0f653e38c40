// Compile test (built everywhere nvcc is, never run): the signal routines and every wait_until / test
// form (single, _all, _any, _some, their _vector forms) for every T-AMO type, typed and generic, from kernels
// and, through the same macro, from host functions (asm-labelled calls the link check resolves).
#include <shmem.h>
#include <shmemx.h>

#define EACH_SIDE_WAIT(T, N, QUAL, SIDE)                                                                             \
  QUAL void compile_wait_##N##SIDE(T *ivars, size_t n, size_t *indices, const int *status, T value, const T *values, \
                                   size_t *out) {                                                                    \
    shmem_##N##_wait_until(ivars, SHMEM_CMP_GE, value);                                                              \
    out[0] = static_cast<size_t>(shmem_##N##_test(ivars, SHMEM_CMP_EQ, value));                                      \
    shmem_##N##_wait_until_all(ivars, n, status, SHMEM_CMP_NE, value);                                               \
    out[1] = shmem_##N##_wait_until_any(ivars, n, status, SHMEM_CMP_GT, value);                                      \
    out[2] = shmem_##N##_wait_until_some(ivars, n, indices, status, SHMEM_CMP_LE, value);                            \
    out[3] = static_cast<size_t>(shmem_##N##_test_all(ivars, n, status, SHMEM_CMP_LT, value));                       \
    out[4] = shmem_##N##_test_any(ivars, n, status, SHMEM_CMP_GE, value);                                            \
    out[5] = shmem_##N##_test_some(ivars, n, indices, status, SHMEM_CMP_EQ, value);                                  \
    shmem_##N##_wait_until_all_vector(ivars, n, status, SHMEM_CMP_NE, values);                                       \
    out[6] = shmem_##N##_wait_until_any_vector(ivars, n, status, SHMEM_CMP_GT, values);                              \
    out[7] = shmem_##N##_wait_until_some_vector(ivars, n, indices, status, SHMEM_CMP_LE, values);                    \
    out[8] = static_cast<size_t>(shmem_##N##_test_all_vector(ivars, n, status, SHMEM_CMP_LT, values));               \
    out[9] = shmem_##N##_test_any_vector(ivars, n, status, SHMEM_CMP_GE, values);                                    \
    out[10] = shmem_##N##_test_some_vector(ivars, n, indices, status, SHMEM_CMP_EQ, values);                         \
    shmem_wait_until(ivars, SHMEM_CMP_GE, value);                                                                    \
    out[11] = static_cast<size_t>(shmem_test(ivars, SHMEM_CMP_EQ, value));                                           \
    shmem_wait_until_all(ivars, n, status, SHMEM_CMP_NE, value);                                                     \
    out[12] = shmem_wait_until_any(ivars, n, status, SHMEM_CMP_GT, value);                                           \
    out[13] = shmem_wait_until_some(ivars, n, indices, status, SHMEM_CMP_LE, value);                                 \
    out[14] = static_cast<size_t>(shmem_test_all(ivars, n, status, SHMEM_CMP_LT, value));                            \
    out[15] = shmem_test_any(ivars, n, status, SHMEM_CMP_GE, value);                                                 \
    out[16] = shmem_test_some(ivars, n, indices, status, SHMEM_CMP_EQ, value);                                       \
    shmem_wait_until_all_vector(ivars, n, status, SHMEM_CMP_NE, values);                                             \
    out[17] = shmem_wait_until_any_vector(ivars, n, status, SHMEM_CMP_GT, values);                                   \
    out[18] = shmem_wait_until_some_vector(ivars, n, indices, status, SHMEM_CMP_LE, values);                         \
    out[19] = static_cast<size_t>(shmem_test_all_vector(ivars, n, status, SHMEM_CMP_LT, values));                    \
    out[20] = shmem_test_any_vector(ivars, n, status, SHMEM_CMP_GE, values);                                         \
    out[21] = shmem_test_some_vector(ivars, n, indices, status, SHMEM_CMP_EQ, values);                               \
  }
#define KERNEL_WAIT(T, N) EACH_SIDE_WAIT(T, N, __global__, ) EACH_SIDE_WAIT(T, N, , _host)
GPUSHMEM_AMO_TYPES(KERNEL_WAIT)

__global__ void compile_signal(uint64_t *sig, uint64_t value, int pe, uint64_t *out) {
  out[0] = shmem_signal_fetch(sig);
  out[1] = shmem_signal_wait_until(sig, SHMEM_CMP_GE, value);
  shmemx_signal_op(sig, value, SHMEM_SIGNAL_SET, pe);
  shmemx_signal_op(sig, value, SHMEM_SIGNAL_ADD, pe);
}

void compile_signal_host(uint64_t *sig, uint64_t value, uint64_t *out) {
  out[0] = shmem_signal_fetch(sig);
  out[1] = shmem_signal_wait_until(sig, SHMEM_CMP_GE, value);
}
