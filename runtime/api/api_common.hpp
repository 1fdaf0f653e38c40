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

// nelems elements of `size` bytes, in bytes; a count whose byte size does not fit in size_t ends the job
// (it would wrap around to a small transfer).
inline size_t element_bytes(const char *call, size_t nelems, size_t size) {
  if (size > 1 && nelems > SIZE_MAX / size) [[unlikely]]
    fail(call, "nelems=%zu elements of %zu bytes overflow size_t", nelems, size);
  return nelems * size;
}

// With error checks on: pe must be a PE of the job (for calls that move nothing, which check no address).
inline void check_pe_range(const char *call, int pe) {
  if constexpr (GPUSHMEM_BUILT_WITH_ERROR_CHECKS) {
    const Runtime &r = rt();
    if (r.error_checks && (pe < 0 || pe >= r.n_pes)) [[unlikely]]
      fail(call, "pe=%d is out of range: the job has %d PEs (0..%d)", pe, r.n_pes, r.n_pes - 1);
  }
}

// With error checks on: a local buffer that nelems > 0 elements are read from or written to must not be NULL.
inline void check_local_buffer(const char *call, const char *arg, const void *p, size_t nelems) {
  if constexpr (GPUSHMEM_BUILT_WITH_ERROR_CHECKS) {
    if (p == nullptr && rt().error_checks) [[unlikely]]
      fail(call, "%s=NULL with nelems=%zu: pass a buffer of nelems elements", arg, nelems);
  }
}

// Where `bytes` bytes at symmetric address `sym` live on PE `pe`, as seen from this process: `addr` is in
// PE pe's host heap mapping (load/store) or, with `gpu` set, in its GPU heap mapping (device memory:
// reach it with gpu::copy, never dereference it on the host). A global variable's copy is host memory;
// in GPU mode `gpu` is set for it too, because the buffer it is copied from or to may be device memory.
// With `net` set, PE pe is reached through the network transport (runtime/net): `addr` is then this PE's own
// symmetric address of the object, which net:: translates.
struct Remote {
  char *addr;
  bool gpu;
  bool net = false;
};

// Names why PE `pe`'s GPU heap is not mapped here and ends the job.
[[noreturn]] void fail_gpu_unreachable(const char *call, int pe);
// Checks a GPU-heap address (error checks on) and translates it. Out of line: the host-heap path stays small.
Remote remote_gpu_addr(const char *call, const char *arg, const char *sym, size_t bytes, int pe);
// A host-heap address on a PE whose heap is not mapped here: checks that the network reaches pe (always) and
// returns a net Remote. Out of line: the mapped path stays small.
Remote remote_net_addr(const char *call, const char *arg, const char *sym, size_t bytes, int pe);
// The same for a global or static variable (inside rt().data): ends the job when PE pe's copy is not mapped.
Remote remote_data_addr(const char *call, const char *arg, const char *sym, size_t bytes, int pe);
// PE pe's copy of the global at `p` (inside rt().data) as mapped here, or nullptr.
char *data_peer_or_null(const char *p, int pe);

// The address at which `bytes` bytes at symmetric `sym` live on PE `pe`. Checks (when enabled) that pe is in
// range and reachable and that the whole range lies in a symmetric heap (the host heap, or the GPU heap in
// GPU mode) or among the program's global and static variables; a failed check names `call`, the argument
// and the PE, and ends the job.
inline Remote remote_addr(const char *call, const char *arg, const void *sym, size_t bytes, int pe) {
  Runtime &r = rt();
  const char *p = static_cast<const char *>(sym);
  if (const char *gpu_base = r.gpu.base; gpu_base != nullptr && p >= gpu_base && p < gpu_base + r.gpu.limit)
    return remote_gpu_addr(call, arg, p, bytes, pe);
  if (r.data.contains(p, 1)) [[unlikely]]
    return remote_data_addr(call, arg, p, bytes, pe);
  if constexpr (GPUSHMEM_BUILT_WITH_ERROR_CHECKS) {
    if (r.error_checks) [[likely]] {
      if (pe < 0 || pe >= r.n_pes) [[unlikely]]
        fail(call, "pe=%d is out of range: the job has %d PEs (0..%d)", pe, r.n_pes, r.n_pes - 1);
      const char *base = r.heap.base();
      if (p < base + heap::kInternalAreaBytes || p > base + r.heap.size() ||
          bytes > static_cast<size_t>(base + r.heap.size() - p)) [[unlikely]] {
        if (r.gpu.base != nullptr)
          fail(call,
               "%s=%p (%zu bytes) is not a symmetric address: it is not inside the GPU symmetric heap [%p, %p) "
               "of PE %d%s; pass memory from shmem_malloc%s",
               arg, sym, bytes, static_cast<const void *>(r.gpu.base + heap::kInternalAreaBytes),
               static_cast<const void *>(r.gpu.base + r.gpu.mapped.load(std::memory_order_relaxed)), r.my_pe,
               r.data.size() != 0 ? " nor among its global and static variables" : "",
               r.data.size() != 0 ? ", or a global or static variable" : "");
        fail(call,
             "%s=%p (%zu bytes) is not a symmetric address: it is not inside the symmetric heap [%p, %p) of "
             "PE %d%s; pass memory from shmem_malloc%s",
             arg, sym, bytes, static_cast<const void *>(base + heap::kInternalAreaBytes),
             static_cast<const void *>(base + r.heap.size()), r.my_pe,
             r.data.size() != 0 ? " nor among its global and static variables" : "",
             r.data.size() != 0 ? ", or a global or static variable" : "");
      }
    }
  }
  char *peer = r.p2p.heap_base(pe);
  if (peer == nullptr) [[unlikely]]
    return remote_net_addr(call, arg, p, bytes, pe);
  return {peer + (p - r.heap.base()), false};
}

}  // namespace gpushmem::api
