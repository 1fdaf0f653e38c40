// Host-initiated atomics. Each operation is written once as a template over the element type; the API files
// only stamp names. A peer whose heap is mapped in this process gets one CPU atomic on its word: atomic
// against every other PE's AMOs on the same node, since they all use the same physical word through their
// mappings. A peer reached through the network gets the transport's atomic (UCX: the NIC's, or the target
// CPU's over TCP, which are CPU atomics on the same word too).
//
// Memory order: seq_cst. The read-modify-write operations compile to the same locked instruction on x86
// whatever the order, and seq_cst keeps programs that order AMOs without a shmem_fence (common in existing
// OpenSHMEM codes, e.g. a compare_swap lock around puts) working; only set and fetch pay a little more.
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <type_traits>

#include "api/api_common.hpp"
#include "net/net.hpp"

namespace gpushmem::amo {

// The type the CPU atomic works on: the element type itself for integers, the integer of the same size for
// float and double (their set, fetch and swap only move bits).
template <class T>
using Word = std::conditional_t<std::is_floating_point_v<T>, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>,
                                std::remove_const_t<T>>;

// Ends the job: a GPU-heap word is device memory the host cannot reach with a CPU atomic.
[[noreturn]] void fail_gpu_word(const char *call, const char *arg);
// Ends the job: `addr` is not aligned for an atomic of `bytes` bytes.
[[noreturn]] void fail_misaligned(const char *call, const char *arg, const void *addr, size_t bytes);

// Where symmetric `sym` lives on PE `pe`, after the checks of api::remote_addr and the AMO's own (not a
// GPU-heap word, aligned). A net Remote: the network transport's atomics reach it.
template <class T>
api::Remote remote_target(const char *call, const char *arg, const T *sym, int pe) {
  api::require_running(call);
  api::Remote remote = api::remote_addr(call, arg, sym, sizeof(T), pe);
  // A global's copy is host memory; a GPU-heap word of a PE reached through the network is updated by that
  // PE's agent (system-scope GPU atomics).
  if (remote.gpu && !remote.net && !rt().data.contains(sym, sizeof(T))) [[unlikely]]
    fail_gpu_word(call, arg);
  if (reinterpret_cast<uintptr_t>(remote.addr) % alignof(Word<T>) != 0) [[unlikely]]
    fail_misaligned(call, arg, sym, sizeof(T));
  return remote;
}

template <class T>
std::atomic_ref<Word<T>> word_at(const api::Remote &remote) {
  return std::atomic_ref<Word<T>>(*reinterpret_cast<Word<T> *>(remote.addr));
}

// The atomic view of symmetric `sym` on a PE whose heap is mapped here (runtime-internal users that checked).
template <class T>
std::atomic_ref<Word<T>> remote_word(const char *call, const char *arg, const T *sym, int pe) {
  return word_at<T>(remote_target(call, arg, sym, pe));
}

// Ends the job: array `arg` is NULL although the call needs `nelems` elements of it (1: a result pointer).
[[noreturn]] void fail_null(const char *call, const char *arg, size_t nelems);

// The local object an _nbi fetching AMO stores the old value in.
template <class T>
T &fetch_target(const char *call, T *fetch) {
  if (fetch == nullptr) [[unlikely]]
    fail_null(call, "fetch", 1);
  return *fetch;
}

template <class T>
Word<T> to_word(T value) {
  return std::bit_cast<Word<T>>(value);
}
template <class T>
T from_word(Word<T> word) {
  return std::bit_cast<T>(word);
}

// The same operation through the network transport (remote.net): `want_old` false posts it.
template <class T>
T net_amo(const char *call, uint32_t chan, int pe, const T *sym, transport::AmoOp op, T operand, T compare,
          bool want_old) {
  Word<T> old{};
  net::amo(call, chan, pe, sym, op, sizeof(T), static_cast<uint64_t>(to_word(operand)),
           static_cast<uint64_t>(to_word(compare)), want_old ? &old : nullptr);
  return from_word<T>(old);
}

template <class T>
T fetch(const char *call, const T *source, int pe, uint32_t chan = 0) {
  api::Remote r = remote_target(call, "source", source, pe);
  if (r.net) [[unlikely]]
    return net_amo<T>(call, chan, pe, source, transport::AmoOp::load, T{}, T{}, true);
  return from_word<T>(word_at<T>(r).load(std::memory_order_seq_cst));
}

template <class T>
void set(const char *call, T *dest, T value, int pe, uint32_t chan = 0) {
  api::Remote r = remote_target(call, "dest", dest, pe);
  if (r.net) [[unlikely]]
    return (void)net_amo<T>(call, chan, pe, dest, transport::AmoOp::store, value, T{}, false);
  word_at<T>(r).store(to_word(value), std::memory_order_seq_cst);
}

template <class T>
T swap(const char *call, T *dest, T value, int pe, uint32_t chan = 0) {
  api::Remote r = remote_target(call, "dest", dest, pe);
  if (r.net) [[unlikely]]
    return net_amo<T>(call, chan, pe, dest, transport::AmoOp::swap, value, T{}, true);
  return from_word<T>(word_at<T>(r).exchange(to_word(value), std::memory_order_seq_cst));
}

template <class T>
T compare_swap(const char *call, T *dest, T cond, T value, int pe, uint32_t chan = 0) {
  api::Remote r = remote_target(call, "dest", dest, pe);
  if (r.net) [[unlikely]]
    return net_amo<T>(call, chan, pe, dest, transport::AmoOp::cswap, value, cond, true);
  // On failure compare_exchange stores the current value in `cond`: the old value either way.
  word_at<T>(r).compare_exchange_strong(cond, value, std::memory_order_seq_cst);
  return cond;
}

// The read-modify-write operations: `want_old` false for the non-fetching names (atomic_add, atomic_and,
// ...), which the network posts instead of waiting for the old value.
#define GPUSHMEM_HOST_RMW(NAME, OP, MEMBER)                                                     \
  template <class T>                                                                            \
  T NAME(const char *call, T *dest, T value, int pe, uint32_t chan = 0, bool want_old = true) { \
    api::Remote r = remote_target(call, "dest", dest, pe);                                      \
    if (r.net) [[unlikely]]                                                                     \
      return net_amo<T>(call, chan, pe, dest, transport::AmoOp::OP, value, T{}, want_old);      \
    return word_at<T>(r).MEMBER(value, std::memory_order_seq_cst);                              \
  }
GPUSHMEM_HOST_RMW(fetch_add, add, fetch_add)
GPUSHMEM_HOST_RMW(fetch_and, and_, fetch_and)
GPUSHMEM_HOST_RMW(fetch_or, or_, fetch_or)
GPUSHMEM_HOST_RMW(fetch_xor, xor_, fetch_xor)
#undef GPUSHMEM_HOST_RMW

}  // namespace gpushmem::amo
