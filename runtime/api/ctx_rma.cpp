// The shmem_ctx_ forms of RMA: typed (every standard RMA type), SIZE and byte forms of put / get (+ _nbi),
// p / g and iput / iget, stamped from the type table. Each translates the PE through the context's team,
// then runs the same template as the form without ctx.
#include "ctx/ctx_table.hpp"
#include "rma/host_rma.hpp"
#include "rma/host_strided.hpp"
#include "shmem.h"

using namespace gpushmem;

// NAME: the routine's name without the shmem_ctx_ prefix, as a string.
#define GPUSHMEM_CTX_CALL(NAME) "shmem_ctx_" NAME
// The world PE and the context's network channel: the last two arguments of every template.
#define GPUSHMEM_CTX_PE(NAME) ctx::world_pe(GPUSHMEM_CTX_CALL(NAME), ctx, pe), ctx::chan(ctx)

#define GPUSHMEM_DEFINE_CTX_BULK(T, N, OP, IMPL)                                                                \
  GPUSHMEM_EXPORT void shmem_ctx_##N##_##OP(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) { \
    rma::IMPL<T>(GPUSHMEM_CTX_CALL(#N "_" #OP), dest, source, nelems, GPUSHMEM_CTX_PE(#N "_" #OP));             \
  }
#define GPUSHMEM_DEFINE_CTX_STRIDED(T, N, OP)                                                                        \
  GPUSHMEM_EXPORT void shmem_ctx_##N##_##OP(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                                            size_t nelems, int pe) {                                                 \
    rma::OP<sizeof(T)>(GPUSHMEM_CTX_CALL(#N "_" #OP), dest, source, dst, sst, nelems, GPUSHMEM_CTX_PE(#N "_" #OP));  \
  }
#define GPUSHMEM_DEFINE_CTX_TYPED_RMA(T, N)                                           \
  GPUSHMEM_DEFINE_CTX_BULK(T, N, put, put)                                            \
  GPUSHMEM_DEFINE_CTX_BULK(T, N, get, get)                                            \
  GPUSHMEM_DEFINE_CTX_BULK(T, N, put_nbi, put_nbi)                                    \
  GPUSHMEM_DEFINE_CTX_BULK(T, N, get_nbi, get)                                        \
  GPUSHMEM_DEFINE_CTX_STRIDED(T, N, iput)                                             \
  GPUSHMEM_DEFINE_CTX_STRIDED(T, N, iget)                                             \
  GPUSHMEM_EXPORT void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe) { \
    rma::p<T>(GPUSHMEM_CTX_CALL(#N "_p"), dest, value, GPUSHMEM_CTX_PE(#N "_p"));     \
  }                                                                                   \
  GPUSHMEM_EXPORT T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe) {     \
    return rma::g<T>(GPUSHMEM_CTX_CALL(#N "_g"), source, GPUSHMEM_CTX_PE(#N "_g"));   \
  }
GPUSHMEM_RMA_TYPES(GPUSHMEM_DEFINE_CTX_TYPED_RMA)

// Byte forms: ELEM is the element size in bytes (1 for putmem / getmem).
#define GPUSHMEM_DEFINE_CTX_BYTES(NAME, ELEM, IMPL)                                                               \
  GPUSHMEM_EXPORT void shmem_ctx_##NAME(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) { \
    rma::IMPL(GPUSHMEM_CTX_CALL(#NAME), dest, source, nelems, ELEM, GPUSHMEM_CTX_PE(#NAME));                      \
  }
#define GPUSHMEM_DEFINE_CTX_SIZED_STRIDED(S, OP)                                                          \
  GPUSHMEM_EXPORT void shmem_ctx_##OP##S(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,  \
                                         ptrdiff_t sst, size_t nelems, int pe) {                          \
    rma::OP<(S) / 8>(GPUSHMEM_CTX_CALL(#OP #S), dest, source, dst, sst, nelems, GPUSHMEM_CTX_PE(#OP #S)); \
  }
#define GPUSHMEM_DEFINE_CTX_SIZED_RMA(S)                          \
  GPUSHMEM_DEFINE_CTX_BYTES(put##S, (S) / 8, put_bytes)           \
  GPUSHMEM_DEFINE_CTX_BYTES(get##S, (S) / 8, get_bytes)           \
  GPUSHMEM_DEFINE_CTX_BYTES(put##S##_nbi, (S) / 8, put_bytes_nbi) \
  GPUSHMEM_DEFINE_CTX_BYTES(get##S##_nbi, (S) / 8, get_bytes)     \
  GPUSHMEM_DEFINE_CTX_SIZED_STRIDED(S, iput)                      \
  GPUSHMEM_DEFINE_CTX_SIZED_STRIDED(S, iget)
GPUSHMEM_RMA_SIZES(GPUSHMEM_DEFINE_CTX_SIZED_RMA)
GPUSHMEM_DEFINE_CTX_BYTES(putmem, 1, put_bytes)
GPUSHMEM_DEFINE_CTX_BYTES(getmem, 1, get_bytes)
GPUSHMEM_DEFINE_CTX_BYTES(putmem_nbi, 1, put_bytes_nbi)
GPUSHMEM_DEFINE_CTX_BYTES(getmem_nbi, 1, get_bytes)
