// The C++ overloads of the generic AMO, signal and wait names: a fetch_add hammer on PE 0 through the
// overloads for int, long and unsigned long long, bitwise ops, put_signal, and wait_until on long (which is
// the deprecated C symbol joining the overload set) and int.
#include <cstdint>
#include <vector>

#include "pe_check.h"

template <class T>
static void hammer(T *word) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  if (me == 0) *word = T(0);
  shmem_barrier_all();
  for (int i = 0; i < 1000; ++i) {
    (void)shmem_atomic_fetch_add(word, T(1), 0);
    shmem_atomic_inc(word, 0);
    T old{};
    shmem_atomic_fetch_add_nbi(&old, word, T(1), 0);
  }
  shmem_quiet();
  shmem_barrier_all();
  const T want = T(3000) * T(npes);
  if (me == 0) PE_CHECK(*word == want, "hammer: %lld, expected %lld", (long long)*word, (long long)want);
  shmem_barrier_all();
}

int main() {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes(), next = (me + 1) % npes;
  auto *words = static_cast<unsigned long long *>(shmem_calloc(8, sizeof(unsigned long long)));
  auto *l = static_cast<long *>(shmem_calloc(2, sizeof(long)));
  auto *i32 = static_cast<int *>(shmem_calloc(2, sizeof(int)));
  auto *sig = static_cast<uint64_t *>(shmem_calloc(1, sizeof(uint64_t)));
  auto *d = static_cast<double *>(shmem_calloc(16, sizeof(double)));
  if (!words || !l || !i32 || !sig || !d) {
    PE_FAIL("allocation failed");
    return pe_finish("amo_cxx");
  }
  hammer(i32);
  hammer(l);
  hammer(words);

  shmem_atomic_or(&words[1], 1ull << me, 0);
  shmem_barrier_all();
  PE_CHECK(shmem_atomic_fetch(&words[1], 0) == (1ull << npes) - 1, "or overload");
  PE_CHECK(shmem_atomic_compare_swap(&l[1], 0L, long(me + 1), me) == 0L, "compare_swap overload");
  double old = shmem_atomic_swap(&d[15], 2.5, me);
  PE_CHECK(old == 0.0 && shmem_atomic_fetch(&d[15], me) == 2.5, "double swap overload");
  shmem_barrier_all();

  std::vector<double> src(14, double(me));
  shmem_put_signal(d, src.data(), src.size(), sig, 1, SHMEM_SIGNAL_SET, next);
  PE_CHECK(shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 1) == 1, "signal_wait_until");
  PE_CHECK(d[13] == double((me + npes - 1) % npes), "put_signal payload: %g", d[13]);
  shmem_barrier_all();

  l[0] = 0;
  i32[1] = 0;
  shmem_barrier_all();
  shmem_atomic_set(&l[0], 5L, next);
  shmem_atomic_set(&i32[1], 6, next);
  shmem_wait_until(&l[0], SHMEM_CMP_EQ, 5L);   // long: the C symbol
  shmem_wait_until(&i32[1], SHMEM_CMP_EQ, 6);  // int: an overload
  int status[2] = {1, 0};
  PE_CHECK(shmem_test_all(i32, 2, status, SHMEM_CMP_EQ, 6) == 1, "test_all overload");
  PE_CHECK(shmem_test_any(i32, 2, nullptr, SHMEM_CMP_EQ, 6) == 1, "test_any overload");
  // The deprecated short / unsigned short ivars: wait_until and test overloads.
  short *s16 = static_cast<short *>(shmem_malloc(sizeof(short)));
  *s16 = 0;
  shmem_barrier_all();
  shmem_short_p(s16, 3, next);
  shmem_wait_until(s16, SHMEM_CMP_EQ, static_cast<short>(3));
  PE_CHECK(shmem_test(s16, SHMEM_CMP_EQ, static_cast<short>(3)) == 1, "short test overload");
  PE_CHECK(shmem_test(reinterpret_cast<unsigned short *>(s16), SHMEM_CMP_NE, static_cast<unsigned short>(3)) == 0,
           "unsigned short test overload");
  shmem_barrier_all();
  shmem_free(s16);
  return pe_finish("amo_cxx");
}
