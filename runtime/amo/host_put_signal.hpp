// Put with signal on the host, written once for the typed, SIZE and byte forms and their ctx forms.
#pragma once

#include <atomic>
#include <cstdint>

#include "amo/host_signal_wait.hpp"
#include "rma/host_rma.hpp"

namespace gpushmem::amo {

// The payload first, then the signal with release order: a PE that sees the signal (acquire) sees the whole
// payload. Same-node transfers complete at once, so the _nbi forms are the blocking ones.
// nelems elements of elem bytes each (1 for the mem forms).
inline void put_signal(const char *call, void *dest, const void *source, size_t nelems, size_t elem, uint64_t *sig_addr,
                       uint64_t signal, int sig_op, int pe, uint32_t chan = 0) {
  const size_t bytes = api::element_bytes(call, nelems, elem);
  if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD) [[unlikely]]
    fail_bad_sig_op(call, sig_op);
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
  api::Remote sig = remote_target(call, "sig_addr", sig_addr, pe);
  if (sig.net) [[unlikely]] {
    // The transport orders the signal after the payload (a fence between them).
    api::check_local_buffer(call, "source", source, nelems);
    if (bytes != 0) (void)api::remote_addr(call, "dest", dest, bytes, pe);  // checks the range
    return net::put_signal(call, chan, pe, dest, source, bytes, sig_addr, signal, sig_op == SHMEM_SIGNAL_ADD);
  }
  rma::put_bytes(call, dest, source, nelems, elem, pe);  // a GPU-heap payload is a synchronous copy: done here too
  std::atomic_ref<uint64_t> word = word_at<uint64_t>(sig);
  if (sig_op == SHMEM_SIGNAL_SET)
    word.store(signal, std::memory_order_release);
  else
    word.fetch_add(signal, std::memory_order_release);
}

}  // namespace gpushmem::amo
