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

// Events: every form, and the waits.
__global__ void compile_events(char *dest, const char *src, size_t n, uint64_t *sig, int pe, shmemx_event_t *out) {
  shmemx_event_t ev[9];
  ev[0] = shmemx_putmem_nbi_event(dest, src, n, pe);
  ev[1] = shmemx_putmem_nbi_event_warp(dest, src, n, pe);
  ev[2] = shmemx_putmem_nbi_event_block(dest, src, n, pe);
  ev[3] = shmemx_getmem_nbi_event(dest, src, n, pe);
  ev[4] = shmemx_getmem_nbi_event_warp(dest, src, n, pe);
  ev[5] = shmemx_getmem_nbi_event_block(dest, src, n, pe);
  ev[6] = shmemx_putmem_signal_nbi_event(dest, src, n, sig, 1, SHMEM_SIGNAL_SET, pe);
  ev[7] = shmemx_putmem_signal_nbi_event_warp(dest, src, n, sig, 1, SHMEM_SIGNAL_ADD, pe);
  ev[8] = shmemx_putmem_signal_nbi_event_block(dest, src, n, sig, 1, SHMEM_SIGNAL_SET, pe);
  out[0] = static_cast<shmemx_event_t>(shmemx_event_test(ev[0]));
  shmemx_event_wait(ev[1]);
  shmemx_event_wait_all(ev, 9);
  out[1] = shmemx_event_wait_any(ev, 9);
  out[2] = SHMEMX_EVENT_COMPLETE;
}

void compile_signal_host(uint64_t *sig, uint64_t value, uint64_t *out) {
  out[0] = shmem_signal_fetch(sig);
  out[1] = shmem_signal_wait_until(sig, SHMEM_CMP_GE, value);
}
