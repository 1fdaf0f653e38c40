// Put with signal (every T-RMA type, the sized and byte forms, blocking and _nbi), signal_fetch and
// signal_wait_until.
#include "amo/host_signal_wait.hpp"
#include "rma/host_rma.hpp"
#include "shmem.h"

using namespace gpushmem;

namespace {

// The payload first, then the signal with release order: a PE that sees the signal (acquire) sees the whole
// payload. Same-node transfers complete at once, so the _nbi forms are the blocking ones.
void put_signal(const char *call, void *dest, const void *source, size_t bytes, uint64_t *sig_addr, uint64_t signal,
                int sig_op, int pe) {
  if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD) [[unlikely]]
    amo::fail_bad_sig_op(call, sig_op);
  if constexpr (GPUSHMEM_BUILT_WITH_ERROR_CHECKS) {
    // Both are symmetric addresses of this PE, so overlap here is overlap at the target.
    const char *d = static_cast<const char *>(dest);
    const char *s = reinterpret_cast<const char *>(sig_addr);
    if (rt().error_checks && bytes != 0 && s < d + bytes && d < s + sizeof(uint64_t)) [[unlikely]]
      api::fail(call,
                "sig_addr=%p overlaps dest=%p (%zu bytes): the signal word must not be part of the payload "
                "(the payload could land after the signal)",
                static_cast<const void *>(sig_addr), dest, bytes);
  }
  rma::put_bytes(call, dest, source, bytes, pe);  // a GPU-heap payload is a synchronous copy: done here too
  std::atomic_ref<uint64_t> word = amo::remote_word(call, "sig_addr", sig_addr, pe);
  if (sig_op == SHMEM_SIGNAL_SET)
    word.store(signal, std::memory_order_release);
  else
    word.fetch_add(signal, std::memory_order_release);
}

}  // namespace

#define GPUSHMEM_DEFINE_MEM_SIGNAL(SUFFIX)                                                                            \
  GPUSHMEM_EXPORT void shmem_putmem_signal##SUFFIX(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, \
                                                   uint64_t signal, int sig_op, int pe) {                             \
    put_signal("shmem_putmem_signal" #SUFFIX, dest, source, nelems, sig_addr, signal, sig_op, pe);                    \
  }
GPUSHMEM_DEFINE_MEM_SIGNAL()
GPUSHMEM_DEFINE_MEM_SIGNAL(_nbi)

#define GPUSHMEM_DEFINE_TYPED_SIGNAL_ONE(T, N, SUFFIX)                                                             \
  GPUSHMEM_EXPORT void shmem_##N##_put_signal##SUFFIX(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                                                      uint64_t signal, int sig_op, int pe) {                       \
    put_signal("shmem_" #N "_put_signal" #SUFFIX, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe); \
  }
#define GPUSHMEM_DEFINE_TYPED_SIGNAL(T, N) \
  GPUSHMEM_DEFINE_TYPED_SIGNAL_ONE(T, N, ) GPUSHMEM_DEFINE_TYPED_SIGNAL_ONE(T, N, _nbi)
GPUSHMEM_RMA_TYPES(GPUSHMEM_DEFINE_TYPED_SIGNAL)

#define GPUSHMEM_DEFINE_SIZED_SIGNAL_ONE(S, SUFFIX)                                                              \
  GPUSHMEM_EXPORT void shmem_put##S##_signal##SUFFIX(void *dest, const void *source, size_t nelems,              \
                                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {  \
    put_signal("shmem_put" #S "_signal" #SUFFIX, dest, source, nelems *((S) / 8), sig_addr, signal, sig_op, pe); \
  }
#define GPUSHMEM_DEFINE_SIZED_SIGNAL(S) GPUSHMEM_DEFINE_SIZED_SIGNAL_ONE(S, ) GPUSHMEM_DEFINE_SIZED_SIGNAL_ONE(S, _nbi)
GPUSHMEM_RMA_SIZES(GPUSHMEM_DEFINE_SIZED_SIGNAL)

GPUSHMEM_EXPORT uint64_t shmem_signal_fetch(const uint64_t *sig_addr) {
  amo::check_words("shmem_signal_fetch", "sig_addr", sig_addr, 1);
  return amo::local_word("shmem_signal_fetch", "sig_addr", const_cast<uint64_t *>(sig_addr))
      .load(std::memory_order_acquire);
}

GPUSHMEM_EXPORT uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
  return amo::wait_until<uint64_t>("shmem_signal_wait_until", sig_addr, cmp, cmp_value, "sig_addr");
}
