// Shared by the files that implement the public API: the export macro, init checks and the translation of
// a symmetric address to the address that reaches it on another PE.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpushmem/config.h"
#include "state.hpp"

// Every public entry point: C linkage, exported (the version script keeps everything else local).
#define GPUSHMEM_EXPORT extern "C" __attribute__((visibility("default")))

namespace gpushmem::api {

// Logs "<call>: <message>" and ends the job with status 1 (every PE, through the bootstrap).
[[noreturn, gnu::format(printf, 2, 3)]] void fail(const char *call, const char *fmt, ...);
[[noreturn]] void fail_not_initialized(const char *call);

inline void require_running(const char *call) {
  if (!running()) [[unlikely]]
    fail_not_initialized(call);
}

// The address at which `bytes` bytes at symmetric `sym` live on PE `pe`, for load/store. Checks (when
// enabled) that pe is in range and reachable and that the whole range lies in the symmetric heap; a
// failed check names `call`, the argument and the PE, and ends the job.
inline char *remote_addr(const char *call, const char *arg, const void *sym, size_t bytes, int pe) {
  Runtime &r = rt();
  const char *p = static_cast<const char *>(sym);
  if constexpr (GPUSHMEM_BUILT_WITH_ERROR_CHECKS) {
    if (r.error_checks) [[likely]] {
      if (pe < 0 || pe >= r.n_pes) [[unlikely]]
        fail(call, "pe=%d is out of range: the job has %d PEs (0..%d)", pe, r.n_pes, r.n_pes - 1);
      const char *base = r.heap.base();
      if (p < base + heap::kInternalAreaBytes || p > base + r.heap.size() ||
          bytes > static_cast<size_t>(base + r.heap.size() - p)) [[unlikely]]
        fail(call,
             "%s=%p (%zu bytes) is not a symmetric address: it is not inside the symmetric heap [%p, %p) of "
             "PE %d; pass memory from shmem_malloc",
             arg, sym, bytes, static_cast<const void *>(base + heap::kInternalAreaBytes),
             static_cast<const void *>(base + r.heap.size()), r.my_pe);
      if (r.peer_base[pe] == nullptr) [[unlikely]]
        fail(call,
             "PE %d cannot be reached from PE %d: it runs on another node and no network transport is "
             "available yet",
             pe, r.my_pe);
    }
  }
  return r.peer_base[pe] + (p - r.heap.base());
}

}  // namespace gpushmem::api
