// The shmem_ctx_ forms of the AMOs (every table, fetching _nbi forms included), stamped from the type table.
// Each translates the PE through the context's team, then runs the same template as the form without ctx.
#include "amo/host_amo.hpp"
#include "ctx/ctx_table.hpp"
#include "shmem.h"

using namespace gpushmem;

#define GPUSHMEM_CTX_CALL(N, OP) "shmem_ctx_" #N "_" #OP
// The world PE and the context's network channel: the last two arguments of every template.
#define GPUSHMEM_CTX_PE(N, OP) ctx::world_pe(GPUSHMEM_CTX_CALL(N, OP), ctx, pe), ctx::chan(ctx)

#define GPUSHMEM_DEFINE_CTX_FETCH_OP(T, N, FETCH, PLAIN, IMPL)                                              \
  GPUSHMEM_EXPORT T shmem_ctx_##N##_##FETCH(shmem_ctx_t ctx, T *dest, T value, int pe) {                    \
    return amo::IMPL<T>(GPUSHMEM_CTX_CALL(N, FETCH), dest, value, GPUSHMEM_CTX_PE(N, FETCH));               \
  }                                                                                                         \
  GPUSHMEM_EXPORT void shmem_ctx_##N##_##FETCH##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) { \
    *fetch = amo::IMPL<T>(GPUSHMEM_CTX_CALL(N, FETCH##_nbi), dest, value, GPUSHMEM_CTX_PE(N, FETCH##_nbi)); \
  }                                                                                                         \
  GPUSHMEM_EXPORT void shmem_ctx_##N##_##PLAIN(shmem_ctx_t ctx, T *dest, T value, int pe) {                 \
    (void)amo::IMPL<T>(GPUSHMEM_CTX_CALL(N, PLAIN), dest, value, GPUSHMEM_CTX_PE(N, PLAIN), false);         \
  }

#define GPUSHMEM_DEFINE_CTX_AMOX(T, N)                                                                              \
  GPUSHMEM_EXPORT T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe) {                        \
    return amo::fetch<T>(GPUSHMEM_CTX_CALL(N, atomic_fetch), source, GPUSHMEM_CTX_PE(N, atomic_fetch));             \
  }                                                                                                                 \
  GPUSHMEM_EXPORT void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe) {       \
    *fetch = amo::fetch<T>(GPUSHMEM_CTX_CALL(N, atomic_fetch_nbi), source, GPUSHMEM_CTX_PE(N, atomic_fetch_nbi));   \
  }                                                                                                                 \
  GPUSHMEM_EXPORT void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe) {                      \
    amo::set<T>(GPUSHMEM_CTX_CALL(N, atomic_set), dest, value, GPUSHMEM_CTX_PE(N, atomic_set));                     \
  }                                                                                                                 \
  GPUSHMEM_EXPORT T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe) {                        \
    return amo::swap<T>(GPUSHMEM_CTX_CALL(N, atomic_swap), dest, value, GPUSHMEM_CTX_PE(N, atomic_swap));           \
  }                                                                                                                 \
  GPUSHMEM_EXPORT void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) {       \
    *fetch = amo::swap<T>(GPUSHMEM_CTX_CALL(N, atomic_swap_nbi), dest, value, GPUSHMEM_CTX_PE(N, atomic_swap_nbi)); \
  }
GPUSHMEM_AMOX_TYPES(GPUSHMEM_DEFINE_CTX_AMOX)

#define GPUSHMEM_DEFINE_CTX_AMO(T, N)                                                                                  \
  GPUSHMEM_EXPORT T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe) {           \
    return amo::compare_swap<T>(GPUSHMEM_CTX_CALL(N, atomic_compare_swap), dest, cond, value,                          \
                                GPUSHMEM_CTX_PE(N, atomic_compare_swap));                                              \
  }                                                                                                                    \
  GPUSHMEM_EXPORT void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond, T value,    \
                                                               int pe) {                                               \
    *fetch = amo::compare_swap<T>(GPUSHMEM_CTX_CALL(N, atomic_compare_swap_nbi), dest, cond, value,                    \
                                  GPUSHMEM_CTX_PE(N, atomic_compare_swap_nbi));                                        \
  }                                                                                                                    \
  GPUSHMEM_EXPORT T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe) {                               \
    return amo::fetch_add<T>(GPUSHMEM_CTX_CALL(N, atomic_fetch_inc), dest, static_cast<T>(1),                          \
                             GPUSHMEM_CTX_PE(N, atomic_fetch_inc));                                                    \
  }                                                                                                                    \
  GPUSHMEM_EXPORT void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe) {              \
    *fetch = amo::fetch_add<T>(GPUSHMEM_CTX_CALL(N, atomic_fetch_inc_nbi), dest, static_cast<T>(1),                    \
                               GPUSHMEM_CTX_PE(N, atomic_fetch_inc_nbi));                                              \
  }                                                                                                                    \
  GPUSHMEM_EXPORT void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe) {                                  \
    (void)amo::fetch_add<T>(GPUSHMEM_CTX_CALL(N, atomic_inc), dest, static_cast<T>(1), GPUSHMEM_CTX_PE(N, atomic_inc), \
                            false);                                                                                    \
  }                                                                                                                    \
  GPUSHMEM_DEFINE_CTX_FETCH_OP(T, N, atomic_fetch_add, atomic_add, fetch_add)
GPUSHMEM_AMO_TYPES(GPUSHMEM_DEFINE_CTX_AMO)

#define GPUSHMEM_DEFINE_CTX_AMOB(T, N)                                        \
  GPUSHMEM_DEFINE_CTX_FETCH_OP(T, N, atomic_fetch_and, atomic_and, fetch_and) \
  GPUSHMEM_DEFINE_CTX_FETCH_OP(T, N, atomic_fetch_or, atomic_or, fetch_or)    \
  GPUSHMEM_DEFINE_CTX_FETCH_OP(T, N, atomic_fetch_xor, atomic_xor, fetch_xor)
GPUSHMEM_AMOB_TYPES(GPUSHMEM_DEFINE_CTX_AMOB)
