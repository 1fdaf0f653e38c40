// The only operations the collective algorithms use to reach other PEs: put, get, signal (a 64-bit flag set
// with release order after the caller's earlier puts to that PE), a local wait on a signal, a wait on a word
// of another PE, and the optional direct pointer. Written once over this interface, the algorithms run on
// any transport that provides it and can be reused from device code with a device implementation of the
// same calls.
//
// Each call dispatches per peer: loads and stores through the node's heap mappings when `pe`'s heap is mapped
// here (runtime/heap), the network transport otherwise (runtime/net). No algorithm reads a peer's memory
// without asking peer_ptr first. Through the network, puts wait for the next signal or add to the same PE
// and travel with it as one message (Transport::send_message): every put is followed by one, and its source
// stays unchanged until then. Addresses are
// symmetric (this PE's address of an object at the same heap offset on every PE); `pe` is a world PE number.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "api/api_common.hpp"
#include "coll/strided_copy.hpp"
#include "net/net.hpp"
#include "state.hpp"
#include "sync/wait.hpp"

namespace gpushmem::coll {

namespace detail {
// The collective this thread is in (set by coll::Call). initial-exec: one %fs-relative access, not a
// __tls_get_addr call, on every collective's way in and out (libgpushmem is loaded at program start).
[[gnu::tls_model("initial-exec")]] inline thread_local const char *t_call = nullptr;
// This thread's puts to `pe` through the network, waiting for the signal that carries them (`src` is read
// then).
void defer_put(void *sym_dest, const void *src, size_t n, int pe);
// Sends them with the signal: `sym_sig` on `pe` raised to (or added) `value` once they are in place.
void send_deferred(int pe, uint64_t *sym_sig, uint64_t value, transport::SignalOp op);
}  // namespace detail

// The name network failures inside a collective's plumbing report: the OpenSHMEM call this thread is in.
inline const char *current_call() {
  return detail::t_call != nullptr ? detail::t_call : "a collective";
}

// An address through which this PE's loads and stores reach `sym` on PE `pe`, or nullptr (a transport
// without load/store reach). The algorithms that read peers' buffers in place ask for it first.
inline char *peer_ptr(const void *sym, int pe) {
  const Runtime &r = rt();
  if (r.data.contains(sym, 1)) [[unlikely]]  // a global or static variable
    return api::data_peer_or_null(static_cast<const char *>(sym), pe);
  char *base = r.p2p.heap_base(pe);
  if (base == nullptr) return nullptr;
  return base + (static_cast<const char *>(sym) - r.heap.base());
}

// Copies n bytes from local `src` to symmetric `dest` on `pe`. Complete (visible to `pe`) once a later
// signal (or add) to `pe` is visible, and it must be followed by one; `src` may change only after that.
inline void put(void *sym_dest, const void *src, size_t n, int pe) {
  if (char *p = peer_ptr(sym_dest, pe); p != nullptr) [[likely]] {
    std::memcpy(p, src, n);
    return;
  }
  detail::defer_put(sym_dest, src, n, pe);
}

// Copies n bytes from symmetric `src` on `pe` to local `dst`; complete on return.
inline void get(void *dst, const void *sym_src, size_t n, int pe) {
  if (const char *p = peer_ptr(sym_src, pe); p != nullptr) [[likely]] {
    std::memcpy(dst, p, n);
    return;
  }
  net::get(current_call(), net::kRuntimeChan, pe, dst, sym_src, n);
}

// Sets the 64-bit symmetric word `sym_sig` on `pe` to `value` after every earlier put of this PE to `pe`
// through this layer (release: a PE that sees the value sees the data). The values one word is sent only
// grow (epochs): through the network a late message never lowers it.
inline void signal(uint64_t *sym_sig, uint64_t value, int pe) {
  if (char *p = peer_ptr(sym_sig, pe); p != nullptr) [[likely]] {
    std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t *>(p)).store(value, std::memory_order_release);
    return;
  }
  detail::send_deferred(pe, sym_sig, value, transport::SignalOp::raise);
}

// Adds `value` to the 64-bit symmetric word `sym` on `pe` after this PE's earlier stores and puts through
// this layer (release). Through the network only this layer may update the word (the target's CPU applies
// it, which is atomic against its own and its node's atomics, not against a NIC's).
inline void add(uint64_t *sym, uint64_t value, int pe) {
  if (char *p = peer_ptr(sym, pe); p != nullptr) [[likely]] {
    std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t *>(p)).fetch_add(value, std::memory_order_release);
    return;
  }
  detail::send_deferred(pe, sym, value, transport::SignalOp::add);
}

// Waits until this PE's signal word `local_sig` is >= value (acquire: the data sent before it is visible).
// `call`, `pe` and `what` name the wait in hang reports.
inline void wait_ge(const uint64_t *local_sig, uint64_t value, const char *call, int pe, const char *what) {
  std::atomic_ref<uint64_t> w(*const_cast<uint64_t *>(local_sig));
  if (w.load(std::memory_order_acquire) >= value) return;
  sync::wait_until([&] { return w.load(std::memory_order_acquire) >= value; }, call, pe, what);
}

// Waits until PE pe's copy of the 64-bit symmetric word `sym` is >= value: an acquire load where it is
// mapped, repeated gets through the network otherwise.
inline void wait_remote_ge(const uint64_t *sym, uint64_t value, const char *call, int pe, const char *what) {
  if (const char *p = peer_ptr(sym, pe); p != nullptr) [[likely]]
    return wait_ge(reinterpret_cast<const uint64_t *>(p), value, call, pe, what);
  sync::wait_until(
      [&] {
        uint64_t seen = 0;
        net::get(call, net::kRuntimeChan, pe, &seen, sym, sizeof seen);
        return seen >= value;
      },
      call, pe, what);
}

// `bytes` bytes of PE pe's copy of symmetric `sym`, readable here: its mapping, or a copy fetched into
// `scratch` through the network (valid until `scratch` changes).
inline const char *read_view(const void *sym, size_t bytes, int pe, std::vector<char> *scratch) {
  if (const char *p = peer_ptr(sym, pe); p != nullptr) [[likely]]
    return p;
  scratch->resize(bytes);
  if (bytes != 0) net::get(current_call(), net::kRuntimeChan, pe, scratch->data(), sym, bytes);
  return scratch->data();
}

// nelems elements of `elem` bytes from PE pe's symmetric `sym_src` (stride sst elements) into local `d`
// (stride dst elements).
inline void get_strided(char *d, ptrdiff_t dst, const char *sym_src, ptrdiff_t sst, size_t nelems, size_t elem,
                        int pe) {
  if (nelems == 0) return;
  if (const char *p = peer_ptr(sym_src, pe); p != nullptr) [[likely]]
    return strided(d, dst, p, sst, nelems, elem);
  std::vector<char> span;
  const size_t extent = (nelems - 1) * size_t(sst) * elem + elem;
  const char *view = read_view(sym_src, extent, pe, &span);
  strided(d, dst, view, sst, nelems, elem);
}

}  // namespace gpushmem::coll
