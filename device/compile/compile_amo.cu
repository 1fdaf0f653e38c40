// Compile test (built everywhere nvcc is, never run): every AMO name of the device API for every type of
// its table (T-AMOX, T-AMO, T-AMOB), typed and generic, blocking and _nbi, called from kernels and, through
// the same macros, from host functions (their host paths are asm-labelled calls the link check resolves).
#include <shmem.h>
#include <shmemx.h>

#define EACH_SIDE_AMOX(T, N, QUAL, SIDE)                               \
  QUAL void compile_amox_##N##SIDE(T *dest, T value, int pe, T *out) { \
    out[0] = shmem_##N##_atomic_fetch(dest, pe);                       \
    shmem_##N##_atomic_fetch_nbi(out + 1, dest, pe);                   \
    shmem_##N##_atomic_set(dest, value, pe);                           \
    out[2] = shmem_##N##_atomic_swap(dest, value, pe);                 \
    shmem_##N##_atomic_swap_nbi(out + 3, dest, value, pe);             \
    out[4] = shmem_atomic_fetch(dest, pe);                             \
    shmem_atomic_fetch_nbi(out + 5, dest, pe);                         \
    shmem_atomic_set(dest, value, pe);                                 \
    out[6] = shmem_atomic_swap(dest, value, pe);                       \
    shmem_atomic_swap_nbi(out + 7, dest, value, pe);                   \
  }
#define KERNEL_AMOX(T, N) EACH_SIDE_AMOX(T, N, __global__, ) EACH_SIDE_AMOX(T, N, , _host)
GPUSHMEM_AMOX_TYPES(KERNEL_AMOX)

#define EACH_SIDE_AMO(T, N, QUAL, SIDE)                                       \
  QUAL void compile_amo_##N##SIDE(T *dest, T cond, T value, int pe, T *out) { \
    out[0] = shmem_##N##_atomic_compare_swap(dest, cond, value, pe);          \
    shmem_##N##_atomic_compare_swap_nbi(out + 1, dest, cond, value, pe);      \
    out[2] = shmem_##N##_atomic_fetch_inc(dest, pe);                          \
    shmem_##N##_atomic_fetch_inc_nbi(out + 3, dest, pe);                      \
    shmem_##N##_atomic_inc(dest, pe);                                         \
    out[4] = shmem_##N##_atomic_fetch_add(dest, value, pe);                   \
    shmem_##N##_atomic_fetch_add_nbi(out + 5, dest, value, pe);               \
    shmem_##N##_atomic_add(dest, value, pe);                                  \
    out[6] = shmem_atomic_compare_swap(dest, cond, value, pe);                \
    shmem_atomic_compare_swap_nbi(out + 7, dest, cond, value, pe);            \
    out[8] = shmem_atomic_fetch_inc(dest, pe);                                \
    shmem_atomic_fetch_inc_nbi(out + 9, dest, pe);                            \
    shmem_atomic_inc(dest, pe);                                               \
    out[10] = shmem_atomic_fetch_add(dest, value, pe);                        \
    shmem_atomic_fetch_add_nbi(out + 11, dest, value, pe);                    \
    shmem_atomic_add(dest, value, pe);                                        \
  }
#define KERNEL_AMO(T, N) EACH_SIDE_AMO(T, N, __global__, ) EACH_SIDE_AMO(T, N, , _host)
GPUSHMEM_AMO_TYPES(KERNEL_AMO)

#define EACH_SIDE_AMOB(T, N, QUAL, SIDE)                               \
  QUAL void compile_amob_##N##SIDE(T *dest, T value, int pe, T *out) { \
    out[0] = shmem_##N##_atomic_fetch_and(dest, value, pe);            \
    shmem_##N##_atomic_fetch_and_nbi(out + 1, dest, value, pe);        \
    shmem_##N##_atomic_and(dest, value, pe);                           \
    out[2] = shmem_##N##_atomic_fetch_or(dest, value, pe);             \
    shmem_##N##_atomic_fetch_or_nbi(out + 3, dest, value, pe);         \
    shmem_##N##_atomic_or(dest, value, pe);                            \
    out[4] = shmem_##N##_atomic_fetch_xor(dest, value, pe);            \
    shmem_##N##_atomic_fetch_xor_nbi(out + 5, dest, value, pe);        \
    shmem_##N##_atomic_xor(dest, value, pe);                           \
    out[6] = shmem_atomic_fetch_and(dest, value, pe);                  \
    shmem_atomic_fetch_and_nbi(out + 7, dest, value, pe);              \
    shmem_atomic_and(dest, value, pe);                                 \
    out[8] = shmem_atomic_fetch_or(dest, value, pe);                   \
    shmem_atomic_fetch_or_nbi(out + 9, dest, value, pe);               \
    shmem_atomic_or(dest, value, pe);                                  \
    out[10] = shmem_atomic_fetch_xor(dest, value, pe);                 \
    shmem_atomic_fetch_xor_nbi(out + 11, dest, value, pe);             \
    shmem_atomic_xor(dest, value, pe);                                 \
  }
#define KERNEL_AMOB(T, N) EACH_SIDE_AMOB(T, N, __global__, ) EACH_SIDE_AMOB(T, N, , _host)
GPUSHMEM_AMOB_TYPES(KERNEL_AMOB)

// Host only: the ctx forms and their overloads.
#define HOST_CTX_AMO(T, N)                                                           \
  void compile_host_ctx_amo_##N(shmem_ctx_t ctx, T *dest, T value, int pe, T *out) { \
    out[0] = shmem_ctx_##N##_atomic_fetch_add(ctx, dest, value, pe);                 \
    shmem_ctx_##N##_atomic_compare_swap_nbi(ctx, out + 1, dest, value, value, pe);   \
    out[2] = shmem_atomic_fetch_inc(ctx, dest, pe);                                  \
    shmem_atomic_add(ctx, dest, value, pe);                                          \
    out[3] = shmem_atomic_swap(ctx, dest, value, pe);                                \
  }
GPUSHMEM_AMO_TYPES(HOST_CTX_AMO)
#define HOST_CTX_AMOB(T, N)                                                           \
  void compile_host_ctx_amob_##N(shmem_ctx_t ctx, T *dest, T value, int pe, T *out) { \
    out[0] = shmem_atomic_fetch_xor(ctx, dest, value, pe);                            \
    shmem_atomic_and(ctx, dest, value, pe);                                           \
  }
GPUSHMEM_AMOB_TYPES(HOST_CTX_AMOB)
