// A C++ program in the style users bring: the spec's generic names through C++ overloads (put, get, p, g,
// atomic_fetch_add, atomic_compare_swap, wait_until) on several element types, built with the installed
// gpushmemc++. OpenSHMEM 1.5 API only.
#include <shmem.h>

#include <cstdio>
#include <vector>

namespace {

int errors = 0;

template <class T>
void check(bool ok, const char *what, T got, T expected) {
  if (!ok && errors++ < 10)
    std::printf("PE %d: %s: got %lld, expected %lld\n", shmem_my_pe(), what, static_cast<long long>(got),
                static_cast<long long>(expected));
}

// Every PE puts its block of T into the right neighbour, then reads it back with get and g.
template <class T>
void shift(const char *name) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  const size_t n = 100;
  T *buf = static_cast<T *>(shmem_malloc(n * sizeof(T)));
  std::vector<T> mine(n), back(n);
  for (size_t i = 0; i < n; ++i) mine[i] = static_cast<T>(me * 100 + static_cast<int>(i));
  shmem_barrier_all();
  shmem_put(buf, mine.data(), n, right);
  shmem_barrier_all();
  for (size_t i = 0; i < n; ++i) {
    const T expected = static_cast<T>(left * 100 + static_cast<int>(i));
    check(buf[i] == expected, name, buf[i], expected);
  }
  shmem_get(back.data(), buf, n, right);
  for (size_t i = 0; i < n; ++i) check(back[i] == mine[i], name, back[i], mine[i]);
  check(shmem_g(&buf[n - 1], right) == mine[n - 1], name, shmem_g(&buf[n - 1], right), mine[n - 1]);
  shmem_barrier_all();
  shmem_free(buf);
}

}  // namespace

int main() {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  shift<int>("int shift");
  shift<double>("double shift");
  shift<unsigned long long>("unsigned long long shift");

  long *counter = static_cast<long *>(shmem_calloc(1, sizeof(long)));
  int *flag = static_cast<int *>(shmem_calloc(1, sizeof(int)));
  shmem_barrier_all();
  for (int i = 0; i < 100; ++i) shmem_atomic_fetch_add(counter, 1L, 0);
  // PE 0 waits until every PE has added: the PE whose +1000 completes the total sets a flag with compare_swap.
  if (shmem_atomic_fetch_add(counter, 1000L, 0) + 1000 == 1100L * npes) shmem_atomic_compare_swap(flag, 0, 1, 0);
  if (me == 0) {
    shmem_wait_until(flag, SHMEM_CMP_EQ, 1);
    check(*counter == 1100L * npes, "counter", *counter, 1100L * npes);
  }
  shmem_barrier_all();
  shmem_free(flag);
  shmem_free(counter);
  if (errors)
    std::printf("overloads_cxx: FAIL on PE %d (%d errors)\n", me, errors);
  else if (me == 0)
    std::printf("overloads_cxx: PASS on %d PEs\n", npes);
  shmem_finalize();
  return errors ? 1 : 0;
}
