// The C++ overloads added with contexts and strided RMA, for every distinct type of their tables:
//  - shmem_put / get / put_nbi / get_nbi / p / g / iput / iget with a leading ctx, and shmem_iput / iget
//    without, to every PE including this one;
//  - shmem_put_signal (+ _nbi) with a ctx;
//  - shmem_atomic_<op> (+ _nbi) with a ctx over T-AMOX, T-AMO and T-AMOB;
//  - the deprecated shmem_fetch / set / swap / cswap / finc / inc / fadd / add overloads.
// Every value moved is checked.
#include <cstdint>
#include <cstring>
#include <vector>

#include "pe_check.h"

namespace {

constexpr size_t kPut = 8, kP = 2, kI = 4;       // elements: put (and put_nbi), p, each iput
constexpr size_t kSlot = 2 * kPut + kP + 2 * 7;  // put | put_nbi | p | iput(ctx) span 7 | iput span 7
constexpr size_t kSrc = kPut + kP + 7;           // contiguous | p | 4 elements at stride 2

template <class T>
T pat(int src, size_t i, int salt) {
  const unsigned long mod = sizeof(T) == 1 ? 101ul : sizeof(T) == 2 ? 30011ul : 1000003ul;
  return static_cast<T>((7919ul * static_cast<unsigned long>(src) + 31ul * i + 104729ul * salt + 1ul) % mod);
}

template <class T>
void fill(T *src, int me, int salt) {
  for (size_t i = 0; i < kSrc; ++i) src[i] = pat<T>(me, i, salt);
}

// Expected content of one writer's slot: put | put_nbi | p | strided (stride 2, from src[kPut + kP + 2 * i]).
template <class T>
void verify(const T *slot, int from, int salt, const char *type, const char *what) {
  long bad = 0;
  for (size_t j = 0; j < kSlot; ++j) {
    T want;
    bool gap = false;
    if (j < 2 * kPut) {
      want = pat<T>(from, j % kPut, salt);
    } else if (j < 2 * kPut + kP) {
      want = pat<T>(from, kPut + (j - 2 * kPut), salt);
    } else {
      const size_t k = (j - 2 * kPut - kP) % 7;
      gap = k % 2 != 0;
      want = gap ? T{} : pat<T>(from, kPut + kP + k, salt);
    }
    if (gap) continue;  // the strided gaps are not checked here (tests/pe/rma_strided.c does)
    if (!(slot[j] == want) && bad++ < 3)
      PE_FAIL("%s<%s> (peer PE %d): element %zu: expected %Lg, got %Lg", what, type, from, j,
              static_cast<long double>(want), static_cast<long double>(slot[j]));
  }
}

template <class T>
void rma(const char *type, shmem_ctx_t ctx, T *sym_dst, T *sym_src, int salt) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  std::vector<T> src(kSrc), local(kSlot * npes);
  fill(src.data(), me, salt);
  std::memset(static_cast<void *>(sym_dst), 0, sizeof(T) * kSlot * npes);
  shmem_barrier_all();
  for (int pe = 0; pe < npes; ++pe) {
    T *d = sym_dst + kSlot * me;
    shmem_put(ctx, d, src.data(), kPut, pe);
    shmem_put_nbi(ctx, d + kPut, src.data(), kPut, pe);
    for (size_t i = 0; i < kP; ++i) shmem_p(ctx, d + 2 * kPut + i, src[kPut + i], pe);
    shmem_iput(ctx, d + 2 * kPut + kP, src.data() + kPut + kP, ptrdiff_t{2}, ptrdiff_t{2}, kI, pe);
    shmem_iput(d + 2 * kPut + kP + 7, src.data() + kPut + kP, ptrdiff_t{2}, ptrdiff_t{2}, kI, pe);
  }
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  for (int from = 0; from < npes; ++from) verify(sym_dst + kSlot * from, from, salt, type, "shmem_put(ctx) family");
  fill(sym_src, me, salt + 1);
  shmem_barrier_all();
  for (int pe = 0; pe < npes; ++pe) {
    T *d = local.data() + kSlot * pe;
    shmem_get(ctx, d, sym_src, kPut, pe);
    shmem_get_nbi(ctx, d + kPut, sym_src, kPut, pe);
    for (size_t i = 0; i < kP; ++i) d[2 * kPut + i] = shmem_g(ctx, sym_src + kPut + i, pe);
    shmem_iget(ctx, d + 2 * kPut + kP, sym_src + kPut + kP, ptrdiff_t{2}, ptrdiff_t{2}, kI, pe);
    shmem_iget(d + 2 * kPut + kP + 7, sym_src + kPut + kP, ptrdiff_t{2}, ptrdiff_t{2}, kI, pe);
  }
  shmem_ctx_quiet(ctx);
  for (int from = 0; from < npes; ++from)
    verify(local.data() + kSlot * from, from, salt + 1, type, "shmem_get(ctx) family");
  shmem_barrier_all();
}

template <class T>
void signal(const char *type, shmem_ctx_t ctx, T *buf, uint64_t *sig, uint64_t round) {
  const int me = shmem_my_pe(), npes = shmem_n_pes(), next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  T src[4];
  for (int i = 0; i < 4; ++i) src[i] = static_cast<T>(me * 4 + i);
  if (round % 2 == 0)
    shmem_put_signal(ctx, buf, src, 4, sig, round + 1, SHMEM_SIGNAL_SET, next);
  else
    shmem_put_signal_nbi(ctx, buf, src, 4, sig, round + 1, SHMEM_SIGNAL_SET, next);
  shmem_ctx_quiet(ctx);
  shmem_signal_wait_until(sig, SHMEM_CMP_EQ, round + 1);
  for (int i = 0; i < 4; ++i)
    PE_CHECK(buf[i] == static_cast<T>(prev * 4 + i), "shmem_put_signal%s(ctx)<%s>: element %d: %Lg",
             round % 2 ? "_nbi" : "", type, i, static_cast<long double>(buf[i]));
  shmem_barrier_all();
}

template <class T>
void amox(const char *type, shmem_ctx_t ctx, T *w) {
  const int me = shmem_my_pe(), npes = shmem_n_pes(), next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  shmem_atomic_set(ctx, w, T(me + 1), next);
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  PE_CHECK(shmem_atomic_fetch(ctx, w, me) == T(prev + 1), "shmem_atomic_set/fetch(ctx)<%s>", type);
  T old = shmem_atomic_swap(ctx, w, T(2), me), f{};
  PE_CHECK(old == T(prev + 1), "shmem_atomic_swap(ctx)<%s>", type);
  shmem_atomic_swap_nbi(ctx, &old, w, T(3), me);
  shmem_atomic_fetch_nbi(ctx, &f, w, me);
  shmem_ctx_quiet(ctx);
  PE_CHECK(old == T(2) && f == T(3), "shmem_atomic_swap_nbi / fetch_nbi(ctx)<%s>", type);
  shmem_barrier_all();
}

template <class T>
void amo(const char *type, shmem_ctx_t ctx, T *w) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  if (me == 0) *w = T(0);
  shmem_barrier_all();
  T f{};
  for (int i = 0; i < 10; ++i) {
    (void)shmem_atomic_fetch_add(ctx, w, T(2), 0);
    shmem_atomic_add(ctx, w, T(1), 0);
    shmem_atomic_inc(ctx, w, 0);
    (void)shmem_atomic_fetch_inc(ctx, w, 0);
    shmem_atomic_fetch_inc_nbi(ctx, &f, w, 0);
    shmem_atomic_fetch_add_nbi(ctx, &f, w, T(1), 0);
  }
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  if (me == 0) {
    const T want = T(70 * npes);
    PE_CHECK(*w == want, "shmem_atomic add family(ctx)<%s>: %lld, expected %lld", type, (long long)*w, (long long)want);
    PE_CHECK(shmem_atomic_compare_swap(ctx, w, want, T(5), 0) == want, "shmem_atomic_compare_swap(ctx)<%s>", type);
    shmem_atomic_compare_swap_nbi(ctx, &f, w, T(5), T(6), 0);
    shmem_ctx_quiet(ctx);
    PE_CHECK(f == T(5) && *w == T(6), "shmem_atomic_compare_swap_nbi(ctx)<%s>", type);
  }
  shmem_barrier_all();
}

template <class T>
void amob(const char *type, shmem_ctx_t ctx, T *w) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const T bit = T(T(1) << me), all = T((T(1) << npes) - 1);
  if (me == 0) *w = T(0);
  shmem_barrier_all();
  T f{};
  shmem_atomic_or(ctx, w, bit, 0);
  shmem_atomic_xor(ctx, w, bit, 0);
  (void)shmem_atomic_fetch_xor(ctx, w, bit, 0);
  shmem_atomic_fetch_or_nbi(ctx, &f, w, T(0), 0);
  shmem_atomic_fetch_xor_nbi(ctx, &f, w, T(0), 0);
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  PE_CHECK(shmem_atomic_fetch_or(ctx, w, T(0), 0) == all, "shmem_atomic_or/xor(ctx)<%s>", type);
  shmem_barrier_all();
  PE_CHECK((shmem_atomic_fetch_and(ctx, w, T(~bit), 0) & bit) != 0, "shmem_atomic_fetch_and(ctx)<%s>", type);
  shmem_atomic_fetch_and_nbi(ctx, &f, w, T(~T(0)), 0);
  shmem_atomic_and(ctx, w, T(~bit), 0);
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  if (me == 0) PE_CHECK(*w == T(0), "shmem_atomic_and(ctx)<%s>: 0x%llx", type, (unsigned long long)*w);
  shmem_barrier_all();
}

template <class T>
void deprecated_amox(const char *type, T *w) {
  const int me = shmem_my_pe(), npes = shmem_n_pes(), next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  shmem_set(w, T(me + 1), next);
  shmem_barrier_all();
  PE_CHECK(shmem_fetch(w, me) == T(prev + 1), "shmem_set/fetch<%s>", type);
  PE_CHECK(shmem_swap(w, T(9), me) == T(prev + 1) && *w == T(9), "shmem_swap<%s>", type);
  shmem_barrier_all();
}

template <class T>
void deprecated_amo(const char *type, T *w) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  if (me == 0) *w = T(0);
  shmem_barrier_all();
  (void)shmem_finc(w, 0);
  shmem_inc(w, 0);
  (void)shmem_fadd(w, T(3), 0);
  shmem_add(w, T(5), 0);
  shmem_quiet();
  shmem_barrier_all();
  if (me == 0)
    PE_CHECK(shmem_cswap(w, T(10 * npes), T(-1), 0) == T(10 * npes) && *w == T(-1), "shmem_finc/inc/fadd/add/cswap<%s>",
             type);
  shmem_barrier_all();
}

}  // namespace

int main() {
  shmem_init();
  const int npes = shmem_n_pes();
  void *dst = shmem_malloc(kSlot * 16 * npes);
  void *src = shmem_malloc(kSrc * 16);
  void *word = shmem_malloc(16);
  auto *sig = static_cast<uint64_t *>(shmem_calloc(1, sizeof(uint64_t)));
  shmem_ctx_t ctx;
  if (!dst || !src || !word || !sig || shmem_ctx_create(SHMEM_CTX_SERIALIZED, &ctx) != 0) {
    PE_FAIL("setup failed");
    return pe_finish("ctx_cxx");
  }
  int salt = 0;
  uint64_t round = 0;
#define RUN_RMA(T, N)                                                                    \
  rma<T>(#T, ctx, static_cast<T *>(dst), static_cast<T *>(src), salt += 2);              \
  signal<T>(#T, round % 3 ? ctx : SHMEM_CTX_DEFAULT, static_cast<T *>(dst), sig, round); \
  ++round;
  GPUSHMEM_RMA_GENERIC_TYPES(RUN_RMA)
#undef RUN_RMA
#define RUN_AMOX(T, N) amox<T>(#T, ctx, static_cast<T *>(word));
#define RUN_AMO(T, N) amo<T>(#T, ctx, static_cast<T *>(word));
#define RUN_AMOB(T, N) amob<T>(#T, ctx, static_cast<T *>(word));
  GPUSHMEM_AMOX_GENERIC_TYPES(RUN_AMOX)
  GPUSHMEM_AMO_GENERIC_TYPES(RUN_AMO)
  GPUSHMEM_AMOB_GENERIC_TYPES(RUN_AMOB)
#define RUN_DEPRECATED_AMOX(T, N) deprecated_amox<T>(#T, static_cast<T *>(word));
#define RUN_DEPRECATED_AMO(T, N) deprecated_amo<T>(#T, static_cast<T *>(word));
  GPUSHMEM_DEPRECATED_AMOX_TYPES(RUN_DEPRECATED_AMOX)
  GPUSHMEM_DEPRECATED_AMO_TYPES(RUN_DEPRECATED_AMO)
  shmem_ctx_destroy(ctx);
  shmem_free(sig);
  shmem_free(word);
  shmem_free(src);
  shmem_free(dst);
  return pe_finish("ctx_cxx");
}
