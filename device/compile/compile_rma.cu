// Compile test (built everywhere nvcc is, never run): every RMA name of the device API, for every type
// of the table, in thread, warp and block scope, called from a kernel so nvcc compiles it for the
// device; and every host/device RMA name called from host code, so the link check resolves its asm
// label against libgpushmem.
#include <shmem.h>
#include <shmemx.h>

#define KERNEL_TYPED_RMA(T, N)                                                                           \
  __global__ void compile_rma_##N(T *dest, const T *src, size_t n, ptrdiff_t dst, ptrdiff_t sst, int pe, \
                                  uint64_t *sig, T *out) {                                               \
    shmem_##N##_put(dest, src, n, pe);                                                                   \
    shmem_##N##_get(dest, src, n, pe);                                                                   \
    shmem_##N##_put_nbi(dest, src, n, pe);                                                               \
    shmem_##N##_get_nbi(dest, src, n, pe);                                                               \
    shmem_##N##_p(dest, src[0], pe);                                                                     \
    out[0] = shmem_##N##_g(src, pe);                                                                     \
    shmem_##N##_iput(dest, src, dst, sst, n, pe);                                                        \
    shmem_##N##_iget(dest, src, dst, sst, n, pe);                                                        \
    shmem_##N##_put_signal(dest, src, n, sig, 1, SHMEM_SIGNAL_SET, pe);                                  \
    shmem_##N##_put_signal_nbi(dest, src, n, sig, 1, SHMEM_SIGNAL_ADD, pe);                              \
    shmem_put(dest, src, n, pe);                                                                         \
    shmem_get(dest, src, n, pe);                                                                         \
    shmem_put_nbi(dest, src, n, pe);                                                                     \
    shmem_get_nbi(dest, src, n, pe);                                                                     \
    shmem_p(dest, src[1], pe);                                                                           \
    out[1] = shmem_g(src, pe);                                                                           \
    shmem_iput(dest, src, dst, sst, n, pe);                                                              \
    shmem_iget(dest, src, dst, sst, n, pe);                                                              \
    shmem_put_signal(dest, src, n, sig, 1, SHMEM_SIGNAL_SET, pe);                                        \
    shmem_put_signal_nbi(dest, src, n, sig, 1, SHMEM_SIGNAL_SET, pe);                                    \
    COMPILE_COOP_TYPED(N, warp)                                                                          \
    COMPILE_COOP_TYPED(N, block)                                                                         \
  }
#define COMPILE_COOP_TYPED(N, SCOPE)                                           \
  shmemx_##N##_put_##SCOPE(dest, src, n, pe);                                  \
  shmemx_##N##_get_##SCOPE(dest, src, n, pe);                                  \
  shmemx_##N##_put_nbi_##SCOPE(dest, src, n, pe);                              \
  shmemx_##N##_get_nbi_##SCOPE(dest, src, n, pe);                              \
  shmemx_##N##_iput_##SCOPE(dest, src, dst, sst, n, pe);                       \
  shmemx_##N##_iget_##SCOPE(dest, src, dst, sst, n, pe);                       \
  shmemx_##N##_put_signal_##SCOPE(dest, src, n, sig, 1, SHMEM_SIGNAL_SET, pe); \
  shmemx_##N##_put_signal_nbi_##SCOPE(dest, src, n, sig, 1, SHMEM_SIGNAL_ADD, pe);
GPUSHMEM_DEVICE_RMA_TYPES(KERNEL_TYPED_RMA)

#define COMPILE_COOP_SIZED(S, SCOPE)                                          \
  shmemx_put##S##_##SCOPE(dest, src, n, pe);                                  \
  shmemx_get##S##_##SCOPE(dest, src, n, pe);                                  \
  shmemx_put##S##_nbi_##SCOPE(dest, src, n, pe);                              \
  shmemx_get##S##_nbi_##SCOPE(dest, src, n, pe);                              \
  shmemx_iput##S##_##SCOPE(dest, src, dst, sst, n, pe);                       \
  shmemx_iget##S##_##SCOPE(dest, src, dst, sst, n, pe);                       \
  shmemx_put##S##_signal_##SCOPE(dest, src, n, sig, 1, SHMEM_SIGNAL_SET, pe); \
  shmemx_put##S##_signal_nbi_##SCOPE(dest, src, n, sig, 1, SHMEM_SIGNAL_ADD, pe);
#define KERNEL_SIZED_RMA(S)                                                                                          \
  __global__ void compile_rma_sized_##S(void *dest, const void *src, size_t n, ptrdiff_t dst, ptrdiff_t sst, int pe, \
                                        uint64_t *sig) {                                                             \
    shmem_put##S(dest, src, n, pe);                                                                                  \
    shmem_get##S(dest, src, n, pe);                                                                                  \
    shmem_put##S##_nbi(dest, src, n, pe);                                                                            \
    shmem_get##S##_nbi(dest, src, n, pe);                                                                            \
    shmem_iput##S(dest, src, dst, sst, n, pe);                                                                       \
    shmem_iget##S(dest, src, dst, sst, n, pe);                                                                       \
    shmem_put##S##_signal(dest, src, n, sig, 1, SHMEM_SIGNAL_SET, pe);                                               \
    shmem_put##S##_signal_nbi(dest, src, n, sig, 1, SHMEM_SIGNAL_ADD, pe);                                           \
    COMPILE_COOP_SIZED(S, warp)                                                                                      \
    COMPILE_COOP_SIZED(S, block)                                                                                     \
  }
GPUSHMEM_RMA_SIZES(KERNEL_SIZED_RMA)

#define COMPILE_COOP_MEM(SCOPE)                                             \
  shmemx_putmem_##SCOPE(dest, src, n, pe);                                  \
  shmemx_getmem_##SCOPE(dest, src, n, pe);                                  \
  shmemx_putmem_nbi_##SCOPE(dest, src, n, pe);                              \
  shmemx_getmem_nbi_##SCOPE(dest, src, n, pe);                              \
  shmemx_putmem_signal_##SCOPE(dest, src, n, sig, 1, SHMEM_SIGNAL_SET, pe); \
  shmemx_putmem_signal_nbi_##SCOPE(dest, src, n, sig, 1, SHMEM_SIGNAL_ADD, pe);
__global__ void compile_rma_mem(void *dest, const void *src, size_t n, int pe, uint64_t *sig) {
  shmem_putmem(dest, src, n, pe);
  shmem_getmem(dest, src, n, pe);
  shmem_putmem_nbi(dest, src, n, pe);
  shmem_getmem_nbi(dest, src, n, pe);
  shmem_putmem_signal(dest, src, n, sig, 1, SHMEM_SIGNAL_SET, pe);
  shmem_putmem_signal_nbi(dest, src, n, sig, 1, SHMEM_SIGNAL_ADD, pe);
  COMPILE_COOP_MEM(warp)
  COMPILE_COOP_MEM(block)
}

// Host side: the same names compiled for the host call the exported symbols (long double included).
#define HOST_TYPED_RMA(T, N)                                                          \
  void compile_host_rma_##N(T *dest, const T *src, size_t n, int pe, uint64_t *sig) { \
    shmem_##N##_put(dest, src, n, pe);                                                \
    shmem_##N##_get(dest, src, n, pe);                                                \
    shmem_##N##_put_nbi(dest, src, n, pe);                                            \
    shmem_##N##_get_nbi(dest, src, n, pe);                                            \
    shmem_##N##_p(dest, src[0], pe);                                                  \
    dest[1] = shmem_##N##_g(src, pe);                                                 \
    shmem_put(dest, src, n, pe);                                                      \
    shmem_get(dest, src, n, pe);                                                      \
    shmem_put_nbi(dest, src, n, pe);                                                  \
    shmem_get_nbi(dest, src, n, pe);                                                  \
    shmem_p(dest, src[1], pe);                                                        \
    dest[2] = shmem_g(src, pe);                                                       \
    shmem_##N##_put_signal(dest, src, n, sig, 1, SHMEM_SIGNAL_SET, pe);               \
    shmem_##N##_put_signal_nbi(dest, src, n, sig, 1, SHMEM_SIGNAL_ADD, pe);           \
    shmem_put_signal(dest, src, n, sig, 1, SHMEM_SIGNAL_SET, pe);                     \
    shmem_put_signal_nbi(dest, src, n, sig, 1, SHMEM_SIGNAL_ADD, pe);                 \
    shmem_##N##_iput(dest, src, 2, 1, n, pe);                                         \
    shmem_##N##_iget(dest, src, 1, 2, n, pe);                                         \
    shmem_iput(dest, src, 2, 1, n, pe);                                               \
    shmem_iget(dest, src, 1, 2, n, pe);                                               \
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;                                              \
    shmem_ctx_##N##_put(ctx, dest, src, n, pe);                                       \
    shmem_ctx_##N##_iget(ctx, dest, src, 1, 2, n, pe);                                \
    shmem_put(ctx, dest, src, n, pe);                                                 \
    shmem_get_nbi(ctx, dest, src, n, pe);                                             \
    shmem_p(ctx, dest, src[1], pe);                                                   \
    dest[3] = shmem_g(ctx, src, pe);                                                  \
    shmem_iput(ctx, dest, src, 2, 1, n, pe);                                          \
    shmem_put_signal(ctx, dest, src, n, sig, 1, SHMEM_SIGNAL_SET, pe);                \
  }
GPUSHMEM_RMA_TYPES(HOST_TYPED_RMA)

#define HOST_SIZED_RMA(S)                                                                         \
  void compile_host_rma_sized_##S(void *dest, const void *src, size_t n, int pe, uint64_t *sig) { \
    shmem_put##S(dest, src, n, pe);                                                               \
    shmem_get##S(dest, src, n, pe);                                                               \
    shmem_put##S##_nbi(dest, src, n, pe);                                                         \
    shmem_get##S##_nbi(dest, src, n, pe);                                                         \
    shmem_put##S##_signal(dest, src, n, sig, 1, SHMEM_SIGNAL_SET, pe);                            \
    shmem_put##S##_signal_nbi(dest, src, n, sig, 1, SHMEM_SIGNAL_ADD, pe);                        \
    shmem_iput##S(dest, src, 2, 1, n, pe);                                                        \
    shmem_iget##S(dest, src, 1, 2, n, pe);                                                        \
    shmem_ctx_iput##S(SHMEM_CTX_DEFAULT, dest, src, 2, 1, n, pe);                                 \
    shmem_ctx_get##S##_nbi(SHMEM_CTX_DEFAULT, dest, src, n, pe);                                  \
  }
GPUSHMEM_RMA_SIZES(HOST_SIZED_RMA)

void compile_host_rma_mem(void *dest, const void *src, size_t n, int pe, uint64_t *sig) {
  shmem_putmem_signal(dest, src, n, sig, 1, SHMEM_SIGNAL_SET, pe);
  shmem_putmem_signal_nbi(dest, src, n, sig, 1, SHMEM_SIGNAL_ADD, pe);
  shmem_putmem(dest, src, n, pe);
  shmem_getmem(dest, src, n, pe);
  shmem_putmem_nbi(dest, src, n, pe);
  shmem_getmem_nbi(dest, src, n, pe);
}
