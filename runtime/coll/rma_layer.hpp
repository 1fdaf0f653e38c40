// The only operations the collective algorithms use to reach other PEs: put, get, signal (a 64-bit flag set
// with release order after the caller's earlier puts to that PE), a local wait on a signal, and the optional
// direct pointer. Written once over this interface, the algorithms run on any transport that provides it and
// can be reused from device code with a device implementation of the same five calls.
//
// Today's implementation: node-local PEs, loads and stores through the peer mappings of the host heap
// (runtime/heap). Addresses are symmetric (this PE's address of an object at the same heap offset on every
// PE); `pe` is a world PE number.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "api/api_common.hpp"
#include "state.hpp"
#include "sync/wait.hpp"

namespace gpushmem::coll {

// An address through which this PE's loads and stores reach `sym` on PE `pe`, or nullptr (a transport
// without load/store reach). The algorithms that read peers' buffers in place ask for it first.
inline char *peer_ptr(const void *sym, int pe) {
  const Runtime &r = rt();
  if (r.data.contains(sym, 1)) [[unlikely]]  // a global or static variable
    return api::data_peer_or_null(static_cast<const char *>(sym), pe);
  char *base = r.peer_base[pe];
  if (base == nullptr) return nullptr;
  return base + (static_cast<const char *>(sym) - r.heap.base());
}

// Copies n bytes from local `src` to symmetric `dest` on `pe`. Complete (visible to `pe`) once a later
// signal to `pe` is visible.
inline void put(void *sym_dest, const void *src, size_t n, int pe) {
  std::memcpy(peer_ptr(sym_dest, pe), src, n);
}

// Copies n bytes from symmetric `src` on `pe` to local `dst`; complete on return.
inline void get(void *dst, const void *sym_src, size_t n, int pe) {
  std::memcpy(dst, peer_ptr(sym_src, pe), n);
}

// Sets the 64-bit symmetric word `sym_sig` on `pe` to `value` after every earlier put of this PE to `pe`
// (release: a PE that sees the value sees the data).
inline void signal(uint64_t *sym_sig, uint64_t value, int pe) {
  std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t *>(peer_ptr(sym_sig, pe)))
      .store(value, std::memory_order_release);
}

// Waits until this PE's signal word `local_sig` is >= value (acquire: the data sent before it is visible).
// `call`, `pe` and `what` name the wait in hang reports.
inline void wait_ge(const uint64_t *local_sig, uint64_t value, const char *call, int pe, const char *what) {
  std::atomic_ref<uint64_t> w(*const_cast<uint64_t *>(local_sig));
  if (w.load(std::memory_order_acquire) >= value) return;
  sync::wait_until([&] { return w.load(std::memory_order_acquire) >= value; }, call, pe, what);
}

}  // namespace gpushmem::coll
