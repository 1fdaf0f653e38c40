/*
 * Put-with-signal and signal words (over P2P here; through the CPU proxy see transport/proxy.cuh). The payload goes out
 * as an ordinary cooperative put; the group then synchronises (every lane's stores are ordered before it), and one lane
 * updates the signal with a system-scope release, so a PE that sees the signal also sees the whole payload of that
 * call. Nothing is implied about earlier puts (the caller fences for that), as the specification says. Over P2P the nbi
 * forms complete before returning, like the blocking ones.
 */
#ifndef GPUSHMEM_DEVICE_SIGNAL_CUH
#define GPUSHMEM_DEVICE_SIGNAL_CUH

#include <stddef.h>
#include <stdint.h>

#include "gpushmem/device/address.cuh"
#include "gpushmem/device/copy.cuh"
#include "gpushmem/device/ordering.cuh"
#include "gpushmem/device/wait.cuh"

namespace gpushmem {
namespace device {
namespace {

/* Returns rank 0's event of a proxied nbi transfer (event.cuh; 0: complete); putmem_signal drops it. */
template <class Scope, bool Nbi>
__device__ __forceinline__ uint64_t putmem_signal_event(const char *call, void *dest, const void *source, size_t bytes,
                                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  if (error_checks()) check_sig_op(call, sig_op);
  Scope::sync();
  char *r = reach(call, "dest", static_cast<char *>(dest), bytes, pe);
  if (r == nullptr) {
    // Through the proxy (a PE reached so is reached so for both addresses): rank 0 issues it.
    if (error_checks()) check_symmetric(call, "sig_addr", sig_addr, sizeof(uint64_t), pe);
    uint64_t ev = 0;
    if (Scope::rank() == 0)
      ev = remote_putmem_signal(call, dest, source, bytes, sig_addr, signal, sig_op == SHMEM_SIGNAL_ADD, pe, Nbi);
    Scope::sync();
    return ev;
  }
  uint64_t *rsig = remote(call, "sig_addr", sig_addr, sizeof(uint64_t), pe);
  copy_data<Scope>(r, source, bytes);
  Scope::sync();
  if (Scope::rank() == 0) {
    if (sig_op == SHMEM_SIGNAL_ADD)
      signal_add_after_payload(rsig, signal);
    else
      signal_set_after_payload(rsig, signal);
  }
  return 0;
}
template <class Scope, bool Nbi = false>
__device__ __forceinline__ void putmem_signal(const char *call, void *dest, const void *source, size_t bytes,
                                              uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  (void)putmem_signal_event<Scope, Nbi>(call, dest, source, bytes, sig_addr, signal, sig_op, pe);
}
template <class Scope>
__device__ __forceinline__ void putmem_signal_nbi(const char *call, void *dest, const void *source, size_t bytes,
                                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  putmem_signal<Scope, true>(call, dest, source, bytes, sig_addr, signal, sig_op, pe);
}

template <class Scope, class T>
__device__ __forceinline__ void put_signal(const char *call, T *dest, const T *source, size_t nelems,
                                           uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  putmem_signal<Scope>(call, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);
}
template <class Scope, class T>
__device__ __forceinline__ void put_signal_nbi(const char *call, T *dest, const T *source, size_t nelems,
                                               uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  putmem_signal<Scope, true>(call, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);
}

/* shmemx_signal_op (1.6's shmem_signal_set / _add): an atomic update of a remote signal word alone,
   ordered after earlier puts only by shmem_fence or shmem_quiet, as those are. */
__device__ __forceinline__ void signal_op(const char *call, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  if (error_checks()) check_sig_op(call, sig_op);
  uint64_t *word = reach(call, "sig_addr", sig_addr, sizeof(uint64_t), pe);
  if (word == nullptr)
    remote_signal(call, sig_addr, signal, sig_op == SHMEM_SIGNAL_ADD, pe);
  else if (sig_op == SHMEM_SIGNAL_ADD)
    gmem::fetch_add(word, signal);
  else
    gmem::store_relaxed(word, signal);
}

/* This PE's signal word; an acquire, so the payload of the put_signal that wrote the value is visible. */
__device__ __forceinline__ uint64_t signal_fetch(const char *call, const uint64_t *sig_addr) {
  const uint64_t *word = local(call, "sig_addr", sig_addr, sizeof(uint64_t));
  return acquire_load(word);
}

__device__ __forceinline__ uint64_t signal_wait_until(const char *call, uint64_t *sig_addr, int cmp,
                                                      uint64_t cmp_value) {
  if (error_checks()) {
    check_cmp(call, cmp);
    local(call, "sig_addr", sig_addr, sizeof(uint64_t));
  }
  return wait_value(sig_addr, cmp, cmp_value);
}

}  // namespace
}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_SIGNAL_CUH */
