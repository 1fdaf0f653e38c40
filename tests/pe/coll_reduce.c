/*
 * Every reduction of the specification's tables, stamped from the type table: shmem_TYPE_OP_reduce on the
 * world team (a few elements, pushed; and ~70 KB, reduced in place), in place and out of place, a selection
 * on a stride-2 team (odd sizes), and shmem_TYPE_OP_to_all on the world and on a stride-2 active set. Values
 * are small integers, so every result is exact; each element is compared with a fold of the same formula.
 */
#include <complex.h>
#include <string.h>

#include "pe_check.h"

#define LARGE_BYTES (70 * 1024)
static char *src, *dst, *wrk;
static long *psync;

/* Operand of PE `pe` at element `k` for each operation, and the operation itself. */
#define VAL_and(T, pe, k) ((T)(((pe)*37 + (k)*11) & 0x7f))
#define VAL_or(T, pe, k) VAL_and(T, pe, k)
#define VAL_xor(T, pe, k) VAL_and(T, pe, k)
#define VAL_min(T, pe, k) ((T)(((pe)*37 + (k)*11) % 100))
#define VAL_max(T, pe, k) VAL_min(T, pe, k)
#define VAL_sum(T, pe, k) ((T)(((pe) + (k)) % 5 + 1))
#define VAL_prod(T, pe, k) ((T)(((pe) + (k)) % 2 + 1))
#define APPLY_and(a, b) ((a) & (b))
#define APPLY_or(a, b) ((a) | (b))
#define APPLY_xor(a, b) ((a) ^ (b))
#define APPLY_min(a, b) ((b) < (a) ? (b) : (a))
#define APPLY_max(a, b) ((a) < (b) ? (b) : (a))
#define APPLY_sum(a, b) ((a) + (b))
#define APPLY_prod(a, b) ((a) * (b))
/* Complex operands: a real and an imaginary small integer. */
#define CVAL_sum(T, pe, k) ((T)(((pe) + (k)) % 5 + 1) + (T)(((pe)*2 + (k)) % 3) * (T)I)
#define CVAL_prod(T, pe, k) ((T)1 + (T)(((pe) + (k)) % 2) * (T)I)

/* Checks dest against the fold over team members (world PEs start + j * stride). */
#define CHECK_FOLD(T, N, OP, VAL, d, count, start, stride, size, what)                                    \
  for (size_t k = 0; k < (count); ++k) {                                                                  \
    T want = VAL(T, (start), (int)k);                                                                     \
    for (int j = 1; j < (size); ++j) want = (T)APPLY_##OP(want, VAL(T, (start) + j * (stride), (int)k));  \
    if ((d)[k] != want) {                                                                                 \
      PE_FAIL("%s %s: element %zu of %zu differs (size %d)", what, #N "_" #OP, k, (size_t)(count), size); \
      break;                                                                                              \
    }                                                                                                     \
  }

#define TEST_REDUCE_VAL(T, N, OP, VAL)                                                                      \
  static void test_reduce_##N##_##OP(shmem_team_t team, int start, int stride) {                            \
    if (team == SHMEM_TEAM_INVALID) return;                                                                 \
    const int me = shmem_my_pe(), n = shmem_team_n_pes(team);                                               \
    const size_t counts[2] = {7, LARGE_BYTES / sizeof(T) + 3};                                              \
    for (int c = 0; c < 2; ++c)                                                                             \
      for (int inplace = 0; inplace < 2; ++inplace) {                                                       \
        T *s = (T *)src, *d = inplace ? (T *)src : (T *)dst;                                                \
        for (size_t k = 0; k < counts[c]; ++k) s[k] = VAL(T, me, (int)k);                                   \
        PE_CHECK(shmem_##N##_##OP##_reduce(team, d, s, counts[c]) == 0, "%s returned nonzero", #N "_" #OP); \
        CHECK_FOLD(T, N, OP, VAL, d, counts[c], start, stride, n, inplace ? "in place" : "out of place");   \
      }                                                                                                     \
    /* nreduce 0 leaves dest alone. */                                                                      \
    ((T *)dst)[0] = VAL(T, 3, 3);                                                                           \
    shmem_##N##_##OP##_reduce(team, (T *)dst, (T *)src, 0);                                                 \
    PE_CHECK(((T *)dst)[0] == VAL(T, 3, 3), "%s with nreduce 0 wrote dest", #N "_" #OP);                    \
  }
#define TEST_REDUCE(T, N, OP) TEST_REDUCE_VAL(T, N, OP, VAL_##OP)
#define TEST_REDUCE_BITWISE(T, N) TEST_REDUCE(T, N, and) TEST_REDUCE(T, N, or) TEST_REDUCE(T, N, xor)
#define TEST_REDUCE_MINMAX(T, N) TEST_REDUCE(T, N, min) TEST_REDUCE(T, N, max)
#define TEST_REDUCE_ARITH(T, N) TEST_REDUCE(T, N, sum) TEST_REDUCE(T, N, prod)
#define TEST_REDUCE_COMPLEX(T, N) TEST_REDUCE_VAL(T, N, sum, CVAL_sum) TEST_REDUCE_VAL(T, N, prod, CVAL_prod)
GPUSHMEM_REDUCE_BITWISE_TYPES(TEST_REDUCE_BITWISE)
GPUSHMEM_REDUCE_MINMAX_TYPES(TEST_REDUCE_MINMAX)
GPUSHMEM_REDUCE_ARITH_TYPES(TEST_REDUCE_ARITH)
GPUSHMEM_REDUCE_COMPLEX_TYPES(TEST_REDUCE_COMPLEX)

/* Active-set forms: PE_start 0, stride 2^log, size. */
#define TEST_TO_ALL_VAL(T, N, OP, VAL)                                                                              \
  static void test_to_all_##N##_##OP(int log, int size) {                                                           \
    const int me = shmem_my_pe();                                                                                   \
    if (me % (1 << log) != 0 || (me >> log) >= size) return;                                                        \
    const int counts[2] = {5, (int)(LARGE_BYTES / sizeof(T)) + 1};                                                  \
    for (int c = 0; c < 2; ++c)                                                                                     \
      for (int inplace = 0; inplace < 2; ++inplace) {                                                               \
        T *s = (T *)src, *d = inplace ? (T *)src : (T *)dst;                                                        \
        for (int k = 0; k < counts[c]; ++k) s[k] = VAL(T, me, k);                                                   \
        shmem_barrier(0, log, size, psync);                                                                         \
        shmem_##N##_##OP##_to_all(d, s, counts[c], 0, log, size, (T *)wrk, psync);                                  \
        CHECK_FOLD(T, N, OP, VAL, d, (size_t)counts[c], 0, 1 << log, size, inplace ? "to_all in place" : "to_all"); \
        shmem_barrier(0, log, size, psync);                                                                         \
      }                                                                                                             \
  }
#define TEST_TO_ALL(T, N, OP) TEST_TO_ALL_VAL(T, N, OP, VAL_##OP)
#define TEST_TO_ALL_BITWISE(T, N) TEST_TO_ALL(T, N, and) TEST_TO_ALL(T, N, or) TEST_TO_ALL(T, N, xor)
#define TEST_TO_ALL_ARITH(T, N) \
  TEST_TO_ALL(T, N, min) TEST_TO_ALL(T, N, max) TEST_TO_ALL(T, N, sum) TEST_TO_ALL(T, N, prod)
#define TEST_TO_ALL_COMPLEX(T, N) TEST_TO_ALL_VAL(T, N, sum, CVAL_sum) TEST_TO_ALL_VAL(T, N, prod, CVAL_prod)
GPUSHMEM_TO_ALL_BITWISE_TYPES(TEST_TO_ALL_BITWISE)
GPUSHMEM_TO_ALL_ARITH_TYPES(TEST_TO_ALL_ARITH)
GPUSHMEM_REDUCE_COMPLEX_TYPES(TEST_TO_ALL_COMPLEX)

static void run_world(void) {
  const int npes = shmem_n_pes();
#define RUN(T, N, OP) test_reduce_##N##_##OP(SHMEM_TEAM_WORLD, 0, 1);
#define RUN_BITWISE(T, N) RUN(T, N, and) RUN(T, N, or) RUN(T, N, xor)
#define RUN_MINMAX(T, N) RUN(T, N, min) RUN(T, N, max)
#define RUN_ARITH(T, N) RUN(T, N, sum) RUN(T, N, prod)
  GPUSHMEM_REDUCE_BITWISE_TYPES(RUN_BITWISE)
  GPUSHMEM_REDUCE_MINMAX_TYPES(RUN_MINMAX)
  GPUSHMEM_REDUCE_ARITH_TYPES(RUN_ARITH)
  GPUSHMEM_REDUCE_COMPLEX_TYPES(RUN_ARITH)
  /* A stride-2 team (odd sizes at 3 and 4 PEs... and 1 at 1-2 PEs). */
  shmem_team_t even;
  shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
  test_reduce_int_sum(even, 0, 2);
  test_reduce_double_max(even, 0, 2);
  test_reduce_uint64_xor(even, 0, 2);
  test_reduce_complexd_prod(even, 0, 2);
  shmem_team_destroy(even);
  /* The generic names. */
  int *s = (int *)src, *d = (int *)dst;
  s[0] = shmem_my_pe() + 1;
  shmem_sum_reduce(SHMEM_TEAM_WORLD, d, s, 1);
  PE_CHECK(d[0] == npes * (npes + 1) / 2, "generic shmem_sum_reduce(int): %d", d[0]);
  double *x = (double *)src, *y = (double *)dst;
  x[0] = shmem_my_pe();
  shmem_max_reduce(SHMEM_TEAM_WORLD, y, x, 1);
  PE_CHECK(y[0] == npes - 1, "generic shmem_max_reduce(double): %g", y[0]);
  unsigned long *u = (unsigned long *)src, *v = (unsigned long *)dst;
  u[0] = 1ul << shmem_my_pe();
  shmem_or_reduce(SHMEM_TEAM_WORLD, v, u, 1);
  PE_CHECK(v[0] == (1ul << npes) - 1, "generic shmem_or_reduce(ulong): %lu", v[0]);
}

static void run_to_all(void) {
  const int npes = shmem_n_pes();
  for (int log = 0; log <= 1; ++log) {
    const int size = log == 0 ? npes : (npes + 1) / 2;
    shmem_barrier_all(); /* pSync moves to another active set only when every call on it is over */
#define RUN_TA(T, N, OP) test_to_all_##N##_##OP(log, size);
#define RUN_TA_BITWISE(T, N) RUN_TA(T, N, and) RUN_TA(T, N, or) RUN_TA(T, N, xor)
#define RUN_TA_ARITH(T, N) RUN_TA(T, N, min) RUN_TA(T, N, max) RUN_TA(T, N, sum) RUN_TA(T, N, prod)
#define RUN_TA_COMPLEX(T, N) RUN_TA(T, N, sum) RUN_TA(T, N, prod)
    GPUSHMEM_TO_ALL_BITWISE_TYPES(RUN_TA_BITWISE)
    GPUSHMEM_TO_ALL_ARITH_TYPES(RUN_TA_ARITH)
    GPUSHMEM_REDUCE_COMPLEX_TYPES(RUN_TA_COMPLEX)
  }
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  src = (char *)shmem_malloc(LARGE_BYTES + 64 * 16);
  dst = (char *)shmem_malloc(LARGE_BYTES + 64 * 16);
  wrk = (char *)shmem_malloc(LARGE_BYTES + 64 * 16);
  psync = (long *)shmem_calloc(SHMEM_REDUCE_SYNC_SIZE, sizeof(long));
  run_world();
  run_to_all();
  shmem_free(psync);
  shmem_free(wrk);
  shmem_free(dst);
  shmem_free(src);
  return pe_finish("coll_reduce");
}
