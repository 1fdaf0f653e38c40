// Typed RMA through the C++ overloads of <shmem.h> (shmem_put, shmem_get, shmem_put_nbi, shmem_get_nbi,
// shmem_p, shmem_g) for every type of the type table, to every PE including this one, with 1, 7, 1000
// and 100000 elements; every element is checked after a barrier.
#include <cstdint>
#include <cstring>
#include <iterator>
#include <vector>

#include "pe_check.h"

namespace {

template <class T>
T pattern(int src, size_t i, int salt) {
  // Exact in every type: one-byte types < 101, two-byte < 30011, floats < 2^24.
  const unsigned long mod = sizeof(T) == 1 ? 101ul : sizeof(T) == 2 ? 30011ul : 1000003ul;
  return static_cast<T>(
      (7919ul * static_cast<unsigned long>(src) + 31ul * i + 104729ul * static_cast<unsigned long>(salt) + 1ul) % mod);
}

template <class T>
void fill(T *buf, size_t n, int src, int salt) {
  for (size_t i = 0; i < n; ++i) buf[i] = pattern<T>(src, i, salt);
}

template <class T>
void verify(const T *buf, size_t n, int src, int salt, const char *type, const char *op, int peer) {
  long bad = 0;
  for (size_t i = 0; i < n; ++i) {
    T want = pattern<T>(src, i, salt);
    if (buf[i] != want && bad++ < 3)
      PE_FAIL("shmem_%s<%s> (%zu elements, peer PE %d): element %zu: expected %Lg, got %Lg", op, type, n, peer, i,
              static_cast<long double>(want), static_cast<long double>(buf[i]));
  }
}

enum class Op { put, put_nbi, p, get, get_nbi, g };
const char *op_name(Op op) {
  static const char *const names[] = {"put", "put_nbi", "p", "get", "get_nbi", "g"};
  return names[static_cast<int>(op)];
}

// Every op moves all four sizes at once, each in its own region of a block of kTotal elements, so the
// barriers (slow when PEs outnumber cores) are paid once per op rather than once per size.
constexpr size_t kSizes[] = {1, 7, 1000, 100000};
constexpr size_t kTotal = 1 + 7 + 1000 + 100000;

// How many of n elements the p / g ops move one at a time to `pe`: all of them where `sym` is load/store
// reachable, at most kElementwiseRemote where each is a network round trip.
constexpr size_t kElementwiseRemote = 1024;
size_t elementwise_count(size_t n, const void *sym, int pe) {
  return shmem_ptr(sym, pe) == nullptr && n > kElementwiseRemote ? kElementwiseRemote : n;
}

constexpr size_t region(size_t si) {
  size_t off = 0;
  for (size_t j = 0; j < si; ++j) off += kSizes[j];
  return off;
}

template <class T>
void run_op(const char *type, Op op, T *src, T *dst, T *local, int salt) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const bool is_put = op == Op::put || op == Op::put_nbi || op == Op::p;
  T *into = is_put ? dst : local;
  for (size_t si = 0; si < std::size(kSizes); ++si) fill(src + region(si), kSizes[si], me, salt * 4 + int(si));
  std::memset(static_cast<void *>(into), 0xff, kTotal * sizeof(T) * npes);
  shmem_barrier_all();
  for (int k = 0; k < npes; ++k) {
    const int pe = (me + k) % npes;
    for (size_t si = 0; si < std::size(kSizes); ++si) {
      const size_t n = kSizes[si];
      const int sa = salt * 4 + int(si);
      T *s = src + region(si);
      T *d = is_put ? dst + static_cast<size_t>(me) * kTotal + region(si)  // my slot in every PE's dst
                    : local + static_cast<size_t>(pe) * kTotal + region(si);
      switch (op) {
        case Op::put:
          shmem_put(d, s, n, pe);
          break;
        case Op::put_nbi:
          shmem_put_nbi(d, s, n, pe);
          break;
        case Op::p: {
          // One network round trip per element to a PE this one cannot load and store (another node): the
          // first kElementwiseRemote elements one by one, the rest in bulk.
          const size_t m = elementwise_count(n, dst, pe);
          for (size_t i = 0; i < m; ++i) shmem_p(d + i, pattern<T>(me, i, sa), pe);
          if (m < n) shmem_put(d + m, s + m, n - m, pe);
          break;
        }
        case Op::get:
          shmem_get(d, s, n, pe);
          break;
        case Op::get_nbi:
          shmem_get_nbi(d, s, n, pe);
          break;
        case Op::g: {
          const size_t m = elementwise_count(n, src, pe);
          for (size_t i = 0; i < m; ++i) d[i] = shmem_g(s + i, pe);
          if (m < n) shmem_get(d + m, s + m, n - m, pe);
          break;
        }
      }
    }
  }
  shmem_quiet();
  if (is_put) shmem_barrier_all();
  for (int from = 0; from < npes; ++from)
    for (size_t si = 0; si < std::size(kSizes); ++si)
      verify(into + static_cast<size_t>(from) * kTotal + region(si), kSizes[si], from, salt * 4 + int(si), type,
             op_name(op), from);
  shmem_barrier_all();  // nobody refills src or re-poisons dst while another PE still uses it
}

template <class T>
void run_type(const char *type, void *src_bytes, void *dst_bytes, void *local_bytes, int *salt) {
  for (Op op : {Op::put, Op::put_nbi, Op::p, Op::get, Op::get_nbi, Op::g})
    run_op<T>(type, op, static_cast<T *>(src_bytes), static_cast<T *>(dst_bytes), static_cast<T *>(local_bytes),
              ++*salt % 16);
}

}  // namespace

int main() {
  shmem_init();
  const int npes = shmem_n_pes();
  const size_t max_bytes = kTotal * sizeof(long double);
  void *src = shmem_malloc(max_bytes);
  void *dst = shmem_malloc(max_bytes * npes);
  std::vector<char> local(max_bytes * npes);
  if (src == nullptr || dst == nullptr) {
    PE_FAIL("cannot allocate %zu symmetric bytes", max_bytes * (npes + 1));
    return pe_finish("rma_typed_cxx");
  }
  static_assert(sizeof(long double) >= sizeof(uint64_t), "long double is the widest table type here");
  int salt = 0;
#define RUN(T, N) run_type<T>(#T, src, dst, local.data(), &salt);
  GPUSHMEM_RMA_TYPES(RUN)
#undef RUN
  shmem_free(dst);
  shmem_free(src);
  return pe_finish("rma_typed_cxx");
}
