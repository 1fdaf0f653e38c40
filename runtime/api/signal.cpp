// Put with signal (every T-RMA type, the sized and byte forms, blocking and _nbi), signal_fetch and
// signal_wait_until.
#include "amo/host_put_signal.hpp"
#include "shmem.h"

using namespace gpushmem;

using amo::put_signal;

#define GPUSHMEM_DEFINE_MEM_SIGNAL(SUFFIX)                                                                            \
  GPUSHMEM_EXPORT void shmem_putmem_signal##SUFFIX(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, \
                                                   uint64_t signal, int sig_op, int pe) {                             \
    put_signal("shmem_putmem_signal" #SUFFIX, dest, source, nelems, 1, sig_addr, signal, sig_op, pe);                 \
  }
GPUSHMEM_DEFINE_MEM_SIGNAL()
GPUSHMEM_DEFINE_MEM_SIGNAL(_nbi)

#define GPUSHMEM_DEFINE_TYPED_SIGNAL_ONE(T, N, SUFFIX)                                                             \
  GPUSHMEM_EXPORT void shmem_##N##_put_signal##SUFFIX(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                                                      uint64_t signal, int sig_op, int pe) {                       \
    put_signal("shmem_" #N "_put_signal" #SUFFIX, dest, source, nelems, sizeof(T), sig_addr, signal, sig_op, pe);  \
  }
#define GPUSHMEM_DEFINE_TYPED_SIGNAL(T, N) \
  GPUSHMEM_DEFINE_TYPED_SIGNAL_ONE(T, N, ) GPUSHMEM_DEFINE_TYPED_SIGNAL_ONE(T, N, _nbi)
GPUSHMEM_RMA_TYPES(GPUSHMEM_DEFINE_TYPED_SIGNAL)

#define GPUSHMEM_DEFINE_SIZED_SIGNAL_ONE(S, SUFFIX)                                                             \
  GPUSHMEM_EXPORT void shmem_put##S##_signal##SUFFIX(void *dest, const void *source, size_t nelems,             \
                                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    put_signal("shmem_put" #S "_signal" #SUFFIX, dest, source, nelems, (S) / 8, sig_addr, signal, sig_op, pe);  \
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
