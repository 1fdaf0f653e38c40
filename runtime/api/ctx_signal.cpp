// The shmem_ctx_ forms of put-with-signal (every standard RMA type, SIZE and byte forms, blocking and _nbi),
// stamped from the type table. Each translates the PE through the context's team, then runs the same code as
// the form without ctx.
#include "amo/host_put_signal.hpp"
#include "ctx/ctx_table.hpp"
#include "shmem.h"

using namespace gpushmem;

#define GPUSHMEM_CTX_CALL(NAME) "shmem_ctx_" NAME

#define GPUSHMEM_DEFINE_CTX_BYTES_SIGNAL(NAME, ELEM)                                                    \
  GPUSHMEM_EXPORT void shmem_ctx_##NAME(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {      \
    amo::put_signal(GPUSHMEM_CTX_CALL(#NAME), dest, source, nelems, ELEM, sig_addr, signal, sig_op,     \
                    ctx::world_pe(GPUSHMEM_CTX_CALL(#NAME), ctx, pe), ctx::chan(ctx));                  \
  }
GPUSHMEM_DEFINE_CTX_BYTES_SIGNAL(putmem_signal, 1)
GPUSHMEM_DEFINE_CTX_BYTES_SIGNAL(putmem_signal_nbi, 1)
#define GPUSHMEM_DEFINE_CTX_SIZED_SIGNAL(S)                  \
  GPUSHMEM_DEFINE_CTX_BYTES_SIGNAL(put##S##_signal, (S) / 8) \
  GPUSHMEM_DEFINE_CTX_BYTES_SIGNAL(put##S##_signal_nbi, (S) / 8)
GPUSHMEM_RMA_SIZES(GPUSHMEM_DEFINE_CTX_SIZED_SIGNAL)

#define GPUSHMEM_DEFINE_CTX_TYPED_SIGNAL_ONE(T, N, OP)                                                        \
  GPUSHMEM_EXPORT void shmem_ctx_##N##_##OP(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,         \
                                            uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {        \
    amo::put_signal(GPUSHMEM_CTX_CALL(#N "_" #OP), dest, source, nelems, sizeof(T), sig_addr, signal, sig_op, \
                    ctx::world_pe(GPUSHMEM_CTX_CALL(#N "_" #OP), ctx, pe), ctx::chan(ctx));                   \
  }
#define GPUSHMEM_DEFINE_CTX_TYPED_SIGNAL(T, N)           \
  GPUSHMEM_DEFINE_CTX_TYPED_SIGNAL_ONE(T, N, put_signal) \
  GPUSHMEM_DEFINE_CTX_TYPED_SIGNAL_ONE(T, N, put_signal_nbi)
GPUSHMEM_RMA_TYPES(GPUSHMEM_DEFINE_CTX_TYPED_SIGNAL)
